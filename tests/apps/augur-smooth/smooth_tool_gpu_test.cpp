// augur-smooth with --backend cuda gives the CPU result (parallel and sequential).
#include <gtest/gtest.h>

#include <cmath>

#include "augur/testing/testing.hpp"
#include "smooth_tool.hpp"

namespace augur::apps::smooth {
namespace {

TEST(SmoothToolGpu, CudaBackendEqualsCpu) {
    AUGUR_REQUIRE_GPU();
    std::vector<Measurement> rows;
    for (int k = 0; k < 500; ++k) {
        rows.push_back({1, 0.1 * k, std::sin(0.05 * k) * 20.0, 0.3 * k});
        rows.push_back({2, 0.07 * k, 5.0, -0.2 * k + std::cos(0.1 * k)});
    }
    for (const Method method : {Method::Parallel, Method::Sequential}) {
        Options cpu;
        cpu.inputPath = "x";
        cpu.method = method;
        Options gpu = cpu;
        gpu.backend = kernels::Backend::Cuda;
        const auto expected = smoothAll(cpu, rows);
        const auto sut = smoothAll(gpu, rows);
        ASSERT_TRUE(expected.hasValue() && sut.hasValue()) << (sut.hasError() ? sut.error() : "");
        constexpr double TOLERANCE = 1e-10;
        for (std::size_t i = 0; i < sut->size(); ++i) {
            for (std::size_t c = 0; c < (*sut)[i].state.size(); ++c) {
                ASSERT_NEAR((*sut)[i].state[c], (*expected)[i].state[c],
                            TOLERANCE * (1.0 + std::abs((*expected)[i].state[c])));
            }
        }
    }
}

TEST(SmoothToolGpu, CudaBackendWithoutDeviceIsAnError) {
    if (testing::gpuPresent()) {
        GTEST_SKIP() << "a CUDA device is present";
    }
    Options options;
    options.inputPath = "x";
    options.backend = kernels::Backend::Cuda;
    EXPECT_TRUE(smoothAll(options, {{1, 0.0, 0.0, 0.0}}).hasError());
}

}  // namespace
}  // namespace augur::apps::smooth
