// Real-time process setup: memory locking, pre-faulted stack, CPU affinity, SCHED_FIFO priority.
// Init phase only. Each step reports whether the OS allowed it; applyRealtimeSetup takes them all for a
// process's first thread and treats a refusal as a warning or as fatal, as its caller asks (augur-runtime
// and augur-bridge, from the deployment's runtime.on_rt_setup_failure).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <thread>

#include "augur/core/result.hpp"

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

/// The real-time setup of the calling thread; a field that asks for nothing skips its step.
struct RealtimeSetup {
    bool lockMemory{false};              ///< lockMemory()
    std::size_t prefaultStack_bytes{0};  ///< prefaultStack(); 0: skipped
    std::span<const int> cores{};        ///< pinCurrentThread(); empty: affinity unchanged
    int fifoPriority{0};                 ///< setFifoPriority(), 1..99; 0: scheduling unchanged
    bool failOnRefusal{false};           ///< a refused step fails the setup instead of being a warning
};

/// Called once for each refused step that the setup goes on without (RealtimeSetup::failOnRefusal false).
using RealtimeWarning = std::function<void(const RealtimeOutcome& refused)>;

/// Takes every step of `setup` for the calling thread, in RealtimeStep order, before it starts any other
/// thread: those it starts afterwards inherit its affinity and SCHED_FIFO priority. Every step is taken
/// whatever the others' outcomes. With `setup.failOnRefusal` returns the first refused step as the error
/// and warns of none; otherwise calls `warn` (not empty) for each refused step, in order, and succeeds.
/// Init phase only: blocks in the system calls, mlockall may fault in the whole process, `warn` may allocate.
[[nodiscard]] Result<void, RealtimeOutcome> applyRealtimeSetup(const RealtimeSetup& setup, const RealtimeWarning& warn);

}  // namespace augur::platform
