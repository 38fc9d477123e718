// Readers for the two map formats augur accepts; both produce the same RoadMap.
//
// Lanelet2 (OSM XML, the format of the seed paper's maps and of Autoware): nodes are projected from
// lat/lon as Lanelet2's default projector does, to UTM coordinates relative to `origin` (utm_projector.hpp),
// or taken from `local_x`/`local_y` tags when every node has them; `type=lanelet` relations become lanes (vehicle lanelets only; two-way lanelets give
// one lane per direction); centrelines are the mean of the resampled bounds; successors come from
// shared bound end points, neighbours from shared bound line strings (lane change only across dashed
// lines, or as the `lane_change` tag says); `speed_limit` tags and speed-limit regulatory elements set
// speeds; `right_of_way` regulatory elements say which lanelets yield; their and traffic lights'
// `ref_line`s are stop lines. See docs/design/maps.md for the rules and what is not supported.
//
// SUMO (.net.xml as written by netgenerate/netconvert): edges and lanes with shapes, speeds and widths;
// internal junction lanes; connections (including via internal lanes) as successors; lanes of one
// edge as neighbours; junction request/response bits as the priority between connections.
//
// Before either parses anything the file itself is checked (readMapFile): a regular file, at most
// MapFileCheck::maxBytes, with the pinned SHA-256 if one is given. A FIFO, a device such as /dev/zero
// or a directory is refused at once, without blocking or reading.
//
// Both are init-phase functions (they allocate); errors name file, line and element.
#pragma once

#include <cmath>
#include <string>

#include "augur/config/deployment.hpp"
#include "augur/core/result.hpp"
#include "augur/runtime/scene/map_error.hpp"
#include "augur/runtime/scene/road_map.hpp"

namespace augur::runtime::scene {

/// Largest |x| or |y| a map may use, metres: half the Earth's circumference (20,004 km). No frame of a
/// map on Earth (local, projected such as UTM, geocentric) needs more; a larger coordinate is a broken or
/// hostile file (it would overflow the geometry's squared distances) and is reported as BadValue.
inline constexpr double MAX_MAP_COORDINATE_M = 2.0e7;

/// SUMO lane `index` (lanes of one edge, numbered from the right): an integer in [0, MAX_SUMO_LANE_INDEX].
inline constexpr int MAX_SUMO_LANE_INDEX = 255;

/// SUMO junction `<request index>` (one per link through the junction): an integer in
/// [0, MAX_SUMO_REQUEST_INDEX]; the reader keeps one response per index, so the bound caps its memory.
inline constexpr int MAX_SUMO_REQUEST_INDEX = 4095;

struct Lanelet2Options {
    /// Origin of the local frame, the origin of Lanelet2's UtmProjector (degrees; latitude in [-90, 90],
    /// longitude in [-180, 180], else the read fails with BadValue). NaN: the first node of the file.
    double originLat_deg{std::nan("")};
    double originLon_deg{std::nan("")};
};

/// What the map file itself must be (map.max_bytes, map.sha256 of the deployment).
struct MapFileCheck {
    std::uint64_t maxBytes{config::DEFAULT_MAP_MAX_BYTES};  ///< a larger file is refused (FileRejected)
    std::string sha256{};  ///< SHA-256 the content must have (hex, either case); empty: not checked
};

/// The map file's bytes and their SHA-256, once the file passed `check`. Errors: Io (missing,
/// unreadable), FileRejected (not a regular file, too large), HashMismatch. Never blocks on special
/// files. O(file size).
struct MapFileContent {
    std::string text;
    std::string sha256;  ///< 64 lowercase hexadecimal digits
};
[[nodiscard]] Result<MapFileContent, MapError> readMapFile(const std::string& path, const MapFileCheck& check);

[[nodiscard]] Result<RoadMap, MapError> readLanelet2(const std::string& path, const Lanelet2Options& options,
                                                     const MapFileCheck& check = {});

[[nodiscard]] Result<RoadMap, MapError> readSumoNet(const std::string& path, const MapFileCheck& check = {});

enum class MapFormat : std::uint8_t { Lanelet2, Sumo };

/// Picks the reader by extension: `.osm` → Lanelet2, `.net.xml` → SUMO; anything else is an error.
[[nodiscard]] Result<RoadMap, MapError> readMap(const std::string& path, const Lanelet2Options& options,
                                                const MapFileCheck& check = {});

}  // namespace augur::runtime::scene
