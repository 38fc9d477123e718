// Text summary and SVG rendering of a road map with corridors, for people to look at.
#pragma once

#include <string>
#include <span>

#include "augur/runtime/scene/corridors.hpp"
#include "augur/runtime/scene/road_map.hpp"

namespace augur::tools {

/// Multi-line summary: lanes, junctions, conflicts by kind and priority, regulatory elements, skips.
std::string summarise(const runtime::scene::RoadMap& map);

/// Area to draw, metres in the map frame.
struct Window {
    runtime::scene::Point2 min;
    runtime::scene::Point2 max;
};

/// SVG of all lanes (junction lanes darker), conflict points (red: regulated, orange: unregulated),
/// stop lines, and the given corridors in distinct colours with the pose as an arrow. `window`
/// (optional) limits the picture to an area; by default it shows the whole map.
std::string renderSvg(const runtime::scene::RoadMap& map, std::span<const runtime::scene::Corridor> corridors,
                      const runtime::scene::SceneVehicle* pose, const Window* window = nullptr);

}  // namespace augur::tools
