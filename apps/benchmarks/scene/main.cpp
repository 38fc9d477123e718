// augur-bench-scene: time per cycle of Scene::update() (localisation, corridor search, lateral,
// corridor-to-intersection and corridor-to-corridor relations) for N vehicles on the Lanelet2 example
// map and on a SUMO city grid generated with netgenerate. CPU only; one thread.
//
// usage: augur-bench-scene [--sumo NET.net.xml] [--repetitions N] [--json FILE]
//   Without --sumo, generates 3×3 and 8×8 city grids (100 m blocks, 2 lanes per direction) with netgenerate.
//   --json FILE: the figures as a result file (family scene, docs/results/scene.json).
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "augur/bench/bench.hpp"
#include "augur/bench/bench_cli.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "augur/runtime/scene/scene.hpp"

namespace {

using namespace augur::runtime::scene;

constexpr std::uint32_t SEED = 2024;
constexpr float MAX_SPEED_MPS = 15.0F;

/// `count` vehicles on random lanes (seeded), heading along the lane, speeds uniform in [0, 15] m/s.
std::vector<SceneVehicle> randomVehicles(const RoadMap& map, std::uint32_t count) {
    std::mt19937 rng(SEED);
    std::uniform_int_distribution<std::uint32_t> laneDist(0, static_cast<std::uint32_t>(map.laneCount() - 1));
    std::uniform_real_distribution<double> fraction(0.0, 1.0);
    std::uniform_real_distribution<float> speed(0.0F, MAX_SPEED_MPS);
    std::vector<SceneVehicle> out;
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t lane = laneDist(rng);
        Point2 p;
        double heading = 0.0;
        map.pointAt(lane, fraction(rng) * map.lane(lane).length_m, p, heading);
        SceneVehicle v;
        v.id = i;
        v.x_m = static_cast<float>(p.x_m);
        v.y_m = static_cast<float>(p.y_m);
        v.heading_rad = static_cast<float>(heading);
        v.speed_mps = speed(rng);
        out.push_back(v);
    }
    return out;
}

/// Times Scene::update on `map` (`name` in the table, `mapMetric` in the result file's metrics).
void run(const augur::bench::Table& table, augur::bench::ResultFile& results, const std::string& name,
         const std::string& mapMetric, const RoadMap& map, int repetitions) {
    auto scene = Scene::create(map, SceneCapacities{}, CorridorSearchParams{});
    if (!scene) {
        std::fprintf(stderr, "scene create failed\n");
        return;
    }
    for (const std::uint32_t vehicles : {8U, 32U, 64U}) {
        const auto input = randomVehicles(map, vehicles);
        SceneStats stats;
        const double us = augur::bench::hostMedian_us([&] { stats = scene->update(input); }, 5, repetitions);
        table.row({name, std::to_string(map.laneCount()), std::to_string(map.conflicts().size()),
                   std::to_string(vehicles), std::to_string(stats.corridors), std::to_string(stats.corridorsDropped),
                   std::to_string(stats.relations), std::to_string(stats.relationsDropped), augur::bench::fmt(us, 1)});
        results.add("Scene::update, " + std::to_string(vehicles) + " vehicles, " + mapMetric, us, 1, "us");
    }
}

}  // namespace

int main(int argc, char** argv) {
    namespace cli = augur::apps::cli;
    std::string sumoPath;
    std::int64_t repetitions = 200;
    std::string json;
    CLI::App app{"augur-bench-scene: time per cycle of corridor search and relations (CPU, one thread) on real maps.",
                 "augur-bench-scene"};
    cli::useConventions(app);
    app.add_option("--sumo", sumoPath, "a SUMO network to time instead of the generated 3x3 and 8x8 city grids")
        ->type_name("NET.net.xml");
    app.add_option("--repetitions", repetitions, "timed calls per map and vehicle count (median)")
        ->type_name("N")
        ->check(cli::integerIn(1, 1'000'000))
        ->capture_default_str();
    augur::bench::addJsonOption(app, json);
    if (const auto exit = augur::bench::parseArguments(app, argc, argv)) {
        return *exit;
    }
    augur::bench::ResultFile results("scene", "Maps, corridors and relations (CPU)", 50);
    results.setDevice(augur::platform::cpuModel() + ", one thread");
    results.setCommand(augur::bench::commandLine(argc, argv));
    const augur::bench::Table table("Scene::update per cycle (CPU, 1 thread; median)",
                                    {"map", "lanes", "conflicts", "vehicles", "corridors", "corridors dropped", "relations",
                                     "relations dropped", "us/cycle"});
    // Init-phase cost, timed after: (metric, load).
    std::vector<std::pair<std::string, std::function<void()>>> loads;
    auto lanelet2 = readLanelet2(std::string(AUGUR_SOURCE_DIR) + "/tests/data/maps/lanelet2_mapping_example.osm",
                                 Lanelet2Options{49.0, 8.4});
    if (!lanelet2) {
        std::fprintf(stderr, "%s\n", lanelet2.error().describe().c_str());
        return 1;
    }
    run(table, results, "Lanelet2 example", "Lanelet2 example map", *lanelet2, static_cast<int>(repetitions));
    loads.emplace_back("Lanelet2 example map", [] {
        (void)readLanelet2(std::string(AUGUR_SOURCE_DIR) + "/tests/data/maps/lanelet2_mapping_example.osm",
                           Lanelet2Options{49.0, 8.4});
    });
    struct Net {
        std::string name;    ///< in the table
        std::string metric;  ///< in the result file
        std::string path;
    };
    std::vector<Net> nets;
    if (!sumoPath.empty()) {
        nets.push_back({"SUMO " + sumoPath, "SUMO " + sumoPath, sumoPath});
    } else {
        for (const int side : {3, 8}) {
            const std::string path =
                (std::filesystem::temp_directory_path() / ("augur-bench-grid-" + std::to_string(side) + ".net.xml")).string();
            const std::string command = "netgenerate --grid --grid.number " + std::to_string(side) +
                                        " --grid.length 100 --grid.attach-length 100 --no-turnarounds true "
                                        "--default.lanenumber 2 --seed 1 -o " + path + " > /dev/null 2>&1";
            if (std::system(command.c_str()) != 0) {
                std::fprintf(stderr, "netgenerate failed or missing (install SUMO)\n");
                return 1;
            }
            const std::string grid = std::to_string(side) + "x" + std::to_string(side);
            nets.push_back({"SUMO city grid " + grid, "SUMO grid " + grid, path});
        }
    }
    for (const Net& net : nets) {
        auto sumo = readSumoNet(net.path);
        if (!sumo) {
            std::fprintf(stderr, "%s\n", sumo.error().describe().c_str());
            return 1;
        }
        run(table, results, net.name,
            net.metric + " (" + augur::bench::withThousands(static_cast<long long>(sumo->laneCount())) + " lanes)", *sumo,
            static_cast<int>(repetitions));
        loads.emplace_back(net.metric, [path = net.path] { (void)readSumoNet(path); });
    }
    const augur::bench::Table init("Map load (init phase: parse, derive conflicts, build; median of 5)",
                                   {"map", "ms"});
    for (const auto& [metric, load] : loads) {
        const double ms = augur::bench::hostMedian_us(load, 1, 5) * 1e-3;
        init.row({metric, augur::bench::fmt(ms, 1)});
        results.add("map load, " + metric, ms, 1, "ms");
    }
    return augur::bench::writeResults(results, json) ? 0 : cli::EXIT_INPUT;
}
