#include "augur/monitor/supervisor.hpp"

#include <algorithm>
#include <cmath>

#include "augur/core/panic.hpp"

namespace augur::monitor {

void LatencyHistogram::record(float latency_us) noexcept {
    std::size_t bin = 0;
    if (latency_us >= 1.0F) {
        const double octaves = std::log2(static_cast<double>(latency_us));
        const auto index = static_cast<std::size_t>(octaves * static_cast<double>(BINS_PER_OCTAVE)) + 1;
        bin = index < BIN_COUNT ? index : BIN_COUNT - 1;
    } else if (!(latency_us >= 0.0F)) {
        return;  // NaN or negative: not a latency
    }
    ++m_bins[bin];
    ++m_count;
    m_max_us = latency_us > m_max_us ? latency_us : m_max_us;
}

float LatencyHistogram::quantile_us(double q) const noexcept {
    if (m_count == 0) {
        return 0.0F;
    }
    // Nearest rank: the smallest bin whose cumulative count reaches ceil(q * count).
    const auto rank = static_cast<std::uint64_t>(std::ceil(q * static_cast<double>(m_count)));
    std::uint64_t seen = 0;
    for (std::size_t bin = 0; bin < BIN_COUNT; ++bin) {
        seen += m_bins[bin];
        if (seen >= rank && m_bins[bin] > 0) {
            const float upper = bin == 0 ? 1.0F
                                         : static_cast<float>(std::exp2(static_cast<double>(bin) /
                                                                        static_cast<double>(BINS_PER_OCTAVE)));
            return upper < m_max_us ? upper : m_max_us;
        }
    }
    return m_max_us;
}

std::uint64_t totalRejections(const Health& health) noexcept {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < REJECT_REASON_COUNT; ++i) {
        total += health.rejections[i] + health.objectRejections[i];
    }
    return total;
}

Supervisor::Supervisor(const SupervisorSettings& settings, std::int64_t start_ns) noexcept
    : m_settings(settings), m_start_ns(start_ns) {
    AUGUR_ASSERT(settings.period_ns > 0 && settings.alivePeriods >= 1, "Supervisor: period > 0, alivePeriods >= 1");
}

void Supervisor::set(MonitorCondition condition, bool on) noexcept {
    const std::uint32_t b = bit(condition);
    if (on) {
        if ((m_active & b) == 0) {
            m_raised |= b;
            m_everRaised |= b;
            if (condition == MonitorCondition::HealthMissing) {
                ++m_counters.aliveLosses;
            }
        }
        m_active |= b;
    } else {
        m_active &= ~b;
    }
}

std::uint32_t Supervisor::takeRaised() noexcept {
    const std::uint32_t raised = m_raised;
    m_raised = 0;
    return raised;
}

std::int64_t Supervisor::lastHealthAge_ns(std::int64_t now_ns) const noexcept {
    return m_haveAnything ? now_ns - m_lastArrival_ns : -1;
}

std::int64_t Supervisor::aliveDue_ns() const noexcept {
    return m_haveAnything ? m_aliveFrom_ns + static_cast<std::int64_t>(m_settings.alivePeriods) * m_settings.period_ns
                          : m_start_ns + m_settings.startupTimeout_ns;
}

void Supervisor::onTick(std::int64_t now_ns) noexcept { set(MonitorCondition::HealthMissing, now_ns > aliveDue_ns()); }

