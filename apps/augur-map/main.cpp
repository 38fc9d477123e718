// augur-map: load a Lanelet2 (.osm) or SUMO (.net.xml) map, print a summary, and optionally render
// it with the corridors of a pose to SVG. Usage: see --help and docs/map-tool.md.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "augur/runtime/scene/corridors.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "map_render.hpp"

namespace {

constexpr double PI = 3.14159265358979323846;

void usage() {
    std::puts(
        "usage: augur-map MAP [--origin LAT,LON] [--pose X,Y,HEADING_DEG[,SPEED_MPS]] [--horizon S] [--svg FILE]\n"
        "                 [--window X0,Y0,X1,Y1]\n"
        "  MAP        Lanelet2 .osm or SUMO .net.xml\n"
        "  --origin   Lanelet2 only: origin of the local metric frame (default: the first node)\n"
        "  --pose     a vehicle pose in the map frame; prints its lanes and corridors\n"
        "  --horizon  prediction horizon for the corridor length (default 8 s)\n"
        "  --svg      write the map (and the pose's corridors) as SVG\n"
        "  --window   draw only this area (metres, map frame)");
}

bool parseList(const std::string& text, std::vector<double>& out) {
    out.clear();
    std::size_t start = 0;
    while (start <= text.size()) {
        const std::size_t comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        char* end = nullptr;
        const double v = std::strtod(item.c_str(), &end);
        if (item.empty() || *end != '\0') {
            return false;
        }
        out.push_back(v);
        if (comma == std::string::npos) {
            break;
        }
        start = comma + 1;
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    using namespace augur::runtime::scene;
    if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
        usage();
        return argc < 2 ? 2 : 0;
    }
    const std::string path = argv[1];
    Lanelet2Options options;
    CorridorSearchParams params;
    std::string svgPath;
    bool havePose = false;
    bool haveWindow = false;
    augur::tools::Window window;
    SceneVehicle pose;
    for (int i = 2; i < argc; ++i) {
        const std::string arg = argv[i];
        const bool hasValue = i + 1 < argc;
        std::vector<double> values;
        if (arg == "--origin" && hasValue && parseList(argv[++i], values) && values.size() == 2) {
            options.originLat_deg = values[0];
            options.originLon_deg = values[1];
        } else if (arg == "--pose" && hasValue && parseList(argv[++i], values) && (values.size() == 3 || values.size() == 4)) {
            havePose = true;
            pose.x_m = static_cast<float>(values[0]);
            pose.y_m = static_cast<float>(values[1]);
            pose.heading_rad = static_cast<float>(values[2] * PI / 180.0);
            pose.speed_mps = values.size() == 4 ? static_cast<float>(values[3]) : 10.0F;
        } else if (arg == "--horizon" && hasValue && parseList(argv[++i], values) && values.size() == 1 && values[0] > 0.0) {
            params.horizon_s = values[0];
        } else if (arg == "--window" && hasValue && parseList(argv[++i], values) && values.size() == 4 &&
                   values[2] > values[0] && values[3] > values[1]) {
            haveWindow = true;
            window = augur::tools::Window{{values[0], values[1]}, {values[2], values[3]}};
        } else if (arg == "--svg" && hasValue) {
            svgPath = argv[++i];
        } else {
            std::fprintf(stderr, "augur-map: bad argument '%s'\n", arg.c_str());
            usage();
            return 2;
        }
    }
    auto map = readMap(path, options);
    if (!map) {
        std::fprintf(stderr, "augur-map: %s\n", map.error().describe().c_str());
        return 1;
    }
    std::printf("map: %s\n%s", path.c_str(), augur::tools::summarise(*map).c_str());
    std::vector<Corridor> corridors(augur::MAX_CORRIDORS_PER_VEHICLE);
    std::uint32_t corridorCount = 0;
    if (havePose) {
        const LaneLocator locator(*map);
        const auto result = searchCorridors(locator, pose, 0, params, corridors);
        corridorCount = result.count;
        if (result.located.lane == NO_INDEX) {
            std::printf("pose (%.1f, %.1f): not on any lane\n", pose.x_m, pose.y_m);
        } else {
            std::printf("pose (%.1f, %.1f): lane %s at s = %.1f m, lateral %.2f m; %u corridors (%u more not stored)\n",
                        pose.x_m, pose.y_m, map->laneId(result.located.lane).c_str(), result.located.s_m,
                        result.located.lateral_m, result.count, result.overflow);
        }
        for (std::uint32_t c = 0; c < corridorCount; ++c) {
            std::printf("  corridor %u: %.1f m%s%s:", c, corridors[c].length_m, corridors[c].laneChange ? ", lane change" : "",
                        corridors[c].truncated ? ", truncated" : "");
            for (const auto& seg : corridors[c].segments) {
                std::printf(" %s", map->laneId(seg.lane).c_str());
            }
            std::printf("\n");
        }
    }
    if (!svgPath.empty()) {
        std::ofstream file(svgPath);
        file << augur::tools::renderSvg(*map, std::span<const Corridor>(corridors.data(), corridorCount),
                                        havePose ? &pose : nullptr, haveWindow ? &window : nullptr);
        if (!file) {
            std::fprintf(stderr, "augur-map: cannot write %s\n", svgPath.c_str());
            return 1;
        }
        std::printf("wrote %s\n", svgPath.c_str());
    }
    return 0;
}
