// Dispatch helpers shared by the two flock stages (cuda_batch.cu, cuda_window.cu): a kernel launch
// followed by its launch check, one prefix-sum scratch sized at init for every scan of a stage (the
// single-pass look-back scan of kernels/primitives: one kernel per scan after clearing its tile
// state, where CUB's DeviceScan takes two), and
// the count → exclusive scan → write sequence by which every data-dependent pool is sized (seeds/002
// §4: "a counting pass, a prefix sum and a placement pass"). Warp-level helpers for the kernels that
// give one warp to one set. Included by .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>

#include "augur/platform/cuda_check.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"
#include "../primitives/lookback_scan.cuh"

namespace augur::kernels::flock::detail {

/// Grid and block of a launch.
struct LaunchDims {
    int blocks;
    int threads;
};

/// Launches `kernel` on `stream` and checks the launch (AUGUR_CUDA_CHECK_LAUNCH). Graph-capturable,
/// noexcept, allocation-free.
template <typename... Params, typename... Args>
[[nodiscard]] platform::GpuStatus launch(void (*kernel)(Params...), LaunchDims dims, platform::StreamHandle stream, Args&&... args) noexcept {
    kernel<<<dims.blocks, dims.threads, 0, stream>>>(std::forward<Args>(args)...);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

/// Sets and members counted together, so one prefix sum sizes a family's two pools.
struct Count2 {
    long long sets;
    long long members;
};

__host__ __device__ __forceinline__ Count2 operator+(const Count2& a, const Count2& b) { return {a.sets + b.sets, a.members + b.members}; }

namespace lookback = primitives::detail;

/// Segments per warp of a prefix-sum tile: 256 threads × 2 × 4 = 2,048 items (16 registers of items
/// per thread for Count2).
inline constexpr std::uint32_t SCAN_SEGMENTS = 2;
inline constexpr std::uint32_t SCAN_TILE = lookback::lookbackTileItems<SCAN_SEGMENTS>();

constexpr long long scanTiles(long long count) noexcept { return (count + SCAN_TILE - 1) / SCAN_TILE; }

#if defined(__CUDACC__)
/// out[i] = in[0] + … + in[i-1] for i < n: tile blockIdx.x of the single-pass scan.
template <typename T>
__global__ void __launch_bounds__(lookback::LOOKBACK_BLOCK) exclusiveScanKernel(const T* __restrict__ in, T* __restrict__ out,
                                                                                long long n, lookback::LookbackState<T> state) {
    auto load = [&](std::uint64_t i, T (&v)[lookback::LOOKBACK_LANE_ITEMS]) {
#pragma unroll
        for (std::uint32_t q = 0; q < lookback::LOOKBACK_LANE_ITEMS; ++q) {
            v[q] = static_cast<long long>(i + q) < n ? in[i + q] : T{};
        }
    };
    auto store = [&](std::uint64_t i, T base, const T (&v)[lookback::LOOKBACK_LANE_ITEMS]) {
#pragma unroll
        for (std::uint32_t q = 0; q < lookback::LOOKBACK_LANE_ITEMS; ++q) {
            if (static_cast<long long>(i + q) < n) {
                out[i + q] = base;
            }
            base = base + v[q];
        }
    };
    lookback::lookbackScanTile<T, SCAN_SEGMENTS>(state, load, store);
}
#endif

/// One device scratch for all the exclusive prefix sums of a stage (the look-back state of the
/// largest). Init: `require` for every scan the stage will run (element type and largest count), then
/// `allocate`. Run: `exclusive`. The scans of a stage run one after another on one stream, so they
/// share the state.
class PrefixSums {
public:
    /// Init phase: makes room for an exclusive scan of `count` items of T.
    template <typename T>
    [[nodiscard]] platform::GpuStatus require(const T* /*in*/, T* /*out*/, long long count) {
        m_bytes = std::max(m_bytes, lookback::lookbackStateBytes<T>(static_cast<std::size_t>(scanTiles(count))));
        return {};
    }

    /// Init phase: reserves the scratch for the largest `require`.
    [[nodiscard]] platform::GpuStatus allocate() {
        auto memory = platform::DeviceMemory::allocate(std::max<std::size_t>(m_bytes, 1));
        if (!memory) {
            return fail(memory.error());
        }
        m_state = std::move(memory).value();
        return {};
    }

#if defined(__CUDACC__)
    /// out[i] = in[0] + … + in[i-1] for i < count (out[0] = 0). `count` must not exceed what `require`
    /// was given for this type. Two graph nodes (clearing the tile state, the scan); graph-capturable,
    /// noexcept, allocation-free.
    template <typename T>
    [[nodiscard]] platform::GpuStatus exclusive(const T* in, T* out, long long count, platform::StreamHandle stream) noexcept {
        const long long tiles = scanTiles(count);
        if (tiles == 0) {
            return {};
        }
        const auto t = static_cast<std::size_t>(tiles);
        AUGUR_CUDA_TRY(platform::fillDevice(m_state.get(), 0, lookback::lookbackClearBytes<T>(t), stream));
        exclusiveScanKernel<T><<<static_cast<unsigned int>(tiles), lookback::LOOKBACK_BLOCK, 0, stream>>>(
            in, out, count, lookback::lookbackState<T>(m_state.get(), t));
        return AUGUR_CUDA_CHECK_LAUNCH();
    }
#endif

private:
    platform::DeviceMemory m_state;
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
inline constexpr int WARP_THREADS = 32;
inline constexpr unsigned int FULL_WARP = 0xFFFFFFFFU;

__device__ __forceinline__ int laneId() { return static_cast<int>(threadIdx.x) & (WARP_THREADS - 1); }

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

/// Inclusive prefix sum over the warp's lanes.
__device__ __forceinline__ long long warpInclusiveSum(long long v) {
    const int lane = laneId();
    for (int offset = 1; offset < WARP_THREADS; offset *= 2) {
        const long long other = __shfl_up_sync(FULL_WARP, v, offset);
        if (lane >= offset) {
            v += other;
        }
    }
    return v;
}
#endif

}  // namespace augur::kernels::flock::detail
