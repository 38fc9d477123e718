#include "augur/platform/cuda_check.hpp"

#include <gtest/gtest.h>

namespace augur::platform {
namespace {

constexpr int SOME_CUDA_ERROR = 2;  // cudaErrorMemoryAllocation

GpuStatus forward(int code) {
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(code));
    return {};
}

TEST(CudaCheck, ZeroIsSuccess) { EXPECT_TRUE(AUGUR_CUDA_CHECK(0).hasValue()); }

TEST(CudaCheck, NonZeroCarriesCodeExpressionAndLocation) {
    const auto sut = AUGUR_CUDA_CHECK(SOME_CUDA_ERROR);
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().code, SOME_CUDA_ERROR);
    EXPECT_STREQ(sut.error().expression, "SOME_CUDA_ERROR");
    EXPECT_GT(sut.error().line, 0);
    EXPECT_NE(describe(sut.error()).find("cuda_check_test.cpp"), std::string::npos);
}

TEST(CudaCheck, TryReturnsTheErrorFromTheEnclosingFunction) {
    EXPECT_TRUE(forward(0).hasValue());
    const auto sut = forward(SOME_CUDA_ERROR);
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().code, SOME_CUDA_ERROR);
}

}  // namespace
}  // namespace augur::platform
