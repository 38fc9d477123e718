// Publish/subscribe through a real RouDi embedded in the test process (iceoryx `singleprocess` pattern).
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <regex>
#include <sstream>
#include <thread>

#include "augur/core/messages.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/roudi.hpp"
#include "augur/testing/embedded_roudi.hpp"
#include "augur/platform/transport.hpp"
#include "augur/testing/testing.hpp"

namespace augur::platform {
namespace {

constexpr std::uint32_t MAX_LOANS = 8;  // iceoryx 2.0.3 (Debian): chunks a publisher may hold at once
constexpr std::uint64_t QUEUE_CAPACITY = 4;


const auto* const g_environment =
    ::testing::AddGlobalTestEnvironment(new testing::EmbeddedRouDiEnvironment("augur-transport-test"));

ServiceName uniqueService(const char* event) {
    static int counter = 0;
    return {"augur-test", "instance" + std::to_string(++counter), event};
}

TEST(Transport, PublishedObjectListArrivesUnchanged) {
    AUGUR_REQUIRE_ICEORYX();
    const auto name = uniqueService("objects");
    auto subscriber = Subscriber<ObjectList>::create(name, QUEUE_CAPACITY);
    auto sut = Publisher<ObjectList>::create(name);
    ASSERT_TRUE(subscriber && sut);
    auto loan = sut->loan();
    ASSERT_TRUE(loan.hasValue());
    (*loan)->header = MessageHeader{};
    (*loan)->header.sequence = 42;
    (*loan)->objectCount = 1;
    (*loan)->objects[0].id = 7;
    (*loan)->objects[0].x_m = 12.5F;
    loan->publish();

    auto sample = subscriber->take();
    ASSERT_TRUE(sample.hasValue());
    EXPECT_EQ((*sample)->header.sequence, 42U);
    EXPECT_EQ((*sample)->objects[0].id, 7U);
    EXPECT_FLOAT_EQ((*sample)->objects[0].x_m, 12.5F);
    EXPECT_EQ(subscriber->take().error(), TransportError::NoData);
}

TEST(Transport, LargestMessageFitsThePools) {
    AUGUR_REQUIRE_ICEORYX();
    const auto name = uniqueService("prediction");
    auto subscriber = Subscriber<MotionPrediction>::create(name, QUEUE_CAPACITY);
    auto sut = Publisher<MotionPrediction>::create(name);
    ASSERT_TRUE(subscriber && sut);
    auto loan = sut->loan();
    ASSERT_TRUE(loan.hasValue());
    (*loan)->grid.cells[MAX_GRID_FRAMES - 1][MAX_GRID_SIDE_CELLS * MAX_GRID_SIDE_CELLS - 1] = 65535;
    loan->publish();
    auto sample = subscriber->take();
    ASSERT_TRUE(sample.hasValue());
    EXPECT_EQ((*sample)->grid.cells[MAX_GRID_FRAMES - 1][MAX_GRID_SIDE_CELLS * MAX_GRID_SIDE_CELLS - 1], 65535);
}

TEST(Transport, NinthOutstandingLoanFailsAndPublisherRecovers) {
    AUGUR_REQUIRE_ICEORYX();
    const auto name = uniqueService("health");
    auto sut = Publisher<Health>::create(name);
    ASSERT_TRUE(sut);
    std::vector<Loan<Health>> loans;
    loans.reserve(MAX_LOANS + 1);
    for (std::uint32_t i = 0; i < MAX_LOANS; ++i) {
        auto loan = sut->loan();
        ASSERT_TRUE(loan.hasValue()) << "loan " << i;
        loans.push_back(std::move(loan).value());
    }
    const auto refused = sut->loan();
    ASSERT_TRUE(refused.hasError());
    EXPECT_EQ(refused.error(), TransportError::LoanFailed);
    loans.clear();  // returns the chunks
    EXPECT_TRUE(sut->loan().hasValue());
}

TEST(Transport, QueueOverflowIsReportedAsMissedData) {
    AUGUR_REQUIRE_ICEORYX();
    const auto name = uniqueService("overflow");
    auto subscriber = Subscriber<Health>::create(name, QUEUE_CAPACITY);
    auto sut = Publisher<Health>::create(name);
    ASSERT_TRUE(subscriber && sut);
    for (std::uint64_t i = 0; i < QUEUE_CAPACITY + 2; ++i) {
        auto loan = sut->loan();
        ASSERT_TRUE(loan.hasValue());
        (*loan)->cycle = i;
        loan->publish();
    }
    EXPECT_TRUE(subscriber->hasMissedData());
    auto first = subscriber->take();
    ASSERT_TRUE(first.hasValue());
    EXPECT_EQ((*first)->cycle, 2U);  // the two oldest were discarded
}

TEST(Transport, SamplesArriveInPublishOrder) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::uint64_t COUNT = QUEUE_CAPACITY;
    const auto name = uniqueService("order");
    auto subscriber = Subscriber<Health>::create(name, QUEUE_CAPACITY);
    auto sut = Publisher<Health>::create(name);
    ASSERT_TRUE(subscriber && sut);
    for (std::uint64_t i = 0; i < COUNT; ++i) {
        auto loan = sut->loan();
        ASSERT_TRUE(loan.hasValue());
        (*loan)->cycle = 100 + i;
        loan->publish();
    }
    for (std::uint64_t i = 0; i < COUNT; ++i) {
        auto sample = subscriber->take();
        ASSERT_TRUE(sample.hasValue());
        EXPECT_EQ((*sample)->cycle, 100 + i);
    }
}

TEST(Transport, EverySubscriberReceivesEachSample) {
    AUGUR_REQUIRE_ICEORYX();
    const auto name = uniqueService("fanout");
    auto first = Subscriber<Health>::create(name, QUEUE_CAPACITY);
    auto second = Subscriber<Health>::create(name, QUEUE_CAPACITY);
    auto sut = Publisher<Health>::create(name);
    ASSERT_TRUE(first && second && sut);
    auto loan = sut->loan();
    ASSERT_TRUE(loan.hasValue());
    (*loan)->cycle = 5;
    loan->publish();
    auto a = first->take();
    auto b = second->take();
    ASSERT_TRUE(a.hasValue() && b.hasValue());
    EXPECT_EQ((*a)->cycle, 5U);
    EXPECT_EQ((*b)->cycle, 5U);
}

TEST(DataWait, ReturnsDataAtOnceWhenTheSubscriberHasSome) {
    AUGUR_REQUIRE_ICEORYX();
    const auto name = uniqueService("wait-queued");
    auto subscriber = Subscriber<LinkStatus>::create(name, QUEUE_CAPACITY);
    auto publisher = Publisher<LinkStatus>::create(name);
    ASSERT_TRUE(subscriber && publisher);
    auto sut = DataWait::create(subscriber.value());
    ASSERT_TRUE(sut.hasValue());
    auto loan = publisher->loan();
    ASSERT_TRUE(loan.hasValue());
    loan->publish();

    // The deadline is already past: only queued data makes the wait report Data.
    EXPECT_EQ(sut->waitUntil(monotonicNow_ns() - 1), WaitOutcome::Data);
    ASSERT_TRUE(subscriber->take().hasValue());
    EXPECT_EQ(sut->waitUntil(monotonicNow_ns() - 1), WaitOutcome::Timeout);
}

TEST(DataWait, WithoutDataOrWakeUpTheDeadlineEndsTheWait) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::int64_t WAIT_NS = 20'000'000;
    auto subscriber = Subscriber<LinkStatus>::create(uniqueService("wait-timeout"), QUEUE_CAPACITY);
    ASSERT_TRUE(subscriber);
    auto sut = DataWait::create(subscriber.value());
    ASSERT_TRUE(sut.hasValue());
    const std::int64_t deadline_ns = monotonicNow_ns() + WAIT_NS;

