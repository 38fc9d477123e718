// Warp- and block-level sums and inclusive / exclusive scans for any summable element type: the
// building blocks of the single-pass look-back scan (lookback_scan.cuh) and the two-pass tiled scan
// (tiled_scan.cuh). Device code, private to kernels/.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

namespace augur::kernels::primitives::detail {

inline constexpr std::uint32_t SCAN_WARP = 32;

/// __shfl_up_sync over the whole warp for any trivially copyable T of whole 32-bit words: arithmetic
/// types directly, others (e.g. a struct of two counts) word by word.
template <typename T>
__device__ __forceinline__ T shuffleUp(T v, std::uint32_t delta) {
    if constexpr (std::is_arithmetic_v<T>) {
        return __shfl_up_sync(0xFFFFFFFFU, v, delta);
    } else {
        static_assert(std::is_trivially_copyable_v<T> && sizeof(T) % 4 == 0, "shuffled as 32-bit words");
        std::uint32_t words[sizeof(T) / 4];
        std::memcpy(words, &v, sizeof(T));
#pragma unroll
        for (std::uint32_t w = 0; w < sizeof(T) / 4; ++w) {
            words[w] = __shfl_up_sync(0xFFFFFFFFU, words[w], delta);
        }
        std::memcpy(&v, words, sizeof(T));
        return v;
    }
}

/// Inclusive sum of x over lanes 0 … lane (T: value-initialised zero, operator+).
template <typename T>
__device__ __forceinline__ T warpInclusiveScan(T x, std::uint32_t lane) {
#pragma unroll
    for (std::uint32_t offset = 1; offset < SCAN_WARP; offset <<= 1) {
        const T y = shuffleUp(x, offset);
        if (lane >= offset) {
            x = x + y;
        }
    }
    return x;
}

/// Sum of x over the warp's 32 lanes, in every lane, by a fixed butterfly (offsets 16, 8, 4, 2, 1): the
/// same order in every lane and every call, so float sums are deterministic. T: a shuffle-able
/// arithmetic type.
template <typename T>
__device__ __forceinline__ T warpAllSum(T x) {
#pragma unroll
    for (std::uint32_t offset = SCAN_WARP / 2; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xFFFFFFFFU, x, offset);
    }
    return x;
}

/// Exclusive sum of v over the block's threads (thread order) plus `carry`; the block's total is added
/// to `carry`. Every thread of the block calls it (three barriers); `warpTotals` has room for the
/// block's warps + 1 (SCAN_WARP + 1 always does) and is free again on return. T as warpInclusiveScan,
/// with operator− (T: an integer or a struct of integers — exact).
template <typename T>
__device__ T blockExclusiveSum(T v, T& carry, T* warpTotals) {
    const std::uint32_t lane = threadIdx.x % SCAN_WARP;
    const std::uint32_t warp = threadIdx.x / SCAN_WARP;
    const std::uint32_t warps = blockDim.x / SCAN_WARP;
    const T inclusive = warpInclusiveScan(v, lane);
    if (lane == SCAN_WARP - 1) {
        warpTotals[warp] = inclusive;
    }
    __syncthreads();
    if (warp == 0) {
        const T w = lane < warps ? warpTotals[lane] : T{};
        const T wi = warpInclusiveScan(w, lane);
        if (lane < warps) {
            warpTotals[lane] = wi - w;
        }
        if (lane == SCAN_WARP - 1) {
            warpTotals[SCAN_WARP] = wi;
        }
    }
    __syncthreads();
    const T exclusive = carry + warpTotals[warp] + inclusive - v;
    carry = carry + warpTotals[SCAN_WARP];
    __syncthreads();
    return exclusive;
}

}  // namespace augur::kernels::primitives::detail
