// Scoring of a recorded bench run against the ground truth: tracking against the road users in range,
// our prediction and the constant-velocity baseline on the same samples, occupancy hits, timing from
// Health, which predictions count, and the acceptance verdict. Recordings are built by hand here (the
// bench's iceoryx side is tested in replay_test.cpp, the whole chain by the end-to-end bench test).
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <vector>

#include "augur/core/panic.hpp"
#include "augur/hil/bench_scoring.hpp"
#include "augur/hil/recording.hpp"
#include "augur/runtime/scene/road_map_builder.hpp"

namespace augur::hil {
namespace {

constexpr std::uint32_t EGO_ID = 1;
constexpr std::uint32_t CAR_ID = 2;
constexpr std::uint32_t CAR_TRACK_ID = 41;  ///< augur's id of the car's track (not its perception id)
constexpr std::uint32_t FAR_ID = 3;
constexpr double STEP_S = 0.1;
constexpr std::size_t STEPS = 80;            // 8 s
constexpr float CAR_SPEED_MPS = 10.0F;
constexpr float CAR_Y_M = 5.0F;
constexpr float FAR_X_M = 500.0F;            // outside the sensor range
constexpr std::int64_t STAMP0_NS = 1'000'000'000;
constexpr std::int64_t STEP_NS = 100'000'000;
constexpr std::uint32_t HORIZON_STEPS = 40;
constexpr double DEADLINE_US = 200'000.0;
constexpr double TOLERANCE = 1e-4;

/// The ego standing at the origin; a car driving east at 10 m/s along y = 5 from x = −20; a road user far away.
Scenario straightScenario() {
    std::vector<GroundTruthState> states;
    std::vector<std::size_t> stepOf;
    for (std::size_t k = 0; k < STEPS; ++k) {
        states.push_back({EGO_ID, ObjectClass::Car, 0.0F, 0.0F, 0.0F, 0.0F, 4.5F, 1.8F});
        states.push_back({CAR_ID, ObjectClass::Car, -20.0F + CAR_SPEED_MPS * static_cast<float>(k * STEP_S), CAR_Y_M, 0.0F,
                          CAR_SPEED_MPS, 4.5F, 1.8F});
        states.push_back({FAR_ID, ObjectClass::Car, FAR_X_M, 0.0F, 0.0F, 0.0F, 4.5F, 1.8F});
        for (int i = 0; i < 3; ++i) stepOf.push_back(k);
    }
    auto built = Scenario::fromStates("straight", STEP_S, states, stepOf);
    AUGUR_ASSERT(built.hasValue(), "straightScenario");
    return std::move(built).value();
}

PerceptionEmulator exactPerception(const Scenario& scenario) {
    PerceptionConfig config;
    config.egoId = EGO_ID;
    config.stdPosition_m = 0.0F;
    config.stdHeading_rad = 0.0F;
    config.stdSpeed_mps = 0.0F;
    config.dropoutProbability = 0.0F;
    config.falseIdProbability = 0.0F;
    config.startStamp_ns = STAMP0_NS;
    auto created = PerceptionEmulator::create(scenario, config);
    AUGUR_ASSERT(created.hasValue(), "exactPerception");
    return std::move(created).value();
}

/// Every step emitted as the bench would have sent it.
ReplayLog replayLog(const Scenario& scenario, PerceptionEmulator& perception) {
    ReplayLog log;
    log.egoId = EGO_ID;
    log.step_s = STEP_S;
    log.stampOfStep0_ns = STAMP0_NS;
    log.lists.resize(scenario.stepCount());
    for (std::size_t k = 0; k < scenario.stepCount(); ++k) {
        AUGUR_ASSERT(perception.emit(k, log.lists[k]) == EmitStatus::Emitted, "replayLog");
        ++log.published;
    }
    return log;
}

Point2 carAt(double t_s) { return {-20.0 + CAR_SPEED_MPS * t_s, CAR_Y_M}; }

/// A cycle that took the list of `step`: tracks, a prediction with one corridor per offset (the car's
/// true future shifted north by the offset), and Health.
void addCycle(Recording& recording, std::uint64_t cycle, std::size_t step, std::vector<double> corridorOffsets_m,
              RuntimeMode mode = RuntimeMode::Nominal, bool stale = false, float latency_us = 1000.0F,
              std::uint64_t missesSoFar = 0) {
    const std::int64_t source_ns = STAMP0_NS + static_cast<std::int64_t>(step) * STEP_NS;
    const std::int64_t start_ns = source_ns + 5'000'000;
    const double t0 = static_cast<double>(step) * STEP_S;
    RecordedTrackList tracks;
    tracks.cycle = cycle;
    tracks.stamp_ns = start_ns;
    Track track{};
    track.id = CAR_TRACK_ID;
    track.perceptionId = CAR_ID;
    track.x_m = static_cast<float>(carAt(t0).x_m);
    track.y_m = CAR_Y_M;
    track.vx_mps = CAR_SPEED_MPS;
    tracks.tracks.push_back(track);
    recording.tracks.push_back(tracks);

    RecordedPrediction p;
    p.cycle = cycle;
    p.stamp_ns = start_ns;
    p.sourceStamp_ns = source_ns;
    p.mode = mode;
    p.stale = stale;
    p.step_s = static_cast<float>(STEP_S);
    p.horizonSteps = HORIZON_STEPS;
    VehiclePrediction v{};
    v.trackId = CAR_TRACK_ID;
    v.corridorCount = static_cast<std::uint32_t>(corridorOffsets_m.size());
    for (std::size_t c = 0; c < corridorOffsets_m.size(); ++c) {
        v.corridors[c].probability = c == 0 ? 0.75F : 0.25F / static_cast<float>(corridorOffsets_m.size() - 1);
        for (std::uint32_t k = 0; k < HORIZON_STEPS; ++k) {
            const Point2 truth = carAt(t0 + (k + 1) * STEP_S);
            v.corridors[c].points[k].x_m = static_cast<float>(truth.x_m);
            v.corridors[c].points[k].y_m = static_cast<float>(truth.y_m + corridorOffsets_m[c]);
        }
    }
    p.vehicles.push_back(v);
    recording.predictions.push_back(p);

    Health h{};
    h.cycle = cycle;
    h.header.stamp_ns = start_ns + static_cast<std::int64_t>(latency_us * 1e3F);
    h.cycleLatency.last_us = latency_us;
    h.mode = mode;
    h.lastCycleHadInput = 1;
    h.deadlineMisses = missesSoFar;
    recording.health.push_back(h);
}

struct Fixture {
    Scenario scenario = straightScenario();
    PerceptionEmulator perception = exactPerception(scenario);
    ReplayLog log = replayLog(scenario, perception);
    Recording recording;
    ScoringOptions options;
};

TEST(BenchScoring, TracksOnTheTruthScoreZeroErrorAndLeaveOutRoadUsersOutOfRange) {
    Fixture f;
    addCycle(f.recording, 1, 10, {0.0});
    addCycle(f.recording, 2, 12, {0.0});

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    EXPECT_EQ(sut.tracking.cycles, 2U);
    EXPECT_EQ(sut.tracking.associatedPairs, 2U);
    EXPECT_EQ(sut.tracking.missed, 0U);  // the far road user is not expected to be tracked
    EXPECT_NEAR(sut.tracking.positionRmse_m, 0.0, TOLERANCE);
    EXPECT_NEAR(sut.tracking.velocityRmse_mps, 0.0, TOLERANCE);
    EXPECT_NEAR(sut.tracking.meanOspa_m, 0.0, TOLERANCE);
}

TEST(BenchScoring, OursOffsetByOneMetreScoresOneMetreAndTheBaselineOnExactInputScoresZero) {
    constexpr double OFFSET_M = 1.0;
    Fixture f;
    addCycle(f.recording, 1, 10, {OFFSET_M});

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    ASSERT_EQ(sut.ours.size(), std::size(REPORT_HORIZONS_S));
    ASSERT_EQ(sut.cv.size(), std::size(REPORT_HORIZONS_S));
    for (std::size_t h = 0; h < sut.ours.size(); ++h) {
        EXPECT_EQ(sut.ours[h].samples, 1U);
        EXPECT_EQ(sut.cv[h].samples, 1U);
        EXPECT_NEAR(sut.ours[h].ade_m, OFFSET_M, TOLERANCE);
        EXPECT_NEAR(sut.ours[h].fde_m, OFFSET_M, TOLERANCE);
        EXPECT_NEAR(sut.cv[h].ade_m, 0.0, TOLERANCE);
        EXPECT_NEAR(sut.cv[h].fde_m, 0.0, TOLERANCE);
    }
    EXPECT_EQ(sut.predictionsScored, 1U);
}

TEST(BenchScoring, MinOverCorridorsFindsTheExactCorridorWhileTheMostLikelyIsOff) {
    constexpr double LIKELY_OFFSET_M = 3.0;
    Fixture f;
    addCycle(f.recording, 1, 10, {LIKELY_OFFSET_M, 0.0});

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    ASSERT_FALSE(sut.ours.empty());
    EXPECT_NEAR(sut.ours.back().ade_m, LIKELY_OFFSET_M, TOLERANCE);
    EXPECT_NEAR(sut.ours.back().minAde_m, 0.0, TOLERANCE);
    EXPECT_NEAR(sut.ours.back().weightedAde_m, 0.75 * LIKELY_OFFSET_M, TOLERANCE);
    EXPECT_DOUBLE_EQ(sut.ours.back().missRate, 0.0);
}

TEST(BenchScoring, EachScoredVehicleLeavesASampleWhoseErrorsMakeUpTheMeans) {
    constexpr double LIKELY_OFFSET_M = 3.0;  // north of the truth: to its left (the car drives east)
    constexpr std::size_t STEP_AT_T0 = 10;
    Fixture f;
    addCycle(f.recording, 1, STEP_AT_T0, {LIKELY_OFFSET_M, 0.0});
    addCycle(f.recording, 2, STEP_AT_T0 + 2, {LIKELY_OFFSET_M, 0.0});

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    ASSERT_EQ(sut.samples.size(), 2U);
    const PredictionSample& first = sut.samples.front();
    EXPECT_NEAR(first.t0_s, static_cast<double>(STEP_AT_T0) * STEP_S, TOLERANCE);
    EXPECT_EQ(first.trueId, CAR_ID);
    EXPECT_EQ(first.trackId, CAR_TRACK_ID) << "scored through the track's last perception id";
    EXPECT_NEAR(first.trueSpeed_mps, CAR_SPEED_MPS, TOLERANCE);
    EXPECT_NEAR(first.trackSpeed_mps, CAR_SPEED_MPS, TOLERANCE);
    EXPECT_NEAR(first.headingChange_rad, 0.0, TOLERANCE);
    EXPECT_EQ(first.corridors, 2U);
    EXPECT_EQ(first.mostLikelyCorridor, 0U);
    EXPECT_EQ(first.bestCorridor, 1U);
    EXPECT_NEAR(first.mostLikelyProbability, 0.75, TOLERANCE);
    EXPECT_NEAR(first.alongOurs_m, 0.0, TOLERANCE);
    EXPECT_NEAR(first.acrossOurs_m, LIKELY_OFFSET_M, TOLERANCE);
    for (std::size_t h = 0; h < PredictionSample::HORIZONS; ++h) {
        EXPECT_NEAR(first.fdeOurs_m[h], LIKELY_OFFSET_M, TOLERANCE);
        EXPECT_NEAR(first.fdeMin_m[h], 0.0, TOLERANCE);
        EXPECT_NEAR(first.fdeWeighted_m[h], 0.75 * LIKELY_OFFSET_M, TOLERANCE);
        EXPECT_NEAR(first.fdeCv_m[h], 0.0, TOLERANCE);
        // The means are the averages of the samples.
        const double mean = 0.5 * (sut.samples[0].fdeOurs_m[h] + sut.samples[1].fdeOurs_m[h]);
        EXPECT_NEAR(sut.ours[h].fde_m, mean, TOLERANCE);
    }
}

TEST(BenchScoring, HeldStaleAndRepeatedPredictionsAreNotScored) {
    Fixture f;
    addCycle(f.recording, 1, 10, {0.0}, RuntimeMode::HoldLast);
    addCycle(f.recording, 2, 11, {0.0}, RuntimeMode::Nominal, /*stale=*/true);
    addCycle(f.recording, 3, 12, {0.0});
    addCycle(f.recording, 4, 12, {0.0});  // no new input: same source stamp

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    EXPECT_EQ(sut.predictionsScored, 1U);
    EXPECT_EQ(sut.predictionsSkipped, 3U);
    EXPECT_EQ(sut.ours.front().samples, 1U);
    EXPECT_EQ(sut.tracking.cycles, 2U);  // the stale cycle's tracks count, the repeated and held ones do not
}

TEST(BenchScoring, BaselineUsesTheNewestPerceivedStateWhenTheObjectWasDroppedAtT0) {
    Fixture f;
    constexpr std::size_t T0_STEP = 10;
    f.log.lists[T0_STEP].objectCount = 0;  // the car dropped out (the only object in range)
    addCycle(f.recording, 1, T0_STEP, {0.0});

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    // From step 9, carried forward 0.1 s at its speed: still exact on straight constant-speed motion.
    ASSERT_FALSE(sut.cv.empty());
    EXPECT_EQ(sut.cv.front().samples, 1U);
    EXPECT_NEAR(sut.cv.back().ade_m, 0.0, TOLERANCE);
    EXPECT_EQ(sut.samplesWithoutBaseline, 0U);
}

TEST(BenchScoring, SampleWithoutAPerceivedStateWithinTheLookbackIsLeftOutForBoth) {
    Fixture f;
    f.options.cvLookbackSteps = 0;
    constexpr std::size_t T0_STEP = 10;
    f.log.lists[T0_STEP].objectCount = 0;
    addCycle(f.recording, 1, T0_STEP, {0.0});

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    EXPECT_TRUE(sut.ours.empty() || sut.ours.front().samples == 0U);
    EXPECT_EQ(sut.samplesWithoutBaseline, 1U);
}

TEST(BenchScoring, ErrorsAreAlsoSplitByTheModeThePredictionWasMadeIn) {
    constexpr double NOMINAL_OFFSET_M = 1.0;
    constexpr double CV_MODE_OFFSET_M = 3.0;
    Fixture f;
    addCycle(f.recording, 1, 10, {NOMINAL_OFFSET_M});
    addCycle(f.recording, 2, 12, {CV_MODE_OFFSET_M}, RuntimeMode::ConstantVelocity);

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    ASSERT_EQ(sut.byMode.size(), 2U);
    EXPECT_EQ(sut.byMode[0].mode, RuntimeMode::Nominal);
    EXPECT_EQ(sut.byMode[1].mode, RuntimeMode::ConstantVelocity);
    EXPECT_NEAR(sut.byMode[0].ours.back().ade_m, NOMINAL_OFFSET_M, TOLERANCE);
    EXPECT_NEAR(sut.byMode[1].ours.back().ade_m, CV_MODE_OFFSET_M, TOLERANCE);
    EXPECT_EQ(sut.byMode[1].cv.back().samples, 1U);
    EXPECT_NEAR(sut.ours.back().ade_m, 0.5 * (NOMINAL_OFFSET_M + CV_MODE_OFFSET_M), TOLERANCE);
}

TEST(BenchScoring, PredictionsAndTracksOfTheWarmUpAreNotScored) {
    constexpr double WARM_UP_S = 1.5;  // steps 10 and 12 lie in it, 20 after it
    Fixture f;
    f.options.warmUp_s = WARM_UP_S;
    addCycle(f.recording, 1, 10, {0.0});
    addCycle(f.recording, 2, 12, {0.0});
    addCycle(f.recording, 3, 20, {1.0});

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    EXPECT_EQ(sut.predictionsInWarmUp, 2U);
    EXPECT_EQ(sut.predictionsScored, 1U);
    EXPECT_EQ(sut.tracking.cycles, 1U);
    EXPECT_NEAR(sut.ours.back().ade_m, 1.0, TOLERANCE);
}

TEST(BenchScoring, LaneFollowingIsScoredOnTheSameSamplesAndSplitByMotionClass) {
    // The car's lane: eastbound along y = CAR_Y_M, limit above the car's speed.
    runtime::scene::RoadMapBuilder builder("car lane");
    builder.addLane({"lane", {{-100.0, CAR_Y_M}, {300.0, CAR_Y_M}}, 3.5, 20.0, 0});
    auto map = builder.build();
    ASSERT_TRUE(map.hasValue());
    const LaneFollowingPredictor laneFollowing(std::make_shared<const runtime::scene::RoadMap>(std::move(map).value()));
    Fixture f;
    f.options.laneFollowing = &laneFollowing;
    constexpr double OFFSET_M = 1.0;
    addCycle(f.recording, 1, 10, {OFFSET_M});
    addCycle(f.recording, 2, 12, {OFFSET_M});

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    ASSERT_EQ(sut.lf.size(), sut.ours.size());
    EXPECT_EQ(sut.lf.back().samples, sut.ours.back().samples);
    EXPECT_EQ(sut.lf.back().samples, sut.cv.back().samples);
    EXPECT_NEAR(sut.lf.back().weightedFde_m, 0.0, TOLERANCE);  // exact input on a straight lane at constant speed
    EXPECT_NEAR(sut.lf.back().brier, 0.0, TOLERANCE);
    EXPECT_NEAR(sut.ours.back().weightedFde_m, OFFSET_M, TOLERANCE);
    EXPECT_NEAR(sut.ours.back().brier, 0.0, TOLERANCE);  // one metre off: still the corridor taken
    ASSERT_EQ(sut.byClass.size(), 1U);
    EXPECT_EQ(sut.byClass[0].motion, MotionClass::Straight);
    EXPECT_EQ(sut.byClass[0].lf.back().samples, 2U);
    ASSERT_EQ(sut.byMode.size(), 1U);
    EXPECT_EQ(sut.byMode[0].lf.back().samples, 2U);
    ASSERT_EQ(sut.samples.size(), 2U);
    EXPECT_NEAR(sut.samples[0].fdeLf_m[3], 0.0, TOLERANCE);
    EXPECT_EQ(sut.samples[0].lfModes, 1U);
    EXPECT_EQ(sut.samples[0].motion, MotionClass::Straight);
}

TEST(BenchScoring, WithoutALaneFollowingPredictorItsScoresAreEmpty) {
    Fixture f;
    addCycle(f.recording, 1, 10, {0.0});

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    EXPECT_TRUE(sut.lf.empty());
    ASSERT_FALSE(sut.byMode.empty());
    EXPECT_TRUE(sut.byMode[0].lf.empty());
    EXPECT_TRUE(std::isnan(sut.samples[0].fdeLf_m[0]));
}

TEST(BenchScoring, HorizonsBeyondTheEndOfTheScenarioAreNotScored) {
    Fixture f;
    constexpr std::size_t LATE_STEP = STEPS - 25;  // 2.4 s of future left
    addCycle(f.recording, 1, LATE_STEP, {0.0});

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    ASSERT_EQ(sut.ours.size(), 4U);
    EXPECT_EQ(sut.ours[0].samples, 1U);
    EXPECT_EQ(sut.ours[1].samples, 1U);
    EXPECT_EQ(sut.ours[2].samples, 0U);
    EXPECT_EQ(sut.ours[3].samples, 0U);
}

TEST(BenchScoring, TruthIsInterpolatedLinearlyBetweenSteps) {
    const Scenario scenario = straightScenario();
    Point2 sut;

    ASSERT_TRUE(truthPositionAt(scenario, CAR_ID, 0.25, sut));
    EXPECT_NEAR(sut.x_m, carAt(0.25).x_m, TOLERANCE);
    EXPECT_NEAR(sut.y_m, CAR_Y_M, TOLERANCE);
    EXPECT_FALSE(truthPositionAt(scenario, CAR_ID, (STEPS - 0.5) * STEP_S, sut));  // after the last step
    EXPECT_FALSE(truthPositionAt(scenario, 99, 1.0, sut));
    EXPECT_FALSE(truthPositionAt(scenario, CAR_ID, -0.1, sut));
}

TEST(BenchScoring, OccupancyCountsAHitWhereTheGridHoldsTheTrueFutureAndAMissElsewhere) {
    Fixture f;
    constexpr std::size_t T0_STEP = 10;  // car at x = −10 at t0, +10 m per second
    addCycle(f.recording, 1, T0_STEP, {0.0});
    RecordedGrid& g = f.recording.predictions.back().grid;
    g.originX_m = -32.0F;
    g.originY_m = -32.0F;
    g.resolution_m = 1.0F;
    g.frameInterval_s = 1.0F;
    g.widthCells = 64;
    g.heightCells = 64;
    g.frameCount = 4;
    g.cells.assign(static_cast<std::size_t>(4) * 64 * 64, 0);
    // Frame 0 covers prediction steps 1..10 (x = −9 .. 0): mark the cells of steps 1..5 (x = −9 .. −5).
    constexpr int MARKED_STEPS = 5;
    for (int k = 1; k <= MARKED_STEPS; ++k) {
        Point2 truth;
        ASSERT_TRUE(truthPositionAt(f.scenario, CAR_ID, 1.0 + k * static_cast<double>(static_cast<float>(STEP_S)), truth));
        const auto col = static_cast<std::size_t>(std::floor(truth.x_m + 32.0));
        const auto row = static_cast<std::size_t>(std::floor(truth.y_m + 32.0));
        g.cells[row * 64 + col] = 65535;
    }

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    EXPECT_EQ(sut.occupancy.hits, static_cast<std::size_t>(MARKED_STEPS));
    EXPECT_EQ(sut.occupancy.misses, HORIZON_STEPS - MARKED_STEPS);  // the car stays inside (x <= 30)
    EXPECT_EQ(sut.occupancy.outside, 0U);
    ASSERT_TRUE(sut.snapshot.has_value());
    EXPECT_EQ(sut.snapshot->frame, 3U);
    EXPECT_DOUBLE_EQ(sut.snapshot->horizon_s, 4.0);
}

TEST(BenchScoring, CyclesComeFromHealthWithStaleWhereTheRuntimesMissCounterRose) {
    Fixture f;
    addCycle(f.recording, 1, 10, {0.0}, RuntimeMode::Nominal, false, 1000.0F, 0);
    addCycle(f.recording, 2, 12, {0.0}, RuntimeMode::Nominal, true, 250'000.0F, 1);
    addCycle(f.recording, 3, 14, {0.0}, RuntimeMode::ReducedParticles, false, 2000.0F, 1);
    f.recording.health.back().modeChanges = 1;

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    ASSERT_EQ(sut.cycles.size(), 3U);
    EXPECT_FALSE(sut.cycles[0].stale);
    EXPECT_TRUE(sut.cycles[1].stale);
    EXPECT_FALSE(sut.cycles[2].stale);
    EXPECT_NEAR(sut.cycles[1].t_s, 0.2, 1e-9);
    EXPECT_EQ(sut.cycles[2].mode, RuntimeMode::ReducedParticles);
    EXPECT_EQ(sut.latency.deadlineMisses, 1U);
    EXPECT_DOUBLE_EQ(sut.latency.max_us, 250'000.0);
    EXPECT_EQ(sut.runtimeDeadlineMisses, 1U);
    EXPECT_EQ(sut.modeChanges, 1U);
}

TEST(BenchScoring, ALinkUpdateBetweenCyclesIsNotACycle) {
    Fixture f;
    addCycle(f.recording, 1, 10, {0.0}, RuntimeMode::Nominal, false, 1000.0F, 0);
    Health update{};
    update.linkUpdate = 1;
    update.cycle = 1;  // the last cycle that ended, again
    update.faults = bit(HealthFault::LinkLost);
    f.recording.health.push_back(update);
    addCycle(f.recording, 2, 12, {0.0}, RuntimeMode::Nominal, false, 1000.0F, 0);

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    ASSERT_EQ(sut.cycles.size(), 2U);
    EXPECT_DOUBLE_EQ(sut.latency.max_us, 1000.0) << "the update's zero latency is no cycle's";
}

TEST(BenchScoring, EmptyRecordingScoresNothing) {
    Fixture f;

    const BenchScore sut = scoreRun(f.scenario, f.perception, f.log, f.recording, f.options);

    EXPECT_TRUE(sut.cycles.empty());
    EXPECT_TRUE(sut.ours.empty());
    EXPECT_EQ(sut.tracking.cycles, 0U);
    EXPECT_FALSE(sut.snapshot.has_value());
}

TEST(BenchAcceptance, HoldsAtTheThresholdsAndFailsAboveThem) {
    BenchScore score;
    score.latency.deadlineMisses = 2;
    score.ours.resize(4);
    score.ours[3].samples = 10;
    score.ours[3].ade_m = 1.5;

    EXPECT_TRUE(judge(score, Acceptance{2, 1.5}).held);
    EXPECT_TRUE(judge(score, Acceptance{}).held);
    const Verdict misses = judge(score, Acceptance{1, std::nullopt});
    EXPECT_FALSE(misses.held);
    EXPECT_EQ(misses.failures.size(), 1U);
    const Verdict both = judge(score, Acceptance{1, 1.4});
    EXPECT_FALSE(both.held);
    EXPECT_EQ(both.failures.size(), 2U);
}

TEST(BenchAcceptance, TheRuntimesOwnMissCountAlsoCounts) {
    BenchScore score;
    score.runtimeDeadlineMisses = 1;

    EXPECT_FALSE(judge(score, Acceptance{0, std::nullopt}).held);
}

TEST(BenchAcceptance, AnAdeThresholdWithoutSamplesAtFourSecondsDoesNotHold) {
    BenchScore score;
    score.ours.resize(4);

    EXPECT_FALSE(judge(score, Acceptance{std::nullopt, 10.0}).held);
}

TEST(Recording, PredictionKeepsOnlyItsUsedFramesAndRestoresThem) {
    auto message = std::make_unique<MotionPrediction>();
    message->vehicleCount = 2;
    message->horizonSteps = HORIZON_STEPS;
    message->grid.widthCells = 3;
    message->grid.heightCells = 2;
    message->grid.frameCount = 2;
    message->grid.resolution_m = 0.5F;
    message->grid.cells[1][5] = 1234;
    RecordedPrediction sut;

    ASSERT_TRUE(recordPrediction(*message, sut));
    EXPECT_EQ(sut.vehicles.size(), 2U);
    EXPECT_EQ(sut.grid.cells.size(), 12U);
    EXPECT_EQ(sut.grid.cells[6 + 5], 1234);
    auto restored = std::make_unique<OccupancyGrid>();
    restoreGrid(sut.grid, *restored);
    EXPECT_EQ(restored->cells[1][5], 1234);
    EXPECT_EQ(restored->frameCount, 2U);
}

TEST(Recording, MessagesOfAnotherSchemaOrOverCapacityAreRefused) {
    auto prediction = std::make_unique<MotionPrediction>();
    prediction->header.schemaVersion = MESSAGE_SCHEMA_VERSION + 1;
    TrackList tracks{};
    tracks.trackCount = MAX_TRACKS + 1;
    RecordedPrediction p;
    RecordedTrackList t;

    EXPECT_FALSE(recordPrediction(*prediction, p));
    EXPECT_FALSE(recordTrackList(tracks, t));
}

}  // namespace
}  // namespace augur::hil
