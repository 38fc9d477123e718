#include <gtest/gtest.h>

#include <algorithm>

#include "augur/runtime/scene/map_readers.hpp"
#include "scene_test_support.hpp"
#include "sumo_nets.hpp"

namespace augur::runtime::scene {
namespace {

using testing::writeScratchFile;

constexpr double SUMO_DEFAULT_SPEED_MPS = 13.89;
constexpr double SUMO_DEFAULT_WIDTH_M = 3.2;

RoadMap loadOrFail(const std::string& path, const std::string& error) {
    EXPECT_FALSE(path.empty()) << error;  // SUMO must be installed: a missing tool fails the test
    if (path.empty()) {
        return RoadMap{};
    }
    auto result = readSumoNet(path);
    EXPECT_TRUE(result.hasValue()) << (result.hasError() ? result.error().describe() : "");
    return result.hasValue() ? std::move(result).value() : RoadMap{};
}

/// The internal lane that connects `from` towards `to` (following internal lanes), or NO_INDEX.
std::uint32_t via(const RoadMap& map, const std::string& from, const std::string& to) {
    const std::uint32_t a = map.findLane(from);
    const std::uint32_t b = map.findLane(to);
    if (a == NO_INDEX || b == NO_INDEX) {
        return NO_INDEX;
    }
    for (const std::uint32_t first : map.successors(a)) {
        std::uint32_t l = first;
        for (int hop = 0; hop < 4 && map.lane(l).junction != NO_INDEX; ++hop) {
            const auto next = map.successors(l);
            if (std::find(next.begin(), next.end(), b) != next.end()) {
                return first;
            }
            if (next.empty()) {
                break;
            }
            l = next[0];
        }
    }
    return NO_INDEX;
}

/// The conflict between the internal paths a→… and b→… (any of their internal lanes), or NO_INDEX.
std::uint32_t conflictOfPaths(const RoadMap& map, std::uint32_t a, std::uint32_t b) {
    for (std::uint32_t la = a; la != NO_INDEX && map.lane(la).junction != NO_INDEX;
         la = map.successors(la).empty() ? NO_INDEX : map.successors(la)[0]) {
        for (std::uint32_t lb = b; lb != NO_INDEX && map.lane(lb).junction != NO_INDEX;
             lb = map.successors(lb).empty() ? NO_INDEX : map.successors(lb)[0]) {
            const std::uint32_t c = map.conflictBetween(la, lb);
            if (c != NO_INDEX) {
                return c;
            }
        }
    }
    return NO_INDEX;
}

/// True when some lane of the internal path starting at `winner` has priority at the paths' conflict.
bool pathWins(const RoadMap& map, std::uint32_t winner, std::uint32_t loser) {
    const std::uint32_t c = conflictOfPaths(map, winner, loser);
    for (std::uint32_t l = winner; c != NO_INDEX && l != NO_INDEX && map.lane(l).junction != NO_INDEX;
         l = map.successors(l).empty() ? NO_INDEX : map.successors(l)[0]) {
        if (map.hasPriority(c, l)) {
            return true;
        }
    }
    return false;
}

TEST(SumoReader, ReadsTheFourWayJunctionFromNetgenerate) {
    std::string error;
    const RoadMap sut = loadOrFail(testing::fourWayJunctionNet(error), error);
    ASSERT_GT(sut.laneCount(), 0U);
    // 8 edges × 2 lanes + internal lanes (turns and straights through the junction).
    std::uint32_t internal = 0;
    for (const Lane& lane : sut.lanes()) {
        internal += lane.junction != NO_INDEX ? 1U : 0U;
        EXPECT_NEAR(lane.width_m, SUMO_DEFAULT_WIDTH_M, 1e-9);
    }
    EXPECT_EQ(sut.laneCount() - internal, 16U);
    ASSERT_EQ(sut.junctions().size(), 1U);
    EXPECT_EQ(sut.junctionId(0), "A0");
    EXPECT_EQ(sut.junctionLanes(0).size(), internal);
    const Lane& approach = sut.lane(sut.findLane("bottom0A0_0"));
    EXPECT_NEAR(approach.speedLimit_mps, SUMO_DEFAULT_SPEED_MPS, 1e-9);
    EXPECT_NEAR(approach.length_m, 89.6, 0.05);
    EXPECT_EQ(approach.left.lane, sut.findLane("bottom0A0_1"));
    EXPECT_TRUE(approach.left.changeAllowed);
    EXPECT_EQ(sut.lane(sut.findLane("bottom0A0_1")).right.lane, sut.findLane("bottom0A0_0"));
    EXPECT_EQ(sut.summary().rightOfWayRules, 1U);
    EXPECT_EQ(sut.summary().warnings, 0U);
}

TEST(SumoReader, ConnectionsThroughInternalLanesAreSuccessors) {
    std::string error;
    const RoadMap sut = loadOrFail(testing::fourWayJunctionNet(error), error);
    ASSERT_GT(sut.laneCount(), 0U);
    EXPECT_NE(via(sut, "bottom0A0_0", "A0right0_0"), NO_INDEX);  // right turn from the right lane
    EXPECT_NE(via(sut, "bottom0A0_0", "A0top0_0"), NO_INDEX);    // straight
    EXPECT_NE(via(sut, "bottom0A0_1", "A0left0_1"), NO_INDEX);   // left turn from the left lane (two internal lanes)
    EXPECT_EQ(via(sut, "bottom0A0_0", "A0left0_1"), NO_INDEX);   // no left turn from the right lane
    EXPECT_EQ(via(sut, "bottom0A0_0", "A0bottom0_0"), NO_INDEX); // no turnarounds
}

TEST(SumoReader, JunctionLogicGivesTheMajorRoadPriority) {
    std::string error;
    const RoadMap sut = loadOrFail(testing::fourWayJunctionNet(error), error);
    ASSERT_GT(sut.laneCount(), 0U);
    const std::uint32_t majorStraight = via(sut, "bottom0A0_0", "A0top0_0");
    const std::uint32_t minorStraight = via(sut, "left0A0_0", "A0right0_0");
    const std::uint32_t majorLeft = via(sut, "bottom0A0_1", "A0left0_1");
    const std::uint32_t opposingStraight = via(sut, "top0A0_1", "A0bottom0_1");
    ASSERT_NE(conflictOfPaths(sut, majorStraight, minorStraight), NO_INDEX);
    EXPECT_TRUE(pathWins(sut, majorStraight, minorStraight));
    EXPECT_FALSE(pathWins(sut, minorStraight, majorStraight));
    // A left turn yields to the oncoming straight movement.
    ASSERT_NE(conflictOfPaths(sut, majorLeft, opposingStraight), NO_INDEX);
    EXPECT_TRUE(pathWins(sut, opposingStraight, majorLeft));
    for (const Conflict& c : sut.conflicts()) {
        EXPECT_NE(c.priority, Priority::Unregulated) << sut.laneId(c.first) << " / " << sut.laneId(c.second);
        EXPECT_EQ(c.junction, 0U);
    }
}

TEST(SumoReader, TrafficLightJunctionHasStopLinesOnEveryApproach) {
    std::string error;
    const RoadMap sut = loadOrFail(testing::fourWayJunctionNet(error, true), error);
    ASSERT_GT(sut.laneCount(), 0U);
    EXPECT_EQ(sut.summary().trafficLights, 1U);
    EXPECT_EQ(sut.summary().stopLines, 8U);
    const Lane& approach = sut.lane(sut.findLane("bottom0A0_0"));
    EXPECT_NEAR(approach.stopLine_s, approach.length_m, 1e-9);
}

TEST(SumoReader, RoundaboutRingHasPriorityOverEnteringTraffic) {
    std::string error;
    const RoadMap sut = loadOrFail(testing::roundaboutNet(error), error);
    ASSERT_GT(sut.laneCount(), 0U);
    EXPECT_EQ(sut.junctions().size(), 4U);  // the ring nodes; the arm ends are dead ends without lanes
    const std::uint32_t entering = via(sut, "in_N_0", "ring_NW_0");
    const std::uint32_t circulating = via(sut, "ring_EN_0", "ring_NW_0");
    ASSERT_NE(entering, NO_INDEX);
    ASSERT_NE(circulating, NO_INDEX);
    const std::uint32_t c = conflictOfPaths(sut, entering, circulating);
    ASSERT_NE(c, NO_INDEX);
    EXPECT_EQ(sut.conflicts()[c].kind, ConflictKind::Merge);
    EXPECT_TRUE(pathWins(sut, circulating, entering));
}

TEST(SumoReader, OnRampMergesAndYieldsToTheMotorway) {
    std::string error;
    const RoadMap sut = loadOrFail(testing::onRampNet(error), error);
    ASSERT_GT(sut.laneCount(), 0U);
    const std::uint32_t ramp = via(sut, "ramp_0", "hw_out_0");
    const std::uint32_t motorway = via(sut, "hw_in_0", "hw_out_0");
    ASSERT_NE(ramp, NO_INDEX);
    ASSERT_NE(motorway, NO_INDEX);
    const std::uint32_t c = conflictOfPaths(sut, ramp, motorway);
    ASSERT_NE(c, NO_INDEX);
    EXPECT_EQ(sut.conflicts()[c].kind, ConflictKind::Merge);
    EXPECT_TRUE(pathWins(sut, motorway, ramp));
    EXPECT_NEAR(sut.lane(sut.findLane("hw_in_0")).speedLimit_mps, 33.33, 1e-9);
    EXPECT_TRUE(sut.lane(sut.findLane("hw_in_0")).left.changeAllowed);
}

struct SumoMalformedCase {
    const char* name;
    const char* body;
    MapErrorCode code;
    const char* elementId;
    std::uint32_t line;
};

TEST(SumoReader, MalformedContentNamesFileLineAndElement) {
    const SumoMalformedCase cases[] = {
        {"no_shape", "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"0\" speed=\"13.9\"/>\n</edge>\n",
         MapErrorCode::MissingAttribute, "lane E0_0", 3},
        {"short_shape", "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"0\" speed=\"13.9\" shape=\"1,2\"/>\n</edge>\n",
         MapErrorCode::BadValue, "lane E0_0", 3},
        {"bad_speed", "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"0\" speed=\"fast\" shape=\"0,0 10,0\"/>\n</edge>\n",
         MapErrorCode::BadValue, "lane E0_0", 3},
        {"huge_lane_index",  // would overflow the int index of the neighbour search
         "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"1e300\" speed=\"13.9\" shape=\"0,0 10,0\"/>\n</edge>\n",
         MapErrorCode::BadValue, "lane E0_0", 3},
        {"huge_request_index",  // found by the fuzz test: sized a table of 2^63 responses
         "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"0\" speed=\"13.9\" shape=\"0,0 10,0\"/>\n</edge>\n"
         "<junction id=\"J0\" type=\"priority\" intLanes=\"E0_0\">\n"
         "<request index=\"9223372036854775807\" response=\"0\" foes=\"0\"/>\n</junction>\n",
         MapErrorCode::BadValue, "junction J0", 6},
        {"dangling_connection",
         "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"0\" speed=\"13.9\" shape=\"0,0 10,0\"/>\n</edge>\n"
         "<connection from=\"E0\" to=\"E9\" fromLane=\"0\" toLane=\"0\"/>\n",
         MapErrorCode::DanglingReference, "connection E0_0 -> E9_0", 5},
        {"duplicate_lane",
         "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"0\" speed=\"13.9\" shape=\"0,0 10,0\"/>\n"
         "<lane id=\"E0_0\" index=\"1\" speed=\"13.9\" shape=\"0,3 10,3\"/>\n</edge>\n",
         MapErrorCode::DuplicateId, "lane E0_0", 4},
        {"degenerate_lane", "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"0\" speed=\"13.9\" shape=\"5,5 5,5\"/>\n</edge>\n",
         MapErrorCode::BadGeometry, "lane E0_0", 3},
        {"negative_index", "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"-1\" speed=\"13.9\" shape=\"0,0 10,0\"/>\n</edge>\n",
         MapErrorCode::BadValue, "lane E0_0", 3},
        {"fractional_index", "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"0.5\" speed=\"13.9\" shape=\"0,0 10,0\"/>\n</edge>\n",
         MapErrorCode::BadValue, "lane E0_0", 3},
        {"absurd_index", "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"1e12\" speed=\"13.9\" shape=\"0,0 10,0\"/>\n</edge>\n",
         MapErrorCode::BadValue, "lane E0_0", 3},
        {"repeated_index",
         "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"0\" speed=\"13.9\" shape=\"0,0 10,0\"/>\n"
         "<lane id=\"E0_1\" index=\"0\" speed=\"13.9\" shape=\"0,3 10,3\"/>\n</edge>\n",
         MapErrorCode::DuplicateId, "lane E0_1", 4},
        {"absurd_coordinate",
         "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"0\" speed=\"13.9\" shape=\"0,0 1e300,0\"/>\n</edge>\n",
         MapErrorCode::BadValue, "lane E0_0", 3},
        {"absurd_request_index",
         "<edge id=\"E0\">\n<lane id=\"E0_0\" index=\"0\" speed=\"13.9\" shape=\"0,0 10,0\"/>\n</edge>\n"
         "<junction id=\"J0\" type=\"priority\" intLanes=\"E0_0\">\n<request index=\"1e12\" response=\"0\" foes=\"0\"/>\n"
         "</junction>\n",
         MapErrorCode::BadValue, "junction J0", 6},
    };
    for (const SumoMalformedCase& c : cases) {
        const std::string path =
            writeScratchFile(std::string(c.name) + ".net.xml", std::string("<net version=\"1.9\">\n") + c.body + "</net>\n");
        auto result = readSumoNet(path);
        ASSERT_TRUE(result.hasError()) << c.name;
        EXPECT_EQ(result.error().code, c.code) << c.name << ": " << result.error().describe();
        EXPECT_EQ(result.error().elementId, c.elementId) << c.name;
        EXPECT_EQ(result.error().line, c.line) << c.name;
        EXPECT_EQ(result.error().file, path);
    }
}

TEST(SumoReader, SkipsNonVehicleLanesAndTheirConnectionsWithACount) {
    const std::string text =
        "<net version=\"1.9\">\n"
        "<edge id=\"E0\">\n"
        "<lane id=\"E0_0\" index=\"0\" speed=\"2\" allow=\"pedestrian\" shape=\"0,-3 10,-3\"/>\n"
        "<lane id=\"E0_1\" index=\"1\" speed=\"13.9\" shape=\"0,0 10,0\"/>\n"
        "</edge>\n"
        "<edge id=\"E1\">\n<lane id=\"E1_0\" index=\"0\" speed=\"13.9\" disallow=\"all\" shape=\"10,0 20,0\"/>\n</edge>\n"
        "<connection from=\"E0\" to=\"E1\" fromLane=\"1\" toLane=\"0\"/>\n"
        "<neigh lane=\"E0_1\" neigh=\"X\"/>\n"
        "</net>\n";
    auto result = readSumoNet(writeScratchFile("pedestrian.net.xml", text));
    ASSERT_TRUE(result.hasValue()) << result.error().describe();
    EXPECT_EQ(result->laneCount(), 1U);
    EXPECT_EQ(result->summary().skippedNonVehicle, 2U);
    EXPECT_EQ(result->summary().warnings, 1U);  // <neigh>: not used, counted
    EXPECT_EQ(result->lane(0).right.lane, NO_INDEX);
}

TEST(SumoReader, CoordinatesAtTheRangeLimitAreAccepted) {
    const std::string text = "<net version=\"1.9\">\n<edge id=\"E0\">\n"
                             "<lane id=\"E0_0\" index=\"0\" speed=\"13.9\" shape=\"-2e7,2e7 -19999990,2e7\"/>\n"
                             "</edge>\n</net>\n";
    auto result = readSumoNet(writeScratchFile("far.net.xml", text));
    ASSERT_TRUE(result.hasValue()) << result.error().describe();
    EXPECT_EQ(result->minCorner().x_m, -MAX_MAP_COORDINATE_M);
}

TEST(SumoReader, OutOfRangeMessagesNameTheValueAndTheRange) {
    const std::string text = "<net version=\"1.9\">\n<edge id=\"E0\">\n"
                             "<lane id=\"E0_0\" index=\"-1\" speed=\"13.9\" shape=\"0,0 10,0\"/>\n</edge>\n</net>\n";
    auto result = readSumoNet(writeScratchFile("index.net.xml", text));
    ASSERT_TRUE(result.hasError());
    EXPECT_NE(result.error().describe().find("index '-1' is not an integer in [0, 255]"), std::string::npos)
        << result.error().describe();
}

TEST(SumoReader, RejectsOtherRootElements) {
    auto result = readSumoNet(writeScratchFile("osm.net.xml", "<osm/>"));
    ASSERT_TRUE(result.hasError());
    EXPECT_EQ(result.error().code, MapErrorCode::WrongFormat);
}

}  // namespace
}  // namespace augur::runtime::scene
