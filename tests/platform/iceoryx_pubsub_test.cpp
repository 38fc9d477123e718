// iceoryx 2.0 publish / subscribe of augur's messages through shared memory, with an in-process RouDi.
// These run natively and, in the aarch64 cross build, under qemu-aarch64 (docs/cross-compilation.md).
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "augur/core/messages.hpp"
#include "iceoryx_posh/popo/publisher.hpp"
#include "iceoryx_posh/popo/subscriber.hpp"
#include "iceoryx_test_roudi.hpp"

namespace augur::testing {
namespace {

constexpr std::uint32_t RANDOM_SEED = 20261121;

iox::popo::PublisherOptions defaultPublisherOptions() { return {}; }

iox::popo::SubscriberOptions subscriberOptions(std::uint64_t queueCapacity) {
    iox::popo::SubscriberOptions options;
    options.queueCapacity = queueCapacity;
    return options;
}

template <typename T>
bool connected(const iox::popo::Publisher<T>& publisher, const iox::popo::Subscriber<T>& subscriber) {
    return waitUntil([&] {
        return publisher.hasSubscribers() &&
               subscriber.getSubscriptionState() == iox::SubscribeState::SUBSCRIBED;
    });
}

ObjectList randomObjectList(std::uint64_t sequence, std::uint32_t objectCount, std::mt19937& rng) {
    std::uniform_real_distribution<float> position_m(-200.0F, 200.0F);
    std::uniform_real_distribution<float> std_m(0.05F, 2.0F);
    ObjectList list;
    list.header.sequence = sequence;
    list.header.stamp_ns = static_cast<std::int64_t>(sequence) * 100'000'000;
    list.ego = {position_m(rng), position_m(rng), 0.5F, 13.9F};
    list.objectCount = objectCount;
    for (std::uint32_t i = 0; i < objectCount; ++i) {
        PerceivedObject& object = list.objects[i];
        object.id = 1000 + i;
        object.objectClass = static_cast<ObjectClass>(1 + i % 6);
        object.x_m = position_m(rng);
        object.y_m = position_m(rng);
        object.heading_rad = position_m(rng) / 100.0F;
        object.speed_mps = std_m(rng) * 10.0F;
        object.length_m = 4.5F;
        object.width_m = 1.8F;
        object.stdX_m = std_m(rng);
        object.stdY_m = std_m(rng);
        object.stdHeading_rad = std_m(rng) / 10.0F;
        object.stdSpeed_mps = std_m(rng);
    }
    return list;
}

TEST(IceoryxPubSub, TakeOnAnEmptyQueueReportsNoChunk) {
    AUGUR_REQUIRE_ICEORYX();
    iox::popo::Publisher<ObjectList> publisher({"augur", "test", "empty"});
    iox::popo::Subscriber<ObjectList> sut({"augur", "test", "empty"});
    ASSERT_TRUE(connected(publisher, sut));

    auto taken = sut.take();

    ASSERT_TRUE(taken.has_error());
    EXPECT_EQ(taken.get_error(), iox::popo::ChunkReceiveResult::NO_CHUNK_AVAILABLE);
    EXPECT_FALSE(sut.hasData());
}

TEST(IceoryxPubSub, ObjectListArrivesBitIdentical) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::uint64_t SEQUENCE = 7;
    std::mt19937 rng(RANDOM_SEED);
    const auto expected = std::make_unique<ObjectList>(randomObjectList(SEQUENCE, MAX_OBJECTS, rng));
    iox::popo::Publisher<ObjectList> publisher({"augur", "test", "objects"});
    iox::popo::Subscriber<ObjectList> sut({"augur", "test", "objects"});
    ASSERT_TRUE(connected(publisher, sut));

    auto loaned = publisher.loan();
    ASSERT_FALSE(loaned.has_error());
    std::memcpy(loaned->get(), expected.get(), sizeof(ObjectList));
    loaned->publish();
    auto taken = sut.take();

    ASSERT_FALSE(taken.has_error());
    EXPECT_EQ(std::memcmp(taken->get(), expected.get(), sizeof(ObjectList)), 0);
    EXPECT_EQ((*taken)->header.sequence, SEQUENCE);
    EXPECT_EQ((*taken)->objects[MAX_OBJECTS - 1].id, expected->objects[MAX_OBJECTS - 1].id);
}

TEST(IceoryxPubSub, SamplesArriveInPublishOrder) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::uint64_t SAMPLE_COUNT = 32;
    constexpr std::uint32_t OBJECTS_PER_LIST = 3;
    std::mt19937 rng(RANDOM_SEED);
    iox::popo::Publisher<ObjectList> publisher({"augur", "test", "order"});
    iox::popo::Subscriber<ObjectList> sut({"augur", "test", "order"}, subscriberOptions(SAMPLE_COUNT));
    ASSERT_TRUE(connected(publisher, sut));

    for (std::uint64_t sequence = 0; sequence < SAMPLE_COUNT; ++sequence) {
        ASSERT_FALSE(publisher.publishCopyOf(randomObjectList(sequence, OBJECTS_PER_LIST, rng)).has_error());
    }
    std::vector<std::uint64_t> received;
    for (auto taken = sut.take(); !taken.has_error(); taken = sut.take()) {
        received.push_back((*taken)->header.sequence);
        EXPECT_EQ((*taken)->objectCount, OBJECTS_PER_LIST);
    }

    ASSERT_EQ(received.size(), SAMPLE_COUNT);
    for (std::uint64_t i = 0; i < SAMPLE_COUNT; ++i) {
        EXPECT_EQ(received[i], i);
    }
}

