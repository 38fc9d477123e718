// augur-map: load a Lanelet2 (.osm) or SUMO (.net.xml) map, print a summary, and optionally render
// it with the corridors of a pose to SVG. Usage: see --help and docs/map-tool.md.
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "augur/runtime/scene/corridors.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "map_options.hpp"
#include "map_render.hpp"
#include "augur_version.hpp"

int main(int argc, char** argv) {
    using namespace augur::runtime::scene;
    constexpr int EXIT_INPUT = 1;
    constexpr int EXIT_USAGE = 2;
    const auto parsed = augur::tools::parseMapOptions(std::vector<std::string>(argv + 1, argv + argc));
    if (!parsed) {
        std::fprintf(stderr, "augur-map: %s\nRun with --help for the options and their ranges.\n", parsed.error().c_str());
        return EXIT_USAGE;
    }
    if (parsed->version) {
        std::puts(augur::apps::cli::versionLine().c_str());
        return 0;
    }
    if (parsed->help) {
        std::fputs(augur::tools::mapUsage().c_str(), stdout);
        return 0;
    }
    const augur::tools::MapToolOptions& o = *parsed;
    const std::string& path = o.mapPath;
    const Lanelet2Options& options = o.lanelet2;
    CorridorSearchParams params;
    params.horizon_s = o.horizon_s;
    const std::string& svgPath = o.svgPath;
    const bool havePose = o.havePose;
    const bool haveWindow = o.haveWindow;
    const augur::tools::Window window = o.window;
    SceneVehicle pose = o.pose;
    auto map = readMap(path, options);
    if (!map) {
        std::fprintf(stderr, "augur-map: %s\n", map.error().describe().c_str());
        return EXIT_INPUT;
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
            return EXIT_INPUT;
        }
        std::printf("wrote %s\n", svgPath.c_str());
    }
    return 0;
}
