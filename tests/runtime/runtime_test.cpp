// The whole runtime through real iceoryx (RouDi embedded in the test process): a synthetic scene on the
// shipped four-way intersection is published as perception object lists; the runtime's outputs are
// read back from shared memory.
#include <gtest/gtest.h>

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <optional>
#include <set>
#include <thread>

#include "augur/platform/clock.hpp"
#include "augur/platform/gpu_info.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/runtime.hpp"
#include "augur/testing/allocation_counter.hpp"
#include "augur/testing/embedded_roudi.hpp"
#include "augur/testing/testing.hpp"
#include "support/runtime_fixture.hpp"

namespace augur::runtime {
namespace {

constexpr std::uint32_t VEHICLES = 8;
constexpr std::uint32_t PEDESTRIANS = 2;
constexpr std::uint32_t FULL_CHAIN_VEHICLES = 3;
constexpr double SCENE_STEP_S = 0.2;
constexpr std::int64_t SCENE_STEP_NS = 200'000'000;
constexpr float PROBABILITY_TOLERANCE = 1e-3F;
constexpr float MIN_PREDICTED_CORRIDOR_PROBABILITY = 0.01F;

const auto* const g_environment =
    ::testing::AddGlobalTestEnvironment(new testing::EmbeddedRouDiEnvironment("augur-runtime-test"));

using testing::Feeder;
using testing::makeRuntime;
using testing::service;
using testing::shippedMap;

/// The shipped default deployment, scaled down so a cycle takes milliseconds on one core.
config::Deployment testDeployment(const std::string& instance) {
    // The CPU backend on every machine (runtime_gpu_test.cpp: CUDA).
    config::Deployment d = testing::quickDeployment(instance);
    d.flocks.everyNCycles = 5;
    d.flocks.windowCycles = 5;
    d.flocks.minMembers = 2;
    d.flocks.radius_m = 30.0;
    // The CPU sizing with both of its chains in use: the 3 vehicles nearest the ego on the chain, the
    // other VEHICLES - 3 on its coarser discretisation.
    d.motion.cpu.fullChainVehicles = FULL_CHAIN_VEHICLES;
    return d;
}

RuntimeOptions quietOptions() {
    RuntimeOptions options;
    options.connectToRouDi = false;  // the embedded RouDi's runtime
    options.log = [](config::LogLevel, const std::string&) {};
    return options;
}

/// Keeps the newest message of a channel.
template <typename T>
class Newest {
public:
    explicit Newest(const config::Channel& channel)
        : m_subscriber(platform::Subscriber<T>::create(service(channel), 16).value()), m_value(std::make_unique<T>()) {}
    /// Drains the queue; returns how many arrived.
    int drain() {
        int n = 0;
        while (true) {
            auto s = m_subscriber.take();
            if (!s) {
                break;
            }
            std::memcpy(m_value.get(), &*s.value(), sizeof(T));
            ++n;
        }
        m_received += n;
        return n;
    }
    const T& value() const { return *m_value; }
    int received() const { return m_received; }

private:
    platform::Subscriber<T> m_subscriber;
    std::unique_ptr<T> m_value;
    int m_received{0};
};

TEST(Runtime, PublishesTracksIntentionsPredictionPlatoonsAndHealthForASyntheticScene) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr int CYCLES = 12;
    const config::Deployment d = testDeployment("outputs");
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    Feeder feeder(d);
    Newest<TrackList> tracks(d.transport.tracks);
    Newest<IntentionList> intentions(d.transport.intentions);
    Newest<MotionPrediction> prediction(d.transport.prediction);
    Newest<Health> health(d.transport.health);
    Newest<PlatoonList> platoons(d.transport.platoons);
    testing::SyntheticScene scene(shippedMap(), VEHICLES, PEDESTRIANS);

    for (int k = 0; k < CYCLES; ++k) {
        feeder.send([&](ObjectList& list) { scene.writeAt(list, static_cast<std::uint64_t>(k + 1), platform::monotonicNow_ns()); });
        const CycleReport report = sut->runCycle();
        EXPECT_TRUE(report.hadInput);
    }
    tracks.drain();
    intentions.drain();
    prediction.drain();
    health.drain();
    platoons.drain();

