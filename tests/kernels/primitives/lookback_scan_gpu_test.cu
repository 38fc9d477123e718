// The single-pass look-back scan in every compiled tile shape, and its packed tile descriptors: with
// 4-byte integers (negative values included: the value's bits travel in the descriptor's high word)
// and with uint64 below the declared 2⁶² bound (the particle filter's CDF: quantised weights near
// 2³¹, and totals just below 2⁶²), next to uint64's default general layout with prefixes above 2⁶²
// (packed counts).
// Exact against the CPU reference on integer inputs around every tile boundary, over grids large
// enough for the look-back waits (≥ 500 tiles) and at 2²² – 2²⁶; inside a CUDA graph (float to
// tolerance, uint64 exactly).
#include <gtest/gtest.h>

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <type_traits>
#include <vector>

#include "../../../kernels/primitives/lookback_scan.cuh"
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

// ---- the packed tile descriptors with integers -----------------------------------------------------

namespace lookback = primitives::detail;

/// Exclusive scan of T in the Descriptor layout, one tile per block, element-wise loads and stores.
template <typename T, typename Descriptor, std::uint32_t SEGMENTS, std::uint32_t BLOCK, std::uint32_t FIRST_WAIT_NS,
          std::uint32_t SPIN_WAIT_NS>
__global__ void __launch_bounds__(BLOCK)
    integerScanKernel(const T* in, T* out, std::uint32_t n, lookback::LookbackState<T, Descriptor> state) {
    auto load = [&](std::uint64_t i, T (&v)[4]) {
        for (std::uint32_t q = 0; q < 4; ++q) {
            v[q] = i + q < n ? in[i + q] : T{};
        }
    };
    auto store = [&](std::uint64_t i, T base, const T (&v)[4]) {
        T running = base;
        for (std::uint32_t q = 0; q < 4; ++q) {
            if (i + q < n) {
                out[i + q] = running;
            }
            running += v[q];
        }
    };
    constexpr lookback::LookbackWait WAIT{FIRST_WAIT_NS, SPIN_WAIT_NS};
    lookback::lookbackScanTile<T, SEGMENTS, BLOCK, WAIT>(state, load, store);
}

static_assert(lookback::LOOKBACK_PACKS<std::int32_t> && lookback::LOOKBACK_PACKS<float> &&
                  !lookback::LOOKBACK_PACKS<std::uint64_t>,
              "4-byte values pack by default, 64-bit ones do not");
static_assert(std::is_same_v<lookback::LookbackDefaultDescriptor<std::uint64_t>, lookback::LookbackGeneral>,
              "uint64 keeps the general layout unless its caller declares the 2^62 bound");
static_assert(lookback::lookbackStateBytes<std::uint64_t, lookback::LookbackPackedBelow2To62>(1000) <
                  lookback::lookbackStateBytes<std::uint64_t>(1000),
              "the packed uint64 state is one 8-byte word per tile");

/// The scan of `in` by integerScanKernel (state cleared by a memset first); graph: replayed from a
/// captured CUDA graph.
template <typename T, typename Descriptor, std::uint32_t SEGMENTS, std::uint32_t BLOCK, std::uint32_t FIRST_WAIT_NS,
          std::uint32_t SPIN_WAIT_NS>
std::vector<T> integerScan(const std::vector<T>& in, StreamHandle stream, bool graph = false) {
    constexpr std::uint32_t TILE = lookback::lookbackTileItems<SEGMENTS, BLOCK>();
    const auto n = static_cast<std::uint32_t>(in.size());
    const std::uint32_t tiles = (n + TILE - 1) / TILE;
    return runOnGpu(in, lookback::lookbackStateBytes<T, Descriptor>(tiles), stream, graph,
                    [tiles](const T* src, T* dst, std::uint32_t count, void* tmp, std::size_t,
                            StreamHandle s) -> platform::GpuStatus {
                        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(
                            cudaMemsetAsync(tmp, 0, lookback::lookbackClearBytes<T, Descriptor>(tiles), s)));
                        const auto state = lookback::lookbackState<T, Descriptor>(tmp, tiles);
                        integerScanKernel<T, Descriptor, SEGMENTS, BLOCK, FIRST_WAIT_NS, SPIN_WAIT_NS>
                            <<<tiles, BLOCK, 0, s>>>(src, dst, count, state);
                        return AUGUR_CUDA_CHECK_LAUNCH();
                    });
}

