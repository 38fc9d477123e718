// The road map the runtime reasons on: one flat, read-only model for Lanelet2 and SUMO networks.
//
// Terms (docs/design/maps.md): a *lane* is a directed driving lane with a centreline polyline
// (Lanelet2 lanelet, SUMO lane incl. internal junction lanes); *successors* continue a lane at its end;
// *neighbours* lie beside it in the same direction (a lane change is allowed only where the map says so);
// a *junction* groups the lanes inside an intersection; a *conflict* is a point where two lanes that do
// not follow each other cross or merge, with the map's priority between them.
//
// Layout: every table is a std::vector filled once by RoadMapBuilder::build() and never resized
// afterwards (capacity fixed at init); lanes refer to their points, links and conflicts by
// [first, first + count) ranges. All const queries are noexcept, allocation-free and thread-safe;
// lane, conflict and junction indices passed to them must be in range (not checked in the run phase).
// Coordinates are metres in the map's local frame (x east, y north); s is arc length along a lane.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace augur::runtime::scene {

inline constexpr std::uint32_t NO_INDEX = 0xFFFFFFFFU;

struct Point2 {
    double x_m{0.0};
    double y_m{0.0};
};

/// Priority between the two lanes of a conflict, as the map's rules give it.
enum class Priority : std::uint8_t {
    Unregulated = 0,  ///< the map says nothing (e.g. an unsigned merge); callers apply their default
    FirstHasPriority,  ///< lane `first` goes first, `second` yields
    SecondHasPriority,
    Mutual,  ///< both must yield (e.g. all-way stop)
};

enum class ConflictKind : std::uint8_t { Crossing = 0, Merge };

/// Where an object's lane may be changed towards a neighbour (Lanelet2: dashed lines only).
struct Neighbour {
    std::uint32_t lane{NO_INDEX};
    bool changeAllowed{false};
};

struct Lane {
    std::uint32_t firstPoint{0};  ///< into RoadMap::points() and RoadMap::pointS()
    std::uint32_t pointCount{0};  ///< ≥ 2
    double length_m{0.0};
    double width_m{0.0};
    double speedLimit_mps{0.0};
    std::uint32_t firstSuccessor{0};
    std::uint32_t successorCount{0};
    std::uint32_t firstPredecessor{0};
    std::uint32_t predecessorCount{0};
    Neighbour left;
    Neighbour right;
    std::uint32_t junction{NO_INDEX};  ///< the junction this lane lies in, if any
    double stopLine_s{-1.0};  ///< arc length of a stop line on this lane, < 0 when none
    std::uint32_t firstConflict{0};  ///< into RoadMap::laneConflicts()
    std::uint32_t conflictCount{0};
};

struct Junction {
    Point2 centre;
    std::uint32_t firstLane{0};  ///< into RoadMap::junctionLanes()
    std::uint32_t laneCount{0};
};

/// Two lanes crossing or merging at one point. `first < second` (lane indices).
struct Conflict {
    std::uint32_t first{NO_INDEX};
    std::uint32_t second{NO_INDEX};
    double firstS_m{0.0};   ///< arc length of the conflict point on `first`
    double secondS_m{0.0};  ///< … on `second`
    Point2 point;
    ConflictKind kind{ConflictKind::Crossing};
    Priority priority{Priority::Unregulated};
    std::uint32_t junction{NO_INDEX};
};

/// Counts shown by the CLI summary and checked by tests; skipped content is never silent.
struct MapSummary {
    std::uint32_t lanes{0};
    std::uint32_t junctions{0};
    std::uint32_t conflicts{0};
    std::uint32_t regulatoryElements{0};  ///< right-of-way, speed limits, stop lines, traffic lights read
    std::uint32_t rightOfWayRules{0};
    std::uint32_t stopLines{0};
    std::uint32_t speedLimits{0};
    std::uint32_t trafficLights{0};
    std::uint32_t skippedNonVehicle{0};  ///< lanes for pedestrians/bicycles only (not an error)
    std::uint32_t warnings{0};           ///< unsupported or inconsistent content skipped
};

