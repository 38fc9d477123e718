// CUDA systematic resampling: quantised weights → integer CDF by a single-pass decoupled look-back
// scan (exact, deterministic) → one thread per copy finds its source (seed 004 eqs. 10–12, bracketed
// integer search) → coalesced gather of whole particles (seed 000 section 4.2.3). The particle filter
// runs the first two and leaves the gather to its next predict, which reads through the copy indices.
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/permutation_iterator.h>

#include <cuda_runtime.h>

#include <algorithm>

#include "../primitives/dependent_launch.cuh"
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
template <bool VECTOR>
__global__ void __launch_bounds__(lookback::LOOKBACK_BLOCK)
    cdfKernel(const float* __restrict__ logWeights, std::uint32_t particles, const float* maxLogWeight,
              std::uint64_t* __restrict__ cdf, internal::CdfLookbackState state, const std::uint32_t* enabled) {
    if (enabled != nullptr && *enabled == 0U) {
        return;
    }
    const internal::TileLogWeights tile = internal::loadTileLogWeights<VECTOR>(logWeights, particles);
    internal::scanQuantizedTile(tile, particles, *maxLogWeight, cdf, state);
}

/// The smallest i in [0, K − 1] with copyLast(cdf[i]) ≥ j — copy j's source, as copySource — by a
/// 32-way search of one warp: each round the lanes test 32 evenly spaced candidates at once, so the
/// chain of dependent global loads is about log₃₂ K long (4 at K = 10⁶) instead of log₂ K. Every
/// lane returns the answer.
__device__ __forceinline__ std::uint32_t warpCopySource(const std::uint64_t* cdf, std::uint64_t total,
                                                        std::uint32_t particles, float u, std::uint32_t j,
                                                        std::uint32_t lane) {
    constexpr std::uint32_t WARP = 32;
    auto reaches = [&](std::uint32_t i) { return copyLast(__ldcg(&cdf[i]), total, particles, u) >= static_cast<std::int64_t>(j); };
    // Invariant: the answer is in [lo, hi] and reaches(hi) (copyLast(total) = K − 1 ≥ j).
    std::uint32_t lo = 0;
    std::uint32_t hi = particles - 1;
    while (hi - lo >= WARP) {
        const std::uint32_t step = (hi - lo + WARP) / WARP;  // ⌈(hi − lo + 1) / 32⌉
        const std::uint32_t probe = min(lo + (lane + 1) * step - 1, hi);
        const std::uint32_t hits = __ballot_sync(0xFFFFFFFFU, reaches(probe));  // lane 31 probes hi: ≠ 0
        const auto first = static_cast<std::uint32_t>(__ffs(static_cast<int>(hits)) - 1);
        const std::uint32_t newHi = min(lo + (first + 1) * step - 1, hi);
        lo = first == 0 ? lo : lo + first * step;
        hi = newHi;
    }
    const std::uint32_t candidate = min(lo + lane, hi);
    const std::uint32_t hits = __ballot_sync(0xFFFFFFFFU, reaches(candidate));
    return lo + static_cast<std::uint32_t>(__ffs(static_cast<int>(hits)) - 1);
}

/// The block's window of the CDF in shared memory when it holds the whole source range (step 1),
/// indexed by particle: window[i − first] = cdf[i].
struct CdfWindow {
    const std::uint64_t* values;
    std::uint32_t first;
    __device__ __forceinline__ std::uint64_t operator[](std::uint32_t i) const { return values[i - first]; }
};

