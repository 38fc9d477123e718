#include "scene_test_support.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "augur/testing/testing.hpp"

namespace augur::runtime::scene::testing {

std::string mapPath(const std::string& name) { return augur::testing::sourcePath("tests/data/maps/" + name); }

namespace {
/// The process's scratch directory, removed with everything in it when the process exits.
struct ScratchDirectory {
    ScratchDirectory()
        : path((std::filesystem::temp_directory_path() / ("augur-scene-" + std::to_string(::getpid()))).string()) {
        std::filesystem::create_directories(path);
    }
    ~ScratchDirectory() {
        std::error_code ignored;
        std::filesystem::remove_all(path, ignored);
    }
    ScratchDirectory(const ScratchDirectory&) = delete;
    ScratchDirectory& operator=(const ScratchDirectory&) = delete;
    std::string path;
};
}  // namespace

std::string scratchDir() {
    static const ScratchDirectory dir;
    return dir.path;
}

std::string writeScratchFile(const std::string& name, const std::string& text) {
    const std::string path = scratchDir() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

namespace {
bool toolPresent(const std::string& tool) {
    return std::system(("command -v " + tool + " > /dev/null 2>&1").c_str()) == 0;
}
}  // namespace

std::string netgenerate(const std::string& name, const std::string& args, std::string& error) {
    if (!toolPresent("netgenerate")) {
        error = "netgenerate not found: install SUMO (apt-get install sumo sumo-tools)";
        return "";
    }
    const std::string out = scratchDir() + "/" + name + ".net.xml";
    const std::string log = scratchDir() + "/" + name + ".log";
    const std::string command = "netgenerate " + args + " -o " + out + " > " + log + " 2>&1";
    if (std::system(command.c_str()) != 0) {
        error = "failed: " + command;
        return "";
    }
    return out;
}

std::string netconvert(const std::string& name, const std::string& nodes, const std::string& edges,
                       const std::string& args, std::string& error) {
    if (!toolPresent("netconvert")) {
        error = "netconvert not found: install SUMO (apt-get install sumo sumo-tools)";
        return "";
    }
    const std::string nodePath = writeScratchFile(name + ".nod.xml", nodes);
    const std::string edgePath = writeScratchFile(name + ".edg.xml", edges);
    const std::string out = scratchDir() + "/" + name + ".net.xml";
    const std::string log = scratchDir() + "/" + name + ".log";
    const std::string command = "netconvert --node-files " + nodePath + " --edge-files " + edgePath + " " + args +
                                " -o " + out + " > " + log + " 2>&1";
    if (std::system(command.c_str()) != 0) {
        error = "failed: " + command;
        return "";
    }
    return out;
}

SceneVehicle vehicleOnLane(const RoadMap& map, std::uint32_t lane, double s_m, float speed_mps, std::uint32_t id) {
    Point2 p;
    double heading = 0.0;
    map.pointAt(lane, s_m, p, heading);
    SceneVehicle v;
    v.id = id;
    v.x_m = static_cast<float>(p.x_m);
    v.y_m = static_cast<float>(p.y_m);
    v.heading_rad = static_cast<float>(heading);
    v.speed_mps = speed_mps;
    return v;
}

std::uint32_t laneOrFail(const RoadMap& map, const std::string& id) {
    const std::uint32_t lane = map.findLane(id);
    if (lane == NO_INDEX) {
        ADD_FAILURE() << "no lane " << id;
    }
    return lane;
}

}  // namespace augur::runtime::scene::testing
