// The SUMO networks the scene tests use, generated with SUMO's own tools and fixed options.
#pragma once

#include <string>

namespace augur::runtime::scene::testing {

/// One 4-arm priority junction, two lanes per direction, arms 100 m (netgenerate --grid, 1 junction).
/// The north–south road is the major road. `trafficLight` builds a signalised junction instead.
std::string fourWayJunctionNet(std::string& error, bool trafficLight = false);

/// A single-lane one-way roundabout (radius 20 m) with four two-way arms of 100 m (netconvert from
/// plain XML: netgenerate cannot build roundabouts).
std::string roundaboutNet(std::string& error);

/// A two-lane motorway with a one-lane on-ramp joining it (netconvert from plain XML).
std::string onRampNet(std::string& error);

/// A city grid of n×n priority junctions, 100 m blocks, two lanes per direction (netgenerate --grid).
std::string cityGridNet(int junctionsPerSide, std::string& error);

}  // namespace augur::runtime::scene::testing
