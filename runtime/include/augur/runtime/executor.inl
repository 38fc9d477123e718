// Executor::runLoop (template: the input check and the per-cycle callback are inlined).
#pragma once

#include "augur/platform/clock.hpp"

namespace augur::runtime {

template <typename InputReady, typename AfterCycle>
void Executor::runLoop(const std::atomic<bool>& stopRequested, std::uint64_t maxCycles, InputReady&& inputReady,
                       AfterCycle&& afterCycle) noexcept {
    constexpr std::int64_t INPUT_POLL_NS = 1'000'000;
    const std::int64_t period = m_settings.period_ns;
    std::int64_t nextStart = platform::monotonicNow_ns();
    std::uint64_t ran = 0;
    const auto stopping = [&stopRequested, this]() noexcept {
        return stopRequested.load(std::memory_order_relaxed) || m_stopRequested.load(std::memory_order_relaxed);
    };
    while (!stopping() && (maxCycles == 0 || ran < maxCycles)) {
        if (m_settings.trigger == Trigger::OnInput) {
            // Wait for input, but never longer than one period: the planner still gets a prediction.
            const std::int64_t waitUntil = nextStart;
            while (!inputReady() && platform::monotonicNow_ns() < waitUntil && !stopping()) {
                platform::sleepUntil_ns(platform::monotonicNow_ns() + INPUT_POLL_NS);
            }
        } else {
            platform::sleepUntil_ns(nextStart);
        }
        const std::int64_t start = platform::monotonicNow_ns();
        afterCycle(runCycle(start));
        ++ran;
        nextStart = (m_settings.trigger == Trigger::OnInput ? start : nextStart) + period;
        const std::int64_t now = platform::monotonicNow_ns();
        if (now > nextStart) {
            // Overran into the next period(s): skip them rather than run back-to-back cycles.
            const std::int64_t behind = (now - nextStart) / period + 1;
            m_skippedPeriods += static_cast<std::uint64_t>(behind);
            nextStart += behind * period;
        }
    }
}

}  // namespace augur::runtime
