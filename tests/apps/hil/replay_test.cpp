// The bench's iceoryx side through a real RouDi embedded in the test process: the replay publishes
// every step's object list with sensor-time stamps on its schedule, the recorder keeps every output
// message it is sent, the wait for a runtime gives up, and child processes start, end and are stopped.
// The test plays the other end of each channel itself (a subscriber for the object lists, publishers
// for the outputs); the whole chain with a real augur-runtime is the end-to-end bench test.
#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "augur/core/panic.hpp"
#include "augur/hil/child_process.hpp"
#include "augur/hil/replay.hpp"
#include "augur/platform/clock.hpp"
#include "augur/testing/embedded_roudi.hpp"

namespace augur::hil {
namespace {

const auto* const g_environment =
    ::testing::AddGlobalTestEnvironment(new testing::EmbeddedRouDiEnvironment("augur-hil-replay-test"));

constexpr std::uint32_t EGO_ID = 1;
constexpr double STEP_S = 0.1;
constexpr std::int64_t STEP_NS = 100'000'000;
constexpr std::size_t STEPS = 30;
constexpr std::uint64_t SUBSCRIBER_QUEUE = 64;
constexpr double FAST = 5.0;  // 30 steps in 0.6 s

BenchChannels uniqueChannels() {
    static int counter = 0;
    const std::string instance = "bench" + std::to_string(++counter);
    return {{"augur-hil-test", instance, "objects"},
            {"augur-hil-test", instance, "tracks"},
            {"augur-hil-test", instance, "intentions"},
            {"augur-hil-test", instance, "prediction"},
            {"augur-hil-test", instance, "health"},
            {"augur-hil-test", instance, "platoons"}};
}

/// The ego and one car beside it, `STEPS` steps.
Scenario twoVehicles() {
    std::vector<GroundTruthState> states;
    std::vector<std::size_t> stepOf;
    for (std::size_t k = 0; k < STEPS; ++k) {
        states.push_back({EGO_ID, ObjectClass::Car, 0.0F, 0.0F, 0.0F, 0.0F, 4.5F, 1.8F});
        states.push_back({2, ObjectClass::Car, 10.0F + static_cast<float>(k), 3.0F, 0.0F, 10.0F, 4.5F, 1.8F});
        stepOf.push_back(k);
        stepOf.push_back(k);
    }
    auto built = Scenario::fromStates("two", STEP_S, states, stepOf);
    AUGUR_ASSERT(built.hasValue(), "twoVehicles");
    return std::move(built).value();
}

PerceptionEmulator perceptionOf(const Scenario& scenario) {
    PerceptionConfig config;
    config.egoId = EGO_ID;
    config.dropoutProbability = 0.0F;
    auto created = PerceptionEmulator::create(scenario, config);
    AUGUR_ASSERT(created.hasValue(), "perceptionOf");
    return std::move(created).value();
}

TEST(Replay, PublishesEveryStepInOrderWithSensorTimeStamps) {
    AUGUR_REQUIRE_ICEORYX();
    const Scenario scenario = twoVehicles();
    PerceptionEmulator perception = perceptionOf(scenario);
    const BenchChannels channels = uniqueChannels();
    auto runtimeSide = platform::Subscriber<ObjectList>::create(channels.objects, SUBSCRIBER_QUEUE);
    auto io = BenchIo::create(channels);
    ASSERT_TRUE(runtimeSide && io);
    ASSERT_TRUE(io->runtimeSubscribed());
    ReplayOptions options;
    options.speedFactor = FAST;
    options.tail_ns = 0;
    Recording recording;
    const std::atomic<bool> stop{false};
    const std::int64_t before_ns = platform::monotonicNow_ns();

    const ReplayLog sut = replay(scenario, perception, io.value(), recording, options, stop);

    const std::int64_t after_ns = platform::monotonicNow_ns();
    EXPECT_EQ(sut.published, STEPS);
    EXPECT_EQ(sut.lists.size(), STEPS);
    EXPECT_EQ(sut.egoId, EGO_ID);
    // Absolute deadlines: the last list goes out no earlier than (STEPS − 1) steps / speed after the first.
    EXPECT_GE(after_ns - before_ns, static_cast<std::int64_t>((STEPS - 1) * STEP_NS / FAST));
    std::uint64_t lastSequence = 0;
    for (std::size_t k = 0; k < STEPS; ++k) {
        auto sample = runtimeSide->take();
        ASSERT_TRUE(sample.hasValue()) << "step " << k;
        const ObjectList& list = **sample;
        EXPECT_GT(list.header.sequence, lastSequence);
        lastSequence = list.header.sequence;
        EXPECT_EQ(list.header.stamp_ns, sut.stampOfStep0_ns + static_cast<std::int64_t>(k) * STEP_NS);
        EXPECT_EQ(list.header.sequence, sut.lists[k].header.sequence);
        ASSERT_EQ(list.objectCount, 1U);
        EXPECT_EQ(list.objects[0].id, 2U);
    }
    EXPECT_FALSE(runtimeSide->take().hasValue());
    // The first stamp is the first list's publish time: between the call and its return.
    EXPECT_GE(sut.stampOfStep0_ns, before_ns);
    EXPECT_LE(sut.stampOfStep0_ns, after_ns);
}

TEST(Replay, StartsAtTheFirstStepAndStopsAfterTheStepCount) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::size_t FIRST = 10;
    constexpr std::size_t COUNT = 5;
    const Scenario scenario = twoVehicles();
    PerceptionEmulator perception = perceptionOf(scenario);
    const BenchChannels channels = uniqueChannels();
    auto runtimeSide = platform::Subscriber<ObjectList>::create(channels.objects, SUBSCRIBER_QUEUE);
    auto io = BenchIo::create(channels);
    ASSERT_TRUE(runtimeSide && io);
    ReplayOptions options;
    options.firstStep = FIRST;
    options.stepCount = COUNT;
    options.speedFactor = FAST;
    options.tail_ns = 0;
    Recording recording;
    const std::atomic<bool> stop{false};

