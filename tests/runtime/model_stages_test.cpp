// The model logic of the relations, intention and motion stages on small hand-built maps: how a lane
// change and a dropped lane are described to the filters, how the intention filter treats a vehicle whose
// corridors change, and where the motion stage puts a vehicle that cruises along a straight road.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iterator>
#include <memory>
#include <utility>
#include <vector>

#include "augur/runtime/pipeline_state.hpp"
#include "augur/runtime/scene/road_map_builder.hpp"
#include "augur/runtime/scene/scene.hpp"
#include "augur/runtime/scene_frame.hpp"
#include "augur/runtime/stages/intention_stage.hpp"
#include "augur/runtime/stages/motion_stage.hpp"
#include "augur/runtime/stages/relations_stage.hpp"

namespace augur::runtime {
namespace {

using scene::Point2;

constexpr float LANE_WIDTH_M = 3.2F;
constexpr float LIMIT_MPS = 13.89F;

/// Eastbound: `main` (y = 0, x 0 … 200) continued by `main2` (x 200 … 400); `ramp` beside it on the right
/// (y = −3.2, x 0 … 100), which ends (a dropped lane, lane changes to `main` allowed).
scene::RoadMap laneDropMap() {
    scene::RoadMapBuilder b("lane-drop");
    const auto main = b.addLane({"main", {{0.0, 0.0}, {200.0, 0.0}}, LANE_WIDTH_M, LIMIT_MPS, 0});
    const auto main2 = b.addLane({"main2", {{200.0, 0.0}, {400.0, 0.0}}, LANE_WIDTH_M, LIMIT_MPS, 0});
    const auto ramp = b.addLane({"ramp", {{0.0, -LANE_WIDTH_M}, {100.0, -LANE_WIDTH_M}}, LANE_WIDTH_M, LIMIT_MPS, 0});
    b.addSuccessor(main, main2);
    b.setNeighbour(ramp, scene::Side::Left, main, true);
    b.setNeighbour(main, scene::Side::Right, ramp, false);
    return b.build().value();
}

/// Eastbound `approach` (x 0 … 100) forking at x = 100 into `left` (to (140, 40)) and `right` (to (140, −40)).
scene::RoadMap forkMap() {
    scene::RoadMapBuilder b("fork");
    const auto approach = b.addLane({"approach", {{0.0, 0.0}, {100.0, 0.0}}, LANE_WIDTH_M, LIMIT_MPS, 0});
    const auto left = b.addLane({"left", {{100.0, 0.0}, {120.0, 5.0}, {140.0, 40.0}}, LANE_WIDTH_M, LIMIT_MPS, 0});
    const auto right = b.addLane({"right", {{100.0, 0.0}, {120.0, -5.0}, {140.0, -40.0}}, LANE_WIDTH_M, LIMIT_MPS, 0});
    b.addSuccessor(approach, left);
    b.addSuccessor(approach, right);
    return b.build().value();
}

/// Eastbound motorway of two lanes, `right` (y = 0) and `left` (y = 3.2), 3 km, limited to 33.3 m/s;
/// changes allowed both ways; both continue.
scene::RoadMap twoLaneMap() {
    constexpr float MOTORWAY_LIMIT_MPS = 33.33F;
    scene::RoadMapBuilder b("two-lanes");
    const auto right = b.addLane({"right", {{0.0, 0.0}, {3000.0, 0.0}}, LANE_WIDTH_M, MOTORWAY_LIMIT_MPS, 0});
    const auto left = b.addLane({"left", {{0.0, LANE_WIDTH_M}, {3000.0, LANE_WIDTH_M}}, LANE_WIDTH_M, MOTORWAY_LIMIT_MPS, 0});
    const auto rightOn = b.addLane({"right-on", {{3000.0, 0.0}, {4000.0, 0.0}}, LANE_WIDTH_M, MOTORWAY_LIMIT_MPS, 0});
    const auto leftOn = b.addLane({"left-on", {{3000.0, LANE_WIDTH_M}, {4000.0, LANE_WIDTH_M}}, LANE_WIDTH_M, MOTORWAY_LIMIT_MPS, 0});
    b.setNeighbour(right, scene::Side::Left, left, true);
    b.setNeighbour(left, scene::Side::Right, right, true);
    b.addSuccessor(right, rightOn);
    b.addSuccessor(left, leftOn);
    return b.build().value();
}

/// A cycle that took an object list.
CycleContext withInput() {
    CycleContext context;
    context.hadInput = true;
    return context;
}

/// The pipeline's state and frame with the stages under test on one map.
struct Pipeline {
    explicit Pipeline(const scene::RoadMap& roadMap) : map(roadMap) {
        scene::CorridorSearchParams search;
        search.horizon_s = 4.0;
        search.accel_mps2 = 3.0;
        scenery = std::make_unique<scene::Scene>(
            scene::Scene::create(map, scene::SceneCapacities{}, search).value());
        state = makePipelineState();
        frame = makeSceneFrame();
        relations = std::make_unique<RelationsStage>(*scenery, *state, *frame, MAX_PREDICTED_VEHICLES,
                                                     MAX_CORRIDORS_PER_VEHICLE);
    }

    /// One confirmed car track at (x, y) heading east at `speed` (time `stamp_ns`).
    void setCar(float x_m, float y_m, float speed_mps, std::int64_t stamp_ns = 0) {
        state->tracks.trackCount = 1;
        Track& t = state->tracks.tracks[0];
        t = Track{};
        t.id = 7;
        t.objectClass = ObjectClass::Car;
        t.x_m = x_m;
        t.y_m = y_m;
        t.vx_mps = speed_mps;
        TrackMeasurement& m = frame->measurements[0];
        m = TrackMeasurement{};
        m.heading_rad = 0.0F;
        m.speed_mps = speed_mps;
        m.stdX_m = m.stdY_m = 0.3F;
        m.stdHeading_rad = 0.05F;
        m.stdSpeed_mps = 0.3F;
        m.stamp_ns = stamp_ns;
        m.trackSpeedStd_mps = 0.2F;
        m.trackAccel_mps2 = 0.0F;
        m.trackAccelStd_mps2 = 0.5F;
        frame->sourceStamp_ns = stamp_ns;
        frame->tracksValid = true;
    }

