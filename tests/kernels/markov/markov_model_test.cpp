// The prediction model the runtime runs (docs/design/motion-prediction.md, "Predicting typical
// behaviour"): the mean-keeping initial speed and input distributions, the cruise-and-release input
// dynamics, the rules evaluated at the cells' representative speeds with the lead braking as comfortably as
// the follower — and what they predict at the runtime's default chain: a vehicle at the speed limit with
// nothing ahead keeps its speed, a standing one stays put, an accelerating one accelerates.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>
#include <vector>

#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/prediction.hpp"
#include "augur/kernels/markov/priority.hpp"
#include "markov_test_support.hpp"

namespace augur::kernels::markov {
namespace {

using testing::PredictionHarness;
using testing::predictionFor;

constexpr double PROBABILITY_TOLERANCE = 1e-5;
constexpr float STEP_S = 0.1F;
constexpr float RUNTIME_FREE_ROAD_EXPONENT = 4.0F;  // config/default.yaml's motion.free_road_exponent
constexpr float RUNTIME_PRESS_REACTION_S = 0.5F;    // config/default.yaml's motion.press_reaction_s

/// config/default.yaml's chain: 100 × 2 m, 10 speed cells up to 40 m/s (4.4 m/s), 7 inputs of ±8 m/s².
ChainConfig runtimeChain() {
    ChainConfig c;
    c.positionCells = 100;
    c.positionMax_m = 200.0F;
    c.speedCells = 10;
    c.speedMax_mps = 40.0F;
    c.inputCells = 7;
    c.accelMax_mps2 = 8.0F;
    c.step_s = STEP_S;
    c.samplesPerAxis = 10;
    return c;
}

/// runtime MotionStageSettings' ψ: cruise held 30 s, a pedal 2 s, surprises at 0.01 /s.
InputDynamics runtimePsi(int inputCells) {
    return relaxingInputDynamics(inputCells, STEP_S / 30.0F, STEP_S / 2.0F, 0.01F * STEP_S);
}

const MarkovChain& runtime() {
    static const MarkovChain chain = MarkovChain::build(runtimeChain()).value();
    return chain;
}

double expectedSpeed(const ChainConfig& c, float v0, float sd) {
    double sum = 0.0;
    double mean = 0.0;
    for (int iv = 0; iv < c.speedCells; ++iv) {
        const double p = initialSpeedProbability(c, iv, v0, sd);
        sum += p;
        mean += p * speedCellCentre_mps(iv, c);
    }
    EXPECT_NEAR(sum, 1.0, PROBABILITY_TOLERANCE) << "v0 " << v0 << " sd " << sd;
    return mean;
}

TEST(InitialSpeedProbability, KeepsTheEstimatedSpeedAsTheMeanBetweenCellCentres) {
    const ChainConfig c = runtimeChain();
    constexpr double MEAN_TOLERANCE_MPS = 1e-4;
    const float lastCentre = speedCellCentre_mps(c.speedCells - 1, c);
    for (const float sd : {0.0F, 0.3F, 1.0F}) {
        // Away from the grid's ends by 5σ the Gaussian's tails stay inside it.
        for (float v0 = 5.0F * sd; v0 <= lastCentre - 5.0F * sd; v0 += 0.37F) {
            EXPECT_NEAR(expectedSpeed(c, v0, sd), v0, MEAN_TOLERANCE_MPS) << "v0 " << v0 << " sd " << sd;
        }
    }
}

TEST(InitialSpeedProbability, WithoutSpreadIsTwoNeighbouringCellsOrOneAtItsCentre) {
    const ChainConfig c = runtimeChain();
    const float centre = speedCellCentre_mps(3, c);
    EXPECT_NEAR(initialSpeedProbability(c, 3, centre, 0.0F), 1.0F, PROBABILITY_TOLERANCE);
    EXPECT_NEAR(initialSpeedProbability(c, 4, centre, 0.0F), 0.0F, PROBABILITY_TOLERANCE);
    // A quarter of the way from centre 3 to centre 4.
    const float between = centre + 0.25F * speedCellSize_mps(c);
    EXPECT_NEAR(initialSpeedProbability(c, 3, between, 0.0F), 0.75F, PROBABILITY_TOLERANCE);
    EXPECT_NEAR(initialSpeedProbability(c, 4, between, 0.0F), 0.25F, PROBABILITY_TOLERANCE);
    EXPECT_NEAR(initialSpeedProbability(c, 0, -1.0F, 0.0F), 1.0F, PROBABILITY_TOLERANCE);  // below standstill
    EXPECT_NEAR(initialSpeedProbability(c, c.speedCells - 1, 2.0F * c.speedMax_mps, 0.0F), 1.0F, PROBABILITY_TOLERANCE);
}

TEST(EvidentAcceleration, AnEstimateWithinItsDeviationIsNoiseAndALargeOneKeepsMostOfItsValue) {
    constexpr float SD_MPS2 = 0.8F;  // the runtime's tracker in steady state
    EXPECT_FLOAT_EQ(evidentAcceleration(0.0F, SD_MPS2), 0.0F);
    EXPECT_FLOAT_EQ(evidentAcceleration(0.7F, SD_MPS2), 0.0F);
    EXPECT_FLOAT_EQ(evidentAcceleration(-0.8F, SD_MPS2), 0.0F);
    EXPECT_NEAR(evidentAcceleration(-1.0F, SD_MPS2), -0.36F, 1e-5F);
    EXPECT_NEAR(evidentAcceleration(2.6F, SD_MPS2), 2.354F, 1e-3F);  // a car pulling away
    for (float a = 0.05F; a < 6.0F; a += 0.05F) {  // odd, below |a| in size, and growing with it
        EXPECT_FLOAT_EQ(evidentAcceleration(-a, SD_MPS2), -evidentAcceleration(a, SD_MPS2));
        EXPECT_LE(evidentAcceleration(a, SD_MPS2), a);
        EXPECT_GE(evidentAcceleration(a + 0.05F, SD_MPS2), evidentAcceleration(a, SD_MPS2));
    }
    EXPECT_FLOAT_EQ(evidentAcceleration(0.3F, 0.0F), 0.3F) << "an exact estimate is all evidence";
}

TEST(InputDistribution, MeanIsTheTrackedAccelerationAndTheWeightsSumToOne) {
    const ChainConfig c = runtimeChain();
    constexpr double MEAN_TOLERANCE_MPS2 = 1e-4;
    std::vector<float> p(static_cast<std::size_t>(c.inputCells));
    for (const float sd : {0.0F, 0.5F}) {
        for (float a0 = -c.accelMax_mps2 + 4.0F * sd; a0 <= c.accelMax_mps2 - 4.0F * sd; a0 += 0.61F) {
            inputDistribution(c, a0, sd, p.data());
            double mean = 0.0;
            for (int j = 0; j < c.inputCells; ++j) {
                mean += p[static_cast<std::size_t>(j)] * c.accelMax_mps2 * inputValue(j, c.inputCells);
            }
            EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0), 1.0, PROBABILITY_TOLERANCE);
            EXPECT_NEAR(mean, a0, MEAN_TOLERANCE_MPS2) << "a0 " << a0 << " sd " << sd;
        }
    }
}

