// Occupancy hit rate: how often a road user's true future position falls into a cell whose predicted
// occupancy probability is at least a threshold, in an augur::OccupancyGrid frame (messages.hpp:
// cell (row, col) covers x ∈ [originX + col·res, +res), y ∈ [originY + row·res, +res); probability =
// cell / 65535).
#pragma once

#include <cstddef>
#include <cstdint>

#include "augur/core/messages.hpp"

namespace augur::hil {

enum class OccupancyOutcome : std::uint8_t {
    Hit,          ///< the cell holding the position has probability >= threshold
    Miss,         ///< inside the grid, below the threshold
    OutsideGrid,  ///< the position lies outside the grid (not scored)
};

/// Probability of the cell holding (x, y) in `frame`, or a negative value outside the grid.
/// Preconditions: frame < grid.frameCount, grid dimensions within the compiled limits.
/// noexcept, allocation-free, O(1).
double occupancyAt(const OccupancyGrid& grid, std::uint32_t frame, double x_m, double y_m) noexcept;

/// Scores one true position against `frame` of `grid`. threshold in [0, 1]. noexcept, O(1).
OccupancyOutcome occupancyOutcome(const OccupancyGrid& grid, std::uint32_t frame, double x_m, double y_m,
                                  double threshold) noexcept;

struct OccupancyHitCounter {
    std::size_t hits{0};
    std::size_t misses{0};
    std::size_t outside{0};

    void add(OccupancyOutcome outcome) noexcept;
    /// hits / (hits + misses); 0 when nothing inside the grid was scored.
    [[nodiscard]] double hitRate() const noexcept;
};

}  // namespace augur::hil
