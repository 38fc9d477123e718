// Lane matching with the memory of each track (see lane_memory.hpp).
#include "augur/runtime/scene/lane_memory.hpp"

#include <algorithm>
#include <cmath>

#include "augur/core/fixed_vector.hpp"

namespace augur::runtime::scene {

namespace {

/// One lane of the reach: the distance still left to drive at its start (or abreast of the vehicle), and
/// whether it continues a remembered lane (false: reached through a lane change).
struct ReachLane {
    std::uint32_t lane;
    double left_m;
    bool sequence;
    bool expanded;
};

using Reach = FixedVector<ReachLane, MAX_REACH_LANES>;

/// Adds `lane` with `left_m` to drive from its start, or raises the distance left of a lane already in.
void offer(Reach& reach, std::uint32_t lane, double left_m, bool sequence, std::uint32_t& dropped) noexcept {
    for (ReachLane& r : reach) {
        if (r.lane == lane) {
            if (left_m > r.left_m || (sequence && !r.sequence)) {
                r.left_m = std::max(r.left_m, left_m);
                r.sequence = r.sequence || sequence;
                r.expanded = false;
            }
            return;
        }
    }
    if (!reach.pushBack(ReachLane{lane, left_m, sequence, false})) {
        ++dropped;
    }
}

/// The remembered lanes, their neighbours and the successors of both within `budget_m` of driving.
void buildReach(const RoadMap& map, const RememberedLanes& memory, double budget_m, Reach& reach,
                std::uint32_t& dropped) noexcept {
    reach.clear();
    for (std::uint32_t i = 0; i < memory.laneCount; ++i) {
        const std::uint32_t lane = memory.lanes[i];
        const Lane& l = map.lane(lane);
        offer(reach, lane, budget_m - (l.length_m - memory.s_m[i]), true, dropped);
        for (const Neighbour& n : {l.left, l.right}) {
            if (n.lane == NO_INDEX) {
                continue;
            }
            // Abreast of the remembered position at the same fraction of length.
            const double length = map.lane(n.lane).length_m;
            const double fraction = l.length_m > 0.0 ? memory.s_m[i] / l.length_m : 0.0;
            offer(reach, n.lane, budget_m - length * (1.0 - fraction), false, dropped);
        }
    }
    // Successors while distance is left at their start (each expansion lowers it by a lane length > 0).
    for (bool grew = true; grew;) {
        grew = false;
        for (std::size_t k = 0; k < reach.size(); ++k) {
            if (reach[k].expanded) {
                continue;
            }
            reach[k].expanded = true;
            const double left = reach[k].left_m;
            const bool sequence = reach[k].sequence;
            if (left < 0.0) {
                continue;
            }
            for (const std::uint32_t next : map.successors(reach[k].lane)) {
                offer(reach, next, left - map.lane(next).length_m, sequence, dropped);
                grew = true;
            }
        }
    }
}

bool inReach(const Reach& reach, std::uint32_t lane) noexcept {
    return std::any_of(reach.begin(), reach.end(), [lane](const ReachLane& r) { return r.lane == lane; });
}

using Lanes = FixedVector<std::uint32_t, MAX_REACH_LANES>;

bool contains(const Lanes& lanes, std::uint32_t lane) noexcept {
    return std::any_of(lanes.begin(), lanes.end(), [lane](std::uint32_t l) { return l == lane; });
}

void add(Lanes& lanes, std::uint32_t lane, std::uint32_t& dropped) noexcept {
    if (!contains(lanes, lane) && !lanes.pushBack(lane)) {
        ++dropped;
    }
}

/// The branches the track did not take: the successors of the remembered lanes' ancestors (up to
/// FORK_DEPTH lanes back) that are neither on the reach nor ancestors themselves.
void buildBranchesNotTaken(const RoadMap& map, const RememberedLanes& memory, const Reach& reach, Lanes& out,
                           std::uint32_t& dropped) noexcept {
    Lanes ancestors;
    for (std::uint32_t i = 0; i < memory.laneCount; ++i) {
        Lanes level;
        add(level, memory.lanes[i], dropped);
        for (std::size_t depth = 0; depth < FORK_DEPTH; ++depth) {
            Lanes previous;
            for (const std::uint32_t lane : level) {
                for (const std::uint32_t p : map.predecessors(lane)) {
                    add(previous, p, dropped);
                    add(ancestors, p, dropped);
                }
            }
            level = previous;
        }
    }
    out.clear();
    for (const std::uint32_t a : ancestors) {
        for (const std::uint32_t s : map.successors(a)) {
            if (!inReach(reach, s) && !contains(ancestors, s)) {
                add(out, s, dropped);
            }
        }
    }
}

/// True when `lane` is one of the branches not taken or follows one within FORK_DEPTH lanes.
bool onBranchNotTaken(const RoadMap& map, const Lanes& branches, std::uint32_t lane) noexcept {
    Lanes level;
    (void)level.pushBack(lane);
    std::uint32_t beyond = 0;  // predecessors past the capacity: not searched (a wide merge)
    for (std::size_t depth = 0; depth <= FORK_DEPTH; ++depth) {
        Lanes previous;
        for (const std::uint32_t l : level) {
            if (contains(branches, l)) {
                return true;
            }
            for (const std::uint32_t p : map.predecessors(l)) {
                add(previous, p, beyond);
            }
        }
        level = previous;
    }
    return false;
}

/// Inserts `match` into `out` keeping it nearest first; false when `out` is full and `match` is farther.
bool insertNearestFirst(LaneMatches& out, const LaneMatch& match) noexcept {
    if (out.full()) {
        if (out[out.size() - 1].distance_m <= match.distance_m) {
            return false;
        }
        out.popBack();
    }
    (void)out.pushBack(match);
    for (std::size_t k = out.size() - 1; k > 0; --k) {
        const LaneMatch& a = out[k - 1];
        const LaneMatch& b = out[k];
        if (a.distance_m < b.distance_m || (a.distance_m == b.distance_m && a.lane < b.lane)) {
            break;
        }
        std::swap(out[k - 1], out[k]);
    }
    return true;
}

}  // namespace

LaneMemory::LaneMemory(std::uint32_t capacity) : m_previous(capacity), m_current(capacity) {}

void LaneMemory::beginUpdate() noexcept {
    m_previous.swap(m_current);
    m_previousCount = m_currentCount;
    m_currentCount = 0;
    m_counts = LaneMemoryCounts{};
}

const RememberedLanes* LaneMemory::recall(std::uint32_t trackId) const noexcept {
    for (std::uint32_t i = 0; i < m_previousCount; ++i) {
        if (m_previous[i].trackId == trackId) {
            return &m_previous[i];
        }
    }
    return nullptr;
}

LaneMatchSource LaneMemory::match(const LaneLocator& locator, const SceneVehicle& vehicle, bool idUnique,
                                  const LocalisationGates& gates, LaneMatches& out) noexcept {
    (void)locator.locate(vehicle.x_m, vehicle.y_m, vehicle.heading_rad, gates, out);
    const RememberedLanes* memory = idUnique ? recall(vehicle.id) : nullptr;
    if (memory == nullptr) {
        return LaneMatchSource::Memoryless;
    }
    const double step_m = std::hypot(static_cast<double>(vehicle.x_m) - memory->x_m,
                                     static_cast<double>(vehicle.y_m) - memory->y_m);
    if (!(step_m <= MAX_STEP_M)) {
        ++m_counts.leftMemory;
        return LaneMatchSource::LeftMemory;
    }
    Reach reach;
    buildReach(locator.map(), *memory, REACH_FACTOR * step_m + REACH_SLACK_M, reach, m_counts.reachDropped);

    Lanes branches;
    buildBranchesNotTaken(locator.map(), *memory, reach, branches, m_counts.reachDropped);

    // Step 3: the candidates but those on branches not taken.
    LaneMatches kept;
    for (const LaneMatch& m : out) {
        if (inReach(reach, m.lane) || !onBranchNotTaken(locator.map(), branches, m.lane)) {
            (void)kept.pushBack(m);  // a subset of `out`: fits
        }
    }
    if (!kept.empty()) {
        m_counts.candidatesDropped += static_cast<std::uint32_t>(out.size() - kept.size());
        out = kept;
        ++m_counts.remembered;
        return LaneMatchSource::Remembered;
    }
    // Step 4: all dropped; the lanes of the sequence under the widened gates.
    LocalisationGates widened = gates;
    widened.lateralMargin_m += REMEMBERED_MARGIN_M;
    widened.maxHeading_rad += REMEMBERED_HEADING_RAD;
    for (const ReachLane& r : reach) {
        LaneMatch m;
        if (!r.sequence || !locator.matchLane(r.lane, vehicle.x_m, vehicle.y_m, vehicle.heading_rad, widened, m)) {
            continue;
        }
        if (!insertNearestFirst(kept, m)) {
            ++m_counts.matchesDropped;
        }
    }
    if (kept.empty()) {
        ++m_counts.leftMemory;  // step 5: the candidates of locate() stay in `out`
        return LaneMatchSource::LeftMemory;
    }
    m_counts.candidatesDropped += static_cast<std::uint32_t>(out.size());
    out = kept;
    ++m_counts.restored;
    return LaneMatchSource::Restored;
}

void LaneMemory::remember(const SceneVehicle& vehicle, bool idUnique, const LaneMatches& matches) noexcept {
    if (!idUnique || matches.empty() || m_currentCount == m_current.size()) {
        return;
    }
    RememberedLanes& entry = m_current[m_currentCount++];
    entry.trackId = vehicle.id;
    entry.x_m = vehicle.x_m;
    entry.y_m = vehicle.y_m;
    entry.laneCount = static_cast<std::uint32_t>(matches.size());
    for (std::uint32_t i = 0; i < entry.laneCount; ++i) {
        entry.lanes[i] = matches[i].lane;
        entry.s_m[i] = matches[i].s_m;
    }
}

void LaneMemory::forget() noexcept {
    m_previousCount = 0;
    m_currentCount = 0;
}

}  // namespace augur::runtime::scene
