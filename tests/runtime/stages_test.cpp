// Ingest and Publish through real iceoryx shared memory (RouDi embedded in the test process).
#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <vector>

#include "augur/platform/clock.hpp"
#include "augur/platform/roudi.hpp"
#include "augur/testing/embedded_roudi.hpp"
#include "augur/runtime/stages/ingest_stage.hpp"
#include "augur/runtime/stages/publish_stage.hpp"

namespace augur::runtime {
namespace {

constexpr std::int64_t HOLD_LAST_MAX_AGE_NS = 1'000'000'000;
constexpr std::uint64_t QUEUE = 32;

const auto* const g_environment =
    ::testing::AddGlobalTestEnvironment(new testing::EmbeddedRouDiEnvironment("augur-stages-test"));

platform::ServiceName channel(const char* event) {
    static int counter = 0;
    return {"augur-stages", "i" + std::to_string(++counter), event};
}

void fillValid(ObjectList& list, std::uint64_t sequence) {
    list.header = MessageHeader{};
    list.header.sequence = sequence;
    list.header.stamp_ns = platform::monotonicNow_ns();
    list.ego = EgoState{};
    list.objectCount = 2;
    for (std::uint32_t i = 0; i < 2; ++i) {
        PerceivedObject& o = list.objects[i];
        o = PerceivedObject{};
        o.id = i + 1;
        o.objectClass = ObjectClass::Car;
        o.x_m = 10.0F * static_cast<float>(i);
        o.stdX_m = o.stdY_m = 0.2F;
        o.stdHeading_rad = 0.05F;
        o.stdSpeed_mps = 0.3F;
    }
}

class IngestStageTest : public ::testing::Test {
protected:
    void SetUp() override {
        AUGUR_REQUIRE_ICEORYX();
        const auto name = channel("objects");
        subscriber = std::make_unique<platform::Subscriber<ObjectList>>(
            platform::Subscriber<ObjectList>::create(name, QUEUE).value());
        publisher = std::make_unique<platform::Publisher<ObjectList>>(platform::Publisher<ObjectList>::create(name).value());
        state = makePipelineState();
        sut = std::make_unique<IngestStage>(*subscriber, ObjectListLimits{16, 0}, *state);
    }

    template <typename Edit>
    void send(std::uint64_t sequence, Edit&& edit) {
        auto loan = publisher->loan();
        ASSERT_TRUE(loan.hasValue());
        fillValid(**loan, sequence);
        edit(**loan);
        loan->publish();
    }
    void send(std::uint64_t sequence) {
        send(sequence, [](ObjectList&) {});
    }

