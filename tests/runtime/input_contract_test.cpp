// The input contract through real iceoryx (a RouDi embedded in the test process): one test per way a
// single message, or its absence, used to lock input out or poison the outputs. Each asserts that the
// health message shows the fault in the cycle it happens, and that valid input is accepted again
// within one cycle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <memory>

#include "augur/platform/clock.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/runtime.hpp"
#include "augur/testing/embedded_roudi.hpp"
#include "augur/testing/testing.hpp"
#include "support/runtime_fixture.hpp"

namespace augur::runtime {
namespace {

constexpr std::uint32_t VEHICLES = 6;
constexpr int WARM_UP_CYCLES = 3;
constexpr std::int64_t HOUR_NS = 3'600'000'000'000;

const auto* const g_environment =
    ::testing::AddGlobalTestEnvironment(new testing::EmbeddedRouDiEnvironment("augur-input-contract-test"));

std::size_t index(RejectReason reason) { return static_cast<std::size_t>(reason); }
bool has(const Health& health, HealthFault fault) { return (health.faults & bit(fault)) != 0; }

/// A runtime, a perception publisher on its input and a reader of its newest outputs.
class InputContract : public ::testing::Test {
protected:
    void start(const std::string& instance) {
        d = testing::quickDeployment(instance);
        d.flocks.enabled = false;
        sut = testing::makeRuntime(d);
        ASSERT_NE(sut, nullptr);
        feeder = std::make_unique<testing::Feeder>(d);
        tracks = std::make_unique<platform::Subscriber<TrackList>>(
            platform::Subscriber<TrackList>::create(testing::service(d.transport.tracks), 4).value());
        prediction = std::make_unique<platform::Subscriber<MotionPrediction>>(
            platform::Subscriber<MotionPrediction>::create(testing::service(d.transport.prediction), 4).value());
        scene = std::make_unique<testing::SyntheticScene>(testing::shippedMap(), VEHICLES);
        for (int k = 0; k < WARM_UP_CYCLES; ++k) {
            sendValid();
            ASSERT_TRUE(cycle().hadInput);
        }
        ASSERT_EQ(sut->lastHealth().mode, RuntimeMode::Nominal);
    }

    /// Publishes the scene's next list (stamped now), edited by `edit`.
    template <typename Edit>
    void send(Edit&& edit) {
        const std::int64_t now = platform::monotonicNow_ns();
        ++sequence;
        feeder->send([&](ObjectList& list) {
            scene->writeAt(list, sequence, now);
            edit(list);
        });
    }
    void sendValid() {
        send([](ObjectList&) {});
    }

    /// Runs one cycle and checks every output it published is finite.
    CycleReport cycle() {
        const CycleReport report = sut->runCycle();
        while (auto sample = tracks->take()) {
            const TrackList& list = **sample;
            for (std::uint32_t i = 0; i < list.trackCount; ++i) {
                const Track& t = list.tracks[i];
                EXPECT_TRUE(std::isfinite(t.x_m) && std::isfinite(t.y_m) && std::isfinite(t.vx_mps) &&
                            std::isfinite(t.vy_mps) && std::isfinite(t.covXX_m2) && std::isfinite(t.covYY_m2))
                    << "track " << t.id;
            }
        }
        while (auto sample = prediction->take()) {
            std::memcpy(lastPrediction.get(), &**sample, sizeof(MotionPrediction));
            const MotionPrediction& p = *lastPrediction;
            for (std::uint32_t v = 0; v < p.vehicleCount; ++v) {
                for (std::uint32_t c = 0; c < p.vehicles[v].corridorCount; ++c) {
                    const CorridorPrediction& corridor = p.vehicles[v].corridors[c];
                    EXPECT_TRUE(std::isfinite(corridor.probability));
                    for (std::uint32_t h = 0; h < p.horizonSteps; ++h) {
                        EXPECT_TRUE(std::isfinite(corridor.points[h].x_m) && std::isfinite(corridor.points[h].y_m));
                    }
                }
            }
        }
        return report;
    }

    /// Valid input is accepted again within one cycle, and the pipeline computes.
    void expectValidInputFlows() {
        sendValid();
        const CycleReport report = cycle();
        EXPECT_TRUE(report.hadInput) << "a valid list is accepted in the next cycle";
        EXPECT_EQ(sut->lastHealth().lastCycleHadInput, 1);
        EXPECT_FALSE(has(sut->lastHealth(), HealthFault::InputLost));
    }