TEST(InputDistribution, ZeroAccelerationWithoutSpreadIsAllCruise) {
    const ChainConfig c = runtimeChain();
    std::vector<float> p(static_cast<std::size_t>(c.inputCells));
    constexpr int CRUISE = 3;  // u = 0 of seven inputs

    inputDistribution(c, 0.0F, 0.0F, p.data());

    for (int j = 0; j < c.inputCells; ++j) {
        EXPECT_NEAR(p[static_cast<std::size_t>(j)], j == CRUISE ? 1.0F : 0.0F, PROBABILITY_TOLERANCE) << j;
    }
}

TEST(InputDistribution, AccelerationBeyondTheInputsTakesTheExtremeInput) {
    const ChainConfig c = runtimeChain();
    std::vector<float> p(static_cast<std::size_t>(c.inputCells));

    inputDistribution(c, -3.0F * c.accelMax_mps2, 0.0F, p.data());

    EXPECT_NEAR(p[0], 1.0F, PROBABILITY_TOLERANCE);
}

/// ψ's column u' as a vector.
std::vector<float> column(const InputDynamics& psi, int na, int up) {
    std::vector<float> out(static_cast<std::size_t>(na));
    for (int u = 0; u < na; ++u) {
        out[static_cast<std::size_t>(u)] = psi.psi[u * na + up];
    }
    return out;
}

TEST(RelaxingInputDynamics, IsColumnStochasticForEveryInputCount) {
    for (int na = 1; na <= MAX_INPUT_CELLS; ++na) {
        const InputDynamics sut = relaxingInputDynamics(na, 0.05F, 0.1F, 0.02F);
        for (int up = 0; up < na; ++up) {
            const auto col = column(sut, na, up);
            EXPECT_NEAR(std::accumulate(col.begin(), col.end(), 0.0), 1.0, PROBABILITY_TOLERANCE) << na << "," << up;
            for (const float v : col) {
                EXPECT_GE(v, 0.0F);
            }
        }
    }
}

TEST(RelaxingInputDynamics, CruiseDepartsToItsNeighboursAndPedalsReleaseToCruiseFasterTheHarderTheyAre) {
    constexpr int NA = 7;
    constexpr int CRUISE = 3;
    constexpr float DEPART = 0.04F;
    constexpr float RELAX = 0.05F;
    const InputDynamics sut = relaxingInputDynamics(NA, DEPART, RELAX, 0.0F);

    const auto fromCruise = column(sut, NA, CRUISE);
    EXPECT_FLOAT_EQ(fromCruise[CRUISE], 1.0F - DEPART);
    EXPECT_FLOAT_EQ(fromCruise[CRUISE - 1], 0.5F * DEPART);
    EXPECT_FLOAT_EQ(fromCruise[CRUISE + 1], 0.5F * DEPART);
    EXPECT_FLOAT_EQ(fromCruise[0], 0.0F);  // no surprise: the far inputs are not reached
    for (int level = 1; level <= 3; ++level) {
        const float release = RELAX * static_cast<float>(level * level);
        for (const int up : {CRUISE - level, CRUISE + level}) {
            const auto col = column(sut, NA, up);
            EXPECT_FLOAT_EQ(col[CRUISE], release) << up;
            EXPECT_FLOAT_EQ(col[static_cast<std::size_t>(up)], 1.0F - release) << up;
        }
    }
}

TEST(RelaxingInputDynamics, SurpriseReachesEveryInputFromEveryInput) {
    constexpr int NA = 7;
    constexpr float SURPRISE = 0.07F;
    const InputDynamics sut = relaxingInputDynamics(NA, 0.0F, 0.0F, SURPRISE);
    for (int up = 0; up < NA; ++up) {
        for (int u = 0; u < NA; ++u) {
            EXPECT_GE(sut.psi[u * NA + up], SURPRISE / NA - 1e-7F) << u << "," << up;
        }
    }
}

