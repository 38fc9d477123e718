#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "augur/runtime/scene/map_readers.hpp"
#include "augur/runtime/scene/scene.hpp"
#include "scene_test_support.hpp"
#include "sumo_nets.hpp"

namespace augur::runtime::scene {
namespace {

using testing::mapPath;
using testing::vehicleOnLane;

constexpr float CAR_LENGTH_M = 4.5F;
constexpr double POINT_TOLERANCE_M = 0.05;

class TJunctionScene : public ::testing::Test {
protected:
    void SetUp() override {
        auto result = readLanelet2(mapPath("t_junction.osm"), Lanelet2Options{});
        ASSERT_TRUE(result.hasValue());
        map = std::move(result).value();
        auto scene = Scene::create(map, SceneCapacities{}, CorridorSearchParams{});
        ASSERT_TRUE(scene.hasValue());
        sut = std::make_unique<Scene>(std::move(scene).value());
    }
    SceneVehicle on(const char* lane, double s_m, float speed_mps, std::uint32_t id) const {
        return vehicleOnLane(map, map.findLane(lane), s_m, speed_mps, id);
    }
    /// Global index of the corridor of `vehicle` whose last lane is `lastLane`.
    std::uint32_t corridorEndingOn(std::uint32_t vehicle, const char* lastLane) const {
        const auto corridors = sut->corridors(vehicle);
        for (std::uint32_t k = 0; k < corridors.size(); ++k) {
            const auto& segs = corridors[k].segments;
            if (map.laneId(segs[segs.size() - 1].lane) == lastLane) {
                return sut->corridorIndex(vehicle, k);
            }
        }
        ADD_FAILURE() << "vehicle " << vehicle << " has no corridor to " << lastLane;
        return NO_INDEX;
    }
    const CorridorRelation* relationWith(std::uint32_t corridor, std::uint32_t otherCorridor,
                                         CorridorRelationKind kind) const {
        if (corridor == NO_INDEX) {
            return nullptr;
        }
        // Default capacities: corridor k of vehicle w has global index w · MAX_CORRIDORS_PER_VEHICLE + k.
        const auto perVehicle = static_cast<std::uint32_t>(MAX_CORRIDORS_PER_VEHICLE);
        for (const auto& r : sut->relations(corridor)) {
            if (r.otherVehicle == otherCorridor / perVehicle && r.involves(otherCorridor % perVehicle) && r.kind == kind) {
                return &r;
            }
        }
        return nullptr;
    }
    RoadMap map;
    std::unique_ptr<Scene> sut;
};

TEST_F(TJunctionScene, StemLeftTurnCrossesTheMainRoadAndYields) {
    const std::vector<SceneVehicle> vehicles = {on("2007", 30.0, 8.0F, 1), on("2001", 20.0, 10.0F, 2)};
    const SceneStats stats = sut->update(vehicles);
    EXPECT_EQ(stats.vehicles, 2U);
    EXPECT_EQ(stats.unlocalised, 0U);
    const std::uint32_t stemLeft = corridorEndingOn(0, "2006");
    const std::uint32_t stemRight = corridorEndingOn(0, "2003");
    const std::uint32_t mainStraight = corridorEndingOn(1, "2003");
    const CorridorRelation* crossing = relationWith(stemLeft, mainStraight, CorridorRelationKind::Crossing);
    ASSERT_NE(crossing, nullptr);
    EXPECT_EQ(crossing->priority, RelativePriority::OtherHasPriority);
    EXPECT_EQ(crossing->otherVehicle, 1U);
    // Both s values point at the same map point, the conflict.
    Point2 a;
    Point2 b;
    double h = 0.0;
    corridorPointAt(map, sut->corridor(stemLeft), crossing->s_m, a, h);
    corridorPointAt(map, sut->corridor(mainStraight), crossing->otherS_m, b, h);
    const Point2 conflictPoint = map.conflicts()[crossing->conflict].point;
    EXPECT_NEAR(a.x_m, conflictPoint.x_m, POINT_TOLERANCE_M);
    EXPECT_NEAR(a.y_m, conflictPoint.y_m, POINT_TOLERANCE_M);
    EXPECT_NEAR(b.x_m, conflictPoint.x_m, POINT_TOLERANCE_M);
    EXPECT_NEAR(b.y_m, conflictPoint.y_m, POINT_TOLERANCE_M);
    const CorridorRelation* mirrored = relationWith(mainStraight, stemLeft, CorridorRelationKind::Crossing);
    ASSERT_NE(mirrored, nullptr);
    EXPECT_EQ(mirrored->priority, RelativePriority::ThisHasPriority);
    EXPECT_FLOAT_EQ(mirrored->s_m, crossing->otherS_m);
    // The right turn merges into the main road's lane, also yielding.
    const CorridorRelation* merge = relationWith(stemRight, mainStraight, CorridorRelationKind::Merge);
    ASSERT_NE(merge, nullptr);
    EXPECT_EQ(merge->priority, RelativePriority::OtherHasPriority);
    // The vehicle that has to yield is influenced; the one with priority is not.
    ASSERT_NE(sut->influencer(stemLeft), NO_INDEX);
    EXPECT_EQ(sut->relations(stemLeft)[sut->influencer(stemLeft)].otherVehicle, 1U);
    EXPECT_EQ(sut->influencer(mainStraight), NO_INDEX);
}

TEST_F(TJunctionScene, IntersectionRelationsGiveDistancesToJunctionAndStopLine) {
    const std::vector<SceneVehicle> vehicles = {on("2007", 30.0, 8.0F, 1), on("2001", 20.0, 10.0F, 2)};
    (void)sut->update(vehicles);
    const auto stem = sut->intersections(corridorEndingOn(0, "2006"));
    ASSERT_EQ(stem.size(), 1U);
    EXPECT_EQ(stem[0].junction, 0U);
    EXPECT_NEAR(stem[0].entry_m, 16.5, 1e-3);    // the stem lanelet ends at s = 46.5
    EXPECT_NEAR(stem[0].stopLine_m, 14.0, 1e-3);  // stop line at s = 44
    EXPECT_GT(stem[0].exit_m, stem[0].entry_m);
    EXPECT_GE(stem[0].firstConflict_m, stem[0].entry_m);
    EXPECT_GE(stem[0].conflictCount, 2U);  // the main road's lane and the other left turn
    const auto main = sut->intersections(corridorEndingOn(1, "2003"));
    ASSERT_EQ(main.size(), 1U);
    EXPECT_NEAR(main[0].entry_m, 20.0, 1e-3);
    EXPECT_LT(main[0].stopLine_m, 0.0);
    EXPECT_LT(main[0].firstYield_m, 0.0);  // the main road has priority at every conflict
}

TEST_F(TJunctionScene, AYieldPointIsWhereTheMapHasTheCorridorYieldWhoeverIsAround) {
    // The stem's vehicle alone: nobody to yield to, but the map has both its turns yield to the main road.
    const std::vector<SceneVehicle> vehicles = {on("2007", 30.0, 8.0F, 1)};
    (void)sut->update(vehicles);
    for (const char* last : {"2006", "2003"}) {
        const auto stem = sut->intersections(corridorEndingOn(0, last));
        ASSERT_EQ(stem.size(), 1U) << last;
        EXPECT_GE(stem[0].firstYield_m, stem[0].firstConflict_m) << last;
        EXPECT_LE(stem[0].firstYield_m, stem[0].exit_m) << last;  // a merge lies at the junction lane's end
    }
}

TEST_F(TJunctionScene, FollowerOnASharedLaneIsInfluencedByItsLeader) {
    const std::vector<SceneVehicle> vehicles = {on("2001", 5.0, 10.0F, 1), on("2001", 25.0, 10.0F, 2)};
    (void)sut->update(vehicles);
    const std::uint32_t follower = corridorEndingOn(0, "2003");
    const std::uint32_t leader = corridorEndingOn(1, "2003");
    const CorridorRelation* shared = relationWith(follower, leader, CorridorRelationKind::SharedLane);
    ASSERT_NE(shared, nullptr);
    EXPECT_NEAR(shared->s_m, 20.0, 1e-3);
    EXPECT_NEAR(shared->otherS_m, 0.0, 1e-3);
    ASSERT_NE(sut->influencer(follower), NO_INDEX);
    EXPECT_EQ(sut->relations(follower)[sut->influencer(follower)].kind, CorridorRelationKind::SharedLane);
    EXPECT_EQ(sut->influencer(leader), NO_INDEX);
}

TEST_F(TJunctionScene, OneRecordCoversAllCorridorsOfAVehicleThatMeetAtOnePlace) {
    // The leader's corridors (straight, right turn, lane change) all start on 2001 except the lane
    // change; the follower's straight corridor shares 2001 with the first two at the leader's position.
    const std::vector<SceneVehicle> vehicles = {on("2001", 5.0, 10.0F, 1), on("2001", 25.0, 10.0F, 2)};
    (void)sut->update(vehicles);
    const std::uint32_t follower = corridorEndingOn(0, "2003");
    std::uint32_t sharedRecords = 0;
    for (const auto& r : sut->relations(follower)) {
        if (r.kind == CorridorRelationKind::SharedLane && r.otherVehicle == 1U) {
            ++sharedRecords;
            EXPECT_TRUE(r.involves(corridorEndingOn(1, "2003") % MAX_CORRIDORS_PER_VEHICLE));
            EXPECT_TRUE(r.involves(corridorEndingOn(1, "2008") % MAX_CORRIDORS_PER_VEHICLE));
        }
    }
    EXPECT_EQ(sharedRecords, 1U);
}

TEST_F(TJunctionScene, LateralRelationsFindNearestVehiclesOnOwnAndNeighbourLanes) {
    const std::vector<SceneVehicle> vehicles = {on("2001", 5.0, 10.0F, 1), on("2001", 25.0, 12.0F, 2),
                                                on("2013", 12.0, 9.0F, 3), on("2006", 20.0, 11.0F, 4)};
    (void)sut->update(vehicles);
    const auto& a = sut->lateral(0);
    EXPECT_EQ(a[LateralSlot::SameAhead].vehicle, 1U);
    EXPECT_NEAR(a[LateralSlot::SameAhead].gap_m, 20.0 - CAR_LENGTH_M, 1e-3);
    EXPECT_FLOAT_EQ(a[LateralSlot::SameAhead].speed_mps, 12.0F);
    EXPECT_EQ(a[LateralSlot::SameBehind].vehicle, NO_INDEX);
    EXPECT_EQ(a[LateralSlot::RightAhead].vehicle, 2U);
    EXPECT_NEAR(a[LateralSlot::RightAhead].gap_m, 7.0 - CAR_LENGTH_M, 1e-3);
    EXPECT_EQ(a[LateralSlot::LeftAhead].vehicle, NO_INDEX);  // 2006 runs the other way: not a neighbour
    const auto& b = sut->lateral(1);
    EXPECT_EQ(b[LateralSlot::SameBehind].vehicle, 0U);
    EXPECT_EQ(b[LateralSlot::RightBehind].vehicle, 2U);
    EXPECT_NEAR(b[LateralSlot::RightBehind].gap_m, 13.0 - CAR_LENGTH_M, 1e-3);
    const auto& c = sut->lateral(2);
    EXPECT_EQ(c[LateralSlot::LeftBehind].vehicle, 0U);
    EXPECT_EQ(c[LateralSlot::LeftAhead].vehicle, 1U);
    const auto& d = sut->lateral(3);
    for (const auto& slot : d.slots) {
        EXPECT_EQ(slot.vehicle, NO_INDEX);
    }
}

TEST_F(TJunctionScene, CapacitiesAreCountedNotOverrun) {
    auto small = Scene::create(map, SceneCapacities{2, 1, 1}, CorridorSearchParams{});
    ASSERT_TRUE(small.hasValue());
    const std::vector<SceneVehicle> vehicles = {on("2001", 5.0, 10.0F, 1), on("2001", 15.0, 10.0F, 2),
                                                on("2001", 25.0, 10.0F, 3)};
    const SceneStats stats = small->update(vehicles);
    EXPECT_EQ(stats.vehicles, 2U);
    EXPECT_EQ(stats.vehiclesDropped, 1U);
    EXPECT_EQ(stats.corridors, 2U);
    EXPECT_EQ(stats.corridorsDropped, 2U);  // each vehicle had 2 corridors (straight, right turn), 1 stored
    for (std::uint32_t v = 0; v < 2; ++v) {
        EXPECT_LE(small->relations(small->corridorIndex(v, 0)).size(), 1U);
    }
}

TEST(Scene, CreateRejectsCapacitiesAndParametersOutOfRange) {
    auto map = readLanelet2(mapPath("t_junction.osm"), Lanelet2Options{});
    ASSERT_TRUE(map.hasValue());
    const SceneCapacities bad[] = {
        {0, 8, 16},
        {static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES) + 1, 8, 16},
        {64, 0, 16},
        {64, static_cast<std::uint32_t>(MAX_CORRIDORS_PER_VEHICLE) + 1, 16},
        {64, 8, 0},
        {64, 8, static_cast<std::uint32_t>(MAX_RELATIONS_PER_CORRIDOR) + 1},
    };
    for (const auto& capacities : bad) {
        auto sut = Scene::create(*map, capacities, CorridorSearchParams{});
        ASSERT_TRUE(sut.hasError());
        EXPECT_EQ(sut.error(), SceneError::CapacityOutOfRange);
    }
    CorridorSearchParams params;
    params.horizon_s = 0.0;
    auto sut = Scene::create(*map, SceneCapacities{}, params);
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error(), SceneError::BadParameter);
    auto exact = Scene::create(*map,
                               SceneCapacities{static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES),
                                               static_cast<std::uint32_t>(MAX_CORRIDORS_PER_VEHICLE),
                                               static_cast<std::uint32_t>(MAX_RELATIONS_PER_CORRIDOR)},
                               CorridorSearchParams{});
    EXPECT_TRUE(exact.hasValue());
}

