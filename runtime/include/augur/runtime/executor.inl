// BasicExecutor's members (a template on the clock; the run phase's instantiation is in executor.cpp).
#pragma once

#include <algorithm>
#include <memory>

namespace augur::runtime {

template <platform::Clock ClockT>
BasicExecutor<ClockT>::BasicExecutor(const ExecutorSettings& settings, OverrunHandler overrunHandler,
                                     void* overrunContext, ClockT clock)
    : m_clock(clock),
      m_settings(settings),
      m_watchdog(WatchdogBudgets{settings.deadline_ns, settings.stageBudget_ns}, settings.watchdogPoll_ns,
                 overrunHandler, overrunContext, clock),
      m_ladder(LadderPolicy{settings.missesToStepDown, settings.goodCyclesToStepUp}),
      m_cycleLatency(settings.healthWindowCycles) {
    for (auto& window : m_stageLatency) {
        window = std::make_unique<LatencyWindow>(settings.healthWindowCycles);
    }
}

template <platform::Clock ClockT>
BasicExecutor<ClockT>::~BasicExecutor() { stop(); }

template <platform::Clock ClockT>
void BasicExecutor<ClockT>::setStage(Stage stage, StageRunner* runner) noexcept {
    m_stages[static_cast<std::size_t>(stage)] = runner;
}

template <platform::Clock ClockT>
platform::RealtimeOutcome BasicExecutor<ClockT>::start(int watchdogPriority) { return m_watchdog.start(watchdogPriority); }

template <platform::Clock ClockT>
void BasicExecutor<ClockT>::stop() noexcept { m_watchdog.stop(); }

template <platform::Clock ClockT>
LatencyStats BasicExecutor<ClockT>::stageLatency(Stage stage) const noexcept {
    return m_stageLatency[static_cast<std::size_t>(stage)]->stats();
}

template <platform::Clock ClockT>
bool BasicExecutor<ClockT>::runsThisCycle(Stage stage, std::uint64_t cycle, std::uint32_t platoonEvery) noexcept {
    if (stage == Stage::Platoons) {
        return platoonEvery > 0 && cycle % platoonEvery == 0;
    }
    return true;
}

template <platform::Clock ClockT>
RuntimeMode BasicExecutor<ClockT>::inputLossFloor() const noexcept {
    const auto reached = [this](std::uint32_t after) { return after > 0 && m_cyclesWithoutInput >= after; };
    if (reached(m_settings.inputLossNoPredictionCycles)) {
        return RuntimeMode::NoPrediction;
    }
    return reached(m_settings.inputLossHoldLastCycles) ? RuntimeMode::HoldLast : RuntimeMode::Nominal;
}

template <platform::Clock ClockT>
CycleReport BasicExecutor<ClockT>::runCycle(std::int64_t start_ns) noexcept {
    const std::uint64_t cycle = m_nextCycle++;
    CycleContext context;
    context.cycle = cycle;
    context.start_ns = start_ns;
    context.mode = m_ladder.mode();

    CycleReport report{};
    report.cycle = cycle;
    report.mode = context.mode;
    report.status.fill(StageStatus::Skipped);

    std::uint32_t trailLength = 0;  // STAGE_COUNT nibbles fit the 32-bit trail
    static_assert(STAGE_COUNT <= 8);
    m_watchdog.beginCycle(cycle, start_ns);
    for (std::size_t i = 0; i < STAGE_COUNT; ++i) {
        const auto stage = static_cast<Stage>(i);
        StageRunner* runner = m_stages[i];
        if (runner == nullptr || !runsThisCycle(stage, cycle, m_settings.platoonEveryNCycles)) {
            continue;
        }
        if (stage == Stage::Publish) {
            context.deadlineMissed = m_watchdog.deadlineMissed(cycle) ||
                                     m_clock.now_ns() - start_ns > m_settings.deadline_ns;
        } else if (m_watchdog.deadlineMissed(cycle)) {
            continue;  // past the deadline: no more computing, go straight to publishing (stale)
        }
        const std::int64_t begin = m_clock.now_ns();
        report.stagesRun = static_cast<std::uint8_t>(report.stagesRun | (1U << i));
        report.stageTrail |= static_cast<std::uint32_t>(i + 1) << (4U * trailLength++);
        m_watchdog.beginStage(stage, begin);
        report.status[i] = runner->run(context);
        if (report.status[i] == StageStatus::Failed) {
            ++m_stageFailures;
        }
        const std::int64_t end = m_clock.now_ns();
        m_stageLatency[i]->record(static_cast<float>(end - begin) * 1e-3F);
        if (m_trace != nullptr) {
            TraceRecord record{};
            record.kind = TraceRecordKind::Stage;
            record.begin_ns = begin;
            record.end_ns = end;
            record.cycle = cycle;
            record.stage = stage;
            (void)m_trace->push(record);
        }
    }
    m_watchdog.endCycle();

    const std::int64_t end_ns = m_clock.now_ns();
    const std::int64_t latency = end_ns - start_ns;
    m_cycleLatency.record(static_cast<float>(latency) * 1e-3F);
    report.latency_ns = latency;
    report.deadlineMissed = m_watchdog.deadlineMissed(cycle) || latency > m_settings.deadline_ns;
    report.hadInput = context.hadInput;
    if (report.deadlineMissed) {
        ++m_deadlineMisses;
    }
    bool gpuFailed = false;
    for (const StageStatus s : report.status) {
        gpuFailed = gpuFailed || s == StageStatus::GpuError;
    }
    m_cyclesWithoutInput = context.hadInput ? 0 : m_cyclesWithoutInput + 1;
    const RuntimeMode inputFloor = inputLossFloor();
    report.cyclesWithoutInput = m_cyclesWithoutInput;
    report.faults = context.faults | (inputFloor != RuntimeMode::Nominal ? bit(HealthFault::InputLost) : 0U);
    report.transition = m_ladder.onCycle(report.deadlineMissed, DegradationLadder::worse(inputFloor, m_externalFloor));
    if (gpuFailed) {
        if (auto forced = m_ladder.forceAtLeast(RuntimeMode::ConstantVelocity)) {
            report.transition = ModeTransition{report.transition ? report.transition->from : forced->from, forced->to};
        }
    }
    if (m_trace != nullptr) {
        recordTrace(report, start_ns, end_ns);
    }
    return report;
}


template <platform::Clock ClockT>
void BasicExecutor<ClockT>::recordTrace(const CycleReport& report, std::int64_t start_ns, std::int64_t end_ns) noexcept {
    TraceRecord cycle{};
    cycle.kind = TraceRecordKind::Cycle;
    cycle.begin_ns = start_ns;
    cycle.end_ns = end_ns;
    cycle.cycle = report.cycle;
    cycle.count = report.deadlineMissed ? 1U : 0U;
    cycle.from = report.mode;
    (void)m_trace->push(cycle);
    if (report.deadlineMissed) {
        TraceRecord miss{};
        miss.kind = TraceRecordKind::DeadlineMiss;
        miss.begin_ns = std::min(end_ns, start_ns + m_settings.deadline_ns);  // when the deadline passed
        miss.cycle = report.cycle;
        (void)m_trace->push(miss);
    }
    if (report.transition) {
        TraceRecord change{};
        change.kind = TraceRecordKind::ModeChange;
        change.begin_ns = end_ns;
        change.cycle = report.cycle;
        change.from = report.transition->from;
        change.to = report.transition->to;
        (void)m_trace->push(change);
    }
}

template <platform::Clock ClockT>
template <typename InputReady, typename AfterCycle>
void BasicExecutor<ClockT>::runLoop(const std::atomic<bool>& stopRequested, std::uint64_t maxCycles, InputReady&& inputReady,
                       AfterCycle&& afterCycle) noexcept {
    constexpr std::int64_t INPUT_POLL_NS = 1'000'000;
    const std::int64_t period = m_settings.period_ns;
    std::int64_t nextStart = m_clock.now_ns();
    std::uint64_t ran = 0;
    const auto stopping = [&stopRequested, this]() noexcept {
        return stopRequested.load(std::memory_order_relaxed) || m_stopRequested.load(std::memory_order_relaxed);
    };
    while (!stopping() && (maxCycles == 0 || ran < maxCycles)) {
        if (m_settings.trigger == Trigger::OnInput) {
            // Wait for input, but never longer than one period: the planner still gets a prediction.
            const std::int64_t waitUntil = nextStart;
            while (!inputReady() && m_clock.now_ns() < waitUntil && !stopping()) {
                m_clock.sleepUntil_ns(m_clock.now_ns() + INPUT_POLL_NS);
            }
        } else {
            m_clock.sleepUntil_ns(nextStart);
        }
        const std::int64_t start = m_clock.now_ns();
        afterCycle(runCycle(start));
        ++ran;
        nextStart = (m_settings.trigger == Trigger::OnInput ? start : nextStart) + period;
        const std::int64_t now = m_clock.now_ns();
        if (now > nextStart) {
            // Overran into the next period(s): skip them rather than run back-to-back cycles.
            const std::int64_t behind = (now - nextStart) / period + 1;
            m_skippedPeriods += static_cast<std::uint64_t>(behind);
            nextStart += behind * period;
        }
    }
}

}  // namespace augur::runtime