    const ReplayLog sut = replay(scenario, perception, io.value(), recording, options, stop);

    EXPECT_EQ(sut.published, COUNT);
    EXPECT_EQ(sut.firstStep, FIRST);
    auto first = runtimeSide->take();
    ASSERT_TRUE(first.hasValue());
    // Stamps stay in scenario time: step FIRST carries stampOfStep0 + FIRST steps.
    EXPECT_EQ((*first)->header.stamp_ns, sut.stampOfStep0_ns + static_cast<std::int64_t>(FIRST) * STEP_NS);
    EXPECT_EQ((*first)->objects[0].id, 2U);
}

TEST(Replay, StopRequestEndsTheReplayBeforeTheFirstList) {
    AUGUR_REQUIRE_ICEORYX();
    const Scenario scenario = twoVehicles();
    PerceptionEmulator perception = perceptionOf(scenario);
    auto io = BenchIo::create(uniqueChannels());
    ASSERT_TRUE(io);
    Recording recording;
    const std::atomic<bool> stop{true};

    const ReplayLog sut = replay(scenario, perception, io.value(), recording, ReplayOptions{}, stop);

    EXPECT_EQ(sut.published, 0U);
}

TEST(BenchIo, RecordsEveryOutputMessageItIsSent) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::uint64_t CYCLES = 3;
    const BenchChannels channels = uniqueChannels();
    auto sut = BenchIo::create(channels);
    auto tracks = platform::Publisher<TrackList>::create(channels.tracks);
    auto intentions = platform::Publisher<IntentionList>::create(channels.intentions);
    auto prediction = platform::Publisher<MotionPrediction>::create(channels.prediction);
    auto health = platform::Publisher<Health>::create(channels.health);
    auto platoons = platform::Publisher<PlatoonList>::create(channels.platoons);
    ASSERT_TRUE(sut && tracks && intentions && prediction && health && platoons);
    for (std::uint64_t cycle = 1; cycle <= CYCLES; ++cycle) {
        auto t = tracks->loan();
        auto i = intentions->loan();
        auto p = prediction->loan();
        auto h = health->loan();
        auto g = platoons->loan();
        ASSERT_TRUE(t && i && p && h && g);
        **t = TrackList{};
        (*t)->header.sequence = cycle;
        (*t)->trackCount = 2;
        (*t)->tracks[1].id = 77;
        **i = IntentionList{};
        (*i)->header.sequence = cycle;
        (*i)->vehicleCount = 1;
        std::memset(static_cast<void*>(p->get()), 0, sizeof(MotionPrediction));
        (*p)->header.schemaVersion = MESSAGE_SCHEMA_VERSION;
        (*p)->header.sequence = cycle;
        (*p)->vehicleCount = 1;
        (*p)->grid.widthCells = 2;
        (*p)->grid.heightCells = 2;
        (*p)->grid.frameCount = 1;
        **h = Health{};
        (*h)->cycle = cycle;
        **g = PlatoonList{};
        (*g)->header.sequence = cycle;
        (*g)->platoonCount = 1;
        (*g)->platoons[0].memberCount = 3;
        g->publish();
        t->publish();
        i->publish();
        p->publish();
        h->publish();
    }
    Recording recording;