template <std::uint32_t SEGMENTS, std::uint32_t BLOCK, std::uint32_t FIRST_WAIT_NS, std::uint32_t SPIN_WAIT_NS>
std::vector<std::int32_t> intScan(const std::vector<std::int32_t>& in, StreamHandle stream) {
    return integerScan<std::int32_t, lookback::LookbackDefaultDescriptor<std::int32_t>, SEGMENTS, BLOCK, FIRST_WAIT_NS,
                       SPIN_WAIT_NS>(in, stream);
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

/// Exclusive scan in T's own arithmetic (int32: the inputs keep every prefix in range; uint64: modulo
/// 2^64, as the device computes).
template <typename T>
std::vector<T> cpuExclusive(const std::vector<T>& in) {
    std::vector<T> out(in.size());
    T running{};
    for (std::size_t i = 0; i < in.size(); ++i) {
        out[i] = running;
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

// ---- uint64: the packed descriptor below 2^62 (opt-in) and the general layout (default) ------------

using Below2To62 = lookback::LookbackPackedBelow2To62;
/// The particle filter's CDF tile: 256 threads × 4 segments (4,096 items), no waits.
constexpr std::uint32_t CDF_SEGMENTS = 4;
constexpr std::uint32_t CDF_BLOCK = 256;
/// Above 2^22 items: more than 1,000 tiles of 4,096, so the look-back waits are on where configured.
constexpr std::uint32_t UINT64_LARGE = (1U << 22U) + 5;
/// A quantised weight of the filter is at most 2^31 (its CDF stays below K·2^31 ≤ 2^52).
constexpr std::uint64_t QUANTIZED_ONE = 1ULL << 31U;

/// Seeded values uniform in [low, high].
std::vector<std::uint64_t> uniformUint64(std::uint32_t n, std::uint64_t low, std::uint64_t high, std::uint32_t seed) {
    std::mt19937_64 gen(seed);
    std::uniform_int_distribution<std::uint64_t> pick(low, high);
    std::vector<std::uint64_t> v(n);
    for (auto& x : v) {
        x = pick(gen);
    }
    return v;
}


std::uint64_t sum(const std::vector<std::uint64_t>& in) {
    std::uint64_t total = 0;
    for (const std::uint64_t x : in) {
        total += x;
    }
    return total;
}

std::ptrdiff_t firstDifference(const std::vector<std::uint64_t>& sut, const std::vector<std::uint64_t>& expected) {
    return std::mismatch(sut.begin(), sut.end(), expected.begin()).first - sut.begin();
}

TEST(LookbackPackedDescriptorGpu, Uint64Below2To62ScanIsExactAroundTileBoundariesWithQuantisedWeights) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    constexpr std::uint32_t TILE = lookback::lookbackTileItems<CDF_SEGMENTS, CDF_BLOCK>();
    for (const std::uint32_t n : sizesAround(TILE)) {
        // Near the largest quantised weight: 611 tiles of them sum to about 2^52.3.
        const auto in = uniformUint64(n, QUANTIZED_ONE - (1ULL << 20U), QUANTIZED_ONE, n + 62);
        const auto sut = integerScan<std::uint64_t, Below2To62, CDF_SEGMENTS, CDF_BLOCK, 0, 0>(in, stream->get());
        ASSERT_EQ(sut, cpuExclusive(in)) << "n = " << n;
    }
}

TEST(LookbackPackedDescriptorGpu, Uint64Below2To62ScanIsExactAboveTwoToThe22WithAndWithoutWaits) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    const auto in = uniformUint64(UINT64_LARGE, QUANTIZED_ONE - (1ULL << 20U), QUANTIZED_ONE, 2052);
    ASSERT_GT(sum(in), 1ULL << 52U);  // beyond any CDF of the filter
    const auto expected = cpuExclusive(in);
    const auto noWait = integerScan<std::uint64_t, Below2To62, CDF_SEGMENTS, CDF_BLOCK, 0, 0>(in, stream->get());
    EXPECT_TRUE(noWait == expected) << "no waits: first difference at " << firstDifference(noWait, expected);
    const auto waits = integerScan<std::uint64_t, Below2To62, 8, 128, 1140, 688>(in, stream->get());
    EXPECT_TRUE(waits == expected) << "waits: first difference at " << firstDifference(waits, expected);
}

TEST(LookbackPackedDescriptorGpu, Uint64Below2To62ScanIsExactWithItsTotalJustBelowTheBound) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    // Items in [high/2, high], high = (2^62 − 1) / n: the total lies in [2^61, 2^62), so the
    // descriptors of the last tiles use all 62 value bits.
    const std::uint64_t high = (Below2To62::BOUND - 1) / UINT64_LARGE;
    const auto in = uniformUint64(UINT64_LARGE, high / 2, high, 2062);
    ASSERT_LT(sum(in), Below2To62::BOUND);
    ASSERT_GE(sum(in), Below2To62::BOUND / 2);
    const auto expected = cpuExclusive(in);
    const auto noWait = integerScan<std::uint64_t, Below2To62, CDF_SEGMENTS, CDF_BLOCK, 0, 0>(in, stream->get());
    EXPECT_TRUE(noWait == expected) << "no waits: first difference at " << firstDifference(noWait, expected);
    const auto waits = integerScan<std::uint64_t, Below2To62, 8, 128, 1140, 688>(in, stream->get());
    EXPECT_TRUE(waits == expected) << "waits: first difference at " << firstDifference(waits, expected);
}