    EXPECT_EQ(tracks.received(), CYCLES);
    EXPECT_EQ(tracks.value().trackCount, VEHICLES + PEDESTRIANS);
    EXPECT_EQ(intentions.value().vehicleCount, VEHICLES);
    const MotionPrediction& p = prediction.value();
    EXPECT_EQ(p.mode, RuntimeMode::Nominal);
    EXPECT_EQ(p.stale, 0U);
    EXPECT_EQ(p.vehicleCount, VEHICLES);
    EXPECT_EQ(p.horizonSteps, config::horizonSteps(d.motion));
    for (std::uint32_t v = 0; v < p.vehicleCount; ++v) {
        const VehiclePrediction& vp = p.vehicles[v];
        ASSERT_GE(vp.corridorCount, 1U) << "vehicle " << vp.trackId << " is on a lane: it has corridors";
        float sum = 0.0F;
        for (std::uint32_t c = 0; c < vp.corridorCount; ++c) {
            sum += vp.corridors[c].probability;
            EXPECT_GE(vp.corridors[c].probability, MIN_PREDICTED_CORRIDOR_PROBABILITY) << "ruled-out corridors are not propagated";
            for (std::uint32_t k = 1; k < p.horizonSteps; ++k) {
                EXPECT_GE(vp.corridors[c].points[k].sMean_m + 1e-3F, vp.corridors[c].points[k - 1].sMean_m);
            }
        }
        EXPECT_NEAR(sum, 1.0F, PROBABILITY_TOLERANCE);
        const IntentionEstimate& e = intentions.value().vehicles[v];
        EXPECT_EQ(e.trackId, vp.trackId);
        EXPECT_GE(e.stopProbability, 0.0F);
        EXPECT_LE(e.stopProbability, 1.0F);
    }
    EXPECT_EQ(p.grid.frameCount, config::gridFrames(d.grid, d.motion));
    EXPECT_EQ(health.received(), CYCLES);
    EXPECT_EQ(health.value().cycle, static_cast<std::uint64_t>(CYCLES - 1));
    EXPECT_EQ(health.value().acceptedInputs, static_cast<std::uint64_t>(CYCLES));
    EXPECT_EQ(health.value().deadlineMisses, 0U);
    EXPECT_EQ(platoons.received(), (CYCLES + 4) / 5);  // cycles 0, 5, 10
    EXPECT_EQ(platoons.value().windowCycles, d.flocks.windowCycles);
}

TEST(Runtime, ACycleWithoutInputPredictsForwardAndSaysSo) {
    AUGUR_REQUIRE_ICEORYX();
    const config::Deployment d = testDeployment("no-input");
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    Feeder feeder(d);
    Newest<MotionPrediction> prediction(d.transport.prediction);
    testing::SyntheticScene scene(shippedMap(), VEHICLES);
    std::int64_t lastStamp = 0;
    for (int k = 0; k < 3; ++k) {
        lastStamp = platform::monotonicNow_ns();
        feeder.send([&](ObjectList& list) { scene.write(list, static_cast<std::uint64_t>(k + 1), lastStamp); });
        (void)sut->runCycle();
    }

    const CycleReport report = sut->runCycle();

    prediction.drain();
    EXPECT_FALSE(report.hadInput);
    EXPECT_FALSE(report.deadlineMissed);
    EXPECT_EQ(sut->lastHealth().lastCycleHadInput, 0);
    EXPECT_EQ(prediction.value().vehicleCount, VEHICLES);
    EXPECT_EQ(prediction.value().sourceStamp_ns, lastStamp) << "the prediction says which input it is based on";
    EXPECT_GT(prediction.value().header.stamp_ns, prediction.value().sourceStamp_ns);
}

TEST(Runtime, VehiclesLeavingAndEnteringAreDroppedAndPickedUpByTheIntentionFilter) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr int CYCLES_PER_PHASE = 10;  // longer than tracking.max_missed_cycles + 1
    constexpr std::size_t SEEN = 6;       // vehicles seen at a time
    constexpr std::size_t SHIFT = 2;      // the first two leave, two new ones enter
    const config::Deployment d = testDeployment("enter-leave");
    ASSERT_LT(d.tracking.maxMissedCycles + 1U, static_cast<std::uint32_t>(CYCLES_PER_PHASE));
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    Feeder feeder(d);
    testing::SyntheticScene scene(shippedMap(), SEEN + SHIFT);
    std::uint64_t sequence = 0;
    auto phase = [&](std::size_t first) {
        for (int k = 0; k < CYCLES_PER_PHASE; ++k) {
            feeder.send([&](ObjectList& list) { scene.writeAt(list, ++sequence, platform::monotonicNow_ns(), first, first + SEEN); });
            (void)sut->runCycle();
        }
    };

    phase(0);
    phase(SHIFT);

    const IntentionList& intentions = sut->state().intentions;
    ASSERT_EQ(intentions.vehicleCount, SEEN);
    for (std::uint32_t v = 0; v < intentions.vehicleCount; ++v) {
        const IntentionEstimate& e = intentions.vehicles[v];
        // Track ids are the runtime's own; the track's last perception id names the vehicle.
        const TrackList& tracks = sut->state().tracks;
        const Track* track = std::find_if(tracks.tracks, tracks.tracks + tracks.trackCount,
                                          [&](const Track& t) { return t.id == e.trackId; });
        ASSERT_NE(track, tracks.tracks + tracks.trackCount) << "every estimate belongs to a published track";
        EXPECT_GE(track->perceptionId, 100U + SHIFT) << "vehicles that left are no longer estimated";
        float sum = 0.0F;
        for (std::uint32_t c = 0; c < e.corridorCount; ++c) {
            sum += e.corridorProbability[c];
        }
        EXPECT_NEAR(sum, 1.0F, PROBABILITY_TOLERANCE) << "vehicle " << e.trackId;
    }
}

/// Runs WARM_UP then CYCLES full-pipeline cycles of a runtime `sut` made on `d` and expects none of the
/// CYCLES to allocate on the cycle thread.
void expectSteadyStateCyclesAllocateNothing(config::Deployment d, std::unique_ptr<Runtime>& sut) {
    constexpr int WARM_UP = 20;
    constexpr int CYCLES = 1000;
    ASSERT_GT(testing::threadAllocationsDuring([] {
                  int* volatile probe = new int(1);
                  delete probe;
              }),
              0U)
        << "the counter must fire";
    d.capacities.particles = 64;
    d.runtime.maxInputAge_ms = 0;
    sut = makeRuntime(d, 2);  // the worker pool hand-off on the cycle thread is counted too
    ASSERT_NE(sut, nullptr);
    Feeder feeder(d);
    testing::SyntheticScene scene(shippedMap(), VEHICLES, PEDESTRIANS);
    std::uint64_t sequence = 0;
    // Stamped with the runtime's clock and moved by the time that passed: cycles run back to back, and
    // stamps 200 ms apart would run ahead of the clock and be rejected as from the future on a fast host.
    std::int64_t last = platform::monotonicNow_ns();
    auto cycle = [&] {
        const std::int64_t stamp = platform::monotonicNow_ns();
        scene.advance(static_cast<double>(stamp - last) * 1e-9);
        last = stamp;
        feeder.send([&](ObjectList& list) { scene.write(list, ++sequence, stamp); });
        (void)sut->runCycle();
    };
    for (int k = 0; k < WARM_UP; ++k) {
        cycle();
    }

    // The pipeline runs on this thread (the watchdog thread only reads atomics; the flock finder runs
    // with one worker, the calling thread). The embedded RouDi's own threads allocate on their own
    // schedule (about 14 allocations every 300 ms), so the count is of this thread.
    const std::uint64_t allocations = testing::threadAllocationsDuring([&] {
        for (int k = 0; k < CYCLES; ++k) {
            cycle();
        }
    });

    EXPECT_EQ(allocations, 0U);
    EXPECT_GT(sut->coarseMotionVehicles(), 0U) << "the CPU sizing's coarser chain ran in the counted cycles";
    EXPECT_EQ(sut->counters().accepted, static_cast<std::uint64_t>(WARM_UP + CYCLES));
    EXPECT_GE(sut->executor().cycles(), static_cast<std::uint64_t>(CYCLES));
}

