#include "augur/runtime/watchdog.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "augur/platform/clock.hpp"

namespace augur::runtime {
namespace {

constexpr std::int64_t MS = 1'000'000;
constexpr std::int64_t DEADLINE_NS = 40 * MS;
constexpr std::int64_t POLL_NS = 1 * MS;

struct Recorder {
    std::atomic<int> deadlineEvents{0};
    std::atomic<int> stageEvents{0};
    std::atomic<std::int64_t> detectedAt_ns{0};
    std::atomic<std::uint8_t> stage{0};
};

void onOverrun(void* context, const Overrun& overrun) noexcept {
    auto* r = static_cast<Recorder*>(context);
    if (overrun.kind == OverrunKind::CycleDeadline) {
        r->detectedAt_ns.store(platform::monotonicNow_ns());
        r->stage.store(static_cast<std::uint8_t>(overrun.stage));
        r->deadlineEvents.fetch_add(1);
    } else {
        r->stageEvents.fetch_add(1);
    }
}

WatchdogBudgets budgets() {
    WatchdogBudgets b;
    b.cycleDeadline_ns = DEADLINE_NS;
    b.stageBudget_ns[static_cast<std::size_t>(Stage::Intention)] = 10 * MS;
    return b;
}

TEST(Watchdog, OnTimeCyclesRaiseNothing) {
    Recorder recorder;
    Watchdog sut(budgets(), POLL_NS, &onOverrun, &recorder);
    sut.start();
    for (std::uint64_t cycle = 0; cycle < 5; ++cycle) {
        sut.beginCycle(cycle, platform::monotonicNow_ns());
        sut.beginStage(Stage::Intention, platform::monotonicNow_ns());
        platform::sleepUntil_ns(platform::monotonicNow_ns() + 2 * MS);
        sut.endCycle();
        EXPECT_FALSE(sut.deadlineMissed(cycle));
    }
    sut.stop();
    EXPECT_EQ(recorder.deadlineEvents.load(), 0);
    EXPECT_EQ(sut.deadlineMisses(), 0U);
}

TEST(Watchdog, StuckStageIsDetectedWhileItIsStillRunning) {
    Recorder recorder;
    Watchdog sut(budgets(), POLL_NS, &onOverrun, &recorder);
    sut.start();
    const std::int64_t start = platform::monotonicNow_ns();
    sut.beginCycle(7, start);
    sut.beginStage(Stage::Motion, start);
    // The "stage" keeps running well past the deadline; the watchdog must fire before it returns.
    while (recorder.deadlineEvents.load() == 0 && platform::monotonicNow_ns() - start < 10 * DEADLINE_NS) {
        platform::sleepUntil_ns(platform::monotonicNow_ns() + MS);
    }
    const std::int64_t detectedAfter = recorder.detectedAt_ns.load() - start;
    sut.endCycle();
    sut.stop();
    ASSERT_EQ(recorder.deadlineEvents.load(), 1);
    EXPECT_TRUE(sut.deadlineMissed(7));
    EXPECT_EQ(recorder.stage.load(), static_cast<std::uint8_t>(Stage::Motion));
    EXPECT_GE(detectedAfter, DEADLINE_NS);
    EXPECT_LT(detectedAfter, 2 * DEADLINE_NS);  // within one cycle of the deadline
}

TEST(Watchdog, StageOverBudgetIsCountedOncePerStage) {
    Recorder recorder;
    Watchdog sut(budgets(), POLL_NS, &onOverrun, &recorder);
    sut.start();
    sut.beginCycle(1, platform::monotonicNow_ns());
    sut.beginStage(Stage::Intention, platform::monotonicNow_ns());
    platform::sleepUntil_ns(platform::monotonicNow_ns() + 25 * MS);
    sut.beginStage(Stage::Motion, platform::monotonicNow_ns());
    sut.endCycle();
    sut.stop();
    EXPECT_EQ(sut.stageOverruns(Stage::Intention), 1U);
    EXPECT_EQ(recorder.stageEvents.load(), 1);
    EXPECT_EQ(sut.deadlineMisses(), 0U);
}

}  // namespace
}  // namespace augur::runtime