TEST(LookbackPackedDescriptorGpu, Uint64Below2To62ScanIsExactInsideAGraph) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    constexpr std::uint32_t TILE = lookback::lookbackTileItems<CDF_SEGMENTS, CDF_BLOCK>();
    const auto in = uniformUint64(MANY_TILES * TILE + 13, 0, QUANTIZED_ONE, 2031);
    const auto expected = cpuExclusive(in);
    const auto sut = integerScan<std::uint64_t, Below2To62, CDF_SEGMENTS, CDF_BLOCK, 0, 0>(in, stream->get(), true);
    EXPECT_TRUE(sut == expected) << "first difference at " << firstDifference(sut, expected);
}

TEST(LookbackGeneralStateGpu, Uint64DefaultScanIsExactWithPrefixesAboveTwoToThe62) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    using Default = lookback::LookbackDefaultDescriptor<std::uint64_t>;
    constexpr std::uint32_t TILE = lookback::lookbackTileItems<CDF_SEGMENTS, CDF_BLOCK>();
    constexpr std::uint32_t N = MANY_TILES * TILE + 7;
    // Counts packed as (sets << 32) | members, 2^9 … 2^10 sets per item: over N ≈ 2^21.3 items the
    // prefixes pass 2^62 and stay below 2^64 (no wrap-around), a range the packed descriptor lacks.
    const auto sets = uniformUint64(N, 1ULL << 9U, 1ULL << 10U, 64);
    const auto members = uniformUint64(N, 0, 0xFFFFU, 65);
    std::vector<std::uint64_t> in(N);
    for (std::uint32_t i = 0; i < N; ++i) {
        in[i] = (sets[i] << 32U) | members[i];
    }
    const auto expected = cpuExclusive(in);
    ASSERT_GT(expected.back(), Below2To62::BOUND);
    ASSERT_GE(sum(in), expected.back());  // no wrap-around
    const auto noWait = integerScan<std::uint64_t, Default, CDF_SEGMENTS, CDF_BLOCK, 0, 0>(in, stream->get());
    EXPECT_TRUE(noWait == expected) << "no waits: first difference at " << firstDifference(noWait, expected);
    const auto waits = integerScan<std::uint64_t, Default, 8, 128, 1140, 688>(in, stream->get());
    EXPECT_TRUE(waits == expected) << "waits: first difference at " << firstDifference(waits, expected);
}

}  // namespace
}  // namespace augur::kernels::primitives