TEST(RuntimeCpuSizing, OnTheCpuBackendTheVehiclesBeyondTheNearestTakeTheCoarserChainAndStayFinite) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr int CYCLES = 6;
    const config::Deployment d = testDeployment("cpu-sizing");
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    ASSERT_FALSE(sut->backendIsCuda());
    Feeder feeder(d);
    testing::SyntheticScene scene(shippedMap(), VEHICLES, PEDESTRIANS);

    for (int k = 0; k < CYCLES; ++k) {
        feeder.send([&](ObjectList& list) { scene.writeAt(list, static_cast<std::uint64_t>(k + 1), platform::monotonicNow_ns()); });
        ASSERT_EQ(sut->runCycle().status[static_cast<std::size_t>(Stage::Motion)], StageStatus::Ok) << "cycle " << k;
    }

    const MotionPrediction& p = sut->state().prediction;
    ASSERT_EQ(p.vehicleCount, VEHICLES);
    EXPECT_EQ(sut->coarseMotionVehicles(), VEHICLES - FULL_CHAIN_VEHICLES) << "chosen without being asked";
    for (std::uint32_t v = 0; v < p.vehicleCount; ++v) {
        for (std::uint32_t c = 0; c < p.vehicles[v].corridorCount; ++c) {
            for (std::uint32_t k = 0; k < p.horizonSteps; ++k) {
                const CorridorPoint& point = p.vehicles[v].corridors[c].points[k];
                ASSERT_TRUE(std::isfinite(point.sMean_m) && std::isfinite(point.sStd_m) && std::isfinite(point.x_m) &&
                            std::isfinite(point.y_m))
                    << "vehicle " << v << " corridor " << c << " step " << k;
            }
        }
    }
}

TEST(RuntimeCpuSizing, CpuCellsNotBelowTheChainsKeepEveryVehicleOnTheChain) {
    AUGUR_REQUIRE_ICEORYX();
    config::Deployment d = testDeployment("cpu-sizing-off");
    d.motion.cpu.positionCells = d.motion.positionCells;
    d.motion.cpu.speedCells = d.motion.speedCells + 1;  // above the chain's: the chain's
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    Feeder feeder(d);
    testing::SyntheticScene scene(shippedMap(), VEHICLES, PEDESTRIANS);

    for (int k = 0; k < 3; ++k) {
        feeder.send([&](ObjectList& list) { scene.writeAt(list, static_cast<std::uint64_t>(k + 1), platform::monotonicNow_ns()); });
        (void)sut->runCycle();
    }

    EXPECT_EQ(sut->state().prediction.vehicleCount, VEHICLES);
    EXPECT_EQ(sut->coarseMotionVehicles(), 0U);
}

TEST(RuntimeAllocation, SteadyStateCyclesOfTheFullPipelineAllocateNothing) {
    AUGUR_REQUIRE_ICEORYX();
    std::unique_ptr<Runtime> sut;
    expectSteadyStateCyclesAllocateNothing(testDeployment("allocation"), sut);
}

TEST(RuntimeAllocation, SteadyStateCyclesAllocateNothingWithTheTraceOn) {
    AUGUR_REQUIRE_ICEORYX();
    config::Deployment d = testDeployment("allocation-trace");
    d.output.tracePath = ::testing::TempDir() + "augur_runtime_allocation_trace.json";
    std::unique_ptr<Runtime> sut;
    expectSteadyStateCyclesAllocateNothing(d, sut);
    ASSERT_NE(sut, nullptr);
    ASSERT_TRUE(sut->tracing());
    const TraceTotals totals = sut->closeTrace();
    // Per cycle at least 6 stages, the cycle and 2 counters: every cycle was recorded (or counted dropped).
    EXPECT_GE(totals.events + totals.dropped, 1020U * 9U);
    std::remove(d.output.tracePath.c_str());
}

TEST(RuntimeTrace, RecordsThatFindTheRingFullAreCountedInTheHealth) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr int CYCLES = 8;
    config::Deployment d = testDeployment("trace-dropped");
    d.output.tracePath = ::testing::TempDir() + "augur_runtime_trace_dropped.json";
    d.output.traceBufferRecords = 2;  // a cycle records at least 9 (6 stages, the cycle, 2 counters)
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    Feeder feeder(d);
    Newest<Health> health(d.transport.health);
    testing::SyntheticScene scene(shippedMap(), VEHICLES);
    int flagged = 0;
    for (int k = 0; k < CYCLES; ++k) {
        feeder.send([&](ObjectList& list) { scene.writeAt(list, static_cast<std::uint64_t>(k + 1), platform::monotonicNow_ns()); });
        (void)sut->runCycle();
        ASSERT_EQ(health.drain(), 1);
        flagged += (health.value().faults & bit(HealthFault::TraceDropped)) != 0 ? 1 : 0;
    }
    EXPECT_GT(flagged, 0);
    EXPECT_GT(health.value().traceRecordsDropped, 0U);
    EXPECT_EQ(health.value().traceRecordsDropped, sut->traceRecordsDropped());
    const TraceTotals totals = sut->closeTrace();
    EXPECT_EQ(totals.dropped, health.value().traceRecordsDropped);
    std::remove(d.output.tracePath.c_str());
}

TEST(RuntimeTrace, WithoutATraceNothingIsCountedDropped) {
    AUGUR_REQUIRE_ICEORYX();
    const config::Deployment d = testDeployment("trace-off");
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    Feeder feeder(d);
    Newest<Health> health(d.transport.health);
    testing::SyntheticScene scene(shippedMap(), VEHICLES);
    feeder.send([&](ObjectList& list) { scene.writeAt(list, 1, platform::monotonicNow_ns()); });
    (void)sut->runCycle();
    ASSERT_EQ(health.drain(), 1);
    EXPECT_EQ(health.value().traceRecordsDropped, 0U);
    EXPECT_EQ(health.value().faults & bit(HealthFault::TraceDropped), 0U);
}

