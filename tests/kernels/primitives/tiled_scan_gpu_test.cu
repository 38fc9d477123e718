// The two-pass tiled exclusive scan (kernels/primitives/tiled_scan.cuh) for the element types the flock
// stages scan — long long counts, negative ones included, and a struct of two counts shuffled word by
// word — exact against std::exclusive_scan around the tile lengths it cuts n into, for an empty input,
// and inside a captured CUDA graph.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <numeric>
#include <random>
#include <vector>

#include "../../../kernels/primitives/tiled_scan.cuh"
#include "augur/platform/stream.hpp"
#include "augur/testing/testing.hpp"
#include "scan_gpu_support.hpp"

namespace augur::kernels::primitives {
namespace {

using platform::Stream;
using platform::StreamHandle;

/// Two counts summed together (as the flock stages' sets and members).
struct Counts {
    long long first;
    long long second;
    friend bool operator==(const Counts&, const Counts&) = default;
};

__host__ __device__ Counts operator+(const Counts& a, const Counts& b) { return {a.first + b.first, a.second + b.second}; }
__host__ __device__ Counts operator-(const Counts& a, const Counts& b) { return {a.first - b.first, a.second - b.second}; }

template <typename T>
std::vector<T> exclusiveOnGpu(const std::vector<T>& in, StreamHandle stream, bool graph) {
    return runOnGpu(in, detail::tiledScanScratchBytes<T>(), stream, graph,
                    [](const T* src, T* dst, std::uint32_t n, void* tileTotals, std::size_t, StreamHandle s) {
                        return detail::tiledExclusiveScan(src, dst, static_cast<long long>(n), static_cast<T*>(tileTotals), s);
                    });
}

/// n around the tile length L = ⌈n / TILED_SCAN_TILES⌉ changing (n = k · tiles ± 1) and the block's
/// width inside a tile, up to a few hundred thousand items.
std::vector<std::size_t> sizes() {
    constexpr std::size_t TILES = detail::TILED_SCAN_TILES;
    constexpr std::size_t BLOCK = detail::TILED_SCAN_BLOCK;
    return {1, 2, 31, 33, TILES - 1, TILES, TILES + 1, BLOCK * TILES - 1, BLOCK * TILES, BLOCK * TILES + 1, 300'007};
}

TEST(TiledScanGpu, LongLongEqualsTheHostsExclusiveScanAroundTileLengths) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    std::mt19937 gen(7);
    std::uniform_int_distribution<long long> value(-1'000, 1'000'000);
    for (const std::size_t n : sizes()) {
        std::vector<long long> in(n);
        for (auto& v : in) {
            v = value(gen);
        }
        std::vector<long long> expected(n);
        std::exclusive_scan(in.begin(), in.end(), expected.begin(), 0LL);
        EXPECT_EQ(exclusiveOnGpu(in, stream->get(), false), expected) << "n = " << n;
    }
}

TEST(TiledScanGpu, StructOfCountsEqualsTheHostsExclusiveScan) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    std::mt19937 gen(11);
    std::uniform_int_distribution<long long> value(0, 5'000'000'000LL);  // sums above 2³² in both words
    for (const std::size_t n : {std::size_t{1}, std::size_t{4'099}, std::size_t{300'007}}) {
        std::vector<Counts> in(n);
        for (auto& v : in) {
            v = Counts{value(gen), value(gen) / 3};
        }
        std::vector<Counts> expected(n);
        std::exclusive_scan(in.begin(), in.end(), expected.begin(), Counts{0, 0});
        EXPECT_EQ(exclusiveOnGpu(in, stream->get(), false), expected) << "n = " << n;
    }
}

TEST(TiledScanGpu, EmptyInputLaunchesAndWritesNothing) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    EXPECT_TRUE(exclusiveOnGpu(std::vector<long long>{}, stream->get(), false).empty());
}

TEST(TiledScanGpu, CapturedInAGraphGivesTheSameSums) {
    AUGUR_REQUIRE_GPU();
    auto stream = Stream::create();
    ASSERT_TRUE(stream);
    std::vector<long long> in(70'001);
    std::iota(in.begin(), in.end(), -35'000LL);
    std::vector<long long> expected(in.size());
    std::exclusive_scan(in.begin(), in.end(), expected.begin(), 0LL);
    EXPECT_EQ(exclusiveOnGpu(in, stream->get(), true), expected);
}

}  // namespace
}  // namespace augur::kernels::primitives
