// CPU references of the scan and reduction primitives.
#include <gtest/gtest.h>

#include <vector>

#include "augur/kernels/primitives/reduce.hpp"
#include "augur/kernels/primitives/scan.hpp"

namespace augur::kernels::primitives {
namespace {

TEST(ExclusiveScanCpu, EmptyInputWritesNothing) {
    std::vector<float> out(1, 7.0F);
    cpu::exclusiveScan({}, out);
    EXPECT_EQ(out[0], 7.0F);
}

TEST(ExclusiveScanCpu, FirstElementIsZeroAndEachIsTheSumBefore) {
    const std::vector<float> in = {3.0F, 1.0F, 4.0F, 1.0F, 5.0F};
    const std::vector<float> expected = {0.0F, 3.0F, 4.0F, 8.0F, 9.0F};
    std::vector<float> sut(in.size());
    cpu::exclusiveScan(in, sut);
    EXPECT_EQ(sut, expected);
}

TEST(ExclusiveScanCpu, WorksInPlace) {
    std::vector<float> sut = {1.0F, 2.0F, 3.0F};
    cpu::exclusiveScan(sut, sut);
    EXPECT_EQ(sut, (std::vector<float>{0.0F, 1.0F, 3.0F}));
}

TEST(ExclusiveScanCpu, AccumulatesInDoubleSoManySmallValuesDoNotStall) {
    // 2^25 + 1 in float: a float running sum stops growing at 2^24.
    constexpr std::size_t COUNT = (1U << 25U) + 1;
    const std::vector<float> in(COUNT, 1.0F);
    std::vector<float> sut(COUNT);
    cpu::exclusiveScan(in, sut);
    EXPECT_EQ(sut.back(), 33554432.0F);
}

TEST(ReduceSumCpu, SumsExactlyInDouble) {
    EXPECT_EQ(cpu::reduceSum({}), 0.0);
    const std::vector<float> in = {0.5F, -2.0F, 1e-8F, 3.0F};
    EXPECT_DOUBLE_EQ(cpu::reduceSum(in), 1.5 + static_cast<double>(1e-8F));
}

TEST(PrimitiveVariants, EveryVariantHasAName) {
    for (const auto v : ALL_SCAN_VARIANTS) {
        EXPECT_NE(toString(v), "invalid");
    }
    for (const auto v : ALL_REDUCE_VARIANTS) {
        EXPECT_NE(toString(v), "invalid");
    }
}

}  // namespace
}  // namespace augur::kernels::primitives