TEST_F(TJunctionScene, EmptySceneAndRepeatedUpdatesAreDeterministic) {
    const SceneStats empty = sut->update({});
    EXPECT_EQ(empty.vehicles, 0U);
    EXPECT_EQ(empty.corridors, 0U);
    const std::vector<SceneVehicle> vehicles = {on("2007", 30.0, 8.0F, 1), on("2001", 20.0, 10.0F, 2),
                                                on("2004", 10.0, 9.0F, 3)};
    const SceneStats first = sut->update(vehicles);
    std::vector<CorridorRelation> before;
    for (std::uint32_t v = 0; v < vehicles.size(); ++v) {
        for (std::uint32_t k = 0; k < sut->corridors(v).size(); ++k) {
            const auto r = sut->relations(sut->corridorIndex(v, k));
            before.insert(before.end(), r.begin(), r.end());
        }
    }
    const SceneStats second = sut->update(vehicles);
    std::vector<CorridorRelation> after;
    for (std::uint32_t v = 0; v < vehicles.size(); ++v) {
        for (std::uint32_t k = 0; k < sut->corridors(v).size(); ++k) {
            const auto r = sut->relations(sut->corridorIndex(v, k));
            after.insert(after.end(), r.begin(), r.end());
        }
    }
    EXPECT_EQ(first.relations, second.relations);
    ASSERT_EQ(before.size(), after.size());
    EXPECT_GT(before.size(), 0U);
    for (std::size_t i = 0; i < before.size(); ++i) {
        EXPECT_EQ(before[i].otherVehicle, after[i].otherVehicle);
        EXPECT_EQ(before[i].otherCorridors, after[i].otherCorridors);
        EXPECT_EQ(before[i].s_m, after[i].s_m);
        EXPECT_EQ(before[i].priority, after[i].priority);
    }
}

