// Corridor graph search (see corridors.hpp).
#include "augur/runtime/scene/corridors.hpp"

#include <algorithm>
#include <cmath>

namespace augur::runtime::scene {

namespace {

constexpr float S_TOLERANCE_M = 1e-3F;
/// A vehicle this far or less before the start of the next lane counts as on it (its corridors may start
/// there): the offset this puts into the prediction stays within the position noise.
constexpr double BEFORE_START_M = 0.25;

class Search {
public:
    Search(const LaneLocator& locator, std::span<Corridor> out, std::uint32_t vehicle, double length_m)
        : m_locator(locator), m_map(locator.map()), m_out(out), m_vehicle(vehicle), m_length_m(length_m) {}

    /// Extends `path` (last segment open: lane and sBegin set) to its end and beyond.
    void extend(Corridor& path) noexcept {
        CorridorSegment& seg = path.segments[path.segments.size() - 1];
        const Lane& lane = m_map.lane(seg.lane);
        const double remaining = m_length_m - seg.corridorS_m;
        const double laneLeft = lane.length_m - seg.sBegin_m;
        if (laneLeft >= remaining) {
            seg.sEnd_m = static_cast<float>(seg.sBegin_m + remaining);
            path.length_m = static_cast<float>(m_length_m);
            emit(path);
            return;
        }
        seg.sEnd_m = static_cast<float>(lane.length_m);
        const float nextS = static_cast<float>(seg.corridorS_m + laneLeft);
        path.length_m = nextS;
        const auto successors = m_map.successors(seg.lane);
        CorridorSegment merge;
        const bool merges = successors.empty() && mergeTarget(path, lane, nextS, merge);
        if (successors.empty() && !merges) {
            emit(path);  // dead end: the edge of the map
            return;
        }
        if (path.segments.full()) {
            path.truncated = true;
            emit(path);
            path.truncated = false;
            return;
        }
        if (merges) {
            (void)path.segments.pushBack(merge);
            extend(path);
            path.segments.popBack();
            return;
        }
        for (const std::uint32_t next : successors) {
            if (visited(path, next)) {
                continue;  // a loop: this continuation is a prefix of another corridor
            }
            const CorridorSegment open{next, 0.0F, 0.0F, nextS};
            (void)path.segments.pushBack(open);
            extend(path);
            path.segments.popBack();
        }
    }

    [[nodiscard]] std::uint32_t count() const noexcept { return m_count; }
    [[nodiscard]] std::uint32_t overflow() const noexcept { return m_overflow; }
    /// True when `lane` is already part of a stored corridor before its first merge (a lane reached by
    /// merging late may still be the target of a lane change now: another path).
    [[nodiscard]] bool covered(std::uint32_t lane) const noexcept {
        for (std::uint32_t c = 0; c < m_count; ++c) {
            for (const CorridorSegment& s : m_out[c].segments) {
                if (s.merge) {
                    break;
                }
                if (s.lane == lane) {
                    return true;
                }
            }
        }
        return false;
    }

private:
    /// The lane a path merges into where `lane` ends: a neighbour that goes on past the end (further along
    /// its own length, or through a successor) and is not yet on the path; the left one when both do.
    /// `merge` starts on it abreast of the end, at corridor s `corridorS`.
    bool mergeTarget(const Corridor& path, const Lane& lane, float corridorS, CorridorSegment& merge) const noexcept {
        Point2 end;
        double heading = 0.0;
        m_map.pointAt(path.segments[path.segments.size() - 1].lane, lane.length_m, end, heading);
        for (const Neighbour& n : {lane.left, lane.right}) {
            if (n.lane == NO_INDEX || visited(path, n.lane)) {
                continue;
            }
            double s = 0.0;
            double lateral = 0.0;
            m_locator.projectOnLane(n.lane, end.x_m, end.y_m, s, lateral);
            if (s < m_map.lane(n.lane).length_m - S_TOLERANCE_M || !m_map.successors(n.lane).empty()) {
                merge = CorridorSegment{n.lane, static_cast<float>(s), static_cast<float>(s), corridorS, true};
                return true;
            }
        }
        return false;
    }

    static bool visited(const Corridor& path, std::uint32_t lane) noexcept {
        return std::any_of(path.segments.begin(), path.segments.end(),
                           [lane](const CorridorSegment& s) { return s.lane == lane; });
    }

    void emit(const Corridor& path) noexcept {
        if (m_count < m_out.size()) {
            m_out[m_count] = path;
            m_out[m_count].vehicle = m_vehicle;
            ++m_count;
        } else {
            ++m_overflow;
        }
    }

