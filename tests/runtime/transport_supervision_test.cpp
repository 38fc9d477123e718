// The runtime's view of the transport, through real iceoryx (RouDi embedded in the test process, with
// pools small enough to exhaust): a lost RouDi (injected; the real one is transport_supervision_test.sh)
// and subscribers that take chunks and never release them.
#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "augur/platform/clock.hpp"
#include "augur/platform/roudi.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/runtime.hpp"
#include "augur/testing/embedded_roudi.hpp"
#include "augur/testing/testing.hpp"
#include "support/runtime_fixture.hpp"

namespace augur::runtime {
namespace {

// Chunks of the pools below: few enough that a hoarding subscriber exhausts one in a few cycles.
constexpr std::uint32_t HEALTH_CHUNKS = 16;      // 1 KiB: Health only
constexpr std::uint32_t LIST_CHUNKS = 256;       // 8 KiB: object, track, intention and platoon lists
constexpr std::uint32_t PREDICTION_CHUNKS = 8;   // 1 MiB: MotionPrediction only
constexpr std::uint32_t VEHICLES = 4;
constexpr double SCENE_STEP_S = 0.2;
/// Enough cycles for a hoarder to take every chunk of a pool, and two more with failed loans.
constexpr int CYCLES_TO_EXHAUST = 40;
constexpr std::uint32_t RECOVER_AFTER_GOOD_CYCLES = 2;
constexpr std::uint32_t RELAXED_PERIOD_MS = 5000;  // run() waits a period between cycles: tests run one

std::vector<platform::MempoolEntry> smallPools() {
    const auto shipped = platform::augurMempools();  // sizes: Health, lists, MotionPrediction
    return {{shipped[0].payloadBytes, HEALTH_CHUNKS},
            {shipped[1].payloadBytes, LIST_CHUNKS},
            {shipped[2].payloadBytes, PREDICTION_CHUNKS}};
}

const auto* const g_environment = ::testing::AddGlobalTestEnvironment(
    new testing::EmbeddedRouDiEnvironment("augur-transport-supervision-test", smallPools()));

using testing::makeRuntime;
using testing::service;
using testing::shippedMap;

config::Deployment testDeployment(const std::string& instance) {
    config::Deployment d = testing::smallDeployment(instance, config::Backend::Cpu);
    d.motion.horizon_s = 2.0;
    d.motion.positionCells = 50;
    d.motion.positionRange_m = 100.0;
    d.motion.speedCells = 10;
    d.motion.maxSpeed_mps = 20.0;
    d.flocks.enabled = false;
    d.runtime.watchdog.recoverAfterGoodCycles = RECOVER_AFTER_GOOD_CYCLES;
    // Timing is not under test: no deadline miss may lower the mode, not even under emulation.
    d.runtime.cyclePeriod_ms = RELAXED_PERIOD_MS;
    d.runtime.deadline_ms = RELAXED_PERIOD_MS;
    return d;
}

/// Publishes a synthetic scene's object list before every cycle, so input loss never lowers the mode.
class FedRuntime {
public:
    explicit FedRuntime(const config::Deployment& d)
        : sut(makeRuntime(d)), m_feeder(d), m_scene(shippedMap(), VEHICLES) {}
    CycleReport cycle() {
        ++m_sequence;
        m_feeder.send([this](ObjectList& list) { m_scene.write(list, m_sequence, platform::monotonicNow_ns()); });
        m_scene.advance(SCENE_STEP_S);
        return sut->runCycle();
    }
    std::unique_ptr<Runtime> sut;

private:
    testing::Feeder m_feeder;
    testing::SyntheticScene m_scene;
    std::uint64_t m_sequence{0};
};

/// Takes every message of a channel and keeps it: the peer that starves a pool.
template <typename T>
class Hoarder {
public:
    explicit Hoarder(const config::Channel& channel)
        : m_subscriber(platform::Subscriber<T>::create(service(channel), HOARDER_QUEUE).value()) {
        m_held.reserve(MAX_HELD);
    }
    void takeAll() {
        while (m_held.size() < MAX_HELD) {
            auto sample = m_subscriber.take();
            if (!sample) {
                return;
            }
            m_held.push_back(std::move(sample).value());
        }
    }
    void releaseAll() { m_held.clear(); }
    [[nodiscard]] std::size_t held() const { return m_held.size(); }

private:
    static constexpr std::uint64_t HOARDER_QUEUE = 4;
    static constexpr std::size_t MAX_HELD = 64;  // below iceoryx's 256 chunks held per subscriber
    platform::Subscriber<T> m_subscriber;
    std::vector<platform::Sample<T>> m_held;
};

bool hasFault(const Health& health, HealthFault fault) { return (health.faults & bit(fault)) != 0; }

TEST(TransportSupervision, EmbeddedRouDiIsNeverReportedLost) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr int CYCLES = 3;
    FedRuntime fed(testDeployment("embedded-not-lost"));
    ASSERT_NE(fed.sut, nullptr);
    for (int k = 0; k < CYCLES; ++k) {
        (void)fed.cycle();
        EXPECT_FALSE(hasFault(fed.sut->lastHealth(), HealthFault::TransportLost));
    }
    EXPECT_FALSE(fed.sut->transportLost());
}

TEST(TransportSupervision, LostRouDiIsInThatCyclesHealthAndHoldsNoPrediction) {
    AUGUR_REQUIRE_ICEORYX();
    const config::Deployment d = testDeployment("lost-health");
    FedRuntime fed(d);
    ASSERT_NE(fed.sut, nullptr);
    (void)fed.cycle();
    EXPECT_FALSE(hasFault(fed.sut->lastHealth(), HealthFault::TransportLost));

    fed.sut->injectTransportLoss();
    (void)fed.cycle();

    EXPECT_TRUE(fed.sut->transportLost());
    EXPECT_TRUE(hasFault(fed.sut->lastHealth(), HealthFault::TransportLost));
    // The floor holds from the next cycle on, for good (the loss is final), whatever the input.
    for (std::uint32_t k = 0; k < RECOVER_AFTER_GOOD_CYCLES + 3; ++k) {
        (void)fed.cycle();
        EXPECT_TRUE(hasFault(fed.sut->lastHealth(), HealthFault::TransportLost)) << "cycle " << k;
    }
    EXPECT_EQ(fed.sut->executor().ladder().mode(), RuntimeMode::NoPrediction);
}

TEST(TransportSupervision, LostRouDiStopsTheRunLoopAfterThatCycle) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::uint64_t UNLIMITED = 0;
    const config::Deployment d = testDeployment("lost-run");
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    const std::atomic<bool> neverStop{false};
    sut->injectTransportLoss();

