// Loan / publish / take / release stress test of iceoryx 2.0 shared memory.
//
// iceoryx 2.0.3 has a reported aarch64 failure (eclipse-iceoryx/iceoryx#2006): after many cycles a
// publisher's loan fails with RUNNING_OUT_OF_CHUNKS although every sample was released — chunks leak
// when their release is not ordered correctly on a weakly ordered CPU. This test cycles many samples
// through a pool of only STRESS_POOL_CHUNKS chunks with a publisher and two subscribers on their own
// threads (so every chunk's reference count is dropped concurrently), with blocking queue policies so
// that no sample may be lost: a single leaked chunk would make a loan fail within a few cycles, and a
// chunk whose contents are read before they are visible would fail the pattern check.
//
// Under qemu-aarch64 on an x86 host the guest runs on the host's stronger memory ordering, so this
// proves the aarch64 build and the protocol; only a run on the target CPU (Jetson / Drive Orin) can
// expose a reordering. The test is part of the suite deployed to the target for that reason.
#include <gtest/gtest.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <thread>
#include <vector>

#include "iceoryx_posh/popo/publisher.hpp"
#include "iceoryx_posh/popo/subscriber.hpp"
#include "augur/testing/embedded_roudi.hpp"
#include "augur/testing/testing.hpp"