TEST(RelaxingInputDynamics, EvenInputCountsCruiseOnBothMiddleInputs) {
    constexpr int NA = 6;
    constexpr float RELAX = 0.1F;
    const InputDynamics sut = relaxingInputDynamics(NA, 0.0F, RELAX, 0.0F);
    EXPECT_FLOAT_EQ(sut.psi[2 * NA + 2], 1.0F);  // middle inputs stay without departures
    EXPECT_FLOAT_EQ(sut.psi[3 * NA + 3], 1.0F);
    EXPECT_FLOAT_EQ(sut.psi[2 * NA + 1], RELAX);  // one below releases to the lower middle one
    EXPECT_FLOAT_EQ(sut.psi[3 * NA + 4], RELAX);  // one above to the upper middle one
}

TEST(LeadAt, KeepsItsAccelerationUntilItStandsOrReachesTheFastestLimit) {
    CorridorConstraints k{};
    k.leadGap_m = 10.0F;
    k.leadSpeed_mps = 5.0F;
    LeadState sut = leadAt(2.0F, k);
    EXPECT_FLOAT_EQ(sut.rear_m, 20.0F) << "no acceleration: its speed now";
    EXPECT_FLOAT_EQ(sut.speed_mps, 5.0F);
    // Leaving a turn (limit 7) onto a road of 13: at 2 m/s² it reaches 13 m/s after 4 s and holds it.
    k.speedLimit_mps = 7.0F;
    k.limitFrom_m[0] = 15.0F;
    k.limitAfter_mps[0] = 13.0F;
    k.leadAccel_mps2 = 2.0F;
    sut = leadAt(2.0F, k);
    EXPECT_FLOAT_EQ(sut.speed_mps, 9.0F);
    EXPECT_FLOAT_EQ(sut.rear_m, 10.0F + 10.0F + 4.0F);
    sut = leadAt(6.0F, k);
    EXPECT_FLOAT_EQ(sut.speed_mps, 13.0F);
    EXPECT_FLOAT_EQ(sut.rear_m, 10.0F + 20.0F + 16.0F + 13.0F * 2.0F);
    // Braking at 2 m/s² from 5 m/s: it stands after 2.5 s, 6.25 m on, and stays there.
    k.leadAccel_mps2 = -2.0F;
    sut = leadAt(4.0F, k);
    EXPECT_FLOAT_EQ(sut.speed_mps, 0.0F);
    EXPECT_FLOAT_EQ(sut.rear_m, 16.25F);
    // Without any limit it keeps accelerating.
    k = CorridorConstraints{};
    k.leadGap_m = 10.0F;
    k.leadSpeed_mps = 5.0F;
    k.leadAccel_mps2 = 1.0F;
    sut = leadAt(4.0F, k);
    EXPECT_FLOAT_EQ(sut.speed_mps, 9.0F);
    EXPECT_FLOAT_EQ(sut.rear_m, 10.0F + 20.0F + 8.0F);
}

TEST(BindingLimit, IsTheFastestSpeedFromWhichEveryLowerLimitAheadCanStillBeMetComfortably) {
    constexpr float COMFORT_MPS2 = 3.0F;
    CorridorConstraints k{};
    k.speedLimit_mps = 11.1F;
    EXPECT_FLOAT_EQ(bindingLimit_mps(k, COMFORT_MPS2), 11.1F) << "nothing ahead: the limit here";
    // A turn limited to 7.1 m/s 4.7 m ahead: from √(7.1² + 2·3·4.7) = 8.87 m/s a driver just slows in time.
    k.limitFrom_m[0] = 4.7F;
    k.limitAfter_mps[0] = 7.1F;
    EXPECT_NEAR(bindingLimit_mps(k, COMFORT_MPS2), std::sqrt(7.1F * 7.1F + 2.0F * COMFORT_MPS2 * 4.7F), 1e-4F);
    // Then the road after the turn at 13.9 m/s: a higher limit binds nothing.
    k.limitFrom_m[1] = 20.0F;
    k.limitAfter_mps[1] = 13.9F;
    EXPECT_NEAR(bindingLimit_mps(k, COMFORT_MPS2), std::sqrt(7.1F * 7.1F + 2.0F * COMFORT_MPS2 * 4.7F), 1e-4F);
    // A turn far enough ahead leaves the limit here binding.
    k.limitFrom_m[0] = 60.0F;
    k.limitFrom_m[1] = 80.0F;
    EXPECT_FLOAT_EQ(bindingLimit_mps(k, COMFORT_MPS2), 11.1F);
    // Already in the slower stretch: its limit.
    k.limitFrom_m[0] = 0.0F;
    EXPECT_FLOAT_EQ(bindingLimit_mps(k, COMFORT_MPS2), 7.1F);
}

