// RoadMapBuilder: validation, derived topology and conflict extraction (see road_map_builder.hpp).
#include "augur/runtime/scene/road_map_builder.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace augur::runtime::scene {

namespace {

constexpr double MIN_POINT_SPACING_M = 1e-3;  ///< closer consecutive points are merged
constexpr double END_TOLERANCE_M = 0.05;      ///< "at the start/end of a lane" for touching centrelines
constexpr double PARALLEL_EPS = 1e-12;

double cross(double ax, double ay, double bx, double by) { return ax * by - ay * bx; }

struct Box {
    double minX, minY, maxX, maxY;
    [[nodiscard]] bool overlaps(const Box& o) const {
        return minX <= o.maxX && o.minX <= maxX && minY <= o.maxY && o.minY <= maxY;
    }
};

struct Crossing {
    bool found{false};
    double sA{0.0};
    double sB{0.0};
    Point2 point;
};

/// First intersection along A of centrelines A and B (ties: smallest s on A).
Crossing firstCrossing(const Point2* a, const double* aS, std::size_t na, const Point2* b, const double* bS,
                       std::size_t nb) {
    Crossing best;
    for (std::size_t i = 0; i + 1 < na; ++i) {
        const double rx = a[i + 1].x_m - a[i].x_m;
        const double ry = a[i + 1].y_m - a[i].y_m;
        const double aMinX = std::min(a[i].x_m, a[i + 1].x_m);
        const double aMaxX = std::max(a[i].x_m, a[i + 1].x_m);
        const double aMinY = std::min(a[i].y_m, a[i + 1].y_m);
        const double aMaxY = std::max(a[i].y_m, a[i + 1].y_m);
        for (std::size_t j = 0; j + 1 < nb; ++j) {
            if (std::max(b[j].x_m, b[j + 1].x_m) < aMinX || std::min(b[j].x_m, b[j + 1].x_m) > aMaxX ||
                std::max(b[j].y_m, b[j + 1].y_m) < aMinY || std::min(b[j].y_m, b[j + 1].y_m) > aMaxY) {
                continue;
            }
            const double ux = b[j + 1].x_m - b[j].x_m;
            const double uy = b[j + 1].y_m - b[j].y_m;
            const double denom = cross(rx, ry, ux, uy);
            if (std::abs(denom) < PARALLEL_EPS) {
                continue;  // parallel or collinear: no single crossing point
            }
            const double qx = b[j].x_m - a[i].x_m;
            const double qy = b[j].y_m - a[i].y_m;
            const double t = cross(qx, qy, ux, uy) / denom;
            const double w = cross(qx, qy, rx, ry) / denom;
            constexpr double TOL = 1e-9;
            if (t < -TOL || t > 1.0 + TOL || w < -TOL || w > 1.0 + TOL) {
                continue;
            }
            const double sA = aS[i] + std::clamp(t, 0.0, 1.0) * (aS[i + 1] - aS[i]);
            if (!best.found || sA < best.sA) {
                best.found = true;
                best.sA = sA;
                best.sB = bS[j] + std::clamp(w, 0.0, 1.0) * (bS[j + 1] - bS[j]);
                best.point = Point2{a[i].x_m + t * rx, a[i].y_m + t * ry};
            }
        }
    }
    return best;
}

std::uint32_t findRoot(std::vector<std::uint32_t>& parent, std::uint32_t i) {
    while (parent[i] != i) {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    return i;
}

}  // namespace

std::uint32_t RoadMapBuilder::addLane(LaneSpec spec) {
    m_specs.push_back(std::move(spec));
    m_successors.emplace_back();
    m_left.emplace_back();
    m_right.emplace_back();
    m_stopLine.push_back(-1.0);
    m_junctionOfLane.push_back(NO_INDEX);
    m_twin.push_back(NO_INDEX);
    return static_cast<std::uint32_t>(m_specs.size() - 1);
}

std::uint32_t RoadMapBuilder::addJunction(std::string id) {
    m_junctionIds.push_back(std::move(id));
    return static_cast<std::uint32_t>(m_junctionIds.size() - 1);
}

void RoadMapBuilder::setJunction(std::uint32_t lane, std::uint32_t junction) { m_junctionOfLane.at(lane) = junction; }

void RoadMapBuilder::addSuccessor(std::uint32_t from, std::uint32_t to) {
    auto& list = m_successors.at(from);
    if (from != to && std::find(list.begin(), list.end(), to) == list.end()) {
        list.push_back(to);
    }
}

void RoadMapBuilder::setNeighbour(std::uint32_t lane, Side side, std::uint32_t other, bool changeAllowed) {
    (side == Side::Left ? m_left : m_right).at(lane) = Neighbour{other, changeAllowed};
}

void RoadMapBuilder::setStopLine(std::uint32_t lane, double s_m) { m_stopLine.at(lane) = s_m; }

void RoadMapBuilder::setTwins(std::uint32_t a, std::uint32_t b) {
    m_twin.at(a) = b;
    m_twin.at(b) = a;
}

/// What build() carries from step to step.
struct RoadMapBuilder::Build {
    RoadMap map;
    std::uint32_t laneCount{0};
    std::vector<Box> boxes;                                    ///< per lane: its centreline's bounding box
    std::vector<std::vector<std::uint32_t>> predecessors;      ///< per lane
    std::vector<std::vector<std::uint32_t>> conflictsOfLane;   ///< per lane: indices into map.m_conflicts

