// Private to kernels/pf: the gather launch the filter uses, which picks the source buffer on the
// device from the control block (so the step needs no host round trip to know it).
#pragma once

#include <cstdint>

#include "augur/kernels/pf/particles.hpp"
#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::pf::cuda::internal {

/// Gathers buffer[s] → buffer[1−s] with s = *current (or buffer0 → buffer1 when current is null);
/// nothing when *enabled == 0. With resetLogWeights non-null, the same kernel also sets the K
/// log-weights to 0, *swap to 1 and *maxLogWeight to 0 (the end of a resampling step, fused).
platform::GpuStatus launchGather(float* buffer0, float* buffer1, const std::uint32_t* copyIndex, std::uint32_t particles,
                                 std::uint32_t stride, StateLayout layout, const std::uint32_t* enabled,
                                 const std::uint32_t* current, float* resetLogWeights, std::uint32_t* swap,
                                 float* maxLogWeight, platform::StreamHandle stream) noexcept;

}  // namespace augur::kernels::pf::cuda::internal
