// Helpers shared by the scene tests: test maps, SUMO networks generated with SUMO's own tools, poses.
#pragma once

#include <string>

#include "augur/runtime/scene/corridors.hpp"
#include "augur/runtime/scene/road_map.hpp"

namespace augur::runtime::scene::testing {

/// tests/data/maps/<name> in the source tree.
std::string mapPath(const std::string& name);

/// A fresh directory under the system temp dir for this test process.
std::string scratchDir();

/// Writes `text` to scratchDir()/name and returns the path.
std::string writeScratchFile(const std::string& name, const std::string& text);

/// Runs `netgenerate <args> -o <scratch>/<name>.net.xml`. Returns the path, or "" with `error` set
/// (tool missing or failing). Tests must fail, not skip, on "" (CI installs SUMO).
std::string netgenerate(const std::string& name, const std::string& args, std::string& error);

/// Runs `netconvert` on plain node/edge XML written to the scratch dir. Same contract.
std::string netconvert(const std::string& name, const std::string& nodes, const std::string& edges,
                       const std::string& args, std::string& error);

/// A vehicle on `lane` of `map` at arc length s, heading along the lane.
SceneVehicle vehicleOnLane(const RoadMap& map, std::uint32_t lane, double s_m, float speed_mps, std::uint32_t id = 0);

/// The lane with source id `id`; fails the calling test (ADD_FAILURE) when absent.
std::uint32_t laneOrFail(const RoadMap& map, const std::string& id);

}  // namespace augur::runtime::scene::testing
