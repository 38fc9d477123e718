// Every CUDA scan and reduction variant against the CPU reference: exactly on integer-valued inputs
// (every partial sum representable), to float tolerance on random ones, and inside a CUDA graph.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "augur/kernels/primitives/reduce.hpp"
#include "augur/kernels/primitives/scan.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"
#include "augur/testing/testing.hpp"
#include "scan_gpu_support.hpp"

namespace augur::kernels::primitives {
namespace {

using platform::DeviceBuffer;
using platform::DeviceMemory;
using platform::Stream;
using platform::StreamHandle;

// Sizes around every tile boundary (512, 1024, 2048 and, single pass, 8192 elements), multi-level,
// many look-back tiles, and not powers of two.
constexpr std::uint32_t SIZES[] = {1,    2,    31,   511,  512,     513,       2047,      2049,
                                   4095, 4096, 4097, 8191, 8192, 8193, 100'003, 1U << 20U, 3'000'001};

std::vector<float> smallIntegers(std::uint32_t n, std::uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<int> pick(0, 3);
    std::vector<float> v(n);
    for (auto& x : v) {
        x = static_cast<float>(pick(gen));  // sums stay below 2^24: exact in float
    }
    return v;
}

std::vector<float> scanOnGpu(ScanVariant variant, const std::vector<float>& in, StreamHandle stream, bool graph) {
    const auto n = static_cast<std::uint32_t>(in.size());
    return runOnGpu(in, cuda::exclusiveScanScratchBytes(variant, n), stream, graph,
                    [variant](const float* src, float* dst, std::uint32_t count, void* tmp, std::size_t bytes, StreamHandle s) {
                        return cuda::exclusiveScan(variant, src, dst, count, tmp, bytes, s);
                    });
}

class ScanGpu : public ::testing::TestWithParam<ScanVariant> {};

TEST_P(ScanGpu, EqualsCpuExactlyOnIntegerInputs) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    for (const std::uint32_t n : SIZES) {
        const auto in = smallIntegers(n, n);
        std::vector<float> expected(n);
        cpu::exclusiveScan(in, expected);
        const auto sut = scanOnGpu(GetParam(), in, stream->get(), false);
        ASSERT_TRUE(stream->synchronize());
        ASSERT_EQ(sut, expected) << toString(GetParam()) << ", n = " << n;
    }
}

TEST_P(ScanGpu, EqualsCpuToFloatToleranceOnRandomInputsInsideAGraph) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    constexpr std::uint32_t N = 1'000'003;
    std::mt19937 gen(17);
    std::uniform_real_distribution<float> uniform(0.0F, 1.0F);
    std::vector<float> in(N);
    for (auto& x : in) {
        x = uniform(gen);
    }
    std::vector<float> expected(N);
    cpu::exclusiveScan(in, expected);
    const auto sut = scanOnGpu(GetParam(), in, stream->get(), true);
    ASSERT_TRUE(stream->synchronize());
    for (std::uint32_t i = 0; i < N; ++i) {
        ASSERT_NEAR(sut[i], expected[i], 1e-5F * expected[i] + 1e-4F) << "at " << i;
    }
}

TEST_P(ScanGpu, EqualsCpuExactlyAtTwoToThe26) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    // Sparse ones: the total (≈ 2²³) stays below 2²⁴, so every prefix is exact in float.
    std::mt19937 gen(26);
    std::bernoulli_distribution one(0.125);
    std::vector<float> in(LARGE);
    for (auto& x : in) {
        x = one(gen) ? 1.0F : 0.0F;
    }
    std::vector<float> expected(LARGE);
    cpu::exclusiveScan(in, expected);
    const auto sut = scanOnGpu(GetParam(), in, stream->get(), false);
    ASSERT_TRUE(stream->synchronize());
    const auto first = std::mismatch(sut.begin(), sut.end(), expected.begin());
    EXPECT_TRUE(first.first == sut.end()) << toString(GetParam()) << ": first difference at "
                                          << (first.first - sut.begin());
}

INSTANTIATE_TEST_SUITE_P(Variants, ScanGpu, ::testing::ValuesIn(ALL_SCAN_VARIANTS));

class ReduceGpu : public ::testing::TestWithParam<ReduceVariant> {};

TEST_P(ReduceGpu, EqualsCpuAndDeterministicVariantsRepeatExactly) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    for (const std::uint32_t n : SIZES) {
        const auto in = smallIntegers(n, n + 1);
        const double expected = cpu::reduceSum(in);
        auto dIn = DeviceBuffer<float>::create(n);
        auto dOut = DeviceBuffer<float>::create(1);
        auto scratch = DeviceMemory::allocate(cuda::reduceSumScratchBytes(GetParam(), n) + 1);
        ASSERT_TRUE(dIn && dOut && scratch);
        ASSERT_TRUE(dIn->upload(in, stream->get()));
        float results[2] = {};
        for (float& result : results) {
            ASSERT_TRUE(cuda::reduceSum(GetParam(), dIn->data(), dOut->data(), n, scratch->get(), scratch->bytes(),
                                        stream->get()));
            ASSERT_TRUE(dOut->download(std::span<float>(&result, 1), stream->get()));
            ASSERT_TRUE(stream->synchronize());
        }
        EXPECT_EQ(static_cast<double>(results[0]), expected) << toString(GetParam()) << ", n = " << n;
        if (GetParam() != ReduceVariant::AtomicAdd) {
            EXPECT_EQ(results[0], results[1]);
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Variants, ReduceGpu, ::testing::ValuesIn(ALL_REDUCE_VARIANTS));

}  // namespace
}  // namespace augur::kernels::primitives
