#include "augur/kernels/kf/dense_assignment.hpp"

#include <algorithm>
#include <limits>

#include "augur/core/panic.hpp"

namespace augur::kernels::kf {

std::vector<int> minimumCostAssignment(std::span<const double> cost, std::size_t rows, std::size_t cols) {
    AUGUR_ASSERT(cost.size() == rows * cols, "minimumCostAssignment: cost must hold rows*cols values");
    if (rows == 0 || cols == 0) {
        return std::vector<int>(rows, -1);
    }
    // The algorithm needs n <= m: solve the transposed problem when there are more rows than columns.
    const bool transposed = rows > cols;
    const std::size_t n = transposed ? cols : rows;
    const std::size_t m = transposed ? rows : cols;
    const auto at = [&](std::size_t i, std::size_t j) { return transposed ? cost[j * cols + i] : cost[i * cols + j]; };

    constexpr double INF = std::numeric_limits<double>::infinity();
    // 1-based potentials u (rows), v (columns); p[j] = row matched to column j (0 = none); way = path.
    std::vector<double> u(n + 1, 0.0);
    std::vector<double> v(m + 1, 0.0);
    std::vector<std::size_t> p(m + 1, 0);
    std::vector<std::size_t> way(m + 1, 0);
    std::vector<double> minv(m + 1);
    std::vector<char> used(m + 1);
    for (std::size_t i = 1; i <= n; ++i) {
        p[0] = i;
        std::size_t j0 = 0;
        std::fill(minv.begin(), minv.end(), INF);
        std::fill(used.begin(), used.end(), 0);
        do {
            used[j0] = 1;
            const std::size_t i0 = p[j0];
            double delta = INF;
            std::size_t j1 = 0;
            for (std::size_t j = 1; j <= m; ++j) {
                if (used[j] != 0) {
                    continue;
                }
                const double reduced = at(i0 - 1, j - 1) - u[i0] - v[j];
                if (reduced < minv[j]) {
                    minv[j] = reduced;
                    way[j] = j0;
                }
                if (minv[j] < delta) {
                    delta = minv[j];
                    j1 = j;
                }
            }
            for (std::size_t j = 0; j <= m; ++j) {
                if (used[j] != 0) {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
        } while (p[j0] != 0);
        do {
            const std::size_t j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
        } while (j0 != 0);
    }
    std::vector<int> rowToCol(rows, -1);
    for (std::size_t j = 1; j <= m; ++j) {
        if (p[j] == 0) {
            continue;
        }
        const std::size_t small = p[j] - 1;  // index in the n-side
        const std::size_t large = j - 1;     // index in the m-side
        if (transposed) {
            rowToCol[large] = static_cast<int>(small);
        } else {
            rowToCol[small] = static_cast<int>(large);
        }
    }
    return rowToCol;
}

}  // namespace augur::kernels::kf
