// Corridors: the lane sequences a vehicle may drive within the prediction horizon (seed paper §3.1).
//
// "Corridors are the collection of adjacent lanelets that start from the current position of the
// vehicle and reach the distance that the vehicle can travel at a certain time at its current speed.
// The adjacent lanelets are found via a graph search." Here: a depth-first search from every lane the
// vehicle is localised on (except a lane whose successor it also matches and has entered: at a lane
// transition the later lane seeds the search; a vehicle still metres before the next lane starts on its
// own), following successors, plus (where the map allows it) a change to the left or right neighbour of
// the starting lane, starting abreast of the vehicle, up to length L = max(minLength, v·T + ½·a·T² +
// margin), T the horizon and a an acceleration the vehicle may keep up over it (the distance it can
// travel). A path ends at L, at a lane without successors, or at the segment capacity (marked truncated);
// a path whose only continuations would revisit one of its own lanes (a loop, e.g. once round a
// roundabout) is a prefix of another corridor and is not reported. Each corridor's centreline is
// parameterised by s, with s = 0 at the vehicle's position.
//
// Run phase: searchCorridors() is noexcept, allocation-free; depth bounded by MAX_SEGMENTS_PER_CORRIDOR.
#pragma once

#include <cstdint>
#include <span>

#include "augur/core/fixed_vector.hpp"
#include "augur/core/messages.hpp"
#include "augur/runtime/scene/localisation.hpp"
#include "augur/runtime/scene/road_map.hpp"

namespace augur::runtime::scene {

inline constexpr std::size_t MAX_SEGMENTS_PER_CORRIDOR = 24;

/// A road user as the scene sees it (map frame; speeds ≥ 0).
struct SceneVehicle {
    std::uint32_t id{0};  ///< the tracker's track id (the scene's lane memory is keyed by it)
    float x_m{0.0F};
    float y_m{0.0F};
    float heading_rad{0.0F};
    float speed_mps{0.0F};
    float length_m{4.5F};
    float width_m{1.8F};
};

/// One lane (part) of a corridor: lane arc lengths [sBegin, sEnd] map to corridor s from corridorS.
struct CorridorSegment {
    std::uint32_t lane{NO_INDEX};
    float sBegin_m{0.0F};
    float sEnd_m{0.0F};
    float corridorS_m{0.0F};
    /// Entered by merging: the previous segment's lane ends beside this one (a lane drop, such as the end
    /// of an acceleration lane), and this segment starts abreast of that end. The centreline jumps sideways
    /// here by about a lane width; describing a corridor, the relations stage spreads the jump over the
    /// metres before (relations_stage.cpp).
    bool merge{false};
};

struct Corridor {
    std::uint32_t vehicle{NO_INDEX};  ///< index of the vehicle in the update's input
    float length_m{0.0F};
    bool laneChange{false};  ///< starts with a change to a neighbour of the vehicle's lane
    bool truncated{false};   ///< ended at MAX_SEGMENTS_PER_CORRIDOR before reaching its length
    FixedVector<CorridorSegment, MAX_SEGMENTS_PER_CORRIDOR> segments;
};

struct CorridorSearchParams {
    double horizon_s{8.0};     ///< prediction horizon
    double margin_m{10.0};     ///< added to the distance travelled
    double accel_mps2{0.0};    ///< acceleration kept up over the horizon (v·T + ½·a·T²; the runtime: motion.max_accel_mps2)
    double minLength_m{30.0};  ///< corridors of slow or standing vehicles still reach this far
    bool laneChanges{true};    ///< also search from permitted neighbours of the starting lane
    LocalisationGates gates;
};

struct CorridorSearchResult {
    std::uint32_t count{0};     ///< corridors written to the output
    std::uint32_t overflow{0};  ///< corridors found but not stored (capacity)
    LaneMatch located;          ///< the best lane match (lane NO_INDEX when not on the map)
};

/// Searches the corridors of `vehicle` into `out` (capacity = out.size()). O(paths × depth).
/// A vehicle just before the start of a lane that continues the lane it is on (within the gates of both:
/// the last metres before a junction) starts its corridors on the lane it is on, not on the next lanes.
/// A lane that ends while a neighbour of it goes on (a lane drop) is not a dead end: its traffic merges,
/// so the corridor goes on along that neighbour from abreast of the end (CorridorSegment::merge). Only a
/// lane that ends with no neighbour going on (the edge of the map) ends a corridor short of its length.
CorridorSearchResult searchCorridors(const LaneLocator& locator, const SceneVehicle& vehicle, std::uint32_t vehicleIndex,
                                     const CorridorSearchParams& params, std::span<Corridor> out) noexcept;

/// As above from lane matches the caller made (nearest first, one per lane): the scene's matching with
/// the track's memory (lane_memory.hpp). `located` of the result is matches[0].
CorridorSearchResult searchCorridors(const LaneLocator& locator, const SceneVehicle& vehicle, std::uint32_t vehicleIndex,
                                     const CorridorSearchParams& params, const LaneMatches& matches,
                                     std::span<Corridor> out) noexcept;

/// Centreline point and heading at corridor arc length s (clamped to [0, length]). O(segments + log points).
void corridorPointAt(const RoadMap& map, const Corridor& corridor, double s_m, Point2& point,
                     double& heading_rad) noexcept;

/// The segment index of `corridor` that covers lane `lane` at lane arc length `laneS_m`, or -1.
int findSegment(const Corridor& corridor, std::uint32_t lane, double laneS_m) noexcept;

}  // namespace augur::runtime::scene