namespace augur::testing {
namespace {

/// Payload of the stress test: a sequence number and a pattern derived from it.
struct PatternSample {
    static constexpr std::size_t WORD_COUNT = 15;
    std::uint64_t sequence{0};
    std::uint64_t words[WORD_COUNT]{};
};

/// A pool of its own, small enough that one leaked chunk makes a loan fail within a few cycles.
constexpr std::uint32_t STRESS_POOL_PAYLOAD_BYTES = 128;
constexpr std::uint32_t STRESS_POOL_CHUNKS = 8;
static_assert(sizeof(PatternSample) <= STRESS_POOL_PAYLOAD_BYTES);

const auto* const g_environment = ::testing::AddGlobalTestEnvironment(
    new EmbeddedRouDiEnvironment("augur-iceoryx-stress", {{STRESS_POOL_PAYLOAD_BYTES, STRESS_POOL_CHUNKS}}));

/// Polls `condition` for up to a second (subscription is asynchronous in iceoryx).
template <typename Condition>
bool waitUntil(Condition&& condition) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!condition()) {
        if (std::chrono::steady_clock::now() > deadline) {
            return false;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    return true;
}

constexpr std::uint64_t STRESS_SAMPLE_COUNT = 50'000;
constexpr std::uint64_t STRESS_QUEUE_CAPACITY = 2;
constexpr std::size_t STRESS_SUBSCRIBER_COUNT = 2;
constexpr std::chrono::seconds STRESS_TIMEOUT{240};
constexpr std::uint64_t PATTERN_MULTIPLIER = 0x9E3779B97F4A7C15ULL;  // golden-ratio constant

std::uint64_t patternWord(std::uint64_t sequence, std::size_t word) {
    return (sequence + 1) * PATTERN_MULTIPLIER ^ (static_cast<std::uint64_t>(word) << 56U);
}

/// What one subscriber thread saw.
struct ReceiverReport {
    std::uint64_t received{0};
    std::uint64_t outOfOrder{0};
    std::uint64_t corrupted{0};
    bool timedOut{false};
};

void receiveAll(iox::popo::Subscriber<PatternSample>& subscriber, const std::atomic<bool>& publisherStopped,
                ReceiverReport& report) {
    const auto deadline = std::chrono::steady_clock::now() + STRESS_TIMEOUT;
    while (report.received < STRESS_SAMPLE_COUNT) {
        auto taken = subscriber.take();
        if (taken.has_error()) {
            if (publisherStopped.load(std::memory_order_acquire) && !subscriber.hasData()) {
                return;  // the publisher gave up early; the report says how far it got
            }
            if (std::chrono::steady_clock::now() > deadline) {
                report.timedOut = true;
                return;
            }
            std::this_thread::yield();
            continue;
        }
        const PatternSample& sample = *taken->get();
        report.outOfOrder += sample.sequence != report.received ? 1U : 0U;
        for (std::size_t w = 0; w < PatternSample::WORD_COUNT; ++w) {
            report.corrupted += sample.words[w] != patternWord(sample.sequence, w) ? 1U : 0U;
        }
        ++report.received;
    }  // each taken sample is released here, on this thread
}

TEST(IceoryxStress, LoanPublishTakeCyclesNeverLeakAChunk) {
    AUGUR_REQUIRE_ICEORYX();
    const iox::capro::ServiceDescription topic{"augur", "stress", "pattern"};
    iox::popo::PublisherOptions publisherOptions;
    publisherOptions.subscriberTooSlowPolicy = iox::popo::ConsumerTooSlowPolicy::WAIT_FOR_CONSUMER;
    iox::popo::SubscriberOptions subscriberOptions;
    subscriberOptions.queueCapacity = STRESS_QUEUE_CAPACITY;
    subscriberOptions.queueFullPolicy = iox::popo::QueueFullPolicy::BLOCK_PRODUCER;
    iox::popo::Publisher<PatternSample> sut(topic, publisherOptions);
    std::vector<std::unique_ptr<iox::popo::Subscriber<PatternSample>>> subscribers;
    for (std::size_t i = 0; i < STRESS_SUBSCRIBER_COUNT; ++i) {
        subscribers.push_back(std::make_unique<iox::popo::Subscriber<PatternSample>>(topic, subscriberOptions));
    }
    for (const auto& subscriber : subscribers) {
        ASSERT_TRUE(waitUntil([&] { return subscriber->getSubscriptionState() == iox::SubscribeState::SUBSCRIBED; }));
    }
    ASSERT_TRUE(waitUntil([&] { return sut.hasSubscribers(); }));

    std::array<ReceiverReport, STRESS_SUBSCRIBER_COUNT> reports{};
    std::atomic<bool> publisherStopped{false};
    std::vector<std::thread> receivers;
    for (std::size_t i = 0; i < STRESS_SUBSCRIBER_COUNT; ++i) {
        receivers.emplace_back(receiveAll, std::ref(*subscribers[i]), std::cref(publisherStopped),
                               std::ref(reports[i]));
    }
    std::uint64_t failedLoans = 0;
    for (std::uint64_t sequence = 0; sequence < STRESS_SAMPLE_COUNT; ++sequence) {
        auto loaned = sut.loan();
        if (loaned.has_error()) {
            ++failedLoans;
            break;
        }
        PatternSample& sample = *loaned->get();
        sample.sequence = sequence;
        for (std::size_t w = 0; w < PatternSample::WORD_COUNT; ++w) {
            sample.words[w] = patternWord(sequence, w);
        }
        loaned->publish();
    }
    publisherStopped.store(true, std::memory_order_release);
    for (auto& receiver : receivers) {
        receiver.join();
    }
    // Every chunk must be back in the pool: all of them can be loaned at once.
    std::vector<iox::popo::Sample<PatternSample>> wholePool;
    for (std::uint32_t i = 0; i < STRESS_POOL_CHUNKS; ++i) {
        auto loaned = sut.loan();
        if (loaned.has_error()) {
            break;
        }
        wholePool.push_back(std::move(loaned.value()));
    }

    EXPECT_EQ(failedLoans, 0U);
    for (const ReceiverReport& report : reports) {
        EXPECT_FALSE(report.timedOut);
        EXPECT_EQ(report.received, STRESS_SAMPLE_COUNT);
        EXPECT_EQ(report.outOfOrder, 0U);
        EXPECT_EQ(report.corrupted, 0U);
    }
    EXPECT_EQ(wholePool.size(), STRESS_POOL_CHUNKS);
}

}  // namespace
}  // namespace augur::testing