    const RunOutcome outcome = sut->run(neverStop, UNLIMITED);

    EXPECT_EQ(outcome, RunOutcome::TransportLost);
    EXPECT_EQ(sut->executor().cycles(), 1U);
    EXPECT_TRUE(hasFault(sut->lastHealth(), HealthFault::TransportLost));
    EXPECT_EQ(sut->run(neverStop, UNLIMITED), RunOutcome::TransportLost) << "a lost runtime does not run again";
    EXPECT_EQ(sut->executor().cycles(), 1U);
}

TEST(TransportSupervision, RunWithoutLossEndsStopped) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::uint64_t CYCLES = 1;
    const config::Deployment d = testDeployment("run-stopped");
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    const std::atomic<bool> neverStop{false};
    EXPECT_EQ(sut->run(neverStop, CYCLES), RunOutcome::Stopped);
    EXPECT_EQ(sut->executor().cycles(), CYCLES);
}

TEST(TransportSupervision, SubscriberHoardingPredictionsBlocksTheOutputUntilItReleases) {
    AUGUR_REQUIRE_ICEORYX();
    const config::Deployment d = testDeployment("hoard-prediction");
    FedRuntime fed(d);
    ASSERT_NE(fed.sut, nullptr);
    Hoarder<MotionPrediction> hoarder(d.transport.prediction);

    int blockedAt = -1;
    for (int k = 0; k < CYCLES_TO_EXHAUST && blockedAt < 0; ++k) {
        (void)fed.cycle();
        hoarder.takeAll();
        if (hasFault(fed.sut->lastHealth(), HealthFault::OutputBlocked)) {
            blockedAt = k;
        }
    }

    ASSERT_GE(blockedAt, 0) << "the pool of " << PREDICTION_CHUNKS << " chunks never ran out";
    EXPECT_LE(hoarder.held(), PREDICTION_CHUNKS);
    EXPECT_GE(fed.sut->counters().loanFailures, 2U) << "two cycles of failed loans before output_blocked";
    (void)fed.cycle();  // the floor set after the blocked cycle applies to the ladder here
    EXPECT_TRUE(hasFault(fed.sut->lastHealth(), HealthFault::OutputBlocked));
    EXPECT_EQ(fed.sut->executor().ladder().mode(), RuntimeMode::NoPrediction);

    hoarder.releaseAll();
    (void)fed.cycle();
    EXPECT_FALSE(hasFault(fed.sut->lastHealth(), HealthFault::OutputBlocked)) << "loans succeed again";
    for (std::uint32_t k = 0; k < 4 * RECOVER_AFTER_GOOD_CYCLES + 4; ++k) {
        (void)fed.cycle();
        hoarder.takeAll();
        hoarder.releaseAll();
    }
    EXPECT_EQ(fed.sut->executor().ladder().mode(), RuntimeMode::Nominal) << "the ladder climbs back";
}

TEST(TransportSupervision, SubscriberHoardingHealthCountsLoanFailuresButLeavesPredictionsAlone) {
    AUGUR_REQUIRE_ICEORYX();
    const config::Deployment d = testDeployment("hoard-health");
    FedRuntime fed(d);
    ASSERT_NE(fed.sut, nullptr);
    Hoarder<Health> hoarder(d.transport.health);

    int cycles = 0;
    for (; cycles < CYCLES_TO_EXHAUST && fed.sut->counters().loanFailures < 2; ++cycles) {
        (void)fed.cycle();
        hoarder.takeAll();
    }

    EXPECT_GE(fed.sut->counters().loanFailures, 2U) << "the health pool of " << HEALTH_CHUNKS << " never ran out";
    const std::uint64_t before = fed.sut->counters().loanFailures;
    (void)fed.cycle();
    EXPECT_EQ(fed.sut->counters().loanFailures, before + 1) << "each health message without a chunk is counted";
    EXPECT_EQ(fed.sut->lastHealth().loanFailures, before) << "and reported in the next health that gets out";
    // Monitoring starved is not the planner starved: the predictions go on at full level.
    EXPECT_FALSE(hasFault(fed.sut->lastHealth(), HealthFault::OutputBlocked));
    EXPECT_EQ(fed.sut->executor().ladder().mode(), RuntimeMode::Nominal);
}

}  // namespace
}  // namespace augur::runtime
