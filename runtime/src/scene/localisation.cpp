// Lane localisation with a uniform grid index (see localisation.hpp).
#include "augur/runtime/scene/localisation.hpp"

#include <algorithm>
#include <cmath>

namespace augur::runtime::scene {

namespace {
constexpr double PI = 3.14159265358979323846;
constexpr std::uint32_t MAX_CELLS = 1U << 22U;  // grids larger than this use coarser cells

/// The point of the segment a → b nearest (x, y): its parameter t ∈ [0, 1], its distance, the segment's
/// direction (dx, dy) and the signed offset of (x, y) from the segment's line (left positive).
struct SegmentFoot {
    double dx{0.0};
    double dy{0.0};
    double t{0.0};
    double distance_m{0.0};
    double lateral_m{0.0};
};

SegmentFoot footOnSegment(const Point2& a, const Point2& b, double x_m, double y_m) noexcept {
    SegmentFoot f;
    f.dx = b.x_m - a.x_m;
    f.dy = b.y_m - a.y_m;
    const double len2 = f.dx * f.dx + f.dy * f.dy;
    f.t = std::clamp(((x_m - a.x_m) * f.dx + (y_m - a.y_m) * f.dy) / len2, 0.0, 1.0);
    const double px = a.x_m + f.t * f.dx - x_m;
    const double py = a.y_m + f.t * f.dy - y_m;
    f.distance_m = std::sqrt(px * px + py * py);
    f.lateral_m = (f.dx * (y_m - a.y_m) - f.dy * (x_m - a.x_m)) / std::sqrt(len2);
    return f;
}
}  // namespace

double wrapAngle(double angle_rad) noexcept {
    double a = std::fmod(angle_rad + PI, 2.0 * PI);
    if (a <= 0.0) {
        a += 2.0 * PI;
    }
    return a - PI;
}

LaneLocator::LaneLocator(const RoadMap& map, double maxReach_m, double cell_m)
    : m_map(&map), m_reach_m(maxReach_m), m_cell_m(cell_m) {
    const Point2 lo = map.minCorner();
    const Point2 hi = map.maxCorner();
    double maxHalfWidth_m = 0.0;
    for (const Lane& lane : map.lanes()) {
        maxHalfWidth_m = std::max(maxHalfWidth_m, 0.5 * lane.width_m);
    }
    const double border_m = maxReach_m + maxHalfWidth_m + 1.0;
    m_originX_m = lo.x_m - border_m;
    m_originY_m = lo.y_m - border_m;
    for (;;) {
        m_columns = static_cast<std::uint32_t>((hi.x_m - lo.x_m + 2.0 * border_m) / m_cell_m) + 1;
        m_rows = static_cast<std::uint32_t>((hi.y_m - lo.y_m + 2.0 * border_m) / m_cell_m) + 1;
        if (static_cast<std::uint64_t>(m_columns) * m_rows <= MAX_CELLS) {
            break;
        }
        m_cell_m *= 2.0;
    }
    const std::size_t cells = static_cast<std::size_t>(m_columns) * m_rows;
    m_laneOfPoint.assign(map.points().size(), NO_INDEX);
    std::vector<std::vector<std::uint32_t>> buckets(cells);
    for (std::uint32_t l = 0; l < map.laneCount(); ++l) {
        const Lane& lane = map.lane(l);
        for (std::uint32_t k = lane.firstPoint; k + 1 < lane.firstPoint + lane.pointCount; ++k) {
            m_laneOfPoint[k] = l;
            const Point2 a = map.points()[k];
            const Point2 b = map.points()[k + 1];
            const double reach = lane.width_m * 0.5 + maxReach_m;
            const auto c0 = static_cast<std::uint32_t>((std::min(a.x_m, b.x_m) - reach - m_originX_m) / m_cell_m);
            const auto c1 = static_cast<std::uint32_t>((std::max(a.x_m, b.x_m) + reach - m_originX_m) / m_cell_m);
            const auto r0 = static_cast<std::uint32_t>((std::min(a.y_m, b.y_m) - reach - m_originY_m) / m_cell_m);
            const auto r1 = static_cast<std::uint32_t>((std::max(a.y_m, b.y_m) + reach - m_originY_m) / m_cell_m);
            for (std::uint32_t r = r0; r <= std::min(r1, m_rows - 1); ++r) {
                for (std::uint32_t c = c0; c <= std::min(c1, m_columns - 1); ++c) {
                    buckets[static_cast<std::size_t>(r) * m_columns + c].push_back(k);
                }
            }
        }
        m_laneOfPoint[lane.firstPoint + lane.pointCount - 1] = l;
    }
    m_cellStart.resize(cells + 1);
    for (std::size_t i = 0; i < cells; ++i) {
        m_cellStart[i] = static_cast<std::uint32_t>(m_cellSegments.size());
        m_cellSegments.insert(m_cellSegments.end(), buckets[i].begin(), buckets[i].end());
    }
    m_cellStart[cells] = static_cast<std::uint32_t>(m_cellSegments.size());
}

std::uint32_t LaneLocator::locate(double x_m, double y_m, double heading_rad, const LocalisationGates& gates,
                                  LaneMatches& out) const noexcept {
    out.clear();
    const double cx = (x_m - m_originX_m) / m_cell_m;
    const double cy = (y_m - m_originY_m) / m_cell_m;
    if (!(cx >= 0.0) || !(cy >= 0.0) || cx >= m_columns || cy >= m_rows) {
        return 0;  // outside the map (or NaN pose)
    }
    const std::size_t cell = static_cast<std::size_t>(cy) * m_columns + static_cast<std::size_t>(cx);
    const auto points = m_map->points();
    const auto pointS = m_map->pointS();
    // Best segment per lane among this cell's segments.
    struct Candidate {
        std::uint32_t lane;
        double distance;
        double s;
        double lateral;
        double heading;
    };
    constexpr std::size_t MAX_CANDIDATES = 64;
    Candidate candidates[MAX_CANDIDATES];
    std::size_t count = 0;
    std::uint32_t overflow = 0;
    for (std::uint32_t i = m_cellStart[cell]; i < m_cellStart[cell + 1]; ++i) {
        const std::uint32_t k = m_cellSegments[i];
        const std::uint32_t lane = m_laneOfPoint[k];
        const SegmentFoot foot = footOnSegment(points[k], points[k + 1], x_m, y_m);
        const double distance = foot.distance_m;
        if (distance > m_map->lane(lane).width_m * 0.5 + std::min(gates.lateralMargin_m, m_reach_m)) {
            continue;
        }
        const double headingError = wrapAngle(heading_rad - std::atan2(foot.dy, foot.dx));
        if (std::abs(headingError) > gates.maxHeading_rad) {
            continue;
        }
        const double lateral = foot.lateral_m;
        const double s = pointS[k] + foot.t * (pointS[k + 1] - pointS[k]);
        std::size_t j = 0;
        while (j < count && candidates[j].lane != lane) {
            ++j;
        }
        if (j == count) {
            if (count == MAX_CANDIDATES) {
                ++overflow;
                continue;
            }
            candidates[count++] = Candidate{lane, distance, s, lateral, headingError};
        } else if (distance < candidates[j].distance) {
            candidates[j] = Candidate{lane, distance, s, lateral, headingError};
        }
    }
    std::sort(candidates, candidates + count, [](const Candidate& p, const Candidate& q) {
        return p.distance < q.distance || (p.distance == q.distance && p.lane < q.lane);
    });
    for (std::size_t j = 0; j < count; ++j) {
        const LaneMatch match{candidates[j].lane, static_cast<float>(candidates[j].s),
                              static_cast<float>(candidates[j].lateral), static_cast<float>(candidates[j].heading),
                              static_cast<float>(candidates[j].distance)};
        if (!out.pushBack(match)) {
            ++overflow;
        }
    }
    return overflow;
}

bool LaneLocator::matchLane(std::uint32_t lane, double x_m, double y_m, double heading_rad,
                            const LocalisationGates& gates, LaneMatch& out) const noexcept {
    // As locate(): the nearest of the lane's segments that pass both gates.
    const auto pts = m_map->centreline(lane);
    const auto ss = m_map->centrelineS(lane);
    const double reach = m_map->lane(lane).width_m * 0.5 + gates.lateralMargin_m;
    bool found = false;
    for (std::size_t k = 0; k + 1 < pts.size(); ++k) {
        const SegmentFoot foot = footOnSegment(pts[k], pts[k + 1], x_m, y_m);
        const double d = foot.distance_m;
        const double headingError = wrapAngle(heading_rad - std::atan2(foot.dy, foot.dx));
        if (d > reach || std::abs(headingError) > gates.maxHeading_rad || (found && d >= out.distance_m)) {
            continue;
        }
        found = true;
        out.lane = lane;
        out.s_m = static_cast<float>(ss[k] + foot.t * (ss[k + 1] - ss[k]));
        out.lateral_m = static_cast<float>(foot.lateral_m);
        out.headingError_rad = static_cast<float>(headingError);
        out.distance_m = static_cast<float>(d);
    }
    return found;
}

void LaneLocator::projectOnLane(std::uint32_t lane, double x_m, double y_m, double& s_m, double& lateral_m) const noexcept {
    const auto pts = m_map->centreline(lane);
    const auto ss = m_map->centrelineS(lane);
    double best = 1e300;
    s_m = 0.0;
    lateral_m = 0.0;
    for (std::size_t k = 0; k + 1 < pts.size(); ++k) {
        const SegmentFoot foot = footOnSegment(pts[k], pts[k + 1], x_m, y_m);
        if (foot.distance_m < best) {
            best = foot.distance_m;
            s_m = ss[k] + foot.t * (ss[k + 1] - ss[k]);
            lateral_m = foot.lateral_m;
        }
    }
}

}  // namespace augur::runtime::scene