/// The watchdog tests' deadline: room for a cold first cycle on a busy host (60 ms was missed once
/// there), while their injected delays lie well past it.
constexpr std::int64_t WATCHDOG_DEADLINE_MS = 120;

TEST(RuntimeWatchdog, AnInjectedStageDelayIsDetectedWithinOneCycleAndTheLadderStepsDownAndBackUp) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::int64_t DEADLINE_MS = WATCHDOG_DEADLINE_MS;
    constexpr std::int64_t DELAY_NS = 200'000'000;  // well past the deadline
    constexpr std::uint32_t RECOVER_AFTER = 2;
    config::Deployment d = testDeployment("watchdog");
    d.runtime.cyclePeriod_ms = DEADLINE_MS;
    d.runtime.deadline_ms = DEADLINE_MS;
    d.runtime.watchdog.missesToDegrade = 1;
    d.runtime.watchdog.recoverAfterGoodCycles = RECOVER_AFTER;
    d.runtime.watchdog.holdLastMaxAge_ms = 10'000;
    d.runtime.maxInputAge_ms = 0;
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    Feeder feeder(d);
    Newest<MotionPrediction> prediction(d.transport.prediction);
    testing::SyntheticScene scene(shippedMap(), VEHICLES);
    std::uint64_t sequence = 0;
    auto cycle = [&] {
        feeder.send([&](ObjectList& list) { scene.writeAt(list, ++sequence, platform::monotonicNow_ns()); });
        const CycleReport report = sut->runCycle();
        prediction.drain();
        return report;
    };
    for (int k = 0; k < 3; ++k) {
        ASSERT_FALSE(cycle().deadlineMissed);
    }

    // Down: every rung, one missed cycle each.
    sut->injectStageDelay(Stage::Intention, DELAY_NS);
    const std::array<RuntimeMode, 4> down{RuntimeMode::ReducedParticles, RuntimeMode::ConstantVelocity,
                                          RuntimeMode::HoldLast, RuntimeMode::NoPrediction};
    for (const RuntimeMode expected : down) {
        const std::uint64_t flaggedBefore = sut->executor().watchdog().deadlineMisses();
        const CycleReport report = cycle();
        EXPECT_TRUE(report.deadlineMissed);
        EXPECT_EQ(sut->executor().watchdog().deadlineMisses(), flaggedBefore + 1) << "flagged by the watchdog thread";
        EXPECT_EQ(report.status[static_cast<std::size_t>(Stage::Motion)], StageStatus::Skipped)
            << "no computing stage starts after the deadline";
        EXPECT_EQ(report.status[static_cast<std::size_t>(Stage::Publish)], StageStatus::Ok);
        EXPECT_EQ(prediction.value().stale, 1U);
        ASSERT_TRUE(report.transition.has_value());
        EXPECT_EQ(report.transition->to, expected);
    }
    EXPECT_EQ(sut->lastHealth().mode, RuntimeMode::NoPrediction);
    EXPECT_EQ(sut->lastHealth().deadlineMisses, down.size());

    // In NoPrediction the planner gets an explicit empty prediction.
    sut->injectStageDelay(Stage::Intention, 0);
    (void)cycle();
    EXPECT_EQ(prediction.value().mode, RuntimeMode::NoPrediction);
    EXPECT_EQ(prediction.value().vehicleCount, 0U);

    // Up: RECOVER_AFTER good cycles per rung.
    RuntimeMode mode = RuntimeMode::NoPrediction;
    for (int k = 1; k < static_cast<int>(RECOVER_AFTER * down.size()) && mode != RuntimeMode::Nominal; ++k) {
        const CycleReport report = cycle();
        EXPECT_FALSE(report.deadlineMissed);
        if (report.transition) {
            mode = report.transition->to;
            if (mode == RuntimeMode::ConstantVelocity) {
                (void)cycle();
                EXPECT_EQ(prediction.value().mode, RuntimeMode::ConstantVelocity);
                EXPECT_EQ(prediction.value().vehicleCount, VEHICLES) << "constant-velocity prediction from the tracks";
                ++k;
            }
        }
    }
    EXPECT_EQ(mode, RuntimeMode::Nominal);
    (void)cycle();
    EXPECT_EQ(prediction.value().mode, RuntimeMode::Nominal);
    EXPECT_EQ(prediction.value().stale, 0U);
}

