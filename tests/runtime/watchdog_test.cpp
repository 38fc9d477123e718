// The watchdog's detection logic in synthetic time: the test moves a manual clock and polls the
// watchdog the way its thread would, so every outcome is exact. The thread itself is covered by
// watchdog_thread_test.cpp (label `wall-clock`).
#include "augur/runtime/watchdog.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "augur/testing/manual_clock.hpp"

namespace augur::runtime {
namespace {

using testing::ManualClock;
using SyntheticWatchdog = BasicWatchdog<ManualClock>;

constexpr std::int64_t MS = 1'000'000;
constexpr std::int64_t DEADLINE_NS = 40 * MS;
constexpr std::int64_t INTENTION_BUDGET_NS = 10 * MS;
constexpr std::int64_t POLL_NS = 1 * MS;

struct Recorder {
    std::vector<Overrun> deadlines;
    std::vector<Overrun> stages;
};

void onOverrun(void* context, const Overrun& overrun) noexcept {
    auto* r = static_cast<Recorder*>(context);
    (overrun.kind == OverrunKind::CycleDeadline ? r->deadlines : r->stages).push_back(overrun);
}

WatchdogBudgets budgets() {
    WatchdogBudgets b;
    b.cycleDeadline_ns = DEADLINE_NS;
    b.stageBudget_ns[static_cast<std::size_t>(Stage::Intention)] = INTENTION_BUDGET_NS;
    return b;
}

class WatchdogTest : public ::testing::Test {
protected:
    WatchdogTest() {
        recorder.deadlines.reserve(16);
        recorder.stages.reserve(16);
    }

    /// Lets `duration_ns` pass with the watchdog polled every POLL_NS, as its thread would.
    void pass(std::int64_t duration_ns) {
        for (std::int64_t waited = 0; waited < duration_ns; waited += POLL_NS) {
            clock.advance(POLL_NS);
            sut.poll(clock.now_ns());
        }
    }

    ManualClock clock;
    Recorder recorder;
    SyntheticWatchdog sut{budgets(), POLL_NS, &onOverrun, &recorder, clock};
};

TEST_F(WatchdogTest, OnTimeCyclesRaiseNothing) {
    for (std::uint64_t cycle = 0; cycle < 5; ++cycle) {
        sut.beginCycle(cycle, clock.now_ns());
        sut.beginStage(Stage::Intention, clock.now_ns());
        pass(2 * MS);
        sut.endCycle();
        EXPECT_FALSE(sut.deadlineMissed(cycle));
    }
    EXPECT_TRUE(recorder.deadlines.empty());
    EXPECT_TRUE(recorder.stages.empty());
    EXPECT_EQ(sut.deadlineMisses(), 0U);
}

TEST_F(WatchdogTest, StuckStageIsDetectedWhileItIsStillRunning) {
    constexpr std::uint64_t CYCLE = 7;
    const std::int64_t start = clock.now_ns();
    sut.beginCycle(CYCLE, start);
    sut.beginStage(Stage::Motion, start);
    pass(DEADLINE_NS);
    EXPECT_TRUE(recorder.deadlines.empty()) << "exactly at the deadline the cycle is still on time";

    pass(POLL_NS);  // the stage has not returned: no beginStage / endCycle
    ASSERT_EQ(recorder.deadlines.size(), 1U);
    EXPECT_TRUE(sut.deadlineMissed(CYCLE));
    EXPECT_EQ(recorder.deadlines[0].cycle, CYCLE);
    EXPECT_EQ(recorder.deadlines[0].stage, Stage::Motion);
    EXPECT_EQ(recorder.deadlines[0].elapsed_ns, DEADLINE_NS + POLL_NS);  // detected one poll after the deadline

    pass(10 * POLL_NS);
    sut.endCycle();
    EXPECT_EQ(recorder.deadlines.size(), 1U) << "one report per cycle";
    EXPECT_EQ(sut.deadlineMisses(), 1U);
    EXPECT_TRUE(sut.deadlineMissed(CYCLE)) << "the flag outlives the cycle";
}

TEST_F(WatchdogTest, StageOverBudgetIsCountedOncePerStage) {
    sut.beginCycle(1, clock.now_ns());
    sut.beginStage(Stage::Intention, clock.now_ns());
    pass(25 * MS);
    sut.beginStage(Stage::Motion, clock.now_ns());  // Motion has no budget: never flagged
    pass(10 * MS);
    sut.endCycle();
    EXPECT_EQ(sut.stageOverruns(Stage::Intention), 1U);
    EXPECT_EQ(sut.stageOverruns(Stage::Motion), 0U);
    ASSERT_EQ(recorder.stages.size(), 1U);
    EXPECT_EQ(recorder.stages[0].stage, Stage::Intention);
    EXPECT_EQ(recorder.stages[0].elapsed_ns, INTENTION_BUDGET_NS + POLL_NS);
    EXPECT_EQ(sut.deadlineMisses(), 0U);
}

TEST_F(WatchdogTest, EachRunOfAStageIsCheckedAgainstItsBudget) {
    for (std::uint64_t cycle = 0; cycle < 3; ++cycle) {
        sut.beginCycle(cycle, clock.now_ns());
        sut.beginStage(Stage::Intention, clock.now_ns());
        pass(INTENTION_BUDGET_NS + POLL_NS);
        sut.endCycle();
    }
    EXPECT_EQ(sut.stageOverruns(Stage::Intention), 3U);
    EXPECT_EQ(recorder.stages.size(), 3U);
}

TEST_F(WatchdogTest, EachLateCycleIsReportedOnce) {
    for (std::uint64_t cycle = 0; cycle < 2; ++cycle) {
        sut.beginCycle(cycle, clock.now_ns());
        pass(DEADLINE_NS + 5 * POLL_NS);
        sut.endCycle();
    }
    ASSERT_EQ(recorder.deadlines.size(), 2U);
    EXPECT_EQ(recorder.deadlines[0].cycle, 0U);
    EXPECT_EQ(recorder.deadlines[1].cycle, 1U);
    EXPECT_EQ(sut.deadlineMisses(), 2U);
    EXPECT_FALSE(sut.deadlineMissed(0)) << "the flag names the last late cycle";
    EXPECT_TRUE(sut.deadlineMissed(1));
}

TEST_F(WatchdogTest, TimeBetweenCyclesIsNotCounted) {
    sut.beginCycle(0, clock.now_ns());
    pass(POLL_NS);
    sut.endCycle();
    pass(10 * DEADLINE_NS);
    EXPECT_TRUE(recorder.deadlines.empty());
    EXPECT_EQ(sut.deadlineMisses(), 0U);
}

}  // namespace
}  // namespace augur::runtime
