#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <vector>

#include "augur/runtime/scene/corridors.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "augur/runtime/scene/road_map_builder.hpp"
#include "scene_test_support.hpp"
#include "sumo_nets.hpp"

namespace augur::runtime::scene {
namespace {

using testing::mapPath;
using testing::vehicleOnLane;

constexpr double PI = 3.14159265358979323846;

RoadMap tJunction() {
    auto result = readLanelet2(mapPath("t_junction.osm"), Lanelet2Options{});
    EXPECT_TRUE(result.hasValue());
    return std::move(result).value();
}

std::vector<std::string> laneIds(const RoadMap& map, const Corridor& c) {
    std::vector<std::string> ids;
    for (const auto& seg : c.segments) {
        ids.push_back(map.laneId(seg.lane));
    }
    return ids;
}

std::set<std::vector<std::string>> routes(const RoadMap& map, std::span<const Corridor> corridors) {
    std::set<std::vector<std::string>> out;
    for (const auto& c : corridors) {
        out.insert(laneIds(map, c));
    }
    return out;
}

struct Found {
    std::vector<Corridor> corridors;
    CorridorSearchResult result;
};

Found search(const LaneLocator& locator, const SceneVehicle& v, const CorridorSearchParams& params,
             std::size_t capacity = MAX_CORRIDORS_PER_VEHICLE) {
    Found f;
    f.corridors.resize(capacity);
    f.result = searchCorridors(locator, v, 0, params, f.corridors);
    f.corridors.resize(f.result.count);
    return f;
}

TEST(Localisation, ReturnsTheLaneWithArcLengthAndSignedLateralOffset) {
    const RoadMap map = tJunction();
    const LaneLocator sut(map);
    LaneMatches matches;
    EXPECT_EQ(sut.locate(10.0, -1.0, 0.0, LocalisationGates{}, matches), 0U);
    ASSERT_EQ(matches.size(), 1U);
    EXPECT_EQ(map.laneId(matches[0].lane), "2001");
    EXPECT_NEAR(matches[0].s_m, 10.0, 1e-4);
    EXPECT_NEAR(matches[0].lateral_m, 0.75, 1e-4);  // centre at y = −1.75: 0.75 m to the left
}

TEST(Localisation, GatesOnDistanceAndHeading) {
    const RoadMap map = tJunction();
    const LaneLocator sut(map);
    LaneMatches matches;
    const LocalisationGates gates{1.0, 0.7};
    (void)sut.locate(10.0, -1.75, PI, gates, matches);  // wrong way on 2001; 2006 is 3.5 m away
    EXPECT_TRUE(matches.empty());
    (void)sut.locate(10.0, -1.75 + 1.75 + 1.01, 0.0, gates, matches);  // beyond half width + margin of 2001
    for (const auto& m : matches) {
        EXPECT_NE(map.laneId(m.lane), "2001");
    }
    (void)sut.locate(10.0, -1.75, 0.69, gates, matches);  // heading just inside the gate
    ASSERT_FALSE(matches.empty());
    EXPECT_EQ(map.laneId(matches[0].lane), "2001");
    (void)sut.locate(-500.0, -500.0, 0.0, gates, matches);  // off the map
    EXPECT_TRUE(matches.empty());
}

TEST(Localisation, OverlappingLanesAreAllCandidatesBestFirst) {
    const RoadMap map = tJunction();
    const LaneLocator sut(map);
    LaneMatches matches;
    // Just after the stem ends, the right and the left turn overlap.
    (void)sut.locate(51.75, -3.0, PI / 2.0 - 0.3, LocalisationGates{1.0, 1.2}, matches);
    ASSERT_GE(matches.size(), 2U);
    for (std::size_t i = 1; i < matches.size(); ++i) {
        EXPECT_LE(matches[i - 1].distance_m, matches[i].distance_m);
    }
}

TEST(Corridors, TJunctionStemGivesExactlyTheLeftAndRightTurn) {
    const RoadMap map = tJunction();
    const LaneLocator locator(map);
    const auto f = search(locator, vehicleOnLane(map, map.findLane("2007"), 20.0, 10.0F), CorridorSearchParams{});
    EXPECT_EQ(f.result.count, 2U);
    EXPECT_EQ(f.result.overflow, 0U);
    const std::set<std::vector<std::string>> expected = {{"2007", "2010", "2006"}, {"2007", "2009", "2003"}};
    EXPECT_EQ(routes(map, f.corridors), expected);
    for (const auto& c : f.corridors) {
        EXPECT_FALSE(c.laneChange);
        EXPECT_NEAR(c.segments[0].sBegin_m, 20.0, 1e-3);
        EXPECT_EQ(c.segments[0].corridorS_m, 0.0F);
    }
}

TEST(Corridors, LaneChangeOnlyWhereTheMapPermitsIt) {
    const RoadMap map = tJunction();
    const LaneLocator locator(map);
    // 2013 ends beside 2001 before the junction (a lane drop behind a dashed line).
    const SceneVehicle v = vehicleOnLane(map, map.findLane("2013"), 10.0, 10.0F);
    const auto with = search(locator, v, CorridorSearchParams{});
    const auto change = std::find_if(with.corridors.begin(), with.corridors.end(), [](const Corridor& c) { return c.laneChange; });
    ASSERT_NE(change, with.corridors.end());
    EXPECT_EQ(map.laneId(change->segments[0].lane), "2001");
    EXPECT_NEAR(change->segments[0].sBegin_m, 10.0, 1e-3);  // abreast of the vehicle on the neighbour
    CorridorSearchParams noChange;
    noChange.laneChanges = false;
    const auto without = search(locator, v, noChange);
    EXPECT_TRUE(std::none_of(without.corridors.begin(), without.corridors.end(), [](const Corridor& c) { return c.laneChange; }));
    EXPECT_EQ(without.result.count, with.result.count - 2U);  // the change to 2001, then either branch
    // Westbound 2006 has no permitted neighbour: no lane-change corridor.
    const auto west = search(locator, vehicleOnLane(map, map.findLane("2006"), 5.0, 3.0F), CorridorSearchParams{});
    EXPECT_EQ(west.result.count, 1U);
}

TEST(Corridors, ADroppedLaneMergesIntoTheNeighbourThatGoesOn) {
    const RoadMap map = tJunction();
    const LaneLocator locator(map);
    const std::uint32_t dropped = map.findLane("2013");
    const Lane& lane = map.lane(dropped);
    CorridorSearchParams params;
    params.horizon_s = 4.0;
    params.laneChanges = false;
    const auto f = search(locator, vehicleOnLane(map, dropped, lane.length_m - 10.0, 10.0F), params);
    // Not a dead end at the drop: both routes of the lane it merges into, entered abreast of the end.
    const std::set<std::vector<std::string>> expected = {{"2013", "2001", "2002", "2003"}, {"2013", "2001", "2011", "2008"}};
    EXPECT_EQ(routes(map, f.corridors), expected);
    for (const Corridor& c : f.corridors) {
        ASSERT_GE(c.segments.size(), 2U);
        EXPECT_FALSE(c.segments[0].merge);
        EXPECT_TRUE(c.segments[1].merge);
        EXPECT_NEAR(c.segments[0].sEnd_m, lane.length_m, 1e-3);
        EXPECT_NEAR(c.segments[1].corridorS_m, 10.0F, 1e-3F);
        Point2 end;
        Point2 abreast;
        double heading = 0.0;
        map.pointAt(dropped, lane.length_m, end, heading);
        map.pointAt(c.segments[1].lane, c.segments[1].sBegin_m, abreast, heading);
        EXPECT_NEAR(std::hypot(abreast.x_m - end.x_m, abreast.y_m - end.y_m), 3.5, 0.1);  // one lane over
        EXPECT_NEAR(c.length_m, 4.0 * 10.0 + 10.0, 1e-3);  // the full length: v·T + margin
        for (std::size_t i = 2; i < c.segments.size(); ++i) {
            EXPECT_FALSE(c.segments[i].merge);
        }
    }
}

TEST(Corridors, NoLaneChangeIntoALaneThatDropsBackIntoTheVehiclesOwn) {
    const RoadMap map = tJunction();
    const LaneLocator locator(map);
    // From 2001 the only neighbour is 2013, which ends beside 2001: changing there leads nowhere new.
    const auto f = search(locator, vehicleOnLane(map, map.findLane("2001"), 10.0, 10.0F), CorridorSearchParams{});
    const std::set<std::vector<std::string>> expected = {{"2001", "2002", "2003"}, {"2001", "2011", "2008"}};
    EXPECT_EQ(routes(map, f.corridors), expected);
}

TEST(Corridors, AtALaneTransitionTheFollowingLanesSeedTheSearch) {
    const RoadMap map = tJunction();
    const LaneLocator locator(map);
    const std::uint32_t approach = map.findLane("2001");
    const SceneVehicle v = vehicleOnLane(map, approach, map.lane(approach).length_m - 0.01, 10.0F);
    LaneMatches matches;
    (void)locator.locate(v.x_m, v.y_m, v.heading_rad, CorridorSearchParams{}.gates, matches);
    ASSERT_GE(matches.size(), 2U);  // the end of 2001 and the start of what follows
    const auto f = search(locator, v, CorridorSearchParams{});
    const std::set<std::vector<std::string>> expected = {{"2002", "2003"}, {"2011", "2008"}};
    EXPECT_EQ(routes(map, f.corridors), expected);
}

TEST(Corridors, MetresBeforeALaneTransitionTheVehiclesOwnLaneSeedsTheSearch) {
    const RoadMap map = tJunction();
    const LaneLocator locator(map);
    const std::uint32_t approach = map.findLane("2001");
    constexpr double SHORT_OF_THE_END_M = 2.0;  // within the gates of the following lanes, not on them
    const SceneVehicle v = vehicleOnLane(map, approach, map.lane(approach).length_m - SHORT_OF_THE_END_M, 10.0F);
    CorridorSearchParams params;
    params.laneChanges = false;
    LaneMatches matches;
    (void)locator.locate(v.x_m, v.y_m, v.heading_rad, params.gates, matches);
    ASSERT_GE(matches.size(), 2U);

    const auto f = search(locator, v, params);

    const std::set<std::vector<std::string>> expected = {{"2001", "2002", "2003"}, {"2001", "2011", "2008"}};
    EXPECT_EQ(routes(map, f.corridors), expected);
    for (const Corridor& c : f.corridors) {
        EXPECT_NEAR(c.segments[0].sBegin_m, map.lane(approach).length_m - SHORT_OF_THE_END_M, 1e-3);
    }
}

TEST(Corridors, LengthIsSpeedTimesHorizonPlusMarginButAtLeastTheMinimum) {
    const RoadMap map = tJunction();
    const LaneLocator locator(map);
    CorridorSearchParams params;
    params.laneChanges = false;
    params.horizon_s = 8.0;
    params.margin_m = 10.0;
    params.minLength_m = 30.0;
    params.accel_mps2 = 0.0;
    constexpr float SPEED_MPS = 6.0F;  // 6 · 8 + 10 = 58 m
    const auto moving = search(locator, vehicleOnLane(map, map.findLane("2001"), 10.0, SPEED_MPS), params);
    for (const auto& c : moving.corridors) {
        if (laneIds(map, c).back() == "2003") {
            EXPECT_NEAR(c.length_m, 58.0, 1e-3);
            EXPECT_NEAR(c.segments[c.segments.size() - 1].sEnd_m, 8.0, 1e-3);  // 30 on 2001 + 20 on 2002 + 8
        }
    }
    const auto standing = search(locator, vehicleOnLane(map, map.findLane("2001"), 10.0, 0.0F), params);
    ASSERT_EQ(standing.result.count, 1U);  // 30 m reach the end of 2001 only
    EXPECT_NEAR(standing.corridors[0].length_m, 30.0, 1e-3);
    EXPECT_EQ(standing.corridors[0].segments.size(), 1U);
}

TEST(Corridors, LengthCoversAnAccelerationKeptUpOverTheHorizon) {
    const RoadMap map = tJunction();
    const LaneLocator locator(map);
    CorridorSearchParams params;
    params.laneChanges = false;
    params.horizon_s = 4.0;
    params.margin_m = 10.0;
    params.minLength_m = 30.0;
    params.accel_mps2 = 3.0;
    constexpr float SPEED_MPS = 2.0F;  // 2 · 4 + ½ · 3 · 4² + 10 = 42 m
    const auto f = search(locator, vehicleOnLane(map, map.findLane("2001"), 0.0, SPEED_MPS), params);
    ASSERT_GE(f.result.count, 1U);
    for (const auto& c : f.corridors) {
        EXPECT_NEAR(c.length_m, 42.0, 1e-3);
    }
}

TEST(Corridors, CentrelineIsParameterisedByArcLengthFromTheVehicle) {
    const RoadMap map = tJunction();
    const LaneLocator locator(map);
    const auto f = search(locator, vehicleOnLane(map, map.findLane("2001"), 10.0, 10.0F), CorridorSearchParams{});
    for (const auto& c : f.corridors) {
        if (laneIds(map, c) != std::vector<std::string>{"2001", "2002", "2003"}) {
            continue;
        }
        Point2 p;
        double heading = 0.0;
        corridorPointAt(map, c, 0.0, p, heading);
        EXPECT_NEAR(p.x_m, 10.0, 1e-4);
        corridorPointAt(map, c, 55.0, p, heading);  // on 2003
        EXPECT_NEAR(p.x_m, 65.0, 1e-4);
        EXPECT_NEAR(p.y_m, -1.75, 1e-4);
        EXPECT_NEAR(heading, 0.0, 1e-6);
        EXPECT_EQ(findSegment(c, map.findLane("2002"), 10.0), 1);
        EXPECT_EQ(findSegment(c, map.findLane("2001"), 5.0), -1);  // behind the vehicle
    }
}

TEST(Corridors, OffTheMapGivesNoCorridor) {
    const RoadMap map = tJunction();
    const LaneLocator locator(map);
    SceneVehicle v;
    v.x_m = 500.0F;
    const auto f = search(locator, v, CorridorSearchParams{});
    EXPECT_EQ(f.result.count, 0U);
    EXPECT_EQ(f.result.located.lane, NO_INDEX);
}

TEST(Corridors, CapacityOverflowIsCountedNotLost) {
    const RoadMap map = tJunction();
    const LaneLocator locator(map);
    const auto f = search(locator, vehicleOnLane(map, map.findLane("2007"), 20.0, 10.0F), CorridorSearchParams{}, 1);
    EXPECT_EQ(f.result.count, 1U);
    EXPECT_EQ(f.result.overflow, 1U);
}

TEST(Corridors, ChainLongerThanTheSegmentCapacityIsMarkedTruncated) {
    constexpr int CHAIN_LANES = 40;
    constexpr double LANE_LENGTH_M = 10.0;
    RoadMapBuilder builder("chain");
    for (int i = 0; i < CHAIN_LANES; ++i) {
        LaneSpec spec;
        spec.id = std::to_string(i);
        spec.centreline = {Point2{i * LANE_LENGTH_M, 0.0}, Point2{(i + 1) * LANE_LENGTH_M, 0.0}};
        (void)builder.addLane(std::move(spec));
        if (i > 0) {
            builder.addSuccessor(static_cast<std::uint32_t>(i - 1), static_cast<std::uint32_t>(i));
        }
    }
    auto map = builder.build();
    ASSERT_TRUE(map.hasValue());
    const LaneLocator locator(*map);
    const auto f = search(locator, vehicleOnLane(*map, 0, 1.0, 40.0F), CorridorSearchParams{});
    ASSERT_EQ(f.result.count, 1U);
    EXPECT_TRUE(f.corridors[0].truncated);
    EXPECT_EQ(f.corridors[0].segments.size(), MAX_SEGMENTS_PER_CORRIDOR);
    EXPECT_NEAR(f.corridors[0].length_m, MAX_SEGMENTS_PER_CORRIDOR * LANE_LENGTH_M - 1.0, 1e-3);
}

TEST(Corridors, RoundaboutEntryGivesOneCorridorPerExit) {
    std::string error;
    const std::string path = testing::roundaboutNet(error);
    ASSERT_FALSE(path.empty()) << error;
    auto map = readSumoNet(path);
    ASSERT_TRUE(map.hasValue()) << map.error().describe();
    const LaneLocator locator(*map);
    const std::uint32_t entry = map->findLane("in_W_0");
    ASSERT_NE(entry, NO_INDEX);
    CorridorSearchParams params;
    params.horizon_s = 10.0;  // 20 m/s · 10 s: once round the ring and out
    const auto f = search(locator, vehicleOnLane(*map, entry, map->lane(entry).length_m - 30.0, 20.0F), params);
    ASSERT_EQ(f.result.count, 4U);
    std::set<std::string> exits;
    for (const auto& c : f.corridors) {
        std::set<std::uint32_t> unique;
        for (const auto& seg : c.segments) {
            EXPECT_TRUE(unique.insert(seg.lane).second) << "lane visited twice";
            const std::string& id = map->laneId(seg.lane);
            if (id.rfind("out_", 0) == 0) {
                exits.insert(id);
            }
        }
    }
    EXPECT_EQ(exits, (std::set<std::string>{"out_E_0", "out_N_0", "out_S_0", "out_W_0"}));
}

TEST(Corridors, FourWayJunctionRightLaneTurnsRightOrGoesStraight) {
    std::string error;
    const std::string path = testing::fourWayJunctionNet(error);
    ASSERT_FALSE(path.empty()) << error;
    auto map = readSumoNet(path);
    ASSERT_TRUE(map.hasValue()) << map.error().describe();
    const LaneLocator locator(*map);
    const SceneVehicle v = vehicleOnLane(*map, map->findLane("bottom0A0_0"), 40.0, 10.0F);
    CorridorSearchParams params;
    params.laneChanges = false;
    const auto keep = search(locator, v, params);
    std::set<std::string> ends;
    for (const auto& c : keep.corridors) {
        ends.insert(laneIds(*map, c).back());
    }
    EXPECT_EQ(ends, (std::set<std::string>{"A0right0_0", "A0top0_0"}));
    const auto change = search(locator, v, CorridorSearchParams{});
    ends.clear();
    for (const auto& c : change.corridors) {
        ends.insert(laneIds(*map, c).back());
    }
    EXPECT_EQ(ends, (std::set<std::string>{"A0right0_0", "A0top0_0", "A0top0_1", "A0left0_1"}));
}

}  // namespace
}  // namespace augur::runtime::scene
