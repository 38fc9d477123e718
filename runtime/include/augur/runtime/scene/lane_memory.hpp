// Lane memory: the lanes each track was matched to in the previous update, so that this update's matching
// keeps the vehicle on the lane sequence it entered. Drivers stay on the lanes they entered; inside a
// junction the internal lanes of several turns from one approach overlap, and a track whose position or
// heading lags the vehicle in a turn can leave the gates of its own turn while those of another turn still
// take it in: matched without memory, every corridor of that vehicle is then the other turn's.
//
// Per track, keyed by the tracker's own track id (SceneVehicle::id), the memory holds the lanes it was
// matched to in the previous update (at most MAX_LANE_MATCHES), the arc length on each and the vehicle's
// position then. This update:
//   1. the reach: the remembered lanes and their successors (the lane sequence), and their neighbours and
//      the neighbours' successors (a lane change), as far as the vehicle may have driven since:
//      REACH_FACTOR × the straight-line distance moved (the path along a curve is longer than its chord)
//      + REACH_SLACK_M;
//   2. the branches not taken: the successors of the remembered lanes' ancestors (up to FORK_DEPTH lanes
//      back) that are not on the reach: the other turns from the approach the vehicle came by, an exit of a
//      roundabout it drove past;
//   3. of the candidates LaneLocator::locate() returns, those on a branch not taken (or up to FORK_DEPTH
//      lanes after one) are dropped, the others kept: lanes on the reach, and lanes beside the vehicle's
//      that the map does not link to them (two internal lanes of a junction side by side);
//   4. when all are dropped: the lanes of the sequence under locate()'s gates widened by
//      REMEMBERED_MARGIN_M and REMEMBERED_HEADING_RAD, nearest first: the vehicle still drives its lanes
//      while its track, lagging in a turn, has left their gates. Only as a rescue: widened on every update
//      they would keep a lane the vehicle has just left (an exit passed, a lane change) for cycles longer.
//      Lane changes are not widened: a neighbour lies about one lane width away, inside the widened gate;
//   5. when none fits either (the vehicle left the remembered lanes), or there is no memory (a new track,
//      a track that moved more than MAX_STEP_M since, an id given to more than one vehicle of the update,
//      memory cleared by forget()): the candidates of locate(), as without memory.
// A track absent from an update is forgotten: a track that ended leaves nothing behind, and an id that
// comes back starts afresh.
//
// Capacity: one entry per scene vehicle (fixed at init); the reach holds at most MAX_REACH_LANES lanes,
// lanes beyond it are left out and counted (as are those of the branch list). Run phase: match() and
// remember() are noexcept and allocation-free, O(remembered lanes × reach + candidates × predecessors^
// FORK_DEPTH + reach × lane points); not thread-safe.
#pragma once

#include <cstdint>
#include <vector>

#include "augur/runtime/scene/corridors.hpp"
#include "augur/runtime/scene/localisation.hpp"

namespace augur::runtime::scene {

/// Lanes the reach of one track holds at most (remembered lanes, neighbours and their successors).
inline constexpr std::size_t MAX_REACH_LANES = 32;
/// The reach along the lanes: this many times the straight-line distance moved since the last update …
inline constexpr double REACH_FACTOR = 1.5;
/// … plus this (a standing vehicle reaches the start of the next lane when its match crosses over).
inline constexpr double REACH_SLACK_M = 10.0;
/// Lanes back from a remembered lane where its forks are looked for (a turn inside a SUMO junction is split
/// into up to two internal lanes after the approach lane), and lanes after a fork a candidate is judged by.
inline constexpr std::size_t FORK_DEPTH = 2;
/// A track that moved further than this since the last update is matched without memory.
inline constexpr double MAX_STEP_M = 30.0;
/// Widening of the lateral gate (beyond half the lane width plus LocalisationGates::lateralMargin_m) and of
/// the heading gate for the remembered sequence (step 3): about half a lane width, and 20° of heading.
inline constexpr double REMEMBERED_MARGIN_M = 1.5;
inline constexpr double REMEMBERED_HEADING_RAD = 0.35;

/// How one vehicle's lanes were matched.
enum class LaneMatchSource : std::uint8_t {
    Memoryless = 0,  ///< no memory of the track: locate()'s candidates
    Remembered,      ///< candidates not on a branch not taken (step 3)
    Restored,        ///< all on branches not taken; the sequence under the widened gates (step 4)
    LeftMemory,      ///< memory did not fit (step 5): locate()'s candidates
};

/// What one track was matched to in the previous update.
struct RememberedLanes {
    std::uint32_t trackId{0};
    float x_m{0.0F};
    float y_m{0.0F};
    std::uint32_t laneCount{0};
    std::uint32_t lanes[MAX_LANE_MATCHES]{};
    float s_m[MAX_LANE_MATCHES]{};
};

struct LaneMemoryCounts {
    std::uint32_t remembered{0};       ///< vehicles matched with memory to locate()'s candidates (step 3)
    std::uint32_t candidatesDropped{0};  ///< candidates on branches not taken left out (steps 3 and 4)
    std::uint32_t restored{0};         ///< vehicles matched to their sequence under the widened gates (step 4)
    std::uint32_t leftMemory{0};       ///< vehicles with memory matched without it (step 4)
    std::uint32_t reachDropped{0};     ///< lanes that did not fit a reach or branch list (MAX_REACH_LANES)
    std::uint32_t matchesDropped{0};   ///< step 4 matches beyond MAX_LANE_MATCHES (the farthest)
};

class LaneMemory {
public:
    /// Init phase: room for `capacity` tracks (the scene's maximum vehicle count).
    explicit LaneMemory(std::uint32_t capacity);

    /// Starts an update: last update's memory becomes what match() recalls; counts reset.
    void beginUpdate() noexcept;

    /// The lane matches of `vehicle` into `out` (nearest first, one per lane), with the memory of its track
    /// unless `idUnique` is false (its id was given to more than one vehicle of this update).
    LaneMatchSource match(const LaneLocator& locator, const SceneVehicle& vehicle, bool idUnique,
                          const LocalisationGates& gates, LaneMatches& out) noexcept;

    /// Remembers `matches` as the lanes of `vehicle`'s track for the next update (nothing when `idUnique`
    /// is false or matches is empty). Room for the capacity's tracks per update (every vehicle of a scene
    /// update fits); a track beyond it would be matched without memory in the next update.
    void remember(const SceneVehicle& vehicle, bool idUnique, const LaneMatches& matches) noexcept;

    /// Clears every track's memory (the next update matches without it), e.g. after updates were skipped.
    void forget() noexcept;

    [[nodiscard]] const LaneMemoryCounts& counts() const noexcept { return m_counts; }

private:
    [[nodiscard]] const RememberedLanes* recall(std::uint32_t trackId) const noexcept;

    std::vector<RememberedLanes> m_previous;
    std::vector<RememberedLanes> m_current;
    std::uint32_t m_previousCount{0};
    std::uint32_t m_currentCount{0};
    LaneMemoryCounts m_counts;
};

}  // namespace augur::runtime::scene
