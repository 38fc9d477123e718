// CUDA scan variants (see scan.hpp). Layers: exclusiveScan (host API) → scanLevels (dispatch:
// tile kernel, recursive scan of tile totals, offset add) → thin tile kernels → device functions.
#include <cub/device/device_scan.cuh>

#include <cuda_runtime.h>

#include "augur/kernels/primitives/scan.hpp"
#include "tuning.hpp"

namespace augur::kernels::primitives::cuda {
namespace {

using platform::GpuStatus;
using platform::StreamHandle;

constexpr int BLOCK = static_cast<int>(tuning::SCAN_BLOCK);
constexpr int WARP = 32;

/// Bank-conflict-free padding for 32 four-byte banks: one pad word every 32 and every 1024 words.
/// (Seed 004's macro, with the parentheses it lacks and LOG_NUM_BANKS = 5.)
__device__ __forceinline__ int padded(int n) { return n + (n >> 5) + (n >> 10); }
constexpr int paddedSize(int n) { return n + (n >> 5) + (n >> 10) + 1; }

/// Exclusive Blelloch scan of N values already in s[padded(i)]; threads 0 … N/2−1 work, every
/// thread of the block must call it. Returns the total of the N values (to every thread).
template <int N, bool UNROLL>
__device__ float blellochExclusive(float* s) {
    const int tid = static_cast<int>(threadIdx.x);
    int offset = 1;
    if constexpr (UNROLL) {
#pragma unroll
        for (int d = N >> 1; d > 0; d >>= 1) {
            __syncthreads();
            if (tid < d) {
                const int ai = offset * (2 * tid + 1) - 1;
                const int bi = offset * (2 * tid + 2) - 1;
                s[padded(bi)] += s[padded(ai)];
            }
            offset <<= 1;
        }
    } else {
#pragma unroll 1
        for (int d = N >> 1; d > 0; d >>= 1) {
            __syncthreads();
            if (tid < d) {
                const int ai = offset * (2 * tid + 1) - 1;
                const int bi = offset * (2 * tid + 2) - 1;
                s[padded(bi)] += s[padded(ai)];
            }
            offset <<= 1;
        }
    }
    __syncthreads();
    const float total = s[padded(N - 1)];
    __syncthreads();
    if (tid == 0) {
        s[padded(N - 1)] = 0.0F;
    }
    if constexpr (UNROLL) {
#pragma unroll
        for (int d = 1; d < N; d <<= 1) {
            offset >>= 1;
            __syncthreads();
            if (tid < d) {
                const int ai = offset * (2 * tid + 1) - 1;
                const int bi = offset * (2 * tid + 2) - 1;
                const float t = s[padded(ai)];
                s[padded(ai)] = s[padded(bi)];
                s[padded(bi)] += t;
            }
        }
    } else {
#pragma unroll 1
        for (int d = 1; d < N; d <<= 1) {
            offset >>= 1;
            __syncthreads();
            if (tid < d) {
                const int ai = offset * (2 * tid + 1) - 1;
                const int bi = offset * (2 * tid + 2) - 1;
                const float t = s[padded(ai)];
                s[padded(ai)] = s[padded(bi)];
                s[padded(bi)] += t;
            }
        }
    }
    __syncthreads();
    return total;
}

/// Seed 004's tile: 2 elements per thread (thid and thid + n/2), padded Blelloch over 2·BLOCK.
template <bool UNROLL>
__global__ void __launch_bounds__(BLOCK) tileBlelloch(const float* in, float* out, std::uint32_t n, float* totals) {
    constexpr int TILE = 2 * BLOCK;
    __shared__ float s[paddedSize(TILE)];
    const std::uint64_t base = static_cast<std::uint64_t>(blockIdx.x) * TILE;
    const int ai = static_cast<int>(threadIdx.x);
    const int bi = ai + BLOCK;
    s[padded(ai)] = base + ai < n ? in[base + ai] : 0.0F;
    s[padded(bi)] = base + bi < n ? in[base + bi] : 0.0F;
    const float total = blellochExclusive<TILE, UNROLL>(s);
    if (base + ai < n) {
        out[base + ai] = s[padded(ai)];
    }
    if (base + bi < n) {
        out[base + bi] = s[padded(bi)];
    }
    if (threadIdx.x == 0) {
        totals[blockIdx.x] = total;
    }
}

/// U consecutive elements per thread scanned in registers, then the padded Blelloch over the BLOCK
/// thread totals.
template <int U>
__global__ void __launch_bounds__(BLOCK) tileUnrolled(const float* in, float* out, std::uint32_t n, float* totals) {
    constexpr int TILE = U * BLOCK;
    __shared__ float s[paddedSize(BLOCK)];
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * TILE + static_cast<std::uint64_t>(threadIdx.x) * U;
    float v[U];
#pragma unroll
    for (int i = 0; i < U; ++i) {
        v[i] = first + i < n ? in[first + i] : 0.0F;
    }
    float running = 0.0F;
#pragma unroll
    for (int i = 0; i < U; ++i) {
        const float x = v[i];
        v[i] = running;
        running += x;
    }
    s[padded(static_cast<int>(threadIdx.x))] = running;
    const float total = blellochExclusive<BLOCK, false>(s);
    const float prefix = s[padded(static_cast<int>(threadIdx.x))];
#pragma unroll
    for (int i = 0; i < U; ++i) {
        if (first + i < n) {
            out[first + i] = prefix + v[i];
        }
    }
    if (threadIdx.x == 0) {
        totals[blockIdx.x] = total;
    }
}

/// 8 elements per thread in registers, then warp-synchronous shuffle scans: no block barrier inside
/// a warp, one between the warp totals and their use.
__global__ void __launch_bounds__(BLOCK) tileWarp(const float* in, float* out, std::uint32_t n, float* totals) {
    constexpr int U = 8;
    constexpr int TILE = U * BLOCK;
    constexpr int WARPS = BLOCK / WARP;
    __shared__ float warpTotals[WARPS];
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * TILE + static_cast<std::uint64_t>(threadIdx.x) * U;
    float v[U];
#pragma unroll
    for (int i = 0; i < U; ++i) {
        v[i] = first + i < n ? in[first + i] : 0.0F;
    }
    float running = 0.0F;
#pragma unroll
    for (int i = 0; i < U; ++i) {
        const float x = v[i];
        v[i] = running;
        running += x;
    }
    const int lane = static_cast<int>(threadIdx.x) % WARP;
    const int warp = static_cast<int>(threadIdx.x) / WARP;
    float inclusive = running;
#pragma unroll
    for (int offset = 1; offset < WARP; offset <<= 1) {
        const float y = __shfl_up_sync(0xFFFFFFFFU, inclusive, offset);
        if (lane >= offset) {
            inclusive += y;
        }
    }
    if (lane == WARP - 1) {
        warpTotals[warp] = inclusive;
    }
    __syncthreads();
    if (warp == 0) {
        float t = lane < WARPS ? warpTotals[lane] : 0.0F;
        float scanned = t;
#pragma unroll
        for (int offset = 1; offset < WARPS; offset <<= 1) {
            const float y = __shfl_up_sync(0xFFFFFFFFU, scanned, offset);
            if (lane >= offset) {
                scanned += y;
            }
        }
        if (lane < WARPS) {
            warpTotals[lane] = scanned - t;  // exclusive
        }
        if (lane == WARPS - 1) {
            totals[blockIdx.x] = scanned;
        }
    }
    __syncthreads();
    const float prefix = warpTotals[warp] + inclusive - running;
#pragma unroll
    for (int i = 0; i < U; ++i) {
        if (first + i < n) {
            out[first + i] = prefix + v[i];
        }
    }
}

__global__ void addOffsets(float* out, std::uint32_t n, const float* offsets, std::uint32_t tile) {
    const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] += offsets[i / tile];
    }
}

