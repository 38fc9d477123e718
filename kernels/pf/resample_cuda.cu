// CUDA systematic resampling: quantised weights → CUB inclusive integer scan (exact, deterministic)
// → copy-index kernel (seed 004 eqs. 10–12) → coalesced grid-stride gather (seed 000 section 4.2.3).
#include <cub/device/device_scan.cuh>
#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cuda_runtime.h>

#include "augur/kernels/pf/resample.hpp"
#include "resample_cuda.hpp"
#include "tuning.hpp"

namespace augur::kernels::pf::cuda {
namespace {

struct QuantizeFromDevice {
    const float* maxLogWeight;
    __device__ std::uint64_t operator()(float logWeight) const { return quantizeWeight(logWeight, *maxLogWeight); }
};

using QuantizedIterator = thrust::transform_iterator<QuantizeFromDevice, const float*, std::uint64_t>;

std::size_t cubScanBytes(std::uint32_t particles) {
    std::size_t bytes = 0;
    QuantizedIterator in(nullptr, QuantizeFromDevice{nullptr});
    (void)cub::DeviceScan::InclusiveSum(nullptr, bytes, in, static_cast<std::uint64_t*>(nullptr),
                                        static_cast<int>(particles));
    return bytes;
}

constexpr std::size_t align256(std::size_t bytes) { return (bytes + 255U) & ~std::size_t{255U}; }

/// One thread per copy j (balanced whatever the weights): ρ[j] by binary search over the exact
/// integer CDF — the same indices as seed 004's per-source formulation (copyRange), which writes all
/// of a heavy particle's copies from one thread and so serialises when the weights degenerate.
__global__ void copyIndexKernel(const std::uint64_t* __restrict__ cdf, std::uint32_t particles, const float* u,
                                std::uint32_t* __restrict__ copyIndex, const std::uint32_t* enabled) {
    if (enabled != nullptr && *enabled == 0U) {
        return;
    }
    const std::uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < particles) {
        copyIndex[j] = copySource(cdf, particles, *u, j);
    }
}

/// What the filter's gather also does: reset the log-weights, mark the buffer swap, zero the max.
struct GatherFinish {
    float* logWeights;      ///< K entries set to 0 (nullptr: none)
    std::uint32_t* swap;    ///< set to 1
    float* maxLogWeight;    ///< set to 0
};

__device__ __forceinline__ void finish(const GatherFinish& f, std::uint32_t particles) {
    if (f.logWeights == nullptr) {
        return;
    }
    if (blockIdx.y != 0) {
        return;
    }
    for (std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x; k < particles; k += gridDim.x * blockDim.x) {
        f.logWeights[k] = 0.0F;
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        *f.swap = 1U;
        *f.maxLogWeight = 0.0F;
    }
}

/// Source and destination: buffer0 → buffer1, or, with a selector, buffer[*current] → the other.
template <typename T>
__device__ __forceinline__ void pickBuffers(T* buffer0, T* buffer1, const std::uint32_t* current, const T*& src,
                                            T*& dst) {
    const bool swapped = current != nullptr && *current != 0U;
    src = swapped ? buffer1 : buffer0;
    dst = swapped ? buffer0 : buffer1;
}

__global__ void gatherAos4Kernel(float4* buffer0, float4* buffer1, const std::uint32_t* __restrict__ copyIndex,
                                 std::uint32_t particles, std::uint32_t quads, const std::uint32_t* enabled,
                                 const std::uint32_t* current, GatherFinish done) {
    if (enabled != nullptr && *enabled == 0U) {
        return;
    }
    finish(done, particles);
    const float4* src = nullptr;
    float4* dst = nullptr;
    pickBuffers(buffer0, buffer1, current, src, dst);
    // 32-bit index arithmetic: K · stride ≤ MAX_PARTICLES · 32 vehicles · 12 floats < 2³².
    const std::uint32_t total = particles * quads;
    for (std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x; e < total; e += gridDim.x * blockDim.x) {
        const std::uint32_t j = e / quads;
        const std::uint32_t q = e - j * quads;
        dst[e] = src[copyIndex[j] * quads + q];
    }
}

__global__ void gatherAosKernel(float* buffer0, float* buffer1, const std::uint32_t* __restrict__ copyIndex,
                                std::uint32_t particles, std::uint32_t stride, const std::uint32_t* enabled,
                                const std::uint32_t* current, GatherFinish done) {
    if (enabled != nullptr && *enabled == 0U) {
        return;
    }
    finish(done, particles);
    const float* src = nullptr;
    float* dst = nullptr;
    pickBuffers(buffer0, buffer1, current, src, dst);
    const std::uint32_t total = particles * stride;
    for (std::uint32_t e = blockIdx.x * blockDim.x + threadIdx.x; e < total; e += gridDim.x * blockDim.x) {
        const std::uint32_t j = e / stride;
        const std::uint32_t f = e - j * stride;
        dst[e] = src[copyIndex[j] * stride + f];
    }
}

/// Structure of arrays: thread (j, field group) copies GATHER_SOA_FIELDS fields of particle j — one
/// copy-index load, independent gathered loads, coalesced stores along j; no integer division.
__global__ void gatherSoaKernel(float* buffer0, float* buffer1, const std::uint32_t* __restrict__ copyIndex,
                                std::uint32_t particles, std::uint32_t stride, const std::uint32_t* enabled,
                                const std::uint32_t* current, GatherFinish done) {
    if (enabled != nullptr && *enabled == 0U) {
        return;
    }
    finish(done, particles);
    const float* src = nullptr;
    float* dst = nullptr;
    pickBuffers(buffer0, buffer1, current, src, dst);
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

std::size_t systematicResampleScratchBytes(std::uint32_t particles) noexcept {
    return align256(static_cast<std::size_t>(particles) * sizeof(std::uint64_t)) + align256(cubScanBytes(particles));
}

platform::GpuStatus systematicResample(const float* logWeights, std::uint32_t particles, const float* maxLogWeight,
                                       const float* u, std::uint32_t* copyIndex, const std::uint32_t* enabled,
                                       void* scratch, std::size_t scratchBytes, platform::StreamHandle stream) noexcept {
    if (particles == 0 || particles > MAX_PARTICLES || scratchBytes < systematicResampleScratchBytes(particles)) {
        return AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
    }
    auto* cdf = static_cast<std::uint64_t*>(scratch);
    const std::size_t cdfBytes = align256(static_cast<std::size_t>(particles) * sizeof(std::uint64_t));
    void* temp = static_cast<char*>(scratch) + cdfBytes;
    std::size_t tempBytes = scratchBytes - cdfBytes;
    QuantizedIterator in(logWeights, QuantizeFromDevice{maxLogWeight});
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(
        cub::DeviceScan::InclusiveSum(temp, tempBytes, in, cdf, static_cast<int>(particles), stream)));
    const std::uint32_t blocks = (particles + tuning::PARTICLE_BLOCK - 1) / tuning::PARTICLE_BLOCK;
    copyIndexKernel<<<blocks, tuning::PARTICLE_BLOCK, 0, stream>>>(cdf, particles, u, copyIndex, enabled);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

namespace internal {

platform::GpuStatus launchGather(float* buffer0, float* buffer1, const std::uint32_t* copyIndex, std::uint32_t particles,
                                 std::uint32_t stride, StateLayout layout, const std::uint32_t* enabled,
                                 const std::uint32_t* current, float* resetLogWeights, std::uint32_t* swap,
                                 float* maxLogWeight, platform::StreamHandle stream) noexcept {
    const GatherFinish done{resetLogWeights, swap, maxLogWeight};
    const std::uint64_t elements = static_cast<std::uint64_t>(particles) * stride;
    const bool vector4 = layout == StateLayout::ArrayOfStructs && stride % 4 == 0;
    const std::uint64_t work = vector4 ? elements / 4 : elements;
    const auto blocks = static_cast<std::uint32_t>(std::min<std::uint64_t>(
        (work + tuning::GATHER_BLOCK - 1) / tuning::GATHER_BLOCK, tuning::GATHER_MAX_BLOCKS));
    if (blocks == 0) {
        return {};
    }
    if (vector4) {
        gatherAos4Kernel<<<blocks, tuning::GATHER_BLOCK, 0, stream>>>(reinterpret_cast<float4*>(buffer0),
                                                                      reinterpret_cast<float4*>(buffer1), copyIndex,
                                                                      particles, stride / 4, enabled, current, done);
    } else if (layout == StateLayout::ArrayOfStructs) {
        gatherAosKernel<<<blocks, tuning::GATHER_BLOCK, 0, stream>>>(buffer0, buffer1, copyIndex, particles, stride,
                                                                     enabled, current, done);
    } else {
        const dim3 grid((particles + tuning::GATHER_BLOCK - 1) / tuning::GATHER_BLOCK,
                        (stride + tuning::GATHER_SOA_FIELDS - 1) / tuning::GATHER_SOA_FIELDS);
        gatherSoaKernel<<<grid, tuning::GATHER_BLOCK, 0, stream>>>(buffer0, buffer1, copyIndex, particles, stride,
                                                                   enabled, current, done);
    }
    return AUGUR_CUDA_CHECK_LAUNCH();
}

}  // namespace internal

platform::GpuStatus gatherParticles(const float* src, float* dst, const std::uint32_t* copyIndex,
                                    std::uint32_t particles, std::uint32_t stride, StateLayout layout,
                                    const std::uint32_t* enabled, platform::StreamHandle stream) noexcept {
    // The kernels never write buffer0 without a selector.
    return internal::launchGather(const_cast<float*>(src), dst, copyIndex, particles, stride, layout, enabled, nullptr,
                                  nullptr, nullptr, nullptr, stream);
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