void Supervisor::onHealth(const Health& health, std::int64_t now_ns) noexcept {
    // When the message left: its stamp (the runtime's monotonic clock at publication) where that reads as
    // this host's clock (at most a period old), else its arrival, which the polling can make up to a poll
    // late. A cycle's own health within its deadline: its cycle started its latency before that.
    const std::int64_t age_ns = now_ns - health.header.stamp_ns;
    const std::int64_t sent_ns = age_ns >= 0 && age_ns <= m_settings.period_ns ? health.header.stamp_ns : now_ns;
    const bool cycleHealth = health.overrunAlarm == 0 && health.linkUpdate == 0;
    const double latency_ns = static_cast<double>(health.cycleLatency.last_us) * 1e3;
    const bool inDeadline = cycleHealth && latency_ns >= 0.0 && latency_ns <= static_cast<double>(m_settings.deadline_ns);
    const std::int64_t from = sent_ns - (inDeadline ? static_cast<std::int64_t>(latency_ns) : 0);
    m_aliveFrom_ns = m_haveAnything ? std::max(m_aliveFrom_ns, from) : from;
    m_haveAnything = true;
    m_lastArrival_ns = now_ns;
    set(MonitorCondition::HealthMissing, false);
    set(MonitorCondition::RuntimeGone, false);
    if (health.overrunAlarm != 0) {
        // The watchdog saw the running cycle pass its deadline: raise now; the cycle's own health,
        // which follows, carries the miss in its counter.
        ++m_counters.watchdogAlarms;
        set(MonitorCondition::DeadlineMiss, true);
        return;
    }
    if (health.linkUpdate != 0) {
        // The runtime's link thread saw link_lost change between two cycles: the link condition now;
        // the cycle's accounting waits for the cycle's own health.
        set(MonitorCondition::LinkLost, (health.faults & bit(HealthFault::LinkLost)) != 0);
        return;
    }
    onCycleHealth(health);
}

bool Supervisor::stagesInOrder(const Health& health) noexcept {
    std::uint32_t seen = 0;
    int previous = -1;
    Stage last = Stage::Count;
    for (std::uint32_t k = 0; k < 8; ++k) {
        const Stage stage = stageTrailEntry(health.stageTrail, k);
        if (stage == Stage::Count) {
            // Nothing may follow the end marker.
            if ((health.stageTrail >> (4U * k)) != 0) {
                return false;
            }
            break;
        }
        const int index = static_cast<int>(stage);
        if (index <= previous) {
            return false;  // out of order, or twice
        }
        previous = index;
        seen |= 1U << static_cast<std::uint32_t>(index);
        last = stage;
    }
    return seen == health.stagesRun && last == Stage::Publish;
}

void Supervisor::onCycleHealth(const Health& health) noexcept {
    const bool first = !m_haveHealth;
    const bool restarted = !first && health.cycle <= m_last.cycle;
    if (restarted) {
        ++m_counters.restarts;
    }
    const bool baseline = first || restarted;  // counters are taken afresh

    // Sequence: cycles whose health never arrived.
    const bool gap = !baseline && health.cycle > m_last.cycle + 1;
    if (gap) {
        m_counters.missingHealth += health.cycle - m_last.cycle - 1;
    }
    set(MonitorCondition::SequenceGap, gap);

    checkDeadline(health, baseline);
    checkStageBudgets(health);

    // Logical supervision. A runtime that does not report its stages (stagesRun 0) is not checked.
    const bool outOfOrder = health.stagesRun != 0 && !stagesInOrder(health);
    if (outOfOrder) {
        ++m_counters.orderViolations;
    }
    set(MonitorCondition::StageOrder, outOfOrder);

    const std::uint64_t rejections = totalRejections(health);
    checkInputsAndTransport(health, baseline, rejections);

    ++m_counters.healthMessages;
    m_last = health;
    m_lastRejections = rejections;
    m_haveHealth = true;
}

/// Deadline: the cycle's own latency against the deployment's deadline, and the runtime's counter
/// (which also counts cycles whose health was lost).
void Supervisor::checkDeadline(const Health& health, bool baseline) noexcept {
    const bool late = static_cast<double>(health.cycleLatency.last_us) * 1e3 > static_cast<double>(m_settings.deadline_ns);
    const std::uint64_t counted = baseline ? 0 : (health.deadlineMisses > m_last.deadlineMisses
                                                      ? health.deadlineMisses - m_last.deadlineMisses
                                                      : 0);
    const std::uint64_t misses = counted > 0 ? counted : (late ? 1 : 0);
    m_counters.deadlineMisses += misses;
    set(MonitorCondition::DeadlineMiss, misses > 0);
    m_cycle.record(health.cycleLatency.last_us);
}

