// Dispatch helpers shared by the two flock stages (cuda_batch.cu, cuda_window.cu): a kernel launch
// followed by its launch check, one prefix-sum scratch sized at init for every scan of a stage, and
// the count → exclusive scan → write sequence by which every data-dependent pool is sized (seeds/002
// §4: "a counting pass, a prefix sum and a placement pass"; the prefix sum is kernels/primitives'
// two-pass tiled scan). Warp-level helpers for the kernels that give one warp to one set. Included by
// .cu files only.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <utility>

#include "../primitives/tiled_scan.cuh"
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

#if defined(__CUDACC__)
inline constexpr int WARP_THREADS = 32;
inline constexpr unsigned int FULL_WARP = 0xFFFFFFFFU;

__device__ __forceinline__ int laneId() { return static_cast<int>(threadIdx.x) & (WARP_THREADS - 1); }

#endif

/// One device scratch for all the exclusive prefix sums of a stage (primitives' two-pass tiled scan: the
/// stages' scans are a few hundred thousand items, where a look-back chain of tiles cost more than the
/// two passes). Init: `require` for every scan the stage will run, then `allocate`. Run: `exclusive`.
class PrefixSums {
public:
    /// Init phase: makes room for exclusive scans of items of T (any count).
    template <typename T>
    void require() {
        m_bytes = std::max(m_bytes, primitives::detail::tiledScanScratchBytes<T>());
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
        return primitives::detail::tiledExclusiveScan(in, out, count, static_cast<T*>(m_temp.get()), stream);
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
using primitives::detail::warpAllSum;

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
