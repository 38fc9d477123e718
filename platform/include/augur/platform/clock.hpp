// Monotonic time for deadlines and latency measurement, and the clock that time-driven components
// (the executor, the watchdog) take as a template parameter so that tests can drive them in synthetic time.
#pragma once

#include <concepts>
#include <cstdint>

namespace augur::platform {

/// CLOCK_MONOTONIC in nanoseconds. noexcept, allocation-free, vDSO (no system call on Linux).
[[nodiscard]] std::int64_t monotonicNow_ns() noexcept;

/// Clocks other hosts can share: CLOCK_REALTIME (UTC) and CLOCK_TAI, kept together across hosts by PTP
/// (linuxptp's ptp4l and phc2sys) or NTP; CLOCK_MONOTONIC counts from this host's boot.
enum class SharedClock { Monotonic, Realtime, Tai };

/// `clock` minus CLOCK_MONOTONIC now, in nanoseconds (0 for Monotonic): a monotonic stamp plus this is
/// the same instant on `clock`. The shared clock is read between two monotonic readings and set
/// against their midpoint. Changes when the shared clock is stepped or slewed. noexcept,
/// allocation-free, vDSO.
[[nodiscard]] std::int64_t offsetFromMonotonic_ns(SharedClock clock) noexcept;

/// Sleeps until the absolute CLOCK_MONOTONIC time `deadline_ns` (restarting on signals).
/// Returns immediately if the deadline has passed. Bounded: never sleeps past the deadline.
void sleepUntil_ns(std::int64_t deadline_ns) noexcept;

/// What a component reads time through: `now_ns()` (nanoseconds on a monotonic time line) and
/// `sleepUntil_ns(t)` (returns once now_ns() >= t, or at once when t has passed). Both noexcept and
/// allocation-free. A clock is a value: copies read the same time line.
template <typename C>
concept Clock = std::copy_constructible<C> && requires(C& clock, std::int64_t t) {
    { clock.now_ns() } noexcept -> std::same_as<std::int64_t>;
    { clock.sleepUntil_ns(t) } noexcept;
};

/// CLOCK_MONOTONIC: the clock of the run phase. Empty, so a member of this type costs nothing and its
/// calls are the two functions above.
struct MonotonicClock {
    [[nodiscard]] static std::int64_t now_ns() noexcept { return monotonicNow_ns(); }
    static void sleepUntil_ns(std::int64_t deadline_ns) noexcept { platform::sleepUntil_ns(deadline_ns); }
};
static_assert(Clock<MonotonicClock>);

}  // namespace augur::platform
