// The watchdog: a thread of its own that notices a cycle overrunning its deadline, or a stage its
// budget, while it happens — independently of the stage ever finishing.
//
// The cycle thread reports progress (beginCycle / beginStage / endCycle: a few relaxed atomic stores,
// run-phase safe). The watchdog thread polls every `poll_ns`, and on the first detection of each
// overrun calls the handler from its own thread (e.g. to publish a "deadline missed" health message
// immediately) and counts it. Detection latency ≤ poll_ns.
//
// Time comes from the `Clock` parameter (platform::Clock): `Watchdog` is the run phase's, on
// CLOCK_MONOTONIC. A watchdog on a synthetic clock is not started: its owner calls poll() at the times
// it chooses, which is how the tests check detection without sleeping.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <thread>

#include "augur/core/messages.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/realtime.hpp"

namespace augur::runtime {

struct WatchdogBudgets {
    std::int64_t cycleDeadline_ns{200'000'000};
    std::array<std::int64_t, STAGE_COUNT> stageBudget_ns{};  ///< 0: unchecked
};

enum class OverrunKind : std::uint8_t { CycleDeadline, StageBudget };

struct Overrun {
    OverrunKind kind;
    Stage stage;             ///< the stage running at detection
    std::uint64_t cycle;
    std::int64_t elapsed_ns; ///< of the cycle (CycleDeadline) or stage (StageBudget) at detection
};

/// Called on the watchdog thread; must be noexcept, allocation-free and quick.
using OverrunHandler = void (*)(void* context, const Overrun& overrun) noexcept;

template <platform::Clock ClockT>
class BasicWatchdog {
public:
    BasicWatchdog(WatchdogBudgets budgets, std::int64_t poll_ns, OverrunHandler handler, void* context,
                  ClockT clock = ClockT{}) noexcept;
    BasicWatchdog(const BasicWatchdog&) = delete;
    BasicWatchdog& operator=(const BasicWatchdog&) = delete;
    ~BasicWatchdog();

    /// Starts the watchdog thread (init phase) at SCHED_FIFO `fifoPriority` (0: the scheduling it
    /// inherits), so that a stage spinning at the cycle thread's priority cannot starve it. Calling it
    /// twice is a contract breach. Returns whether the OS allowed the priority.
    platform::RealtimeOutcome start(int fifoPriority = 0);
    /// Stops and joins the thread (shutdown).
    void stop() noexcept;

    /// One check at `now_ns`: flags and reports the cycle and stage overruns it sees, each once. The
    /// watchdog thread calls it every poll_ns; a watchdog on a synthetic clock is driven by calling it
    /// directly. Call it from one thread at a time. noexcept, allocation-free.
    void poll(std::int64_t now_ns) noexcept;

    // ---- called by the cycle thread (run phase) ----
    void beginCycle(std::uint64_t cycle, std::int64_t now_ns) noexcept;
    void beginStage(Stage stage, std::int64_t now_ns) noexcept;
    void endCycle() noexcept;

    /// True if the watchdog flagged `cycle` as over its deadline (also after endCycle).
    [[nodiscard]] bool deadlineMissed(std::uint64_t cycle) const noexcept;
    [[nodiscard]] std::uint64_t deadlineMisses() const noexcept { return m_deadlineMisses.load(); }
    [[nodiscard]] std::uint64_t stageOverruns(Stage stage) const noexcept;

private:
    void run() noexcept;

    [[no_unique_address]] ClockT m_clock;
    WatchdogBudgets m_budgets;
    std::int64_t m_poll_ns;
    OverrunHandler m_handler;
    void* m_context;

    std::atomic<bool> m_running{false};
    std::atomic<bool> m_cycleActive{false};
    std::atomic<std::uint64_t> m_cycle{0};
    std::atomic<std::int64_t> m_cycleStart_ns{0};
    std::atomic<std::uint8_t> m_stage{0};
    std::atomic<std::int64_t> m_stageStart_ns{0};
    std::atomic<std::uint64_t> m_stageEpoch{0};  ///< incremented on every beginStage

    std::atomic<std::uint64_t> m_lastMissedCycle{UINT64_MAX};
    std::atomic<std::uint64_t> m_deadlineMisses{0};
    std::array<std::atomic<std::uint64_t>, STAGE_COUNT> m_stageOverruns{};
    std::uint64_t m_lastOverrunEpoch{UINT64_MAX};  ///< watchdog thread only

    std::thread m_thread;
};

/// The run phase's watchdog, on CLOCK_MONOTONIC (instantiated in watchdog.cpp).
using Watchdog = BasicWatchdog<platform::MonotonicClock>;
extern template class BasicWatchdog<platform::MonotonicClock>;

}  // namespace augur::runtime

#include "augur/runtime/watchdog.inl"
