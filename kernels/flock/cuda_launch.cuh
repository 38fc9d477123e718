// Dispatch helpers shared by the two flock stages (cuda_batch.cu, cuda_window.cu): a kernel launch
// followed by its launch check, one prefix-sum scratch sized at init for every scan of a stage, and
// the count → exclusive scan → write sequence by which every data-dependent pool is sized (seeds/002
// §4: "a counting pass, a prefix sum and a placement pass"). Warp-level helpers for the kernels that
// give one warp to one set. Included by .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <utility>

#include "augur/platform/cuda_check.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::flock::detail {

/// Grid, block and dynamic shared memory of a launch.
struct LaunchDims {
    int blocks;
    int threads;
    std::size_t sharedBytes{0};
};

/// Launches `kernel` on `stream` and checks the launch (AUGUR_CUDA_CHECK_LAUNCH). Graph-capturable,
/// noexcept, allocation-free.
template <typename... Params, typename... Args>
[[nodiscard]] platform::GpuStatus launch(void (*kernel)(Params...), LaunchDims dims, platform::StreamHandle stream, Args&&... args) noexcept {
    kernel<<<dims.blocks, dims.threads, dims.sharedBytes, stream>>>(std::forward<Args>(args)...);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

/// Sets and members counted together, so one prefix sum sizes a family's two pools.
struct Count2 {
    long long sets;
    long long members;
};

__host__ __device__ __forceinline__ Count2 operator+(const Count2& a, const Count2& b) { return {a.sets + b.sets, a.members + b.members}; }
__host__ __device__ __forceinline__ Count2 operator-(const Count2& a, const Count2& b) { return {a.sets - b.sets, a.members - b.members}; }

/// Tiles of the prefix sums: tile b of PREFIX_TILES holds items [b·L, (b+1)·L) of n, L = ⌈n / PREFIX_TILES⌉;
/// a block of PREFIX_BLOCK threads per tile.
inline constexpr int PREFIX_TILES = 256;
inline constexpr int PREFIX_BLOCK = 256;

#if defined(__CUDACC__)
inline constexpr int WARP_THREADS = 32;
inline constexpr unsigned int FULL_WARP = 0xFFFFFFFFU;

__device__ __forceinline__ int laneId() { return static_cast<int>(threadIdx.x) & (WARP_THREADS - 1); }

/// __shfl_up_sync for the prefix sums' element types.
__device__ __forceinline__ long long shuffleUp(long long v, int delta) { return __shfl_up_sync(FULL_WARP, v, delta); }
__device__ __forceinline__ Count2 shuffleUp(Count2 v, int delta) { return {shuffleUp(v.sets, delta), shuffleUp(v.members, delta)}; }

/// Inclusive prefix sum over the warp's lanes.
template <typename T>
__device__ __forceinline__ T warpInclusive(T v) {
    const int lane = laneId();
    for (int offset = 1; offset < WARP_THREADS; offset *= 2) {
        const T other = shuffleUp(v, offset);
        if (lane >= offset) {
            v = v + other;
        }
    }
    return v;
}

__device__ __forceinline__ long long prefixTileLength(long long n) { return (n + PREFIX_TILES - 1) / PREFIX_TILES; }

/// Exclusive prefix of `v` over the block's threads (in thread order) plus `carry`; the block's total
/// is added to `carry`. Every thread calls it (three barriers; `warpTotals`, room for a block's warps
/// + 1, is free again on return).
template <typename T>
__device__ T blockExclusive(T v, T& carry, T* warpTotals) {
    const int lane = laneId();
    const int warp = static_cast<int>(threadIdx.x) / WARP_THREADS;
    const int warps = static_cast<int>(blockDim.x) / WARP_THREADS;
    const T inclusive = warpInclusive(v);
    if (lane == WARP_THREADS - 1) {
        warpTotals[warp] = inclusive;
    }
    __syncthreads();
    if (warp == 0) {
        const T w = lane < warps ? warpTotals[lane] : T{};
        const T wi = warpInclusive(w);
        if (lane < warps) {
            warpTotals[lane] = wi - w;
        }
        if (lane == WARP_THREADS - 1) {
            warpTotals[WARP_THREADS] = wi;
        }
    }
    __syncthreads();
    const T exclusive = carry + warpTotals[warp] + inclusive - v;
    carry = carry + warpTotals[WARP_THREADS];
    __syncthreads();
    return exclusive;
}

// Prefix sums, pass 1: each tile's total → tileTotals[tile].
template <typename T>
__global__ void __launch_bounds__(PREFIX_BLOCK) tileTotalsKernel(const T* in, long long n, T* tileTotals) {
    __shared__ T warpTotals[WARP_THREADS + 1];
    const long long length = prefixTileLength(n);
    const long long begin = blockIdx.x * length;
    const long long end = min(n, begin + length);
    T sum{};
    for (long long i = begin + threadIdx.x; i < end; i += blockDim.x) {
        sum = sum + in[i];
    }
    T carry{};
    blockExclusive(sum, carry, warpTotals);
    if (threadIdx.x == 0) {
        tileTotals[blockIdx.x] = carry;
    }
}

// Prefix sums, pass 2: each tile scanned from the sum of the tiles before it.
template <typename T>
__global__ void __launch_bounds__(PREFIX_BLOCK) tileScanKernel(const T* in, T* out, long long n, const T* tileTotals) {
    __shared__ T warpTotals[WARP_THREADS + 1];
    __shared__ T before;
    if (threadIdx.x < WARP_THREADS) {  // Σ tileTotals[0 … blockIdx.x)
        T sum{};
        for (int t = static_cast<int>(threadIdx.x); t < static_cast<int>(blockIdx.x); t += WARP_THREADS) {
            sum = sum + tileTotals[t];
        }
        sum = warpInclusive(sum);
        if (threadIdx.x == WARP_THREADS - 1) {
            before = sum;
        }
    }
    __syncthreads();
    T carry = before;
    const long long length = prefixTileLength(n);
    const long long begin = blockIdx.x * length;
    const long long end = min(n, begin + length);
    for (long long base = begin; base < end; base += blockDim.x) {
        const long long i = base + threadIdx.x;
        const T v = i < end ? in[i] : T{};
        const T exclusive = blockExclusive(v, carry, warpTotals);
        if (i < end) {
            out[i] = exclusive;
        }
    }
}
#endif

/// One device scratch for all the exclusive prefix sums of a stage: a tile total per block of the first
/// of two passes (no decoupled look-back chain: the stages' scans are a few hundred thousand items, where
/// CUB's chain of tiles cost more than the two passes). Init: `require` for every scan the stage will
/// run, then `allocate`. Run: `exclusive`.
class PrefixSums {
public:
    /// Init phase: makes room for exclusive scans of items of T (any count).
    template <typename T>
    void require() {
        m_bytes = std::max(m_bytes, sizeof(T) * static_cast<std::size_t>(PREFIX_TILES));
    }

    /// Init phase: reserves the scratch for the largest `require`.
    [[nodiscard]] platform::GpuStatus allocate() {
        auto memory = platform::DeviceMemory::allocate(std::max<std::size_t>(m_bytes, 1));
        if (!memory) {
            return fail(memory.error());
        }
        m_temp = std::move(memory).value();
        return {};
    }

#if defined(__CUDACC__)
    /// out[i] = in[0] + … + in[i-1] for i < count (out[0] = 0; in ≠ out); T was `require`d.
    /// Graph-capturable, noexcept, allocation-free.
    template <typename T>
    [[nodiscard]] platform::GpuStatus exclusive(const T* in, T* out, long long count, platform::StreamHandle stream) noexcept {
        T* tileTotals = static_cast<T*>(m_temp.get());
        tileTotalsKernel<T><<<PREFIX_TILES, PREFIX_BLOCK, 0, stream>>>(in, count, tileTotals);
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
        tileScanKernel<T><<<PREFIX_TILES, PREFIX_BLOCK, 0, stream>>>(in, out, count, tileTotals);
        return AUGUR_CUDA_CHECK_LAUNCH();
    }
#endif

private:
    platform::DeviceMemory m_temp;
    std::size_t m_bytes{0};
};

/// The sizing pattern of every data-dependent pool: `count()` launches a kernel that writes counts[0 …
/// n-1] (zeros past the data), their exclusive prefix sum goes to starts[0 … n-1] (starts[n-1] is the
/// total when counts[n-1] = 0), and `write()` launches the kernel that places each item at its start.
/// count and write return a GpuStatus (use `launch`). Graph-capturable, noexcept, allocation-free.
template <typename T, typename Count, typename Write>
[[nodiscard]] platform::GpuStatus countScanWrite(PrefixSums& sums, Count&& count, const T* counts, T* starts, long long n, Write&& write,
                                                 platform::StreamHandle stream) noexcept {
    AUGUR_CUDA_TRY(count());
    AUGUR_CUDA_TRY(sums.exclusive(counts, starts, n, stream));
    return write();
}

#if defined(__CUDACC__)
/// Warp-stride loops: the first warp index of this warp and the number of warps in the grid
/// (blockDim.x is a multiple of 32).
__device__ __forceinline__ long long warpStart() {
    return (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / WARP_THREADS;
}
__device__ __forceinline__ long long warpStep() { return static_cast<long long>(gridDim.x) * blockDim.x / WARP_THREADS; }

/// Sum over the warp, result in every lane.
__device__ __forceinline__ long long warpSum(long long v) {
    for (int offset = WARP_THREADS / 2; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(FULL_WARP, v, offset);
    }
    return v;
}

/// OR over the warp's lanes, result in every lane.
__device__ __forceinline__ unsigned long long warpOr(unsigned long long v) {
#if __CUDA_ARCH__ >= 800
    const unsigned int low = __reduce_or_sync(FULL_WARP, static_cast<unsigned int>(v));
    const unsigned int high = __reduce_or_sync(FULL_WARP, static_cast<unsigned int>(v >> 32U));
    return (static_cast<unsigned long long>(high) << 32U) | low;
#else
    for (int offset = WARP_THREADS / 2; offset > 0; offset /= 2) {
        v |= __shfl_xor_sync(FULL_WARP, v, offset);
    }
    return v;
#endif
}

#endif

}  // namespace augur::kernels::flock::detail