TEST(RuntimeWatchdog, ACycleStuckPastItsDeadlinePublishesAHealthAlarmBeforeItEnds) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::int64_t DEADLINE_MS = WATCHDOG_DEADLINE_MS;
    constexpr std::int64_t STUCK_NS = 600'000'000;  // five deadlines in one stage
    config::Deployment d = testDeployment("watchdog-alarm");
    d.runtime.cyclePeriod_ms = DEADLINE_MS;
    d.runtime.deadline_ms = DEADLINE_MS;
    d.runtime.maxInputAge_ms = 0;
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    Feeder feeder(d);
    auto health = platform::Subscriber<Health>::create(service(d.transport.health), 16).value();
    testing::SyntheticScene scene(shippedMap(), VEHICLES);
    feeder.send([&](ObjectList& list) { scene.write(list, 1, platform::monotonicNow_ns()); });
    ASSERT_FALSE(sut->runCycle().deadlineMissed);
    while (health.take()) {
    }

    sut->injectStageDelay(Stage::Motion, STUCK_NS);
    std::atomic<bool> cycleEnded{false};
    std::thread cycleThread([&] {
        (void)sut->runCycle();
        cycleEnded.store(true);
    });
    Health alarm{};
    bool alarmed = false;
    bool endedBeforeAlarm = false;
    const std::int64_t giveUp = platform::monotonicNow_ns() + 5 * STUCK_NS;
    while (!alarmed && platform::monotonicNow_ns() < giveUp) {
        if (auto sample = health.take()) {
            alarm = *sample.value();
            alarmed = alarm.overrunAlarm != 0;
            endedBeforeAlarm = alarmed && cycleEnded.load();
        } else {
            platform::sleepUntil_ns(platform::monotonicNow_ns() + 1'000'000);
        }
    }
    cycleThread.join();
    ASSERT_TRUE(alarmed) << "no alarm on the health channel";
    EXPECT_FALSE(endedBeforeAlarm) << "the alarm must come while the cycle is still stuck";
    EXPECT_EQ(alarm.overrunStage, Stage::Motion);
    EXPECT_GE(alarm.overrunElapsed_ns, DEADLINE_MS * 1'000'000);
    EXPECT_LT(alarm.overrunElapsed_ns, STUCK_NS);
    EXPECT_EQ(alarm.deadlineMisses, 1U);
    EXPECT_EQ(alarm.mode, RuntimeMode::Nominal);

    // The cycle's own health follows: no alarm flag, the miss counted once.
    Health own{};
    bool ownArrived = false;
    while (auto sample = health.take()) {
        own = *sample.value();
        ownArrived = own.overrunAlarm == 0;
    }
    ASSERT_TRUE(ownArrived);
    EXPECT_EQ(own.deadlineMisses, 1U);
    EXPECT_GT(own.header.sequence, alarm.header.sequence);
    EXPECT_EQ(own.cycle, alarm.cycle) << "the alarm names the stuck cycle";
}

/// The next link update on `health` (Health::linkUpdate), waiting up to `giveUp_ns` of the monotonic
/// clock; cycle health that arrives before it is skipped. nullopt when none came.
std::optional<Health> nextLinkUpdate(platform::Subscriber<Health>& health, std::int64_t giveUp_ns) {
    while (platform::monotonicNow_ns() < giveUp_ns) {
        if (auto sample = health.take()) {
            if (sample.value()->linkUpdate != 0) {
                return *sample.value();
            }
        } else {
            platform::sleepUntil_ns(platform::monotonicNow_ns() + 1'000'000);
        }
    }
    return std::nullopt;
}

/// The newest cycle health queued on `health` (link updates skipped); nullopt when none is queued.
std::optional<Health> newestCycleHealth(platform::Subscriber<Health>& health) {
    std::optional<Health> newest;
    while (auto sample = health.take()) {
        if (sample.value()->linkUpdate == 0 && sample.value()->overrunAlarm == 0) {
            newest = *sample.value();
        }
    }
    return newest;
}

TEST(RuntimeLink, ALostPeerIsALinkUpdateAtOnceAndInEveryCyclesHealthUntilItIsBack) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::uint64_t PEER_LOSSES = 3;
    constexpr std::int64_t GIVE_UP_NS = 5'000'000'000;  // no timing is asserted: only that it comes
    const config::Deployment d = testDeployment("link-status");
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    auto bridge = platform::Publisher<LinkStatus>::create(service(d.transport.linkStatus)).value();
    auto health = platform::Subscriber<Health>::create(service(d.transport.health), 16).value();
    auto publishStatus = [&](std::uint32_t faults, std::uint32_t alivePeers) {
        auto loan = bridge.loan().value();
        *loan = LinkStatus{};
        loan->header = MessageHeader{MESSAGE_SCHEMA_VERSION, 0, 1, platform::monotonicNow_ns()};
        loan->faults = faults;
        loan->alivePeers = alivePeers;
        loan->peerLosses = PEER_LOSSES;
        loan.publish();
    };

    (void)sut->runCycle();
    const std::optional<Health> withoutBridge = newestCycleHealth(health);
    publishStatus(bit(LinkFault::PeerLost), 0);
    const std::optional<Health> lostUpdate = nextLinkUpdate(health, platform::monotonicNow_ns() + GIVE_UP_NS);
    (void)sut->runCycle();
    const std::optional<Health> lostCycle = newestCycleHealth(health);
    publishStatus(0, 1);
    const std::optional<Health> backUpdate = nextLinkUpdate(health, platform::monotonicNow_ns() + GIVE_UP_NS);
    (void)sut->runCycle();
    const std::optional<Health> backCycle = newestCycleHealth(health);

    ASSERT_TRUE(withoutBridge && lostUpdate && lostCycle && backUpdate && backCycle);
    EXPECT_EQ(withoutBridge->faults & bit(HealthFault::LinkLost), 0U);
    EXPECT_EQ(withoutBridge->linkStatusAge_ns, -1);
    EXPECT_NE(lostUpdate->faults & bit(HealthFault::LinkLost), 0U) << "published before any cycle ran";
    EXPECT_EQ(lostUpdate->linkFaults, bit(LinkFault::PeerLost));
    EXPECT_EQ(lostUpdate->linkPeerLosses, PEER_LOSSES);
    EXPECT_EQ(lostUpdate->cycle, withoutBridge->cycle) << "an update names the last cycle that ended";
    EXPECT_GT(lostUpdate->header.sequence, withoutBridge->header.sequence);
    EXPECT_NE(lostCycle->faults & bit(HealthFault::LinkLost), 0U);
    EXPECT_EQ(lostCycle->linkFaults, bit(LinkFault::PeerLost));
    EXPECT_GE(lostCycle->linkStatusAge_ns, 0);
    EXPECT_EQ(backUpdate->faults & bit(HealthFault::LinkLost), 0U);
    EXPECT_EQ(backUpdate->linkAlivePeers, 1U);
    EXPECT_EQ(backCycle->faults & bit(HealthFault::LinkLost), 0U);
    EXPECT_EQ(backCycle->linkAlivePeers, 1U);
}