    const WaitOutcome outcome = sut->waitUntil(deadline_ns);

    EXPECT_EQ(outcome, WaitOutcome::Timeout);
    EXPECT_GE(monotonicNow_ns(), deadline_ns) << "returned before its deadline";
}

TEST(DataWait, APublishFromAnotherThreadEndsTheWait) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::int64_t FAR_NS = 60'000'000'000;
    const auto name = uniqueService("wait-publish");
    auto subscriber = Subscriber<LinkStatus>::create(name, QUEUE_CAPACITY);
    auto publisher = Publisher<LinkStatus>::create(name);
    ASSERT_TRUE(subscriber && publisher);
    auto sut = DataWait::create(subscriber.value());
    ASSERT_TRUE(sut.hasValue());
    std::thread bridge([&] {
        sleepUntil_ns(monotonicNow_ns() + 10'000'000);
        auto loan = publisher->loan();
        if (loan) {
            loan->publish();
        }
    });

    const WaitOutcome outcome = sut->waitUntil(monotonicNow_ns() + FAR_NS);
    bridge.join();

    EXPECT_EQ(outcome, WaitOutcome::Data);
    EXPECT_TRUE(subscriber->take().hasValue());
}

TEST(DataWait, AWakeUpEndsTheWaitAndOneBeforeTheWaitIsKept) {
    AUGUR_REQUIRE_ICEORYX();
    constexpr std::int64_t FAR_NS = 60'000'000'000;
    auto subscriber = Subscriber<LinkStatus>::create(uniqueService("wait-wake"), QUEUE_CAPACITY);
    ASSERT_TRUE(subscriber);
    auto sut = DataWait::create(subscriber.value());
    ASSERT_TRUE(sut.hasValue());

    sut->wakeUp();
    const WaitOutcome early = sut->waitUntil(monotonicNow_ns() + FAR_NS);
    std::thread stopper([&] {
        sleepUntil_ns(monotonicNow_ns() + 10'000'000);
        sut->wakeUp();
    });
    const WaitOutcome woken = sut->waitUntil(monotonicNow_ns() + FAR_NS);
    stopper.join();

    EXPECT_EQ(early, WaitOutcome::Woken);
    EXPECT_EQ(woken, WaitOutcome::Woken);
}

