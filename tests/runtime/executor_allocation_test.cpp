// The executor's cycle allocates nothing, traced or not: counted over 1000 cycles (the counter is proven to fire in
// tests/core/allocation_counter_test.cpp).
#include <gtest/gtest.h>

#include "augur/platform/clock.hpp"
#include "augur/runtime/executor.hpp"
#include "augur/testing/allocation_counter.hpp"

namespace augur::runtime {
namespace {

constexpr int CYCLES = 1000;

class CountingStage : public StageRunner {
public:
    StageStatus run(CycleContext& context) noexcept override {
        sum += context.cycle;
        return StageStatus::Ok;
    }
    std::uint64_t sum{0};
};

TEST(ExecutorAllocation, SteadyStateCyclesAllocateNothing) {
    ExecutorSettings settings;
    settings.healthWindowCycles = 64;
    Executor sut(settings, nullptr, nullptr);
    // A trace ring smaller than the records pushed: the steady state includes dropping and counting.
    TraceBuffer trace(256);
    sut.setTrace(&trace);
    std::array<CountingStage, STAGE_COUNT> stages;
    for (std::size_t i = 0; i < STAGE_COUNT; ++i) {
        sut.setStage(static_cast<Stage>(i), &stages[i]);
    }
    sut.start();
    (void)sut.runCycle(platform::monotonicNow_ns());  // warm-up
    const auto allocations = testing::allocationsDuring([&] {
        for (int i = 0; i < CYCLES; ++i) {
            (void)sut.runCycle(platform::monotonicNow_ns());
            (void)sut.cycleLatency();
        }
    });
    sut.stop();
    EXPECT_EQ(allocations, 0U);
    EXPECT_EQ(sut.cycles(), static_cast<std::uint64_t>(CYCLES + 1));
    EXPECT_GT(trace.dropped(), 0U) << "the cycles were traced into the full ring";
}

}  // namespace
}  // namespace augur::runtime