/// Stage budgets, for the stages that ran in this cycle.
void Supervisor::checkStageBudgets(const Health& health) noexcept {
    m_overBudgetStage = Stage::Count;
    for (std::size_t i = 0; i < STAGE_COUNT; ++i) {
        if ((health.stagesRun & (1U << i)) == 0) {
            continue;
        }
        const float us = health.stageLatency[i].last_us;
        m_stages[i].record(us);
        const std::int64_t budget = m_settings.stageBudget_ns[i];
        if (budget > 0 && static_cast<double>(us) * 1e3 > static_cast<double>(budget)) {
            ++m_counters.stageOverruns;
            ++m_counters.stageOverrunsByStage[i];
            if (m_overBudgetStage == Stage::Count) {
                m_overBudgetStage = static_cast<Stage>(i);
            }
        }
    }
    set(MonitorCondition::StageOverBudget, m_overBudgetStage != Stage::Count);
}

/// Input age and loss, the mode, rejections (`rejections`: this message's total) and transport faults.
void Supervisor::checkInputsAndTransport(const Health& health, bool baseline, std::uint64_t rejections) noexcept {
    m_inputAge_ns = health.newestInputStamp_ns > 0 && health.header.stamp_ns >= health.newestInputStamp_ns
                        ? health.header.stamp_ns - health.newestInputStamp_ns
                        : -1;
    const bool stale = (health.faults & bit(HealthFault::InputLost)) != 0 ||
                       (m_settings.maxInputAge_ns > 0 && m_inputAge_ns > m_settings.maxInputAge_ns);
    set(MonitorCondition::InputStale, stale);

    if (!baseline && health.mode != m_last.mode) {
        ++m_counters.modeChanges;
    }
    set(MonitorCondition::Degraded, health.mode != RuntimeMode::Nominal);

    const std::uint64_t newRejections = !baseline && rejections > m_lastRejections ? rejections - m_lastRejections : 0;
    m_counters.rejections += newRejections;
    set(MonitorCondition::InputRejected, newRejections > 0);
    const std::uint64_t newLoanFailures =
        !baseline && health.loanFailures > m_last.loanFailures ? health.loanFailures - m_last.loanFailures : 0;
    m_counters.loanFailures += newLoanFailures;
    constexpr std::uint32_t TRANSPORT_FAULTS =
        bit(HealthFault::TransportLost) | bit(HealthFault::OutputBlocked) | bit(HealthFault::InputQueueOverflow);
    set(MonitorCondition::TransportFault, (health.faults & TRANSPORT_FAULTS) != 0 || newLoanFailures > 0);

    // The DDS link of the runtime's bridge (Health::link*).
    set(MonitorCondition::LinkLost, (health.faults & bit(HealthFault::LinkLost)) != 0);
}

void Supervisor::fillAlarm(MonitorAlarm& alarm, std::uint32_t raised, std::int64_t now_ns) const noexcept {
    const std::uint64_t sequence = alarm.header.sequence;
    alarm = MonitorAlarm{};
    alarm.header = MessageHeader{MESSAGE_SCHEMA_VERSION, 0, sequence, now_ns};
    alarm.active = m_active;
    alarm.raised = raised;
    alarm.lastHealthCycle = m_last.cycle;
    alarm.lastHealthAge_ns = lastHealthAge_ns(now_ns);
    alarm.deadlineMisses = m_counters.deadlineMisses;
    alarm.stageOverruns = m_counters.stageOverruns;
    alarm.orderViolations = m_counters.orderViolations;
    alarm.missingHealth = m_counters.missingHealth;
    alarm.mode = m_last.mode;
    alarm.overBudgetStage = m_overBudgetStage;
}

}  // namespace augur::monitor
