#include "augur/hil/set_distance.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "augur/core/panic.hpp"

namespace augur::hil {
namespace {

/// Row-major matrix of min(c, d)^p between the two sets.
std::vector<double> cutoffCost(std::span<const Point2> x, std::span<const Point2> y, double cutoff_m, double order) {
    std::vector<double> cost(x.size() * y.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
        for (std::size_t j = 0; j < y.size(); ++j) {
            cost[i * y.size() + j] = std::pow(std::min(cutoff_m, distance(x[i], y[j])), order);
        }
    }
    return cost;
}

}  // namespace

double ospa(std::span<const Point2> x, std::span<const Point2> y, double cutoff_m, double order) {
    AUGUR_ASSERT(cutoff_m > 0.0 && order >= 1.0, "ospa: cutoff > 0 and order >= 1");
    if (x.empty() && y.empty()) {
        return 0.0;
    }
    if (x.size() > y.size()) {
        std::swap(x, y);
    }
    const std::size_t m = x.size();
    const std::size_t n = y.size();
    double sum = std::pow(cutoff_m, order) * static_cast<double>(n - m);
    if (m > 0) {
        const std::vector<double> cost = cutoffCost(x, y, cutoff_m, order);
        const std::vector<int> assignment = minimumCostAssignment(cost, m, n);
        for (std::size_t i = 0; i < m; ++i) {
            sum += cost[i * n + static_cast<std::size_t>(assignment[i])];
        }
    }
    return std::pow(sum / static_cast<double>(n), 1.0 / order);
}

GospaResult gospa(std::span<const Point2> truths, std::span<const Point2> estimates, double cutoff_m, double order) {
    AUGUR_ASSERT(cutoff_m > 0.0 && order >= 1.0, "gospa: cutoff > 0 and order >= 1");
    GospaResult r;
    const double cp = std::pow(cutoff_m, order);
    // With α = 2, pairing two points at distance >= c costs c^p, the same as leaving both unassigned
    // (c^p/2 each), so the optimal γ is an optimal assignment of min(c, d)^p with pairs at d >= c
    // dropped afterwards.
    if (!truths.empty() && !estimates.empty()) {
        const std::vector<double> cost = cutoffCost(truths, estimates, cutoff_m, order);
        const std::vector<int> assignment = minimumCostAssignment(cost, truths.size(), estimates.size());
        for (std::size_t i = 0; i < truths.size(); ++i) {
            if (assignment[i] < 0) {
                continue;
            }
            const double d = distance(truths[i], estimates[static_cast<std::size_t>(assignment[i])]);
            if (d < cutoff_m) {
                r.localisationSum += std::pow(d, order);
                ++r.assigned;
            }
        }
    }
    r.missed = truths.size() - r.assigned;
    r.falseTargets = estimates.size() - r.assigned;
    const double total = r.localisationSum + 0.5 * cp * static_cast<double>(r.missed + r.falseTargets);
    r.distance_m = std::pow(total, 1.0 / order);
    return r;
}

}  // namespace augur::hil
