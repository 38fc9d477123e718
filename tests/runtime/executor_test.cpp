#include "augur/runtime/executor.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "augur/platform/clock.hpp"
#include "augur/runtime/health.hpp"

namespace augur::runtime {
namespace {

constexpr std::int64_t MS = 1'000'000;
constexpr std::int64_t DEADLINE_NS = 30 * MS;
constexpr std::uint32_t GOOD_CYCLES = 3;
constexpr std::uint32_t INPUT_LOSS_HOLD_LAST = 2;
constexpr std::uint32_t INPUT_LOSS_NO_PREDICTION = 4;

/// A stage that records when it ran and can be told to take long or fail on one cycle.
class ScriptedStage : public StageRunner {
public:
    ScriptedStage(Stage stage, std::vector<Stage>& log) : m_stage(stage), m_log(log) {}

    StageStatus run(CycleContext& context) noexcept override {
        m_log.push_back(m_stage);
        context.hadInput = context.hadInput || givesInput;
        lastSawMissed = context.deadlineMissed;
        lastMode = context.mode;
        if (context.cycle == delayCycle) {
            platform::sleepUntil_ns(platform::monotonicNow_ns() + delay_ns);
        }
        if (context.cycle == failCycle) {
            return failure;
        }
        return StageStatus::Ok;
    }

    std::uint64_t delayCycle{UINT64_MAX};
    std::int64_t delay_ns{0};
    std::uint64_t failCycle{UINT64_MAX};
    StageStatus failure{StageStatus::Failed};
    bool givesInput{false};  ///< reports an accepted object list every cycle it runs
    bool lastSawMissed{false};
    RuntimeMode lastMode{RuntimeMode::Nominal};

private:
    Stage m_stage;
    std::vector<Stage>& m_log;
};

class ExecutorTest : public ::testing::Test {
protected:
    ExecutorTest() {
        settings.deadline_ns = DEADLINE_NS;
        settings.period_ns = DEADLINE_NS;
        settings.goodCyclesToStepUp = GOOD_CYCLES;
        settings.platoonEveryNCycles = 2;
        settings.healthWindowCycles = 16;
        settings.traceCapacityEvents = 64;
        settings.inputLossHoldLastCycles = INPUT_LOSS_HOLD_LAST;
        settings.inputLossNoPredictionCycles = INPUT_LOSS_NO_PREDICTION;
        log.reserve(4096);
        for (std::size_t i = 0; i < STAGE_COUNT; ++i) {
            stages.push_back(std::make_unique<ScriptedStage>(static_cast<Stage>(i), log));
        }
        stages.front()->givesInput = true;
        sut = std::make_unique<Executor>(settings, nullptr, nullptr);
        for (std::size_t i = 0; i < STAGE_COUNT; ++i) {
            sut->setStage(static_cast<Stage>(i), stages[i].get());
        }
        sut->start();
    }
    ~ExecutorTest() override { sut->stop(); }

    ScriptedStage& stage(Stage s) { return *stages[static_cast<std::size_t>(s)]; }
    CycleReport cycle() { return sut->runCycle(platform::monotonicNow_ns()); }

    ExecutorSettings settings;
    std::vector<Stage> log;
    std::vector<std::unique_ptr<ScriptedStage>> stages;
    std::unique_ptr<Executor> sut;
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
    for (int i = 0; i < 4; ++i) {
        (void)cycle();
    }
    EXPECT_GT(sut->cycleLatency().max_us, 0.0F);
    EXPECT_GE(sut->cycleLatency().max_us, sut->stageLatency(Stage::Track).max_us);
    EXPECT_EQ(sut->trace().size(), 4U * STAGE_COUNT - 2U);  // platoons on cycles 0 and 2 only
}

TEST_F(ExecutorTest, PeriodicLoopRunsOnAbsoluteDeadlines) {
    constexpr std::uint64_t CYCLES = 5;
    std::atomic<bool> stop{false};
    std::vector<std::int64_t> starts;
    starts.reserve(CYCLES);
    const std::int64_t t0 = platform::monotonicNow_ns();
    sut->runLoop(stop, CYCLES, [] { return false; },
                 [&](const CycleReport&) { starts.push_back(platform::monotonicNow_ns()); });
    ASSERT_EQ(starts.size(), CYCLES);
    // Cycle k ends after t0 + k·period: cycles are spaced by the period, not run back to back.
    for (std::uint64_t k = 1; k < CYCLES; ++k) {
        EXPECT_GE(starts[k] - t0, static_cast<std::int64_t>(k) * settings.period_ns);
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
