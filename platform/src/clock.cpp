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

void sleepUntil_ns(std::int64_t deadline_ns) noexcept {
    timespec ts{};
    ts.tv_sec = static_cast<time_t>(deadline_ns / NS_PER_S);
    ts.tv_nsec = static_cast<long>(deadline_ns % NS_PER_S);
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr) == EINTR) {
    }
}

}  // namespace augur::platform