TEST(TypicalBehaviourRule, AFollowerAtItsHeadwayBehindAComfortableLeadCruises) {
    const ChainConfig c = runtimeChain();
    constexpr int CRUISE = 3;
    constexpr int SPEED_CELL = 5;  // (17.8, 22.2] m/s: a vehicle at 20 m/s is mostly here
    const float vFar = speedCellUpper_mps(SPEED_CELL, c);
    const float vRepresentative = speedCellCentre_mps(SPEED_CELL, c);
    const float vSlowest = vFar - speedCellSize_mps(c);
    CorridorConstraints follow{};
    follow.leadSpeed_mps = vRepresentative;
    follow.leadGap_m = 1.5F * vRepresentative;  // 1.5 s behind a lead at the same speed
    PriorityRules conservative{};
    PriorityRules typical{};
    typical.speed = RuleSpeed::Typical;
    constexpr float NOW_S = 0.0F;
    constexpr float FAR_CORNER_OF_FIRST_CELL_M = 2.0F;

    // The far corner (22.2 m/s) with a lead that may brake at a_max asks for 40 m more than the gap.
    EXPECT_EQ(priority(FAR_CORNER_OF_FIRST_CELL_M, vFar, CRUISE, NOW_S, follow, conservative, c), 0.0F);
    follow.leadDecel_mps2 = typical.comfortDecel_mps2;
    EXPECT_EQ(priority(FAR_CORNER_OF_FIRST_CELL_M, vFar, CRUISE, NOW_S, follow, typical, c), 1.0F);
    // Closer than minGap + headway behind a lead no faster than the cell's slowest speed: braking.
    follow.leadSpeed_mps = vSlowest;
    follow.leadGap_m = typical.minGap_m;
    EXPECT_EQ(priority(FAR_CORNER_OF_FIRST_CELL_M, vFar, CRUISE, NOW_S, follow, typical, c), 0.0F);
}

TEST(TypicalBehaviourRule, SpeedLimitIsJudgedAtTheRepresentativeSpeed) {
    const ChainConfig c = runtimeChain();
    constexpr int ACCELERATE = 4;  // +2.7 m/s²
    constexpr int SPEED_CELL = 5;  // (17.8, 22.2] m/s, representative 20 m/s
    CorridorConstraints limit{};
    limit.speedLimit_mps = 22.2F;
    PriorityRules typical{};
    typical.speed = RuleSpeed::Typical;
    const float vFar = speedCellUpper_mps(SPEED_CELL, c);

    EXPECT_EQ(priority(0.0F, vFar, ACCELERATE, 0.0F, limit, PriorityRules{}, c), 0.0F);
    EXPECT_EQ(priority(0.0F, vFar, ACCELERATE, 0.0F, limit, typical, c), 1.0F);  // 20 + 0.27 m/s ≤ 22.2
    EXPECT_EQ(priority(0.0F, speedCellUpper_mps(SPEED_CELL + 1, c), ACCELERATE, 0.0F, limit, typical, c), 0.0F);
}

TEST(TypicalBehaviourRule, TheSpeedLimitIsTheOneWhereTheCellIs) {
    const ChainConfig c = runtimeChain();
    constexpr int ACCELERATE = 4;   // +2.7 m/s²
    constexpr int CRUISE = 3;
    constexpr int SPEED_CELL = 3;   // (8.9, 13.3] m/s, representative 11.1 m/s
    constexpr float CHANGE_AT_M = 20.0F;
    CorridorConstraints k{};
    k.speedLimit_mps = 6.0F;          // a turn through a junction …
    k.limitFrom_m[0] = CHANGE_AT_M;   // … then the road after it
    k.limitAfter_mps[0] = 13.89F;
    PriorityRules typical{};
    typical.speed = RuleSpeed::Typical;
    const float vFar = speedCellUpper_mps(SPEED_CELL, c);
    EXPECT_EQ(priority(CHANGE_AT_M - 1.0F, vFar, ACCELERATE, 0.0F, k, typical, c), 0.0F);
    EXPECT_EQ(priority(CHANGE_AT_M - 1.0F, vFar, CRUISE, 0.0F, k, typical, c), 1.0F) << "holding a speed stays allowed";
    EXPECT_EQ(priority(CHANGE_AT_M, vFar, ACCELERATE, 0.0F, k, typical, c), 1.0F);
}

TEST(TypicalBehaviourRule, OnlyInputsThatCannotSlowComfortablyForALowerLimitAheadAreRuledOut) {
    const ChainConfig c = runtimeChain();
    constexpr int CRUISE = 3;
    constexpr int SPEED_CELL = 3;  // moves at 11.1 m/s, keeps the distances of 8.9 m/s
    CorridorConstraints k{};
    k.speedLimit_mps = 13.89F;
    k.limitAfter_mps[0] = 4.0F;
    PriorityRules typical{};
    typical.speed = RuleSpeed::Typical;
    const float vFar = speedCellUpper_mps(SPEED_CELL, c);
    const PriorityTerms cruise = priorityTerms(vFar, CRUISE, typical, c);
    const float slowing_m = cruise.stopReach_m * (1.0F - 16.0F / (cruise.nextSpeed_mps * cruise.nextSpeed_mps));
    k.limitFrom_m[0] = cruise.displacement_m + slowing_m + 0.5F;  // just far enough
    EXPECT_EQ(priority(0.0F, vFar, CRUISE, 0.0F, k, typical, c), 1.0F);
    k.limitFrom_m[0] = cruise.displacement_m + slowing_m - 0.5F;  // too near to slow comfortably at cruise
    EXPECT_EQ(priority(0.0F, vFar, CRUISE, 0.0F, k, typical, c), 0.0F);
    EXPECT_EQ(priority(0.0F, vFar, 0, 0.0F, k, typical, c), 1.0F) << "the strongest braking is always allowed";
    k.limitAfter_mps[0] = 12.0F;  // above v': nothing to slow for
    EXPECT_EQ(priority(0.0F, vFar, CRUISE, 0.0F, k, typical, c), 1.0F);
}

