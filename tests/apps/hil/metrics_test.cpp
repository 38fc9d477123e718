// Metric functions against hand-computed cases: assignment, OSPA, GOSPA, tracking RMSE, ADE/FDE,
// minADE/minFDE, miss rate, constant-velocity baseline, occupancy hit rate, latency percentiles.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <vector>

#include "augur/hil/assignment.hpp"
#include "augur/hil/cv_baseline.hpp"
#include "augur/hil/latency_summary.hpp"
#include "augur/hil/occupancy_metrics.hpp"
#include "augur/hil/prediction_metrics.hpp"
#include "augur/hil/set_distance.hpp"
#include "augur/hil/tracking_metrics.hpp"

namespace augur::hil {
namespace {

constexpr double TOLERANCE = 1e-9;
constexpr double CUTOFF_M = 10.0;

double assignedCost(const std::vector<double>& cost, std::size_t cols, const std::vector<int>& rowToCol) {
    double sum = 0.0;
    for (std::size_t i = 0; i < rowToCol.size(); ++i) {
        if (rowToCol[i] >= 0) {
            sum += cost[i * cols + static_cast<std::size_t>(rowToCol[i])];
        }
    }
    return sum;
}

TEST(Assignment, FindsTheMinimumOfASquareMatrix) {
    const std::vector<double> cost = {4, 1, 3,  //
                                      2, 0, 5,  //
                                      3, 2, 2};
    constexpr double EXPECTED_COST = 5.0;  // (0,1) + (1,0) + (2,2) = 1 + 2 + 2
    const auto sut = minimumCostAssignment(cost, 3, 3);
    EXPECT_EQ(sut, (std::vector<int>{1, 0, 2}));
    EXPECT_DOUBLE_EQ(assignedCost(cost, 3, sut), EXPECTED_COST);
}

TEST(Assignment, LeavesSurplusRowsUnassigned) {
    const std::vector<double> cost = {1, 9,  //
                                      9, 1,  //
                                      0, 0};
    constexpr double EXPECTED_COST = 1.0;  // row 2 (cost 0) with either column plus the 1 of row 0 or row 1
    const auto sut = minimumCostAssignment(cost, 3, 2);
    int assignedRows = 0;
    for (int c : sut) {
        assignedRows += c >= 0 ? 1 : 0;
    }
    EXPECT_EQ(assignedRows, 2);
    EXPECT_DOUBLE_EQ(assignedCost(cost, 2, sut), EXPECTED_COST);
}

TEST(Assignment, HandlesMoreColumnsThanRowsAndEmptyInput) {
    const std::vector<double> cost = {5, 1, 7};
    EXPECT_EQ(minimumCostAssignment(cost, 1, 3), (std::vector<int>{1}));
    EXPECT_TRUE(minimumCostAssignment({}, 0, 4).empty());
    EXPECT_EQ(minimumCostAssignment({}, 2, 0), (std::vector<int>{-1, -1}));
}

TEST(Ospa, IsZeroForTwoEmptySetsAndTheCutoffForOneEmptySet) {
    const std::vector<Point2> some = {{0, 0}, {5, 5}, {9, 1}};
    EXPECT_DOUBLE_EQ(ospa({}, {}, CUTOFF_M, 2.0), 0.0);
    EXPECT_DOUBLE_EQ(ospa(some, {}, CUTOFF_M, 2.0), CUTOFF_M);
    EXPECT_DOUBLE_EQ(ospa({}, some, CUTOFF_M, 1.0), CUTOFF_M);
}

TEST(Ospa, EqualsTheDistanceOfOnePairWithinTheCutoff) {
    const std::vector<Point2> x = {{0, 0}};
    const std::vector<Point2> y = {{3, 4}};
    EXPECT_NEAR(ospa(x, y, CUTOFF_M, 1.0), 5.0, TOLERANCE);
    EXPECT_NEAR(ospa(x, y, CUTOFF_M, 2.0), 5.0, TOLERANCE);
}

TEST(Ospa, ClampsAPairBeyondTheCutoff) {
    const std::vector<Point2> x = {{0, 0}};
    const std::vector<Point2> y = {{20, 0}};
    EXPECT_NEAR(ospa(x, y, CUTOFF_M, 2.0), CUTOFF_M, TOLERANCE);
}

TEST(Ospa, ChargesTheCutoffForCardinalityMismatch) {
    const std::vector<Point2> x = {{0, 0}};
    const std::vector<Point2> y = {{3, 4}, {100, 0}};
    const double expected = std::sqrt((25.0 + 100.0) / 2.0);  // ((5² + c²) / n)^(1/2), n = 2
    const double sut = ospa(x, y, CUTOFF_M, 2.0);
    EXPECT_NEAR(sut, expected, TOLERANCE);
    EXPECT_NEAR(ospa(y, x, CUTOFF_M, 2.0), sut, TOLERANCE);  // symmetric
}

TEST(Ospa, UsesTheOptimalAssignment) {
    const std::vector<Point2> x = {{0, 0}, {10, 0}};
    const std::vector<Point2> y = {{9, 0}, {1, 0}};
    constexpr double EXPECTED = 1.0;  // pairs at 1 m each (a greedy index pairing would give 9 m)
    EXPECT_NEAR(ospa(x, y, 100.0, 1.0), EXPECTED, TOLERANCE);
}

TEST(Gospa, IsZeroForTwoEmptySets) {
    const GospaResult sut = gospa({}, {}, CUTOFF_M, 2.0);
    EXPECT_DOUBLE_EQ(sut.distance_m, 0.0);
    EXPECT_EQ(sut.assigned + sut.missed + sut.falseTargets, 0U);
}

TEST(Gospa, ChargesHalfTheCutoffPowerPerMissedTruth) {
    const std::vector<Point2> truths = {{0, 0}, {30, 0}};
    const GospaResult sut = gospa(truths, {}, CUTOFF_M, 2.0);
    EXPECT_NEAR(sut.distance_m, std::sqrt(2.0 * 100.0 / 2.0), TOLERANCE);  // (2 · c²/2)^(1/2) = c
    EXPECT_EQ(sut.missed, 2U);
    EXPECT_EQ(sut.falseTargets, 0U);
    const std::vector<Point2> one = {{0, 0}};
    EXPECT_NEAR(gospa({}, one, CUTOFF_M, 2.0).distance_m, std::sqrt(50.0), TOLERANCE);
}

TEST(Gospa, ScoresALocalisationErrorAndAMissedTruth) {
    const std::vector<Point2> truths = {{0, 0}, {50, 50}};
    const std::vector<Point2> estimates = {{3, 4}};
    const GospaResult sut = gospa(truths, estimates, CUTOFF_M, 2.0);
    EXPECT_NEAR(sut.distance_m, std::sqrt(25.0 + 50.0), TOLERANCE);
    EXPECT_NEAR(sut.localisationSum, 25.0, TOLERANCE);
    EXPECT_EQ(sut.assigned, 1U);
    EXPECT_EQ(sut.missed, 1U);
    EXPECT_EQ(sut.falseTargets, 0U);
}

TEST(Gospa, TreatsAPairBeyondTheCutoffAsMissedPlusFalse) {
    const std::vector<Point2> truths = {{0, 0}};
    const std::vector<Point2> estimates = {{20, 0}};
    const GospaResult sut = gospa(truths, estimates, CUTOFF_M, 2.0);
    EXPECT_NEAR(sut.distance_m, CUTOFF_M, TOLERANCE);  // (c²/2 + c²/2)^(1/2)
    EXPECT_EQ(sut.assigned, 0U);
    EXPECT_EQ(sut.missed, 1U);
    EXPECT_EQ(sut.falseTargets, 1U);
}

TEST(TrackingAccumulator, ComputesPositionAndVelocityRmseOverAssociatedPairs) {
    TrackingAccumulator sut(CUTOFF_M, 2.0);
    const std::vector<KinematicState> truth1 = {{0, 0, 1, 0}};
    const std::vector<KinematicState> tracks1 = {{3, 4, 1, 2}, {500, 500, 0, 0}};  // second: false track
    const std::vector<KinematicState> truth2 = {{10, 0, 0, 0}};
    const std::vector<KinematicState> tracks2 = {{10, 1, 0, -1}};
    sut.addCycle(truth1, tracks1);
    sut.addCycle(truth2, tracks2);
    sut.addCycle({}, {});
    const TrackingSummary s = sut.summary();
    EXPECT_EQ(s.cycles, 3U);
    EXPECT_EQ(s.associatedPairs, 2U);
    EXPECT_EQ(s.falseTracks, 1U);
    EXPECT_EQ(s.missed, 0U);
    EXPECT_NEAR(s.positionRmse_m, std::sqrt((25.0 + 1.0) / 2.0), TOLERANCE);
    EXPECT_NEAR(s.velocityRmse_mps, std::sqrt((4.0 + 1.0) / 2.0), TOLERANCE);
    const double ospa1 = std::sqrt((25.0 + 100.0) / 2.0);
    const double gospa1 = std::sqrt(25.0 + 50.0);
    EXPECT_NEAR(s.meanOspa_m, (ospa1 + 1.0 + 0.0) / 3.0, TOLERANCE);
    EXPECT_NEAR(s.meanGospa_m, (gospa1 + 1.0 + 0.0) / 3.0, TOLERANCE);
}

TEST(TrackingAccumulator, ReportsZeroRmseWhenNothingWasAssociated) {
    TrackingAccumulator sut(CUTOFF_M, 2.0);
    const std::vector<KinematicState> truth = {{0, 0, 0, 0}};
    sut.addCycle(truth, {});
    EXPECT_EQ(sut.summary().associatedPairs, 0U);
    EXPECT_DOUBLE_EQ(sut.summary().positionRmse_m, 0.0);
    EXPECT_EQ(sut.summary().missed, 1U);
}

const std::vector<Point2> TRUTH = {{1, 0}, {2, 0}, {3, 0}, {4, 0}};

TEST(DisplacementErrors, AveragesOverStepsAndTakesTheLastForFde) {
    const std::vector<Point2> predicted = {{1, 0}, {2, 1}, {3, 2}, {4, 3}};  // errors 0, 1, 2, 3
    const DisplacementErrors full = displacementErrors(TRUTH, predicted, 4);
    EXPECT_NEAR(full.ade_m, 1.5, TOLERANCE);
    EXPECT_NEAR(full.fde_m, 3.0, TOLERANCE);
    const DisplacementErrors half = displacementErrors(TRUTH, predicted, 2);
    EXPECT_NEAR(half.ade_m, 0.5, TOLERANCE);
    EXPECT_NEAR(half.fde_m, 1.0, TOLERANCE);
    const DisplacementErrors one = displacementErrors(TRUTH, predicted, 1);
    EXPECT_NEAR(one.ade_m, 0.0, TOLERANCE);
}

TEST(MinOverCandidates, MinimisesAdeAndFdeIndependently) {
    const std::vector<Point2> a = {{1, 0}, {2, 0}, {3, 0}, {4, 4}};  // errors 0, 0, 0, 4: ADE 1, FDE 4
    const std::vector<Point2> b = {{1, 2}, {2, 2}, {3, 2}, {4, 2}};  // errors 2, 2, 2, 2: ADE 2, FDE 2
    const std::vector<std::span<const Point2>> candidates = {a, b};
    const CandidateErrors sut = minOverCandidates(TRUTH, candidates, 4);
    EXPECT_NEAR(sut.minAde_m, 1.0, TOLERANCE);
    EXPECT_NEAR(sut.minFde_m, 2.0, TOLERANCE);
}

TEST(PredictionAccumulator, AveragesPerHorizonSkipsShortTruthAndCountsMisses) {
    constexpr double STEP_S = 1.0;
    const std::vector<double> horizons = {2.0, 4.0};
    PredictionAccumulator sut(STEP_S, horizons);
    const std::vector<Point2> a = {{1, 0}, {2, 0}, {3, 0}, {4, 4}};  // most likely; FDE@4 = 4
    const std::vector<Point2> b = {{1, 2}, {2, 2}, {3, 2}, {4, 2}};  // FDE@4 = 2: exactly the threshold, no miss
    const std::vector<std::span<const Point2>> both = {a, b};
    const std::vector<double> aLikelier = {0.75, 0.25};
    sut.add(TRUTH, both, aLikelier);
    const std::vector<Point2> shortTruth = {{1, 0}, {2, 3}};  // known for 2 s only
    const std::vector<std::span<const Point2>> onlyA = {a};
    const std::vector<double> certain = {1.0};
    sut.add(shortTruth, onlyA, certain);  // errors 0, 3: ADE@2 1.5, FDE@2 3 (a miss)

    const auto r = sut.results();
    ASSERT_EQ(r.size(), 2U);
    EXPECT_DOUBLE_EQ(r[0].horizon_s, 2.0);
    EXPECT_EQ(r[0].samples, 2U);
    EXPECT_NEAR(r[0].ade_m, (0.0 + 1.5) / 2.0, TOLERANCE);
    EXPECT_NEAR(r[0].fde_m, (0.0 + 3.0) / 2.0, TOLERANCE);
    EXPECT_NEAR(r[0].minAde_m, (0.0 + 1.5) / 2.0, TOLERANCE);
    EXPECT_NEAR(r[0].minFde_m, (0.0 + 3.0) / 2.0, TOLERANCE);
    EXPECT_NEAR(r[0].missRate, 0.5, TOLERANCE);
    EXPECT_EQ(r[1].samples, 1U);
    EXPECT_NEAR(r[1].ade_m, 1.0, TOLERANCE);
    EXPECT_NEAR(r[1].fde_m, 4.0, TOLERANCE);
    EXPECT_NEAR(r[1].minAde_m, 1.0, TOLERANCE);
    EXPECT_NEAR(r[1].minFde_m, 2.0, TOLERANCE);
    EXPECT_NEAR(r[1].missRate, 0.0, TOLERANCE);
    // Weighted mean of a (0.75) and b (0.25): (k, 0.5), (k, 0.5), (k, 0.5), (4, 3.5) → errors .5, .5, .5, 3.5.
    EXPECT_NEAR(r[1].weightedAde_m, (0.5 + 0.5 + 0.5 + 3.5) / 4.0, TOLERANCE);
    EXPECT_NEAR(r[1].weightedFde_m, 3.5, TOLERANCE);
    EXPECT_NEAR(r[0].weightedFde_m, (0.5 + 3.0) / 2.0, TOLERANCE);
}

TEST(PredictionAccumulator, TakesTheMostProbableCandidateForAdeAndFde) {
    const std::vector<double> horizons = {4.0};
    PredictionAccumulator sut(1.0, horizons);
    const std::vector<Point2> a = {{1, 0}, {2, 0}, {3, 0}, {4, 4}};  // ADE 1, FDE 4
    const std::vector<Point2> b = {{1, 2}, {2, 2}, {3, 2}, {4, 2}};  // ADE 2, FDE 2
    const std::vector<std::span<const Point2>> both = {a, b};
    const std::vector<double> bLikelier = {1.0, 3.0};  // unnormalised weights are fine
    sut.add(TRUTH, both, bLikelier);
    const auto r = sut.results();
    EXPECT_NEAR(r[0].ade_m, 2.0, TOLERANCE);
    EXPECT_NEAR(r[0].fde_m, 2.0, TOLERANCE);
    EXPECT_NEAR(r[0].minAde_m, 1.0, TOLERANCE);
}

TEST(PredictionAccumulator, ReportsZeroSamplesWhenNothingWasAdded) {
    const std::vector<double> horizons = {1.0};
    const PredictionAccumulator sut(0.1, horizons);
    const auto r = sut.results();
    EXPECT_EQ(r[0].samples, 0U);
    EXPECT_NEAR(r[0].horizon_s, 1.0, TOLERANCE);
}

TEST(ConstantVelocity, ExtrapolatesAlongTheHeading) {
    std::vector<Point2> sut(3);
    predictConstantVelocity({1.0, 2.0}, std::numbers::pi / 2.0, 3.0, 0.5, sut);
    EXPECT_NEAR(sut[0].x_m, 1.0, TOLERANCE);
    EXPECT_NEAR(sut[0].y_m, 3.5, TOLERANCE);
    EXPECT_NEAR(sut[2].y_m, 6.5, TOLERANCE);
}

TEST(ConstantVelocityBaseline, ScoresAScenarioAgainstHandComputedErrors) {
    // Vehicle 1 drives at a constant 2 m/s east (no error); vehicle 2 stands (speed 0) for two steps,
    // then is 1 m north: CV from step 0 errs 0 then 1 m, from step 1 errs 1 m.
    std::vector<GroundTruthState> states;
    std::vector<std::size_t> steps;
    for (std::size_t k = 0; k < 4; ++k) {
        states.push_back({1, ObjectClass::Car, 2.0F * static_cast<float>(k), 0.0F, 0.0F, 2.0F, 4.5F, 1.8F});
        steps.push_back(k);
    }
    const float y2[] = {0.0F, 0.0F, 1.0F};
    for (std::size_t k = 0; k < 3; ++k) {
        states.push_back({2, ObjectClass::Car, 50.0F, y2[k], 0.0F, 0.0F, 4.5F, 1.8F});
        steps.push_back(k);
    }
    const auto scenario = Scenario::fromStates("hand", 1.0, states, steps);
    ASSERT_TRUE(scenario);
    const std::vector<double> horizons = {1.0, 2.0};
    const auto r = evaluateConstantVelocityBaseline(scenario.value(), horizons, 1);
    EXPECT_EQ(r[0].samples, 5U);  // vehicle 1 from steps 0, 1, 2; vehicle 2 from steps 0, 1
    EXPECT_NEAR(r[0].ade_m, 1.0 / 5.0, TOLERANCE);
    EXPECT_NEAR(r[0].fde_m, 1.0 / 5.0, TOLERANCE);
    EXPECT_EQ(r[1].samples, 3U);  // vehicle 1 from steps 0, 1; vehicle 2 from step 0
    EXPECT_NEAR(r[1].ade_m, 0.5 / 3.0, TOLERANCE);
    EXPECT_NEAR(r[1].fde_m, 1.0 / 3.0, TOLERANCE);
    EXPECT_NEAR(r[1].missRate, 0.0, TOLERANCE);

    const auto moving = evaluateConstantVelocityBaseline(scenario.value(), horizons, 1, 1.0);  // vehicle 2 stands
    EXPECT_EQ(moving[0].samples, 3U);
    EXPECT_NEAR(moving[0].ade_m, 0.0, TOLERANCE);
    const auto sparse = evaluateConstantVelocityBaseline(scenario.value(), horizons, 2);  // t0 = 0, 2
    EXPECT_EQ(sparse[0].samples, 3U);  // vehicle 1 from 0 and 2, vehicle 2 from 0
}

std::unique_ptr<OccupancyGrid> makeGrid() {
    auto grid = std::make_unique<OccupancyGrid>();
    grid->originX_m = -10.0F;
    grid->originY_m = -10.0F;
    grid->resolution_m = 1.0F;
    grid->frameInterval_s = 1.0F;
    grid->widthCells = 20;
    grid->heightCells = 20;
    grid->frameCount = 2;
    return grid;
}

TEST(Occupancy, ScoresTheCellHoldingThePositionAgainstTheThreshold) {
    auto grid = makeGrid();
    constexpr std::uint16_t HALF = 32768;  // 0.500008
    grid->cells[0][13 * 20 + 12] = HALF;   // cell of (2.5, 3.5): col 12, row 13
    EXPECT_EQ(occupancyOutcome(*grid, 0, 2.5, 3.5, 0.5), OccupancyOutcome::Hit);
    EXPECT_EQ(occupancyOutcome(*grid, 0, 2.5, 3.5, 0.6), OccupancyOutcome::Miss);
    EXPECT_EQ(occupancyOutcome(*grid, 1, 2.5, 3.5, 0.5), OccupancyOutcome::Miss);  // other frame empty
    EXPECT_EQ(occupancyOutcome(*grid, 0, 3.5, 3.5, 0.5), OccupancyOutcome::Miss);  // neighbouring cell
    EXPECT_NEAR(occupancyAt(*grid, 0, 2.0, 3.0), 32768.0 / 65535.0, TOLERANCE);   // cell's lower corner
}

TEST(Occupancy, ReportsPositionsOutsideTheGrid) {
    auto grid = makeGrid();
    EXPECT_EQ(occupancyOutcome(*grid, 0, -10.0, -10.0, 0.0), OccupancyOutcome::Hit);  // first cell, inclusive
    EXPECT_EQ(occupancyOutcome(*grid, 0, 10.0, 0.0, 0.0), OccupancyOutcome::OutsideGrid);  // exclusive end
    EXPECT_EQ(occupancyOutcome(*grid, 0, 0.0, -10.01, 0.0), OccupancyOutcome::OutsideGrid);
}

TEST(OccupancyHitCounter, ComputesTheRateOverScoredPositionsOnly) {
    OccupancyHitCounter sut;
    EXPECT_DOUBLE_EQ(sut.hitRate(), 0.0);
    sut.add(OccupancyOutcome::Hit);
    sut.add(OccupancyOutcome::Hit);
    sut.add(OccupancyOutcome::Hit);
    sut.add(OccupancyOutcome::Miss);
    sut.add(OccupancyOutcome::OutsideGrid);
    EXPECT_DOUBLE_EQ(sut.hitRate(), 0.75);
    EXPECT_EQ(sut.outside, 1U);
}

TEST(LatencySummary, ComputesNearestRankPercentilesAndDeadlineMisses) {
    const std::vector<double> latency = {5, 1, 4, 2, 3};
    const LatencySummary sut = summarizeLatency(latency, 3.0);
    EXPECT_EQ(sut.cycles, 5U);
    EXPECT_DOUBLE_EQ(sut.p50_us, 3.0);
    EXPECT_DOUBLE_EQ(sut.p99_us, 5.0);
    EXPECT_DOUBLE_EQ(sut.max_us, 5.0);
    EXPECT_EQ(sut.deadlineMisses, 2U);  // 4 and 5; 3 equals the deadline and holds it
}

TEST(LatencySummary, IsAllZeroForNoCycles) {
    const LatencySummary sut = summarizeLatency({}, 1.0);
    EXPECT_EQ(sut.cycles, 0U);
    EXPECT_DOUBLE_EQ(sut.max_us, 0.0);
}

TEST(LatencySummary, PercentileOfOneValueIsThatValue) {
    const std::vector<double> one = {7.0};
    EXPECT_DOUBLE_EQ(percentileNearestRank(one, 0.01), 7.0);
    EXPECT_DOUBLE_EQ(percentileNearestRank(one, 1.0), 7.0);
}

}  // namespace
}  // namespace augur::hil
