#include "augur/platform/clock.hpp"

#include <cerrno>
#include <ctime>

namespace augur::platform {

namespace {
constexpr std::int64_t NS_PER_S = 1'000'000'000;
}

std::int64_t monotonicNow_ns() noexcept {
    timespec ts{};
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<std::int64_t>(ts.tv_sec) * NS_PER_S + ts.tv_nsec;
}

std::int64_t offsetFromMonotonic_ns(SharedClock clock) noexcept {
    if (clock == SharedClock::Monotonic) {
        return 0;
    }
    const auto read = [](clockid_t id) {
        timespec ts{};
        clock_gettime(id, &ts);
        return static_cast<std::int64_t>(ts.tv_sec) * NS_PER_S + ts.tv_nsec;
    };
    const std::int64_t before = read(CLOCK_MONOTONIC);
    const std::int64_t shared = read(clock == SharedClock::Tai ? CLOCK_TAI : CLOCK_REALTIME);
    const std::int64_t after = read(CLOCK_MONOTONIC);
    return shared - (before + (after - before) / 2);
}

void sleepUntil_ns(std::int64_t deadline_ns) noexcept {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(deadline_ns / NS_PER_S);
    ts.tv_nsec = static_cast<long>(deadline_ns % NS_PER_S);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

}  // namespace augur::platform
