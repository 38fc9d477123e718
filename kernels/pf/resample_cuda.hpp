// Private to kernels/pf: the systematic-resampling launches of resample.hpp's API and of the filter's
// diagnostics. The filter's step launches none of them: its combine kernel scans the CDF, and its
// next advance draws the copy indices of its own particles and gathers them (agent/).
#pragma once

#include <cstddef>
#include <cstdint>

#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::pf::cuda::internal {

/// Scratch bytes of launchSystematicResample for K particles: the integer CDF and the look-back state.
[[nodiscard]] std::size_t resampleScratchBytes(std::uint32_t particles) noexcept;

/// Zeroes the look-back state in `scratch` (once, before the first launchSystematicResample).
[[nodiscard]] platform::GpuStatus clearResampleState(void* scratch, std::uint32_t particles,
                                                     platform::StreamHandle stream) noexcept;

/// Copy indices of systematic resampling (the CDF by single-pass scan — unless cdfScanned: the
/// filter's combine kernel has scanned it — then a block per 1,024 consecutive copies), when
/// *enabled != 0 on the device (always when `enabled` is null). The scan needs the look-back state
/// zeroed and leaves it used. One or two kernels; graph-capturable.
[[nodiscard]] platform::GpuStatus launchSystematicResample(const float* logWeights, std::uint32_t particles,
                                                           const float* maxLogWeight, const float* u,
                                                           std::uint32_t* copyIndex, const std::uint32_t* enabled,
                                                           void* scratch, bool cdfScanned,
                                                           platform::StreamHandle stream) noexcept;

}  // namespace augur::kernels::pf::cuda::internal
