// Two-pass tiled exclusive scan for any exact element type (integers, structs of integers): pass 1
// sums each of TILED_SCAN_TILES tiles, pass 2 scans each tile from the sum of the tiles before it.
// No look-back chain between tiles, so it suits scans of up to a few hundred thousand items, where
// the single-pass look-back (lookback_scan.cuh) and CUB's chain of tiles measured slower (the flock
// stages' prefix sums). Device code and its launch, private to kernels/.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"
#include "warp_scan.cuh"

namespace augur::kernels::primitives::detail {

/// Tile b of TILED_SCAN_TILES holds items [b·L, (b+1)·L) of n, L = ⌈n / TILED_SCAN_TILES⌉; one block of
/// TILED_SCAN_BLOCK threads per tile.
inline constexpr std::uint32_t TILED_SCAN_TILES = 256;
inline constexpr std::uint32_t TILED_SCAN_BLOCK = 256;

/// Scratch bytes of tiledExclusiveScan<T>: one T per tile.
template <typename T>
constexpr std::size_t tiledScanScratchBytes() noexcept {
    return sizeof(T) * TILED_SCAN_TILES;
}

__device__ __forceinline__ long long tiledScanTileLength(long long n) { return (n + TILED_SCAN_TILES - 1) / TILED_SCAN_TILES; }

/// Pass 1: tile blockIdx.x's total → tileTotals[blockIdx.x].
template <typename T>
__global__ void __launch_bounds__(TILED_SCAN_BLOCK) tileTotalsKernel(const T* in, long long n, T* tileTotals) {
    __shared__ T warpTotals[SCAN_WARP + 1];
    const long long length = tiledScanTileLength(n);
    const long long begin = blockIdx.x * length;
    const long long end = min(n, begin + length);
    T sum{};
    for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) {
        sum = sum + in[i];
    }
    T carry{};
    blockExclusiveSum(sum, carry, warpTotals);
    if (threadIdx.x == 0) {
        tileTotals[blockIdx.x] = carry;
    }
}

/// Pass 2: tile blockIdx.x scanned from the sum of the tiles before it.
template <typename T>
__global__ void __launch_bounds__(TILED_SCAN_BLOCK) tileScanKernel(const T* in, T* out, long long n, const T* tileTotals) {
    __shared__ T warpTotals[SCAN_WARP + 1];
    __shared__ T before;
    if (threadIdx.x < SCAN_WARP) {  // Σ tileTotals[0 … blockIdx.x)
        T sum{};
        for (std::uint32_t t = threadIdx.x; t < blockIdx.x; t += SCAN_WARP) {
            sum = sum + tileTotals[t];
        }
        sum = warpInclusiveScan(sum, threadIdx.x);
        if (threadIdx.x == SCAN_WARP - 1) {
            before = sum;
        }
    }
    __syncthreads();
    T carry = before;
    const long long length = tiledScanTileLength(n);
    const long long begin = blockIdx.x * length;
    const long long end = min(n, begin + length);
    for (long long base = begin; base < end; base += blockDim.x) {
        const long long i = base + threadIdx.x;
        const T v = i < end ? in[i] : T{};
        const T exclusive = blockExclusiveSum(v, carry, warpTotals);
        if (i < end) {
            out[i] = exclusive;
        }
    }
}

/// out[i] = in[0] + … + in[i-1] for i < n (out[0] = 0; in ≠ out); `tileTotals`: device scratch of
/// tiledScanScratchBytes<T>() bytes. Two launches; graph-capturable, noexcept, allocation-free; exact
/// and deterministic for exact T.
template <typename T>
[[nodiscard]] platform::GpuStatus tiledExclusiveScan(const T* in, T* out, long long n, T* tileTotals,
                                                     platform::StreamHandle stream) noexcept {
    tileTotalsKernel<T><<<TILED_SCAN_TILES, TILED_SCAN_BLOCK, 0, stream>>>(in, n, tileTotals);
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
    tileScanKernel<T><<<TILED_SCAN_TILES, TILED_SCAN_BLOCK, 0, stream>>>(in, out, n, tileTotals);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

}  // namespace augur::kernels::primitives::detail