/// The immutable map. Built by RoadMapBuilder; move-only in practice (large).
class RoadMap {
public:
    [[nodiscard]] std::size_t laneCount() const noexcept { return m_lanes.size(); }
    [[nodiscard]] const Lane& lane(std::uint32_t index) const noexcept { return m_lanes[index]; }
    [[nodiscard]] std::span<const Lane> lanes() const noexcept { return m_lanes; }
    [[nodiscard]] std::span<const Point2> points() const noexcept { return m_points; }
    [[nodiscard]] std::span<const double> pointS() const noexcept { return m_pointS; }

    [[nodiscard]] std::span<const Point2> centreline(std::uint32_t lane) const noexcept {
        return {m_points.data() + m_lanes[lane].firstPoint, m_lanes[lane].pointCount};
    }
    /// Cumulative arc length at each centreline point (first 0, last length_m).
    [[nodiscard]] std::span<const double> centrelineS(std::uint32_t lane) const noexcept {
        return {m_pointS.data() + m_lanes[lane].firstPoint, m_lanes[lane].pointCount};
    }
    [[nodiscard]] std::span<const std::uint32_t> successors(std::uint32_t lane) const noexcept {
        return {m_links.data() + m_lanes[lane].firstSuccessor, m_lanes[lane].successorCount};
    }
    [[nodiscard]] std::span<const std::uint32_t> predecessors(std::uint32_t lane) const noexcept {
        return {m_links.data() + m_lanes[lane].firstPredecessor, m_lanes[lane].predecessorCount};
    }
    /// Indices into conflicts() of the conflicts `lane` takes part in, ordered by s on that lane.
    [[nodiscard]] std::span<const std::uint32_t> laneConflicts(std::uint32_t lane) const noexcept {
        return {m_laneConflicts.data() + m_lanes[lane].firstConflict, m_lanes[lane].conflictCount};
    }
    [[nodiscard]] std::span<const Conflict> conflicts() const noexcept { return m_conflicts; }
    [[nodiscard]] std::span<const Junction> junctions() const noexcept { return m_junctions; }
    [[nodiscard]] std::span<const std::uint32_t> junctionLanes(std::uint32_t junction) const noexcept {
        return {m_junctionLanes.data() + m_junctions[junction].firstLane, m_junctions[junction].laneCount};
    }

    /// The source id (Lanelet2 relation id, SUMO lane id) of a lane / junction. Init/diagnostics use.
    [[nodiscard]] const std::string& laneId(std::uint32_t lane) const { return m_laneIds.at(lane); }
    [[nodiscard]] const std::string& junctionId(std::uint32_t junction) const { return m_junctionIds.at(junction); }
    /// Lane with source id `id`, or NO_INDEX. O(lanes); not for the run phase.
    [[nodiscard]] std::uint32_t findLane(const std::string& id) const;
    [[nodiscard]] std::uint32_t findJunction(const std::string& id) const;

    [[nodiscard]] const MapSummary& summary() const noexcept { return m_summary; }
    /// Bounding box of all centrelines.
    [[nodiscard]] Point2 minCorner() const noexcept { return m_min; }
    [[nodiscard]] Point2 maxCorner() const noexcept { return m_max; }

    /// Point and heading (rad, CCW from +x) at arc length s on `lane` (clamped to [0, length]).
    /// O(log points). noexcept, allocation-free.
    void pointAt(std::uint32_t lane, double s_m, Point2& point, double& heading_rad) const noexcept;

    /// The conflict between lanes a and b nearest to the start of a, or NO_INDEX. O(conflicts of a).
    [[nodiscard]] std::uint32_t conflictBetween(std::uint32_t a, std::uint32_t b) const noexcept;

    /// True when `winner` has priority over `loser` at conflict `c` (false for Unregulated/Mutual).
    [[nodiscard]] bool hasPriority(std::uint32_t c, std::uint32_t winner) const noexcept;

private:
    friend class RoadMapBuilder;
    std::vector<Lane> m_lanes;
    std::vector<Point2> m_points;
    std::vector<double> m_pointS;
    std::vector<std::uint32_t> m_links;
    std::vector<Conflict> m_conflicts;
    std::vector<std::uint32_t> m_laneConflicts;
    std::vector<Junction> m_junctions;
    std::vector<std::uint32_t> m_junctionLanes;
    std::vector<std::string> m_laneIds;
    std::vector<std::string> m_junctionIds;
    MapSummary m_summary;
    Point2 m_min;
    Point2 m_max;
};

}  // namespace augur::runtime::scene
