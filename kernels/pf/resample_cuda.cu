// CUDA systematic resampling: quantised weights → integer CDF by a single-pass decoupled look-back
// scan (exact, deterministic) → the copy indices of Cao et al. 2018 eqs. 10–12 (each source's s_hi once, then
// a block's suffix minima; a bracketed integer search where zero weights widen the range) → coalesced
// gather of whole particles (Hortelano et al. 2023 section 4.2.3). The particle filter's step launches none of
// these: its combine scans the CDF and its next advance draws the copy indices of its own particles
// the same way (cdf_scan.cuh) and gathers them into its predict.

#include <cuda_runtime.h>

#include <algorithm>

#include "../primitives/lookback_scan.cuh"
#include "augur/kernels/pf/resample.hpp"
#include "augur/platform/memory.hpp"
#include "cdf_scan.cuh"
#include "resample_cuda.hpp"
#include "tuning.hpp"

namespace augur::kernels::pf::cuda {
namespace {

namespace lookback = primitives::detail;
using internal::ResampleScratch;

/// Inclusive scan of quantizeWeight(log w, max): one tile per block. VECTOR: 16-byte log-weight loads.
template <bool VECTOR, std::uint32_t SEGMENTS>
__global__ void __launch_bounds__(lookback::LOOKBACK_BLOCK)
    cdfKernel(const float* __restrict__ logWeights, std::uint32_t particles, const float* maxLogWeight,
              std::uint64_t* __restrict__ cdf, internal::CdfLookbackState state, const std::uint32_t* enabled) {
    if (enabled != nullptr && *enabled == 0U) {
        return;
    }
    const auto tile = internal::loadTileLogWeights<VECTOR, SEGMENTS>(logWeights, particles);
    internal::scanQuantizedTile(tile, particles, *maxLogWeight, cdf, state);
}

/// Block b writes the copy indices ρ[j] of COPY_INDEX_ITEMS × COPY_INDEX_BLOCK consecutive copies j
/// (drawCopyIndices, cdf_scan.cuh: one round; warps 0 and 1 find the sources of its first and last
/// copy, then the block draws the copies' sources from the CDF between them).
__global__ void __launch_bounds__(tuning::COPY_INDEX_BLOCK)
    copyIndexKernel(const std::uint64_t* cdf, std::uint32_t particles, const float* u,
                    std::uint32_t* __restrict__ copyIndex, const std::uint32_t* enabled) {
    constexpr std::uint32_t ITEMS = tuning::COPY_INDEX_ITEMS;
    constexpr std::uint32_t COPIES = ITEMS * tuning::COPY_INDEX_BLOCK;
    static_assert(tuning::COPY_INDEX_WINDOW == 2 * COPIES, "the window holds twice the block's copies");
    __shared__ alignas(16) std::uint64_t window[tuning::COPY_INDEX_WINDOW];  // read in 16 bytes (markedSources)
    __shared__ std::uint32_t bounds[tuning::COPY_INDEX_BLOCK / 32];
    if (enabled != nullptr && *enabled == 0U) {
        return;
    }
    const std::uint32_t firstCopy = blockIdx.x * COPIES;
    internal::drawCopyIndices<ITEMS>(cdf, __ldcg(&cdf[particles - 1]), particles, *u, firstCopy,
                                     min(particles, firstCopy + COPIES), copyIndex, window, tuning::COPY_INDEX_WINDOW,
                                     bounds, threadIdx.x, blockDim.x);
}

/// Array of structs: element e of the destination (a Vec of one particle's `width` Vecs) from the
/// source particle ρ[e / width]; grid-stride, 32-bit index arithmetic (K · stride < 2³²). Vec = float4
/// when the stride is a multiple of 4 floats (16-byte accesses), float otherwise.
template <typename Vec>
__global__ void gatherAosKernel(const Vec* __restrict__ src, Vec* __restrict__ dst, const std::uint32_t* __restrict__ copyIndex,
                                std::uint32_t particles, std::uint32_t width, const std::uint32_t* enabled) {
    if (enabled != nullptr && *enabled == 0U) {
        return;
    }
    const std::uint32_t total = particles * width;
    for (std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x; e < total; e += gridDim.x * blockDim.x) {
        const std::uint32_t j = e / width;
        dst[e] = src[copyIndex[j] * width + (e - j * width)];
    }
}

/// Structure of arrays: thread (j, field group) copies GATHER_SOA_FIELDS fields of particle j — one
/// copy-index load, independent gathered loads, coalesced stores along j; no integer division.
__global__ void gatherSoaKernel(const float* __restrict__ src, float* __restrict__ dst, const std::uint32_t* __restrict__ copyIndex,
                                std::uint32_t particles, std::uint32_t stride, const std::uint32_t* enabled) {
    if (enabled != nullptr && *enabled == 0U) {
        return;
    }
    const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= particles) {
        return;
    }
    const std::uint32_t from = copyIndex[j];
    const std::uint32_t first = blockIdx.y * tuning::GATHER_SOA_FIELDS;
    const std::uint32_t fields = min(tuning::GATHER_SOA_FIELDS, stride - first);
    const std::size_t k = particles;
    float v[tuning::GATHER_SOA_FIELDS];
#pragma unroll
    for (std::uint32_t f = 0; f < tuning::GATHER_SOA_FIELDS; ++f) {
        if (f < fields) {
            v[f] = src[(first + f) * k + from];
        }
    }
#pragma unroll
    for (std::uint32_t f = 0; f < tuning::GATHER_SOA_FIELDS; ++f) {
        if (f < fields) {
            dst[(first + f) * k + j] = v[f];
        }
    }
}

template <typename Vec>
platform::GpuStatus launchGatherAos(const float* src, float* dst, const std::uint32_t* copyIndex, std::uint32_t particles,
                                    std::uint32_t width, const std::uint32_t* enabled, platform::StreamHandle stream) {
    const std::uint64_t work = static_cast<std::uint64_t>(particles) * width;
    const auto blocks = static_cast<std::uint32_t>(
        std::min<std::uint64_t>((work + tuning::GATHER_BLOCK - 1) / tuning::GATHER_BLOCK, tuning::GATHER_MAX_BLOCKS));
    gatherAosKernel<Vec><<<blocks, tuning::GATHER_BLOCK, 0, stream>>>(reinterpret_cast<const Vec*>(src),
                                                                     reinterpret_cast<Vec*>(dst), copyIndex, particles,
                                                                     width, enabled);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

}  // namespace

namespace internal {

std::size_t resampleScratchBytes(std::uint32_t particles) noexcept {
    return cdfBytes(particles) + lookback::lookbackStateBytes<std::uint64_t, CdfDescriptor>(cdfTiles(particles));
}

ResampleScratch carve(void* scratch, std::uint32_t particles) noexcept {
    char* base = static_cast<char*>(scratch);
    const std::uint32_t tiles = cdfTiles(particles);
    void* stateBase = base + cdfBytes(particles);
    return ResampleScratch{reinterpret_cast<std::uint64_t*>(base),
                           lookback::lookbackState<std::uint64_t, CdfDescriptor>(stateBase, tiles), stateBase, tiles};
}

platform::GpuStatus clearResampleState(void* scratch, std::uint32_t particles, platform::StreamHandle stream) noexcept {
    const ResampleScratch s = carve(scratch, particles);
    const std::size_t clearBytes = lookback::lookbackClearBytes<std::uint64_t, CdfDescriptor>(s.tiles);
    return platform::fillDevice(s.stateBase, 0, clearBytes, stream);
}

platform::GpuStatus launchSystematicResample(const float* logWeights, std::uint32_t particles, const float* maxLogWeight,
                                             const float* u, std::uint32_t* copyIndex, const std::uint32_t* enabled,
                                             void* scratch, bool cdfScanned, platform::StreamHandle stream) noexcept {
    const ResampleScratch s = carve(scratch, particles);
    if (!cdfScanned) {
        const bool vector = reinterpret_cast<std::uintptr_t>(logWeights) % 16 == 0;
        const bool one = cdfSegments(particles) == 1;
        auto* kernel = vector ? (one ? cdfKernel<true, 1> : cdfKernel<true, 2>) : (one ? cdfKernel<false, 1> : cdfKernel<false, 2>);
        kernel<<<s.tiles, lookback::LOOKBACK_BLOCK, 0, stream>>>(logWeights, particles, maxLogWeight, s.cdf, s.state,
                                                                 enabled);
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
    }
    constexpr std::uint32_t COPIES = tuning::COPY_INDEX_ITEMS * tuning::COPY_INDEX_BLOCK;
    const std::uint32_t blocks = (particles + COPIES - 1) / COPIES;
    copyIndexKernel<<<blocks, tuning::COPY_INDEX_BLOCK, 0, stream>>>(s.cdf, particles, u, copyIndex, enabled);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

}  // namespace internal

std::size_t systematicResampleScratchBytes(std::uint32_t particles) noexcept {
    return internal::resampleScratchBytes(particles);
}

platform::GpuStatus systematicResample(const float* logWeights, std::uint32_t particles, const float* maxLogWeight,
                                       const float* u, std::uint32_t* copyIndex, const std::uint32_t* enabled,
                                       void* scratch, std::size_t scratchBytes, platform::StreamHandle stream) noexcept {
    if (particles == 0 || particles > MAX_PARTICLES || scratchBytes < systematicResampleScratchBytes(particles)) {
        return AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
    }
    AUGUR_CUDA_TRY(internal::clearResampleState(scratch, particles, stream));
    return internal::launchSystematicResample(logWeights, particles, maxLogWeight, u, copyIndex, enabled, scratch,
                                              false, stream);
}

platform::GpuStatus gatherParticles(const float* src, float* dst, const std::uint32_t* copyIndex,
                                    std::uint32_t particles, std::uint32_t stride, StateLayout layout,
                                    const std::uint32_t* enabled, platform::StreamHandle stream) noexcept {
    if (particles == 0 || stride == 0) {
        return {};
    }
    if (layout == StateLayout::ArrayOfStructs) {
        return stride % 4 == 0 ? launchGatherAos<float4>(src, dst, copyIndex, particles, stride / 4, enabled, stream)
                               : launchGatherAos<float>(src, dst, copyIndex, particles, stride, enabled, stream);
    }
    const dim3 grid((particles + tuning::GATHER_BLOCK - 1) / tuning::GATHER_BLOCK,
                    (stride + tuning::GATHER_SOA_FIELDS - 1) / tuning::GATHER_SOA_FIELDS);
    gatherSoaKernel<<<grid, tuning::GATHER_BLOCK, 0, stream>>>(src, dst, copyIndex, particles, stride, enabled);
    return AUGUR_CUDA_CHECK_LAUNCH();
}


}  // namespace augur::kernels::pf::cuda
