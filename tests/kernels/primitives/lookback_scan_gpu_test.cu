// The single-pass look-back scan in every compiled tile shape, and its packed tile descriptor with
// 4-byte integers (negative values included: the value's bits travel in the descriptor's high word).
// Exact against the CPU reference on integer inputs around every tile boundary, over grids large
// enough for the look-back waits (≥ 500 tiles) and at 2²⁶; to float tolerance inside a CUDA graph.
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "../../../kernels/primitives/lookback_scan.cuh"
#include "augur/kernels/primitives/scan.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"
#include "augur/testing/testing.hpp"

namespace augur::kernels::primitives {
namespace {

using platform::DeviceBuffer;
using platform::DeviceMemory;
using platform::Stream;
using platform::StreamHandle;

constexpr std::uint32_t LARGE = 1U << 26U;
/// Tiles of the grids that switch the look-back waits on (LOOKBACK_WAIT_GRID = 500), and more.
constexpr std::uint32_t MANY_TILES = 611;

std::uint32_t tileOf(const cuda::SinglePassShape& shape) { return shape.block * shape.segments * 4; }

/// n around one, two and many tiles of `tile` elements.
std::vector<std::uint32_t> sizesAround(std::uint32_t tile) {
    return {1, 5, tile - 1, tile, tile + 1, 2 * tile - 3, 2 * tile + 4, MANY_TILES * tile + 7};
}

/// Sparse ones: prefixes of up to 2²⁶ elements stay below 2²⁴, exact in float.
std::vector<float> sparseOnes(std::uint32_t n, std::uint32_t seed) {
    std::mt19937 gen(seed);
    std::bernoulli_distribution one(0.125);
    std::vector<float> v(n);
    for (auto& x : v) {
        x = one(gen) ? 1.0F : 0.0F;
    }
    return v;
}

/// Runs enqueue(in, out, n, scratch, bytes, stream) on a device copy of `in` (directly or as a
/// replayed CUDA graph) and returns the output.
template <typename T, typename Enqueue>
std::vector<T> runOnGpu(const std::vector<T>& in, std::size_t scratchBytes, StreamHandle stream, bool graph,
                        Enqueue&& enqueue) {
    const auto n = static_cast<std::uint32_t>(in.size());
    auto dIn = DeviceBuffer<T>::create(n);
    auto dOut = DeviceBuffer<T>::create(n);
    auto scratch = DeviceMemory::allocate(scratchBytes);
    EXPECT_TRUE(dIn && dOut && scratch);
    EXPECT_TRUE(dIn->upload(in, stream));
    const T* src = dIn->data();
    T* dst = dOut->data();
    void* tmp = scratch->get();
    const std::size_t bytes = scratch->bytes();
    auto launch = [&](StreamHandle s) { return enqueue(src, dst, n, tmp, bytes, s); };
    if (graph) {
        auto g = platform::Graph::capture(stream, launch);
        EXPECT_TRUE(g.hasValue());
        EXPECT_TRUE(g->launch(stream));
    } else {
        EXPECT_TRUE(launch(stream));
    }
    std::vector<T> out(n);
    EXPECT_TRUE(dOut->download(out, stream));
    EXPECT_TRUE(platform::checkCuda(static_cast<int>(cudaStreamSynchronize(stream)), "sync", __FILE__, __LINE__));
    return out;
}

std::vector<float> shapeScan(std::size_t shape, const std::vector<float>& in, StreamHandle stream, bool graph) {
    const auto n = static_cast<std::uint32_t>(in.size());
    return runOnGpu(in, cuda::singlePassScratchBytes(shape, n), stream, graph,
                    [shape](const float* src, float* dst, std::uint32_t count, void* tmp, std::size_t bytes,
                            StreamHandle s) { return cuda::singlePassScan(shape, src, dst, count, tmp, bytes, s); });
}

class SinglePassShapeGpu : public ::testing::TestWithParam<std::size_t> {};

TEST_P(SinglePassShapeGpu, EqualsCpuExactlyAroundEveryTileBoundary) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    const auto shape = cuda::singlePassShapes()[GetParam()];
    for (const std::uint32_t n : sizesAround(tileOf(shape))) {
        const auto in = sparseOnes(n, n);
        std::vector<float> expected(n);
        cpu::exclusiveScan(in, expected);
        const auto sut = shapeScan(GetParam(), in, stream->get(), false);
        ASSERT_EQ(sut, expected) << "shape " << GetParam() << ", n = " << n;
    }
}

TEST_P(SinglePassShapeGpu, EqualsCpuExactlyAtTwoToThe26) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    const auto in = sparseOnes(LARGE, 26);
    std::vector<float> expected(LARGE);
    cpu::exclusiveScan(in, expected);
    const auto sut = shapeScan(GetParam(), in, stream->get(), false);
    const auto first = std::mismatch(sut.begin(), sut.end(), expected.begin());
    EXPECT_TRUE(first.first == sut.end()) << "shape " << GetParam() << ": first difference at "
                                          << (first.first - sut.begin());
}

