// Single-pass prefix scan with decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix
// Scan with Decoupled Look-back", NVIDIA NVR-2016-002): every tile is read and written once. A tile
// publishes its own aggregate as soon as it has it and its inclusive prefix once it knows it; the
// next tiles sum their predecessors' values backwards until they meet a published prefix, so no tile
// waits for a serial chain. Device building block, private to kernels/: the scan variant of
// primitives/scan_cuda.cu (float) and the particle filter's integer CDF (pf/resample_cuda.cu) use it.
//
// Block b scans tile b. Like CUB's DeviceScan, this relies on the hardware starting blocks in
// index order, so a tile's predecessors are resident or done and the look-back never waits for a
// block that has not started. The tile flags must be zero before a scan; zeroLookbackState clears
// them.
//
// Integer scans are exact and deterministic. Float scans sum a tile's predecessors in an order that
// depends on timing (how far back the look-back had to go), so the last bits can differ run to run —
// as with CUB's DeviceScan.
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace augur::kernels::primitives::detail {

inline constexpr std::uint32_t LOOKBACK_BLOCK = 256;  ///< threads per tile
inline constexpr std::uint32_t LOOKBACK_LANE_ITEMS = 4;  ///< consecutive items per lane and segment

/// Items of one tile: 8 warps × SEGMENTS segments of 32 lanes × 4 consecutive items.
template <std::uint32_t SEGMENTS>
constexpr std::uint32_t lookbackTileItems() noexcept {
    return LOOKBACK_BLOCK * SEGMENTS * LOOKBACK_LANE_ITEMS;
}

enum : std::uint32_t { TILE_EMPTY = 0, TILE_AGGREGATE = 1, TILE_PREFIX = 2 };

/// Per tile: a flag, the tile's aggregate (final once flagged) and its inclusive prefix (final once
/// flagged TILE_PREFIX; after the scan, every tile's). Views into caller-provided scratch.
template <typename T>
struct LookbackState {
    std::uint32_t* flags;
    T* aggregates;
    T* prefixes;
};

constexpr std::size_t lookbackAlign(std::size_t bytes) noexcept { return (bytes + 255U) & ~std::size_t{255U}; }

/// Scratch bytes of the state for `tiles` tiles.
template <typename T>
constexpr std::size_t lookbackStateBytes(std::size_t tiles) noexcept {
    return lookbackAlign(tiles * sizeof(std::uint32_t)) + 2 * lookbackAlign(tiles * sizeof(T));
}

/// The flags come first, so one memset of lookbackFlagBytes(tiles) clears the state.
template <typename T>
inline LookbackState<T> lookbackState(void* scratch, std::size_t tiles) noexcept {
    char* p = static_cast<char*>(scratch);
    LookbackState<T> s{};
    s.flags = reinterpret_cast<std::uint32_t*>(p);
    p += lookbackAlign(tiles * sizeof(std::uint32_t));
    s.aggregates = reinterpret_cast<T*>(p);
    p += lookbackAlign(tiles * sizeof(T));
    s.prefixes = reinterpret_cast<T*>(p);
    return s;
}

/// Bytes to zero before a scan (the flags; the values need no clearing).
constexpr std::size_t lookbackFlagBytes(std::size_t tiles) noexcept { return tiles * sizeof(std::uint32_t); }

/// Clears the state from inside a kernel that runs after the scan (grid-stride over the tiles).
template <typename T>
__device__ __forceinline__ void zeroLookbackState(const LookbackState<T>& s, std::uint32_t tiles,
                                                  std::uint32_t thread, std::uint32_t threads) {
    for (std::uint32_t t = thread; t < tiles; t += threads) {
        s.flags[t] = TILE_EMPTY;
    }
}

template <typename T>
__device__ __forceinline__ T warpInclusiveScan(T x, std::uint32_t lane) {
#pragma unroll
    for (std::uint32_t offset = 1; offset < 32; offset <<= 1) {
        const T y = __shfl_up_sync(0xFFFFFFFFU, x, offset);
        if (lane >= offset) {
            x += y;
        }
    }
    return x;
}

template <typename T>
__device__ __forceinline__ T warpAllSum(T x) {
#pragma unroll
    for (std::uint32_t offset = 16; offset > 0; offset >>= 1) {
        x += __shfl_xor_sync(0xFFFFFFFFU, x, offset);
    }
    return x;
}

/// Warp 0's part: publishes the tile aggregate, looks back over 32 predecessors at a time until one
/// has its prefix, publishes this tile's prefix. Returns the tile's exclusive prefix (lane 0).
template <typename T>
__device__ __forceinline__ T lookBack(const LookbackState<T>& s, std::uint32_t tile, T aggregate, std::uint32_t lane) {
    using Flag = ::cuda::atomic_ref<std::uint32_t, ::cuda::thread_scope_device>;
    if (tile == 0) {
        if (lane == 0) {
            s.prefixes[0] = aggregate;
            Flag(s.flags[0]).store(TILE_PREFIX, ::cuda::memory_order_release);
        }
        return T{};
    }
    if (lane == 0) {
        s.aggregates[tile] = aggregate;
        Flag(s.flags[tile]).store(TILE_AGGREGATE, ::cuda::memory_order_release);
    }
    T exclusive{};
    auto predecessor = static_cast<std::int64_t>(tile) - 1 - static_cast<std::int64_t>(lane);
    while (true) {
        std::uint32_t flag = TILE_PREFIX;  // before tile 0: nothing to add (never reached past tile 0's lane)
        T value{};
        if (predecessor >= 0) {
            const auto t = static_cast<std::size_t>(predecessor);
            do {
                flag = Flag(s.flags[t]).load(::cuda::memory_order_acquire);
            } while (flag == TILE_EMPTY);
            value = flag == TILE_PREFIX ? __ldcg(&s.prefixes[t]) : __ldcg(&s.aggregates[t]);
        }
        const std::uint32_t prefixLanes = __ballot_sync(0xFFFFFFFFU, flag == TILE_PREFIX);
        // Lane 0 is the nearest predecessor: sum up to and including the nearest one with a prefix.
        const std::uint32_t last = prefixLanes != 0 ? static_cast<std::uint32_t>(__ffs(static_cast<int>(prefixLanes))) - 1 : 31;
        exclusive += warpAllSum(lane <= last ? value : T{});
        if (prefixLanes != 0) {
            break;
        }
        predecessor -= 32;
    }
    if (lane == 0) {
        s.prefixes[tile] = exclusive + aggregate;
        Flag(s.flags[tile]).store(TILE_PREFIX, ::cuda::memory_order_release);
    }
    return exclusive;
}

/// Scans tile blockIdx.x; every thread of a LOOKBACK_BLOCK-thread block calls it once.
///   load(i, v):        v[q] = item i + q for q < 4 (items at or past n read as zero); i % 4 == 0
///   store(i, base, v): the items i … i+3 with values v[q], base = the sum of every item before i
/// Warp w of tile t holds items t·TILE + w·SEGMENTS·128 + s·128 + 4·lane + q: each segment is 128
/// consecutive items (coalesced 16-byte accesses for 4-byte items).
template <typename T, std::uint32_t SEGMENTS, typename Load, typename Store>
__device__ __forceinline__ void lookbackScanTile(const LookbackState<T>& s, Load&& load, Store&& store) {
    constexpr std::uint32_t WARPS = LOOKBACK_BLOCK / 32;
    constexpr std::uint32_t SEGMENT_ITEMS = 32 * LOOKBACK_LANE_ITEMS;
    constexpr std::uint32_t WARP_ITEMS = SEGMENTS * SEGMENT_ITEMS;
    __shared__ T warpTotals[WARPS];
    __shared__ T tileExclusive;
    const std::uint32_t lane = threadIdx.x % 32;
    const std::uint32_t warp = threadIdx.x / 32;
    const std::uint32_t tile = blockIdx.x;
    const std::uint64_t first = static_cast<std::uint64_t>(tile) * lookbackTileItems<SEGMENTS>() +
                                static_cast<std::uint64_t>(warp) * WARP_ITEMS + LOOKBACK_LANE_ITEMS * lane;
    T v[SEGMENTS][LOOKBACK_LANE_ITEMS];
#pragma unroll
    for (std::uint32_t g = 0; g < SEGMENTS; ++g) {
        load(first + g * SEGMENT_ITEMS, v[g]);
    }
    // Per segment: lane totals, a warp scan of them; laneBase[g] = the warp's items before the lane's.
    T laneBase[SEGMENTS];
    T warpRunning{};
#pragma unroll
    for (std::uint32_t g = 0; g < SEGMENTS; ++g) {
        T laneTotal = v[g][0];
#pragma unroll
        for (std::uint32_t q = 1; q < LOOKBACK_LANE_ITEMS; ++q) {
            laneTotal += v[g][q];
        }
        const T inclusive = warpInclusiveScan(laneTotal, lane);
        const T before = __shfl_up_sync(0xFFFFFFFFU, inclusive, 1);
        laneBase[g] = warpRunning + (lane == 0 ? T{} : before);
        warpRunning += __shfl_sync(0xFFFFFFFFU, inclusive, 31);
    }
    if (lane == 0) {
        warpTotals[warp] = warpRunning;
    }
    __syncthreads();
    T warpBefore{};
    T aggregate{};
#pragma unroll
    for (std::uint32_t w = 0; w < WARPS; ++w) {
        if (w == warp) {
            warpBefore = aggregate;
        }
        aggregate += warpTotals[w];
    }
    if (warp == 0) {
        const T exclusive = lookBack(s, tile, aggregate, lane);
        if (lane == 0) {
            tileExclusive = exclusive;
        }
    }
    __syncthreads();
    const T base = tileExclusive + warpBefore;
#pragma unroll
    for (std::uint32_t g = 0; g < SEGMENTS; ++g) {
        store(first + g * SEGMENT_ITEMS, base + laneBase[g], v[g]);
    }
}

}  // namespace augur::kernels::primitives::detail
