// Baselines of Hortelano et al. 2023 section 5.5 that live only in the benchmark: the atomicAdd output reduction;
// and a probe: a kernel with no work (the cost of a graph node).
#pragma once

#include <cstdint>

#include "augur/kernels/pf/particles.hpp"
#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"

namespace augur::bench {

/// Scene-model outputs by atomicAdd: every particle adds w·output to each of the
/// 1 + vehicles·OUTPUTS_PER_VEHICLE accumulators (Σw first). `outputs` is zeroed first.
platform::GpuStatus sceneOutputsAtomicAdd(const float* states, const float* logWeights, std::uint32_t particles,
                                          std::uint32_t vehicles, kernels::pf::StateLayout layout, float* outputs,
                                          platform::StreamHandle stream) noexcept;

/// One block of one thread that does nothing: a dependent graph node's launch and ramp alone.
platform::GpuStatus emptyKernel(platform::StreamHandle stream) noexcept;

}  // namespace augur::bench