TEST(TypicalBehaviourRule, AClassTopAccelerationForbidsAcceleratingPastTheSpeedItCouldHaveReached) {
    const ChainConfig c = runtimeChain();
    PriorityRules typical;
    typical.speed = RuleSpeed::Typical;
    const int probe = gentlestAcceleration(c.inputCells);
    CorridorConstraints k{};
    k.speedLimit_mps = 30.0F;
    k.startSpeed_mps = 10.0F;
    const float vFar = speedCellUpper_mps(3, c);  // representative 11.1 m/s, 11.1 + 0.27 after the step
    EXPECT_EQ(priority(0.0F, vFar, probe, 0.5F, k, typical, c), 1.0F);  // no bound: a car
    k.topAccel_mps2 = 1.5F;
    // At 0.5 s the class can be at 10 + 1.5·0.6 = 10.9 m/s by the step's end: accelerating is forbidden,
    // holding the speed is not; at 1.5 s (12.4 m/s) both are allowed.
    EXPECT_EQ(priority(0.0F, vFar, probe, 0.5F, k, typical, c), 0.0F);
    EXPECT_EQ(priority(0.0F, vFar, probe - 1, 0.5F, k, typical, c), 1.0F);
    EXPECT_EQ(priority(0.0F, vFar, probe, 1.5F, k, typical, c), 1.0F);
    EXPECT_FLOAT_EQ(stepBounds(0.5F, k, c).reachableSpeed_mps, 10.0F + 1.5F * (0.5F + c.step_s));
    k.topAccel_mps2 = 0.0F;
    EXPECT_EQ(stepBounds(0.5F, k, c).reachableSpeed_mps, NO_LIMIT);
}

TEST(TypicalBehaviourRule, LeadDecelerationZeroMeansTheStrongestInput) {
    const ChainConfig c = runtimeChain();
    CorridorConstraints k{};
    k.leadGap_m = 10.0F;
    k.leadSpeed_mps = 12.0F;
    constexpr float TIME_S = 1.0F;
    const float byAMax = stepBounds(TIME_S, k, c).leadReach_m;
    k.leadDecel_mps2 = c.accelMax_mps2;
    EXPECT_FLOAT_EQ(stepBounds(TIME_S, k, c).leadReach_m, byAMax);
    k.leadDecel_mps2 = 3.0F;
    EXPECT_FLOAT_EQ(stepBounds(TIME_S, k, c).leadReach_m, 10.0F + 12.0F * (TIME_S + c.step_s) + 144.0F / 6.0F);
}

/// One straight corridor on the runtime's chain with the runtime's ψ and rules; the vehicle at the centre
/// of the first position cell (as the motion stage places it).
/// The runtime's rules on `harness`, and its first corridor set up as the motion stage does for a vehicle
/// at v0_mps with the tracked acceleration a0_mps2 on a road of speedLimit_mps (the rest of its constraints
/// are the caller's).
CorridorInput& runtimeCorridor(PredictionHarness& harness, float v0_mps, float a0_mps2, float speedLimit_mps,
                               float pressReaction_s = RUNTIME_PRESS_REACTION_S) {
    harness.config.rules.speed = RuleSpeed::Typical;
    harness.config.rules.freeRoadExponent = RUNTIME_FREE_ROAD_EXPONENT;
    harness.config.rules.pressReaction_s = pressReaction_s;
    CorridorInput& in = harness.corridors[0];
    in.initialSpeed_mps = v0_mps;
    in.initialSpeedStd_mps = 0.2F;
    inputDistribution(harness.chainConfig, a0_mps2, 0.0F, in.initialInput);
    in.constraints.speedLimit_mps = speedLimit_mps;
    in.constraints.leadDecel_mps2 = harness.config.rules.comfortDecel_mps2;
    in.constraints.startSpeed_mps = v0_mps;
    return in;
}

struct RuntimeRun {
    PredictionHarness harness{runtimeChain(), predictionFor(1), 1};
    float halfCell_m = 0.5F * positionCellSize_m(runtimeChain());

    /// `limitFrom_m` / `limitAfter_mps`: one change of the speed limit, from the vehicle's position.
    RuntimeRun(float v0_mps, float a0_mps2, float speedLimit_mps, float leadGap_m = NO_LIMIT, float leadSpeed_mps = 0.0F,
               float limitFrom_m = NO_LIMIT, float limitAfter_mps = NO_LIMIT, float pressReaction_s = RUNTIME_PRESS_REACTION_S) {
        CorridorInput& in = runtimeCorridor(harness, v0_mps, a0_mps2, speedLimit_mps, pressReaction_s);
        // As the motion stage does: distances from the vehicle, which sits at the first cell's centre.
        in.constraints.leadGap_m = leadGap_m + halfCell_m;
        in.constraints.leadSpeed_mps = leadSpeed_mps;
        in.constraints.limitFrom_m[0] = limitFrom_m + halfCell_m;
        in.constraints.limitAfter_mps[0] = limitAfter_mps;
        // As the motion stage sets them: standing, and the driver's fraction of the limit where it is.
        in.constraints.standing = v0_mps == 0.0F && a0_mps2 == 0.0F;
        in.constraints.desiredSpeedFactor = std::min(v0_mps / speedLimit_mps, 1.5F);
        harness.run(runtime(), runtimePsi(harness.chainConfig.inputCells));
    }
    /// Mean distance travelled after step t.
    [[nodiscard]] float travelled_m(int t) const { return harness.pointAt(0, t).sMean_m - halfCell_m; }
    [[nodiscard]] float meanSpeed_mps(int t) const {
        double v = 0.0;
        const float* p = harness.speedAt(0, t);
        for (int iv = 0; iv < harness.chainConfig.speedCells; ++iv) {
            v += p[iv] * speedCellCentre_mps(iv, harness.chainConfig);
        }
        return static_cast<float>(v);
    }
};

