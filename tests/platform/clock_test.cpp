#include "augur/platform/clock.hpp"

#include <gtest/gtest.h>

#include <ctime>
#include <utility>

namespace augur::platform {
namespace {

constexpr std::int64_t SLEEP_NS = 2'000'000;

TEST(Clock, MonotonicNeverGoesBackwards) {
    std::int64_t previous = monotonicNow_ns();
    for (int i = 0; i < 1000; ++i) {
        const std::int64_t now = monotonicNow_ns();
        ASSERT_GE(now, previous);
        previous = now;
    }
}

TEST(Clock, SleepUntilReachesAbsoluteDeadline) {
    const std::int64_t deadline = monotonicNow_ns() + SLEEP_NS;
    sleepUntil_ns(deadline);
    EXPECT_GE(monotonicNow_ns(), deadline);
}

TEST(Clock, ASharedClocksOffsetTurnsAMonotonicStampIntoThatClock) {
    EXPECT_EQ(offsetFromMonotonic_ns(SharedClock::Monotonic), 0);
    constexpr std::int64_t TOLERANCE_NS = 5'000'000;  // the readings of one call, on a loaded host
    for (const auto& [shared, id] : {std::pair{SharedClock::Realtime, CLOCK_REALTIME}, std::pair{SharedClock::Tai, CLOCK_TAI}}) {
        const std::int64_t offset = offsetFromMonotonic_ns(shared);
        timespec ts{};
        ASSERT_EQ(clock_gettime(id, &ts), 0);
        const std::int64_t expected = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000'000 + ts.tv_nsec;
        EXPECT_NEAR(static_cast<double>(monotonicNow_ns() + offset), static_cast<double>(expected), TOLERANCE_NS);
    }
}

TEST(Clock, SleepUntilPastDeadlineReturns) {
    const std::int64_t before = monotonicNow_ns();
    sleepUntil_ns(before - SLEEP_NS);
    SUCCEED();
}

}  // namespace
}  // namespace augur::platform
