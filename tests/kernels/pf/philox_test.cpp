// Philox-4x32-10 against the Random123 known-answer vectors, and the stream conventions.
#include <gtest/gtest.h>

#include <set>

#include "augur/kernels/pf/philox.hpp"

namespace augur::kernels::pf {
namespace {

void expectWords(const Philox4& actual, const Philox4& expected) {
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(actual.v[i], expected.v[i]) << "word " << i;
    }
}

TEST(Philox, ZeroCounterAndKeyMatchKnownAnswer) {
    const Philox4 sut = philox4x32_10(Philox4{{0, 0, 0, 0}}, 0, 0);
    expectWords(sut, Philox4{{0x6627e8d5U, 0xe169c58dU, 0xbc57ac4cU, 0x9b00dbd8U}});
}

TEST(Philox, AllOnesCounterAndKeyMatchKnownAnswer) {
    const Philox4 sut = philox4x32_10(Philox4{{0xffffffffU, 0xffffffffU, 0xffffffffU, 0xffffffffU}}, 0xffffffffU,
                                      0xffffffffU);
    expectWords(sut, Philox4{{0x408f276dU, 0x41c83b0eU, 0xa20bc7c6U, 0x6d5451fdU}});
}

TEST(Philox, PiDigitsCounterAndKeyMatchKnownAnswer) {
    const Philox4 sut =
        philox4x32_10(Philox4{{0x243f6a88U, 0x85a308d3U, 0x13198a2eU, 0x03707344U}}, 0xa4093822U, 0x299f31d0U);
    expectWords(sut, Philox4{{0xd16cfe09U, 0x94fdccebU, 0x5001e420U, 0x24126ea1U}});
}

TEST(Philox, TwoCountersSideBySideGiveTheWordsOfTwoCalls) {
    const Philox4 counters[] = {Philox4{{0, 0, 0, 0}}, Philox4{{0xffffffffU, 0xffffffffU, 0xffffffffU, 0xffffffffU}},
                                Philox4{{0x243f6a88U, 0x85a308d3U, 0x13198a2eU, 0x03707344U}},
                                Philox4{{7U, 11U, 3U, 1U}}};
    const std::uint32_t keys[][2] = {{0U, 0U}, {0xffffffffU, 0xffffffffU}, {0xa4093822U, 0x299f31d0U}};
    for (const auto& key : keys) {
        for (const Philox4& first : counters) {
            for (const Philox4& second : counters) {
                Philox4 a = first;
                Philox4 b = second;
                philox4x32_10(a, b, key[0], key[1]);
                expectWords(a, philox4x32_10(first, key[0], key[1]));
                expectWords(b, philox4x32_10(second, key[0], key[1]));
            }
        }
    }
}

TEST(Philox, UniformsCoverTheirHalfOpenIntervals) {
    EXPECT_EQ(uniform01(0U), 0.0F);
    EXPECT_LT(uniform01(0xffffffffU), 1.0F);
    EXPECT_GT(uniformOpen0(0U), 0.0F);
    EXPECT_EQ(uniformOpen0(0xffffffffU), 1.0F);
}

TEST(RandomStream, SameTupleGivesSameDrawsAndNeighboursDiffer) {
    constexpr std::uint64_t SEED = 0x1234'5678'9abc'def0ULL;
    RandomStream a(SEED, 7, 11, 3);
    RandomStream b(SEED, 7, 11, 3);
    expectWords(a.block(), b.block());
    std::set<std::uint32_t> firstWords;
    firstWords.insert(RandomStream(SEED, 7, 11, 3).block().v[0]);
    firstWords.insert(RandomStream(SEED, 8, 11, 3).block().v[0]);
    firstWords.insert(RandomStream(SEED, 7, 12, 3).block().v[0]);
    firstWords.insert(RandomStream(SEED, 7, 11, 4).block().v[0]);
    firstWords.insert(RandomStream(SEED + 1, 7, 11, 3).block().v[0]);
    EXPECT_EQ(firstWords.size(), 5U);
}

TEST(RandomStream, NormalsHaveUnitMomentsOverManyParticles) {
    constexpr int COUNT = 200'000;
    double sum = 0.0;
    double sumSquares = 0.0;
    for (int k = 0; k < COUNT / 4; ++k) {
        RandomStream rng(99, 0, static_cast<std::uint32_t>(k), 0);
        float n[4];
        rng.normals4(n);
        for (const float x : n) {
            sum += x;
            sumSquares += static_cast<double>(x) * x;
        }
    }
    const double mean = sum / COUNT;
    const double variance = sumSquares / COUNT - mean * mean;
    EXPECT_NEAR(mean, 0.0, 0.01);
    EXPECT_NEAR(variance, 1.0, 0.01);
}

TEST(RandomStream, NormalIsTheFirstOfItsBlocksNormals) {
    for (std::uint32_t k = 0; k < 64; ++k) {
        RandomStream sut(99, 3, k, 0);
        RandomStream reference(99, 3, k, 0);
        float n[4];
        reference.normals4(n);
        EXPECT_EQ(sut.normal(), n[0]) << "particle " << k;
        reference.normals4(n);  // the next call draws the next block
        EXPECT_EQ(sut.normal(), n[0]) << "particle " << k;
    }
}

TEST(RandomStream, BlocksAreTheNextTwoBlocks) {
    for (std::uint32_t k = 0; k < 64; ++k) {
        RandomStream sut(0x0123456789abcdefULL, 5, k, 2);
        RandomStream reference(0x0123456789abcdefULL, 5, k, 2);
        expectWords(sut.block(), reference.block());  // blocks() continues the stream's draws
        Philox4 first{};
        Philox4 second{};
        sut.blocks(first, second);
        expectWords(first, reference.block());
        expectWords(second, reference.block());
        expectWords(sut.block(), reference.block());
    }
}

}  // namespace
}  // namespace augur::kernels::pf
