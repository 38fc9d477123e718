// The agent of the step's first kernel: the inputs from the mapped staging into device memory, and the
// look-back state of the step's CDF scan zeroed. Private to kernels/pf (filter_cuda.cu).
#pragma once

#include <cstdint>

#include "common.cuh"

namespace augur::kernels::pf::cuda::agent {

/// The step's inputs, copied by one block from the mapped page-locked staging into device memory,
/// read over the bus (on an integrated GPU, from the same memory) in one round of 16-byte loads for
/// up to UPLOAD_BLOCK · 16 bytes (both buffers are 16-byte aligned: cudaHostAlloc and cudaMalloc
/// return page- and 256-byte-aligned memory); the words past the last whole 16 bytes one by one.
/// A kernel, not a copy-engine node: in a graph, the kernels after a copy-engine upload of the seed
/// scale's 2.9 KB started 6–9 µs later (H100, augur-bench-pf --only nodes). Also zeroes the look-back
/// state of the step's CDF scan (cdfTiles descriptors; the last scan finished before this kernel
/// started): there, not in the advance kernels, where the loop over the descriptors cost the
/// 48-register vehicle kernel 72 more bytes of spills (ptxas, sm_90).
/// The body of dispatch::uploadKernel (one block of UPLOAD_BLOCK threads).
__device__ __forceinline__ void uploadInputs(const std::uint32_t* __restrict__ staged,
                                             std::uint32_t* __restrict__ inputs, std::uint32_t words,
                                             internal::CdfLookbackState cdfState, std::uint32_t cdfTiles) {
    primitives::allowDependentLaunch();  // the advance kernel's blocks may be scheduled meanwhile
    const std::uint32_t vectors = words / 4;
    for (std::uint32_t i = threadIdx.x; i < vectors; i += blockDim.x) {
        reinterpret_cast<uint4*>(inputs)[i] = reinterpret_cast<const uint4*>(staged)[i];
    }
    for (std::uint32_t i = 4 * vectors + threadIdx.x; i < words; i += blockDim.x) {
        inputs[i] = staged[i];
    }
    internal::lookback::zeroLookbackState(cdfState, cdfTiles, threadIdx.x, blockDim.x);
}

}  // namespace augur::kernels::pf::cuda::agent
