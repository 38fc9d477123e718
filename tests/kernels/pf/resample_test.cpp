// Systematic resampling (copy-index formulation), CPU reference: the defining properties.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "augur/kernels/pf/resample.hpp"

namespace augur::kernels::pf {
namespace {

struct Resampled {
    std::vector<std::uint32_t> copyIndex;
    std::vector<std::uint32_t> copies;  ///< per source particle
};

Resampled resample(const std::vector<float>& logWeights, float u) {
    const auto k = logWeights.size();
    const float maxLog = *std::max_element(logWeights.begin(), logWeights.end());
    std::vector<std::uint64_t> cdf(k);
    Resampled r{std::vector<std::uint32_t>(k, 0xFFFFFFFFU), std::vector<std::uint32_t>(k, 0U)};
    cpu::systematicResample(logWeights, maxLog, u, cdf, r.copyIndex);
    for (const auto i : r.copyIndex) {
        EXPECT_LT(i, k) << "an entry of the copy index was not written";
        if (i < k) {
            ++r.copies[i];
        }
    }
    return r;
}

std::vector<float> randomLogWeights(std::size_t k, std::uint32_t seed, float spread) {
    std::mt19937 gen(seed);
    std::normal_distribution<float> normal(0.0F, spread);
    std::vector<float> l(k);
    for (auto& v : l) {
        v = normal(gen);
    }
    return l;
}

/// Every particle gets ⌊K·w̃⌋ or ⌈K·w̃⌉ copies of its (quantised) normalised weight w̃.
void expectFloorOrCeil(const std::vector<float>& logWeights, const Resampled& r) {
    const auto k = logWeights.size();
    const float maxLog = *std::max_element(logWeights.begin(), logWeights.end());
    std::uint64_t total = 0;
    for (const float l : logWeights) {
        total += quantizeWeight(l, maxLog);
    }
    for (std::size_t i = 0; i < k; ++i) {
        const double expected =
            static_cast<double>(quantizeWeight(logWeights[i], maxLog)) * static_cast<double>(k) / static_cast<double>(total);
        ASSERT_GE(r.copies[i], static_cast<std::uint32_t>(std::floor(expected))) << "particle " << i;
        ASSERT_LE(r.copies[i], static_cast<std::uint32_t>(std::ceil(expected))) << "particle " << i;
    }
}

TEST(SystematicResample, EveryParticleGetsFloorOrCeilOfItsExpectedCopies) {
    constexpr std::size_t K = 1000;
    const auto logWeights = randomLogWeights(K, 5, 2.0F);
    for (const float u : {1e-6F, 0.25F, 0.5F, 0.999F, 1.0F}) {
        const auto sut = resample(logWeights, u);
        expectFloorOrCeil(logWeights, sut);
        EXPECT_EQ(std::accumulate(sut.copies.begin(), sut.copies.end(), 0U), K);
    }
}

TEST(SystematicResample, CopyIndexIsSortedBySource) {
    const auto logWeights = randomLogWeights(777, 6, 1.0F);
    const auto sut = resample(logWeights, 0.3F);
    EXPECT_TRUE(std::is_sorted(sut.copyIndex.begin(), sut.copyIndex.end()));
}

TEST(SystematicResample, ZeroWeightParticlesGetNoCopies) {
    constexpr std::size_t K = 64;
    std::vector<float> logWeights(K, 0.0F);
    for (std::size_t i = 0; i < K; i += 3) {
        logWeights[i] = -INFINITY;
    }
    const auto sut = resample(logWeights, 0.7F);
    for (std::size_t i = 0; i < K; i += 3) {
        EXPECT_EQ(sut.copies[i], 0U) << "particle " << i;
    }
}

TEST(SystematicResample, EqualWeightsGiveIdentity) {
    for (const std::size_t k : {std::size_t{1}, std::size_t{7}, std::size_t{1000}, std::size_t{1'000'000}}) {
        const std::vector<float> logWeights(k, -3.5F);
        const auto sut = resample(logWeights, 0.5F);
        for (std::size_t j = 0; j < k; ++j) {
            ASSERT_EQ(sut.copyIndex[j], j) << "K = " << k;
        }
    }
}

TEST(SystematicResample, OneNonZeroWeightGetsAllCopies) {
    constexpr std::size_t K = 1001;
    constexpr std::size_t WINNER = 417;
    std::vector<float> logWeights(K, -INFINITY);
    logWeights[WINNER] = 2.0F;
    const auto sut = resample(logWeights, 0.01F);
    EXPECT_EQ(sut.copies[WINNER], K);
}

TEST(SystematicResample, SingleParticleCopiesItself) {
    const auto sut = resample({-1.0F}, 1.0F);
    EXPECT_EQ(sut.copyIndex[0], 0U);
}

TEST(SystematicResample, MillionParticlesLoseNoMass) {
    // Weights spanning 12 orders of magnitude: a float running sum would stall; the integer CDF is exact.
    constexpr std::size_t K = 1'000'000;
    const auto logWeights = randomLogWeights(K, 7, 4.0F);
    const auto sut = resample(logWeights, 0.61F);
    EXPECT_EQ(std::accumulate(sut.copies.begin(), sut.copies.end(), std::size_t{0}), K);
    expectFloorOrCeil(logWeights, sut);
}

TEST(QuantizeWeight, TracksTheExponentialAndItsEdges) {
    constexpr double SCALE = 2147483648.0;  // 2^31
    for (float d = 0.0F; d > -21.0F; d -= 0.37F) {
        const double expected = std::exp(static_cast<double>(d)) * SCALE;
        EXPECT_NEAR(static_cast<double>(quantizeWeight(d, 0.0F)), expected, expected * 3e-7 + 1.0) << d;
    }
    EXPECT_EQ(quantizeWeight(0.0F, 0.0F), 1ULL << 31U);
    EXPECT_EQ(quantizeWeight(-INFINITY, 0.0F), 0U);
    EXPECT_EQ(quantizeWeight(NAN, 0.0F), 0U);
    EXPECT_EQ(quantizeWeight(-50.0F, 0.0F), 0U);
    EXPECT_EQ(quantizeWeight(-INFINITY, -INFINITY), 1ULL << 31U);
}

TEST(CopyRange, NeighbouringRangesChainExactly) {
    constexpr std::uint32_t K = 97;
    const std::uint64_t cdf[] = {0, 5, 5, 1000, 123456, 123457, 999999};
    const std::uint64_t total = 999999;
    std::int64_t previousLast = -1;
    for (std::size_t i = 1; i < std::size(cdf); ++i) {
        std::int64_t first = 0;
        std::int64_t last = 0;
        copyRange(cdf[i - 1], cdf[i], total, K, 0.37F, first, last);
        EXPECT_EQ(first, previousLast + 1);
        previousLast = std::max(last, previousLast);
    }
    EXPECT_EQ(previousLast, K - 1);
}

using CopySearch = std::uint32_t (*)(const std::uint64_t*, std::uint32_t, float, std::uint32_t) noexcept;

/// The integer CDF of the quantised weights (as cpu::systematicResample builds it).
std::vector<std::uint64_t> quantizedCdf(const std::vector<float>& logWeights) {
    const float maxLog = *std::max_element(logWeights.begin(), logWeights.end());
    std::vector<std::uint64_t> cdf(logWeights.size());
    std::uint64_t running = 0;
    for (std::size_t i = 0; i < logWeights.size(); ++i) {
        running += quantizeWeight(logWeights[i], maxLog);
        cdf[i] = running;
    }
    return cdf;
}

/// ρ[j] by a search for every j (the device's balanced formulation), from the same CDF.
std::vector<std::uint32_t> searchedCopyIndex(const std::vector<float>& logWeights, float u, CopySearch search) {
    const auto k = static_cast<std::uint32_t>(logWeights.size());
    const std::vector<std::uint64_t> cdf = quantizedCdf(logWeights);
    std::vector<std::uint32_t> copyIndex(k);
    for (std::uint32_t j = 0; j < k; ++j) {
        copyIndex[j] = search(cdf.data(), k, u, j);
    }
    return copyIndex;
}

/// As the device: the first search of copySourceBracketed narrowed to the tile of `tile` CDF entries
/// whose inclusive prefix (its last entry) is the first to reach the bracket's lower bound.
std::vector<std::uint32_t> tiledCopyIndex(const std::vector<float>& logWeights, float u, std::uint32_t tile) {
    const auto k = static_cast<std::uint32_t>(logWeights.size());
    const std::vector<std::uint64_t> cdf = quantizedCdf(logWeights);
    const std::uint32_t tiles = (k + tile - 1) / tile;
    std::vector<std::uint64_t> tilePrefix(tiles);
    for (std::uint32_t t = 0; t < tiles; ++t) {
        tilePrefix[t] = cdf[std::min(k, (t + 1) * tile) - 1];
    }
    std::vector<std::uint32_t> copyIndex(k);
    for (std::uint32_t j = 0; j < k; ++j) {
        const CopyBracket bracket = copyBracket(cdf[k - 1], k, u, j);
        const std::uint32_t t = cdfLowerBound(tilePrefix.data(), 0, tiles - 1, bracket.low);
        const std::uint32_t first = cdfLowerBound(cdf.data(), t * tile, std::min(k, (t + 1) * tile) - 1, bracket.low);
        copyIndex[j] = copySourceFrom(cdf.data(), k, u, j, bracket, first);
    }
    return copyIndex;
}

constexpr float HEAVY_LOG_WEIGHT = 0.0F;
constexpr float NEGLIGIBLE_LOG_WEIGHT = -40.0F;  // below 2⁻³¹ of the heaviest: quantised to zero

/// Random weights of two spreads, all equal, and one source owning every copy.
std::vector<std::vector<float>> searchCases(std::uint32_t k) {
    std::vector<std::vector<float>> cases = {randomLogWeights(k, k + 11, 3.0F), randomLogWeights(k, k + 12, 30.0F),
                                             std::vector<float>(k, 0.0F)};
    std::vector<float> degenerate(k, NEGLIGIBLE_LOG_WEIGHT);
    degenerate[k / 2] = HEAVY_LOG_WEIGHT;
    cases.push_back(degenerate);
    return cases;
}

TEST(CopySource, BinarySearchGivesThePerSourceCopyIndices) {
    for (const std::uint32_t k : {1U, 2U, 7U, 1000U, 4097U}) {
        for (const auto& logWeights : searchCases(k)) {
            for (const float u : {0.0001F, 0.37F, 1.0F}) {
                EXPECT_EQ(searchedCopyIndex(logWeights, u, copySource), resample(logWeights, u).copyIndex)
                    << "K = " << k << ", u = " << u;
            }
        }
    }
}

TEST(CopySource, BracketedSearchGivesThePerSourceCopyIndices) {
    constexpr std::uint32_t RUN = 997;  // zero-weight sources between two heavy ones
    for (const std::uint32_t k : {1U, 2U, 3U, 7U, 1000U, 2049U, 4097U, 100'003U}) {
        auto cases = searchCases(k);
        // Long runs of zero-weight sources (equal CDF values) with a few heavy ones between them.
        std::vector<float> runs(k, NEGLIGIBLE_LOG_WEIGHT);
        for (std::uint32_t i = 0; i < k; i += RUN) {
            runs[i] = HEAVY_LOG_WEIGHT - static_cast<float>(i % 5);
        }
        cases.push_back(runs);
        // Weights that alternate between heavy and almost negligible (≈ 2⁻³⁰ of the heaviest).
        std::vector<float> alternating(k);
        for (std::uint32_t i = 0; i < k; ++i) {
            alternating[i] = i % 2 == 0 ? HEAVY_LOG_WEIGHT : -20.5F;
        }
        cases.push_back(alternating);
        for (const auto& logWeights : cases) {
            for (const float u : {1e-7F, 0.0001F, 0.5F, 0.9999999F, 1.0F}) {
                const auto expected = resample(logWeights, u).copyIndex;
                EXPECT_EQ(searchedCopyIndex(logWeights, u, copySourceBracketed), expected) << "K = " << k << ", u = " << u;
                for (const std::uint32_t tile : {1U, 7U, 2048U}) {
                    EXPECT_EQ(tiledCopyIndex(logWeights, u, tile), expected)
                        << "K = " << k << ", u = " << u << ", tile " << tile;
                }
            }
        }
    }
}

TEST(GatherParticles, CopiesWholeParticlesInBothLayouts) {
    constexpr std::uint32_t K = 5;
    constexpr std::uint32_t STRIDE = 3;
    const std::vector<std::uint32_t> copyIndex = {4, 4, 0, 2, 2};
    std::vector<float> aos(K * STRIDE);
    std::iota(aos.begin(), aos.end(), 0.0F);
    std::vector<float> soa(K * STRIDE);
    for (std::uint32_t p = 0; p < K; ++p) {
        for (std::uint32_t f = 0; f < STRIDE; ++f) {
            soa[f * K + p] = aos[p * STRIDE + f];
        }
    }
    std::vector<float> outAos(K * STRIDE);
    std::vector<float> outSoa(K * STRIDE);
    cpu::gatherParticles(aos, outAos, copyIndex, STRIDE, StateLayout::ArrayOfStructs);
    cpu::gatherParticles(soa, outSoa, copyIndex, STRIDE, StateLayout::StructOfArrays);
    for (std::uint32_t j = 0; j < K; ++j) {
        for (std::uint32_t f = 0; f < STRIDE; ++f) {
            EXPECT_EQ(outAos[j * STRIDE + f], aos[copyIndex[j] * STRIDE + f]);
            EXPECT_EQ(outSoa[f * K + j], aos[copyIndex[j] * STRIDE + f]);
        }
    }
}

}  // namespace
}  // namespace augur::kernels::pf
