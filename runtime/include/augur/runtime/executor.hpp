// The static executor: runs the pipeline's stages in a fixed order once per cycle, on absolute
// monotonic deadlines (or when new input arrives), under the watchdog, stepping the degradation
// ladder and keeping per-stage latency statistics; with a trace buffer set, it records each cycle's
// slice, its stages' slices, deadline misses and mode changes into it (trace.hpp).
//
// Stages are objects the runtime owns and registers at init (StageRunner); the executor never
// allocates after construction. runCycle() is the run phase: noexcept, allocation-free, bounded.
//
// Time comes from the `Clock` parameter (platform::Clock), shared with the executor's watchdog:
// `Executor` is the run phase's, on CLOCK_MONOTONIC; the tests run the same code on a synthetic clock.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>

#include "augur/core/messages.hpp"
#include "augur/runtime/degradation.hpp"
#include "augur/runtime/latency_window.hpp"
#include "augur/runtime/trace.hpp"
#include "augur/runtime/watchdog.hpp"

namespace augur::runtime {

enum class Trigger { Periodic, OnInput };

struct ExecutorSettings {
    std::int64_t period_ns{200'000'000};
    std::int64_t deadline_ns{200'000'000};
    std::array<std::int64_t, STAGE_COUNT> stageBudget_ns{};  ///< 0: unchecked
    Trigger trigger{Trigger::Periodic};
    std::uint32_t platoonEveryNCycles{5};      ///< the Platoons stage runs on every n-th cycle
    std::uint32_t missesToStepDown{1};
    std::uint32_t goodCyclesToStepUp{25};
    std::size_t healthWindowCycles{300};
    /// Input loss: after this many consecutive cycles without an accepted object list the ladder's floor
    /// is HoldLast, after the second NoPrediction; it lifts with the next accepted list. 0 disables.
    std::uint32_t inputLossHoldLastCycles{0};
    std::uint32_t inputLossNoPredictionCycles{0};
    std::int64_t watchdogPoll_ns{1'000'000};
};

/// What a stage sees of the cycle it runs in.
struct CycleContext {
    std::uint64_t cycle{0};
    std::int64_t start_ns{0};
    RuntimeMode mode{RuntimeMode::Nominal};
    bool hadInput{false};        ///< set by the ingest stage: a valid new object list arrived
    bool deadlineMissed{false};  ///< set before Publish: the watchdog flagged this cycle
    std::uint32_t faults{0};     ///< HealthFault bits the stages raised this cycle
};

enum class StageStatus : std::uint8_t {
    Ok,        ///< did its work
    Skipped,   ///< nothing to do in this mode / cycle
    Failed,    ///< could not do its work (counted; the cycle goes on with what exists)
    GpuError,  ///< a CUDA error: the runtime falls back to the CPU backend at a degraded level
};

/// One pipeline stage. Implementations are run-phase code: noexcept, allocation-free, bounded.
class StageRunner {
public:
    StageRunner() = default;
    StageRunner(const StageRunner&) = delete;
    StageRunner& operator=(const StageRunner&) = delete;
    virtual ~StageRunner() = default;
    [[nodiscard]] virtual StageStatus run(CycleContext& context) noexcept = 0;
};

/// Called after each cycle (on the cycle thread) with the cycle's outcome; e.g. to publish health.
struct CycleReport {
    std::uint64_t cycle;
    std::int64_t latency_ns;
    bool deadlineMissed;
    bool hadInput;
    RuntimeMode mode;                       ///< the mode the cycle ran in
    std::uint32_t faults;                   ///< HealthFault bits of the cycle (stages' and the executor's)
    std::uint32_t cyclesWithoutInput;       ///< consecutive cycles without an accepted list, this one included
    std::optional<ModeTransition> transition;  ///< the ladder's step after this cycle
    std::array<StageStatus, STAGE_COUNT> status;
    std::uint8_t stagesRun;   ///< bit i: stage i ran in this cycle (Health::stagesRun)
    std::uint32_t stageTrail; ///< the stages in the order they ran (Health::stageTrail)
};

template <platform::Clock ClockT>
class BasicExecutor {
public:
    /// Allocates the latency windows. `overrunHandler` runs on the watchdog thread.
    /// `clock` times the cycles, the stages and the watchdog.
    BasicExecutor(const ExecutorSettings& settings, OverrunHandler overrunHandler, void* overrunContext,
                  ClockT clock = ClockT{});
    BasicExecutor(const BasicExecutor&) = delete;
    BasicExecutor& operator=(const BasicExecutor&) = delete;
    ~BasicExecutor();

    /// Registers the runner for `stage` (init phase). Stages without a runner are skipped.
    void setStage(Stage stage, StageRunner* runner) noexcept;

    /// Records every cycle into `buffer` from now on, as its one producer (init phase; null: no trace).
    /// Per cycle: a Stage record per stage run, then the Cycle record, a DeadlineMiss for a missed
    /// cycle and a ModeChange for a step of the ladder. A full buffer drops records and counts them.
    void setTrace(TraceBuffer* buffer) noexcept { m_trace = buffer; }

