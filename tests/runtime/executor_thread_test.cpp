// The executor on the real clock with its watchdog thread running: a periodic loop whose middle cycle
// hangs in a stage until the watchdog thread flags it. The schedule and the ladder are tested in
// synthetic time (executor_test.cpp); this smoke test proves the parts meet on real threads. Label
// `wall-clock`; it asserts no upper time bound.
#include "augur/runtime/executor.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "augur/platform/clock.hpp"

namespace augur::runtime {
namespace {

constexpr std::int64_t MS = 1'000'000;
constexpr std::int64_t PERIOD_NS = 20 * MS;
constexpr std::int64_t GIVE_UP_NS = 10'000 * MS;  ///< a bound for a broken watchdog, not a timing check
constexpr std::uint64_t CYCLES = 3;
constexpr std::uint64_t STUCK_CYCLE = 1;

/// Hangs on STUCK_CYCLE until the executor's watchdog thread has flagged the cycle.
class HangingStage : public StageRunner {
public:
    StageStatus run(CycleContext& context) noexcept override {
        if (context.cycle == STUCK_CYCLE) {
            while (!executor->watchdog().deadlineMissed(context.cycle) &&
                   platform::monotonicNow_ns() - context.start_ns < GIVE_UP_NS) {
                platform::sleepUntil_ns(platform::monotonicNow_ns() + MS);
            }
        }
        return StageStatus::Ok;
    }
    const Executor* executor{nullptr};
};

TEST(ExecutorThread, WatchdogThreadFlagsAHangingCycleAndTheLoopKeepsItsPeriod) {
    ExecutorSettings settings;
    settings.period_ns = PERIOD_NS;
    settings.deadline_ns = PERIOD_NS;
    settings.healthWindowCycles = 8;
    Executor sut(settings, nullptr, nullptr);
    HangingStage motion;
    motion.executor = &sut;
    sut.setStage(Stage::Motion, &motion);
    sut.start();

    std::atomic<bool> stop{false};
    std::vector<CycleReport> reports;
    std::vector<std::int64_t> ends;
    reports.reserve(CYCLES);
    ends.reserve(CYCLES);
    const std::int64_t t0 = platform::monotonicNow_ns();
    sut.runLoop(stop, CYCLES, [] { return false; }, [&](const CycleReport& report) {
        reports.push_back(report);
        ends.push_back(platform::monotonicNow_ns());
    });
    sut.stop();

    ASSERT_EQ(reports.size(), CYCLES);
    EXPECT_TRUE(sut.watchdog().deadlineMissed(STUCK_CYCLE));
    EXPECT_TRUE(reports[STUCK_CYCLE].deadlineMissed);
    EXPECT_GT(reports[STUCK_CYCLE].latency_ns, PERIOD_NS);
    EXPECT_GE(sut.deadlineMisses(), 1U);
    EXPECT_GE(sut.skippedPeriods(), 1U) << "the hang overran into the next period";
    for (std::uint64_t k = 1; k < CYCLES; ++k) {
        EXPECT_GE(ends[k] - t0, static_cast<std::int64_t>(k) * PERIOD_NS) << "cycles are spaced by the period";
    }
}

}  // namespace
}  // namespace augur::runtime
