// Minimum-cost assignment (the linear assignment problem) over a dense cost matrix.
//
// Kuhn–Munkres ("Hungarian") algorithm with row/column potentials and shortest augmenting paths
// (Kuhn 1955; Munkres 1957; the O(n²·m) formulation of Jonker & Volgenant 1987). Offline code: it
// allocates its working arrays on each call. It is the exact reference the associator (association.hpp)
// is tested against, and the matcher of the bench's metrics; the run phase uses the associator.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace augur::kernels::kf {

/// Assigns rows to columns of the row-major `rows`×`cols` matrix `cost` (finite values) so that
/// min(rows, cols) pairs are formed and the summed cost is minimal. Returns, for each row, its column,
/// or -1 for rows left over when rows > cols. O(min³·max) time, O(rows + cols) extra memory.
std::vector<int> minimumCostAssignment(std::span<const double> cost, std::size_t rows, std::size_t cols);

}  // namespace augur::kernels::kf