TEST(MarkovPrediction, VehicleCruisingAtTheSpeedLimitWithNothingAheadKeepsItsSpeed) {
    constexpr int LAST_STEP = 39;  // 4 s
    constexpr float HORIZON_S = 4.0F;
    constexpr float SPEED_TOLERANCE_MPS = 0.5F;
    constexpr float DISTANCE_TOLERANCE_M = 1.5F;
    // Ring of a roundabout, town, rural road, motorway: each at its own limit.
    for (const float limit : {8.33F, 13.89F, 22.22F, 33.33F}) {
        const RuntimeRun sut(limit, 0.0F, limit);
        EXPECT_NEAR(sut.meanSpeed_mps(LAST_STEP), limit, SPEED_TOLERANCE_MPS) << "limit " << limit;
        EXPECT_NEAR(sut.travelled_m(LAST_STEP), limit * HORIZON_S, DISTANCE_TOLERANCE_M) << "limit " << limit;
    }
}

TEST(MarkovPrediction, VehicleSlowsComfortablyForALowerLimitAheadAndNotBefore) {
    constexpr int LAST_STEP = 39;
    constexpr float SPEED_MPS = 13.6F;
    constexpr float TURN_AT_M = 40.0F;  // a turn through a junction, limited to a third of the road's speed
    constexpr float TURN_LIMIT_MPS = 4.5F;
    const RuntimeRun sut(SPEED_MPS, 0.0F, 13.89F, NO_LIMIT, 0.0F, TURN_AT_M, TURN_LIMIT_MPS);
    const RuntimeRun straight(SPEED_MPS, 0.0F, 13.89F);
    // Braking from 13.6 to 4.5 m/s at 3 m/s² takes 27.5 m: the first second (13.6 m) is cruise.
    EXPECT_NEAR(sut.travelled_m(9), straight.travelled_m(9), 1.0F) << "no braking while the turn is far";
    EXPECT_LT(sut.meanSpeed_mps(LAST_STEP), TURN_LIMIT_MPS + speedCellSize_mps(runtimeChain()));
    EXPECT_LT(sut.travelled_m(LAST_STEP), straight.travelled_m(LAST_STEP) - 10.0F);
    EXPECT_GT(sut.travelled_m(LAST_STEP), TURN_AT_M) << "it slows for the turn, it does not stop before it";
}

TEST(MarkovPrediction, StandingVehicleStaysNearlyPut) {
    constexpr int LAST_STEP = 39;
    constexpr float MAX_CREEP_M = 1.5F;  // departures from cruise: ~12 % of drivers press a pedal within 4 s
    const RuntimeRun sut(0.0F, 0.0F, 13.89F);
    EXPECT_LT(sut.travelled_m(LAST_STEP), MAX_CREEP_M);
    EXPECT_GE(sut.travelled_m(LAST_STEP), 0.0F);
}

TEST(MarkovPrediction, AcceleratingVehicleGainsSpeedUntilTheLimit) {
    constexpr int ONE_SECOND = 9;
    constexpr int LAST_STEP = 39;
    constexpr float V0_MPS = 5.0F;
    constexpr float A0_MPS2 = 2.6F;  // a car pulling away
    constexpr float LIMIT_MPS = 13.89F;
    const RuntimeRun sut(V0_MPS, A0_MPS2, LIMIT_MPS);
    const RuntimeRun cruising(V0_MPS, 0.0F, LIMIT_MPS);
    EXPECT_GT(sut.meanSpeed_mps(ONE_SECOND), V0_MPS + 1.0F);
    EXPECT_GT(sut.travelled_m(LAST_STEP), cruising.travelled_m(LAST_STEP) + 5.0F);
    EXPECT_LT(sut.meanSpeed_mps(LAST_STEP), LIMIT_MPS + 0.5F * speedCellSize_mps(runtimeChain()));
}

TEST(MarkovPrediction, VehicleLeavingATurnRegainsTheRoadsSpeedAndDoesNotOvershoot) {
    constexpr int LAST_STEP = 39;
    constexpr float HORIZON_S = 4.0F;
    constexpr float TURN_LIMIT_MPS = 6.5F;  // in a turn at its limit; the road after it from 5 m on
    constexpr float ROAD_LIMIT_MPS = 13.89F;
    const RuntimeRun sut(TURN_LIMIT_MPS, 0.0F, TURN_LIMIT_MPS, NO_LIMIT, 0.0F, 5.0F, ROAD_LIMIT_MPS);
    // IDM with a = 2.7 m/s², δ = 4 is back near 13 m/s within 4 s.
    EXPECT_GT(sut.meanSpeed_mps(LAST_STEP), TURN_LIMIT_MPS + 3.0F);
    EXPECT_LT(sut.meanSpeed_mps(LAST_STEP), ROAD_LIMIT_MPS + 0.5F * speedCellSize_mps(runtimeChain()));
    EXPECT_GT(sut.travelled_m(LAST_STEP), TURN_LIMIT_MPS * HORIZON_S + 5.0F);
}

/// Mean travel at 4 s of a vehicle at `speed_mps` evidently speeding up at 1.2 m/s² on a free road with
/// `limit_mps`, as the motion stage sets it up (a driver still speeding up wishes for at least the limit),
/// with its class's top acceleration (0: none).
float speedingUpTravel_m(float speed_mps, float limit_mps, float topAccel_mps2) {
    constexpr int LAST_STEP = 39;
    PredictionHarness harness{runtimeChain(), predictionFor(1), 1};
    CorridorInput& in = runtimeCorridor(harness, speed_mps, 1.2F, limit_mps);
    in.constraints.desiredSpeedFactor = 1.0F;
    in.constraints.topAccel_mps2 = topAccel_mps2;
    harness.run(runtime(), runtimePsi(harness.chainConfig.inputCells));
    return harness.pointAt(0, LAST_STEP).sMean_m - 0.5F * positionCellSize_m(runtimeChain());
}

