// CUDA sum-reduction variants (see reduce.hpp): two passes (per-block partials, then one block) for
// the shared-memory variants, CUB, and the atomicAdd baseline.
#include <cub/device/device_reduce.cuh>

#include <cuda_runtime.h>

#include <algorithm>

#include "augur/kernels/primitives/reduce.hpp"
#include "tuning.hpp"

namespace augur::kernels::primitives::cuda {
namespace {

using platform::GpuStatus;
using platform::StreamHandle;

constexpr std::uint32_t BLOCK = tuning::REDUCE_BLOCK;
constexpr std::uint32_t WARP = 32;

/// Hortelano et al. 2023 section 4.2.4: grid-stride accumulation, then a shared-memory tree with sequential
/// addressing (s[tid] += s[tid + stride], stride halving). WARP_UNROLLED stops the tree at 64 and
/// finishes the last warp with shuffles.
template <bool WARP_UNROLLED>
__global__ void __launch_bounds__(BLOCK) reduceKernel(const float* in, std::uint32_t n, float* out) {
    __shared__ float s[BLOCK];
    float sum = 0.0F;
    for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * BLOCK + threadIdx.x; i < n;
         i += static_cast<std::uint64_t>(gridDim.x) * BLOCK) {
        sum += in[i];
    }
    s[threadIdx.x] = sum;
    __syncthreads();
    constexpr std::uint32_t STOP = WARP_UNROLLED ? WARP : 0;
    for (std::uint32_t stride = BLOCK / 2; stride > STOP; stride >>= 1) {
        if (threadIdx.x < stride) {
            s[threadIdx.x] += s[threadIdx.x + stride];
        }
        __syncthreads();
    }
    if constexpr (WARP_UNROLLED) {
        if (threadIdx.x < WARP) {
            float v = s[threadIdx.x] + s[threadIdx.x + WARP];
#pragma unroll
            for (std::uint32_t offset = WARP / 2; offset > 0; offset >>= 1) {
                v += __shfl_down_sync(0xFFFFFFFFU, v, offset);
            }
            if (threadIdx.x == 0) {
                out[blockIdx.x] = v;
            }
        }
    } else if (threadIdx.x == 0) {
        out[blockIdx.x] = s[0];
    }
}

__global__ void atomicKernel(const float* in, std::uint32_t n, float* out) {
    for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
         i += static_cast<std::uint64_t>(gridDim.x) * blockDim.x) {
        atomicAdd(out, in[i]);
    }
}

std::uint32_t firstPassBlocks(std::uint32_t n) {
    return std::max(1U, std::min((n + BLOCK - 1) / BLOCK, tuning::REDUCE_MAX_BLOCKS));
}

}  // namespace

std::size_t reduceSumScratchBytes(ReduceVariant variant, std::uint32_t n) noexcept {
    switch (variant) {
        case ReduceVariant::Cub: {
            std::size_t bytes = 0;
            (void)cub::DeviceReduce::Sum(nullptr, bytes, static_cast<const float*>(nullptr), static_cast<float*>(nullptr),
                                         static_cast<int>(n));
            return bytes + 256;
        }
        case ReduceVariant::AtomicAdd: return 0;
        default: return static_cast<std::size_t>(firstPassBlocks(n)) * sizeof(float);
    }
}

GpuStatus reduceSum(ReduceVariant variant, const float* in, float* out, std::uint32_t n, void* scratch,
                    std::size_t scratchBytes, StreamHandle stream) noexcept {
    if (scratchBytes < reduceSumScratchBytes(variant, n) || n > 0x7FFFFFFFU) {
        return AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
    }
    switch (variant) {
        case ReduceVariant::Cub: {
            std::size_t bytes = scratchBytes;
            return AUGUR_CUDA_CHECK(cub::DeviceReduce::Sum(scratch, bytes, in, out, static_cast<int>(n), stream));
        }
        case ReduceVariant::AtomicAdd: {
            AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cudaMemsetAsync(out, 0, sizeof(float), stream)));
            const std::uint32_t blocks = std::max(1U, (n + BLOCK - 1) / BLOCK);
            atomicKernel<<<blocks, BLOCK, 0, stream>>>(in, n, out);
            return AUGUR_CUDA_CHECK_LAUNCH();
        }
        case ReduceVariant::SequentialAddressing:
        case ReduceVariant::WarpUnrolled: {
            const std::uint32_t blocks = firstPassBlocks(n);
            auto* partials = static_cast<float*>(scratch);
            const bool warp = variant == ReduceVariant::WarpUnrolled;
            if (warp) {
                reduceKernel<true><<<blocks, BLOCK, 0, stream>>>(in, n, partials);
                AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
                reduceKernel<true><<<1, BLOCK, 0, stream>>>(partials, blocks, out);
            } else {
                reduceKernel<false><<<blocks, BLOCK, 0, stream>>>(in, n, partials);
                AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
                reduceKernel<false><<<1, BLOCK, 0, stream>>>(partials, blocks, out);
            }
            return AUGUR_CUDA_CHECK_LAUNCH();
        }
    }
    return AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
}

}  // namespace augur::kernels::primitives::cuda