    /// Confirmed car tracks heading east at `speed`, one at each x of `xs` on y = 0 (time 0).
    void setCars(const std::vector<float>& xs, float speed_mps) {
        state->tracks.trackCount = static_cast<std::uint32_t>(xs.size());
        for (std::size_t i = 0; i < xs.size(); ++i) {
            Track& t = state->tracks.tracks[i];
            t = Track{};
            t.id = static_cast<std::uint32_t>(10 + i);
            t.objectClass = ObjectClass::Car;
            t.x_m = xs[i];
            t.vx_mps = speed_mps;
            TrackMeasurement& m = frame->measurements[i];
            m = TrackMeasurement{};
            m.speed_mps = speed_mps;
            m.stdX_m = m.stdY_m = 0.3F;
            m.stdHeading_rad = 0.05F;
            m.stdSpeed_mps = 0.3F;
            m.trackSpeedStd_mps = 0.2F;
            m.trackAccelStd_mps2 = 0.5F;
        }
        frame->sourceStamp_ns = 0;
        frame->tracksValid = true;
    }

    /// An intention stage for up to 4 vehicles, `particles` scene particles (a quarter when reduced).
    std::unique_ptr<IntentionStage> intention(std::uint32_t particles) {
        IntentionStageSettings settings;
        settings.maxVehicles = 4;
        settings.particles = particles;
        settings.particlesReduced = particles / 4;
        return IntentionStage::create(settings, *state, *frame).value();
    }
    StageStatus relate(RuntimeMode mode = RuntimeMode::Nominal) {
        CycleContext context = withInput();
        context.mode = mode;
        return relations->run(context);
    }