TEST_P(SinglePassShapeGpu, EqualsCpuDoubleReferenceToFloatToleranceInsideAGraph) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    const std::uint32_t n = MANY_TILES * tileOf(cuda::singlePassShapes()[GetParam()]) + 13;
    std::mt19937 gen(static_cast<std::uint32_t>(GetParam()));
    std::uniform_real_distribution<float> uniform(0.0F, 1.0F);
    std::vector<float> in(n);
    for (auto& x : in) {
        x = uniform(gen);
    }
    std::vector<float> expected(n);
    cpu::exclusiveScan(in, expected);  // accumulated in double
    const auto sut = shapeScan(GetParam(), in, stream->get(), true);
    for (std::uint32_t i = 0; i < n; ++i) {
        ASSERT_NEAR(sut[i], expected[i], 1e-5F * expected[i] + 1e-4F) << "shape " << GetParam() << ", at " << i;
    }
}

std::vector<std::size_t> allShapes() {
    std::vector<std::size_t> shapes(cuda::singlePassShapes().size());
    for (std::size_t i = 0; i < shapes.size(); ++i) {
        shapes[i] = i;
    }
    return shapes;
}

INSTANTIATE_TEST_SUITE_P(Shapes, SinglePassShapeGpu, ::testing::ValuesIn(allShapes()));

TEST(SinglePassShape, EveryShapeIsAWholeNumberOfWarpsAndTheUsedOneExists) {
    const auto shapes = cuda::singlePassShapes();
    ASSERT_FALSE(shapes.empty());
    for (const auto& shape : shapes) {
        EXPECT_EQ(shape.block % 32, 0U);
        EXPECT_LE(shape.block, 1024U);
        EXPECT_GT(shape.segments, 0U);
    }
    EXPECT_LT(cuda::singlePassDefaultShape(), shapes.size());
    EXPECT_EQ(cuda::singlePassScratchBytes(shapes.size(), 1000), 0U);
    // SinglePassLookback is the default shape: the same scratch.
    for (const std::uint32_t n : {1U, 20'000U, 1U << 20U, LARGE}) {
        EXPECT_EQ(cuda::exclusiveScanScratchBytes(ScanVariant::SinglePassLookback, n),
                  cuda::singlePassScratchBytes(cuda::singlePassDefaultShape(), n))
            << "n = " << n;
    }
}

TEST(SinglePassShapeGpu, RefusesAnUnknownShapeTooLittleScratchAndMisalignedPointersWhereNotCompiled) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    constexpr std::uint32_t N = 10'000;
    auto in = DeviceBuffer<float>::create(N + 1);
    auto out = DeviceBuffer<float>::create(N + 1);
    const std::size_t used = cuda::singlePassDefaultShape();
    std::size_t most = 0;
    for (std::size_t shape = 0; shape < cuda::singlePassShapes().size(); ++shape) {
        most = std::max(most, cuda::singlePassScratchBytes(shape, N));
    }
    auto scratch = DeviceMemory::allocate(most);
    ASSERT_TRUE(in && out && scratch);
    const std::size_t unknown = cuda::singlePassShapes().size();
    EXPECT_FALSE(cuda::singlePassScan(unknown, in->data(), out->data(), N, scratch->get(), scratch->bytes(), stream->get()));
    EXPECT_FALSE(cuda::singlePassScan(used, in->data(), out->data(), N, scratch->get(), 0, stream->get()));
    // The used shape takes any float pointers (element-wise edges); a measurement-only shape wants 16 bytes.
    EXPECT_TRUE(cuda::singlePassScan(used, in->data() + 1, out->data() + 1, N, scratch->get(), scratch->bytes(),
                                     stream->get()));
    for (std::size_t shape = 0; shape < cuda::singlePassShapes().size(); ++shape) {
        if (shape == used) {
            continue;
        }
        EXPECT_FALSE(cuda::singlePassScan(shape, in->data() + 1, out->data(), N, scratch->get(), scratch->bytes(),
                                          stream->get()))
            << "shape " << shape;
    }
    ASSERT_TRUE(stream->synchronize());
}

// ---- the packed tile descriptor with 4-byte integers ---------------------------------------------------

namespace lookback = primitives::detail;

