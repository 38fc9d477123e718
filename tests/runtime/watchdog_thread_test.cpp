// The watchdog's own thread on the real clock: it notices a stage stuck past the cycle deadline while
// the stage is still running. The detection logic is tested in synthetic time (watchdog_test.cpp);
// this smoke test only proves the thread polls. Label `wall-clock`; it asserts no upper time bound.
#include "augur/runtime/watchdog.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "augur/platform/clock.hpp"

namespace augur::runtime {
namespace {

constexpr std::int64_t MS = 1'000'000;
constexpr std::int64_t DEADLINE_NS = 20 * MS;
constexpr std::int64_t POLL_NS = 1 * MS;
constexpr std::int64_t GIVE_UP_NS = 10'000 * MS;  ///< a bound for a broken watchdog, not a timing check

struct Recorder {
    std::atomic<int> deadlineEvents{0};
    std::atomic<std::int64_t> elapsed_ns{0};
    std::atomic<std::uint8_t> stage{0};
};

void onOverrun(void* context, const Overrun& overrun) noexcept {
    auto* r = static_cast<Recorder*>(context);
    if (overrun.kind == OverrunKind::CycleDeadline) {
        r->elapsed_ns.store(overrun.elapsed_ns);
        r->stage.store(static_cast<std::uint8_t>(overrun.stage));
        r->deadlineEvents.fetch_add(1);
    }
}

TEST(WatchdogThread, StuckStageIsDetectedWhileItIsStillRunning) {
    Recorder recorder;
    Watchdog sut(WatchdogBudgets{DEADLINE_NS, {}}, POLL_NS, &onOverrun, &recorder);
    sut.start();
    const std::int64_t start = platform::monotonicNow_ns();
    sut.beginCycle(7, start);
    sut.beginStage(Stage::Motion, start);
    // The "stage" keeps running until the watchdog thread has reported it.
    while (recorder.deadlineEvents.load() == 0 && platform::monotonicNow_ns() - start < GIVE_UP_NS) {
        platform::sleepUntil_ns(platform::monotonicNow_ns() + MS);
    }
    sut.endCycle();
    sut.stop();
    ASSERT_EQ(recorder.deadlineEvents.load(), 1);
    EXPECT_TRUE(sut.deadlineMissed(7));
    EXPECT_EQ(recorder.stage.load(), static_cast<std::uint8_t>(Stage::Motion));
    EXPECT_GT(recorder.elapsed_ns.load(), DEADLINE_NS);
}

}  // namespace
}  // namespace augur::runtime