std::uint32_t tileOf(ScanVariant variant) {
    switch (variant) {
        case ScanVariant::Unrolled2: return 2 * BLOCK;
        case ScanVariant::Unrolled4: return 4 * BLOCK;
        case ScanVariant::Unrolled8:
        case ScanVariant::WarpUnrolled: return 8 * BLOCK;
        default: return 2 * BLOCK;
    }
}

constexpr std::size_t align256(std::size_t bytes) { return (bytes + 255U) & ~std::size_t{255U}; }

std::size_t levelBytes(std::uint32_t tile, std::uint32_t n) {
    std::size_t bytes = 0;
    while (n > 1) {
        n = (n + tile - 1) / tile;
        bytes += align256(static_cast<std::size_t>(n) * sizeof(float));
    }
    return bytes + 256;
}

GpuStatus launchTile(ScanVariant variant, const float* in, float* out, std::uint32_t n, float* totals,
                     StreamHandle stream) {
    const std::uint32_t blocks = (n + tileOf(variant) - 1) / tileOf(variant);
    switch (variant) {
        case ScanVariant::WorkEfficientPadded: tileBlelloch<false><<<blocks, BLOCK, 0, stream>>>(in, out, n, totals); break;
        case ScanVariant::CompleteUnrolled: tileBlelloch<true><<<blocks, BLOCK, 0, stream>>>(in, out, n, totals); break;
        case ScanVariant::Unrolled2: tileUnrolled<2><<<blocks, BLOCK, 0, stream>>>(in, out, n, totals); break;
        case ScanVariant::Unrolled4: tileUnrolled<4><<<blocks, BLOCK, 0, stream>>>(in, out, n, totals); break;
        case ScanVariant::Unrolled8: tileUnrolled<8><<<blocks, BLOCK, 0, stream>>>(in, out, n, totals); break;
        case ScanVariant::WarpUnrolled: tileWarp<<<blocks, BLOCK, 0, stream>>>(in, out, n, totals); break;
        case ScanVariant::Cub: return AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
    }
    return AUGUR_CUDA_CHECK_LAUNCH();
}