/// Block b writes the copy indices ρ[j] of COPY_INDEX_ITEMS × COPY_INDEX_BLOCK consecutive copies j.
/// Their sources are consecutive too (ρ is non-decreasing): warps 0 and 1 find the sources lo, hi of
/// the block's first and last copies (warpCopySource), the block reads the CDF over [lo, hi] into
/// shared memory with coalesced loads — typically about as many entries as copies — and every thread
/// searches it for its copies: the same integer bracket and copyLast search as copySourceBracketed,
/// hence the same indices as cpu::systematicResample, bit for bit. When [lo, hi] is wider than the
/// window (weights that quantise to zero between two copies: then a few sources own all copies), the
/// window holds every step-th entry and each search ends with log2(step) steps in global memory. A
/// thread's items search in lock step. Then leaves the scan's tile descriptors zeroed for the next
/// resampling (the scan has finished: stream order) and marks the copy indices pending when asked to.
__global__ void __launch_bounds__(tuning::COPY_INDEX_BLOCK)
    copyIndexKernel(const std::uint64_t* cdf, std::uint32_t particles, const float* u,
                    std::uint32_t* __restrict__ copyIndex, const std::uint32_t* enabled, std::uint32_t* pending,
                    internal::CdfLookbackState state, std::uint32_t tiles) {
    constexpr std::uint32_t ITEMS = tuning::COPY_INDEX_ITEMS;
    constexpr std::uint32_t COPIES = ITEMS * tuning::COPY_INDEX_BLOCK;
    __shared__ std::uint64_t window[tuning::COPY_INDEX_WINDOW];
    __shared__ std::uint32_t sources[2];
    const std::uint32_t thread = blockIdx.x * blockDim.x + threadIdx.x;
    primitives::waitForPrerequisiteGrid();  // may start early: no global access before this
    if (enabled != nullptr && *enabled == 0U) {
        // The combine kernel scans on every step; its descriptors must be clean for the next one.
        lookback::zeroLookbackState(state, tiles, thread, gridDim.x * blockDim.x);
        return;
    }
    const float uniform = *u;
    const std::uint64_t total = __ldcg(&cdf[particles - 1]);
    const std::uint32_t firstCopy = blockIdx.x * COPIES;
    const std::uint32_t lastCopy = min(particles, firstCopy + COPIES) - 1;
    const std::uint32_t warp = threadIdx.x / 32;
    if (warp < 2) {
        const std::uint32_t lane = threadIdx.x % 32;
        const std::uint32_t source = warpCopySource(cdf, total, particles, uniform, warp == 0 ? firstCopy : lastCopy, lane);
        if (lane == 0) {
            sources[warp] = source;
        }
    }
    __syncthreads();
    const std::uint32_t lo = sources[0];
    const std::uint32_t hi = sources[1];
    const std::uint32_t span = hi - lo + 1;
    const std::uint32_t step = (span + tuning::COPY_INDEX_WINDOW - 1) / tuning::COPY_INDEX_WINDOW;  // block-uniform
    const std::uint32_t samples = (span + step - 1) / step;
    for (std::uint32_t k = threadIdx.x; k < samples; k += blockDim.x) {
        window[k] = __ldcg(&cdf[lo + k * step]);
    }
    __syncthreads();

    std::uint32_t j[ITEMS];
    CopyBracket bracket[ITEMS];
    std::uint32_t first[ITEMS];
#pragma unroll
    for (std::uint32_t item = 0; item < ITEMS; ++item) {
        j[item] = min(firstCopy + item * tuning::COPY_INDEX_BLOCK + threadIdx.x, lastCopy);
        bracket[item] = copyBracket(total, particles, uniform, j[item]);
    }
    // The first source with CDF ≥ bracket.low: among the samples (shared), then within the step.
#pragma unroll
    for (std::uint32_t item = 0; item < ITEMS; ++item) {
        first[item] = 0;
    }
    for (std::uint32_t len = samples + 1; len > 1;) {  // lowerBoundFixed over the samples, ITEMS at once
        const std::uint32_t half = len / 2;
#pragma unroll
        for (std::uint32_t item = 0; item < ITEMS; ++item) {
            first[item] = window[first[item] + half - 1] < bracket[item].low ? first[item] + half : first[item];
        }
        len -= half;
    }
    // first[item] = k: sample k ≥ low and sample k − 1 < low, or k = samples when no sample is.
    if (step == 1) {
#pragma unroll
        for (std::uint32_t item = 0; item < ITEMS; ++item) {
            first[item] = lo + min(first[item], span - 1);  // none → hi, as cdfLowerBoundIn
        }
    } else {
        // The answer is in (lo + (k − 1)·step, lo + k·step], or past the last sample up to hi.
        std::uint32_t len[ITEMS];
#pragma unroll
        for (std::uint32_t item = 0; item < ITEMS; ++item) {
            const std::uint32_t k = first[item];
            const std::uint32_t from = k == 0 ? lo : min(lo + (k - 1) * step + 1, hi);
            const std::uint32_t to = k == 0 ? lo : (k < samples ? lo + k * step : hi);
            first[item] = from;
            len[item] = to - from + 1;
        }
        for (std::uint32_t round = 1; round < step; round *= 2) {  // ⌈log2(step)⌉ halvings, ITEMS at once
#pragma unroll
            for (std::uint32_t item = 0; item < ITEMS; ++item) {
                if (len[item] > 1) {
                    const std::uint32_t half = len[item] / 2;
                    first[item] = __ldcg(&cdf[first[item] + half - 1]) < bracket[item].low ? first[item] + half : first[item];
                    len[item] -= half;
                }
            }
        }
    }
    // Usually the first source ≥ low is also ≥ high: that is the answer (copySourceIn would return it
    // without another load); otherwise the full search from there.
    std::uint64_t atFirst[ITEMS];
#pragma unroll
    for (std::uint32_t item = 0; item < ITEMS; ++item) {
        atFirst[item] = step == 1 ? window[first[item] - lo] : __ldcg(&cdf[first[item]]);
    }
#pragma unroll
    for (std::uint32_t item = 0; item < ITEMS; ++item) {
        const std::uint32_t copy = firstCopy + item * tuning::COPY_INDEX_BLOCK + threadIdx.x;
        if (copy > lastCopy) {
            continue;
        }
        std::uint32_t source = first[item];
        if (atFirst[item] < bracket[item].high && first[item] < hi) {
            source = step == 1 ? copySourceIn(CdfWindow{window, lo}, total, particles, uniform, j[item], bracket[item],
                                              first[item], hi)
                               : copySourceIn(cdf, total, particles, uniform, j[item], bracket[item], first[item], hi);
        }
        copyIndex[copy] = source;
    }
    lookback::zeroLookbackState(state, tiles, thread, gridDim.x * blockDim.x);
    if (thread == 0 && pending != nullptr) {
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
                                             std::uint32_t* pending, void* scratch, bool cdfScanned, bool early,
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
    constexpr std::uint32_t COPIES = tuning::COPY_INDEX_ITEMS * tuning::COPY_INDEX_BLOCK;
    const std::uint32_t blocks = (particles + COPIES - 1) / COPIES;
    return AUGUR_CUDA_CHECK(primitives::launchKernel(early, copyIndexKernel, dim3(blocks), dim3(tuning::COPY_INDEX_BLOCK),
                                                     stream, s.cdf, particles, u, copyIndex, enabled, pending, s.state,
                                                     s.tiles));
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
                                              scratch, false, false, stream);
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