    sut->drain(recording);

    ASSERT_EQ(recording.tracks.size(), CYCLES);
    EXPECT_EQ(recording.intentions.size(), CYCLES);
    EXPECT_EQ(recording.predictions.size(), CYCLES);
    ASSERT_EQ(recording.health.size(), CYCLES);
    ASSERT_EQ(recording.platoons.size(), CYCLES);
    EXPECT_EQ(recording.platoons[1].platoons.at(0).memberCount, 3U);
    EXPECT_EQ(recording.tracks[2].cycle, CYCLES);
    ASSERT_EQ(recording.tracks[0].tracks.size(), 2U);
    EXPECT_EQ(recording.tracks[0].tracks[1].id, 77U);
    EXPECT_EQ(recording.predictions[1].grid.cells.size(), 4U);
    EXPECT_EQ(recording.health[2].cycle, CYCLES);
    EXPECT_EQ(recording.queueOverflows, 0U);
    EXPECT_EQ(recording.invalidMessages, 0U);
}

TEST(BenchIo, WaitForRuntimeGivesUpWithoutOne) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::int64_t TIMEOUT_NS = 50'000'000;
    auto io = BenchIo::create(uniqueChannels());
    ASSERT_TRUE(io);
    const std::atomic<bool> stop{false};

    EXPECT_FALSE(io->runtimeSubscribed());
    EXPECT_FALSE(waitForRuntime(io.value(), TIMEOUT_NS, stop));
}

TEST(ChildProcess, ReportsTheExitStatusOfAProgramThatEnds) {
    constexpr int STATUS = 3;
    auto sut = ChildProcess::spawn({"/bin/sh", "-c", "exit 3"});
    ASSERT_TRUE(sut.hasValue());

    EXPECT_EQ(sut.value().wait(10'000), STATUS);
    EXPECT_FALSE(sut.value().running());
}

TEST(ChildProcess, StopEndsARunningProgramWithTheSignal) {
    auto sut = ChildProcess::spawn({"sleep", "30"});
    ASSERT_TRUE(sut.hasValue());
    ASSERT_TRUE(sut.value().running());

    EXPECT_EQ(sut.value().stop(SIGTERM, 10'000), 128 + SIGTERM);
    EXPECT_FALSE(sut.value().running());
}

TEST(ChildProcess, MissingProgramIsAnError) {
    auto sut = ChildProcess::spawn({"/nonexistent/augur-no-such-program"});

    ASSERT_TRUE(sut.hasError());
    EXPECT_NE(sut.error().find("augur-no-such-program"), std::string::npos);
}

TEST(ChildProcess, EmptyCommandIsAnError) {
    EXPECT_TRUE(ChildProcess::spawn({}).hasError());
}

}  // namespace
}  // namespace augur::hil
