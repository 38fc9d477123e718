#include "augur/runtime/corridor_groups.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <initializer_list>
#include <limits>
#include <numeric>
#include <span>

namespace augur::runtime {
namespace {

constexpr float TOLERANCE = 1e-6F;
constexpr std::uint32_t LANE_A = 10;  // the vehicle's lane
constexpr std::uint32_t LANE_B = 11;  // its left neighbour

/// Equal likelihoods: the split is the prior's.
constexpr float EVEN[MAX_CORRIDORS_PER_VEHICLE] = {1.0F, 1.0F, 1.0F, 1.0F, 1.0F, 1.0F, 1.0F, 1.0F};

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
    splitWithinGroups(vehicle, EVEN, p);
    EXPECT_FLOAT_EQ(p[0], 1.0F);
}

TEST(CorridorGroups, BranchesOfOneForkShareTheirGroupEquallyWhateverTheFilterSampled) {
    FrameVehicle vehicle;
    addCorridor(vehicle, {LANE_A, 20, 30});  // left
    addCorridor(vehicle, {LANE_A, 21, 31});  // straight
    addCorridor(vehicle, {LANE_A, 22, 32});  // right
    float p[] = {0.0F, 1.0F, 0.0F};  // collapsed by resampling
    splitWithinGroups(vehicle, EVEN, p);
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
    splitWithinGroups(vehicle, EVEN, p);
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
    splitWithinGroups(vehicle, EVEN, p);
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
    splitWithinGroups(vehicle, EVEN, p);
    for (const float value : p) {
        EXPECT_NEAR(value, 0.2F, TOLERANCE);
    }
}

TEST(CorridorGroups, EachCorridorsGroupIsItsFirstMember) {
    FrameVehicle vehicle;
    addCorridor(vehicle, {LANE_A, 20});
    addCorridor(vehicle, {LANE_B, 23}, true);
    addCorridor(vehicle, {LANE_A, 21});
    addCorridor(vehicle, {LANE_B, 23});  // on B already: not the change to it
    std::uint8_t group[4]{};
    groupsOf(vehicle, group);
    EXPECT_EQ(group[0], 0);
    EXPECT_EQ(group[1], 1);
    EXPECT_EQ(group[2], 0);
    EXPECT_EQ(group[3], 3);
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

/// A vehicle on lane A before a three-way fork 40 m ahead: left (a 8 m/s turn), straight on at the
/// road's 13.9 m/s, right (a 6.5 m/s turn), as a SUMO junction has them.
FrameVehicle forkAhead(float distance_m) {
    FrameVehicle vehicle;
    vehicle.speed_mps = 13.9F;
    addCorridor(vehicle, {LANE_A, 20});
    addCorridor(vehicle, {LANE_A, 21});
    addCorridor(vehicle, {LANE_A, 22});
    for (std::uint32_t k = 0; k < 3; ++k) {
        vehicle.corridors[k].limits.speedLimit_mps = 13.9F;
    }
    vehicle.corridors[0].limits.limitFrom_m[0] = distance_m;
    vehicle.corridors[0].limits.limitAfter_mps[0] = 8.0F;
    vehicle.corridors[2].limits.limitFrom_m[0] = distance_m;
    vehicle.corridors[2].limits.limitAfter_mps[0] = 6.5F;
    return vehicle;
}

/// The group's split after the filter's collapse onto straight on, for the evidence given.
std::array<float, 3> splitFor(const FrameVehicle& vehicle, const SlowingEvidence& evidence) {
    std::array<float, 3> likelihood{};
    slowingLikelihoods(vehicle, evidence, SlowingModel{}, likelihood);
    std::array<float, 3> p{0.0F, 1.0F, 0.0F};
    splitWithinGroups(vehicle, likelihood, p);
    EXPECT_NEAR(p[0] + p[1] + p[2], 1.0F, TOLERANCE);
    return p;
}

TEST(CorridorGroups, FarFromTheForkNoDriverBrakesYetAndThePriorSplitStands) {
    // 13.9 → 6.5 m/s over 120 m asks for 0.63 m/s², below the gentlest onset: only the few drivers who
    // brake for something unseen tell the corridors apart, by the braking each allows.
    const auto p = splitFor(forkAhead(120.0F), SlowingEvidence{13.9F, 0.0F, 0.3F, 0.0F});
    for (const float value : p) {
        EXPECT_NEAR(value, 1.0F / 3.0F, 0.01F);
    }
}

TEST(CorridorGroups, BrakingAsATurnAsksForMovesTheSplitToTheTurns) {
    // 20 m before the fork the right turn asks for 3.8 m/s², the left one for 3.2: a vehicle braking
    // at 3.5 is turning (straight on, only unexplained braking would explain it), one holding its speed
    // goes straight on.
    const auto braking = splitFor(forkAhead(20.0F), SlowingEvidence{13.9F, -3.5F, 0.3F, 0.0F});
    EXPECT_LT(braking[1], 0.1F);
    EXPECT_GT(braking[0], 0.3F);
    EXPECT_GT(braking[2], 0.3F);
    const auto holding = splitFor(forkAhead(20.0F), SlowingEvidence{13.9F, 0.0F, 0.3F, 0.0F});
    EXPECT_GT(holding[1], 0.5F);
    EXPECT_GT(holding[1], holding[0] + holding[2]);
}

TEST(CorridorGroups, AVehicleTooFastForATurnStillComfortablyAheadGoesStraightOn) {
    // 8 m before the fork: the turns ask for 8.1 and 9.4 m/s², beyond any driver's onset.
    const auto p = splitFor(forkAhead(8.0F), SlowingEvidence{13.9F, 0.0F, 0.3F, 0.0F});
    EXPECT_GT(p[1], 0.99F);
}

TEST(CorridorGroups, BrakingThatAStopOrTheVehicleAheadExplainsSaysNothingOfTheTurn) {
    const auto stopping = splitFor(forkAhead(20.0F), SlowingEvidence{13.9F, -3.5F, 0.3F, 1.0F});
    for (const float value : stopping) {
        EXPECT_NEAR(value, 1.0F / 3.0F, TOLERANCE);
    }
    // A vehicle 22 m ahead at 7 m/s asks every corridor for 3.6 m/s², about what the turns ask.
    FrameVehicle following = forkAhead(20.0F);
    for (std::uint32_t k = 0; k < 3; ++k) {
        following.corridors[k].limits.leadGap_m = 22.0F;
        following.corridors[k].limits.leadSpeed_mps = 7.0F;
    }
    const auto p = splitFor(following, SlowingEvidence{13.9F, -3.6F, 0.3F, 0.0F});
    EXPECT_GT(p[1], 0.25F);
    EXPECT_LT(p[1], 0.4F);
}

TEST(CorridorGroups, BrakingBelowATurnsSpeedIsExplainedWhereTheMapHasTheTurnYield) {
    // 6 m before the fork at 8.5 m/s, braking at 4.6 m/s²: the left turn (8 m/s) asks for 0.7 m/s², the
    // right one (6.5 m/s) for 2.5, so the right turn explains the braking best. A left turn that yields
    // to oncoming traffic 14 m ahead explains it too: a stop there asks for 3.1 m/s².
    FrameVehicle vehicle = forkAhead(6.0F);
    vehicle.speed_mps = 8.5F;
    const SlowingEvidence braking{8.5F, -4.6F, 0.3F, 0.0F};
    const auto mapSilent = splitFor(vehicle, braking);
    EXPECT_LT(mapSilent[0], 0.25F * mapSilent[2]);
    vehicle.corridors[0].yield_m = 14.0F;
    const auto yielding = splitFor(vehicle, braking);
    EXPECT_GT(yielding[0], 3.0F * mapSilent[0]);
    EXPECT_GT(yielding[0], 2.0F * yielding[1]);  // straight on explains it by unexplained braking only
    // Drivers who never slow for a yield point ahead: the map's yield says nothing.
    SlowingModel unready;
    unready.readyToYield = 0.0F;
    std::array<float, 3> likelihood{};
    slowingLikelihoods(vehicle, braking, unready, likelihood);
    std::array<float, 3> p{0.0F, 1.0F, 0.0F};
    splitWithinGroups(vehicle, likelihood, p);
    for (std::size_t k = 0; k < p.size(); ++k) {
        EXPECT_NEAR(p[k], mapSilent[k], TOLERANCE);
    }
}

TEST(CorridorGroups, EvidenceMovesTheSplitInsideAGroupOnly) {
    FrameVehicle vehicle = forkAhead(20.0F);
    addCorridor(vehicle, {LANE_B, 23}, true);  // a change to the left lane: its own group
    float likelihood[4]{};
    slowingLikelihoods(vehicle, SlowingEvidence{13.9F, -3.5F, 0.3F, 0.0F}, SlowingModel{}, likelihood);
    float p[] = {0.3F, 0.3F, 0.3F, 0.1F};
    splitWithinGroups(vehicle, likelihood, p);
    EXPECT_NEAR(p[0] + p[1] + p[2], 0.9F, TOLERANCE);
    EXPECT_NEAR(p[3], 0.1F, TOLERANCE);
    EXPECT_FLOAT_EQ(likelihood[3], 1.0F);  // alone in its group: the most likely of it
}

TEST(CorridorGroups, EvidenceItCannotWeighLeavesThePriorSplit) {
    const FrameVehicle vehicle = forkAhead(20.0F);
    for (const float accel : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity()}) {
        const auto p = splitFor(vehicle, SlowingEvidence{13.9F, accel, 0.3F, 0.0F});
        for (const float value : p) {
            EXPECT_NEAR(value, 1.0F / 3.0F, TOLERANCE);
        }
    }
    // A deceleration that no corridor explains: the likelihoods stay finite and the split sums to 1.
    const auto p = splitFor(vehicle, SlowingEvidence{13.9F, -60.0F, 0.1F, 0.0F});
    for (const float value : p) {
        EXPECT_TRUE(std::isfinite(value));
    }
}

/// The last cycle's corridors of a vehicle, for carryOver.
struct Before {
    std::uint32_t routes[MAX_CORRIDORS_PER_VEHICLE][FRAME_ROUTE_LANES]{};
    std::uint32_t routeLanes[MAX_CORRIDORS_PER_VEHICLE]{};
    float published[MAX_CORRIDORS_PER_VEHICLE]{};
    std::uint32_t count{0};
    void add(std::initializer_list<std::uint32_t> lanes, float probability) {
        for (const std::uint32_t lane : lanes) {
            routes[count][routeLanes[count]++] = lane;
        }
        published[count++] = probability;
    }
    [[nodiscard]] PreviousCorridors view() const { return PreviousCorridors{count, routes, routeLanes, published}; }
};

/// carryOver onto `vehicle` with its corridorPriors (no lane change prior in these routes' way).
std::array<float, MAX_CORRIDORS_PER_VEHICLE> carried(const Before& before, const FrameVehicle& vehicle) {
    std::array<float, MAX_CORRIDORS_PER_VEHICLE> prior{};
    std::array<float, MAX_CORRIDORS_PER_VEHICLE> out{};
    corridorPriors(vehicle, 0.1F, std::span<float>(prior.data(), vehicle.corridorCount));
    carryOver(before.view(), vehicle, std::span<const float>(prior.data(), vehicle.corridorCount),
              std::span<float>(out.data(), vehicle.corridorCount));
    return out;
}

TEST(CarryOver, CorridorsListedInAnotherOrderKeepTheirProbabilities) {
    // Entering a junction: the approach lane is behind, the corridors now start on the turns' lanes and
    // come in another order.
    Before before;
    before.add({LANE_A, 20, 30}, 0.04F);
    before.add({LANE_A, 21, 31}, 0.92F);
    before.add({LANE_A, 22, 23, 32}, 0.04F);
    FrameVehicle vehicle;
    addCorridor(vehicle, {22, 23, 32});
    addCorridor(vehicle, {21, 31});
    addCorridor(vehicle, {20, 30});
    const auto p = carried(before, vehicle);
    EXPECT_NEAR(p[0], 0.04F, TOLERANCE);
    EXPECT_NEAR(p[1], 0.92F, TOLERANCE);
    EXPECT_NEAR(p[2], 0.04F, TOLERANCE);
}

TEST(CarryOver, ABranchDroppedGivesItsProbabilityToTheRest) {
    Before before;
    before.add({20, 30}, 0.9F);
    before.add({21, 31}, 0.06F);
    before.add({22, 32}, 0.04F);
    FrameVehicle vehicle;  // the lane matching dropped the branch the vehicle did not take
    addCorridor(vehicle, {20, 30});
    addCorridor(vehicle, {21, 31});
    const auto p = carried(before, vehicle);
    EXPECT_NEAR(p[0], 0.9F / 0.96F, TOLERANCE);
    EXPECT_NEAR(p[1], 0.06F / 0.96F, TOLERANCE);
}

TEST(CarryOver, AForkComingIntoViewSplitsItsCorridorByTheRouteTree) {
    Before before;
    before.add({LANE_A, 20}, 0.8F);
    before.add({LANE_A, 21}, 0.2F);
    FrameVehicle vehicle;  // further on, the first corridor now reaches a two-way fork
    addCorridor(vehicle, {LANE_A, 20, 40});
    addCorridor(vehicle, {LANE_A, 20, 41});
    addCorridor(vehicle, {LANE_A, 21});
    const auto p = carried(before, vehicle);
    EXPECT_NEAR(p[0], 0.4F, TOLERANCE);
    EXPECT_NEAR(p[1], 0.4F, TOLERANCE);
    EXPECT_NEAR(p[2], 0.2F, TOLERANCE);
}

TEST(CarryOver, ACorridorThatContinuesNoneTakesItsPriorShare) {
    Before before;
    before.add({LANE_A, 20}, 0.7F);
    before.add({LANE_A, 21}, 0.3F);
    FrameVehicle vehicle;
    addCorridor(vehicle, {LANE_A, 20});
    addCorridor(vehicle, {LANE_A, 21});
    addCorridor(vehicle, {LANE_B, 25}, true);  // a lane change now in reach
    const auto p = carried(before, vehicle);
    // The lane change takes its prior (0.1); the others share the rest as they were.
    EXPECT_NEAR(p[2], 0.1F, TOLERANCE);
    EXPECT_NEAR(p[0], 0.9F * 0.7F, TOLERANCE);
    EXPECT_NEAR(p[1], 0.9F * 0.3F, TOLERANCE);
}

TEST(CarryOver, NothingIsCarriedOntoCorridorsThatContinueNone) {
    Before before;
    before.add({LANE_A, 20}, 1.0F);
    FrameVehicle vehicle;  // another road: nothing known about these
    addCorridor(vehicle, {50, 60});
    addCorridor(vehicle, {50, 61});
    const auto p = carried(before, vehicle);
    EXPECT_EQ(p[0], 0.0F);
    EXPECT_EQ(p[1], 0.0F);

    Before none;  // a new vehicle
    EXPECT_EQ(carried(none, vehicle)[0], 0.0F);
}

TEST(CarryOver, ARouteContinuesWhereItsFirstLaneIsOnTheOldOneAndTheRestAgrees) {
    const std::uint32_t before[] = {10, 20, 30};
    const std::uint32_t onward[] = {20, 30, 40};
    const std::uint32_t elsewhere[] = {20, 31};
    const std::uint32_t unknown[] = {99};
    EXPECT_TRUE(continuesRoute(before, 3, onward, 3));
    EXPECT_FALSE(continuesRoute(before, 3, elsewhere, 2));
    EXPECT_FALSE(continuesRoute(before, 3, unknown, 1));
    EXPECT_TRUE(continuesRoute(before, 0, unknown, 0));
}

}  // namespace
}  // namespace augur::runtime
