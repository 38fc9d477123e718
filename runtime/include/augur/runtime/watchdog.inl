// BasicWatchdog's members (a template on the clock; the run phase's instantiation is in watchdog.cpp).
#pragma once

#include "augur/core/panic.hpp"

namespace augur::runtime {

template <platform::Clock ClockT>
BasicWatchdog<ClockT>::BasicWatchdog(WatchdogBudgets budgets, std::int64_t poll_ns, OverrunHandler handler,
                                     void* context, ClockT clock) noexcept
    : m_clock(clock), m_budgets(budgets), m_poll_ns(poll_ns), m_handler(handler), m_context(context) {}

template <platform::Clock ClockT>
BasicWatchdog<ClockT>::~BasicWatchdog() { stop(); }

template <platform::Clock ClockT>
platform::RealtimeOutcome BasicWatchdog<ClockT>::start(int fifoPriority) {
    AUGUR_ASSERT(!m_running.load(), "Watchdog::start called twice");
    m_running.store(true);
    m_thread = std::thread([this] { run(); });
    platform::nameThread(m_thread, "augur-watchdog");
    return platform::setFifoPriority(m_thread, fifoPriority);
}

template <platform::Clock ClockT>
void BasicWatchdog<ClockT>::stop() noexcept {
    m_running.store(false);
    if (m_thread.joinable()) {
        m_thread.join();
    }
}

template <platform::Clock ClockT>
void BasicWatchdog<ClockT>::beginCycle(std::uint64_t cycle, std::int64_t now_ns) noexcept {
    m_cycleStart_ns.store(now_ns, std::memory_order_relaxed);
    m_stage.store(0, std::memory_order_relaxed);
    m_stageStart_ns.store(now_ns, std::memory_order_relaxed);
    m_stageEpoch.fetch_add(1, std::memory_order_relaxed);
    m_cycle.store(cycle, std::memory_order_release);
    m_cycleActive.store(true, std::memory_order_release);
}

template <platform::Clock ClockT>
void BasicWatchdog<ClockT>::beginStage(Stage stage, std::int64_t now_ns) noexcept {
    m_stage.store(static_cast<std::uint8_t>(stage), std::memory_order_relaxed);
    m_stageStart_ns.store(now_ns, std::memory_order_relaxed);
    m_stageEpoch.fetch_add(1, std::memory_order_release);
}

template <platform::Clock ClockT>
void BasicWatchdog<ClockT>::endCycle() noexcept { m_cycleActive.store(false, std::memory_order_release); }

template <platform::Clock ClockT>
bool BasicWatchdog<ClockT>::deadlineMissed(std::uint64_t cycle) const noexcept {
    return m_lastMissedCycle.load(std::memory_order_acquire) == cycle;
}

template <platform::Clock ClockT>
std::uint64_t BasicWatchdog<ClockT>::stageOverruns(Stage stage) const noexcept {
    return m_stageOverruns[static_cast<std::size_t>(stage)].load();
}

template <platform::Clock ClockT>
void BasicWatchdog<ClockT>::run() noexcept {
    while (m_running.load(std::memory_order_relaxed)) {
        const std::int64_t now = m_clock.now_ns();
        poll(now);
        m_clock.sleepUntil_ns(now + m_poll_ns);
    }
}

template <platform::Clock ClockT>
void BasicWatchdog<ClockT>::poll(std::int64_t now_ns) noexcept {
    if (!m_cycleActive.load(std::memory_order_acquire)) {
        return;
    }
    const std::uint64_t cycle = m_cycle.load(std::memory_order_acquire);
    const std::uint64_t epoch = m_stageEpoch.load(std::memory_order_acquire);
    const auto stage = static_cast<Stage>(m_stage.load(std::memory_order_relaxed));
    const std::int64_t cycleElapsed = now_ns - m_cycleStart_ns.load(std::memory_order_relaxed);
    const std::int64_t stageElapsed = now_ns - m_stageStart_ns.load(std::memory_order_relaxed);

    if (cycleElapsed > m_budgets.cycleDeadline_ns && m_lastMissedCycle.load(std::memory_order_relaxed) != cycle) {
        m_lastMissedCycle.store(cycle, std::memory_order_release);
        m_deadlineMisses.fetch_add(1);
        if (m_handler != nullptr) {
            m_handler(m_context, Overrun{OverrunKind::CycleDeadline, stage, cycle, cycleElapsed});
        }
    }
    const std::int64_t budget = m_budgets.stageBudget_ns[static_cast<std::size_t>(stage)];
    if (budget > 0 && stageElapsed > budget && epoch != m_lastOverrunEpoch) {
        m_lastOverrunEpoch = epoch;
        m_stageOverruns[static_cast<std::size_t>(stage)].fetch_add(1);
        if (m_handler != nullptr) {
            m_handler(m_context, Overrun{OverrunKind::StageBudget, stage, cycle, stageElapsed});
        }
    }
}

}  // namespace augur::runtime
