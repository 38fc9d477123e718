// The supervision logic of augur-monitor in simulated time: messages and clock readings are fed in.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <string>

#include "augur/monitor/event_log.hpp"
#include "augur/monitor/supervisor.hpp"
#include "augur/monitor/terminal_view.hpp"
#include "augur/testing/allocation_counter.hpp"

namespace augur::monitor {
namespace {

constexpr std::int64_t MS = 1'000'000;
constexpr std::int64_t PERIOD_NS = 200 * MS;
constexpr std::int64_t T0 = 1'000 * MS;  // the monitor's start

SupervisorSettings settings() {
    SupervisorSettings s;
    s.period_ns = PERIOD_NS;
    s.deadline_ns = PERIOD_NS;
    s.stageBudget_ns = {5 * MS, 20 * MS, 15 * MS, 60 * MS, 60 * MS, 15 * MS, 5 * MS};
    s.maxInputAge_ns = 400 * MS;
    s.alivePeriods = 2;
    s.startupTimeout_ns = 5'000 * MS;
    return s;
}

/// The stage trail of stages run in the order given.
std::uint32_t trailOf(std::initializer_list<Stage> stages) {
    std::uint32_t trail = 0;
    std::uint32_t k = 0;
    for (const Stage s : stages) {
        trail |= (static_cast<std::uint32_t>(s) + 1) << (4 * k++);
    }
    return trail;
}

std::uint8_t maskOf(std::initializer_list<Stage> stages) {
    std::uint32_t mask = 0;
    for (const Stage s : stages) {
        mask |= 1U << static_cast<std::uint32_t>(s);
    }
    return static_cast<std::uint8_t>(mask);
}

/// A healthy cycle's health: every stage but Platoons ran in order, 1 ms each, cycle 10 ms.
Health healthyCycle(std::uint64_t cycle) {
    Health h{};
    h.cycle = cycle;
    h.header.sequence = cycle + 1;
    h.header.stamp_ns = T0 + static_cast<std::int64_t>(cycle) * PERIOD_NS;
    h.cycleLatency.last_us = 10'000.0F;
    const std::initializer_list<Stage> ran{Stage::Ingest,    Stage::Track,  Stage::Relations,
                                           Stage::Intention, Stage::Motion, Stage::Publish};
    h.stagesRun = maskOf(ran);
    h.stageTrail = trailOf(ran);
    for (auto& stage : h.stageLatency) {
        stage.last_us = 1'000.0F;
    }
    return h;
}

/// Feeds healthy cycles 0..n-1, one per period from T0; returns the time of the last.
std::int64_t feedHealthy(Supervisor& sut, std::uint64_t n) {
    std::int64_t now = T0;
    for (std::uint64_t c = 0; c < n; ++c) {
        now = T0 + static_cast<std::int64_t>(c) * PERIOD_NS;
        sut.onHealth(healthyCycle(c), now);
        sut.onTick(now);
    }
    return now;
}

TEST(Supervisor, HealthEveryPeriodRaisesNothing) {
    Supervisor sut(settings(), T0);

    const std::int64_t last = feedHealthy(sut, 1000);
    sut.onTick(last + PERIOD_NS);

    EXPECT_EQ(sut.active(), 0U);
    EXPECT_EQ(sut.everRaised(), 0U);
    EXPECT_EQ(sut.counters().healthMessages, 1000U);
}

TEST(Supervisor, AlivePeriodsAfterTheLastReportedCycleStartedRaiseHealthMissing) {
    Supervisor sut(settings(), T0);
    const std::int64_t last = feedHealthy(sut, 5);
    // The last health left at the end of its 10 ms cycle: the cycle started 10 ms before it arrived.
    const std::int64_t started = last - 10 * MS;

    sut.onTick(started + 2 * PERIOD_NS);
    const std::uint32_t atTwoPeriods = sut.active();
    sut.onTick(started + 2 * PERIOD_NS + 1);

    EXPECT_EQ(sut.aliveDue_ns(), started + 2 * PERIOD_NS);
    EXPECT_EQ(atTwoPeriods & bit(MonitorCondition::HealthMissing), 0U);  // exactly k periods: not yet
    EXPECT_NE(sut.active() & bit(MonitorCondition::HealthMissing), 0U);
    EXPECT_EQ(sut.counters().aliveLosses, 1U);
}

/// A cycle's health as the runtime publishes it: at its end, `latency_ms` after it started at `start_ns`.
Health cycleHealth(std::uint64_t cycle, std::int64_t start_ns, float latency_ms) {
    Health h = healthyCycle(cycle);
    h.cycleLatency.last_us = latency_ms * 1e3F;
    h.header.stamp_ns = start_ns + static_cast<std::int64_t>(latency_ms * 1e6F);
    return h;
}

TEST(Supervisor, CyclesEndingAnywhereWithinTheirDeadlinesAreNoAliveLoss) {
    Supervisor sut(settings(), T0);
    // Cycle 0 ends 1 ms into its period, cycle 1 a millisecond before its deadline: 399 ms between the
    // two messages, within the two periods that a runtime keeping its deadlines always meets.
    sut.onHealth(cycleHealth(0, T0, 1.0F), T0 + 1 * MS);
    for (std::int64_t t = T0 + 1 * MS; t < T0 + PERIOD_NS + 199 * MS; t += MS) {
        sut.onTick(t);
    }
    sut.onHealth(cycleHealth(1, T0 + PERIOD_NS, 199.0F), T0 + PERIOD_NS + 199 * MS);
    sut.onTick(T0 + PERIOD_NS + 199 * MS);

    EXPECT_EQ(sut.everRaised() & bit(MonitorCondition::HealthMissing), 0U);
    EXPECT_EQ(sut.aliveDue_ns(), T0 + 3 * PERIOD_NS);
}

TEST(Supervisor, AHealthReadAPollLateCountsFromItsStamp) {
    Supervisor sut(settings(), T0);
    // Published 5 ms into its period, read 10 ms later: the cycle still started at T0.
    sut.onHealth(cycleHealth(0, T0, 5.0F), T0 + 15 * MS);
    EXPECT_EQ(sut.aliveDue_ns(), T0 + 2 * PERIOD_NS);

    // A stamp that is not of this host's clock (from the future, or older than a period): the arrival.
    Health future = cycleHealth(1, T0 + PERIOD_NS, 5.0F);
    future.header.stamp_ns += 50 * MS;
    sut.onHealth(future, T0 + PERIOD_NS + 10 * MS);
    EXPECT_EQ(sut.aliveDue_ns(), T0 + PERIOD_NS + 5 * MS + 2 * PERIOD_NS);
    Health old = cycleHealth(2, T0, 5.0F);
    sut.onHealth(old, T0 + 2 * PERIOD_NS + 10 * MS);
    EXPECT_EQ(sut.aliveDue_ns(), T0 + 2 * PERIOD_NS + 5 * MS + 2 * PERIOD_NS);
}

TEST(Supervisor, AlarmsAndCyclesOverTheirDeadlineCountFromWhenTheyLeft) {
    Supervisor sut(settings(), T0);
    // Over the 200 ms deadline: when the next cycle starts is not known.
    sut.onHealth(cycleHealth(0, T0, 250.0F), T0 + 250 * MS);
    EXPECT_EQ(sut.aliveDue_ns(), T0 + 250 * MS + 2 * PERIOD_NS);

    Health alarm{};
    alarm.cycle = 1;
    alarm.overrunAlarm = 1;
    alarm.header.stamp_ns = T0 + 700 * MS;
    sut.onHealth(alarm, T0 + 700 * MS);
    EXPECT_EQ(sut.aliveDue_ns(), T0 + 700 * MS + 2 * PERIOD_NS);

    // A cycle's health that ended before the alarm arrived does not move the due time back.
    sut.onHealth(cycleHealth(1, T0 + 650 * MS, 150.0F), T0 + 800 * MS);
    EXPECT_EQ(sut.aliveDue_ns(), T0 + 700 * MS + 2 * PERIOD_NS);

    Health garbled = cycleHealth(2, T0 + 1'100 * MS, 100.0F);
    garbled.cycleLatency.last_us = std::numeric_limits<float>::quiet_NaN();
    sut.onHealth(garbled, T0 + 1'200 * MS);
    EXPECT_EQ(sut.aliveDue_ns(), T0 + 1'200 * MS + 2 * PERIOD_NS);
}

TEST(Supervisor, TheNextHealthClearsHealthMissing) {
    Supervisor sut(settings(), T0);
    const std::int64_t last = feedHealthy(sut, 5);
    sut.onTick(last + 3 * PERIOD_NS);

    sut.onHealth(healthyCycle(5), last + 3 * PERIOD_NS + 1);

    EXPECT_EQ(sut.active() & bit(MonitorCondition::HealthMissing), 0U);
    EXPECT_NE(sut.everRaised() & bit(MonitorCondition::HealthMissing), 0U);
}

TEST(Supervisor, BeforeTheFirstHealthOnlyTheStartupTimeoutCounts) {
    Supervisor sut(settings(), T0);

    sut.onTick(T0 + 5'000 * MS);
    const std::uint32_t atTimeout = sut.active();
    sut.onTick(T0 + 5'000 * MS + 1);

    EXPECT_EQ(atTimeout, 0U);
    EXPECT_NE(sut.active() & bit(MonitorCondition::HealthMissing), 0U);
}

TEST(Supervisor, RaisedBitsAreReportedOnce) {
    Supervisor sut(settings(), T0);
    const std::int64_t last = feedHealthy(sut, 2);
    (void)sut.takeRaised();

    sut.onTick(last + 3 * PERIOD_NS);
    const std::uint32_t first = sut.takeRaised();
    sut.onTick(last + 4 * PERIOD_NS);

    EXPECT_EQ(first, bit(MonitorCondition::HealthMissing));
    EXPECT_EQ(sut.takeRaised(), 0U);
}

TEST(Supervisor, ACycleOverTheDeadlineIsAMiss) {
    Supervisor sut(settings(), T0);
    feedHealthy(sut, 3);
    Health late = healthyCycle(3);
    late.cycleLatency.last_us = 250'000.0F;
    late.deadlineMisses = 1;

    sut.onHealth(late, T0 + 3 * PERIOD_NS);

    EXPECT_NE(sut.active() & bit(MonitorCondition::DeadlineMiss), 0U);
    EXPECT_EQ(sut.counters().deadlineMisses, 1U);
    sut.onHealth(healthyCycle(4), T0 + 4 * PERIOD_NS);
    EXPECT_EQ(sut.active() & bit(MonitorCondition::DeadlineMiss), 0U);
}

TEST(Supervisor, MissesOfCyclesWhoseHealthWasLostCountFromTheRuntimesCounter) {
    Supervisor sut(settings(), T0);
    feedHealthy(sut, 3);
    Health h = healthyCycle(6);
    h.deadlineMisses = 3;  // cycles 3..5 missed, their health never came

    sut.onHealth(h, T0 + 6 * PERIOD_NS);

    EXPECT_EQ(sut.counters().deadlineMisses, 3U);
    EXPECT_EQ(sut.counters().missingHealth, 3U);
    EXPECT_NE(sut.active() & bit(MonitorCondition::SequenceGap), 0U);
}

TEST(Supervisor, MissesBeforeTheMonitorStartedAreNotCounted) {
    Supervisor sut(settings(), T0);
    Health h = healthyCycle(100);
    h.deadlineMisses = 7;

    sut.onHealth(h, T0);

    EXPECT_EQ(sut.counters().deadlineMisses, 0U);
}

TEST(Supervisor, AWatchdogAlarmRaisesDeadlineMissAtOnceWithoutCountingTwice) {
    Supervisor sut(settings(), T0);
    feedHealthy(sut, 3);
    Health alarm{};
    alarm.overrunAlarm = 1;
    alarm.cycle = 3;
    alarm.overrunStage = Stage::Motion;

    sut.onHealth(alarm, T0 + 3 * PERIOD_NS);
    const std::uint32_t atAlarm = sut.active();
    Health late = healthyCycle(3);
    late.cycleLatency.last_us = 300'000.0F;
    late.deadlineMisses = 1;
    sut.onHealth(late, T0 + 3 * PERIOD_NS + 100 * MS);

    EXPECT_NE(atAlarm & bit(MonitorCondition::DeadlineMiss), 0U);
    EXPECT_EQ(sut.counters().watchdogAlarms, 1U);
    EXPECT_EQ(sut.counters().deadlineMisses, 1U);
    EXPECT_EQ(sut.counters().healthMessages, 4U);
}

TEST(Supervisor, AStageOverItsBudgetIsCountedAndNamed) {
    Supervisor sut(settings(), T0);
    Health h = healthyCycle(0);
    h.stageLatency[static_cast<std::size_t>(Stage::Motion)].last_us = 61'000.0F;

    sut.onHealth(h, T0);

    EXPECT_NE(sut.active() & bit(MonitorCondition::StageOverBudget), 0U);
    EXPECT_EQ(sut.overBudgetStage(), Stage::Motion);
    EXPECT_EQ(sut.counters().stageOverrunsByStage[static_cast<std::size_t>(Stage::Motion)], 1U);
}

TEST(Supervisor, AStageThatDidNotRunIsNotCheckedAgainstItsBudget) {
    Supervisor sut(settings(), T0);
    Health h = healthyCycle(0);
    h.stageLatency[static_cast<std::size_t>(Stage::Platoons)].last_us = 900'000.0F;  // an old value

    sut.onHealth(h, T0);

    EXPECT_EQ(sut.counters().stageOverruns, 0U);
    EXPECT_EQ(sut.active() & bit(MonitorCondition::StageOverBudget), 0U);
}

TEST(Supervisor, StagesInOrderWithSomeSkippedAreLogicallyCorrect) {
    Supervisor sut(settings(), T0);
    Health h = healthyCycle(0);
    h.stagesRun = maskOf({Stage::Ingest, Stage::Track, Stage::Publish});
    h.stageTrail = trailOf({Stage::Ingest, Stage::Track, Stage::Publish});

    sut.onHealth(h, T0);

    EXPECT_EQ(sut.counters().orderViolations, 0U);
}

TEST(Supervisor, StagesOutOfOrderAreALogicalViolation) {
    Supervisor sut(settings(), T0);
    Health h = healthyCycle(0);
    h.stageTrail = trailOf({Stage::Ingest, Stage::Relations, Stage::Track, Stage::Intention, Stage::Motion,
                            Stage::Publish});

    sut.onHealth(h, T0);

    EXPECT_NE(sut.active() & bit(MonitorCondition::StageOrder), 0U);
    EXPECT_EQ(sut.counters().orderViolations, 1U);
}

TEST(Supervisor, AStageTwiceOrMissingPublishOrATrailOtherThanTheMaskIsAViolation) {
    Supervisor sut(settings(), T0);
    Health twice = healthyCycle(0);
    twice.stageTrail = trailOf({Stage::Ingest, Stage::Ingest, Stage::Publish});
    twice.stagesRun = maskOf({Stage::Ingest, Stage::Publish});
    Health noPublish = healthyCycle(1);
    noPublish.stageTrail = trailOf({Stage::Ingest, Stage::Track});
    noPublish.stagesRun = maskOf({Stage::Ingest, Stage::Track});
    Health otherMask = healthyCycle(2);
    otherMask.stagesRun = maskOf({Stage::Ingest, Stage::Publish});

    sut.onHealth(twice, T0);
    sut.onHealth(noPublish, T0 + PERIOD_NS);
    sut.onHealth(otherMask, T0 + 2 * PERIOD_NS);

    EXPECT_EQ(sut.counters().orderViolations, 3U);
}

TEST(Supervisor, ALowerCycleNumberIsARestartNotAGap) {
    Supervisor sut(settings(), T0);
    feedHealthy(sut, 10);
    Health restarted = healthyCycle(0);

    sut.onHealth(restarted, T0 + 10 * PERIOD_NS);

    EXPECT_EQ(sut.counters().restarts, 1U);
    EXPECT_EQ(sut.counters().missingHealth, 0U);
}

TEST(Supervisor, InputLostOrOldInputIsStale) {
    Supervisor sut(settings(), T0);
    Health lost = healthyCycle(0);
    lost.faults = bit(HealthFault::InputLost);
    Health old = healthyCycle(1);
    old.newestInputStamp_ns = old.header.stamp_ns - 500 * MS;
    Health fresh = healthyCycle(2);
    fresh.newestInputStamp_ns = fresh.header.stamp_ns - 100 * MS;

    sut.onHealth(lost, T0);
    const std::uint32_t whenLost = sut.active();
    sut.onHealth(old, T0 + PERIOD_NS);
    const std::uint32_t whenOld = sut.active();
    sut.onHealth(fresh, T0 + 2 * PERIOD_NS);

    EXPECT_NE(whenLost & bit(MonitorCondition::InputStale), 0U);
    EXPECT_NE(whenOld & bit(MonitorCondition::InputStale), 0U);
    EXPECT_EQ(sut.active() & bit(MonitorCondition::InputStale), 0U);
    EXPECT_EQ(sut.inputAge_ns(), 100 * MS);
}

TEST(Supervisor, ModeRejectionsAndTransportFaultsAreRaised) {
    Supervisor sut(settings(), T0);
    feedHealthy(sut, 1);
    Health h = healthyCycle(1);
    h.mode = RuntimeMode::HoldLast;
    h.rejections[static_cast<std::size_t>(RejectReason::Stale)] = 2;
    h.loanFailures = 1;

    sut.onHealth(h, T0 + PERIOD_NS);

    constexpr std::uint32_t EXPECTED = bit(MonitorCondition::Degraded) | bit(MonitorCondition::InputRejected) |
                                       bit(MonitorCondition::TransportFault);
    EXPECT_EQ(sut.active() & EXPECTED, EXPECTED);
    EXPECT_EQ(sut.counters().rejections, 2U);
    EXPECT_EQ(sut.counters().modeChanges, 1U);
}

TEST(Supervisor, ALostLinkIsRaisedWhileTheRuntimeReportsIt) {
    Supervisor sut(settings(), T0);
    feedHealthy(sut, 1);
    Health lost = healthyCycle(1);
    lost.faults = bit(HealthFault::LinkLost);
    lost.linkFaults = bit(LinkFault::PeerLost);

    sut.onHealth(lost, T0 + PERIOD_NS);
    const std::uint32_t whileLost = sut.active();
    sut.onHealth(healthyCycle(2), T0 + 2 * PERIOD_NS);

    EXPECT_NE(whileLost & bit(MonitorCondition::LinkLost), 0U);
    EXPECT_EQ(sut.active() & bit(MonitorCondition::LinkLost), 0U);
}

TEST(Supervisor, ALinkUpdateSetsTheLinkBetweenCyclesWithoutCountingACycle) {
    Supervisor sut(settings(), T0);
    feedHealthy(sut, 2);
    Health update{};
    update.linkUpdate = 1;
    update.cycle = 1;  // the last cycle that ended
    update.faults = bit(HealthFault::LinkLost);
    update.linkFaults = bit(LinkFault::PeerLost);

    sut.onHealth(update, T0 + PERIOD_NS + 50 * MS);
    const std::uint32_t afterUpdate = sut.active();
    const std::uint32_t raised = sut.takeRaised();
    Health next = healthyCycle(2);
    next.faults = bit(HealthFault::LinkLost);
    sut.onHealth(next, T0 + 2 * PERIOD_NS);

    EXPECT_NE(afterUpdate & bit(MonitorCondition::LinkLost), 0U);
    EXPECT_NE(raised & bit(MonitorCondition::LinkLost), 0U);
    EXPECT_EQ(sut.takeRaised() & bit(MonitorCondition::LinkLost), 0U) << "raised once, by the update";
    EXPECT_EQ(sut.counters().restarts, 0U) << "the update repeats the last cycle's number";
    EXPECT_EQ(sut.counters().healthMessages, 3U);
}

TEST(Supervisor, TheAlarmCarriesTheStateAndTheRaisedBits) {
    Supervisor sut(settings(), T0);
    const std::int64_t last = feedHealthy(sut, 4);
    sut.onTick(last + 3 * PERIOD_NS);
    MonitorAlarm alarm{};
    alarm.header.sequence = 9;

    sut.fillAlarm(alarm, sut.takeRaised(), last + 3 * PERIOD_NS);

    EXPECT_EQ(alarm.header.sequence, 9U);
    EXPECT_EQ(alarm.header.schemaVersion, MESSAGE_SCHEMA_VERSION);
    EXPECT_EQ(alarm.raised, bit(MonitorCondition::HealthMissing));
    EXPECT_EQ(alarm.active, bit(MonitorCondition::HealthMissing));
    EXPECT_EQ(alarm.lastHealthCycle, 3U);
    EXPECT_EQ(alarm.lastHealthAge_ns, 3 * PERIOD_NS);
}

TEST(Supervisor, SupervisionAllocatesNothing) {
    Supervisor sut(settings(), T0);
    MonitorAlarm alarm{};
    char view[4096];

    const std::uint64_t allocations = testing::allocationsDuring([&] {
        const std::int64_t last = feedHealthy(sut, 100);
        sut.onTick(last + 5 * PERIOD_NS);
        sut.fillAlarm(alarm, sut.takeRaised(), last + 5 * PERIOD_NS);
        (void)renderView(sut, last, false, view, sizeof(view));
    });

    EXPECT_EQ(allocations, 0U);
}

TEST(LatencyHistogram, QuantilesAreWithinOneBinOfTheSamples) {
    LatencyHistogram sut;
    for (int i = 1; i <= 100; ++i) {
        sut.record(static_cast<float>(i) * 1000.0F);  // 1..100 ms
    }
    constexpr double BIN_WIDTH = 1.0905;  // 2^(1/8)

    EXPECT_GE(sut.quantile_us(0.5), 50'000.0F);
    EXPECT_LE(sut.quantile_us(0.5), static_cast<float>(50'000.0 * BIN_WIDTH));
    EXPECT_GE(sut.quantile_us(0.99), 99'000.0F);
    EXPECT_LE(sut.quantile_us(0.99), 100'000.0F);  // never above the maximum
    EXPECT_EQ(sut.max_us(), 100'000.0F);
}

TEST(LatencyHistogram, EmptyGivesZeroAndNaNIsIgnored) {
    LatencyHistogram sut;
    sut.record(std::numeric_limits<float>::quiet_NaN());

    EXPECT_EQ(sut.count(), 0U);
    EXPECT_EQ(sut.quantile_us(0.5), 0.0F);
}

TEST(EventLog, ConditionsAreJoinedByBars) {
    char text[64];

    formatConditions(bit(MonitorCondition::HealthMissing) | bit(MonitorCondition::Degraded), text, sizeof(text));

    EXPECT_STREQ(text, "health_missing|degraded");
}

TEST(EventLog, CsvHasAHeaderAndOneLinePerChange) {
    const std::string path = ::testing::TempDir() + "monitor_event_log.csv";
    Supervisor sut(settings(), T0);
    EventLog sut2;
    ASSERT_TRUE(sut2.open(path, LogFormat::Csv));
    const std::int64_t last = feedHealthy(sut, 2);
    sut2.write("health", nullptr, sut, last);

    sut2.writeChanges(0, bit(MonitorCondition::HealthMissing), sut, last + 3 * PERIOD_NS);
    sut2.flush();

    std::FILE* f = std::fopen(path.c_str(), "r");
    ASSERT_NE(f, nullptr);
    char line[512];
    std::string text;
    while (std::fgets(line, sizeof(line), f) != nullptr) {
        text += line;
    }
    std::fclose(f);
    EXPECT_EQ(text.rfind("t_ns,event,condition,cycle,", 0), 0U);
    EXPECT_NE(text.find(",health,,1,nominal,10000,"), std::string::npos);
    EXPECT_NE(text.find(",raise,health_missing,1,"), std::string::npos);
}

}  // namespace
}  // namespace augur::monitor
