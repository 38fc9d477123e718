// Test and benchmark baselines of kernels/pf, outside the public API (target augur::kernels_testing):
// reference implementations the tests and benchmarks compare the engine's kernels with.
#pragma once

#include <cstdint>

#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::pf::cuda::testing {

/// The resampling gather as thrust::copy through a permutation iterator over particle structs (AoS,
/// stride 12 or 240 floats only — the single-vehicle and 20-vehicle scenes): the baseline the
/// particle-filter design note compares the engine's gather with. Returns an invalid-value error for
/// other strides.
[[nodiscard]] platform::GpuStatus gatherParticlesThrust(const float* src, float* dst, const std::uint32_t* copyIndex,
                                                        std::uint32_t particles, std::uint32_t stride,
                                                        platform::StreamHandle stream) noexcept;

}  // namespace augur::kernels::pf::cuda::testing
