#include "augur/runtime/trace.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "augur/runtime/trace_writer.hpp"

namespace augur::runtime {
namespace {

constexpr std::size_t CAPACITY = 4;
constexpr int PID = 7;

TraceRecord stageRecord(std::uint64_t cycle, std::int64_t begin_ns, std::int64_t end_ns, Stage stage) {
    TraceRecord r{};
    r.kind = TraceRecordKind::Stage;
    r.cycle = cycle;
    r.begin_ns = begin_ns;
    r.end_ns = end_ns;
    r.stage = stage;
    return r;
}

std::string readFile(const std::string& path) {
    std::ifstream file(path);
    std::stringstream text;
    text << file.rdbuf();
    return text.str();
}

TEST(TraceBuffer, KeepsRecordsInOrderUpToItsCapacity) {
    TraceBuffer sut(CAPACITY);
    for (std::uint64_t cycle = 0; cycle < CAPACITY; ++cycle) {
        ASSERT_TRUE(sut.push(stageRecord(cycle, 0, 1, Stage::Track)));
    }
    TraceRecord out;
    for (std::uint64_t cycle = 0; cycle < CAPACITY; ++cycle) {
        ASSERT_TRUE(sut.pop(out));
        EXPECT_EQ(out.cycle, cycle);
    }
    EXPECT_FALSE(sut.pop(out)) << "empty";
    EXPECT_EQ(sut.dropped(), 0U);
}

TEST(TraceBuffer, AFullRingDropsTheNewRecordAndCountsIt) {
    TraceBuffer sut(CAPACITY);
    for (std::uint64_t cycle = 0; cycle < CAPACITY; ++cycle) {
        ASSERT_TRUE(sut.push(stageRecord(cycle, 0, 1, Stage::Track)));
    }

    EXPECT_FALSE(sut.push(stageRecord(99, 0, 1, Stage::Track)));
    EXPECT_FALSE(sut.push(stageRecord(100, 0, 1, Stage::Track)));

    EXPECT_EQ(sut.dropped(), 2U);
    TraceRecord out;
    ASSERT_TRUE(sut.pop(out));
    EXPECT_EQ(out.cycle, 0U) << "the oldest is kept: nothing is overwritten";
    EXPECT_TRUE(sut.push(stageRecord(101, 0, 1, Stage::Track))) << "room again after a pop";
}

TEST(TraceBuffer, CapacityRoundsUpToAPowerOfTwo) {
    EXPECT_EQ(TraceBuffer(5).capacity(), 8U);
    EXPECT_EQ(TraceBuffer(0).capacity(), 2U);
    EXPECT_EQ(TraceBuffer(4096).capacity(), 4096U);
}

TEST(TraceBuffer, OneProducerAndOneConsumerThreadPassEveryRecordInOrder) {
    constexpr std::uint64_t RECORDS = 200'000;
    TraceBuffer sut(64);
    std::thread producer([&sut] {
        for (std::uint64_t i = 0; i < RECORDS;) {
            if (sut.push(stageRecord(i, static_cast<std::int64_t>(i), static_cast<std::int64_t>(i) + 1, Stage::Motion))) {
                ++i;
            } else {
                std::this_thread::yield();
            }
        }
    });
    std::uint64_t expected = 0;
    bool inOrder = true;
    TraceRecord out;
    while (expected < RECORDS) {
        if (sut.pop(out)) {
            inOrder = inOrder && out.cycle == expected && out.end_ns == static_cast<std::int64_t>(expected) + 1;
            ++expected;
        } else {
            std::this_thread::yield();
        }
    }
    producer.join();
    EXPECT_TRUE(inOrder);
    EXPECT_FALSE(sut.pop(out));
}

TEST(TraceFormat, AStageIsASliceOnTheCycleThreadInMicroseconds) {
    char text[512];
    const std::size_t n = formatTraceEvents(stageRecord(9, 1'000'001'234, 1'000'501'234, Stage::Intention), PID, text,
                                            sizeof(text));
    EXPECT_EQ(std::string(text, n),
              ",\n{\"name\":\"intention\",\"cat\":\"stage\",\"ph\":\"X\",\"pid\":7,\"tid\":1,\"ts\":1000001.234,"
              "\"dur\":500.000,\"args\":{\"cycle\":9}}");
}

TEST(TraceFormat, GpuWorkIsOnItsOwnTrack) {
    TraceRecord r = stageRecord(3, 2'000, 5'000, Stage::Motion);
    r.kind = TraceRecordKind::Gpu;
    char text[512];
    const std::string json(text, formatTraceEvents(r, PID, text, sizeof(text)));
    EXPECT_NE(json.find("\"name\":\"motion gpu\",\"cat\":\"gpu\",\"ph\":\"X\",\"pid\":7,\"tid\":2,"), std::string::npos)
        << json;
}

TEST(TraceFormat, AModeChangeIsAProcessInstantNamingBothModes) {
    TraceRecord r{};
    r.kind = TraceRecordKind::ModeChange;
    r.begin_ns = 5'000;
    r.cycle = 12;
    r.from = RuntimeMode::Nominal;
    r.to = RuntimeMode::ReducedParticles;
    char text[512];
    const std::string json(text, formatTraceEvents(r, PID, text, sizeof(text)));
    EXPECT_EQ(json, ",\n{\"name\":\"mode reduced_particles\",\"cat\":\"mode\",\"ph\":\"i\",\"s\":\"p\",\"pid\":7,"
                    "\"tid\":1,\"ts\":5.000,\"args\":{\"cycle\":12,\"from\":\"nominal\",\"to\":\"reduced_particles\"}}");
}

TEST(TraceFormat, CountersWithoutInputYetLeaveTheInputAgeOut) {
    TraceRecord r{};
    r.kind = TraceRecordKind::Counters;
    r.begin_ns = 1'000;
    r.count = 8;
    r.count2 = 256;
    r.value = -1;
    char text[1024];
    const std::string withoutInput(text, formatTraceEvents(r, PID, text, sizeof(text)));
    r.value = 12'345'678;  // 12.345678 ms
    const std::string withInput(text, formatTraceEvents(r, PID, text, sizeof(text)));

    EXPECT_NE(withoutInput.find("{\"name\":\"vehicles\",\"ph\":\"C\",\"pid\":7,\"ts\":1.000,\"args\":{\"value\":8.000}}"),
              std::string::npos)
        << withoutInput;
    EXPECT_NE(withoutInput.find("\"particles per vehicle\""), std::string::npos);
    EXPECT_EQ(withoutInput.find("input age"), std::string::npos);
    EXPECT_NE(withInput.find("{\"name\":\"input age ms\",\"ph\":\"C\",\"pid\":7,\"ts\":1.000,\"args\":{\"value\":12.345}}"),
              std::string::npos)
        << withInput;
}

TEST(TraceFormat, EventsThatDoNotFitAreNotWritten) {
    char text[16];
    EXPECT_EQ(formatTraceEvents(stageRecord(1, 0, 1, Stage::Track), PID, text, sizeof(text)), 0U);
}

TEST(TraceWriter, WritesAsItGoesAndEveryFlushEndsAtAnEventBoundary) {
    const std::string path = ::testing::TempDir() + "augur_trace_writer_test.json";
    TraceWriterSettings settings{};
    settings.poll_ns = 1'000'000;
    auto opened = TraceWriter::open(path, settings);
    ASSERT_TRUE(opened.hasValue()) << opened.error();
    TraceWriter& sut = *opened.value();

    ASSERT_TRUE(sut.cycleBuffer().push(stageRecord(1, 1'000, 2'000, Stage::Ingest)));
    std::string partial;
    for (int attempt = 0; attempt < 2000 && partial.find("\"ingest\"") == std::string::npos; ++attempt) {
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
        partial = readFile(path);
    }

    ASSERT_NE(partial.find("\"ingest\""), std::string::npos) << "written before close: " << partial;
    EXPECT_EQ(partial.rfind("[\n{\"name\":\"process_name\"", 0), 0U) << partial;
    EXPECT_EQ(partial.back(), '}') << "a cut-off file needs only the closing bracket";
    EXPECT_NE(partial.find("\"thread_name\",\"ph\":\"M\",\"pid\":"), std::string::npos);
    EXPECT_EQ(partial.find("\"gpu\""), std::string::npos) << "no GPU track before GPU work";

    TraceRecord gpu = stageRecord(1, 1'200, 1'800, Stage::Motion);
    gpu.kind = TraceRecordKind::Gpu;
    ASSERT_TRUE(sut.cycleBuffer().push(gpu));
    const TraceTotals totals = sut.close();
    const std::string closed = readFile(path);
    EXPECT_EQ(closed.substr(closed.size() - 3), "\n]\n");
    EXPECT_NE(closed.find("\"args\":{\"name\":\"gpu\"}"), std::string::npos) << "the GPU track named with its first slice";
    EXPECT_EQ(totals.events, 6U);  // process, cycle and watchdog thread names, ingest, GPU track name, GPU slice
    EXPECT_EQ(totals.dropped, 0U);
    std::remove(path.c_str());
}

TEST(TraceWriter, AnUnwritablePathIsAnErrorNamingIt) {
    const auto result = TraceWriter::open("/nonexistent-dir/trace.json", TraceWriterSettings{});
    ASSERT_TRUE(result.hasError());
    EXPECT_NE(result.error().find("/nonexistent-dir/trace.json"), std::string::npos);
}

}  // namespace
}  // namespace augur::runtime
