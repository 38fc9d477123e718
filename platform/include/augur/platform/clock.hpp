// Monotonic time for deadlines and latency measurement.
#pragma once

#include <cstdint>

namespace augur::platform {

/// CLOCK_MONOTONIC in nanoseconds. noexcept, allocation-free, vDSO (no system call on Linux).
[[nodiscard]] std::int64_t monotonicNow_ns() noexcept;

/// Sleeps until the absolute CLOCK_MONOTONIC time `deadline_ns` (restarting on signals).
/// Returns immediately if the deadline has passed. Bounded: never sleeps past the deadline.
void sleepUntil_ns(std::int64_t deadline_ns) noexcept;

}  // namespace augur::platform
