#include "augur/platform/clock.hpp"

#include <gtest/gtest.h>

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

TEST(Clock, SleepUntilPastDeadlineReturns) {
    const std::int64_t before = monotonicNow_ns();
    sleepUntil_ns(before - SLEEP_NS);
    SUCCEED();
}

}  // namespace
}  // namespace augur::platform