    config::Deployment d;
    std::unique_ptr<Runtime> sut;
    std::unique_ptr<testing::Feeder> feeder;
    std::unique_ptr<platform::Subscriber<TrackList>> tracks;
    std::unique_ptr<platform::Subscriber<MotionPrediction>> prediction;
    std::unique_ptr<testing::SyntheticScene> scene;
    std::unique_ptr<MotionPrediction> lastPrediction = std::make_unique<MotionPrediction>();
    std::uint64_t sequence{0};
};

TEST_F(InputContract, AListStampedAnHourAheadIsRejectedAndDoesNotLockInputOut) {
    AUGUR_REQUIRE_ICEORYX();
    start("future");
    send([](ObjectList& list) { list.header.stamp_ns += HOUR_NS; });
    const CycleReport report = cycle();
    EXPECT_FALSE(report.hadInput);
    const Health& health = sut->lastHealth();
    EXPECT_EQ(health.rejections[index(RejectReason::FutureStamp)], 1U);
    EXPECT_TRUE(has(health, HealthFault::InputRejected));
    expectValidInputFlows();
    EXPECT_LE(lastPrediction->sourceStamp_ns, lastPrediction->header.stamp_ns) << "the prediction's age is not negative";
}

TEST_F(InputContract, TheLargestSequenceNumberDoesNotLockInputOut) {
    AUGUR_REQUIRE_ICEORYX();
    start("max-sequence");
    send([](ObjectList& list) { list.header.sequence = std::numeric_limits<std::uint64_t>::max(); });
    ASSERT_TRUE(cycle().hadInput);
    expectValidInputFlows();
    EXPECT_EQ(sut->lastHealth().sequenceResets, 1U);
    EXPECT_TRUE(has(sut->lastHealth(), HealthFault::InputResynchronised));
}

TEST_F(InputContract, ARestartedPerceptionIsFollowedAtOnce) {
    AUGUR_REQUIRE_ICEORYX();
    start("restart");
    sequence = 0;  // the publisher restarts: its sequence begins again
    expectValidInputFlows();
    EXPECT_EQ(sut->lastHealth().sequenceResets, 1U);
    EXPECT_TRUE(has(sut->lastHealth(), HealthFault::InputResynchronised));
    expectValidInputFlows();
    EXPECT_EQ(sut->lastHealth().sequenceResets, 1U) << "only the first list after the restart resynchronises";
    EXPECT_FALSE(has(sut->lastHealth(), HealthFault::InputResynchronised));
}

TEST_F(InputContract, ObjectsWithAbsurdValuesAreDroppedAndIntentionsStay) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr int POISONED_CYCLES = 5;
    start("poison");
    for (int k = 0; k < POISONED_CYCLES; ++k) {
        send([](ObjectList& list) {
            PerceivedObject& o = list.objects[list.objectCount++];
            o = list.objects[0];
            o.id = 9999;
            o.speed_mps = 1e30F;
            o.x_m = 3e38F;
            o.stdX_m = 3e38F;
        });
        const CycleReport report = cycle();
        EXPECT_TRUE(report.hadInput);
        EXPECT_NE(report.status[static_cast<std::size_t>(Stage::Intention)], StageStatus::Failed);
    }
    const Health& health = sut->lastHealth();
    EXPECT_EQ(health.objectRejections[index(RejectReason::Implausible)], static_cast<std::uint64_t>(POISONED_CYCLES));
    EXPECT_TRUE(has(health, HealthFault::InputRejected));
    EXPECT_EQ(health.stageFailures, 0U);
    EXPECT_EQ(health.nonFiniteDropped, 0U) << "nothing non-finite reached the pipeline";
    EXPECT_EQ(lastPrediction->vehicleCount, VEHICLES) << "every real vehicle keeps its prediction";
}

TEST_F(InputContract, InputLossStepsDownToHoldLastThenNoPredictionAndRecoversWithinOneCycle) {
    AUGUR_REQUIRE_ICEORYX();
    start("loss");
    const std::uint32_t holdLastAfter = d.input.lossHoldLastCycles;
    const std::uint32_t noPredictionAfter = d.input.lossNoPredictionCycles;
    ASSERT_GT(holdLastAfter, 0U);
    ASSERT_GT(noPredictionAfter, holdLastAfter);
    for (std::uint32_t k = 1; k <= noPredictionAfter; ++k) {
        (void)cycle();
        const Health& health = sut->lastHealth();
        EXPECT_EQ(health.cyclesWithoutInput, k);
        EXPECT_EQ(has(health, HealthFault::InputLost), k >= holdLastAfter) << "cycle " << k;
        const RuntimeMode expected = k >= noPredictionAfter ? RuntimeMode::NoPrediction
                                     : k >= holdLastAfter   ? RuntimeMode::HoldLast
                                                            : RuntimeMode::Nominal;
        EXPECT_EQ(health.mode, expected) << "cycle " << k;
    }
    (void)cycle();
    EXPECT_EQ(lastPrediction->mode, RuntimeMode::NoPrediction);
    EXPECT_EQ(lastPrediction->vehicleCount, 0U);

    expectValidInputFlows();
    EXPECT_EQ(sut->lastHealth().mode, RuntimeMode::Nominal) << "the mode the next cycle runs in";
    sendValid();
    (void)cycle();
    EXPECT_EQ(lastPrediction->mode, RuntimeMode::Nominal);
    EXPECT_EQ(lastPrediction->vehicleCount, VEHICLES);
}

}  // namespace
}  // namespace augur::runtime
