// A prediction with a full occupancy grid through Cyclone DDS in one process (writer and reader on the
// loopback interface): the reader's take deserialises into the SampleSet's own buffers, without
// allocating on the taking thread.
#include <gtest/gtest.h>

#include <dds/dds.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "augur/bridge/dds_messages.hpp"
#include "augur/testing/allocation_counter.hpp"

namespace augur::bridge {
namespace {

/// A domain of its own, away from the default 0 of other DDS programs on the machine.
constexpr dds_domainid_t TEST_DOMAIN = 42;
constexpr int WAIT_STEPS = 500;  // 10 ms each: discovery and delivery bounds, not timing assertions

class DdsLoopback : public ::testing::Test {
protected:
    void SetUp() override {
        const std::string uri = std::string("file://") + AUGUR_SOURCE_DIR + "/config/cyclonedds-loopback.xml";
        ::setenv("CYCLONEDDS_URI", uri.c_str(), 1);
        m_participant = dds_create_participant(TEST_DOMAIN, nullptr, nullptr);
        ASSERT_GT(m_participant, 0) << dds_strretcode(m_participant);
        const dds_entity_t topic = dds_create_topic(m_participant, &augur_msg_dds__MotionPrediction__desc,
                                                    "rt/augur_test/prediction", nullptr, nullptr);
        ASSERT_GT(topic, 0);
        dds_qos_t* qos = dds_create_qos();
        dds_qset_reliability(qos, DDS_RELIABILITY_RELIABLE, DDS_MSECS(100));
        dds_qset_history(qos, DDS_HISTORY_KEEP_LAST, 4);
        m_writer = dds_create_writer(m_participant, topic, qos, nullptr);
        m_reader = dds_create_reader(m_participant, topic, qos, nullptr);
        dds_delete_qos(qos);
        ASSERT_GT(m_writer, 0);
        ASSERT_GT(m_reader, 0);
    }
    void TearDown() override {
        if (m_participant > 0) {
            dds_delete(m_participant);
        }
    }

    /// Takes one sample into `sample` (valid data only), waiting up to WAIT_STEPS · 10 ms.
    bool takeInto(augur_msg_dds__MotionPrediction_& sample) {
        for (int i = 0; i < WAIT_STEPS; ++i) {
            void* buffer[1] = {&sample};
            dds_sample_info_t info{};
            if (dds_take(m_reader, buffer, &info, 1, 1) > 0 && info.valid_data) {
                return true;
            }
            dds_sleepfor(DDS_MSECS(10));
        }
        return false;
    }

    dds_entity_t m_participant{0};
    dds_entity_t m_writer{0};
    dds_entity_t m_reader{0};
};

std::unique_ptr<MotionPrediction> fullPrediction(std::uint64_t sequence) {
    auto p = std::make_unique<MotionPrediction>();
    p->header = {MESSAGE_SCHEMA_VERSION, 0, sequence, 5};
    p->step_s = 0.1F;
    p->horizonSteps = static_cast<std::uint32_t>(MAX_HORIZON_STEPS);
    p->vehicleCount = static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES);
    for (std::uint32_t v = 0; v < MAX_PREDICTED_VEHICLES; ++v) {
        p->vehicles[v].trackId = v;
        p->vehicles[v].corridorCount = static_cast<std::uint32_t>(MAX_CORRIDORS_PER_VEHICLE);
        for (std::uint32_t c = 0; c < MAX_CORRIDORS_PER_VEHICLE; ++c) {
            for (std::uint32_t k = 0; k < MAX_HORIZON_STEPS; ++k) {
                p->vehicles[v].corridors[c].points[k].x_m = static_cast<float>(v * 1000 + c * 100 + k);
            }
        }
    }
    OccupancyGrid& grid = p->grid;
    grid.widthCells = grid.heightCells = static_cast<std::uint32_t>(MAX_GRID_SIDE_CELLS);
    grid.frameCount = static_cast<std::uint32_t>(MAX_GRID_FRAMES);
    grid.resolution_m = 0.5F;
    for (std::uint32_t f = 0; f < MAX_GRID_FRAMES; ++f) {
        for (std::uint32_t i = 0; i < MAX_GRID_SIDE_CELLS * MAX_GRID_SIDE_CELLS; ++i) {
            grid.cells[f][i] = static_cast<std::uint16_t>(sequence + f + i);
        }
    }
    return p;
}

TEST_F(DdsLoopback, TakeFillsThePreallocatedBuffersWithoutAllocating) {
    SampleSet sent;
    SampleSet sut;
    const auto* vehiclesBefore = sut.prediction.vehicles._buffer;
    const auto* pointsBefore = sut.prediction.vehicles._buffer[63].corridors._buffer[7].x_m._buffer;
    const auto* cellsBefore = sut.prediction.grid.cells._buffer;
    auto first = fullPrediction(1);
    auto second = fullPrediction(2);
    auto output = std::make_unique<MotionPrediction>();
    ConversionError error{};
    toDds(*first, sent.prediction);
    ASSERT_EQ(dds_write(m_writer, &sent.prediction), DDS_RETCODE_OK);
    ASSERT_TRUE(takeInto(sut.prediction));
    toDds(*second, sent.prediction);
    ASSERT_EQ(dds_write(m_writer, &sent.prediction), DDS_RETCODE_OK);
    for (int i = 0; i < WAIT_STEPS; ++i) {  // wait until the second sample is in the reader's cache
        dds_sleepfor(DDS_MSECS(10));
        void* peek[1] = {nullptr};
        dds_sample_info_t info{};
        const dds_return_t n = dds_read(m_reader, peek, &info, 1, 1);
        if (n > 0) {
            dds_return_loan(m_reader, peek, n);
            break;
        }
    }

    bool taken = false;
    const std::uint64_t allocations = testing::threadAllocationsDuring([&] { taken = takeInto(sut.prediction); });

    ASSERT_TRUE(taken);
    EXPECT_EQ(allocations, 0U);
    EXPECT_EQ(sut.prediction.vehicles._buffer, vehiclesBefore);
    EXPECT_EQ(sut.prediction.vehicles._buffer[63].corridors._buffer[7].x_m._buffer, pointsBefore);
    EXPECT_EQ(sut.prediction.grid.cells._buffer, cellsBefore);
    ASSERT_TRUE(fromDds(sut.prediction, *output, error)) << toString(error);
    EXPECT_EQ(output->header.sequence, 2U);
    EXPECT_EQ(output->vehicles[63].corridors[7].points[39].x_m, 63'739.0F);
    constexpr std::uint32_t LAST_CELL = MAX_GRID_SIDE_CELLS * MAX_GRID_SIDE_CELLS - 1;
    EXPECT_EQ(output->grid.frameCount, MAX_GRID_FRAMES);
    EXPECT_EQ(output->grid.cells[MAX_GRID_FRAMES - 1][LAST_CELL],
              static_cast<std::uint16_t>(2 + (MAX_GRID_FRAMES - 1) + LAST_CELL));
}

}  // namespace
}  // namespace augur::bridge