/// Exclusive int32 scan, one tile per block, element-wise loads and stores.
template <std::uint32_t SEGMENTS, std::uint32_t BLOCK, std::uint32_t FIRST_WAIT_NS, std::uint32_t SPIN_WAIT_NS>
__global__ void __launch_bounds__(BLOCK)
    intScanKernel(const std::int32_t* in, std::int32_t* out, std::uint32_t n, lookback::LookbackState<std::int32_t> state) {
    auto load = [&](std::uint64_t i, std::int32_t (&v)[4]) {
        for (std::uint32_t q = 0; q < 4; ++q) {
            v[q] = i + q < n ? in[i + q] : 0;
        }
    };
    auto store = [&](std::uint64_t i, std::int32_t base, const std::int32_t (&v)[4]) {
        std::int32_t running = base;
        for (std::uint32_t q = 0; q < 4; ++q) {
            if (i + q < n) {
                out[i + q] = running;
            }
            running += v[q];
        }
    };
    constexpr lookback::LookbackWait WAIT{FIRST_WAIT_NS, SPIN_WAIT_NS};
    lookback::lookbackScanTile<std::int32_t, SEGMENTS, BLOCK, WAIT>(state, load, store);
}

static_assert(lookback::LOOKBACK_PACKS<std::int32_t> && lookback::LOOKBACK_PACKS<float> &&
                  !lookback::LOOKBACK_PACKS<std::uint64_t>,
              "4-byte values pack, the filter's 64-bit CDF keeps the general layout");

template <std::uint32_t SEGMENTS, std::uint32_t BLOCK, std::uint32_t FIRST_WAIT_NS, std::uint32_t SPIN_WAIT_NS>
std::vector<std::int32_t> intScan(const std::vector<std::int32_t>& in, StreamHandle stream) {
    constexpr std::uint32_t TILE = lookback::lookbackTileItems<SEGMENTS, BLOCK>();
    const auto n = static_cast<std::uint32_t>(in.size());
    const std::uint32_t tiles = (n + TILE - 1) / TILE;
    return runOnGpu(in, lookback::lookbackStateBytes<std::int32_t>(tiles), stream, false,
                    [tiles](const std::int32_t* src, std::int32_t* dst, std::uint32_t count, void* tmp, std::size_t,
                            StreamHandle s) -> platform::GpuStatus {
                        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(
                            cudaMemsetAsync(tmp, 0, lookback::lookbackClearBytes<std::int32_t>(tiles), s)));
                        intScanKernel<SEGMENTS, BLOCK, FIRST_WAIT_NS, SPIN_WAIT_NS><<<tiles, BLOCK, 0, s>>>(
                            src, dst, count, lookback::lookbackState<std::int32_t>(tmp, tiles));
                        return AUGUR_CUDA_CHECK_LAUNCH();
                    });
}

/// Values in [−3, 3]: prefixes go negative and positive, every partial sum fits int32.
std::vector<std::int32_t> signedSmallIntegers(std::uint32_t n, std::uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_int_distribution<std::int32_t> pick(-3, 3);
    std::vector<std::int32_t> v(n);
    for (auto& x : v) {
        x = pick(gen);
    }
    return v;
}

std::vector<std::int32_t> cpuExclusive(const std::vector<std::int32_t>& in) {
    std::vector<std::int32_t> out(in.size());
    std::int64_t running = 0;
    for (std::size_t i = 0; i < in.size(); ++i) {
        out[i] = static_cast<std::int32_t>(running);
        running += in[i];
    }
    return out;
}

TEST(LookbackPackedDescriptorGpu, Int32ScanIsExactAroundTileBoundariesWithNegativePrefixes) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    constexpr std::uint32_t TILE = lookback::lookbackTileItems<4, 256>();
    for (const std::uint32_t n : sizesAround(TILE)) {
        const auto in = signedSmallIntegers(n, n + 3);
        const auto sut = intScan<4, 256, 0, 0>(in, stream->get());
        ASSERT_EQ(sut, cpuExclusive(in)) << "n = " << n;
    }
}

TEST(LookbackPackedDescriptorGpu, Int32ScanIsExactAtTwoToThe26WithAndWithoutWaits) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    const auto in = signedSmallIntegers(LARGE, 2026);
    const auto expected = cpuExclusive(in);
    auto firstDifference = [&](const std::vector<std::int32_t>& sut) {
        return std::mismatch(sut.begin(), sut.end(), expected.begin()).first - sut.begin();
    };
    const auto noWait = intScan<4, 256, 0, 0>(in, stream->get());
    EXPECT_TRUE(noWait == expected) << "no waits: first difference at " << firstDifference(noWait);
    const auto waits = intScan<8, 128, 1140, 688>(in, stream->get());
    EXPECT_TRUE(waits == expected) << "waits: first difference at " << firstDifference(waits);
}

}  // namespace
}  // namespace augur::kernels::primitives
