// The lane-following baseline (Autoware's map_based_prediction method) on small hand-built maps, the
// Brier score of the corridor taken, and the motion classes the bench splits its scores by.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <numbers>
#include <vector>

#include "augur/core/panic.hpp"
#include "augur/hil/lane_following.hpp"
#include "augur/hil/prediction_metrics.hpp"
#include "augur/runtime/scene/road_map_builder.hpp"

namespace augur::hil {
namespace {

namespace scene = augur::runtime::scene;

constexpr double STEP_S = 0.1;
constexpr std::size_t STEPS = 40;
constexpr double SPEED_LIMIT_MPS = 13.89;
constexpr double TOLERANCE_M = 1e-3;

std::shared_ptr<const scene::RoadMap> build(scene::RoadMapBuilder& builder) {
    auto built = builder.build();
    AUGUR_ASSERT(built.hasValue(), "lane_following_test: map");
    return std::make_shared<const scene::RoadMap>(std::move(built).value());
}

scene::LaneSpec straightLane(const char* id, double x0, double x1, double y, double limit_mps = SPEED_LIMIT_MPS) {
    return {id, {{x0, y}, {x1, y}}, 3.5, limit_mps, 0};
}

/// One eastbound lane along y = 0 from x = −100 to 200.
std::shared_ptr<const scene::RoadMap> oneLane(double limit_mps = SPEED_LIMIT_MPS) {
    scene::RoadMapBuilder builder("one-lane");
    builder.addLane(straightLane("a", -100.0, 200.0, 0.0, limit_mps));
    return build(builder);
}

/// An eastbound lane to x = 0 that forks into a lane straight on and one turning north (left).
std::shared_ptr<const scene::RoadMap> fork() {
    scene::RoadMapBuilder builder("fork");
    const auto in = builder.addLane(straightLane("in", -100.0, 0.0, 0.0));
    const auto straight = builder.addLane(straightLane("straight", 0.0, 200.0, 0.0));
    const auto left = builder.addLane({"left", {{0.0, 0.0}, {10.0, 2.0}, {15.0, 10.0}, {15.0, 200.0}}, 3.5, SPEED_LIMIT_MPS, 0});
    builder.addSuccessor(in, straight);
    builder.addSuccessor(in, left);
    return build(builder);
}

TEST(LaneFollowing, FollowsTheCentrelineAtConstantSpeedWithOneCertainMode) {
    const LaneFollowingPredictor sut(oneLane());
    std::vector<LaneFollowingMode> modes;

    sut.predict({0.0, 0.0}, 0.0, 10.0, STEP_S, STEPS, modes);

    ASSERT_EQ(modes.size(), 1U);
    EXPECT_TRUE(modes[0].onMap);
    EXPECT_DOUBLE_EQ(modes[0].probability, 1.0);
    ASSERT_EQ(modes[0].points.size(), STEPS);
    EXPECT_NEAR(modes[0].points[9].x_m, 10.0, TOLERANCE_M);
    EXPECT_NEAR(modes[0].points[STEPS - 1].x_m, 40.0, TOLERANCE_M);
    EXPECT_NEAR(modes[0].points[STEPS - 1].y_m, 0.0, TOLERANCE_M);
}

TEST(LaneFollowing, FollowsTheLaneNotTheHeading) {
    const LaneFollowingPredictor sut(oneLane());
    std::vector<LaneFollowingMode> modes;
    constexpr double HEADING_ERROR_RAD = 0.2;  // inside the 45° gate

    sut.predict({0.0, 0.0}, HEADING_ERROR_RAD, 10.0, STEP_S, STEPS, modes);

    ASSERT_EQ(modes.size(), 1U);
    EXPECT_NEAR(modes[0].points[STEPS - 1].y_m, 0.0, TOLERANCE_M);
}

TEST(LaneFollowing, ClampsTheSpeedToTheLanesLimit) {
    constexpr double LIMIT_MPS = 8.0;
    const LaneFollowingPredictor sut(oneLane(LIMIT_MPS));
    std::vector<LaneFollowingMode> modes;

    sut.predict({0.0, 0.0}, 0.0, 20.0, STEP_S, STEPS, modes);

    ASSERT_EQ(modes.size(), 1U);
    EXPECT_NEAR(modes[0].points[STEPS - 1].x_m, LIMIT_MPS * 4.0, TOLERANCE_M);
}

TEST(LaneFollowing, SplitsTheStartingLanesLikelihoodEquallyOverTheBranchesOfAFork) {
    const LaneFollowingPredictor sut(fork());
    std::vector<LaneFollowingMode> modes;

    sut.predict({-20.0, 0.0}, 0.0, 10.0, STEP_S, STEPS, modes);

    ASSERT_EQ(modes.size(), 2U);
    EXPECT_NEAR(modes[0].probability, 0.5, 1e-9);
    EXPECT_NEAR(modes[1].probability, 0.5, 1e-9);
    const double northMost = std::max(modes[0].points[STEPS - 1].y_m, modes[1].points[STEPS - 1].y_m);
    const double southMost = std::min(modes[0].points[STEPS - 1].y_m, modes[1].points[STEPS - 1].y_m);
    EXPECT_GT(northMost, 5.0);  // turned left
    EXPECT_NEAR(southMost, 0.0, TOLERANCE_M);
}

TEST(LaneFollowing, WeighsStartingLanesByLateralOffsetAndHeadingError) {
    scene::RoadMapBuilder builder("two lanes a metre apart");
    builder.addLane(straightLane("near", -100.0, 200.0, 0.0));
    builder.addLane(straightLane("far", -100.0, 200.0, 1.0));
    const LaneFollowingPredictor sut(build(builder));
    std::vector<LaneFollowingMode> modes;
    constexpr double Y_M = 0.2;

    sut.predict({0.0, Y_M}, 0.0, 10.0, STEP_S, STEPS, modes);

    // d = lateral² / σ² with σ = 0.5 m; likelihood 1/d, normalised.
    ASSERT_EQ(modes.size(), 2U);
    const double nearLikelihood = 0.25 / (Y_M * Y_M);
    const double farLikelihood = 0.25 / ((1.0 - Y_M) * (1.0 - Y_M));
    const double expectedNear = nearLikelihood / (nearLikelihood + farLikelihood);
    const auto& nearMode = modes[0].points[0].y_m < 0.5 ? modes[0] : modes[1];
    EXPECT_NEAR(nearMode.probability, expectedNear, 1e-6);
}

TEST(LaneFollowing, LateralOffsetDecaysOnAQuinticOverTheLateralHorizon) {
    EXPECT_DOUBLE_EQ(lateralDecay(0.0, 5.0), 1.0);
    EXPECT_DOUBLE_EQ(lateralDecay(2.5, 5.0), 0.5);
    EXPECT_DOUBLE_EQ(lateralDecay(5.0, 5.0), 0.0);
    EXPECT_DOUBLE_EQ(lateralDecay(9.0, 5.0), 0.0);
    const LaneFollowingPredictor sut(oneLane());
    std::vector<LaneFollowingMode> modes;
    constexpr double OFFSET_M = 1.0;

    sut.predict({0.0, OFFSET_M}, 0.0, 10.0, STEP_S, STEPS, modes);

    ASSERT_EQ(modes.size(), 1U);
    EXPECT_NEAR(modes[0].points[0].y_m, OFFSET_M * lateralDecay(STEP_S, 5.0), TOLERANCE_M);
    EXPECT_NEAR(modes[0].points[STEPS - 1].y_m, OFFSET_M * lateralDecay(4.0, 5.0), TOLERANCE_M);
}

TEST(LaneFollowing, SlowOrOffMapVehiclesGetOneStraightConstantVelocityMode) {
    const LaneFollowingPredictor sut(oneLane());
    std::vector<LaneFollowingMode> modes;

    sut.predict({0.0, 0.0}, 0.0, 1.0, STEP_S, STEPS, modes);  // below 1.39 m/s
    ASSERT_EQ(modes.size(), 1U);
    EXPECT_FALSE(modes[0].onMap);
    EXPECT_NEAR(modes[0].points[STEPS - 1].x_m, 4.0, TOLERANCE_M);

    sut.predict({0.0, 50.0}, std::numbers::pi / 2, 10.0, STEP_S, STEPS, modes);  // nowhere near a lane
    ASSERT_EQ(modes.size(), 1U);
    EXPECT_FALSE(modes[0].onMap);
    EXPECT_NEAR(modes[0].points[STEPS - 1].y_m, 90.0, TOLERANCE_M);
}

// ---- the corridor taken and its Brier score ------------------------------------------------------

std::vector<Point2> eastward(double y_m, double speed_mps, std::size_t steps = STEPS) {
    std::vector<Point2> points(steps);
    for (std::size_t k = 0; k < steps; ++k) {
        points[k] = {speed_mps * STEP_S * static_cast<double>(k + 1), y_m};
    }
    return points;
}

TEST(CorridorTaken, DistanceToAPolylineExtendsItsEndsAsRays) {
    const std::vector<Point2> line = {{0.0, 0.0}, {1.0, 0.0}, {1.0, 0.0}};
    EXPECT_DOUBLE_EQ(distanceToExtendedPolyline({5.0, 2.0}, line), 2.0);   // past the end
    EXPECT_DOUBLE_EQ(distanceToExtendedPolyline({-5.0, -1.0}, line), 1.0); // before the start
    const std::vector<Point2> point = {{3.0, 4.0}, {3.0, 4.0}};
    EXPECT_DOUBLE_EQ(distanceToExtendedPolyline({0.0, 0.0}, point), 5.0);
}

TEST(CorridorTaken, TheCorridorOnTheTruthIsTakenAndScoredByBrier) {
    const auto truth = eastward(0.0, 10.0);
    const auto onTruth = eastward(0.0, 10.0);
    const auto laneBeside = eastward(3.5, 10.0);
    const std::vector<std::span<const Point2>> candidates = {laneBeside, onTruth};
    const std::vector<double> probabilities = {0.3, 0.7};
    std::vector<bool> taken;

    ASSERT_TRUE(candidatesTaken(truth, candidates, STEPS, taken));

    EXPECT_EQ(taken, (std::vector<bool>{false, true}));
    EXPECT_NEAR(brierScore(probabilities, taken), 0.3 * 0.3 + 0.3 * 0.3, 1e-12);
}

TEST(CorridorTaken, APredictionThatLagsAlongItsPathStillCoversTheTruth) {
    const auto truth = eastward(0.0, 10.0);
    const auto lagging = eastward(0.0, 5.0);  // half the distance, on the same line
    const std::vector<std::span<const Point2>> candidates = {lagging};
    std::vector<bool> taken;

    EXPECT_TRUE(candidatesTaken(truth, candidates, STEPS, taken));
    EXPECT_DOUBLE_EQ(brierScore(std::vector<double>{1.0}, taken), 0.0);
}

TEST(CorridorTaken, BranchesNotYetApartAreTakenTogether) {
    const auto truth = eastward(0.0, 10.0);
    const auto a = eastward(0.0, 10.0);
    const auto b = eastward(0.2, 10.0);  // within TIE_M
    const std::vector<std::span<const Point2>> candidates = {a, b};
    std::vector<bool> taken;

    ASSERT_TRUE(candidatesTaken(truth, candidates, STEPS, taken));

    EXPECT_EQ(taken, (std::vector<bool>{true, true}));
    EXPECT_DOUBLE_EQ(brierScore(std::vector<double>{0.5, 0.5}, taken), 0.0);
}

TEST(CorridorTaken, NoCorridorNearTheTruthScoresTheOutcomeNoneWithProbabilityZero) {
    const auto truth = eastward(0.0, 10.0);
    const auto away = eastward(CORRIDOR_GATE_M + 1.0, 10.0);
    const std::vector<std::span<const Point2>> candidates = {away, away};
    std::vector<bool> taken;

    EXPECT_FALSE(candidatesTaken(truth, candidates, STEPS, taken));

    EXPECT_NEAR(brierScore(std::vector<double>{1.0, 3.0}, taken), 0.25 * 0.25 + 0.75 * 0.75 + 1.0, 1e-12);
}

TEST(CorridorTaken, AccumulatorReportsTheMeanBrierScorePerHorizon) {
    const double horizons[] = {4.0};
    PredictionAccumulator sut(STEP_S, horizons);
    const auto truth = eastward(0.0, 10.0);
    const auto onTruth = eastward(0.0, 10.0);
    const auto away = eastward(3.5, 10.0);
    const std::vector<std::span<const Point2>> candidates = {onTruth, away};

    sut.add(truth, candidates, std::vector<double>{1.0, 0.0});  // certain and right: 0
    sut.add(truth, candidates, std::vector<double>{0.0, 1.0});  // certain and wrong: 2

    EXPECT_DOUBLE_EQ(sut.results()[0].brier, 1.0);
}

// ---- motion classes --------------------------------------------------------------------------------

TEST(MotionClass, SlowIsStandingWhateverTheGeometry) {
    EXPECT_EQ(classifyMotion({0.0, 0.0}, 0.0, 0.3, {20.0, 5.0}, 1.0), MotionClass::Standing);
}

TEST(MotionClass, StraightOnIsStraight) {
    EXPECT_EQ(classifyMotion({0.0, 0.0}, 0.0, 10.0, {40.0, 0.3}, 0.0), MotionClass::Straight);
}

TEST(MotionClass, ALargeHeadingChangeIsTurning) {
    EXPECT_EQ(classifyMotion({0.0, 0.0}, 0.0, 8.0, {15.0, 15.0}, std::numbers::pi / 2), MotionClass::Turning);
}

TEST(MotionClass, ASidewaysShiftWithTheHeadingRestoredIsALaneChange) {
    EXPECT_EQ(classifyMotion({0.0, 0.0}, 0.0, 20.0, {80.0, 3.5}, 0.0), MotionClass::LaneChange);
}

TEST(MotionClass, AGentleBendIsStraightNotALaneChange) {
    // An arc of radius 300 m over 80 m: heading change 0.267 rad, end 10.6 m to the side.
    constexpr double RADIUS_M = 300.0;
    const double turn = 80.0 / RADIUS_M;
    const Point2 end{RADIUS_M * std::sin(turn), RADIUS_M * (1.0 - std::cos(turn))};
    EXPECT_EQ(classifyMotion({0.0, 0.0}, 0.0, 20.0, end, turn), MotionClass::Straight);
}

}  // namespace
}  // namespace augur::hil
