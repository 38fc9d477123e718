// augur-map's command line (map_options.hpp).
#include "map_options.hpp"

#include <charconv>
#include <cmath>

#include "augur_cli.hpp"

namespace augur::tools {

namespace {

using runtime::scene::MAX_MAP_COORDINATE_M;

constexpr double PI = 3.14159265358979323846;
constexpr double DEFAULT_POSE_SPEED_MPS = 10.0;

/// "a,b,c" → finite numbers; false when an item is empty, not a number or not finite.
bool parseList(const std::string& text, std::vector<double>& out) {
    out.clear();
    std::size_t start = 0;
    for (;;) {
        const std::size_t comma = text.find(',', start);
        const std::size_t end = comma == std::string::npos ? text.size() : comma;
        double value = 0.0;
        const auto [ptr, ec] = std::from_chars(text.data() + start, text.data() + end, value);
        if (end == start || ec != std::errc() || ptr != text.data() + end || !std::isfinite(value)) {
            return false;
        }
        out.push_back(value);
        if (comma == std::string::npos) {
            return true;
        }
        start = comma + 1;
    }
}

bool within(double value, double limit) { return std::abs(value) <= limit; }

/// A validator for a comma-separated list: `accepts` checks the parsed numbers, `expected` describes them.
CLI::Validator listOf(const std::string& expected, bool (*accepts)(const std::vector<double>&)) {
    return CLI::Validator(
        [expected, accepts](std::string& text) -> std::string {
            std::vector<double> values;
            return parseList(text, values) && accepts(values) ? std::string() : "'" + text + "' is not " + expected;
        },
        expected);
}

const std::string COORDINATE_RANGE = "[" + apps::cli::formatNumber(-MAX_MAP_COORDINATE_M) + ", " +
                                     apps::cli::formatNumber(MAX_MAP_COORDINATE_M) + "] m";

struct Texts {
    std::string origin;
    std::string pose;
    std::string window;
};

void defineOptions(CLI::App& app, MapToolOptions& o, Texts& texts) {
    app.description(
        "Loads a Lanelet2 (.osm) or SUMO (.net.xml) map with the runtime's readers, prints a summary, and\n"
        "renders it (with the corridors of a pose) to SVG.\n"
        "Exit status: 0 done, 1 the map cannot be read (file, line, element and what is wrong), 2 bad option.\n"
        "Details: docs/map-tool.md");
    apps::cli::useConventions(app);
    app.add_option("map", o.mapPath, "Lanelet2 .osm or SUMO .net.xml")->required();
    app.add_option("--origin", texts.origin, "Lanelet2 only: origin of the local metric frame (default: the first node)")
        ->check(listOf("LAT,LON with LAT in [-90, 90] and LON in [-180, 180] degrees", [](const std::vector<double>& v) {
            return v.size() == 2 && within(v[0], 90.0) && within(v[1], 180.0);
        }));
    app.add_option("--pose", texts.pose, "A vehicle pose in the map frame; prints its lanes and corridors (speed default 10 m/s)")
        ->check(listOf("X,Y,HEADING_DEG[,SPEED_MPS] with X, Y in " + COORDINATE_RANGE + ", HEADING_DEG in [-360, 360], SPEED_MPS in [0, 100]",
                       [](const std::vector<double>& v) {
                           return (v.size() == 3 || v.size() == 4) && within(v[0], MAX_MAP_COORDINATE_M) &&
                                  within(v[1], MAX_MAP_COORDINATE_M) && within(v[2], MAX_HEADING_DEG) &&
                                  (v.size() == 3 || (v[3] >= 0.0 && v[3] <= MAX_POSE_SPEED_MPS));
                       }));
    app.add_option("--horizon", o.horizon_s, "Prediction horizon for the corridor length, s")
        ->check(apps::cli::numberIn(0.0, MAX_HORIZON_S, true))
        ->capture_default_str();
    app.add_option("--svg", o.svgPath, "Write the map (and the pose's corridors) as SVG");
    app.add_option("--window", texts.window, "Draw only this area (metres, map frame)")
        ->check(listOf("X0,Y0,X1,Y1 with each in " + COORDINATE_RANGE + ", X0 < X1 and Y0 < Y1",
                       [](const std::vector<double>& v) {
                           return v.size() == 4 && within(v[0], MAX_MAP_COORDINATE_M) && within(v[1], MAX_MAP_COORDINATE_M) &&
                                  within(v[2], MAX_MAP_COORDINATE_M) && within(v[3], MAX_MAP_COORDINATE_M) && v[0] < v[2] &&
                                  v[1] < v[3];
                       }));
}

}  // namespace

std::string mapUsage() {
    Texts texts;
    return apps::cli::helpOf<MapToolOptions>(
        "augur-map", [&texts](CLI::App& app, MapToolOptions& o) { defineOptions(app, o, texts); });
}

Result<MapToolOptions, std::string> parseMapOptions(const std::vector<std::string>& args) {
    MapToolOptions o;
    Texts texts;
    const auto define = [&texts](CLI::App& app, MapToolOptions& options) { defineOptions(app, options, texts); };
    if (auto parsed = apps::cli::parseInto("augur-map", args, o, define); !parsed) {
        return fail(std::move(parsed).error());
    }
    std::vector<double> values;  // the validators accepted every given list
    if (!texts.origin.empty() && parseList(texts.origin, values)) {
        o.lanelet2.originLat_deg = values[0];
        o.lanelet2.originLon_deg = values[1];
    }
    if (!texts.pose.empty() && parseList(texts.pose, values)) {
        o.havePose = true;
        o.pose.x_m = static_cast<float>(values[0]);
        o.pose.y_m = static_cast<float>(values[1]);
        o.pose.heading_rad = static_cast<float>(values[2] * PI / 180.0);
        o.pose.speed_mps = static_cast<float>(values.size() == 4 ? values[3] : DEFAULT_POSE_SPEED_MPS);
    }
    if (!texts.window.empty() && parseList(texts.window, values)) {
        o.haveWindow = true;
        o.window = Window{{values[0], values[1]}, {values[2], values[3]}};
    }
    return o;
}

}  // namespace augur::tools
