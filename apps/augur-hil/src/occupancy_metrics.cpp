#include "augur/hil/occupancy_metrics.hpp"

#include <cmath>

#include "augur/core/panic.hpp"

namespace augur::hil {

double occupancyAt(const OccupancyGrid& grid, std::uint32_t frame, double x_m, double y_m) noexcept {
    AUGUR_ASSERT(frame < grid.frameCount && grid.frameCount <= MAX_GRID_FRAMES, "occupancyAt: frame out of range");
    AUGUR_ASSERT(grid.widthCells <= MAX_GRID_SIDE_CELLS && grid.heightCells <= MAX_GRID_SIDE_CELLS &&
                     grid.resolution_m > 0.0F,
                 "occupancyAt: grid dimensions out of range");
    const double col = std::floor((x_m - grid.originX_m) / grid.resolution_m);
    const double row = std::floor((y_m - grid.originY_m) / grid.resolution_m);
    if (!(col >= 0.0 && row >= 0.0 && col < grid.widthCells && row < grid.heightCells)) {
        return -1.0;
    }
    const auto index = static_cast<std::size_t>(row) * grid.widthCells + static_cast<std::size_t>(col);
    return static_cast<double>(grid.cells[frame][index]) / 65535.0;
}

OccupancyOutcome occupancyOutcome(const OccupancyGrid& grid, std::uint32_t frame, double x_m, double y_m,
                                  double threshold) noexcept {
    const double p = occupancyAt(grid, frame, x_m, y_m);
    if (p < 0.0) {
        return OccupancyOutcome::OutsideGrid;
    }
    return p >= threshold ? OccupancyOutcome::Hit : OccupancyOutcome::Miss;
}

void OccupancyHitCounter::add(OccupancyOutcome outcome) noexcept {
    switch (outcome) {
        case OccupancyOutcome::Hit: ++hits; break;
        case OccupancyOutcome::Miss: ++misses; break;
        case OccupancyOutcome::OutsideGrid: ++outside; break;
    }
}

double OccupancyHitCounter::hitRate() const noexcept {
    const std::size_t scored = hits + misses;
    return scored == 0 ? 0.0 : static_cast<double>(hits) / static_cast<double>(scored);
}

}  // namespace augur::hil
