#include "augur/runtime/corridor_groups.hpp"

#include <gtest/gtest.h>

#include <initializer_list>
#include <numeric>

namespace augur::runtime {
namespace {

constexpr float TOLERANCE = 1e-6F;
constexpr std::uint32_t LANE_A = 10;  // the vehicle's lane
constexpr std::uint32_t LANE_B = 11;  // its left neighbour

/// Adds a corridor over `lanes` to `vehicle`.
void addCorridor(FrameVehicle& vehicle, std::initializer_list<std::uint32_t> lanes, bool laneChange = false) {
    FrameCorridor& c = vehicle.corridors[vehicle.corridorCount++];
    c.laneChange = laneChange;
    for (const std::uint32_t lane : lanes) {
        c.route[c.routeLanes++] = lane;
    }
}

TEST(CorridorGroups, ASingleCorridorKeepsItsProbability) {
    FrameVehicle vehicle;
    addCorridor(vehicle, {LANE_A, 20});
    float p[] = {1.0F};
    spreadOverIndistinguishable(vehicle, p);
    EXPECT_FLOAT_EQ(p[0], 1.0F);
}

TEST(CorridorGroups, BranchesOfOneForkShareTheirGroupEquallyWhateverTheFilterSampled) {
    FrameVehicle vehicle;
    addCorridor(vehicle, {LANE_A, 20, 30});  // left
    addCorridor(vehicle, {LANE_A, 21, 31});  // straight
    addCorridor(vehicle, {LANE_A, 22, 32});  // right
    float p[] = {0.0F, 1.0F, 0.0F};  // collapsed by resampling
    spreadOverIndistinguishable(vehicle, p);
    for (const float value : p) {
        EXPECT_NEAR(value, 1.0F / 3.0F, TOLERANCE);
    }
}

TEST(CorridorGroups, SuccessiveForksSplitAtEachFork) {
    FrameVehicle vehicle;
    addCorridor(vehicle, {LANE_A, 20, 40});
    addCorridor(vehicle, {LANE_A, 20, 41});
    addCorridor(vehicle, {LANE_A, 21, 42});
    float share[3]{};
    groupPriorShares(vehicle, share);
    EXPECT_NEAR(share[0], 0.25F, TOLERANCE);
    EXPECT_NEAR(share[1], 0.25F, TOLERANCE);
    EXPECT_NEAR(share[2], 0.5F, TOLERANCE);
}

TEST(CorridorGroups, TheFilterStillDecidesBetweenLanesAndLaneChanges) {
    FrameVehicle vehicle;
    addCorridor(vehicle, {LANE_A, 20});
    addCorridor(vehicle, {LANE_A, 21});
    addCorridor(vehicle, {LANE_B, 23}, true);  // change to the left lane
    addCorridor(vehicle, {LANE_B, 24}, true);
    float p[] = {0.7F, 0.1F, 0.2F, 0.0F};
    spreadOverIndistinguishable(vehicle, p);
    EXPECT_NEAR(p[0], 0.4F, TOLERANCE);
    EXPECT_NEAR(p[1], 0.4F, TOLERANCE);
    EXPECT_NEAR(p[2], 0.1F, TOLERANCE);
    EXPECT_NEAR(p[3], 0.1F, TOLERANCE);
    EXPECT_NEAR(std::accumulate(p, p + 4, 0.0F), 1.0F, TOLERANCE);
}

TEST(CorridorGroups, ALaneChangeIsNotGroupedWithStayingOnThatLane) {
    FrameVehicle vehicle;
    addCorridor(vehicle, {LANE_B, 23}, false);  // localised on B already
    addCorridor(vehicle, {LANE_B, 23}, true);   // changing to B from A
    float p[] = {0.9F, 0.1F};
    spreadOverIndistinguishable(vehicle, p);
    EXPECT_NEAR(p[0], 0.9F, TOLERANCE);
    EXPECT_NEAR(p[1], 0.1F, TOLERANCE);
}

TEST(CorridorGroups, RoutesThatEndEarlyFormTheirOwnBranchAndIdenticalRoutesSplitEqually) {
    FrameVehicle vehicle;
    addCorridor(vehicle, {LANE_A});          // the lane ends (no successor)
    addCorridor(vehicle, {LANE_A, 20});
    addCorridor(vehicle, {LANE_A, 20});      // the same route kept twice
    float share[3]{};
    groupPriorShares(vehicle, share);
    EXPECT_NEAR(share[0], 0.5F, TOLERANCE);
    EXPECT_NEAR(share[1], 0.25F, TOLERANCE);
    EXPECT_NEAR(share[2], 0.25F, TOLERANCE);
}

TEST(CorridorGroups, ACorridorTheFilterDidNotModelGetsItsShareOfItsGroup) {
    FrameVehicle vehicle;
    for (std::uint32_t k = 0; k < 5; ++k) {
        addCorridor(vehicle, {LANE_A, 20 + k});
    }
    float p[] = {0.25F, 0.25F, 0.25F, 0.25F, 0.0F};  // the filter models four corridors
    spreadOverIndistinguishable(vehicle, p);
    for (const float value : p) {
        EXPECT_NEAR(value, 0.2F, TOLERANCE);
    }
}


TEST(CorridorGroups, KeepingTheLaneTakesTheRestOfTheLaneChangePriorWhateverTheBranchCounts) {
    constexpr float LANE_CHANGE_PRIOR = 0.1F;
    FrameVehicle vehicle;
    addCorridor(vehicle, {LANE_A, 20});          // on around the ring
    addCorridor(vehicle, {LANE_B, 23, 30}, true);  // over to the outer lane, then three exits
    addCorridor(vehicle, {LANE_B, 23, 31}, true);
    addCorridor(vehicle, {LANE_B, 24}, true);
    float prior[4]{};
    corridorPriors(vehicle, LANE_CHANGE_PRIOR, prior);
    EXPECT_NEAR(prior[0], 1.0F - LANE_CHANGE_PRIOR, TOLERANCE);
    EXPECT_NEAR(prior[1], 0.25F * LANE_CHANGE_PRIOR, TOLERANCE);
    EXPECT_NEAR(prior[2], 0.25F * LANE_CHANGE_PRIOR, TOLERANCE);
    EXPECT_NEAR(prior[3], 0.5F * LANE_CHANGE_PRIOR, TOLERANCE);
}

TEST(CorridorGroups, LanesAndLaneChangesShareTheirKindsPriorEquallyAndOneKindAloneTakesAll) {
    constexpr float LANE_CHANGE_PRIOR = 0.2F;
    FrameVehicle twoLanes;  // localised on A and on B (near the line between them), a change from A to the right
    addCorridor(twoLanes, {LANE_A, 20});
    addCorridor(twoLanes, {LANE_B, 21});
    addCorridor(twoLanes, {LANE_B + 1, 22}, true);
    float prior[3]{};
    corridorPriors(twoLanes, LANE_CHANGE_PRIOR, prior);
    EXPECT_NEAR(prior[0], 0.4F, TOLERANCE);
    EXPECT_NEAR(prior[1], 0.4F, TOLERANCE);
    EXPECT_NEAR(prior[2], LANE_CHANGE_PRIOR, TOLERANCE);

    FrameVehicle changesOnly;  // a lane that drops: every corridor starts with a change
    addCorridor(changesOnly, {LANE_B, 23}, true);
    addCorridor(changesOnly, {LANE_B, 24}, true);
    float only[2]{};
    corridorPriors(changesOnly, LANE_CHANGE_PRIOR, only);
    EXPECT_NEAR(only[0] + only[1], 1.0F, TOLERANCE);
    EXPECT_NEAR(only[0], 0.5F, TOLERANCE);
}

}  // namespace
}  // namespace augur::runtime
