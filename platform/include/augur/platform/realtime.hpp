// Real-time process setup: memory locking, pre-faulted stack, CPU affinity, SCHED_FIFO priority.
// Init phase only. Each step reports whether the OS allowed it; the caller decides (from the
// deployment's on_rt_setup_failure) whether a refusal is a warning or fatal.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <thread>

namespace augur::platform {

enum class RealtimeStep { LockMemory, PrefaultStack, CpuAffinity, SchedulerPriority };

[[nodiscard]] const char* toString(RealtimeStep step) noexcept;

/// The outcome of one step: `errnoValue` is 0 on success (EPERM when the process lacks privilege).
struct RealtimeOutcome {
    RealtimeStep step;
    int errnoValue;
};

/// mlockall(MCL_CURRENT | MCL_FUTURE): no page of the process is swapped out or faulted lazily.
[[nodiscard]] RealtimeOutcome lockMemory() noexcept;

/// Touches `bytes` of the calling thread's stack so that later use never page-faults.
[[nodiscard]] RealtimeOutcome prefaultStack(std::size_t bytes) noexcept;

/// Pins the calling thread to `cores` (empty: no change, reported as success).
[[nodiscard]] RealtimeOutcome pinCurrentThread(std::span<const int> cores) noexcept;

/// SCHED_FIFO at `priority` (1..99) for the calling thread; 0: no change. Threads the caller starts
/// afterwards inherit the policy and priority (and the affinity of pinCurrentThread).
[[nodiscard]] RealtimeOutcome setFifoPriority(int priority) noexcept;

/// SCHED_FIFO at `priority` (1..99) for `thread` (e.g. a watchdog above the threads it watches); 0: no change.
[[nodiscard]] RealtimeOutcome setFifoPriority(std::thread& thread, int priority) noexcept;

/// Names `thread` (at most 15 characters are kept), as top, ps -L and profilers show it. Call it from
/// the thread that started it, so the name is set before the caller goes on.
void nameThread(std::thread& thread, const char* name) noexcept;

/// "cpu affinity: Operation not permitted" etc., for the one log line per refusal.
[[nodiscard]] std::string describe(const RealtimeOutcome& outcome);

}  // namespace augur::platform
