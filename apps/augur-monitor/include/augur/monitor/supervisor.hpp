// The supervision logic of augur-monitor, without transport or clock: it is fed the runtime's health
// messages and the monitor's clock readings, and says which MonitorCondition holds.
//
//   alive       no health message for `alivePeriods` cycle periods from the start of the newest cycle that
//               reported (its health's arrival less its own latency; before the first message: for
//               `startupTimeout_ns`) raises health_missing; the next message clears it
//   deadline    a cycle over the deadline, a rise of the runtime's own miss counter, or a watchdog alarm
//   budgets     a stage that ran this cycle (Health::stagesRun) over its runtime.stage_budgets_ms entry
//   logical     the cycle's stages (Health::stageTrail) ran in pipeline order, each once, ending with
//               Publish, and are the stages stagesRun names
//   sequence    consecutive health messages carry consecutive cycle numbers (a drop to a lower cycle
//               number is a restarted runtime: counted, and the counters are taken afresh)
//   input, mode, rejections, transport, link: from the message's faults bits and counters
//
// Time is injected (the `now_ns` arguments, monotonic nanoseconds), so the logic is tested without
// sleeping. Run phase: every member function is noexcept and allocation-free; the object holds fixed-size
// histograms only.
#pragma once

#include <array>
#include <cstdint>

#include "augur/core/messages.hpp"

namespace augur::monitor {

struct SupervisorSettings {
    std::int64_t period_ns{200'000'000};    ///< runtime.cycle_period_ms
    std::int64_t deadline_ns{200'000'000};  ///< runtime.deadline_ms
    std::array<std::int64_t, STAGE_COUNT> stageBudget_ns{};  ///< runtime.stage_budgets_ms; 0: unchecked
    std::int64_t maxInputAge_ns{0};         ///< runtime.max_input_age_ms; 0: only the input_lost fault counts
    std::uint32_t alivePeriods{2};          ///< periods without health before health_missing (≥ 1; aliveDue_ns)
    std::int64_t startupTimeout_ns{10'000'000'000};  ///< wait for the first health message
};

/// Latencies on a log scale: eight bins per octave from 1 µs (about 9 % wide), up to 2^27 µs (134 s).
/// Percentiles are the upper edge of the bin that holds them. Allocation-free.
class LatencyHistogram {
public:
    static constexpr std::size_t BINS_PER_OCTAVE = 8;
    static constexpr std::size_t BIN_COUNT = 27 * BINS_PER_OCTAVE + 1;  ///< bin 0: below 1 µs

    void record(float latency_us) noexcept;
    /// The `q`-quantile (0 < q ≤ 1) in microseconds, 0 with no sample. O(BIN_COUNT).
    [[nodiscard]] float quantile_us(double q) const noexcept;
    [[nodiscard]] float max_us() const noexcept { return m_max_us; }
    [[nodiscard]] std::uint64_t count() const noexcept { return m_count; }

private:
    std::array<std::uint64_t, BIN_COUNT> m_bins{};
    std::uint64_t m_count{0};
    float m_max_us{0.0F};
};

/// What the monitor counted since it started.
struct SupervisorCounters {
    std::uint64_t healthMessages{0};   ///< per-cycle health messages taken (alarms excluded)
    std::uint64_t watchdogAlarms{0};   ///< the runtime watchdog's overrun alarms taken
    std::uint64_t deadlineMisses{0};
    std::uint64_t stageOverruns{0};
    std::array<std::uint64_t, STAGE_COUNT> stageOverrunsByStage{};
    std::uint64_t orderViolations{0};
    std::uint64_t missingHealth{0};    ///< cycles whose health never arrived
    std::uint64_t aliveLosses{0};      ///< times health_missing was raised
    std::uint64_t restarts{0};         ///< runtime restarts seen (cycle numbers started again)
    std::uint64_t rejections{0};       ///< lists and objects rejected (rise of the runtime's counters)
    std::uint64_t loanFailures{0};     ///< rise of the runtime's loan failure counter
    std::uint64_t modeChanges{0};      ///< mode changes between consecutive health messages
};

class Supervisor {
public:
    /// Supervision starts at `start_ns` (the startup timeout runs from there). Precondition:
    /// period_ns > 0, alivePeriods ≥ 1.
    Supervisor(const SupervisorSettings& settings, std::int64_t start_ns) noexcept;

