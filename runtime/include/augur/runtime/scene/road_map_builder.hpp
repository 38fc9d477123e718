// Assembles a RoadMap from lanes described by a reader (Lanelet2, SUMO) and derives what both
// formats leave implicit: predecessors, conflict points between lanes, their priority, and (for
// Lanelet2, which has no junction objects) junctions as clusters of conflicting lanes.
//
// Init-phase only (allocates). Conflicts are found by pairwise centreline intersection with a
// bounding-box prefilter: O(L² + Σ segment pairs of overlapping lanes), done once at load.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/runtime/scene/map_error.hpp"
#include "augur/runtime/scene/road_map.hpp"

namespace augur::runtime::scene {

struct LaneSpec {
    std::string id;
    std::vector<Point2> centreline;  ///< in driving direction
    double width_m{3.2};
    double speedLimit_mps{13.89};
    std::uint32_t sourceLine{0};  ///< for error messages
};

enum class Side : std::uint8_t { Left, Right };

class RoadMapBuilder {
public:
    /// Priority between lanes a and b where they conflict (FirstHasPriority means a goes first).
    using PriorityRule = std::function<Priority(std::uint32_t a, std::uint32_t b, ConflictKind kind)>;

    explicit RoadMapBuilder(std::string fileName) : m_file(std::move(fileName)) {}

    /// Adds a lane; returns its index (dense, in call order). Geometry is validated by build().
    std::uint32_t addLane(LaneSpec spec);
    /// Adds a junction named by the format (SUMO junction id); returns its index.
    std::uint32_t addJunction(std::string id);
    /// Puts `lane` inside `junction` (both indices returned above).
    void setJunction(std::uint32_t lane, std::uint32_t junction);
    /// `to` continues `from` at its end. Duplicates and self-links are ignored.
    void addSuccessor(std::uint32_t from, std::uint32_t to);
    /// `other` lies on `side` of `lane` in the same direction; `changeAllowed` per the map's markings.
    void setNeighbour(std::uint32_t lane, Side side, std::uint32_t other, bool changeAllowed);
    /// A stop line at arc length s_m on `lane` (values past the end are clamped to the end).
    void setStopLine(std::uint32_t lane, double s_m);
    /// Lanes that overlap by construction (a two-way lanelet and its reverse): never a conflict.
    void setTwins(std::uint32_t a, std::uint32_t b);
    void setPriorityRule(PriorityRule rule) { m_rule = std::move(rule); }
    /// Derive junctions from clusters of conflicting lanes (formats without junction objects).
    void deriveJunctions(bool enable) { m_deriveJunctions = enable; }

    [[nodiscard]] std::size_t laneCount() const noexcept { return m_specs.size(); }
    [[nodiscard]] const LaneSpec& spec(std::uint32_t lane) const { return m_specs.at(lane); }
    [[nodiscard]] std::uint32_t junctionOf(std::uint32_t lane) const { return m_junctionOfLane.at(lane); }
    [[nodiscard]] const std::vector<std::uint32_t>& successorsOf(std::uint32_t lane) const { return m_successors.at(lane); }
    MapSummary& summary() noexcept { return m_summary; }

    /// Validates geometry and produces the map. Fails on lanes with < 2 distinct points or no lanes.
    [[nodiscard]] Result<RoadMap, MapError> build();

private:
    struct Build;  // the map being built and the per-lane tables of its steps (road_map_builder.cpp)
    // The steps of build(), in order.
    [[nodiscard]] Result<void, MapError> addLaneGeometry(Build& b) const;
    void linkLanes(Build& b) const;
    void addCrossings(Build& b) const;
    void addMerges(Build& b) const;
    void assignJunctions(Build& b);
    void orderConflicts(Build& b) const;
    [[nodiscard]] bool related(std::uint32_t a, std::uint32_t b) const;

    std::string m_file;
    std::vector<LaneSpec> m_specs;
    std::vector<std::vector<std::uint32_t>> m_successors;
    std::vector<Neighbour> m_left;
    std::vector<Neighbour> m_right;
    std::vector<double> m_stopLine;
    std::vector<std::uint32_t> m_junctionOfLane;
    std::vector<std::uint32_t> m_twin;
    std::vector<std::string> m_junctionIds;
    PriorityRule m_rule;
    bool m_deriveJunctions{false};
    MapSummary m_summary;
};

}  // namespace augur::runtime::scene
