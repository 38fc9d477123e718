// Private to kernels/pf: the systematic-resampling launches the filter's step uses. The step keeps
// the CDF scan's look-back descriptors clean itself (zeroed at initialisation, left zeroed by every
// copy-index kernel), scans the CDF inside its combine kernel, and leaves the gather to its next
// predict, which reads the particles through the copy indices — so a resampling adds one kernel.
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
/// filter's combine kernel scans it — then one thread per copy), when *enabled != 0 on the device;
/// then sets *pending = 1 (when non-null). Leaves the look-back descriptors zeroed either way. One or two
/// kernels; graph-capturable. `early`: the copy-index kernel is launched early behind the kernel
/// before it (programmatic dependent launch: primitives/dependent_launch.cuh).
[[nodiscard]] platform::GpuStatus launchSystematicResample(const float* logWeights, std::uint32_t particles,
                                                           const float* maxLogWeight, const float* u,
                                                           std::uint32_t* copyIndex, const std::uint32_t* enabled,
                                                           std::uint32_t* pending, void* scratch, bool cdfScanned,
                                                           bool early, platform::StreamHandle stream) noexcept;

}  // namespace augur::kernels::pf::cuda::internal