    std::unique_ptr<platform::Subscriber<ObjectList>> subscriber;
    std::unique_ptr<platform::Publisher<ObjectList>> publisher;
    std::unique_ptr<PipelineState> state;
    std::unique_ptr<IngestStage> sut;
};

TEST_F(IngestStageTest, AcceptsValidListsInArrivalOrder) {
    AUGUR_REQUIRE_ICEORYX();
    send(1);
    send(2);
    CycleContext context;
    EXPECT_EQ(sut->run(context), StageStatus::Ok);
    EXPECT_TRUE(context.hadInput);
    ASSERT_EQ(state->inputCount, 2U);
    EXPECT_EQ(state->inputs[0].header.sequence, 1U);
    EXPECT_EQ(state->inputs[1].header.sequence, 2U);
    EXPECT_EQ(state->counters.accepted, 2U);
}

TEST_F(IngestStageTest, NoInputIsACycleWithoutInput) {
    AUGUR_REQUIRE_ICEORYX();
    CycleContext context;
    EXPECT_EQ(sut->run(context), StageStatus::Skipped);
    EXPECT_FALSE(context.hadInput);
    EXPECT_EQ(state->inputCount, 0U);
}

TEST_F(IngestStageTest, EveryRejectionReasonIsCountedAndValidInputStillFlows) {
    AUGUR_REQUIRE_ICEORYX();
    std::int64_t firstStamp = 0;
    send(1, [&](ObjectList& l) { firstStamp = l.header.stamp_ns; });
    send(2, [](ObjectList& l) { l.header.schemaVersion = 99; });
    send(3, [](ObjectList& l) { l.objectCount = 17; });
    send(4, [](ObjectList& l) { l.ego.y_m = std::numeric_limits<float>::quiet_NaN(); });
    send(5, [](ObjectList& l) { l.objects[0].stdX_m = l.objects[1].stdX_m = -1.0F; });  // nothing left
    send(1, [&](ObjectList& l) { l.header.stamp_ns = firstStamp; });  // a repeat (a newer stamp: a restart)
    send(7, [](ObjectList& l) { l.header.stamp_ns = 0; });  // timestamp backwards
    send(8, [](ObjectList& l) { l.objects[1].id = l.objects[0].id; });  // accepted without the repeated id
    CycleContext context;
    (void)sut->run(context);
    const auto& rejected = state->counters.rejections;
    EXPECT_EQ(rejected[static_cast<std::size_t>(RejectReason::UnknownSchemaVersion)], 1U);
    EXPECT_EQ(rejected[static_cast<std::size_t>(RejectReason::CountOverCapacity)], 1U);
    EXPECT_EQ(rejected[static_cast<std::size_t>(RejectReason::NonFinite)], 1U);
    EXPECT_EQ(rejected[static_cast<std::size_t>(RejectReason::InvalidField)], 1U);
    EXPECT_EQ(rejected[static_cast<std::size_t>(RejectReason::SequenceNotIncreasing)], 1U);
    EXPECT_EQ(rejected[static_cast<std::size_t>(RejectReason::TimestampBackwards)], 1U);
    EXPECT_EQ(state->counters.objectRejections[static_cast<std::size_t>(RejectReason::DuplicateId)], 1U);
    EXPECT_EQ(state->counters.accepted, 2U);
    ASSERT_EQ(state->inputCount, 2U);
    EXPECT_EQ(state->inputs[1].objectCount, 1U);
    EXPECT_EQ(sut->history().lastSequence, 8U);
    EXPECT_NE(context.faults & bit(HealthFault::InputRejected), 0U);
}

TEST_F(IngestStageTest, ListsBeyondOneCyclesCapacityWaitForTheNextCycle) {
    AUGUR_REQUIRE_ICEORYX();
    for (std::uint64_t s = 1; s <= MAX_INPUTS_PER_CYCLE + 3; ++s) {
        send(s);
    }
    CycleContext context;
    (void)sut->run(context);
    EXPECT_EQ(state->inputCount, MAX_INPUTS_PER_CYCLE);
    (void)sut->run(context);
    EXPECT_EQ(state->inputCount, 3U);
    EXPECT_EQ(state->inputs[2].header.sequence, MAX_INPUTS_PER_CYCLE + 3);
    EXPECT_EQ(state->counters.accepted, MAX_INPUTS_PER_CYCLE + 3);
}

class PublishStageTest : public ::testing::Test {
protected:
    void SetUp() override {
        AUGUR_REQUIRE_ICEORYX();
        tracksName = channel("tracks");
        intentionsName = channel("intentions");
        predictionName = channel("prediction");
        tracksSub = std::make_unique<platform::Subscriber<TrackList>>(
            platform::Subscriber<TrackList>::create(tracksName, 4).value());
        intentionsSub = std::make_unique<platform::Subscriber<IntentionList>>(
            platform::Subscriber<IntentionList>::create(intentionsName, 4).value());
        predictionSub = std::make_unique<platform::Subscriber<MotionPrediction>>(
            platform::Subscriber<MotionPrediction>::create(predictionName, 4).value());
        tracksPub = std::make_unique<platform::Publisher<TrackList>>(platform::Publisher<TrackList>::create(tracksName).value());
        intentionsPub = std::make_unique<platform::Publisher<IntentionList>>(
            platform::Publisher<IntentionList>::create(intentionsName).value());
        predictionPub = std::make_unique<platform::Publisher<MotionPrediction>>(
            platform::Publisher<MotionPrediction>::create(predictionName).value());
        state = makePipelineState();
        sut = std::make_unique<PublishStage>(OutputPublishers{*tracksPub, *intentionsPub, *predictionPub}, *state,
                                             HOLD_LAST_MAX_AGE_NS);
    }

    MotionPrediction receivedPrediction() {
        auto sample = predictionSub->take();
        EXPECT_TRUE(sample.hasValue());
        MotionPrediction copy;
        if (sample) {
            std::memcpy(&copy, &**sample, sizeof(copy));
        }
        return copy;
    }

