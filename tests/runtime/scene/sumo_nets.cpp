#include "sumo_nets.hpp"

#include <cmath>

#include "scene_test_support.hpp"

namespace augur::runtime::scene::testing {

std::string fourWayJunctionNet(std::string& error, bool trafficLight) {
    return netgenerate(trafficLight ? "four_way_tls" : "four_way",
                       std::string("--grid --grid.number 1 --grid.attach-length 100 --no-turnarounds true "
                                   "--default.lanenumber 2 --seed 1") +
                           (trafficLight ? " --default-junction-type traffic_light" : ""),
                       error);
}

std::string roundaboutNet(std::string& error) {
    constexpr double RING_RADIUS_M = 20.0;
    constexpr double ARM_END_M = 120.0;
    const char* names[4] = {"E", "N", "W", "S"};
    std::string nodes = "<nodes>\n";
    std::string edges = "<edges>\n";
    for (int i = 0; i < 4; ++i) {
        const double angle = i * M_PI / 2.0;
        nodes += "  <node id=\"r" + std::string(names[i]) + "\" x=\"" + std::to_string(RING_RADIUS_M * std::cos(angle)) +
                 "\" y=\"" + std::to_string(RING_RADIUS_M * std::sin(angle)) + "\" type=\"priority\"/>\n";
        nodes += "  <node id=\"a" + std::string(names[i]) + "\" x=\"" + std::to_string(ARM_END_M * std::cos(angle)) +
                 "\" y=\"" + std::to_string(ARM_END_M * std::sin(angle)) + "\" type=\"priority\"/>\n";
        const int j = (i + 1) % 4;  // counter-clockwise ring, as driven with right-hand traffic
        const double mid = angle + M_PI / 4.0;
        edges += "  <edge id=\"ring_" + std::string(names[i]) + names[j] + "\" from=\"r" + names[i] + "\" to=\"r" +
                 names[j] + "\" priority=\"10\" numLanes=\"1\" speed=\"8.33\" shape=\"" +
                 std::to_string(RING_RADIUS_M * std::cos(angle)) + "," + std::to_string(RING_RADIUS_M * std::sin(angle)) +
                 " " + std::to_string(RING_RADIUS_M * std::cos(mid)) + "," +
                 std::to_string(RING_RADIUS_M * std::sin(mid)) + " " + std::to_string(RING_RADIUS_M * std::cos(angle + M_PI / 2.0)) +
                 "," + std::to_string(RING_RADIUS_M * std::sin(angle + M_PI / 2.0)) + "\"/>\n";
        edges += "  <edge id=\"in_" + std::string(names[i]) + "\" from=\"a" + names[i] + "\" to=\"r" + names[i] +
                 "\" priority=\"5\" numLanes=\"1\" speed=\"13.89\"/>\n";
        edges += "  <edge id=\"out_" + std::string(names[i]) + "\" from=\"r" + names[i] + "\" to=\"a" + names[i] +
                 "\" priority=\"5\" numLanes=\"1\" speed=\"13.89\"/>\n";
    }
    nodes += "</nodes>\n";
    edges += "</edges>\n";
    return netconvert("roundabout", nodes, edges, "--roundabouts.guess true --no-turnarounds true", error);
}

std::string onRampNet(std::string& error) {
    const std::string nodes =
        "<nodes>\n"
        "  <node id=\"m0\" x=\"0\" y=\"0\" type=\"priority\"/>\n"
        "  <node id=\"m1\" x=\"300\" y=\"0\" type=\"priority\"/>\n"
        "  <node id=\"m2\" x=\"600\" y=\"0\" type=\"priority\"/>\n"
        "  <node id=\"r0\" x=\"100\" y=\"-60\" type=\"priority\"/>\n"
        "</nodes>\n";
    const std::string edges =
        "<edges>\n"
        "  <edge id=\"hw_in\" from=\"m0\" to=\"m1\" priority=\"10\" numLanes=\"2\" speed=\"33.33\"/>\n"
        "  <edge id=\"hw_out\" from=\"m1\" to=\"m2\" priority=\"10\" numLanes=\"2\" speed=\"33.33\"/>\n"
        "  <edge id=\"ramp\" from=\"r0\" to=\"m1\" priority=\"1\" numLanes=\"1\" speed=\"22.22\"/>\n"
        "</edges>\n";
    return netconvert("on_ramp", nodes, edges, "--no-turnarounds true", error);
}

std::string cityGridNet(int junctionsPerSide, std::string& error) {
    return netgenerate("city_grid_" + std::to_string(junctionsPerSide),
                       "--grid --grid.number " + std::to_string(junctionsPerSide) +
                           " --grid.length 100 --grid.attach-length 100 --no-turnarounds true "
                           "--default.lanenumber 2 --seed 1",
                       error);
}

}  // namespace augur::runtime::scene::testing