TEST(Transport, InvalidNamesAreRejected) {
    AUGUR_REQUIRE_ICEORYX();
    EXPECT_EQ(Publisher<Health>::create({"", "a", "b"}).error(), TransportError::InvalidName);
    EXPECT_EQ(Subscriber<Health>::create({"a", std::string(101, 'x'), "b"}).error(), TransportError::InvalidName);
}

TEST(Transport, NamesIceoryxWouldMisreadAreRejected) {
    AUGUR_REQUIRE_ICEORYX();
    // A NUL would end the name early in iceoryx and put two channels on one topic.
    EXPECT_EQ(Publisher<Health>::create({"augur", "main", std::string("tracks\0x", 8)}).error(),
              TransportError::InvalidName);
    EXPECT_EQ(Publisher<Health>::create({"augur main", "a", "b"}).error(), TransportError::InvalidName);
    EXPECT_EQ(Subscriber<Health>::create({"a", "../b", "c"}).error(), TransportError::InvalidName);
    EXPECT_EQ(Subscriber<Health>::create({"a", "b", ".."}).error(), TransportError::InvalidName);
}

TEST(Transport, SecondEmbeddedRouDiIsRefused) {
    AUGUR_REQUIRE_ICEORYX();
    const auto sut = EmbeddedRouDi::start("augur-second");
    ASSERT_TRUE(sut.hasError());
}

TEST(RouDiConfig, ShippedTomlMatchesTheEmbeddedPools) {
    std::ifstream file(testing::sourcePath("config/roudi.toml"));
    ASSERT_TRUE(file) << "config/roudi.toml missing";
    std::stringstream text;
    text << file.rdbuf();
    const std::string toml = text.str();
    const std::regex poolPattern(R"(\[\[segment\.mempool\]\]\s*size\s*=\s*(\d+)\s*count\s*=\s*(\d+))");
    std::vector<MempoolEntry> shipped;
    for (auto it = std::sregex_iterator(toml.begin(), toml.end(), poolPattern); it != std::sregex_iterator(); ++it) {
        shipped.push_back({static_cast<std::uint32_t>(std::stoul((*it)[1])), static_cast<std::uint32_t>(std::stoul((*it)[2]))});
    }
    const auto expected = augurMempools();
    ASSERT_EQ(shipped.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(shipped[i].payloadBytes, expected[i].payloadBytes) << "pool " << i;
        EXPECT_EQ(shipped[i].count, expected[i].count) << "pool " << i;
    }
}

TEST(RouDiConfig, PoolsHoldEveryMessage) {
    const auto pools = augurMempools();
    const auto fits = [&](std::size_t bytes) {
        return std::any_of(pools.begin(), pools.end(), [&](const MempoolEntry& e) { return e.payloadBytes >= bytes; });
    };
    EXPECT_TRUE(fits(sizeof(ObjectList)));
    EXPECT_TRUE(fits(sizeof(TrackList)));
    EXPECT_TRUE(fits(sizeof(IntentionList)));
    EXPECT_TRUE(fits(sizeof(MotionPrediction)));
    EXPECT_TRUE(fits(sizeof(Health)));
    EXPECT_TRUE(fits(sizeof(PlatoonList)));
    EXPECT_TRUE(fits(sizeof(LinkStatus)));
    EXPECT_TRUE(fits(sizeof(MonitorAlarm)));
}

}  // namespace
}  // namespace augur::platform