    void addConflict(std::uint32_t a, std::uint32_t b, double sA, double sB, Point2 point, ConflictKind kind) {
        Conflict c;
        c.first = std::min(a, b);
        c.second = std::max(a, b);
        c.firstS_m = a < b ? sA : sB;
        c.secondS_m = a < b ? sB : sA;
        c.point = point;
        c.kind = kind;
        const auto index = static_cast<std::uint32_t>(conflicts().size());
        conflicts().push_back(c);
        conflictsOfLane[a].push_back(index);
        conflictsOfLane[b].push_back(index);
    }
    [[nodiscard]] bool haveConflict(std::uint32_t a, std::uint32_t b) {
        for (const std::uint32_t c : conflictsOfLane[a]) {
            if (conflicts()[c].first == std::min(a, b) && conflicts()[c].second == std::max(a, b)) {
                return true;
            }
        }
        return false;
    }
    std::vector<Conflict>& conflicts() { return map.m_conflicts; }
};

Result<RoadMap, MapError> RoadMapBuilder::build() {
    if (m_specs.empty()) {
        return fail(MapError{MapErrorCode::Empty, m_file, 0, "", "no drivable lane in the map"});
    }
    Build b;
    b.laneCount = static_cast<std::uint32_t>(m_specs.size());
    if (auto geometry = addLaneGeometry(b); !geometry) {
        return fail(geometry.error());
    }
    linkLanes(b);
    addCrossings(b);
    addMerges(b);
    assignJunctions(b);
    orderConflicts(b);

    m_summary.lanes = b.laneCount;
    m_summary.junctions = static_cast<std::uint32_t>(b.map.m_junctions.size());
    m_summary.conflicts = static_cast<std::uint32_t>(b.map.m_conflicts.size());
    b.map.m_summary = m_summary;
    return Result<RoadMap, MapError>(std::move(b.map));
}

/// Geometry: drops repeated points, takes the cumulative arc length and the bounding boxes; fails on
/// non-finite coordinates, fewer than two distinct points, or a non-positive width or speed limit.
Result<void, MapError> RoadMapBuilder::addLaneGeometry(Build& b) const {
    RoadMap& map = b.map;
    const std::uint32_t laneCount = b.laneCount;
    map.m_lanes.resize(laneCount);
    map.m_laneIds.reserve(laneCount);
    map.m_min = Point2{1e300, 1e300};
    map.m_max = Point2{-1e300, -1e300};
    b.boxes.resize(laneCount);
    for (std::uint32_t l = 0; l < laneCount; ++l) {
        const LaneSpec& spec = m_specs[l];
        Lane& lane = map.m_lanes[l];
        lane.firstPoint = static_cast<std::uint32_t>(map.m_points.size());
        double s = 0.0;
        Box box{1e300, 1e300, -1e300, -1e300};
        for (const Point2& p : spec.centreline) {
            if (!std::isfinite(p.x_m) || !std::isfinite(p.y_m)) {
                return fail(MapError{MapErrorCode::BadGeometry, m_file, spec.sourceLine, "lane " + spec.id,
                                     "non-finite centreline coordinate"});
            }
            if (lane.pointCount > 0) {
                const Point2& prev = map.m_points.back();
                const double d = std::hypot(p.x_m - prev.x_m, p.y_m - prev.y_m);
                if (d < MIN_POINT_SPACING_M) {
                    continue;
                }
                s += d;
            }
            map.m_points.push_back(p);
            map.m_pointS.push_back(s);
            ++lane.pointCount;
            box = Box{std::min(box.minX, p.x_m), std::min(box.minY, p.y_m), std::max(box.maxX, p.x_m),
                      std::max(box.maxY, p.y_m)};
        }
        if (lane.pointCount < 2) {
            return fail(MapError{MapErrorCode::BadGeometry, m_file, spec.sourceLine, "lane " + spec.id,
                                 "centreline has fewer than two distinct points"});
        }
        if (!(spec.width_m > 0.0) || !(spec.speedLimit_mps > 0.0)) {
            return fail(MapError{MapErrorCode::BadValue, m_file, spec.sourceLine, "lane " + spec.id,
                                 "width and speed limit must be positive"});
        }
        lane.length_m = s;
        lane.width_m = spec.width_m;
        lane.speedLimit_mps = spec.speedLimit_mps;
        lane.left = m_left[l];
        lane.right = m_right[l];
        lane.junction = m_junctionOfLane[l];
        lane.stopLine_s = m_stopLine[l] < 0.0 ? -1.0 : std::min(m_stopLine[l], s);
        b.boxes[l] = box;
        map.m_min = Point2{std::min(map.m_min.x_m, box.minX), std::min(map.m_min.y_m, box.minY)};
        map.m_max = Point2{std::max(map.m_max.x_m, box.maxX), std::max(map.m_max.y_m, box.maxY)};
        map.m_laneIds.push_back(spec.id);
    }
    return {};
}

/// Links: successors then predecessors, each lane's range contiguous.
void RoadMapBuilder::linkLanes(Build& b) const {
    RoadMap& map = b.map;
    b.predecessors.resize(b.laneCount);
    for (std::uint32_t l = 0; l < b.laneCount; ++l) {
        for (const std::uint32_t to : m_successors[l]) {
            b.predecessors[to].push_back(l);
        }
    }
    for (std::uint32_t l = 0; l < b.laneCount; ++l) {
        Lane& lane = map.m_lanes[l];
        lane.firstSuccessor = static_cast<std::uint32_t>(map.m_links.size());
        lane.successorCount = static_cast<std::uint32_t>(m_successors[l].size());
        map.m_links.insert(map.m_links.end(), m_successors[l].begin(), m_successors[l].end());
        lane.firstPredecessor = static_cast<std::uint32_t>(map.m_links.size());
        lane.predecessorCount = static_cast<std::uint32_t>(b.predecessors[l].size());
        map.m_links.insert(map.m_links.end(), b.predecessors[l].begin(), b.predecessors[l].end());
    }
}

/// Whether lanes a and b are linked, twins or neighbours: such lanes never conflict.
bool RoadMapBuilder::related(std::uint32_t a, std::uint32_t b) const {
    auto isSuccessor = [&](std::uint32_t from, std::uint32_t to) {
        return std::find(m_successors[from].begin(), m_successors[from].end(), to) != m_successors[from].end();
    };
    return isSuccessor(a, b) || isSuccessor(b, a) || m_twin[a] == b || m_left[a].lane == b || m_right[a].lane == b ||
           m_left[b].lane == a || m_right[b].lane == a;
}

/// Conflicts: crossings of unrelated lanes whose centrelines cross away from their ends.
void RoadMapBuilder::addCrossings(Build& b) const {
    const RoadMap& map = b.map;
    b.conflictsOfLane.resize(b.laneCount);
    for (std::uint32_t i = 0; i < b.laneCount; ++i) {
        const Lane& la = map.m_lanes[i];
        for (std::uint32_t j = i + 1; j < b.laneCount; ++j) {
            if (!b.boxes[i].overlaps(b.boxes[j]) || related(i, j)) {
                continue;
            }
            const Lane& lb = map.m_lanes[j];
            const Crossing x = firstCrossing(map.m_points.data() + la.firstPoint, map.m_pointS.data() + la.firstPoint,
                                             la.pointCount, map.m_points.data() + lb.firstPoint,
                                             map.m_pointS.data() + lb.firstPoint, lb.pointCount);
            if (!x.found) {
                continue;
            }
            const bool aStart = x.sA < END_TOLERANCE_M;
            const bool bStart = x.sB < END_TOLERANCE_M;
            const bool aEnd = x.sA > la.length_m - END_TOLERANCE_M;
            const bool bEnd = x.sB > lb.length_m - END_TOLERANCE_M;
            if (aStart || aEnd || bStart || bEnd) {
                // Touching at an end: diverging from one point, one lane ending where the other begins,
                // or two lanes ending at one point. Real merges share a successor and are added by
                // addMerges; lanes meeting end to end without one (a two-way lanelet and the reverse of
                // its neighbour in the chain) drive head-on into a boundary, not into each other.
                continue;
            }
            b.addConflict(i, j, x.sA, x.sB, x.point, ConflictKind::Crossing);
        }
    }
}

/// Merges: lanes that share a successor meet at its start even where the geometry is tangent.
void RoadMapBuilder::addMerges(Build& b) const {
    for (std::uint32_t l = 0; l < b.laneCount; ++l) {
        const auto& preds = b.predecessors[l];
        for (std::size_t i = 0; i < preds.size(); ++i) {
            for (std::size_t j = i + 1; j < preds.size(); ++j) {
                const std::uint32_t first = preds[i];
                const std::uint32_t second = preds[j];
                if (related(first, second) || b.haveConflict(first, second)) {
                    continue;
                }
                b.addConflict(first, second, b.map.m_lanes[first].length_m, b.map.m_lanes[second].length_m,
                              b.map.m_points[b.map.m_lanes[l].firstPoint], ConflictKind::Merge);
            }
        }
    }
}

/// Junctions: given by the format, or clusters of conflicting lanes (deriveJunctions); each with its
/// lanes and the centre of their points.
void RoadMapBuilder::assignJunctions(Build& b) {
    RoadMap& map = b.map;
    const std::uint32_t laneCount = b.laneCount;
    if (m_deriveJunctions) {
        std::vector<std::uint32_t> parent(laneCount);
        std::iota(parent.begin(), parent.end(), 0U);
        for (const Conflict& c : map.m_conflicts) {
            parent[findRoot(parent, c.first)] = findRoot(parent, c.second);
        }
        std::vector<std::uint32_t> junctionOfRoot(laneCount, NO_INDEX);
        for (const Conflict& c : map.m_conflicts) {
            for (const std::uint32_t l : {c.first, c.second}) {
                const std::uint32_t root = findRoot(parent, l);
                if (junctionOfRoot[root] == NO_INDEX) {
                    junctionOfRoot[root] = addJunction("");
                }
                m_junctionOfLane[l] = junctionOfRoot[root];
                map.m_lanes[l].junction = junctionOfRoot[root];
            }
        }
    }
    std::vector<std::vector<std::uint32_t>> lanesOfJunction(m_junctionIds.size());
    for (std::uint32_t l = 0; l < laneCount; ++l) {
        if (m_junctionOfLane[l] != NO_INDEX) {
            lanesOfJunction.at(m_junctionOfLane[l]).push_back(l);
        }
    }
    for (std::uint32_t j = 0; j < m_junctionIds.size(); ++j) {
        Junction junction;
        junction.firstLane = static_cast<std::uint32_t>(map.m_junctionLanes.size());
        junction.laneCount = static_cast<std::uint32_t>(lanesOfJunction[j].size());
        double sx = 0.0;
        double sy = 0.0;
        std::size_t n = 0;
        for (const std::uint32_t l : lanesOfJunction[j]) {
            for (std::uint32_t p = 0; p < map.m_lanes[l].pointCount; ++p) {
                sx += map.m_points[map.m_lanes[l].firstPoint + p].x_m;
                sy += map.m_points[map.m_lanes[l].firstPoint + p].y_m;
                ++n;
            }
        }
        junction.centre = n > 0 ? Point2{sx / static_cast<double>(n), sy / static_cast<double>(n)} : Point2{};
        map.m_junctionLanes.insert(map.m_junctionLanes.end(), lanesOfJunction[j].begin(), lanesOfJunction[j].end());
        map.m_junctions.push_back(junction);
        std::string id = m_junctionIds[j];
        if (id.empty()) {  // derived: named after its smallest lane id
            id = "cluster:" + (lanesOfJunction[j].empty() ? std::to_string(j) : m_specs[lanesOfJunction[j][0]].id);
        }
        map.m_junctionIds.push_back(std::move(id));
    }
}

/// Priority and junction of each conflict; per-lane conflict lists ordered by s.
void RoadMapBuilder::orderConflicts(Build& b) const {
    RoadMap& map = b.map;
    for (Conflict& c : map.m_conflicts) {
        c.priority = m_rule ? m_rule(c.first, c.second, c.kind) : Priority::Unregulated;
        const std::uint32_t ja = m_junctionOfLane[c.first];
        const std::uint32_t jb = m_junctionOfLane[c.second];
        c.junction = ja != NO_INDEX ? ja : jb;
    }
    for (std::uint32_t l = 0; l < b.laneCount; ++l) {
        auto& list = b.conflictsOfLane[l];
        auto sOn = [&](std::uint32_t c) {
            const Conflict& x = map.m_conflicts[c];
            return x.first == l ? x.firstS_m : x.secondS_m;
        };
        std::sort(list.begin(), list.end(), [&](std::uint32_t p, std::uint32_t q) { return sOn(p) < sOn(q); });
        map.m_lanes[l].firstConflict = static_cast<std::uint32_t>(map.m_laneConflicts.size());
        map.m_lanes[l].conflictCount = static_cast<std::uint32_t>(list.size());
        map.m_laneConflicts.insert(map.m_laneConflicts.end(), list.begin(), list.end());
    }
}

}  // namespace augur::runtime::scene