TEST(Scene, SumoMinorRoadYieldsToMajorRoadAtTheFourWayJunction) {
    std::string error;
    const std::string path = testing::fourWayJunctionNet(error);
    ASSERT_FALSE(path.empty()) << error;
    auto map = readSumoNet(path);
    ASSERT_TRUE(map.hasValue());
    auto sut = Scene::create(*map, SceneCapacities{}, CorridorSearchParams{});
    ASSERT_TRUE(sut.hasValue());
    CorridorSearchParams params;
    const std::vector<SceneVehicle> vehicles = {
        vehicleOnLane(*map, map->findLane("left0A0_0"), 70.0, 10.0F, 1),    // minor road, from the west
        vehicleOnLane(*map, map->findLane("bottom0A0_0"), 70.0, 10.0F, 2),  // major road, from the south
    };
    (void)sut->update(vehicles);
    bool minorYields = false;
    bool majorYields = false;
    for (std::uint32_t k = 0; k < sut->corridors(0).size(); ++k) {
        for (const auto& r : sut->relations(sut->corridorIndex(0, k))) {
            minorYields = minorYields || r.priority == RelativePriority::OtherHasPriority;
        }
    }
    for (std::uint32_t k = 0; k < sut->corridors(1).size(); ++k) {
        for (const auto& r : sut->relations(sut->corridorIndex(1, k))) {
            majorYields = majorYields || (r.priority == RelativePriority::OtherHasPriority && r.otherVehicle == 0);
        }
    }
    EXPECT_TRUE(minorYields);
    EXPECT_FALSE(majorYields);
    ASSERT_GT(sut->intersections(sut->corridorIndex(0, 0)).size(), 0U);
    EXPECT_EQ(sut->intersections(sut->corridorIndex(0, 0))[0].junction, map->findJunction("A0"));
    EXPECT_NEAR(sut->intersections(sut->corridorIndex(0, 0))[0].entry_m, map->lane(map->findLane("left0A0_0")).length_m - 70.0,
                1e-3);
}