/// Tiles, then (when there is more than one) the tile totals scanned in place one level up, then
/// the offsets added back.
GpuStatus scanLevels(ScanVariant variant, const float* in, float* out, std::uint32_t n, char* scratch,
                     StreamHandle stream) {
    const std::uint32_t tile = tileOf(variant);
    const std::uint32_t blocks = (n + tile - 1) / tile;
    auto* totals = reinterpret_cast<float*>(scratch);
    AUGUR_CUDA_TRY(launchTile(variant, in, out, n, totals, stream));
    if (blocks > 1) {
        char* next = scratch + align256(static_cast<std::size_t>(blocks) * sizeof(float));
        AUGUR_CUDA_TRY(scanLevels(variant, totals, totals, blocks, next, stream));
        addOffsets<<<(n + BLOCK - 1) / BLOCK, BLOCK, 0, stream>>>(out, n, totals, tile);
        return AUGUR_CUDA_CHECK_LAUNCH();
    }
    return {};
}

}  // namespace

std::size_t exclusiveScanScratchBytes(ScanVariant variant, std::uint32_t n) noexcept {
    if (variant == ScanVariant::Cub) {
        std::size_t bytes = 0;
        (void)cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const float*>(nullptr),
                                            static_cast<float*>(nullptr), static_cast<int>(n));
        return bytes + 256;
    }
    return levelBytes(tileOf(variant), n);
}

GpuStatus exclusiveScan(ScanVariant variant, const float* in, float* out, std::uint32_t n, void* scratch,
                        std::size_t scratchBytes, StreamHandle stream) noexcept {
    if (n == 0) {
        return {};
    }
    if (scratchBytes < exclusiveScanScratchBytes(variant, n) || n > 0x7FFFFFFFU) {
        return AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
    }
    if (variant == ScanVariant::Cub) {
        std::size_t bytes = scratchBytes;
        return AUGUR_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scratch, bytes, in, out, static_cast<int>(n), stream));
    }
    return scanLevels(variant, in, out, n, static_cast<char*>(scratch), stream);
}

}  // namespace augur::kernels::primitives::cuda