TEST(RuntimeLink, ABridgeThatFallsSilentIsALinkUpdateWithoutAnyCycle) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::uint32_t BRIDGE_DEADLINE_MS = 20;  // stale after two: 40 ms
    constexpr std::int64_t GIVE_UP_NS = 5'000'000'000;
    config::Deployment d = testDeployment("link-silent");
    d.bridge.deadline_ms = BRIDGE_DEADLINE_MS;
    d.bridge.livelinessLease_ms = BRIDGE_DEADLINE_MS / 2;
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    auto bridge = platform::Publisher<LinkStatus>::create(service(d.transport.linkStatus)).value();
    auto health = platform::Subscriber<Health>::create(service(d.transport.health), 16).value();
    auto loan = bridge.loan().value();
    *loan = LinkStatus{};
    loan->header = MessageHeader{MESSAGE_SCHEMA_VERSION, 0, 1, platform::monotonicNow_ns()};
    loan->alivePeers = 1;
    const std::int64_t published_ns = platform::monotonicNow_ns();
    loan.publish();

    const std::optional<Health> update = nextLinkUpdate(health, platform::monotonicNow_ns() + GIVE_UP_NS);

    ASSERT_TRUE(update.has_value()) << "no link update after the bridge's status stopped";
    EXPECT_NE(update->faults & bit(HealthFault::LinkLost), 0U);
    EXPECT_EQ(update->linkFaults, 0U) << "the bridge reported no fault: it went quiet";
    EXPECT_GT(update->header.stamp_ns - published_ns, 2 * BRIDGE_DEADLINE_MS * 1'000'000LL)
        << "stale only past two bridge deadlines";
}

TEST(RuntimeInput, EveryRejectionReasonReachesItsCounterWhileTheRuntimeKeepsItsRate) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::uint32_t PERIOD_MS = 100;
    constexpr std::uint64_t CYCLES = 18;  // covers the 24 lists sent 50 ms apart
    constexpr auto SEND_INTERVAL_NS = static_cast<std::int64_t>(PERIOD_MS) * 1'000'000 / 2;
    constexpr std::int64_t FAR_NS = 10'000'000'000;
    constexpr std::uint32_t SHORT_PAYLOAD_BYTES = 64;
    constexpr float NAN_F = std::numeric_limits<float>::quiet_NaN();
    config::Deployment d = testDeployment("bad-input");
    d.runtime.cyclePeriod_ms = PERIOD_MS;
    d.runtime.deadline_ms = PERIOD_MS;
    d.capacities.maxObjects = 16;
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    Feeder feeder(d);
    auto foreign = platform::RawPublisher::create(service(d.transport.objects), 0);  // another type on the topic
    ASSERT_TRUE(foreign.hasValue());
    testing::SyntheticScene scene(shippedMap(), VEHICLES);

    std::atomic<bool> stop{false};
    std::thread cycleThread([&] { sut->run(stop, CYCLES); });
    std::array<std::uint64_t, REJECT_REASON_COUNT> sentBadLists{};
    std::array<std::uint64_t, REJECT_REASON_COUNT> sentBadObjects{};
    std::uint64_t sent = 0;
    std::uint64_t accepted = 0;
    std::uint64_t sequence = 0;
    std::uint64_t lastGoodSequence = 0;
    std::int64_t lastGoodStamp = 0;
    auto sendValid = [&] {
        const std::int64_t now = platform::monotonicNow_ns();
        feeder.send([&](ObjectList& list) { scene.write(list, ++sequence, now); });
        lastGoodSequence = sequence;
        lastGoodStamp = now;
        ++sent;
        ++accepted;
    };
    auto sendBadList = [&](RejectReason reason) {
        if (reason == RejectReason::PayloadSize) {
            auto chunk = foreign.value().loan(SHORT_PAYLOAD_BYTES, alignof(ObjectList));
            ASSERT_TRUE(chunk.hasValue());
            foreign.value().publish(chunk.value());
        } else {
            feeder.send([&](ObjectList& list) {
                scene.write(list, ++sequence, platform::monotonicNow_ns());
                switch (reason) {
                    case RejectReason::UnknownSchemaVersion: list.header.schemaVersion = MESSAGE_SCHEMA_VERSION + 1; break;
                    case RejectReason::CountOverCapacity: list.objectCount = d.capacities.maxObjects + 1; break;
                    case RejectReason::NonFinite: list.ego.x_m = NAN_F; break;
                    case RejectReason::Implausible: list.ego.speed_mps = 1e30F; break;
                    case RejectReason::InvalidField:
                        for (std::uint32_t i = 0; i < list.objectCount; ++i) {
                            list.objects[i].stdX_m = 0.0F;  // no object left: the list is rejected
                        }
                        break;
                    case RejectReason::SequenceNotIncreasing:
                        list.header.sequence = lastGoodSequence;
                        list.header.stamp_ns = lastGoodStamp;
                        break;
                    case RejectReason::TimestampBackwards: list.header.stamp_ns = lastGoodStamp - 1; break;
                    case RejectReason::Stale: list.header.stamp_ns -= FAR_NS; break;
                    case RejectReason::FutureStamp: list.header.stamp_ns += FAR_NS; break;
                    default: break;
                }
            });
        }
        ++sentBadLists[static_cast<std::size_t>(reason)];
        ++sent;
    };
    auto sendBadObject = [&](RejectReason reason) {
        const std::int64_t now = platform::monotonicNow_ns();
        feeder.send([&](ObjectList& list) {
            scene.write(list, ++sequence, now);
            switch (reason) {
                case RejectReason::NonFinite: list.objects[0].x_m = NAN_F; break;
                case RejectReason::Implausible: list.objects[0].speed_mps = 1e30F; break;
                case RejectReason::InvalidField: list.objects[0].stdX_m = 0.0F; break;
                case RejectReason::DuplicateId: list.objects[1].id = list.objects[0].id; break;
                default: break;
            }
        });
        lastGoodSequence = sequence;
        lastGoodStamp = now;
        ++sentBadObjects[static_cast<std::size_t>(reason)];
        ++sent;
        ++accepted;
    };
    auto pause = [] { platform::sleepUntil_ns(platform::monotonicNow_ns() + SEND_INTERVAL_NS); };

    sendBadList(RejectReason::Stale);  // before anything was accepted: only its age is wrong
    pause();
    for (const RejectReason reason :
         {RejectReason::UnknownSchemaVersion, RejectReason::PayloadSize, RejectReason::CountOverCapacity,
          RejectReason::NonFinite, RejectReason::Implausible, RejectReason::InvalidField,
          RejectReason::SequenceNotIncreasing, RejectReason::TimestampBackwards, RejectReason::FutureStamp}) {
        sendValid();
        pause();
        sendBadList(reason);
        pause();
    }
    for (const RejectReason reason :
         {RejectReason::NonFinite, RejectReason::Implausible, RejectReason::InvalidField, RejectReason::DuplicateId}) {
        sendBadObject(reason);
        pause();
    }
    sendValid();
    cycleThread.join();

    const PipelineCounters& counters = sut->counters();
    std::uint64_t rejected = 0;
    for (std::size_t r = 0; r < REJECT_REASON_COUNT; ++r) {
        EXPECT_EQ(counters.rejections[r], sentBadLists[r]) << "lists: " << toString(static_cast<RejectReason>(r));
        EXPECT_EQ(counters.objectRejections[r], sentBadObjects[r]) << "objects: " << toString(static_cast<RejectReason>(r));
        rejected += counters.rejections[r];
    }
    EXPECT_EQ(counters.accepted, accepted);
    EXPECT_EQ(counters.accepted + rejected, sent) << "every list is processed or counted";
    EXPECT_EQ(counters.sequenceResets, 0U) << "no single bad list makes the input resynchronise";
    EXPECT_EQ(sut->executor().cycles(), CYCLES);
    EXPECT_EQ(sut->executor().deadlineMisses(), 0U) << "bad input never slows the cycle";
    EXPECT_EQ(sut->executor().skippedPeriods(), 0U);
}

