// GPU tests of the platform layer: device and pinned memory round trips, streams, events, graphs.
#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

#include "augur/platform/gpu_info.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"
#include "augur/testing/testing.hpp"

namespace augur::platform {
namespace {

constexpr std::size_t COUNT = 1 << 20;
constexpr unsigned SEED = 1234;

std::vector<float> randomFloats(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> dist(-100.0F, 100.0F);
    std::vector<float> v(n);
    for (auto& x : v) {
        x = dist(rng);
    }
    return v;
}

TEST(GpuInfo, ReportsTheDevice) {
    AUGUR_REQUIRE_GPU();
    const auto sut = queryGpu(0);
    ASSERT_TRUE(sut.hasValue()) << describe(sut.error());
    EXPECT_GT(sut->multiprocessors, 0);
    EXPECT_GE(sut->computeMajor, 7);
    EXPECT_GT(sut->globalMemory_bytes, 0U);
}

TEST(GpuInfo, CpuOnlyBuildReportsNoDevice) {
    if (cudaCompiledIn()) {
        GTEST_SKIP() << "CUDA compiled in";
    }
    EXPECT_EQ(gpuCount(), 0);
    EXPECT_TRUE(queryGpu(0).hasError());
    EXPECT_TRUE(DeviceBuffer<float>::create(16).hasError());
}

TEST(DeviceBuffer, RoundTripPreservesEveryElement) {
    AUGUR_REQUIRE_GPU();
    const auto input = randomFloats(COUNT, SEED);
    auto sut = DeviceBuffer<float>::create(COUNT);
    ASSERT_TRUE(sut.hasValue()) << describe(sut.error());
    ASSERT_TRUE(sut->upload(input).hasValue());
    std::vector<float> output(COUNT, -1.0F);
    ASSERT_TRUE(sut->download(output).hasValue());
    auto stream = Stream::create();
    ASSERT_TRUE(stream.hasValue());
    ASSERT_TRUE(AUGUR_CUDA_CHECK(0).hasValue());
    EXPECT_EQ(output, input);
}

TEST(PinnedMemory, MappedAllocationHasDevicePointer) {
    AUGUR_REQUIRE_GPU();
    auto sut = PinnedMemory::allocate(4096, true);
    ASSERT_TRUE(sut.hasValue()) << describe(sut.error());
    EXPECT_NE(sut->get(), nullptr);
    EXPECT_NE(sut->devicePointer(), nullptr);
}

TEST(PinnedMemory, AsyncCopyThroughPinnedBuffersOnStream) {
    AUGUR_REQUIRE_GPU();
    const auto input = randomFloats(COUNT, SEED + 1);
    auto hostIn = PinnedMemory::allocate(COUNT * sizeof(float), false);
    auto hostOut = PinnedMemory::allocate(COUNT * sizeof(float), false);
    auto device = DeviceMemory::allocate(COUNT * sizeof(float));
    auto stream = Stream::create(StreamPriority::High);
    ASSERT_TRUE(hostIn && hostOut && device && stream);
    std::copy(input.begin(), input.end(), static_cast<float*>(hostIn->get()));
    ASSERT_TRUE(copyToDevice(device->get(), hostIn->get(), device->bytes(), stream->get()).hasValue());
    ASSERT_TRUE(copyToHost(hostOut->get(), device->get(), device->bytes(), stream->get()).hasValue());
    auto done = Event::create(false);
    ASSERT_TRUE(done.hasValue());
    ASSERT_TRUE(done->record(stream->get()).hasValue());
    ASSERT_TRUE(done->synchronize().hasValue());
    const auto state = done->query();
    ASSERT_TRUE(state.hasValue());
    EXPECT_EQ(*state, EventState::Complete);
    const float* out = static_cast<const float*>(hostOut->get());
    EXPECT_TRUE(std::equal(input.begin(), input.end(), out));
}

TEST(CudaCheck, InvalidCallIsReportedNotFatal) {
    AUGUR_REQUIRE_GPU();
    // Copying from an invalid device pointer must come back as an error value.
    float host = 0.0F;
    const auto sut = copyToHost(&host, reinterpret_cast<const void*>(0x10), sizeof(float), nullptr);
    ASSERT_TRUE(sut.hasError());
    EXPECT_NE(describe(sut.error()).find("cudaMemcpyAsync"), std::string::npos);
}

}  // namespace
}  // namespace augur::platform
