// CUDA systematic resampling: quantised weights → integer CDF by a single-pass decoupled look-back
// scan (exact, deterministic) → one thread per copy finds its source (seed 004 eqs. 10–12, bracketed
// integer search) → coalesced gather of whole particles (seed 000 section 4.2.3). The particle filter
// runs the first two and leaves the gather to its next predict, which reads through the copy indices.
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/permutation_iterator.h>

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
using internal::CDF_TILE;
using internal::MAX_CDF_TILES;
using internal::ResampleScratch;

/// Inclusive scan of quantizeWeight(log w, max): one tile per block. VECTOR: 16-byte log-weight loads.
template <bool VECTOR>
__global__ void __launch_bounds__(lookback::LOOKBACK_BLOCK)
    cdfKernel(const float* __restrict__ logWeights, std::uint32_t particles, const float* maxLogWeight,
              std::uint64_t* __restrict__ cdf, lookback::LookbackState<std::uint64_t> state, const std::uint32_t* enabled) {
    if (enabled != nullptr && *enabled == 0U) {
        return;
    }
    internal::scanQuantizedTile<VECTOR>(logWeights, particles, *maxLogWeight, cdf, state);
}

/// One thread per copy j: ρ[j] by the bracketed search over the exact integer CDF — the same indices
/// as seed 004's per-source formulation (copyRange), balanced whatever the weights. The first search
/// is narrowed to one CDF tile: the tiles' inclusive prefixes (the scan's look-back values) are
/// searched in shared memory first, which saves log2(tiles) dependent global loads per copy. Then
/// leaves the scan's tile flags zeroed for the next resampling (the scan has finished: stream
/// order) and marks the copy indices pending when asked to.
__global__ void __launch_bounds__(tuning::COPY_INDEX_BLOCK)
    copyIndexKernel(const std::uint64_t* __restrict__ cdf, std::uint32_t particles, const float* u,
                    std::uint32_t* __restrict__ copyIndex, const std::uint32_t* enabled, std::uint32_t* pending,
                    lookback::LookbackState<std::uint64_t> state, std::uint32_t tiles) {
    __shared__ std::uint64_t tilePrefix[MAX_CDF_TILES];
    if (enabled != nullptr && *enabled == 0U) {
        // The combine kernel scans on every step; its flags must be clean for the next one.
        lookback::zeroLookbackState(state, tiles, blockIdx.x * blockDim.x + threadIdx.x, gridDim.x * blockDim.x);
        return;
    }
    for (std::uint32_t t = threadIdx.x; t < tiles; t += blockDim.x) {
        tilePrefix[t] = __ldcg(&state.prefixes[t]);
    }
    __syncthreads();
    const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < particles) {
        const float uniform = *u;
        const CopyBracket bracket = copyBracket(tilePrefix[tiles - 1], particles, uniform, j);
        const std::uint32_t tile = cdfLowerBound(tilePrefix, 0, tiles - 1, bracket.low);
        const std::uint32_t first =
            cdfLowerBound(cdf, tile * CDF_TILE, min(particles, (tile + 1) * CDF_TILE) - 1, bracket.low);
        copyIndex[j] = copySourceFrom(cdf, particles, uniform, j, bracket, first);
    }
    lookback::zeroLookbackState(state, tiles, j, gridDim.x * blockDim.x);
    if (j == 0 && pending != nullptr) {
        *pending = 1U;
    }
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

template <int FLOATS>
struct FixedParticle {
    float f[FLOATS];
};

template <int FLOATS>
platform::GpuStatus thrustGather(const float* src, float* dst, const std::uint32_t* copyIndex, std::uint32_t particles,
                                 platform::StreamHandle stream) {
    const auto* from = reinterpret_cast<const FixedParticle<FLOATS>*>(src);
    auto* to = reinterpret_cast<FixedParticle<FLOATS>*>(dst);
    auto begin = thrust::make_permutation_iterator(from, copyIndex);
    try {
        thrust::copy(thrust::cuda::par_nosync.on(stream), begin, begin + particles, to);
    } catch (...) {  // Thrust reports CUDA errors by throwing; this API reports them as a status
        const cudaError_t error = cudaGetLastError();
        return AUGUR_CUDA_CHECK(error != cudaSuccess ? error : cudaErrorUnknown);
    }
    return AUGUR_CUDA_CHECK_LAUNCH();
}

}  // namespace

namespace internal {

std::size_t resampleScratchBytes(std::uint32_t particles) noexcept {
    return cdfBytes(particles) + lookback::lookbackStateBytes<std::uint64_t>(cdfTiles(particles));
}

ResampleScratch carve(void* scratch, std::uint32_t particles) noexcept {
    char* base = static_cast<char*>(scratch);
    const std::uint32_t tiles = cdfTiles(particles);
    void* stateBase = base + cdfBytes(particles);
    return ResampleScratch{reinterpret_cast<std::uint64_t*>(base),
                           lookback::lookbackState<std::uint64_t>(stateBase, tiles), stateBase, tiles};
}

platform::GpuStatus clearResampleState(void* scratch, std::uint32_t particles, platform::StreamHandle stream) noexcept {
    const ResampleScratch s = carve(scratch, particles);
    return platform::fillDevice(s.stateBase, 0, lookback::lookbackClearBytes<std::uint64_t>(s.tiles), stream);
}

platform::GpuStatus launchSystematicResample(const float* logWeights, std::uint32_t particles, const float* maxLogWeight,
                                             const float* u, std::uint32_t* copyIndex, const std::uint32_t* enabled,
                                             std::uint32_t* pending, void* scratch, bool cdfScanned,
                                             platform::StreamHandle stream) noexcept {
    const ResampleScratch s = carve(scratch, particles);
    if (cdfScanned) {
        // The combine kernel has scanned it.
    } else if (reinterpret_cast<std::uintptr_t>(logWeights) % 16 == 0) {
        cdfKernel<true><<<s.tiles, lookback::LOOKBACK_BLOCK, 0, stream>>>(logWeights, particles, maxLogWeight, s.cdf,
                                                                         s.state, enabled);
    } else {
        cdfKernel<false><<<s.tiles, lookback::LOOKBACK_BLOCK, 0, stream>>>(logWeights, particles, maxLogWeight, s.cdf,
                                                                          s.state, enabled);
    }
    if (!cdfScanned) {
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
    }
    const std::uint32_t blocks = (particles + tuning::COPY_INDEX_BLOCK - 1) / tuning::COPY_INDEX_BLOCK;
    copyIndexKernel<<<blocks, tuning::COPY_INDEX_BLOCK, 0, stream>>>(s.cdf, particles, u, copyIndex, enabled, pending,
                                                                    s.state, s.tiles);
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
    return internal::launchSystematicResample(logWeights, particles, maxLogWeight, u, copyIndex, enabled, nullptr,
                                              scratch, false, stream);
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

platform::GpuStatus gatherParticlesThrust(const float* src, float* dst, const std::uint32_t* copyIndex,
                                          std::uint32_t particles, std::uint32_t stride,
                                          platform::StreamHandle stream) noexcept {
    switch (stride) {
        case 12: return thrustGather<12>(src, dst, copyIndex, particles, stream);
        case 240: return thrustGather<240>(src, dst, copyIndex, particles, stream);
        default: return AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
    }
}

}  // namespace augur::kernels::pf::cuda