TEST(MarkovPrediction, AHeavyVehicleSpeedingUpIsNoFasterThanItsTopAccelerationAllows) {
    constexpr float HORIZON_S = 4.0F;
    constexpr float TOP_ACCEL_MPS2 = 1.5F;  // a bus (config/default.yaml's motion.top_accel_mps2)
    // A car presses on at the chain's inputs (2.67 m/s² and up); the bus is held to at most its speed now
    // + 1.5 m/s²·t, which its 4.4 m/s speed cells follow to within a metre at 4 s.
    for (const auto& [speed, limit] : {std::pair{5.0F, 13.89F}, std::pair{15.0F, 27.78F}, std::pair{20.0F, 27.78F}}) {
        const float bound_m = speed * HORIZON_S + 0.5F * TOP_ACCEL_MPS2 * HORIZON_S * HORIZON_S;
        const float bus = speedingUpTravel_m(speed, limit, TOP_ACCEL_MPS2);
        const float car = speedingUpTravel_m(speed, limit, 0.0F);
        EXPECT_LT(bus, bound_m + 1.0F) << "speed " << speed;
        EXPECT_GT(bus, speed * HORIZON_S + 2.0F) << "speed " << speed;  // it still speeds up
        EXPECT_GT(car, bus + 5.0F) << "speed " << speed;
    }
}

TEST(MarkovPrediction, VehicleCruisingBelowOrAboveTheLimitKeepsItsOwnSpeed) {
    constexpr int LAST_STEP = 39;
    constexpr float HORIZON_S = 4.0F;
    // A driver who chose 80 % of the motorway's limit, and one at 60 % of a town's: each keeps its speed,
    // it is not pulled up to the limit (the slower of the two cells its speed is spread over is lifted
    // towards its own speed only). 10 % over a motorway's and a town's limit: holding a speed above the
    // limit is allowed, and the driver's wish is its own speed.
    for (const auto& [speed, limit] : {std::pair{26.7F, 33.33F}, std::pair{8.3F, 13.89F}, std::pair{30.5F, 27.78F},
                                       std::pair{15.3F, 13.89F}}) {
        const RuntimeRun sut(speed, 0.0F, limit);
        EXPECT_NEAR(sut.meanSpeed_mps(LAST_STEP), speed, 0.5F) << "speed " << speed;
        EXPECT_NEAR(sut.travelled_m(LAST_STEP), speed * HORIZON_S, 1.5F) << "speed " << speed;
    }
}

TEST(MarkovPrediction, WithoutTheFreeRoadRuleAVehicleLeavingATurnHoldsItsSpeed) {
    constexpr int LAST_STEP = 39;
    constexpr float V0_MPS = 6.5F;
    PredictionHarness harness{runtimeChain(), predictionFor(1), 1};
    harness.config.rules.speed = RuleSpeed::Typical;
    harness.config.rules.freeRoadExponent = 0.0F;
    CorridorInput& in = harness.corridors[0];
    in.initialSpeed_mps = V0_MPS;
    in.initialSpeedStd_mps = 0.2F;
    inputDistribution(harness.chainConfig, 0.0F, 0.0F, in.initialInput);
    const float halfCell_m = 0.5F * positionCellSize_m(runtimeChain());
    in.constraints.speedLimit_mps = V0_MPS;
    in.constraints.limitFrom_m[0] = 5.0F + halfCell_m;
    in.constraints.limitAfter_mps[0] = 13.89F;
    harness.run(runtime(), runtimePsi(harness.chainConfig.inputCells));
    EXPECT_NEAR(harness.pointAt(0, LAST_STEP).sMean_m - halfCell_m, V0_MPS * 4.0F, 1.5F);
}

TEST(MarkovPrediction, VehicleApproachingAnExpectedStopDoesNotSpeedUpTowardsIt) {
    constexpr int ONE_SECOND = 9;
    constexpr int LAST_STEP = 39;
    constexpr float V0_MPS = 8.0F;
    constexpr float STOP_AT_M = 40.0F;  // a red light 5 s ahead at the current speed
    PredictionHarness harness{runtimeChain(), predictionFor(1), 1};
    harness.config.rules.speed = RuleSpeed::Typical;
    harness.config.rules.freeRoadExponent = RUNTIME_FREE_ROAD_EXPONENT;
    CorridorInput& in = harness.corridors[0];
    in.initialSpeed_mps = V0_MPS;
    in.initialSpeedStd_mps = 0.2F;
    inputDistribution(harness.chainConfig, 0.0F, 0.0F, in.initialInput);
    in.constraints.speedLimit_mps = 13.89F;
    const float halfCell_m = 0.5F * positionCellSize_m(runtimeChain());
    in.constraints.stopDistance_m = STOP_AT_M + halfCell_m;
    in.constraints.stopProbability = 1.0F;
    harness.run(runtime(), runtimePsi(harness.chainConfig.inputCells));
    EXPECT_LT(harness.pointAt(0, ONE_SECOND).sMean_m - halfCell_m, V0_MPS * 1.0F + 0.5F);
    EXPECT_LT(harness.pointAt(0, LAST_STEP).sMean_m - halfCell_m, STOP_AT_M);
}