TEST(Scene, OnRampVehicleYieldsToTheMotorwayAtTheMerge) {
    std::string error;
    const std::string path = testing::onRampNet(error);
    ASSERT_FALSE(path.empty()) << error;
    auto map = readSumoNet(path);
    ASSERT_TRUE(map.hasValue());
    auto sut = Scene::create(*map, SceneCapacities{}, CorridorSearchParams{});
    ASSERT_TRUE(sut.hasValue());
    const std::uint32_t ramp = map->findLane("ramp_0");
    const std::uint32_t motorway = map->findLane("hw_in_0");
    const std::vector<SceneVehicle> vehicles = {
        vehicleOnLane(*map, ramp, map->lane(ramp).length_m - 20.0, 15.0F, 1),
        vehicleOnLane(*map, motorway, map->lane(motorway).length_m - 30.0, 25.0F, 2),
    };
    (void)sut->update(vehicles);
    ASSERT_EQ(sut->corridors(0).size(), 1U);  // one lane, no neighbour
    const std::uint32_t rampCorridor = sut->corridorIndex(0, 0);
    bool merge = false;
    for (const auto& r : sut->relations(rampCorridor)) {
        if (r.kind == CorridorRelationKind::Merge && r.otherVehicle == 1U) {
            merge = true;
            EXPECT_EQ(r.priority, RelativePriority::OtherHasPriority);
        }
    }
    EXPECT_TRUE(merge);
    ASSERT_NE(sut->influencer(rampCorridor), NO_INDEX);
    EXPECT_EQ(sut->relations(rampCorridor)[sut->influencer(rampCorridor)].otherVehicle, 1U);
    // After the merge both corridors run on the same lane: they know they share it.
    bool shared = false;
    for (const auto& r : sut->relations(rampCorridor)) {
        shared = shared || (r.kind == CorridorRelationKind::SharedLane && r.otherVehicle == 1U);
    }
    EXPECT_TRUE(shared);
}

}  // namespace
}  // namespace augur::runtime::scene
