// Summary and SVG output of augur-map (see map_render.hpp).
#include "map_render.hpp"

#include <cmath>
#include <cstdio>

namespace augur::tools {

using runtime::scene::ConflictKind;
using runtime::scene::Corridor;
using runtime::scene::Point2;
using runtime::scene::Priority;
using runtime::scene::RoadMap;
using runtime::scene::SceneVehicle;

namespace {

// printf-style formatting of up to four numbers; every format string passed is a literal in this file.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
std::string format(const char* fmt, double a, double b = 0.0, double c = 0.0, double d = 0.0) {
    char buffer[256];
    std::snprintf(buffer, sizeof(buffer), fmt, a, b, c, d);
    return buffer;
}
#pragma GCC diagnostic pop

constexpr const char* CORRIDOR_COLOURS[] = {"#1f77b4", "#2ca02c", "#9467bd", "#e377c2",
                                            "#17becf", "#bcbd22", "#8c564b", "#d62728"};

}  // namespace

std::string summarise(const RoadMap& map) {
    const auto& s = map.summary();
    double total = 0.0;
    std::uint32_t laneChangeLinks = 0;
    for (const auto& lane : map.lanes()) {
        total += lane.length_m;
        laneChangeLinks += (lane.left.changeAllowed ? 1U : 0U) + (lane.right.changeAllowed ? 1U : 0U);
    }
    std::uint32_t crossings = 0;
    std::uint32_t merges = 0;
    std::uint32_t regulated = 0;
    std::uint32_t mutual = 0;
    for (const auto& c : map.conflicts()) {
        (c.kind == ConflictKind::Merge ? merges : crossings) += 1;
        regulated += (c.priority == Priority::FirstHasPriority || c.priority == Priority::SecondHasPriority) ? 1U : 0U;
        mutual += c.priority == Priority::Mutual ? 1U : 0U;
    }
    std::string out;
    out += "lanes:               " + std::to_string(s.lanes) + format(" (%.0f m of centreline)\n", total);
    out += "lane changes:        " + std::to_string(laneChangeLinks) + " permitted neighbour links\n";
    out += "junctions:           " + std::to_string(s.junctions) + "\n";
    out += "conflicts:           " + std::to_string(s.conflicts) + " (" + std::to_string(crossings) + " crossings, " +
           std::to_string(merges) + " merges; " + std::to_string(regulated) + " with a priority, " +
           std::to_string(mutual) + " mutual, " + std::to_string(s.conflicts - regulated - mutual) + " unregulated)\n";
    out += "regulatory elements: " + std::to_string(s.regulatoryElements) + " (right of way " +
           std::to_string(s.rightOfWayRules) + ", traffic lights " + std::to_string(s.trafficLights) +
           ", speed limits " + std::to_string(s.speedLimits) + ")\n";
    out += "stop lines:          " + std::to_string(s.stopLines) + "\n";
    out += "skipped:             " + std::to_string(s.skippedNonVehicle) + " non-vehicle lanes, " +
           std::to_string(s.warnings) + " unsupported elements (warnings)\n";
    out += format("extent:              x [%.1f, %.1f] m, y [%.1f, %.1f] m\n", map.minCorner().x_m,
                  map.maxCorner().x_m, map.minCorner().y_m, map.maxCorner().y_m);
    return out;
}

std::string renderSvg(const RoadMap& map, std::span<const Corridor> corridors, const SceneVehicle* pose,
                      const Window* window) {
    constexpr double BORDER_M = 10.0;
    const Point2 lo = window != nullptr ? window->min : map.minCorner();
    const Point2 hi = window != nullptr ? window->max : map.maxCorner();
    const double width = hi.x_m - lo.x_m + 2.0 * BORDER_M;
    const double height = hi.y_m - lo.y_m + 2.0 * BORDER_M;
    const double scale = 1600.0 / std::max(width, height);  // pixels per metre
    auto X = [&](double x) { return (x - lo.x_m + BORDER_M) * scale; };
    auto Y = [&](double y) { return (hi.y_m - y + BORDER_M) * scale; };  // SVG y grows downwards
    std::string out = format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
                             "viewBox=\"0 0 %.0f %.0f\">\n",
                             width * scale, height * scale, width * scale, height * scale);
    out += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
    auto polyline = [&](std::uint32_t lane, double from, double to, const char* colour, double strokePx, double opacity) {
        std::string p = "<polyline fill=\"none\" stroke=\"" + std::string(colour) +
                        format("\" stroke-width=\"%.2f\" stroke-opacity=\"%.2f\" points=\"", strokePx, opacity);
        const auto pts = map.centreline(lane);
        const auto ss = map.centrelineS(lane);
        Point2 q;
        double h = 0.0;
        map.pointAt(lane, from, q, h);
        p += format("%.1f,%.1f ", X(q.x_m), Y(q.y_m));
        for (std::size_t k = 0; k < pts.size(); ++k) {
            if (ss[k] > from && ss[k] < to) {
                p += format("%.1f,%.1f ", X(pts[k].x_m), Y(pts[k].y_m));
            }
        }
        map.pointAt(lane, to, q, h);
        p += format("%.1f,%.1f\"/>\n", X(q.x_m), Y(q.y_m));
        return p;
    };
    for (std::uint32_t l = 0; l < map.laneCount(); ++l) {
        const auto& lane = map.lane(l);
        out += polyline(l, 0.0, lane.length_m, lane.junction == runtime::scene::NO_INDEX ? "#b0b0b0" : "#606060",
                        std::max(1.0, lane.width_m * scale * 0.25), 1.0);
        if (lane.stopLine_s >= 0.0) {
            Point2 q;
            double h = 0.0;
            map.pointAt(l, lane.stopLine_s, q, h);
            const double dx = -std::sin(h) * lane.width_m * 0.5;
            const double dy = std::cos(h) * lane.width_m * 0.5;
            out += format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"black\" stroke-width=\"2\"/>\n",
                          X(q.x_m - dx), Y(q.y_m - dy), X(q.x_m + dx), Y(q.y_m + dy));
        }
    }
    for (const auto& c : map.conflicts()) {
        const bool hasPriority = c.priority == Priority::FirstHasPriority || c.priority == Priority::SecondHasPriority;
        out += format("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" ", X(c.point.x_m), Y(c.point.y_m), std::max(1.5, 0.4 * scale)) +
               (hasPriority ? "fill=\"#d62728\"/>\n" : "fill=\"#ff7f0e\"/>\n");
    }
    for (std::size_t i = 0; i < corridors.size(); ++i) {
        for (const auto& seg : corridors[i].segments) {
            out += polyline(seg.lane, seg.sBegin_m, seg.sEnd_m, CORRIDOR_COLOURS[i % 8],
                            std::max(2.0, 0.8 * scale) * (1.0 + 0.5 * static_cast<double>(corridors.size() - 1 - i)), 0.55);
        }
    }
    if (pose != nullptr) {
        const double len = std::max(static_cast<double>(pose->length_m), 3.0);
        const double c = std::cos(pose->heading_rad);
        const double s = std::sin(pose->heading_rad);
        out += format("<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" ", X(pose->x_m - 0.5 * len * c),
                      Y(pose->y_m - 0.5 * len * s), X(pose->x_m + 0.5 * len * c), Y(pose->y_m + 0.5 * len * s)) +
               format("stroke=\"black\" stroke-width=\"%.1f\"/>\n", std::max(3.0, 1.5 * scale));
        out += format("<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"black\"/>\n", X(pose->x_m + 0.5 * len * c),
                      Y(pose->y_m + 0.5 * len * s), std::max(3.0, 1.2 * scale));
    }
    out += "</svg>\n";
    return out;
}

}  // namespace augur::tools
