// RoadMap queries and MapError formatting.
#include "augur/runtime/scene/road_map.hpp"

#include <algorithm>
#include <cmath>

#include "augur/runtime/scene/map_error.hpp"

namespace augur::runtime::scene {

const char* toString(MapErrorCode code) noexcept {
    switch (code) {
        case MapErrorCode::Io: return "io";
        case MapErrorCode::FileRejected: return "file rejected";
        case MapErrorCode::HashMismatch: return "hash mismatch";
        case MapErrorCode::Xml: return "xml";
        case MapErrorCode::WrongFormat: return "wrong format";
        case MapErrorCode::MissingAttribute: return "missing attribute";
        case MapErrorCode::BadValue: return "bad value";
        case MapErrorCode::DanglingReference: return "dangling reference";
        case MapErrorCode::BadGeometry: return "bad geometry";
        case MapErrorCode::DuplicateId: return "duplicate id";
        case MapErrorCode::Empty: return "empty map";
    }
    return "unknown";
}

std::string MapError::describe() const {
    // Appended piece by piece: GCC 12 warns (-Wrestrict, a known false positive) on "x" + std::string&&.
    std::string out = file;
    if (line > 0) {
        out.append(":").append(std::to_string(line));
    }
    out.append(": ");
    if (!elementId.empty()) {
        out.append(elementId).append(": ");
    }
    out.append(toString(code)).append(": ").append(message);
    return out;
}

std::uint32_t RoadMap::findLane(const std::string& id) const {
    for (std::uint32_t i = 0; i < m_laneIds.size(); ++i) {
        if (m_laneIds[i] == id) {
            return i;
        }
    }
    return NO_INDEX;
}

std::uint32_t RoadMap::findJunction(const std::string& id) const {
    for (std::uint32_t i = 0; i < m_junctionIds.size(); ++i) {
        if (m_junctionIds[i] == id) {
            return i;
        }
    }
    return NO_INDEX;
}

void RoadMap::pointAt(std::uint32_t lane, double s_m, Point2& point, double& heading_rad) const noexcept {
    const auto pts = centreline(lane);
    const auto ss = centrelineS(lane);
    const double s = std::clamp(s_m, 0.0, ss.back());
    // Segment k spans [ss[k], ss[k+1]]; pick the last k with ss[k] <= s (and k < n-1).
    auto it = std::upper_bound(ss.begin(), ss.end(), s);
    std::size_t k = it == ss.begin() ? 0 : static_cast<std::size_t>(it - ss.begin()) - 1;
    k = std::min(k, pts.size() - 2);
    const double segLength = ss[k + 1] - ss[k];
    const double t = segLength > 0.0 ? (s - ss[k]) / segLength : 0.0;
    const double dx = pts[k + 1].x_m - pts[k].x_m;
    const double dy = pts[k + 1].y_m - pts[k].y_m;
    point = Point2{pts[k].x_m + t * dx, pts[k].y_m + t * dy};
    heading_rad = std::atan2(dy, dx);
}

std::uint32_t RoadMap::conflictBetween(std::uint32_t a, std::uint32_t b) const noexcept {
    for (const std::uint32_t c : laneConflicts(a)) {
        const Conflict& conflict = m_conflicts[c];
        if (conflict.first == b || conflict.second == b) {
            return c;
        }
    }
    return NO_INDEX;
}

bool RoadMap::hasPriority(std::uint32_t c, std::uint32_t winner) const noexcept {
    const Conflict& conflict = m_conflicts[c];
    return (conflict.priority == Priority::FirstHasPriority && conflict.first == winner) ||
           (conflict.priority == Priority::SecondHasPriority && conflict.second == winner);
}

}  // namespace augur::runtime::scene