struct RunOutputs {
    std::unique_ptr<TrackList> tracks = std::make_unique<TrackList>();
    std::unique_ptr<IntentionList> intentions = std::make_unique<IntentionList>();
    std::unique_ptr<MotionPrediction> prediction = std::make_unique<MotionPrediction>();
};

RunOutputs runRecordedSequence(const std::string& instance, int cpuWorkers = 1) {
    constexpr int CYCLES = 10;
    config::Deployment d = testDeployment(instance);
    d.runtime.maxInputAge_ms = 0;  // fixed sensor stamps, independent of when the test runs
    RunOutputs out;
    auto sut = makeRuntime(d, cpuWorkers);
    if (sut == nullptr) {
        return out;
    }
    Feeder feeder(d);
    testing::SyntheticScene scene(shippedMap(), VEHICLES, PEDESTRIANS);
    for (int k = 0; k < CYCLES; ++k) {
        feeder.send([&](ObjectList& list) {
            scene.write(list, static_cast<std::uint64_t>(k + 1), 1'000'000'000 + k * SCENE_STEP_NS);
        });
        scene.advance(SCENE_STEP_S);
        (void)sut->runCycle();
    }
    std::memcpy(out.tracks.get(), &sut->state().tracks, sizeof(TrackList));
    std::memcpy(out.intentions.get(), &sut->state().intentions, sizeof(IntentionList));
    std::memcpy(out.prediction.get(), &sut->state().prediction, sizeof(MotionPrediction));
    return out;
}

TEST(RuntimeDeterminism, SameInputsAndSeedGiveIdenticalOutputsOnTheCpuBackend) {
    AUGUR_REQUIRE_ICEORYX();
    const RunOutputs first = runRecordedSequence("determinism-a");
    const RunOutputs second = runRecordedSequence("determinism-b");

    // Headers carry the cycle's wall-clock start; everything after them must match bit for bit.
    EXPECT_GT(first.prediction->vehicleCount, 0U);
    EXPECT_EQ(std::memcmp(first.tracks->tracks, second.tracks->tracks, sizeof(first.tracks->tracks)), 0);
    EXPECT_EQ(std::memcmp(first.intentions->vehicles, second.intentions->vehicles, sizeof(first.intentions->vehicles)), 0);
    EXPECT_EQ(std::memcmp(first.prediction->vehicles, second.prediction->vehicles, sizeof(first.prediction->vehicles)), 0);
    EXPECT_EQ(std::memcmp(&first.prediction->grid, &second.prediction->grid, sizeof(OccupancyGrid)), 0);
}

TEST(RuntimeDeterminism, TheOutputsDoNotDependOnTheNumberOfCpuWorkers) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr int MANY_WORKERS = 3;  // more than the chunks some cycles have: idle workers are exercised too
    const RunOutputs one = runRecordedSequence("workers-one", 1);
    const RunOutputs many = runRecordedSequence("workers-many", MANY_WORKERS);

    ASSERT_GT(one.prediction->vehicleCount, 0U);
    std::uint64_t occupied = 0;
    for (std::uint32_t f = 0; f < one.prediction->grid.frameCount; ++f) {
        for (const std::uint16_t cell : one.prediction->grid.cells[f]) {
            occupied += cell;
        }
    }
    EXPECT_GT(occupied, 0U) << "the grid must hold some occupancy for the comparison to mean anything";
    EXPECT_EQ(std::memcmp(one.intentions->vehicles, many.intentions->vehicles, sizeof(one.intentions->vehicles)), 0);
    EXPECT_EQ(std::memcmp(one.prediction->vehicles, many.prediction->vehicles, sizeof(one.prediction->vehicles)), 0);
    EXPECT_EQ(std::memcmp(&one.prediction->grid, &many.prediction->grid, sizeof(OccupancyGrid)), 0);
}

TEST(RuntimeInit, AMissingMapIsAClearError) {
    AUGUR_REQUIRE_ICEORYX();
    config::Deployment d = testDeployment("missing-map");
    d.map.path = "/nonexistent/augur-map.net.xml";

    auto sut = Runtime::create(d, quietOptions());

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, RuntimeErrorKind::Map);
    EXPECT_NE(sut.error().message.find("/nonexistent/augur-map.net.xml"), std::string::npos) << sut.error().message;
}

