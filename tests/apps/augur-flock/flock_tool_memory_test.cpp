// augur-flock on inputs whose dense grid would exceed the memory limit: the read is refused before the
// grid is allocated. This binary replaces the global operator new to record the largest single request,
// so "refused before allocation" is checked, not inferred from the absence of a crash.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <sstream>

#include "trajectory_csv.hpp"

namespace {

std::atomic<std::size_t> g_largestRequest{0};

void* allocate(std::size_t bytes) {
    std::size_t seen = g_largestRequest.load(std::memory_order_relaxed);
    while (bytes > seen && !g_largestRequest.compare_exchange_weak(seen, bytes, std::memory_order_relaxed)) {
    }
    if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) {
        return p;
    }
    throw std::bad_alloc();
}

}  // namespace

void* operator new(std::size_t bytes) { return allocate(bytes); }
void* operator new[](std::size_t bytes) { return allocate(bytes); }
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }

namespace augur::apps::flock {
namespace {

constexpr std::size_t MIB = std::size_t{1} << 20U;

TEST(FlockToolMemory, SparseStepRangeIsRefusedWithoutAllocatingItsGrid) {
    // Steps 0 and 10^9 of two entities: a 31.7 GiB grid from a four-line file.
    std::istringstream in("1,0,0,0\n2,0,1,0\n1,1000000000,0,0\n2,1000000000,1,0\n");
    g_largestRequest = 0;
    const auto sut = readTrajectories(in);
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().message,
              "steps 0 … 1000000000 × 2 entities need a dense grid of 31.7 GiB, over the memory limit of 16.0 GiB");
    EXPECT_LT(g_largestRequest.load(), MIB);
}

TEST(FlockToolMemory, GridJustOverAGivenLimitIsRefusedWithoutAllocatingIt) {
    // 2 entities × 40 steps × 17 bytes = 1,360 bytes against a limit of 1,000.
    constexpr double LIMIT_BYTES = 1000.0;
    std::istringstream in("1,0,0,0\n2,39,0,0\n");
    g_largestRequest = 0;
    const auto sut = readTrajectories(in, LIMIT_BYTES);
    ASSERT_TRUE(sut.hasError());
    EXPECT_TRUE(sut.error().overMemoryLimit);
    EXPECT_LT(g_largestRequest.load(), static_cast<std::size_t>(LIMIT_BYTES));
}

}  // namespace
}  // namespace augur::apps::flock