    platform::ServiceName tracksName, intentionsName, predictionName;
    std::unique_ptr<platform::Subscriber<TrackList>> tracksSub;
    std::unique_ptr<platform::Subscriber<IntentionList>> intentionsSub;
    std::unique_ptr<platform::Subscriber<MotionPrediction>> predictionSub;
    std::unique_ptr<platform::Publisher<TrackList>> tracksPub;
    std::unique_ptr<platform::Publisher<IntentionList>> intentionsPub;
    std::unique_ptr<platform::Publisher<MotionPrediction>> predictionPub;
    std::unique_ptr<PipelineState> state;
    std::unique_ptr<PublishStage> sut;
};

TEST_F(PublishStageTest, PublishesAllOutputsWithTheCycleAsSequence) {
    AUGUR_REQUIRE_ICEORYX();
    state->tracks.trackCount = 3;
    state->prediction.vehicleCount = 2;
    CycleContext context;
    context.cycle = 11;
    context.start_ns = 5'000;
    EXPECT_EQ(sut->run(context), StageStatus::Ok);
    auto tracks = tracksSub->take();
    ASSERT_TRUE(tracks.hasValue());
    EXPECT_EQ((*tracks)->header.sequence, 11U);
    EXPECT_EQ((*tracks)->trackCount, 3U);
    EXPECT_EQ((*tracks)->stale, 0U);
    EXPECT_TRUE(intentionsSub->take().hasValue());
    const MotionPrediction prediction = receivedPrediction();
    EXPECT_EQ(prediction.vehicleCount, 2U);
    EXPECT_EQ(prediction.mode, RuntimeMode::Nominal);
}

TEST_F(PublishStageTest, MissedDeadlineMarksOutputsStale) {
    AUGUR_REQUIRE_ICEORYX();
    CycleContext context;
    context.deadlineMissed = true;
    (void)sut->run(context);
    auto tracks = tracksSub->take();
    ASSERT_TRUE(tracks.hasValue());
    EXPECT_EQ((*tracks)->stale, 1U);
    EXPECT_EQ(receivedPrediction().stale, 1U);
}

TEST_F(PublishStageTest, HoldLastRepublishesTheLastValidPrediction) {
    AUGUR_REQUIRE_ICEORYX();
    state->prediction.vehicleCount = 4;
    state->prediction.sourceStamp_ns = 900;
    CycleContext context;
    context.start_ns = 1'000;
    (void)sut->run(context);
    (void)receivedPrediction();
    state->prediction.vehicleCount = 0;  // nothing computed in HoldLast
    context.mode = RuntimeMode::HoldLast;
    context.cycle = 1;
    context.start_ns = 2'000;
    (void)sut->run(context);
    const MotionPrediction held = receivedPrediction();
    EXPECT_EQ(held.vehicleCount, 4U);
    EXPECT_EQ(held.mode, RuntimeMode::HoldLast);
    EXPECT_EQ(held.sourceStamp_ns, 900);
    EXPECT_EQ(held.header.sequence, 1U);
}

TEST_F(PublishStageTest, HoldLastAgeCountsFromTheCycleThatComputedThePrediction) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::int64_t COMPUTED_AT_NS = 5'000;
    state->prediction.vehicleCount = 3;
    CycleContext context;
    context.start_ns = COMPUTED_AT_NS;
    (void)sut->run(context);
    (void)receivedPrediction();
    state->prediction.vehicleCount = 0;
    context.mode = RuntimeMode::HoldLast;
    context.cycle = 1;
    context.start_ns = COMPUTED_AT_NS + HOLD_LAST_MAX_AGE_NS;  // exactly the maximum age: still held

    (void)sut->run(context);

    const MotionPrediction held = receivedPrediction();
    EXPECT_EQ(held.mode, RuntimeMode::HoldLast);
    EXPECT_EQ(held.vehicleCount, 3U);
}

TEST_F(PublishStageTest, NoPredictionWhenNothingValidIsFreshEnough) {
    AUGUR_REQUIRE_ICEORYX();
    state->prediction.vehicleCount = 4;
    CycleContext context;
    context.mode = RuntimeMode::HoldLast;  // nothing valid yet
    (void)sut->run(context);
    const MotionPrediction sutOutput = receivedPrediction();
    EXPECT_EQ(sutOutput.vehicleCount, 0U);
    EXPECT_EQ(sutOutput.mode, RuntimeMode::NoPrediction);
}

TEST_F(PublishStageTest, FailedLoanIsCountedNotFatal) {
    AUGUR_REQUIRE_ICEORYX();
    std::vector<platform::Loan<TrackList>> held;
    for (int i = 0; i < 8; ++i) {
        held.push_back(tracksPub->loan().value());
    }
    CycleContext context;
    EXPECT_EQ(sut->run(context), StageStatus::Failed);
    EXPECT_EQ(state->counters.loanFailures, 1U);
    EXPECT_TRUE(predictionSub->take().hasValue());  // the other outputs still went out
}

}  // namespace
}  // namespace augur::runtime
