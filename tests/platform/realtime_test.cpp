#include "augur/platform/realtime.hpp"

#include <gtest/gtest.h>

#include <pthread.h>
#include <sched.h>

#include <cerrno>
#include <thread>
#include <vector>

namespace augur::platform {
namespace {

constexpr std::size_t STACK_BYTES = 256 * 1024;

TEST(Realtime, PrefaultStackSucceeds) { EXPECT_EQ(prefaultStack(STACK_BYTES).errnoValue, 0); }

TEST(Realtime, EmptyAffinityAndZeroPriorityChangeNothing) {
    EXPECT_EQ(pinCurrentThread({}).errnoValue, 0);
    EXPECT_EQ(setFifoPriority(0).errnoValue, 0);
}

TEST(Realtime, PinningToCoreZeroRestrictsTheThread) {
    std::thread worker([] {
        const std::vector<int> cores{0};
        ASSERT_EQ(pinCurrentThread(cores).errnoValue, 0);
        cpu_set_t set;
        CPU_ZERO(&set);
        ASSERT_EQ(pthread_getaffinity_np(pthread_self(), sizeof(set), &set), 0);
        EXPECT_EQ(CPU_COUNT(&set), 1);
        EXPECT_TRUE(CPU_ISSET(0, &set));
    });
    worker.join();
}

TEST(Realtime, InvalidCoreAndPriorityAreRejected) {
    const std::vector<int> cores{-1};
    EXPECT_EQ(pinCurrentThread(cores).errnoValue, EINVAL);
    EXPECT_EQ(setFifoPriority(1000).errnoValue, EINVAL);
}

TEST(Realtime, FifoPriorityIsAppliedOrRefusedWithAReason) {
    std::thread worker([] {
        const auto sut = setFifoPriority(10);
        if (sut.errnoValue == 0) {
            int policy = 0;
            sched_param param{};
            ASSERT_EQ(pthread_getschedparam(pthread_self(), &policy, &param), 0);
            EXPECT_EQ(policy, SCHED_FIFO);
            EXPECT_EQ(param.sched_priority, 10);
        } else {
            EXPECT_EQ(sut.errnoValue, EPERM) << describe(sut);
            EXPECT_NE(describe(sut).find("SCHED_FIFO"), std::string::npos);
        }
    });
    worker.join();
}

TEST(RealtimeSetup, ASetupNothingRefusesSucceedsWithoutWarnings) {
    RealtimeSetup setup{};
    setup.prefaultStack_bytes = STACK_BYTES;
    int warnings = 0;

    const auto sut = applyRealtimeSetup(setup, [&warnings](const RealtimeOutcome&) { ++warnings; });

    EXPECT_TRUE(sut.hasValue());
    EXPECT_EQ(warnings, 0);
}

TEST(RealtimeSetup, EachRefusedStepIsWarnedOfInOrderAndTheSetupSucceeds) {
    const std::vector<int> invalidCores{-1};
    constexpr int INVALID_PRIORITY = 1000;
    RealtimeSetup setup{};
    setup.cores = invalidCores;
    setup.fifoPriority = INVALID_PRIORITY;
    std::vector<RealtimeOutcome> warned;

    const auto sut = applyRealtimeSetup(setup, [&warned](const RealtimeOutcome& refused) { warned.push_back(refused); });

    EXPECT_TRUE(sut.hasValue());
    ASSERT_EQ(warned.size(), 2U);
    EXPECT_EQ(warned[0].step, RealtimeStep::CpuAffinity);
    EXPECT_EQ(warned[0].errnoValue, EINVAL);
    EXPECT_EQ(warned[1].step, RealtimeStep::SchedulerPriority);
    EXPECT_EQ(warned[1].errnoValue, EINVAL);
}

TEST(RealtimeSetup, TheFirstRefusedStepFailsTheSetupWithoutWarningsWhenAskedTo) {
    const std::vector<int> invalidCores{-1};
    constexpr int INVALID_PRIORITY = 1000;
    RealtimeSetup setup{};
    setup.cores = invalidCores;
    setup.fifoPriority = INVALID_PRIORITY;
    setup.failOnRefusal = true;
    int warnings = 0;

    const auto sut = applyRealtimeSetup(setup, [&warnings](const RealtimeOutcome&) { ++warnings; });

    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().step, RealtimeStep::CpuAffinity);
    EXPECT_EQ(sut.error().errnoValue, EINVAL);
    EXPECT_EQ(warnings, 0);
}

}  // namespace
}  // namespace augur::platform
