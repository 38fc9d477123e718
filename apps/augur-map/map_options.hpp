// augur-map's command line, separate from main() so that tests can drive it: the map, the Lanelet2
// origin, a pose, the horizon and the drawn window, each checked against its accepted range. Offline
// tool: allocates freely, reports errors as messages (see docs/map-tool.md).
#pragma once

#include <string>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/runtime/scene/corridors.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "map_render.hpp"

namespace augur::tools {

inline constexpr double MAX_POSE_SPEED_MPS = 100.0;  ///< 360 km/h
inline constexpr double MAX_HEADING_DEG = 360.0;     ///< |heading|
inline constexpr double MAX_HORIZON_S = 600.0;

struct MapToolOptions {
    std::string mapPath;
    runtime::scene::Lanelet2Options lanelet2;  ///< origin: NaN unless --origin
    bool havePose{false};
    runtime::scene::SceneVehicle pose;         ///< speed 10 m/s unless given
    double horizon_s{8.0};
    bool haveWindow{false};
    Window window;
    std::string svgPath;
    bool help{false};
    bool version{false};  ///< --version was given: print the version line and exit 0
};

/// Parses the arguments (argv[0] excluded). Errors name the option, the value and the accepted ranges:
/// --origin LAT,LON (degrees, [-90, 90] and [-180, 180]); --pose X,Y,HEADING_DEG[,SPEED_MPS] (X, Y within
/// ±MAX_MAP_COORDINATE_M, |heading| ≤ 360°, speed in [0, 100] m/s); --horizon in (0, 600] s; --window
/// X0,Y0,X1,Y1 within ±MAX_MAP_COORDINATE_M with X0 < X1 and Y0 < Y1.
[[nodiscard]] Result<MapToolOptions, std::string> parseMapOptions(const std::vector<std::string>& args);

/// The help text.
[[nodiscard]] std::string mapUsage();

}  // namespace augur::tools