TEST(RuntimeInit, TheCudaBackendWithoutAUsableGpuIsAClearError) {
    AUGUR_REQUIRE_ICEORYX();
    if (platform::cudaCompiledIn() && platform::gpuCount() > 0) {
        GTEST_SKIP() << "a usable GPU is present: backend cuda is accepted (runtime_gpu_test.cpp covers it)";
    }
    config::Deployment d = testDeployment("cuda-backend");
    d.runtime.backend = config::Backend::Cuda;

    auto sut = Runtime::create(d, quietOptions());

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, RuntimeErrorKind::Backend);
    EXPECT_NE(sut.error().message.find("backend cuda"), std::string::npos) << sut.error().message;
}

TEST(RuntimeInit, AnSmPartitionOrAForcedPolicyOnTheCpuBackendIsAClearError) {
    AUGUR_REQUIRE_ICEORYX();
    config::Deployment d = testDeployment("cpu-partition");
    d.runtime.backend = config::Backend::Cpu;
    RuntimeOptions options = quietOptions();
    options.gpuMultiprocessors = 16;

    auto sut = Runtime::create(d, options);

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().kind, RuntimeErrorKind::Backend);
    EXPECT_NE(sut.error().message.find("needs the CUDA backend"), std::string::npos) << sut.error().message;
}

/// Thread ids of this process (/proc/self/task).
std::set<std::string> threadIds() {
    std::set<std::string> ids;
    for (const auto& entry : std::filesystem::directory_iterator("/proc/self/task")) {
        ids.insert(entry.path().filename().string());
    }
    return ids;
}

/// A line's value from /proc/self/task/<tid>/status ("Cpus_allowed_list" → "0", "0-1", …).
std::string taskStatus(const std::string& tid, const std::string& key) {
    std::ifstream status("/proc/self/task/" + tid + "/status");
    std::string line;
    while (std::getline(status, line)) {
        if (line.rfind(key + ":", 0) == 0) {
            const std::size_t value = line.find_first_not_of(" \t", key.size() + 1);
            return value == std::string::npos ? std::string() : line.substr(value);
        }
    }
    return {};
}

TEST(RuntimeInit, TheWorkerAndWatchdogThreadsInheritTheCycleThreadsCpuAffinityAndTheLinkThreadDoesNot) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr int PINNED_CORE = 0;
    constexpr int WORKERS = 2;
    cpu_set_t original;
    ASSERT_EQ(::sched_getaffinity(0, sizeof(original), &original), 0);
    config::Deployment d = testDeployment("rt-affinity");
    d.runtime.cpuAffinity = {PINNED_CORE};
    const std::set<std::string> before = threadIds();
    const std::string unpinned = taskStatus(std::to_string(::gettid()), "Cpus_allowed_list");

    auto sut = makeRuntime(d, WORKERS);

    ASSERT_NE(sut, nullptr);
    // The runtime's own threads (CPU workers, the watchdog, the link thread) are named "augur-…"; the
    // CUDA driver's or iceoryx's helper threads started on the way are not the runtime's to pin.
    std::size_t workers = 0;
    std::size_t watchdogs = 0;
    std::size_t linkThreads = 0;
    for (const std::string& tid : threadIds()) {
        const std::string name = taskStatus(tid, "Name");
        if (before.count(tid) != 0 || name.rfind("augur-", 0) != 0) {
            continue;
        }
        if (name == "augur-link") {
            // Started before the real-time setup: it keeps the affinity the runtime was created with.
            ++linkThreads;
            EXPECT_EQ(taskStatus(tid, "Cpus_allowed_list"), unpinned) << name << " " << tid;
            continue;
        }
        workers += name == "augur-worker" ? 1 : 0;
        watchdogs += name == "augur-watchdog" ? 1 : 0;
        EXPECT_EQ(taskStatus(tid, "Cpus_allowed_list"), std::to_string(PINNED_CORE)) << name << " " << tid;
    }
    EXPECT_EQ(linkThreads, 1U);
    EXPECT_EQ(watchdogs, 1U);
    EXPECT_GE(workers, static_cast<std::size_t>(WORKERS - 1));
    sut.reset();
    ASSERT_EQ(::sched_setaffinity(0, sizeof(original), &original), 0);  // the test thread was the cycle thread
}

TEST(RuntimeInit, ARefusedRealTimeSetupFailsWhenConfiguredTo) {
    AUGUR_REQUIRE_ICEORYX();
    if (::geteuid() == 0) {
        GTEST_SKIP() << "root may set SCHED_FIFO: nothing is refused";
    }
    constexpr std::int32_t FIFO_PRIORITY = 80;
    config::Deployment d = testDeployment("rt-fail");
    d.runtime.rtPriority = FIFO_PRIORITY;
    d.runtime.onRtSetupFailure = config::RtSetupFailurePolicy::Fail;

    auto sut = Runtime::create(d, quietOptions());

    if (sut.hasValue()) {
        GTEST_SKIP() << "this machine granted SCHED_FIFO to an unprivileged process (RLIMIT_RTPRIO)";
    }
    EXPECT_EQ(sut.error().kind, RuntimeErrorKind::RealTime);
}

TEST(RuntimeInit, ARefusedRealTimeSetupIsLoggedOnceAndTheRuntimeStartsWhenConfiguredToWarn) {
    AUGUR_REQUIRE_ICEORYX();
    if (::geteuid() == 0) {
        GTEST_SKIP() << "root may set SCHED_FIFO: nothing is refused";
    }
    constexpr std::int32_t FIFO_PRIORITY = 80;
    config::Deployment d = testDeployment("rt-warn");
    d.runtime.rtPriority = FIFO_PRIORITY;
    d.runtime.onRtSetupFailure = config::RtSetupFailurePolicy::Warn;
    int warnings = 0;
    RuntimeOptions options = quietOptions();
    options.log = [&](config::LogLevel level, const std::string&) { warnings += level == config::LogLevel::Warn ? 1 : 0; };

    auto sut = Runtime::create(d, options);

    ASSERT_TRUE(sut.hasValue()) << sut.error().message;
    EXPECT_LE(warnings, 1);
}

}  // namespace
}  // namespace augur::runtime
