#include "augur/core/fixed_vector.hpp"

#include <gtest/gtest.h>

namespace augur {
namespace {

constexpr std::size_t CAPACITY = 3;

TEST(FixedVector, StartsEmpty) {
    const FixedVector<int, CAPACITY> sut;
    EXPECT_TRUE(sut.empty());
    EXPECT_EQ(sut.size(), 0U);
    EXPECT_EQ(sut.capacity(), CAPACITY);
}

TEST(FixedVector, PushBackUpToCapacityThenRefuses) {
    FixedVector<int, CAPACITY> sut;
    EXPECT_TRUE(sut.pushBack(1));
    EXPECT_TRUE(sut.pushBack(2));
    EXPECT_TRUE(sut.pushBack(3));
    EXPECT_TRUE(sut.full());
    EXPECT_FALSE(sut.pushBack(4));
    EXPECT_EQ(sut.size(), CAPACITY);
    EXPECT_EQ(sut[2], 3);
}

TEST(FixedVector, SwapRemoveMovesLastIntoHole) {
    FixedVector<int, CAPACITY> sut;
    ASSERT_TRUE(sut.pushBack(10));
    ASSERT_TRUE(sut.pushBack(20));
    ASSERT_TRUE(sut.pushBack(30));
    sut.swapRemove(0);
    ASSERT_EQ(sut.size(), 2U);
    EXPECT_EQ(sut[0], 30);
    EXPECT_EQ(sut[1], 20);
}

TEST(FixedVectorDeathTest, IndexPastSizePanics) {
    FixedVector<int, CAPACITY> sut;
    ASSERT_TRUE(sut.pushBack(1));
    EXPECT_DEATH({ (void)sut[1]; }, "FixedVector index out of range");
}

}  // namespace
}  // namespace augur
