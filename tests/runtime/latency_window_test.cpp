#include "augur/runtime/latency_window.hpp"

#include <gtest/gtest.h>

namespace augur::runtime {
namespace {

constexpr std::size_t WINDOW = 100;

TEST(LatencyWindow, EmptyWindowReportsZeros) {
    const LatencyWindow sut(WINDOW);
    const auto stats = sut.stats();
    EXPECT_EQ(stats.p50_us, 0.0F);
    EXPECT_EQ(stats.max_us, 0.0F);
}

TEST(LatencyWindow, SingleSampleIsEveryPercentile) {
    LatencyWindow sut(WINDOW);
    sut.record(42.0F);
    const auto stats = sut.stats();
    EXPECT_EQ(stats.p50_us, 42.0F);
    EXPECT_EQ(stats.p99_us, 42.0F);
    EXPECT_EQ(stats.max_us, 42.0F);
    EXPECT_EQ(stats.last_us, 42.0F);
}

TEST(LatencyWindow, NearestRankPercentilesOfOneToHundred) {
    LatencyWindow sut(WINDOW);
    for (int i = 100; i >= 1; --i) {  // reverse order: stats must not depend on it
        sut.record(static_cast<float>(i));
    }
    const auto stats = sut.stats();
    EXPECT_EQ(stats.p50_us, 50.0F);
    EXPECT_EQ(stats.p99_us, 99.0F);
    EXPECT_EQ(stats.max_us, 100.0F);
    EXPECT_EQ(stats.last_us, 1.0F);
}

TEST(LatencyWindow, OldSamplesLeaveTheWindow) {
    LatencyWindow sut(4);
    sut.record(1000.0F);
    for (int i = 0; i < 4; ++i) {
        sut.record(10.0F);
    }
    EXPECT_EQ(sut.size(), 4U);
    EXPECT_EQ(sut.stats().max_us, 10.0F);
}

}  // namespace
}  // namespace augur::runtime