    const scene::RoadMap& map;
    std::unique_ptr<scene::Scene> scenery;
    std::unique_ptr<PipelineState> state;
    std::unique_ptr<SceneFrame> frame;
    std::unique_ptr<RelationsStage> relations;
};

TEST(RelationsStage, ALaneChangeLeavesTheVehiclesPositionAndJoinsTheTargetLaneGradually) {
    const scene::RoadMap map = laneDropMap();
    Pipeline sut(map);
    constexpr float SPEED_MPS = 10.0F;
    constexpr float JOIN_M = 4.0F * SPEED_MPS;  // a lane change joins the target lane over v · 4 s
    sut.setCar(20.0F, -LANE_WIDTH_M, SPEED_MPS);

    ASSERT_EQ(sut.relate(), StageStatus::Ok);

    ASSERT_EQ(sut.frame->vehicleCount, 1U);
    const FrameVehicle& v = sut.frame->vehicles[0];
    ASSERT_EQ(v.corridorCount, 2U);  // stay on the ramp, or change to the main lane
    std::uint32_t change = 0;
    while (change < v.corridorCount && std::fabs(sut.frame->polyY_m[polylineOffset(0, change) + FRAME_POLYLINE_POINTS - 1]) > 0.1F) {
        ++change;
    }
    ASSERT_LT(change, v.corridorCount);
    const std::size_t first = polylineOffset(0, change);
    // Starts at the vehicle, not on the target lane …
    EXPECT_NEAR(sut.frame->polyX_m[first], 20.0F, 1e-3F);
    EXPECT_NEAR(sut.frame->polyY_m[first], -LANE_WIDTH_M, 1e-3F);
    // … and is on it once past the join length.
    for (std::size_t i = 0; i < FRAME_POLYLINE_POINTS; ++i) {
        const float s = sut.frame->polyS_m[first + i];
        const float expectedY = s < JOIN_M ? -LANE_WIDTH_M * (1.0F - s / JOIN_M) : 0.0F;
        EXPECT_NEAR(sut.frame->polyY_m[first + i], expectedY, 1e-3F) << "s = " << s;
    }
    // The intention filter sees the direction towards the target lane.
    EXPECT_NEAR(v.corridors[change].road.heading_rad, std::atan(LANE_WIDTH_M / JOIN_M), 1e-3F);
}

TEST(RelationsStage, ADroppedLaneMergesGraduallyBeforeItsEndAndNeitherItNorTheMapsEndIsAStop) {
    const scene::RoadMap map = laneDropMap();
    Pipeline sut(map);
    constexpr float X_M = 40.0F;  // the ramp ends 60 m ahead, within the corridors' 74 m
    constexpr float SPEED_MPS = 10.0F;
    constexpr float MERGE_AT_M = 100.0F - X_M;
    constexpr float MERGE_OVER_M = 4.0F * SPEED_MPS;  // the travel of a lane change: v · 4 s
    sut.setCar(X_M, -LANE_WIDTH_M, SPEED_MPS);

    ASSERT_EQ(sut.relate(), StageStatus::Ok);

    const FrameVehicle& v = sut.frame->vehicles[0];
    ASSERT_EQ(v.corridorCount, 2U);  // merge at the end, or change lanes now
    for (std::uint32_t k = 0; k < v.corridorCount; ++k) {
        const FrameCorridor& c = v.corridors[k];
        EXPECT_NEAR(c.length_m, 74.0F, 1e-3F);  // on past the ramp's end, along the main lane
        EXPECT_EQ(c.limits.stopDistance_m, kernels::markov::NO_LIMIT);
        EXPECT_EQ(c.road.mustGiveWay, 0);
        const std::size_t first = polylineOffset(0, k);
        EXPECT_NEAR(sut.frame->polyY_m[first + FRAME_POLYLINE_POINTS - 1], 0.0F, 1e-3F);
        if (c.laneChange) {
            continue;
        }
        // Stays on the ramp until the merge's travel before the end, then moves over linearly.
        for (std::size_t i = 0; i < FRAME_POLYLINE_POINTS; ++i) {
            const float s = sut.frame->polyS_m[first + i];
            const float moved = std::clamp((s - (MERGE_AT_M - MERGE_OVER_M)) / MERGE_OVER_M, 0.0F, 1.0F);
            EXPECT_NEAR(sut.frame->polyY_m[first + i], -LANE_WIDTH_M * (1.0F - moved), 1e-3F) << "s = " << s;
            EXPECT_NEAR(sut.frame->polyX_m[first + i], X_M + s, 1e-3F) << "s = " << s;
        }
    }

    // On the main lane near the map's end (main2 has no successor, nor has any neighbour): no stop.
    sut.setCar(380.0F, 0.0F, 10.0F);
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    ASSERT_EQ(sut.frame->vehicles[0].corridorCount, 1U);
    EXPECT_EQ(sut.frame->vehicles[0].corridors[0].limits.stopDistance_m, kernels::markov::NO_LIMIT);
}

/// True when every corridor of the first vehicle starts on lane `id`.
bool allStartOn(const Pipeline& p, const scene::RoadMap& map, const char* id) {
    const FrameVehicle& v = p.frame->vehicles[0];
    bool all = v.corridorCount > 0;
    for (std::uint32_t k = 0; k < v.corridorCount; ++k) {
        all = all && v.corridors[k].routeLanes > 0 && map.laneId(v.corridors[k].route[0]) == id;
    }
    return all;
}

TEST(RelationsStage, AfterASkippedCycleLanesAreMatchedWithoutTheMemoryOfTheCyclesBefore) {
    const scene::RoadMap map = forkMap();
    Pipeline sut(map);
    constexpr float SPEED_MPS = 5.0F;
    // On the left branch, clear of the right one; then a track lagging towards the right branch, outside
    // the left one's gate (half a lane plus 1 m) and inside the right one's.
    constexpr float ON_LEFT_X_M = 112.0F;
    constexpr float ON_LEFT_Y_M = 3.0F;
    constexpr float LAGGING_X_M = 112.5F;
    constexpr float LAGGING_Y_M = -0.5F;
    sut.setCar(ON_LEFT_X_M, ON_LEFT_Y_M, SPEED_MPS);
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    ASSERT_TRUE(allStartOn(sut, map, "left"));

    sut.setCar(LAGGING_X_M, LAGGING_Y_M, SPEED_MPS);
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    EXPECT_TRUE(allStartOn(sut, map, "left"));  // the track's memory: it entered the left branch

    // A cycle in a degraded mode skips the stage; its memory is no longer the previous cycle's.
    sut.setCar(ON_LEFT_X_M, ON_LEFT_Y_M, SPEED_MPS);
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    ASSERT_EQ(sut.relate(RuntimeMode::ConstantVelocity), StageStatus::Skipped);
    sut.setCar(LAGGING_X_M, LAGGING_Y_M, SPEED_MPS);
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    EXPECT_TRUE(allStartOn(sut, map, "right"));  // as without memory
}

TEST(IntentionStage, AVehicleWhoseCorridorsChangeHasItsParticlesRedrawnOverTheNewOnes) {
    const scene::RoadMap map = forkMap();
    Pipeline sut(map);
    auto intention = sut.intention(512);
    constexpr float SPEED_MPS = 8.0F;
    constexpr std::int64_t STEP_NS = 200'000'000;
    CycleContext context = withInput();
    // Far from the fork (corridors of 4 s · 8 m/s + ½ · 3 m/s² · 16 s² + 10 m = 66 m): one corridor. Then
    // close enough that both branches are within reach.
    float x = 0.0F;
    std::int64_t stamp = 0;
    for (int cycle = 0; cycle < 5; ++cycle, x += SPEED_MPS * 0.2F, stamp += STEP_NS) {
        sut.setCar(x, 0.0F, SPEED_MPS, stamp);
        ASSERT_EQ(sut.relate(), StageStatus::Ok);
        ASSERT_EQ(sut.frame->vehicles[0].corridorCount, 1U);
        ASSERT_EQ(intention->run(context), StageStatus::Ok);
    }
    x = 50.0F;
    sut.setCar(x, 0.0F, SPEED_MPS, stamp);
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    ASSERT_EQ(sut.frame->vehicles[0].corridorCount, 2U);

    ASSERT_EQ(intention->run(context), StageStatus::Ok);

    // Nothing tells the branches apart yet: both keep a fair share (the particles of the one corridor
    // before would otherwise all have stayed on index 0).
    constexpr float FAIR_SHARE_MIN = 0.3F;
    const FrameVehicle& v = sut.frame->vehicles[0];
    EXPECT_GT(v.corridorProbability[0], FAIR_SHARE_MIN);
    EXPECT_GT(v.corridorProbability[1], FAIR_SHARE_MIN);
    EXPECT_NEAR(v.corridorProbability[0] + v.corridorProbability[1], 1.0F, 1e-5F);
}

/// The probability of keeping the lane (every corridor that is not a lane change) of frame vehicle 0.
float keepProbability(const SceneFrame& frame) {
    const FrameVehicle& v = frame.vehicles[0];
    float keep = 0.0F;
    for (std::uint32_t k = 0; k < v.corridorCount; ++k) {
        keep += v.corridors[k].laneChange ? 0.0F : v.corridorProbability[k];
    }
    return keep;
}

/// Noise uniform in [−amplitude, amplitude) from a linear congruential generator: the same numbers on
/// every platform.
struct UniformNoise {
    std::uint32_t state;
    float operator()(float amplitude) {
        state = state * 1664525U + 1013904223U;
        return (static_cast<float>(state >> 8) / 16777216.0F * 2.0F - 1.0F) * amplitude;
    }
};

TEST(IntentionStage, PastAForkTheBranchesStartFromTheSplitPublishedBeforeItNotFromTheParticles) {
    const scene::RoadMap map = forkMap();
    Pipeline sut(map);
    auto intention = sut.intention(64);
    constexpr float SPEED_MPS = 4.0F;
    constexpr std::int64_t STEP_NS = 200'000'000;
    CycleContext context = withInput();
    UniformNoise noise{11};
    // Cycles on the approach with both branches ahead and a noisy position: nothing tells the branches
    // apart, so the published split stays even, while resampling lets the particles drift onto one.
    float x = 40.0F;
    std::int64_t stamp = 0;
    for (; x < 99.0F; x += SPEED_MPS * 0.2F, stamp += STEP_NS) {
        sut.setCar(x + noise(0.5F), noise(0.5F), SPEED_MPS, stamp);
        ASSERT_EQ(sut.relate(), StageStatus::Ok);
        ASSERT_EQ(intention->run(context), StageStatus::Ok);
    }
    const FrameVehicle& v = sut.frame->vehicles[0];
    ASSERT_EQ(v.corridorCount, 2U);
    EXPECT_NEAR(v.corridorProbability[0], 0.5F, 1e-5F);
    // Just past the fork, on both branches' first metres: the corridors now start on different lanes.
    sut.setCar(100.4F, 0.0F, SPEED_MPS, stamp);
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    ASSERT_EQ(v.corridorCount, 2U);
    ASSERT_NE(v.corridors[0].route[0], v.corridors[1].route[0]);
    ASSERT_EQ(intention->run(context), StageStatus::Ok);
    constexpr float FAIR_SHARE_MIN = 0.3F;
    EXPECT_GT(v.corridorProbability[0], FAIR_SHARE_MIN);
    EXPECT_GT(v.corridorProbability[1], FAIR_SHARE_MIN);
}

TEST(IntentionStage, ACarHoldingItsSpeedBelowTheLimitKeepsItsLaneOnAMotorway) {
    const scene::RoadMap map = twoLaneMap();
    // A bus at 24 m/s, a car at 26 m/s and one in a queue at 8 m/s on a 33.3 m/s motorway: none speeds
    // up; each is in the right lane, measured with 0.3 m and 0.05 rad of noise, for 12 s.
    for (const float speed : {8.0F, 24.0F, 26.0F}) {
        Pipeline sut(map);
        auto intention = sut.intention(1024);
        CycleContext context = withInput();
        UniformNoise noise{12345U};
        float keepAtTheEnd = 0.0F;
        float keepLeast = 1.0F;
        constexpr int CYCLES = 60;
        for (int cycle = 0; cycle < CYCLES; ++cycle) {
            const float x = 10.0F + speed * 0.2F * static_cast<float>(cycle);
            sut.setCar(x + noise(0.3F), noise(0.3F), speed, static_cast<std::int64_t>(cycle) * 200'000'000);
            sut.frame->measurements[0].heading_rad = noise(0.05F);
            ASSERT_EQ(sut.relate(), StageStatus::Ok);
            ASSERT_EQ(intention->run(context), StageStatus::Ok);
            ASSERT_EQ(sut.frame->vehicles[0].corridorCount, 2U) << "keep the lane, change to the left";
            const float keep = keepProbability(*sut.frame);
            keepLeast = std::min(keepLeast, keep);
            keepAtTheEnd = keep;
        }
        // Each of the two causes alone fails this: a go intention that aims at the limit (the particles
        // run ahead of the car, and the lane change, whose heading turns some of that surplus sideways,
        // takes the weight), and a first cycle that steps particles drawn from its own measurement
        // (those that move least win, again the lane change's). With both, keeping the lane got 0.00
        // at 24 and 26 m/s from the first cycle on.
        EXPECT_GT(keepAtTheEnd, 0.9F) << "speed " << speed;
        EXPECT_GT(keepLeast, 0.3F) << "speed " << speed;
    }
}

TEST(IntentionStage, TheFiltersStepByTheSensorTimeBetweenListsNotByTheCycle) {
    // A car at 26 m/s keeps the right lane of a motorway; its lists come from a 10 Hz sensor, each
    // cycle takes one (the on_input trigger). Stepped by a fixed 0.2 s, the particles would run ahead
    // of every list by 2.6 m.
    const scene::RoadMap map = twoLaneMap();
    constexpr float SPEED_MPS = 26.0F;
    constexpr std::int64_t LIST_PERIOD_NS = 100'000'000;
    Pipeline sut(map);
    auto intention = sut.intention(1024);
    CycleContext context = withInput();
    UniformNoise noise{777U};
    float keepLeast = 1.0F;
    for (int list = 0; list < 100; ++list) {
        const float x = 10.0F + SPEED_MPS * 0.1F * static_cast<float>(list);
        sut.setCar(x + noise(0.3F), noise(0.3F), SPEED_MPS, list * LIST_PERIOD_NS);
        sut.frame->measurements[0].heading_rad = noise(0.05F);
        ASSERT_EQ(sut.relate(), StageStatus::Ok);
        ASSERT_EQ(intention->run(context), StageStatus::Ok);
        if (list >= 10) {
            keepLeast = std::min(keepLeast, keepProbability(*sut.frame));
        }
    }
    EXPECT_GT(keepLeast, 0.5F) << "after the first second the lane kept is the likelier";
    EXPECT_GT(keepProbability(*sut.frame), 0.9F);
}

TEST(IntentionStage, ACycleWithoutANewerListKeepsTheEstimatesOfTheLastStep) {
    // A car on the motorway; after 5 lists every cycle sees the same tracks (the sensor is late):
    // the filters do not step again, so nothing moves on without a measurement.
    const scene::RoadMap map = twoLaneMap();
    Pipeline sut(map);
    auto intention = sut.intention(1024);
    CycleContext context = withInput();
    for (int list = 0; list < 5; ++list) {
        sut.setCar(10.0F + 5.2F * static_cast<float>(list), 0.1F, 26.0F, list * 200'000'000);
        ASSERT_EQ(sut.relate(), StageStatus::Ok);
        ASSERT_EQ(intention->run(context), StageStatus::Ok);
    }
    const IntentionEstimate before = sut.state->intentions.vehicles[0];
    const float keepBefore = keepProbability(*sut.frame);
    context.hadInput = false;
    for (int cycle = 0; cycle < 3; ++cycle) {
        ASSERT_EQ(sut.relate(), StageStatus::Ok);
        ASSERT_EQ(intention->run(context), StageStatus::Ok);
        const IntentionEstimate& now = sut.state->intentions.vehicles[0];
        ASSERT_EQ(now.corridorCount, before.corridorCount);
        for (std::uint32_t k = 0; k < now.corridorCount; ++k) {
            EXPECT_EQ(now.corridorProbability[k], before.corridorProbability[k]) << "cycle " << cycle;
        }
        EXPECT_EQ(now.stopProbability, before.stopProbability);
        EXPECT_EQ(now.laneChangeProbability, before.laneChangeProbability);
        EXPECT_EQ(keepProbability(*sut.frame), keepBefore) << "the frame, which the motion stage reads, too";
    }
}

TEST(IntentionStage, AnInputTheFiltersWouldRejectFailsTheCycleAndTheFiltersStartOverOnTheNext) {
    const scene::RoadMap map = forkMap();
    Pipeline sut(map);
    auto intention = sut.intention(256);
    CycleContext context = withInput();
    constexpr float SPEED_MPS = 8.0F;
    constexpr std::int64_t STEP_NS = 200'000'000;
    sut.setCar(0.0F, 0.0F, SPEED_MPS, 0);
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    ASSERT_EQ(intention->run(context), StageStatus::Ok);
    ASSERT_EQ(sut.state->intentions.vehicleCount, 1U);

    // A diverged track: its position deviation is no number (the stage's floor of 5 cm keeps NaN).
    sut.setCar(SPEED_MPS * 0.2F, 0.0F, SPEED_MPS, STEP_NS);
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    sut.frame->measurements[0].stdX_m = NAN;
    EXPECT_EQ(intention->run(context), StageStatus::Failed);
    EXPECT_EQ(intention->rejectedCycles(), 1U);
    EXPECT_EQ(sut.state->intentions.vehicleCount, 0U);  // nothing stale is published

    sut.setCar(2.0F * SPEED_MPS * 0.2F, 0.0F, SPEED_MPS, 2 * STEP_NS);
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    ASSERT_EQ(intention->run(context), StageStatus::Ok);
    ASSERT_EQ(sut.state->intentions.vehicleCount, 1U);
    const IntentionEstimate& e = sut.state->intentions.vehicles[0];
    EXPECT_TRUE(std::isfinite(e.stopProbability));
    EXPECT_NEAR(e.corridorProbability[0], 1.0F, 1e-5F);  // one corridor this far from the fork
    EXPECT_EQ(intention->rejectedCycles(), 1U);
}

/// config/default.yaml's chain and prediction sizes for up to `vehicles` vehicles, no CPU sizing.
MotionStageSettings defaultMotionSettings(std::uint32_t vehicles) {
    MotionStageSettings settings;
    auto& chain = settings.chain;
    chain.positionCells = 100;
    chain.positionMax_m = 200.0F;
    chain.speedCells = 10;
    chain.speedMax_mps = 40.0F;
    chain.inputCells = 7;
    chain.accelMax_mps2 = 8.0F;
    chain.samplesPerAxis = 10;
    settings.prediction.horizonSteps = 40;
    settings.prediction.maxCorridors = static_cast<int>(2 * vehicles);
    settings.prediction.maxPolylinePoints = static_cast<int>(FRAME_POLYLINE_POINTS);
    settings.prediction.gridFrames = 4;
    settings.prediction.rules.speed = kernels::markov::RuleSpeed::Typical;
    settings.maxVehicles = vehicles;
    return settings;
}

/// defaultMotionSettings with config/default.yaml's CPU sizing (50 x 5 beyond the `fullChainVehicles` nearest).
MotionStageSettings cpuSizedMotionSettings(std::uint32_t vehicles, std::uint32_t fullChainVehicles) {
    MotionStageSettings settings = defaultMotionSettings(vehicles);
    kernels::markov::ChainConfig coarse = settings.chain;
    coarse.positionCells = 50;
    coarse.speedCells = 5;
    settings.cpuChain = coarse;
    settings.cpuFullChainVehicles = fullChainVehicles;
    return settings;
}

TEST(MotionStage, ACarCruisingAlongAStraightRoadIsPredictedAtItsSpeedFromItsOwnPosition) {
    const scene::RoadMap map = laneDropMap();
    Pipeline sut(map);
    const MotionStageSettings settings = defaultMotionSettings(4);
    auto motion = MotionStage::create(settings, *sut.state, *sut.frame).value();
    constexpr float X0_M = 10.0F;
    constexpr float SPEED_MPS = 12.5F;  // between two speed cells' representative speeds (11.1, 15.6)
    sut.setCar(X0_M, 0.0F, SPEED_MPS);
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    sut.frame->vehicles[0].corridorProbability[0] = 1.0F;  // the intention stage's output, one corridor
    CycleContext context = withInput();

    ASSERT_EQ(motion->run(context), StageStatus::Ok);

    ASSERT_EQ(sut.state->prediction.vehicleCount, 1U);
    const VehiclePrediction& p = sut.state->prediction.vehicles[0];
    ASSERT_GE(p.corridorCount, 1U);
    const CorridorPoint* points = p.corridors[0].points;
    constexpr float ONE_SECOND_TOLERANCE_M = 0.3F;  // no half-cell start, no snapping to a cell's speed
    constexpr float FOUR_SECONDS_TOLERANCE_M = 1.5F;
    EXPECT_NEAR(points[9].sMean_m, SPEED_MPS * 1.0F, ONE_SECOND_TOLERANCE_M);
    EXPECT_NEAR(points[9].x_m, X0_M + SPEED_MPS * 1.0F, ONE_SECOND_TOLERANCE_M);
    EXPECT_NEAR(points[39].x_m, X0_M + SPEED_MPS * 4.0F, FOUR_SECONDS_TOLERANCE_M);
    EXPECT_NEAR(points[39].y_m, 0.0F, 1e-3F);
}

TEST(MotionStage, ACarPullingAwayIsPredictedToSpeedUpTowardsTheLimit) {
    const scene::RoadMap map = laneDropMap();
    Pipeline sut(map);
    MotionStageSettings settings = defaultMotionSettings(4);
    settings.prediction.rules.freeRoadExponent = 4.0F;  // config/default.yaml's motion.free_road_exponent
    settings.prediction.rules.pressReaction_s = 0.5F;   // and motion.press_reaction_s
    auto motion = MotionStage::create(settings, *sut.state, *sut.frame).value();
    constexpr float SPEED_MPS = 5.0F;
    constexpr float ACCEL_MPS2 = 2.5F;  // 5 deviations of the track's estimate: evidently speeding up
    sut.setCar(10.0F, 0.0F, SPEED_MPS);
    sut.frame->measurements[0].trackAccel_mps2 = ACCEL_MPS2;
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    sut.frame->vehicles[0].corridorProbability[0] = 1.0F;
    CycleContext context = withInput();

    ASSERT_EQ(motion->run(context), StageStatus::Ok);

    ASSERT_EQ(sut.state->prediction.vehicleCount, 1U);
    const CorridorPoint* points = sut.state->prediction.vehicles[0].corridors[0].points;
    // After 4 s the Intelligent Driver Model's driver (a = 2.67 m/s², the gentlest accelerating input; δ = 4;
    // v0 the limit, 13.89 m/s) is at 12.7 m/s and 38.3 m on; SUMO's Krauss driver (full acceleration up to
    // the limit) at the limit and 40.8 m on. One whose wish were its speed now (5 m/s) stops accelerating
    // when its pedal is released: about 10 m/s and 36 m. The chain's speed cells are 4.4 m/s wide, and the
    // limit lies in the upper half of the cell pair around it, so the mean may end up to half a cell above.
    const float finalSpeed_mps = (points[39].sMean_m - points[38].sMean_m) / 0.1F;
    EXPECT_GT(finalSpeed_mps, 11.5F);
    EXPECT_LT(finalSpeed_mps, LIMIT_MPS + 2.2F);
    EXPECT_GT(points[39].sMean_m, 38.0F);
    EXPECT_LT(points[39].sMean_m, 45.0F);
}

/// One vehicle of `objectClass` on twoLaneMap's motorway (33.33 m/s) at `speed_mps`, evidently speeding up at
/// 2.5 m/s², its lane kept, with the class bounds `bounds`: its first corridor's prediction.
const CorridorPoint* predictedSpeedingUp(Pipeline& sut, const ClassBounds& bounds, ObjectClass objectClass,
                                         float speed_mps) {
    sut.relations = std::make_unique<RelationsStage>(*sut.scenery, *sut.state, *sut.frame, MAX_PREDICTED_VEHICLES,
                                                     MAX_CORRIDORS_PER_VEHICLE, bounds);
    MotionStageSettings settings = defaultMotionSettings(4);
    settings.prediction.rules.freeRoadExponent = 4.0F;
    settings.prediction.rules.pressReaction_s = 0.5F;
    auto motion = MotionStage::create(settings, *sut.state, *sut.frame).value();
    sut.setCar(100.0F, 0.0F, speed_mps);
    sut.state->tracks.tracks[0].objectClass = objectClass;
    sut.frame->measurements[0].trackAccel_mps2 = 2.5F;
    EXPECT_EQ(sut.relate(), StageStatus::Ok);
    const FrameVehicle& v = sut.frame->vehicles[0];
    for (std::uint32_t k = 0; k < v.corridorCount; ++k) {
        sut.frame->vehicles[0].corridorProbability[k] = v.corridors[k].laneChange ? 0.0F : 1.0F;
    }
    CycleContext context = withInput();
    EXPECT_EQ(motion->run(context), StageStatus::Ok);
    return sut.state->prediction.vehicles[0].corridors[0].points;
}

TEST(MotionStage, ABusPullingAwayOnAMotorwayIsPredictedUpToItsTopSpeedNotTheLimit) {
    const scene::RoadMap map = twoLaneMap();  // 33.33 m/s
    Pipeline sut(map);
    constexpr float BUS_TOP_MPS = 27.78F;
    const ClassBounds bounds{{}, {BUS_TOP_MPS, 0.0F}};
    constexpr float SPEED_MPS = 25.0F;
    // Evidently speeding up: a driver who is takes at least the limit, here the bus's top speed.
    const auto finalSpeed = [](const CorridorPoint* points) { return (points[39].sMean_m - points[38].sMean_m) / 0.1F; };
    const float bus = finalSpeed(predictedSpeedingUp(sut, bounds, ObjectClass::Bus, SPEED_MPS));
    const FrameVehicle& v = sut.frame->vehicles[0];
    EXPECT_FLOAT_EQ(v.corridors[0].road.goSpeed_mps, BUS_TOP_MPS);
    EXPECT_FLOAT_EQ(v.corridors[0].limits.speedLimit_mps, BUS_TOP_MPS);
    const float car = finalSpeed(predictedSpeedingUp(sut, bounds, ObjectClass::Car, SPEED_MPS));
    EXPECT_NEAR(v.corridors[0].road.goSpeed_mps, 33.33F, 1e-3F);
    // 2.1 m/s cells (defaultMotionSettings): the mean may end up to about a cell above the wish.
    EXPECT_LT(bus, BUS_TOP_MPS + 2.2F);
    EXPECT_GT(car, bus + 1.5F);
}

TEST(MotionStage, ABusSpeedingUpIsPredictedNoFasterThanItsTopAccelerationAllows) {
    const scene::RoadMap map = twoLaneMap();  // 33.33 m/s
    Pipeline sut(map);
    constexpr float BUS_TOP_ACCEL_MPS2 = 1.5F;
    const ClassBounds bounds{{}, {0.0F, BUS_TOP_ACCEL_MPS2}};
    constexpr float SPEED_MPS = 15.0F;
    constexpr float HORIZON_S = 4.0F;
    const float bus = predictedSpeedingUp(sut, bounds, ObjectClass::Bus, SPEED_MPS)[39].sMean_m;
    EXPECT_FLOAT_EQ(sut.frame->vehicles[0].corridors[0].limits.topAccel_mps2, BUS_TOP_ACCEL_MPS2);
    const float car = predictedSpeedingUp(sut, bounds, ObjectClass::Car, SPEED_MPS)[39].sMean_m;
    EXPECT_EQ(sut.frame->vehicles[0].corridors[0].limits.topAccel_mps2, 0.0F);
    // At most 15·4 + ½·1.5·4² = 72 m (2.1 m/s speed cells: within a metre); a car speeds up harder.
    EXPECT_LT(bus, SPEED_MPS * HORIZON_S + 0.5F * BUS_TOP_ACCEL_MPS2 * HORIZON_S * HORIZON_S + 1.0F);
    EXPECT_GT(bus, SPEED_MPS * HORIZON_S + 3.0F);
    EXPECT_GT(car, bus + 4.0F);
}

/// Cars on the lane-drop map's main lane, the ego at the origin: the nearest first in distance, listed
/// out of that order so that the ranking, not the frame order, decides.
const std::vector<float> CARS_X_M{150.0F, 20.0F, 90.0F, 50.0F};
constexpr float CARS_SPEED_MPS = 12.5F;

/// Runs one cycle of `motion` on the cars (one corridor each, as the intention stage would leave them).
void predictCars(Pipeline& sut, MotionStage& motion) {
    sut.setCars(CARS_X_M, CARS_SPEED_MPS);
    ASSERT_EQ(sut.relate(), StageStatus::Ok);
    ASSERT_EQ(sut.frame->vehicleCount, CARS_X_M.size());
    for (std::uint32_t v = 0; v < sut.frame->vehicleCount; ++v) {
        std::fill(std::begin(sut.frame->vehicles[v].corridorProbability), std::end(sut.frame->vehicles[v].corridorProbability), 0.0F);
        sut.frame->vehicles[v].corridorProbability[0] = 1.0F;
    }
    CycleContext context = withInput();
    ASSERT_EQ(motion.run(context), StageStatus::Ok);
}

TEST(MotionStage, OnTheCpuOnlyTheVehiclesNearestTheEgoKeepTheFullChain) {
    const scene::RoadMap map = laneDropMap();
    Pipeline full(map);
    auto fullChain = MotionStage::create(defaultMotionSettings(4), *full.state, *full.frame).value();
    predictCars(full, *fullChain);
    Pipeline sut(map);
    constexpr std::uint32_t FULL_CHAIN_VEHICLES = 2;
    auto motion = MotionStage::create(cpuSizedMotionSettings(4, FULL_CHAIN_VEHICLES), *sut.state, *sut.frame).value();
    ASSERT_FALSE(motion->onGpu());

    predictCars(sut, *motion);

    EXPECT_EQ(motion->coarseVehicles(), 2U);
    EXPECT_EQ(fullChain->coarseVehicles(), 0U);
    const MotionPrediction& out = sut.state->prediction;
    const MotionPrediction& reference = full.state->prediction;
    ASSERT_EQ(out.vehicleCount, 4U);
    ASSERT_EQ(reference.vehicleCount, 4U);
    for (std::uint32_t v = 0; v < out.vehicleCount; ++v) {
        const float x0 = sut.frame->vehicles[v].x_m;
        const bool nearest = x0 < 60.0F;  // the cars at 20 and 50 m
        const CorridorPoint* points = out.vehicles[v].corridors[0].points;
        const CorridorPoint* fullPoints = reference.vehicles[v].corridors[0].points;
        ASSERT_EQ(out.vehicles[v].corridorCount, 1U);
        for (int k = 0; k < 40; ++k) {
            ASSERT_TRUE(std::isfinite(points[k].sMean_m) && std::isfinite(points[k].sStd_m) &&
                        std::isfinite(points[k].x_m) && std::isfinite(points[k].y_m))
                << "vehicle " << v << " step " << k;
        }
        if (nearest) {
            // The same chain on the same input: the same numbers as without the CPU sizing.
            EXPECT_EQ(std::memcmp(points, fullPoints, 40 * sizeof(CorridorPoint)), 0) << "vehicle at x " << x0;
        } else {
            // The coarser discretisation of the same model: the vehicle still at its speed from its position.
            constexpr float COARSE_ONE_SECOND_TOLERANCE_M = 1.0F;
            constexpr float COARSE_FOUR_SECONDS_TOLERANCE_M = 3.0F;
            EXPECT_NE(std::memcmp(points, fullPoints, 40 * sizeof(CorridorPoint)), 0) << "vehicle at x " << x0;
            EXPECT_NEAR(points[9].sMean_m, CARS_SPEED_MPS * 1.0F, COARSE_ONE_SECOND_TOLERANCE_M) << "vehicle at x " << x0;
            EXPECT_NEAR(points[39].sMean_m, fullPoints[39].sMean_m, COARSE_FOUR_SECONDS_TOLERANCE_M) << "vehicle at x " << x0;
        }
    }
}

TEST(MotionStage, WithNoFullChainVehiclesEveryVehicleTakesTheCoarserChainOnTheCpu) {
    const scene::RoadMap map = laneDropMap();
    Pipeline sut(map);
    auto motion = MotionStage::create(cpuSizedMotionSettings(4, 0), *sut.state, *sut.frame).value();

    predictCars(sut, *motion);

    EXPECT_EQ(motion->coarseVehicles(), 4U);
    EXPECT_GT(sut.state->prediction.grid.frameCount, 0U);
}

TEST(MotionStage, MoreFullChainVehiclesThanVehiclesLeavesNoneOnTheCoarserChain) {
    const scene::RoadMap map = laneDropMap();
    Pipeline sut(map);
    auto motion = MotionStage::create(cpuSizedMotionSettings(4, 4), *sut.state, *sut.frame).value();

    predictCars(sut, *motion);

    EXPECT_EQ(motion->coarseVehicles(), 0U);
}

/// config/default.yaml's sizing: the deployment's chain in 200 x 20 cells (the GPU's), the CPU's full chain
/// in 100 x 10 for the `fullChainVehicles` nearest and 50 x 5 beyond them.
MotionStageSettings gpuChainMotionSettings(std::uint32_t vehicles, std::uint32_t fullChainVehicles) {
    MotionStageSettings settings = cpuSizedMotionSettings(vehicles, fullChainVehicles);
    settings.cpuFullChain = settings.chain;
    settings.chain.positionCells = 200;
    settings.chain.speedCells = 20;
    return settings;
}

/// Every vehicle's one corridor predicted alike in `sut` and `reference`, to the bit.
void expectSamePaths(const Pipeline& sut, const Pipeline& reference) {
    ASSERT_EQ(sut.state->prediction.vehicleCount, reference.state->prediction.vehicleCount);
    for (std::uint32_t v = 0; v < sut.state->prediction.vehicleCount; ++v) {
        ASSERT_EQ(sut.state->prediction.vehicles[v].corridorCount, 1U);
        EXPECT_EQ(std::memcmp(sut.state->prediction.vehicles[v].corridors[0].points,
                              reference.state->prediction.vehicles[v].corridors[0].points, 40 * sizeof(CorridorPoint)),
                  0)
            << "vehicle at x " << sut.frame->vehicles[v].x_m;
    }
}

TEST(MotionStage, OnTheCpuTheDeploymentsFinerChainGivesWayToTheCpusFullChain) {
    const scene::RoadMap map = laneDropMap();
    Pipeline reference(map);
    auto cpuSized = MotionStage::create(cpuSizedMotionSettings(4, 2), *reference.state, *reference.frame).value();
    predictCars(reference, *cpuSized);
    Pipeline sut(map);
    auto motion = MotionStage::create(gpuChainMotionSettings(4, 2), *sut.state, *sut.frame).value();
    ASSERT_FALSE(motion->onGpu());

    predictCars(sut, *motion);

    // The same two chains on the same input: the same numbers, whatever the chain the GPU would take.
    EXPECT_EQ(motion->coarseVehicles(), 2U);
    ASSERT_EQ(sut.state->prediction.vehicleCount, 4U);
    expectSamePaths(sut, reference);
}

TEST(MotionStage, WithoutACoarseChainEveryVehicleTakesTheCpusFullChain) {
    const scene::RoadMap map = laneDropMap();
    Pipeline reference(map);
    auto plain = MotionStage::create(defaultMotionSettings(4), *reference.state, *reference.frame).value();
    predictCars(reference, *plain);
    Pipeline sut(map);
    MotionStageSettings settings = gpuChainMotionSettings(4, 2);
    settings.cpuChain.reset();
    auto motion = MotionStage::create(settings, *sut.state, *sut.frame).value();

    predictCars(sut, *motion);

    EXPECT_EQ(motion->coarseVehicles(), 0U);
    expectSamePaths(sut, reference);
}

TEST(MotionStage, ACpuChainThatIsNotACoarserDiscretisationOfTheOneBeforeItIsRejectedAtInit) {
    const scene::RoadMap map = laneDropMap();
    Pipeline sut(map);
    std::vector<std::pair<const char*, MotionStageSettings>> cases;
    cases.emplace_back("coarse chain finer than the chain", cpuSizedMotionSettings(4, 2));
    cases.back().second.cpuChain->positionCells = 200;
    cases.emplace_back("coarse chain over another range", cpuSizedMotionSettings(4, 2));
    cases.back().second.cpuChain->positionMax_m = 100.0F;
    cases.emplace_back("CPU full chain finer than the chain", gpuChainMotionSettings(4, 2));
    cases.back().second.cpuFullChain->speedCells = 40;
    cases.emplace_back("coarse chain finer than the CPU full chain, not than the chain", gpuChainMotionSettings(4, 2));
    cases.back().second.cpuChain->positionCells = 150;

    for (const auto& [name, settings] : cases) {
        const auto stage = MotionStage::create(settings, *sut.state, *sut.frame);

        ASSERT_TRUE(stage.hasError()) << name;
        EXPECT_EQ(stage.error(), kernels::markov::MarkovError::InvalidGrid) << name;
    }
}

}  // namespace
}  // namespace augur::runtime
