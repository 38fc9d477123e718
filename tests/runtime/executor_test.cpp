// The executor in synthetic time: stages "take time" by moving a manual clock, polling the watchdog
// as its thread would, so cycle timing, deadline misses and the loop's schedule are exact. The real
// clock and threads are covered by executor_thread_test.cpp (label `wall-clock`).
#include "augur/runtime/executor.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "augur/runtime/health.hpp"
#include "augur/testing/manual_clock.hpp"

namespace augur::runtime {
namespace {

using testing::ManualClock;
using SyntheticExecutor = BasicExecutor<ManualClock>;

constexpr std::int64_t MS = 1'000'000;
constexpr std::int64_t POLL_NS = 1 * MS;
constexpr std::int64_t DEADLINE_NS = 30 * MS;
constexpr std::uint32_t GOOD_CYCLES = 3;
constexpr std::uint32_t INPUT_LOSS_HOLD_LAST = 2;
constexpr std::uint32_t INPUT_LOSS_NO_PREDICTION = 4;

/// A stage that records when it ran and can be told to take long or fail on one cycle. It takes time
/// by moving the clock in watchdog polls.
class ScriptedStage : public StageRunner {
public:
    ScriptedStage(Stage stage, std::vector<Stage>& log, ManualClock clock)
        : m_stage(stage), m_log(log), m_clock(std::move(clock)) {}

    StageStatus run(CycleContext& context) noexcept override {
        m_log.push_back(m_stage);
        context.hadInput = context.hadInput || givesInput;
        lastSawMissed = context.deadlineMissed;
        lastMode = context.mode;
        take(work_ns);
        if (context.cycle == delayCycle) {
            take(delay_ns);
        }
        if (context.cycle == failCycle) {
            return failure;
        }
        return StageStatus::Ok;
    }

    BasicWatchdog<ManualClock>* watchdog{nullptr};
    std::int64_t work_ns{0};  ///< time every run takes
    std::uint64_t delayCycle{UINT64_MAX};
    std::int64_t delay_ns{0};
    std::uint64_t failCycle{UINT64_MAX};
    StageStatus failure{StageStatus::Failed};
    bool givesInput{false};  ///< reports an accepted object list every cycle it runs
    bool lastSawMissed{false};
    RuntimeMode lastMode{RuntimeMode::Nominal};

private:
    void take(std::int64_t duration_ns) noexcept {
        for (std::int64_t taken = 0; taken < duration_ns; taken += POLL_NS) {
            m_clock.advance(POLL_NS);
            watchdog->poll(m_clock.now_ns());
        }
    }

    Stage m_stage;
    std::vector<Stage>& m_log;
    ManualClock m_clock;
};

class ExecutorTest : public ::testing::Test {
protected:
    ExecutorTest() {
        settings.deadline_ns = DEADLINE_NS;
        settings.period_ns = DEADLINE_NS;
        settings.goodCyclesToStepUp = GOOD_CYCLES;
        settings.platoonEveryNCycles = 2;
        settings.healthWindowCycles = 16;
        settings.inputLossHoldLastCycles = INPUT_LOSS_HOLD_LAST;
        settings.inputLossNoPredictionCycles = INPUT_LOSS_NO_PREDICTION;
        settings.watchdogPoll_ns = POLL_NS;
        log.reserve(4096);
        for (std::size_t i = 0; i < STAGE_COUNT; ++i) {
            stages.push_back(std::make_unique<ScriptedStage>(static_cast<Stage>(i), log, clock));
        }
        stages.front()->givesInput = true;
        rebuild();
    }

    /// (Re)creates the executor from `settings`. Its watchdog is not started: the stages poll it.
    void rebuild() {
        sut = std::make_unique<SyntheticExecutor>(settings, nullptr, nullptr, clock);
        for (std::size_t i = 0; i < STAGE_COUNT; ++i) {
            sut->setStage(static_cast<Stage>(i), stages[i].get());
            stages[i]->watchdog = &sut->watchdog();
        }
    }

    ScriptedStage& stage(Stage s) { return *stages[static_cast<std::size_t>(s)]; }
    CycleReport cycle() { return sut->runCycle(clock.now_ns()); }

