// SM partitions (CUDA green contexts): what create() reports without a device, the error text, and, on a
// GPU that supports them, that streams go into the partition and the SM count follows it.
#include "augur/platform/sm_partition.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "augur/platform/gpu_info.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"
#include "augur/testing/testing.hpp"

namespace augur::platform {
namespace {

constexpr int PARTITION_SMS = 8;  // the smallest sm_90 partition, a multiple of every architecture's granularity

TEST(SmPartition, WithoutADeviceCreateSaysThereIsNone) {
    if (gpuCount() > 0) {
        GTEST_SKIP() << "a CUDA device is present";
    }
    const auto sut = SmPartition::create(PARTITION_SMS);

    ASSERT_FALSE(sut.hasValue());
    EXPECT_EQ(sut.error().fault, SmPartitionFault::NoCuda);
    EXPECT_FALSE(smPartitionActive());
}

TEST(SmPartition, ABadCountNamesTheDeviceLimits) {
    SmPartitionError error;
    error.fault = SmPartitionFault::BadCount;
    error.requested = 12;
    error.granted = 16;
    error.available = 132;
    error.minimum = 8;
    error.granularity = 8;

    const std::string sut = describe(error);

    EXPECT_NE(sut.find("partition of 12 SMs"), std::string::npos) << sut;
    EXPECT_NE(sut.find("offered 16"), std::string::npos) << sut;
    EXPECT_NE(sut.find("132 SMs"), std::string::npos) << sut;
    EXPECT_NE(sut.find("multiples of 8"), std::string::npos) << sut;
}

TEST(SmPartition, UnsupportedSaysGreenContextsAreMissing) {
    SmPartitionError error;
    error.fault = SmPartitionFault::Unsupported;
    error.requested = PARTITION_SMS;
    error.gpu = GpuError{801, "cuDeviceGetDevResource", "x.cpp", 1, GpuApi::Driver};

    const std::string sut = describe(error);

    EXPECT_NE(sut.find("green contexts are not supported"), std::string::npos) << sut;
}

TEST(SmPartition, StreamsAndTheSmCountFollowAnActivePartition) {
    AUGUR_REQUIRE_GPU();
    const auto device = activeMultiprocessors();
    ASSERT_TRUE(device.hasValue()) << describe(device.error());
    {
        auto sut = SmPartition::create(PARTITION_SMS);
        if (!sut && sut.error().fault == SmPartitionFault::Unsupported) {
            GTEST_SKIP() << describe(sut.error());
        }
        ASSERT_TRUE(sut.hasValue()) << describe(sut.error());
        EXPECT_TRUE(smPartitionActive());
        EXPECT_EQ(activeMultiprocessors().value(), PARTITION_SMS);
        EXPECT_EQ(SmPartition::create(PARTITION_SMS).error().fault, SmPartitionFault::AlreadyActive);

        auto stream = Stream::create(StreamPriority::High);
        ASSERT_TRUE(stream.hasValue()) << describe(stream.error());
        EXPECT_TRUE(stream->synchronize().hasValue());
    }  // the stream, then the partition
    EXPECT_FALSE(smPartitionActive());
    EXPECT_EQ(activeMultiprocessors().value(), device.value());
}

/// A partition of PARTITION_SMS, or a skip where the device or driver has none.
#define AUGUR_SM_PARTITION_OR_SKIP(name)                                                   \
    AUGUR_REQUIRE_GPU();                                                                  \
    auto name = SmPartition::create(PARTITION_SMS);                                       \
    if (!name && name.error().fault == SmPartitionFault::Unsupported) {                   \
        GTEST_SKIP() << describe(name.error());                                           \
    }                                                                                     \
    ASSERT_TRUE(name.hasValue()) << describe(name.error())

// The runtime's GPU lanes record events made in the primary context on their streams.
TEST(SmPartition, EventsRecordAndCompleteOnAPartitionStream) {
    AUGUR_SM_PARTITION_OR_SKIP(partition);
    auto stream = Stream::create(StreamPriority::High);
    ASSERT_TRUE(stream.hasValue()) << describe(stream.error());
    auto sut = Event::create(false);
    ASSERT_TRUE(sut.hasValue()) << describe(sut.error());

    const auto recorded = sut->record(stream->get());

    ASSERT_TRUE(recorded.hasValue()) << describe(recorded.error());
    EXPECT_TRUE(sut->synchronize().hasValue());
}

// The stages capture their work once at init and replay the graph every cycle.
TEST(SmPartition, GraphsCapturedOnAPartitionStreamReplayThere) {
    AUGUR_SM_PARTITION_OR_SKIP(partition);
    auto stream = Stream::create(StreamPriority::High);
    ASSERT_TRUE(stream.hasValue()) << describe(stream.error());
    auto buffer = DeviceBuffer<int>::create(1024);
    ASSERT_TRUE(buffer.hasValue());
    int* data = buffer->data();
    auto sut = Graph::capture(stream->get(), [data](StreamHandle s) { return fillDevice(data, 1, 1024 * sizeof(int), s); });
    ASSERT_TRUE(sut.hasValue()) << describe(sut.error());

    const auto launched = sut->launch(stream->get());

    ASSERT_TRUE(launched.hasValue()) << describe(launched.error());
    std::vector<int> host(1024, 0);
    ASSERT_TRUE(buffer->download(host, stream->get()).hasValue());
    ASSERT_TRUE(stream->synchronize().hasValue());
    EXPECT_EQ(host[0], 0x01010101);
    EXPECT_EQ(host[1023], 0x01010101);
}

}  // namespace
}  // namespace augur::platform