TEST(MarkovPrediction, VehicleFollowingItsLeadAtASafeHeadwayKeepsTheLeadsSpeed) {
    constexpr int LAST_STEP = 39;
    constexpr float HORIZON_S = 4.0F;
    constexpr float HEADWAY_S = 1.5F;
    constexpr float DISTANCE_TOLERANCE_M = 2.0F;
    // Speeds in the lower half of their speed cell. A vehicle in the upper half of a cell (8 m/s in
    // (4.4, 8.9]) is carried partly by the next cell, whose slowest speed is faster than the lead: that
    // part closes in and brakes, and the mean falls behind (about 5 m at 8 m/s; docs/design/motion-prediction.md).
    for (const float speed : {13.6F, 22.0F}) {
        const RuntimeRun sut(speed, 0.0F, 1.2F * speed, HEADWAY_S * speed, speed);
        EXPECT_NEAR(sut.travelled_m(LAST_STEP), speed * HORIZON_S, DISTANCE_TOLERANCE_M) << "speed " << speed;
    }
}

/// A follower 4 m behind a lead in a queue that moves off: both at 5 m/s, both speeding up at 2 m/s² (the
/// evidence in their tracks), a 13.89 m/s road. Returns the follower's mean travel at 4 s with the lead's
/// acceleration known (`leadAccel_mps2`) or not (0).
float queueFollowerTravel_m(float leadAccel_mps2) {
    PredictionHarness harness{runtimeChain(), predictionFor(1), 1};
    harness.config.rules.speed = RuleSpeed::Typical;
    harness.config.rules.freeRoadExponent = RUNTIME_FREE_ROAD_EXPONENT;
    harness.config.rules.pressReaction_s = RUNTIME_PRESS_REACTION_S;
    CorridorInput& in = harness.corridors[0];
    in.initialSpeed_mps = 5.0F;
    in.initialSpeedStd_mps = 0.2F;
    inputDistribution(harness.chainConfig, 2.0F, 0.0F, in.initialInput);
    const float halfCell_m = 0.5F * positionCellSize_m(runtimeChain());
    in.constraints.speedLimit_mps = 13.89F;
    in.constraints.startSpeed_mps = 5.0F;
    in.constraints.desiredSpeedFactor = 1.0F;  // speeding up: at least the limit (motion stage)
    in.constraints.leadGap_m = 4.0F + halfCell_m;
    in.constraints.leadSpeed_mps = 5.0F;
    in.constraints.leadAccel_mps2 = leadAccel_mps2;
    in.constraints.leadDecel_mps2 = harness.config.rules.comfortDecel_mps2;
    harness.run(runtime(), runtimePsi(harness.chainConfig.inputCells));
    return harness.pointAt(0, 39).sMean_m - halfCell_m;
}

TEST(MarkovPrediction, VehicleFollowingALeadThatMovesOffMovesOffToo) {
    // The lead covers 5·4 + ½·2·4² = 36 m in 4 s; the follower keeps a few metres more than its 4 m gap
    // behind it (minGap + headway·v grows with the speed). Taken to keep its 5 m/s, the lead would hold
    // the follower to about 20 m.
    const float held = queueFollowerTravel_m(0.0F);
    const float movingOff = queueFollowerTravel_m(2.0F);
    EXPECT_LT(held, 23.0F);
    EXPECT_GT(movingOff, held + 6.0F);
    EXPECT_LT(movingOff, 36.0F + 4.0F) << "not past the lead";
}

TEST(MarkovPrediction, VehicleApproachingAStandingQueueStopsBehindIt) {
    constexpr float QUEUE_AT_M = 30.0F;  // rear of the last standing vehicle
    constexpr float SPEED_MPS = 13.6F;
    constexpr int LAST_STEP = 39;
    // At the runtime's resolution a braking vehicle leaves its 4.4 m/s speed cell with probability
    // a·τ/Δv per step (docs/design/motion-prediction.md, "Accuracy of the abstraction"): the mean stops
    // short of the queue, part of the mass runs on; with Δv = a_max·τ the queue holds all of it.
    const RuntimeRun sut(SPEED_MPS, 0.0F, 13.89F, QUEUE_AT_M, 0.0F);
    EXPECT_LT(sut.travelled_m(LAST_STEP), QUEUE_AT_M - sut.harness.config.rules.minGap_m);
    EXPECT_GT(sut.travelled_m(LAST_STEP), QUEUE_AT_M - 10.0F);  // it closes up, it does not stop early
    EXPECT_LT(sut.meanSpeed_mps(LAST_STEP), 2.0F);

    const ChainConfig fine = testing::behaviourChain();  // Δv = a_max·τ
    const MarkovChain fineChain = MarkovChain::build(fine).value();
    PredictionHarness sharp(fine, predictionFor(1), 1);
    sharp.config.rules.speed = RuleSpeed::Typical;
    sharp.corridors[0].initialSpeed_mps = 10.0F;
    inputDistribution(fine, 0.0F, 0.0F, sharp.corridors[0].initialInput);
    sharp.corridors[0].constraints.leadGap_m = QUEUE_AT_M;
    sharp.corridors[0].constraints.leadDecel_mps2 = sharp.config.rules.comfortDecel_mps2;
    sharp.run(fineChain, runtimePsi(fine.inputCells));
    constexpr float NEGLIGIBLE = 1e-3F;
    for (int t = 0; t < sharp.config.horizonSteps; ++t) {
        float beyond = 0.0F;
        const float* p = sharp.positionAt(0, t);
        for (int is = 0; is < fine.positionCells; ++is) {
            beyond += static_cast<float>(is) * positionCellSize_m(fine) >= QUEUE_AT_M ? p[is] : 0.0F;
        }
        ASSERT_LT(beyond, NEGLIGIBLE) << "step " << t;
    }
}

}  // namespace
}  // namespace augur::kernels::markov
