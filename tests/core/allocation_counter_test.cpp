// The allocation counter must fire before any "zero allocations" claim built on it can be believed.
#include "augur/testing/allocation_counter.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "augur/core/fixed_vector.hpp"
#include "augur/core/message_validation.hpp"

namespace augur {
namespace {

// Pointers stored here escape, so the compiler may not elide an allocation/deallocation pair.
void* volatile g_sink = nullptr;

TEST(AllocationCounter, CountsOperatorNew) {
    const auto sut = testing::allocationsDuring([] {
        auto p = std::make_unique<int>(3);
        g_sink = p.get();
    });
    EXPECT_EQ(sut, 1U);
}

TEST(AllocationCounter, CountsMallocAndContainerGrowth) {
    const auto sut = testing::allocationsDuring([] {
        g_sink = std::malloc(64);
        std::free(g_sink);
        std::vector<int> v;
        v.reserve(100);
    });
    EXPECT_EQ(sut, 2U);
}

TEST(AllocationCounter, CountsAllocationsOnOtherThreads) {
    std::uint64_t sut = 0;
    std::thread worker;
    const std::uint64_t before = testing::allocationCount();
    worker = std::thread([] { std::string s(1000, 'x'); (void)s; });
    worker.join();
    sut = testing::allocationCount() - before;
    EXPECT_GE(sut, 2U);  // the thread's state and the string
}

TEST(AllocationCounter, FixedCapacityCodeAllocatesNothing) {
    auto list = std::make_unique<ObjectList>();
    list->objectCount = 3;
    for (std::uint32_t i = 0; i < 3; ++i) {
        list->objects[i].id = i + 1;
        list->objects[i].stdX_m = list->objects[i].stdY_m = 0.1F;
        list->objects[i].stdHeading_rad = list->objects[i].stdSpeed_mps = 0.1F;
    }
    auto out = std::make_unique<ObjectList>();
    const auto sut = testing::allocationsDuring([&] {
        FixedVector<int, 16> v;
        for (int i = 0; i < 16; ++i) {
            (void)v.pushBack(i);
        }
        ObjectListGate gate{ObjectListLimits{}};
        EXPECT_EQ(gate.admit(*list, 0, *out).reason, RejectReason::None);
    });
    EXPECT_EQ(sut, 0U);
}

}  // namespace
}  // namespace augur
