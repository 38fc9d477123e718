#include "augur/runtime/trace.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace augur::runtime {
namespace {

constexpr std::size_t CAPACITY = 3;

TEST(TraceRing, KeepsTheNewestEventsInOrder) {
    TraceRing sut(CAPACITY);
    for (std::uint64_t cycle = 0; cycle < 5; ++cycle) {
        sut.record({cycle, 0, 1, Stage::Track, TraceTrack::Cpu});
    }
    ASSERT_EQ(sut.size(), CAPACITY);
    EXPECT_EQ(sut.at(0).cycle, 2U);
    EXPECT_EQ(sut.at(2).cycle, 4U);
}

TEST(TraceRing, WritesChromeTraceJson) {
    TraceRing sut(CAPACITY);
    sut.record({9, 1'000'000, 1'500'000, Stage::Intention, TraceTrack::Gpu});
    const std::string path = ::testing::TempDir() + "augur_trace_test.json";
    ASSERT_TRUE(sut.writeChromeTrace(path).hasValue());
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    const std::string json = text.str();
    EXPECT_NE(json.find("\"traceEvents\""), std::string::npos);
    EXPECT_NE(json.find("\"name\":\"intention\",\"cat\":\"gpu\",\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1000.000,"
                        "\"dur\":500.000"),
              std::string::npos)
        << json;
    EXPECT_NE(json.find("\"cycle\":9"), std::string::npos);
    std::remove(path.c_str());
}

TEST(TraceRing, UnwritablePathIsAnError) {
    const TraceRing sut(CAPACITY);
    const auto result = sut.writeChromeTrace("/nonexistent-dir/trace.json");
    ASSERT_TRUE(result.hasError());
    EXPECT_NE(result.error().find("/nonexistent-dir/trace.json"), std::string::npos);
}

}  // namespace
}  // namespace augur::runtime