TEST(IceoryxPubSub, FullQueueDiscardsTheOldestSamples) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::uint64_t QUEUE_CAPACITY = 4;
    constexpr std::uint64_t PUBLISHED = 10;
    constexpr std::uint64_t FIRST_KEPT = PUBLISHED - QUEUE_CAPACITY;
    std::mt19937 rng(RANDOM_SEED);
    iox::popo::Publisher<ObjectList> publisher({"augur", "test", "overflow"}, defaultPublisherOptions());
    iox::popo::Subscriber<ObjectList> sut({"augur", "test", "overflow"}, subscriberOptions(QUEUE_CAPACITY));
    ASSERT_TRUE(connected(publisher, sut));

    for (std::uint64_t sequence = 0; sequence < PUBLISHED; ++sequence) {
        ASSERT_FALSE(publisher.publishCopyOf(randomObjectList(sequence, 1, rng)).has_error());
    }
    std::vector<std::uint64_t> received;
    for (auto taken = sut.take(); !taken.has_error(); taken = sut.take()) {
        received.push_back((*taken)->header.sequence);
    }

    ASSERT_EQ(received.size(), QUEUE_CAPACITY);
    for (std::uint64_t i = 0; i < QUEUE_CAPACITY; ++i) {
        EXPECT_EQ(received[i], FIRST_KEPT + i);
    }
}

TEST(IceoryxPubSub, EverySubscriberReceivesEachSample) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::uint64_t SAMPLE_COUNT = 5;
    std::mt19937 rng(RANDOM_SEED);
    iox::popo::Publisher<ObjectList> publisher({"augur", "test", "fanout"});
    iox::popo::Subscriber<ObjectList> first({"augur", "test", "fanout"});
    iox::popo::Subscriber<ObjectList> second({"augur", "test", "fanout"});
    ASSERT_TRUE(connected(publisher, first));
    ASSERT_TRUE(connected(publisher, second));

    for (std::uint64_t sequence = 0; sequence < SAMPLE_COUNT; ++sequence) {
        ASSERT_FALSE(publisher.publishCopyOf(randomObjectList(sequence, 2, rng)).has_error());
    }

    for (auto* sut : {&first, &second}) {
        std::uint64_t expectedSequence = 0;
        for (auto taken = sut->take(); !taken.has_error(); taken = sut->take()) {
            EXPECT_EQ((*taken)->header.sequence, expectedSequence);
            ++expectedSequence;
        }
        EXPECT_EQ(expectedSequence, SAMPLE_COUNT);
    }
}

TEST(IceoryxPubSub, MotionPredictionOfOverHalfAMegabyteRoundTrips) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::uint64_t SEQUENCE = 42;
    constexpr std::uint16_t CELL_PATTERN_STEP = 7;
    iox::popo::Publisher<MotionPrediction> publisher({"augur", "test", "prediction"});
    iox::popo::Subscriber<MotionPrediction> sut({"augur", "test", "prediction"});
    ASSERT_TRUE(connected(publisher, sut));

    auto loaned = publisher.loan();
    ASSERT_FALSE(loaned.has_error());
    MotionPrediction& out = *loaned->get();
    out.header.sequence = SEQUENCE;
    out.vehicleCount = MAX_PREDICTED_VEHICLES;
    out.vehicles[MAX_PREDICTED_VEHICLES - 1].corridors[MAX_CORRIDORS_PER_VEHICLE - 1].points[MAX_HORIZON_STEPS - 1]
        .sMean_m = 123.5F;
    std::uint16_t cell = 0;
    for (auto& frame : out.grid.cells) {
        for (auto& value : frame) {
            value = cell;
            cell = static_cast<std::uint16_t>(cell + CELL_PATTERN_STEP);
        }
    }
    loaned->publish();
    auto taken = sut.take();

    ASSERT_FALSE(taken.has_error());
    const MotionPrediction& in = *taken->get();
    EXPECT_EQ(in.header.sequence, SEQUENCE);
    EXPECT_EQ(in.vehicleCount, MAX_PREDICTED_VEHICLES);
    EXPECT_EQ(in.vehicles[MAX_PREDICTED_VEHICLES - 1].corridors[MAX_CORRIDORS_PER_VEHICLE - 1]
                  .points[MAX_HORIZON_STEPS - 1].sMean_m,
              123.5F);
    std::uint16_t expectedCell = 0;
    std::size_t mismatches = 0;
    for (const auto& frame : in.grid.cells) {
        for (const auto value : frame) {
            mismatches += value != expectedCell ? 1U : 0U;
            expectedCell = static_cast<std::uint16_t>(expectedCell + CELL_PATTERN_STEP);
        }
    }
    EXPECT_EQ(mismatches, 0U);
}

TEST(IceoryxPubSub, LoanFailsWhenThePoolIsExhaustedAndRecoversAfterARelease) {
    AUGUR_REQUIRE_ICEORYX();
    iox::popo::Publisher<ExhaustionProbe> sut({"augur", "test", "exhaustion"});
    std::vector<iox::popo::Sample<ExhaustionProbe>> held;

    for (std::uint32_t i = 0; i < EXHAUSTION_POOL_CHUNKS; ++i) {
        auto loaned = sut.loan();
        ASSERT_FALSE(loaned.has_error()) << "loan " << i;
        held.push_back(std::move(loaned.value()));
    }
    auto overLimit = sut.loan();
    held.pop_back();  // releases a chunk without publishing it
    auto afterRelease = sut.loan();

    ASSERT_TRUE(overLimit.has_error());
    EXPECT_EQ(overLimit.get_error(), iox::popo::AllocationError::RUNNING_OUT_OF_CHUNKS);
    EXPECT_FALSE(afterRelease.has_error());
}

}  // namespace
}  // namespace augur::testing
