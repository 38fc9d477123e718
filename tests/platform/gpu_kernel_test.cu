// A real kernel through the whole path: nvcc build, launch check, stream, graph capture and replay.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <cmath>
#include <vector>

#include "augur/platform/cuda_check.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"
#include "augur/testing/testing.hpp"

namespace augur::platform {
namespace {

constexpr int COUNT = 100'003;  // not a multiple of the block size
constexpr float SCALE = 3.0F;
constexpr int REPLAYS = 4;

__global__ void scaleAdd(float* data, int n, float scale) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        data[i] = fmaf(data[i], scale, 1.0F);  // explicit FMA: the host expectation uses std::fma
    }
}

GpuStatus enqueueScaleAdd(float* data, StreamHandle stream) {
    scaleAdd<<<(COUNT + 255) / 256, 256, 0, stream>>>(data, COUNT, SCALE);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

std::vector<float> ramp() {
    std::vector<float> v(COUNT);
    for (int i = 0; i < COUNT; ++i) {
        v[i] = 0.001F * static_cast<float>(i % 1000) - 0.5F;
    }
    return v;
}

TEST(GpuKernel, LaunchComputesEveryElement) {
    AUGUR_REQUIRE_GPU();
    const auto input = ramp();
    auto buffer = DeviceBuffer<float>::create(COUNT);
    auto stream = Stream::create();
    ASSERT_TRUE(buffer && stream);
    ASSERT_TRUE(buffer->upload(input, stream->get()));
    const GpuStatus launched = enqueueScaleAdd(buffer->data(), stream->get());
    ASSERT_TRUE(launched) << describe(launched.error());
    std::vector<float> out(COUNT);
    ASSERT_TRUE(buffer->download(out, stream->get()));
    ASSERT_TRUE(stream->synchronize());
    for (int i = 0; i < COUNT; ++i) {
        ASSERT_EQ(out[i], std::fma(input[i], SCALE, 1.0F)) << "at " << i;
    }
}

TEST(GpuKernel, AReportedErrorDoesNotFailTheNextLaunch) {
    AUGUR_REQUIRE_GPU();
    auto buffer = DeviceBuffer<float>::create(COUNT);
    auto stream = Stream::create();
    ASSERT_TRUE(buffer && stream);
    float host = 0.0F;
    ASSERT_TRUE(copyToHost(&host, reinterpret_cast<const void*>(0x10), sizeof(float), stream->get()).hasError());
    const GpuStatus launched = enqueueScaleAdd(buffer->data(), stream->get());
    EXPECT_TRUE(launched) << describe(launched.error());
    EXPECT_TRUE(stream->synchronize());
}

TEST(GpuKernel, GraphReplayEqualsDirectLaunches) {
    AUGUR_REQUIRE_GPU();
    const auto input = ramp();
    auto buffer = DeviceBuffer<float>::create(COUNT);
    auto stream = Stream::create();
    ASSERT_TRUE(buffer && stream);
    float* data = buffer->data();
    auto sut = Graph::capture(stream->get(), [data](StreamHandle s) { return enqueueScaleAdd(data, s); });
    ASSERT_TRUE(sut.hasValue()) << describe(sut.error());
    ASSERT_TRUE(buffer->upload(input, stream->get()));
    for (int r = 0; r < REPLAYS; ++r) {
        ASSERT_TRUE(sut->launch(stream->get()));
    }
    std::vector<float> out(COUNT);
    ASSERT_TRUE(buffer->download(out, stream->get()));
    ASSERT_TRUE(stream->synchronize());
    for (int i = 0; i < COUNT; ++i) {
        float expected = input[i];
        for (int r = 0; r < REPLAYS; ++r) {
            expected = std::fma(expected, SCALE, 1.0F);
        }
        ASSERT_EQ(out[i], expected) << "at " << i;
    }
}

TEST(GpuKernel, BadLaunchConfigurationIsReported) {
    AUGUR_REQUIRE_GPU();
    scaleAdd<<<1, 4096>>>(nullptr, 0, 1.0F);  // more threads per block than any device allows
    const auto sut = AUGUR_CUDA_CHECK_LAUNCH();
    ASSERT_TRUE(sut.hasError());
    // The runtime reports an oversized block as invalid configuration or invalid value, by driver.
    const auto code = static_cast<cudaError_t>(sut.error().code);
    EXPECT_TRUE(code == cudaErrorInvalidConfiguration || code == cudaErrorInvalidValue) << cudaGetErrorName(code);
}

}  // namespace
}  // namespace augur::platform
