// Synthetic time for tests of time-driven components (platform::Clock): time stands still until the
// test advances it, and a sleep moves it forward to the deadline at once. Timing logic is then tested
// without sleeping and without depending on how the machine schedules threads.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "augur/platform/clock.hpp"

namespace augur::testing {

class ManualClock {
public:
    /// A time line that starts at `start_ns` (not 0, so that "unset" timestamps stay distinguishable).
    explicit ManualClock(std::int64_t start_ns = 1'000'000'000)
        : m_now_ns(std::make_shared<std::atomic<std::int64_t>>(start_ns)) {}

    [[nodiscard]] std::int64_t now_ns() const noexcept { return m_now_ns->load(std::memory_order_acquire); }
    /// Moves time forward to `deadline_ns` if it lies ahead; a passed deadline leaves time unchanged.
    void sleepUntil_ns(std::int64_t deadline_ns) noexcept {
        std::int64_t now = m_now_ns->load(std::memory_order_acquire);
        while (now < deadline_ns && !m_now_ns->compare_exchange_weak(now, deadline_ns, std::memory_order_acq_rel)) {
        }
    }
    /// Moves time forward by `duration_ns` (≥ 0).
    void advance(std::int64_t duration_ns) noexcept { m_now_ns->fetch_add(duration_ns, std::memory_order_acq_rel); }

private:
    std::shared_ptr<std::atomic<std::int64_t>> m_now_ns;  ///< shared by the copies: one time line
};
static_assert(platform::Clock<ManualClock>);

}  // namespace augur::testing
