// Localisation on the road map: an object's pose → the lanes it may be on, with arc length s.
//
// A lane is a candidate when the pose lies within half the lane width plus a lateral margin of its
// centreline and its heading is within a gate of the lane direction there (seed paper §3.1: corridors
// start "from the current position of the vehicle"). A uniform grid built at init lists, per cell,
// the centreline segments near it, so a query touches one cell.
//
// Run phase: locate() is noexcept, allocation-free, O(segments in one cell); thread-safe (const).
#pragma once

#include <cstdint>
#include <vector>

#include "augur/core/fixed_vector.hpp"
#include "augur/runtime/scene/road_map.hpp"

namespace augur::runtime::scene {

inline constexpr std::size_t MAX_LANE_MATCHES = 8;

struct LocalisationGates {
    double lateralMargin_m{1.0};  ///< accepted distance beyond half the lane width
    double maxHeading_rad{0.7};   ///< accepted |heading − lane direction|
};

struct LaneMatch {
    std::uint32_t lane{NO_INDEX};
    float s_m{0.0F};               ///< arc length of the projection on the lane
    float lateral_m{0.0F};         ///< signed offset from the centreline, + to the left
    float headingError_rad{0.0F};  ///< pose heading − lane direction, wrapped to (−π, π]
    float distance_m{0.0F};        ///< distance to the centreline (|lateral| unless beyond an end)
};

using LaneMatches = FixedVector<LaneMatch, MAX_LANE_MATCHES>;

class LaneLocator {
public:
    /// Builds the grid index (init phase, allocates). `maxReach_m` bounds half width + lateral margin
    /// of any query; `cell_m` is the grid cell side.
    explicit LaneLocator(const RoadMap& map, double maxReach_m = 6.0, double cell_m = 8.0);

    /// Candidate lanes for the pose, nearest first (ties: lower lane index); one match per lane. Returns the
    /// number of candidates that did not fit in `out` (counted, never silently dropped).
    std::uint32_t locate(double x_m, double y_m, double heading_rad, const LocalisationGates& gates,
                         LaneMatches& out) const noexcept;

    /// The pose matched against one given lane under `gates` (nearest centreline segment, as locate()
    /// judges it); false when it lies outside them. O(points of the lane).
    bool matchLane(std::uint32_t lane, double x_m, double y_m, double heading_rad, const LocalisationGates& gates,
                   LaneMatch& out) const noexcept;

    /// Projection of (x, y) on `lane`: arc length and signed lateral offset (+ left). O(points).
    void projectOnLane(std::uint32_t lane, double x_m, double y_m, double& s_m, double& lateral_m) const noexcept;

    [[nodiscard]] const RoadMap& map() const noexcept { return *m_map; }

private:
    const RoadMap* m_map;
    double m_reach_m;
    double m_cell_m;
    double m_originX_m;
    double m_originY_m;
    std::uint32_t m_columns;
    std::uint32_t m_rows;
    std::vector<std::uint32_t> m_cellStart;  ///< per cell, into m_cellSegments (size cells + 1)
    std::vector<std::uint32_t> m_cellSegments;  ///< global point index k: the segment [k, k+1]
    std::vector<std::uint32_t> m_laneOfPoint;
};

/// Wraps an angle to (−π, π].
[[nodiscard]] double wrapAngle(double angle_rad) noexcept;

}  // namespace augur::runtime::scene