    /// Starts the watchdog thread (init phase) at SCHED_FIFO `watchdogPriority` (0: inherited).
    platform::RealtimeOutcome start(int watchdogPriority = 0);
    /// Stops the watchdog thread (shutdown).
    void stop() noexcept;

    /// The floor the ladder holds from the next cycle on for conditions outside the pipeline (outputs
    /// blocked, transport lost), set by the owner after a cycle. Run phase.
    void setExternalFloor(RuntimeMode floor) noexcept { m_externalFloor = floor; }

    /// Ends runLoop after the cycle that is running (or at once, between cycles), as if its
    /// `stopRequested` had become true; the request stays. The owner's way to stop the loop from
    /// inside a cycle's callback (RouDi lost). Run phase; thread-safe (one relaxed store).
    void requestStop() noexcept { m_stopRequested.store(true, std::memory_order_relaxed); }
    [[nodiscard]] bool stopRequested() const noexcept { return m_stopRequested.load(std::memory_order_relaxed); }

    /// Runs one cycle that started at `start_ns`. Run phase.
    CycleReport runCycle(std::int64_t start_ns) noexcept;

    /// Runs cycles until `stopRequested` becomes true, requestStop() is called or `maxCycles` cycles ran
    /// (0: unlimited), on
    /// absolute deadlines start_k = t0 + k·period (periods lost to an overrun are skipped and
    /// counted), or — with Trigger::OnInput — whenever `inputReady()` reports new input (polled
    /// every millisecond, at least one cycle per period). `afterCycle` sees every report.
    template <typename InputReady, typename AfterCycle>
    void runLoop(const std::atomic<bool>& stopRequested, std::uint64_t maxCycles, InputReady&& inputReady,
                 AfterCycle&& afterCycle) noexcept;

    // ---- health ----
    [[nodiscard]] LatencyStats cycleLatency() const noexcept { return m_cycleLatency.stats(); }
    [[nodiscard]] LatencyStats stageLatency(Stage stage) const noexcept;
    [[nodiscard]] std::uint64_t deadlineMisses() const noexcept { return m_deadlineMisses; }
    /// Stage runs that returned StageStatus::Failed (a GPU error is counted by the stage that hit it).
    [[nodiscard]] std::uint64_t stageFailures() const noexcept { return m_stageFailures; }
    [[nodiscard]] std::uint64_t skippedPeriods() const noexcept { return m_skippedPeriods; }
    [[nodiscard]] const DegradationLadder& ladder() const noexcept { return m_ladder; }
    [[nodiscard]] DegradationLadder& ladder() noexcept { return m_ladder; }
    /// The trace buffer cycles are recorded into (null: none).
    [[nodiscard]] TraceBuffer* trace() const noexcept { return m_trace; }
    [[nodiscard]] const BasicWatchdog<ClockT>& watchdog() const noexcept { return m_watchdog; }
    /// The watchdog, for an owner on a synthetic clock that polls it (BasicWatchdog::poll).
    [[nodiscard]] BasicWatchdog<ClockT>& watchdog() noexcept { return m_watchdog; }
    [[nodiscard]] std::uint64_t cycles() const noexcept { return m_nextCycle; }
    [[nodiscard]] std::uint32_t cyclesWithoutInput() const noexcept { return m_cyclesWithoutInput; }

private:
    static bool runsThisCycle(Stage stage, std::uint64_t cycle, std::uint32_t platoonEvery) noexcept;
    /// The cycle's Cycle, DeadlineMiss and ModeChange records (m_trace is set).
    void recordTrace(const CycleReport& report, std::int64_t start_ns, std::int64_t end_ns) noexcept;
    /// The floor input loss sets after `m_cyclesWithoutInput` cycles without input.
    [[nodiscard]] RuntimeMode inputLossFloor() const noexcept;

    [[no_unique_address]] ClockT m_clock;
    ExecutorSettings m_settings;
    std::array<StageRunner*, STAGE_COUNT> m_stages{};
    BasicWatchdog<ClockT> m_watchdog;
    DegradationLadder m_ladder;
    LatencyWindow m_cycleLatency;
    std::array<std::unique_ptr<LatencyWindow>, STAGE_COUNT> m_stageLatency;
    TraceBuffer* m_trace{nullptr};
    std::uint64_t m_nextCycle{0};
    std::uint64_t m_deadlineMisses{0};
    std::uint64_t m_stageFailures{0};
    std::uint64_t m_skippedPeriods{0};
    std::uint32_t m_cyclesWithoutInput{0};
    RuntimeMode m_externalFloor{RuntimeMode::Nominal};
    std::atomic<bool> m_stopRequested{false};
};

/// The run phase's executor, on CLOCK_MONOTONIC (instantiated in executor.cpp).
using Executor = BasicExecutor<platform::MonotonicClock>;
extern template class BasicExecutor<platform::MonotonicClock>;

}  // namespace augur::runtime

#include "augur/runtime/executor.inl"