    /// A health message (a per-cycle one, a watchdog alarm with overrunAlarm = 1, or a link update with
    /// linkUpdate = 1, which only sets link_lost) taken at `now_ns`.
    void onHealth(const Health& health, std::int64_t now_ns) noexcept;
    /// Alive supervision at `now_ns`: call at least every tenth of a period, and at aliveDue_ns.
    void onTick(std::int64_t now_ns) noexcept;
    /// The time after which onTick raises health_missing unless a message arrives first: `alivePeriods`
    /// periods after the newest cycle that reported started. A cycle's health leaves at its end (its
    /// stamp, or its arrival where the stamp is not of this host's clock), so its start is that less
    /// Health::cycleLatency.last_us; with alivePeriods = 2 that is the deadline
    /// of the cycle after it, which a runtime that keeps its deadlines always meets, however late in its
    /// period each cycle ends. Alarms, link updates and a cycle over its deadline count from their arrival.
    /// Before the first message: the start-up timeout.
    [[nodiscard]] std::int64_t aliveDue_ns() const noexcept;
    /// The runtime process no longer exists (true) or exists (false), from outside (e.g. its pid).
    void setRuntimeGone(bool gone) noexcept { set(MonitorCondition::RuntimeGone, gone); }
    /// The monitor's own RouDi went away; final.
    void setRouDiLost() noexcept { set(MonitorCondition::RouDiLost, true); }

    /// MonitorCondition bits that hold now.
    [[nodiscard]] std::uint32_t active() const noexcept { return m_active; }
    /// Bits raised since the previous call (each raise reported once). Not const: it consumes them.
    [[nodiscard]] std::uint32_t takeRaised() noexcept;
    /// Every bit that was ever active.
    [[nodiscard]] std::uint32_t everRaised() const noexcept { return m_everRaised; }
    [[nodiscard]] const SupervisorCounters& counters() const noexcept { return m_counters; }
    [[nodiscard]] bool hasHealth() const noexcept { return m_haveHealth; }
    /// The newest per-cycle health message (zero before the first).
    [[nodiscard]] const Health& lastHealth() const noexcept { return m_last; }
    /// Time since the newest health message (alarms included) arrived; -1 before the first.
    [[nodiscard]] std::int64_t lastHealthAge_ns(std::int64_t now_ns) const noexcept;
    /// Input age at the newest health message: its publication stamp minus the newest accepted list's
    /// stamp; -1 when unknown (no list yet, or stamps of another clock).
    [[nodiscard]] std::int64_t inputAge_ns() const noexcept { return m_inputAge_ns; }
    /// The stage over budget in the newest cycle (Stage::Count: none).
    [[nodiscard]] Stage overBudgetStage() const noexcept { return m_overBudgetStage; }
    [[nodiscard]] const LatencyHistogram& cycleHistogram() const noexcept { return m_cycle; }
    [[nodiscard]] const LatencyHistogram& stageHistogram(Stage stage) const noexcept {
        return m_stages[static_cast<std::size_t>(stage)];
    }
    [[nodiscard]] const SupervisorSettings& settings() const noexcept { return m_settings; }

    /// Fills `alarm` (all but header.sequence) with the state at `now_ns` and the bits of `raised`.
    void fillAlarm(MonitorAlarm& alarm, std::uint32_t raised, std::int64_t now_ns) const noexcept;

private:
    void set(MonitorCondition condition, bool on) noexcept;
    void onCycleHealth(const Health& health) noexcept;
    // The checks of onCycleHealth; `baseline`: the first health message, or the first after a restart.
    void checkDeadline(const Health& health, bool baseline) noexcept;
    void checkStageBudgets(const Health& health) noexcept;
    void checkInputsAndTransport(const Health& health, bool baseline, std::uint64_t rejections) noexcept;
    [[nodiscard]] static bool stagesInOrder(const Health& health) noexcept;

    SupervisorSettings m_settings;
    std::int64_t m_start_ns;
    std::int64_t m_lastArrival_ns{0};
    std::int64_t m_aliveFrom_ns{0};  ///< start of the newest cycle that reported (aliveDue_ns)
    bool m_haveHealth{false};   ///< a per-cycle message arrived
    bool m_haveAnything{false}; ///< any message (alarm included) arrived
    Health m_last{};
    std::uint64_t m_lastRejections{0};
    std::int64_t m_inputAge_ns{-1};
    Stage m_overBudgetStage{Stage::Count};
    std::uint32_t m_active{0};
    std::uint32_t m_raised{0};
    std::uint32_t m_everRaised{0};
    SupervisorCounters m_counters{};
    LatencyHistogram m_cycle;
    std::array<LatencyHistogram, STAGE_COUNT> m_stages{};
};

/// Total of a health message's list and object rejections.
[[nodiscard]] std::uint64_t totalRejections(const Health& health) noexcept;

}  // namespace augur::monitor