    const LaneLocator& m_locator;
    const RoadMap& m_map;
    std::span<Corridor> m_out;
    std::uint32_t m_vehicle;
    double m_length_m;
    std::uint32_t m_count{0};
    std::uint32_t m_overflow{0};
};

/// True when `lane` ends beside `into` (a dropped lane whose traffic merges into `into`): changing from
/// `into` to `lane` leads nowhere staying on `into` does not.
bool dropsInto(const RoadMap& map, std::uint32_t lane, std::uint32_t into) noexcept {
    const Lane& l = map.lane(lane);
    return map.successors(lane).empty() && (l.left.lane == into || l.right.lane == into);
}

}  // namespace

CorridorSearchResult searchCorridors(const LaneLocator& locator, const SceneVehicle& vehicle, std::uint32_t vehicleIndex,
                                     const CorridorSearchParams& params, std::span<Corridor> out) noexcept {
    LaneMatches matches;
    (void)locator.locate(vehicle.x_m, vehicle.y_m, vehicle.heading_rad, params.gates, matches);
    return searchCorridors(locator, vehicle, vehicleIndex, params, matches, out);
}

CorridorSearchResult searchCorridors(const LaneLocator& locator, const SceneVehicle& vehicle, std::uint32_t vehicleIndex,
                                     const CorridorSearchParams& params, const LaneMatches& matches,
                                     std::span<Corridor> out) noexcept {
    CorridorSearchResult result;
    if (matches.empty()) {
        return result;
    }
    result.located = matches[0];
    const RoadMap& map = locator.map();
    const double speed = static_cast<double>(std::max(vehicle.speed_mps, 0.0F));
    const double length_m =
        std::max(params.minLength_m, speed * params.horizon_s + 0.5 * params.accel_mps2 * params.horizon_s * params.horizon_s +
                                         params.margin_m);
    Search search(locator, out, vehicleIndex, length_m);
    Corridor path;
    // A match whose projection is clamped to the lane's start, more than BEFORE_START_M short of it, lies
    // before the lane (the gates reach past its end points): the vehicle has not entered it yet.
    auto beforeStart = [](const LaneMatch& m) {
        const double d = m.distance_m;
        const double lateral = m.lateral_m;
        return m.s_m <= S_TOLERANCE_M && d * d - lateral * lateral > BEFORE_START_M * BEFORE_START_M;
    };
    auto isEntered = [&](std::uint32_t lane) {
        return std::any_of(matches.begin(), matches.end(),
                           [&](const LaneMatch& m) { return m.lane == lane && !beforeStart(m); });
    };
    auto isMatched = [&](std::uint32_t lane) {
        return std::any_of(matches.begin(), matches.end(), [lane](const LaneMatch& m) { return m.lane == lane; });
    };
    for (const LaneMatch& match : matches) {
        // At a lane transition the vehicle matches both the ending lane and its successors: the
        // successors it has entered seed the corridors (those from the ending lane would repeat them).
        // Successors it is still before are reached through the lane it is on.
        const auto next = map.successors(match.lane);
        if (search.covered(match.lane) || std::any_of(next.begin(), next.end(), isEntered)) {
            continue;
        }
        const auto previous = map.predecessors(match.lane);
        if (beforeStart(match) && std::any_of(previous.begin(), previous.end(), isMatched)) {
            continue;
        }
        path = Corridor{};
        (void)path.segments.pushBack(CorridorSegment{match.lane, match.s_m, match.s_m, 0.0F});
        search.extend(path);
        if (!params.laneChanges) {
            continue;
        }
        const Lane& lane = map.lane(match.lane);
        for (const Neighbour& n : {lane.left, lane.right}) {
            if (n.lane == NO_INDEX || !n.changeAllowed || search.covered(n.lane) || dropsInto(map, n.lane, match.lane)) {
                continue;
            }
            path = Corridor{};
            path.laneChange = true;
            // Abreast of the vehicle on the neighbour (which may start or end elsewhere than its own lane).
            double neighbourS = 0.0;
            double lateral = 0.0;
            locator.projectOnLane(n.lane, vehicle.x_m, vehicle.y_m, neighbourS, lateral);
            const auto s = static_cast<float>(neighbourS);
            (void)path.segments.pushBack(CorridorSegment{n.lane, s, s, 0.0F});
            search.extend(path);
        }
    }
    result.count = search.count();
    result.overflow = search.overflow();
    return result;
}

void corridorPointAt(const RoadMap& map, const Corridor& corridor, double s_m, Point2& point,
                     double& heading_rad) noexcept {
    const double s = std::clamp(s_m, 0.0, static_cast<double>(corridor.length_m));
    std::size_t k = 0;
    while (k + 1 < corridor.segments.size() && corridor.segments[k + 1].corridorS_m <= s) {
        ++k;
    }
    const CorridorSegment& seg = corridor.segments[k];
    map.pointAt(seg.lane, seg.sBegin_m + (s - seg.corridorS_m), point, heading_rad);
}

int findSegment(const Corridor& corridor, std::uint32_t lane, double laneS_m) noexcept {
    for (std::size_t k = 0; k < corridor.segments.size(); ++k) {
        const CorridorSegment& seg = corridor.segments[k];
        if (seg.lane == lane && laneS_m >= seg.sBegin_m - S_TOLERANCE_M && laneS_m <= seg.sEnd_m + S_TOLERANCE_M) {
            return static_cast<int>(k);
        }
    }
    return -1;
}

}  // namespace augur::runtime::scene