    ManualClock clock;
    ExecutorSettings settings;
    std::vector<Stage> log;
    std::vector<std::unique_ptr<ScriptedStage>> stages;
    std::unique_ptr<SyntheticExecutor> sut;
};

TEST_F(ExecutorTest, RunsStagesInPipelineOrder) {
    (void)cycle();  // cycle 0: platoons run (0 % 2 == 0)
    const std::vector<Stage> expected{Stage::Ingest,    Stage::Track,    Stage::Relations, Stage::Intention,
                                      Stage::Motion,    Stage::Platoons, Stage::Publish};
    EXPECT_EQ(log, expected);
}

TEST_F(ExecutorTest, TheHealthNamesTheStagesThatRanInTheOrderTheyRan) {
    (void)cycle();  // cycle 0: every stage
    const CycleReport report = cycle();  // cycle 1: no platoons
    Health health{};

    fillHealth(health, report, *sut, PipelineCounters{}, false);

    constexpr std::uint8_t ALL_BUT_PLATOONS = 0x7F & ~(1U << static_cast<unsigned>(Stage::Platoons));
    EXPECT_EQ(health.stagesRun, ALL_BUT_PLATOONS);
    const Stage expected[] = {Stage::Ingest, Stage::Track, Stage::Relations, Stage::Intention, Stage::Motion,
                              Stage::Publish, Stage::Count};
    for (std::uint32_t k = 0; k < 7; ++k) {
        EXPECT_EQ(stageTrailEntry(health.stageTrail, k), expected[k]) << "entry " << k;
    }
}

TEST_F(ExecutorTest, AStageSkippedPastTheDeadlineIsNotInTheTrail) {
    stage(Stage::Track).delayCycle = 0;
    stage(Stage::Track).delay_ns = 2 * DEADLINE_NS;

    const CycleReport report = cycle();

    EXPECT_EQ(report.stagesRun, (1U << static_cast<unsigned>(Stage::Ingest)) | (1U << static_cast<unsigned>(Stage::Track)) |
                                    (1U << static_cast<unsigned>(Stage::Publish)));
    EXPECT_EQ(stageTrailEntry(report.stageTrail, 2), Stage::Publish);
    EXPECT_EQ(stageTrailEntry(report.stageTrail, 3), Stage::Count);
}

TEST_F(ExecutorTest, PlatoonsRunOnEveryNthCycleOnly) {
    (void)cycle();
    (void)cycle();
    const auto platoonRuns = std::count(log.begin(), log.end(), Stage::Platoons);
    EXPECT_EQ(platoonRuns, 1);
}

TEST_F(ExecutorTest, InjectedDelayIsDetectedAndTheCycleStillPublishesStale) {
    stage(Stage::Intention).delayCycle = 1;
    stage(Stage::Intention).delay_ns = 2 * DEADLINE_NS;
    (void)cycle();
    log.clear();
    const CycleReport report = cycle();
    EXPECT_TRUE(report.deadlineMissed);
    EXPECT_TRUE(sut->watchdog().deadlineMissed(1));  // the watchdog saw it, not only the end-of-cycle check
    EXPECT_EQ(std::count(log.begin(), log.end(), Stage::Motion), 0);  // computing stopped at the deadline
    EXPECT_EQ(log.back(), Stage::Publish);
    EXPECT_TRUE(stage(Stage::Publish).lastSawMissed);
    EXPECT_EQ(sut->deadlineMisses(), 1U);
}

TEST_F(ExecutorTest, LadderStepsDownOnAMissAndBackUpAfterGoodCycles) {
    stage(Stage::Motion).delayCycle = 0;
    stage(Stage::Motion).delay_ns = 2 * DEADLINE_NS;
    const CycleReport missed = cycle();
    ASSERT_TRUE(missed.transition.has_value());
    EXPECT_EQ(missed.transition->to, RuntimeMode::ReducedParticles);
    (void)cycle();
    EXPECT_EQ(stage(Stage::Intention).lastMode, RuntimeMode::ReducedParticles);  // stages see the mode
    std::optional<ModeTransition> up;
    for (std::uint32_t i = 1; i < GOOD_CYCLES; ++i) {
        up = cycle().transition;
    }
    ASSERT_TRUE(up.has_value());
    EXPECT_EQ(up->to, RuntimeMode::Nominal);
}

TEST_F(ExecutorTest, InputLossStepsDownToHoldLastThenNoPredictionAndBackWhenInputReturns) {
    ASSERT_EQ(cycle().cyclesWithoutInput, 0U);
    stage(Stage::Ingest).givesInput = false;
    std::vector<RuntimeMode> modes;
    for (std::uint32_t k = 1; k <= INPUT_LOSS_NO_PREDICTION; ++k) {
        const CycleReport report = cycle();
        EXPECT_EQ(report.cyclesWithoutInput, k);
        EXPECT_EQ((report.faults & bit(HealthFault::InputLost)) != 0, k >= INPUT_LOSS_HOLD_LAST) << "cycle " << k;
        modes.push_back(sut->ladder().mode());
    }
    const std::vector<RuntimeMode> expected{RuntimeMode::Nominal, RuntimeMode::HoldLast, RuntimeMode::HoldLast,
                                            RuntimeMode::NoPrediction};
    EXPECT_EQ(modes, expected);

    stage(Stage::Ingest).givesInput = true;
    const CycleReport back = cycle();
    EXPECT_EQ(back.cyclesWithoutInput, 0U);
    EXPECT_EQ(back.faults & bit(HealthFault::InputLost), 0U);
    ASSERT_TRUE(back.transition.has_value());
    EXPECT_EQ(back.transition->to, RuntimeMode::Nominal) << "the first cycle with input computes again";
}

TEST_F(ExecutorTest, AnExternalFloorHoldsFromTheNextCycleUntilCleared) {
    sut->setExternalFloor(RuntimeMode::NoPrediction);
    const CycleReport held = cycle();
    ASSERT_TRUE(held.transition.has_value());
    EXPECT_EQ(held.transition->to, RuntimeMode::NoPrediction);
    EXPECT_EQ(stage(Stage::Intention).lastMode, RuntimeMode::Nominal) << "the cycle it was set before ran nominal";
    sut->setExternalFloor(RuntimeMode::Nominal);
    const CycleReport released = cycle();
    EXPECT_EQ(stage(Stage::Intention).lastMode, RuntimeMode::NoPrediction);
    ASSERT_TRUE(released.transition.has_value());
    EXPECT_EQ(released.transition->to, RuntimeMode::Nominal);
}

TEST_F(ExecutorTest, GpuErrorForcesConstantVelocityMode) {
    stage(Stage::Intention).failCycle = 0;
    stage(Stage::Intention).failure = StageStatus::GpuError;
    const CycleReport report = cycle();
    EXPECT_FALSE(report.deadlineMissed);
    ASSERT_TRUE(report.transition.has_value());
    EXPECT_EQ(report.transition->to, RuntimeMode::ConstantVelocity);
}

TEST_F(ExecutorTest, FailedStagesAreCountedAndReachTheHealthMessage) {
    stage(Stage::Relations).failCycle = 1;
    stage(Stage::Publish).failCycle = 1;
    stage(Stage::Intention).failCycle = 2;
    stage(Stage::Intention).failure = StageStatus::GpuError;  // the stage counts its own GPU errors
    for (int i = 0; i < 4; ++i) {
        const CycleReport report = cycle();
        if (report.cycle == 1) {
            EXPECT_EQ(report.status[static_cast<std::size_t>(Stage::Relations)], StageStatus::Failed);
            EXPECT_EQ(report.status[static_cast<std::size_t>(Stage::Motion)], StageStatus::Ok);  // the cycle went on
        }
    }
    EXPECT_EQ(sut->stageFailures(), 2U);
    Health health{};
    fillHealth(health, CycleReport{}, *sut, PipelineCounters{}, false);
    EXPECT_EQ(health.stageFailures, 2U);
}

TEST_F(ExecutorTest, KeepsLatencyStatisticsAndTrace) {
    constexpr std::int64_t TRACK_NS = 2 * MS;
    constexpr std::int64_t MOTION_NS = 3 * MS;
    constexpr float US_PER_NS = 1e-3F;
    stage(Stage::Track).work_ns = TRACK_NS;
    stage(Stage::Motion).work_ns = MOTION_NS;
    for (int i = 0; i < 4; ++i) {
        (void)cycle();
    }
    EXPECT_FLOAT_EQ(sut->stageLatency(Stage::Track).max_us, static_cast<float>(TRACK_NS) * US_PER_NS);
    EXPECT_FLOAT_EQ(sut->stageLatency(Stage::Motion).max_us, static_cast<float>(MOTION_NS) * US_PER_NS);
    EXPECT_FLOAT_EQ(sut->stageLatency(Stage::Ingest).max_us, 0.0F);
    EXPECT_FLOAT_EQ(sut->cycleLatency().max_us, static_cast<float>(TRACK_NS + MOTION_NS) * US_PER_NS);
}

/// The records a buffer holds, oldest first.
std::vector<TraceRecord> drain(TraceBuffer& buffer) {
    std::vector<TraceRecord> records;
    TraceRecord record;
    while (buffer.pop(record)) {
        records.push_back(record);
    }
    return records;
}

TEST_F(ExecutorTest, TracesEachCycleWithItsStagesNestedInsideIt) {
    constexpr std::int64_t TRACK_NS = 2 * MS;
    constexpr std::size_t CYCLES = 4;
    constexpr std::size_t STAGE_RECORDS = CYCLES * STAGE_COUNT - 2;  // platoons on cycles 0 and 2 only
    TraceBuffer buffer(256);
    sut->setTrace(&buffer);
    stage(Stage::Track).work_ns = TRACK_NS;

    for (std::size_t i = 0; i < CYCLES; ++i) {
        (void)cycle();
    }

    const std::vector<TraceRecord> records = drain(buffer);
    ASSERT_EQ(records.size(), STAGE_RECORDS + CYCLES);
    std::size_t stagesSeen = 0;
    std::size_t cyclesSeen = 0;
    std::vector<TraceRecord> open;  // this cycle's stages, until its Cycle record
    for (const TraceRecord& r : records) {
        if (r.kind == TraceRecordKind::Stage) {
            open.push_back(r);
            ++stagesSeen;
            continue;
        }
        ASSERT_EQ(r.kind, TraceRecordKind::Cycle);
        EXPECT_EQ(r.cycle, cyclesSeen);
        EXPECT_EQ(r.count, 0U) << "on time";
        for (const TraceRecord& s : open) {
            EXPECT_EQ(s.cycle, r.cycle);
            EXPECT_LE(r.begin_ns, s.begin_ns);
            EXPECT_LE(s.end_ns, r.end_ns);
            if (s.stage == Stage::Track) {
                EXPECT_EQ(s.end_ns - s.begin_ns, TRACK_NS);
            }
        }
        EXPECT_EQ(open.front().stage, Stage::Ingest);
        EXPECT_EQ(open.back().stage, Stage::Publish);
        open.clear();
        ++cyclesSeen;
    }
    EXPECT_EQ(stagesSeen, STAGE_RECORDS);
    EXPECT_EQ(cyclesSeen, CYCLES);
}

TEST_F(ExecutorTest, TracesADeadlineMissAtTheDeadlineAndTheModeChangeAfterIt) {
    TraceBuffer buffer(256);
    sut->setTrace(&buffer);
    stage(Stage::Motion).delayCycle = 1;
    stage(Stage::Motion).delay_ns = 2 * DEADLINE_NS;

    (void)cycle();
    const std::int64_t missedStart_ns = clock.now_ns();
    const CycleReport missed = cycle();

    ASSERT_TRUE(missed.deadlineMissed);
    ASSERT_TRUE(missed.transition.has_value());
    const std::vector<TraceRecord> records = drain(buffer);
    const auto find = [&records](TraceRecordKind kind) {
        return std::find_if(records.begin(), records.end(), [kind](const TraceRecord& r) { return r.kind == kind; });
    };
    const auto miss = find(TraceRecordKind::DeadlineMiss);
    ASSERT_NE(miss, records.end());
    EXPECT_EQ(miss->cycle, 1U);
    EXPECT_EQ(miss->begin_ns, missedStart_ns + DEADLINE_NS);
    const auto change = find(TraceRecordKind::ModeChange);
    ASSERT_NE(change, records.end());
    EXPECT_EQ(change->cycle, 1U);
    EXPECT_EQ(change->from, RuntimeMode::Nominal);
    EXPECT_EQ(change->to, RuntimeMode::ReducedParticles);
    const auto missedCycle = std::find_if(records.begin(), records.end(), [](const TraceRecord& r) {
        return r.kind == TraceRecordKind::Cycle && r.cycle == 1;
    });
    ASSERT_NE(missedCycle, records.end());
    EXPECT_EQ(missedCycle->count, 1U) << "the cycle's slice says it missed";
    EXPECT_EQ(missedCycle->from, RuntimeMode::Nominal) << "the mode it ran in";
}

TEST_F(ExecutorTest, AFullTraceBufferDropsAndCountsInsteadOfBlocking) {
    constexpr std::size_t CAPACITY = 4;
    TraceBuffer buffer(CAPACITY);
    sut->setTrace(&buffer);

    (void)cycle();  // 7 stage records and a cycle record into 4 slots

    EXPECT_EQ(buffer.dropped(), STAGE_COUNT + 1 - CAPACITY);
    EXPECT_EQ(drain(buffer).size(), CAPACITY);
}

TEST_F(ExecutorTest, PeriodicLoopRunsOnAbsoluteDeadlines) {
    constexpr std::uint64_t CYCLES = 5;
    stage(Stage::Track).work_ns = 4 * MS;  // cycles take time: the schedule does not drift by it
    std::atomic<bool> stop{false};
    std::vector<std::int64_t> starts;
    starts.reserve(CYCLES);
    const std::int64_t t0 = clock.now_ns();
    sut->runLoop(stop, CYCLES, [] { return false; },
                 [&](const CycleReport& report) { starts.push_back(clock.now_ns() - report.latency_ns); });
    ASSERT_EQ(starts.size(), CYCLES);
    for (std::uint64_t k = 0; k < CYCLES; ++k) {
        EXPECT_EQ(starts[k] - t0, static_cast<std::int64_t>(k) * settings.period_ns) << "cycle " << k;
    }
    EXPECT_EQ(sut->skippedPeriods(), 0U);
}

TEST_F(ExecutorTest, PeriodsLostToAnOverrunAreSkippedAndCounted) {
    constexpr std::uint64_t CYCLES = 3;
    constexpr std::uint64_t LATE_CYCLE = 1;
    stage(Stage::Intention).delayCycle = LATE_CYCLE;
    stage(Stage::Intention).delay_ns = 5 * settings.period_ns / 2;  // ends 1.5 periods into the next one
    std::atomic<bool> stop{false};
    std::vector<std::int64_t> starts;
    starts.reserve(CYCLES);
    const std::int64_t t0 = clock.now_ns();
    sut->runLoop(stop, CYCLES, [] { return false; },
                 [&](const CycleReport& report) { starts.push_back(clock.now_ns() - report.latency_ns); });
    ASSERT_EQ(starts.size(), CYCLES);
    const std::vector<std::int64_t> expected{0, settings.period_ns, 4 * settings.period_ns};
    for (std::uint64_t k = 0; k < CYCLES; ++k) {
        EXPECT_EQ(starts[k] - t0, expected[k]) << "cycle " << k;
    }
    EXPECT_EQ(sut->skippedPeriods(), 2U);
    EXPECT_EQ(sut->deadlineMisses(), 1U);
}

TEST_F(ExecutorTest, OnInputLoopRunsWhenInputArrivesAndAtLeastOncePerPeriod) {
    constexpr std::uint64_t CYCLES = 3;
    constexpr std::int64_t INPUT_AFTER_NS = 5 * MS;
    settings.trigger = Trigger::OnInput;
    rebuild();
    std::atomic<bool> stop{false};
    std::vector<std::int64_t> starts;
    starts.reserve(CYCLES);
    const std::int64_t t0 = clock.now_ns();
    bool inputTaken = false;
    const auto inputReady = [&] {
        if (!inputTaken && clock.now_ns() - t0 >= INPUT_AFTER_NS) {
            inputTaken = true;
            return true;
        }
        return false;
    };
    sut->runLoop(stop, CYCLES, inputReady,
                 [&](const CycleReport& report) { starts.push_back(clock.now_ns() - report.latency_ns); });
    ASSERT_EQ(starts.size(), CYCLES);
    // The first cycle at once; the second when the input arrives; the third one period after the second.
    const std::vector<std::int64_t> expected{0, INPUT_AFTER_NS, INPUT_AFTER_NS + settings.period_ns};
    for (std::uint64_t k = 0; k < CYCLES; ++k) {
        EXPECT_EQ(starts[k] - t0, expected[k]) << "cycle " << k;
    }
}

TEST_F(ExecutorTest, StopRequestedFromACycleCallbackEndsTheLoopAfterThatCycle) {
    constexpr std::uint64_t STOP_AFTER_CYCLE = 2;
    constexpr std::uint64_t UNLIMITED = 0;
    std::atomic<bool> stop{false};
    std::uint64_t seen = 0;
    sut->runLoop(stop, UNLIMITED, [] { return false; }, [&](const CycleReport& report) {
        ++seen;
        if (report.cycle == STOP_AFTER_CYCLE) {
            sut->requestStop();
        }
    });
    EXPECT_EQ(seen, STOP_AFTER_CYCLE + 1);
    EXPECT_EQ(sut->cycles(), STOP_AFTER_CYCLE + 1);
    EXPECT_TRUE(sut->stopRequested());
}

TEST_F(ExecutorTest, StopRequestStaysForTheNextLoop) {
    std::atomic<bool> stop{false};
    sut->requestStop();
    std::uint64_t seen = 0;
    sut->runLoop(stop, 0, [] { return false; }, [&](const CycleReport&) { ++seen; });
    EXPECT_EQ(seen, 0U);
}

}  // namespace
}  // namespace augur::runtime
