// Single-pass prefix scan with decoupled look-back (Merrill and Garland, "Single-pass Parallel Prefix
// Scan with Decoupled Look-back", NVIDIA NVR-2016-002): every tile is read and written once. A tile
// publishes its own aggregate as soon as it has it and its inclusive prefix once it knows it; the
// next tiles sum their predecessors' values backwards until they meet a published prefix, so no tile
// waits for a serial chain. Device building block, private to kernels/: the scan variant of
// primitives/scan_cuda.cu (float) and the particle filter's integer CDF (pf/cdf_scan.cuh) use it.
//
// Block b scans tile b. Like CUB's DeviceScan, this relies on the hardware starting blocks in
// index order, so a tile's predecessors are resident or done and the look-back never waits for a
// block that has not started. The tile state must be zero before a scan; zeroLookbackState clears
// it.
//
// Two layouts of the per-tile state (NVR-2016-002 section 4.4, "tile descriptors"), chosen by a
// descriptor policy (the second template argument of LookbackState):
//   packed   flag and value share one 64-bit word; one relaxed 64-bit store publishes both, one
//            relaxed 64-bit load reads both — no fences, one L2 round trip per look-back window.
//            LookbackPackedWord<T>: any 4-byte T (float, int32, uint32), the default for them.
//            LookbackPackedBelow2To62: uint64 values whose sums stay below 2⁶² — opt-in only,
//            the caller declares the bound (the filter's CDF: below 2⁵²).
//   general  (LookbackGeneral: any T, the default for everything but 4-byte T, e.g. packed uint64
//            counts that use all 64 bits) a flag word and two value arrays; the value is stored
//            before a release store of the flag and read after an acquire load of it — two
//            dependent L2 round trips per window and a fence per publication.
//
// Integer scans are exact and deterministic. Float scans sum a tile's predecessors in an order that
// depends on timing (how far back the look-back had to go), so the last bits can differ run to run —
// as with CUB's DeviceScan.
#pragma once

#include <cuda/atomic>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "warp_scan.cuh"

namespace augur::kernels::primitives::detail {

inline constexpr std::uint32_t LOOKBACK_BLOCK = 256;  ///< threads per tile unless a caller picks another
inline constexpr std::uint32_t LOOKBACK_LANE_ITEMS = 4;  ///< consecutive items per lane and segment

/// Items of one tile: BLOCK / 32 warps × SEGMENTS segments of 32 lanes × 4 consecutive items.
template <std::uint32_t SEGMENTS, std::uint32_t BLOCK = LOOKBACK_BLOCK>
constexpr std::uint32_t lookbackTileItems() noexcept {
    return BLOCK * SEGMENTS * LOOKBACK_LANE_ITEMS;
}

enum : std::uint32_t { TILE_EMPTY = 0, TILE_AGGREGATE = 1, TILE_PREFIX = 2 };

// ---- descriptor policies ---------------------------------------------------------------------------
// A packed policy says how one 64-bit descriptor holds a flag (the low bits) and a value (the
// aggregate while TILE_AGGREGATE, the inclusive prefix once TILE_PREFIX): pack, flagOf, valueOf.
// A zero descriptor is TILE_EMPTY in every policy, so clearing is a memset to zero.

/// General layout: a flag word and two value arrays per tile; any T.
struct LookbackGeneral {
    static constexpr bool PACKED = false;
};

/// Packed, 4-byte T (float, int32, uint32): the flag in the low 32 bits, the value's bits in the
/// high 32. Holds every value of T.
template <typename T>
struct LookbackPackedWord {
    static_assert(sizeof(T) == 4 && std::is_trivially_copyable_v<T>, "the high word holds a 4-byte value");
    static constexpr bool PACKED = true;
    using Value = T;

    __device__ static unsigned long long pack(std::uint32_t flag, T value) {
        std::uint32_t bits;
        __builtin_memcpy(&bits, &value, sizeof(bits));
        return (static_cast<unsigned long long>(bits) << 32U) | flag;
    }
    __device__ static std::uint32_t flagOf(unsigned long long descriptor) {
        return static_cast<std::uint32_t>(descriptor & 0xFFFFFFFFULL);
    }
    __device__ static T valueOf(unsigned long long descriptor) {
        const auto bits = static_cast<std::uint32_t>(descriptor >> 32U);
        T value;
        __builtin_memcpy(&value, &bits, sizeof(value));
        return value;
    }
};

/// Packed, uint64 values below a declared bound: the descriptor is (value << 2) | flag.
/// PRECONDITION (the caller's, unchecked): every inclusive prefix of the scan is below 2⁶²
/// (BOUND) — for unsigned items without wrap-around, the sum of all items. Then every published
/// value (a tile aggregate or an inclusive prefix) and every look-back partial sum is below 2⁶²
/// too, and the descriptor is exact; a larger value would silently lose its top two bits. Opt-in
/// only: never the default for uint64 (counts packed as (sets << 32) | members, for one, use all
/// 64 bits and keep LookbackGeneral). Declare the bound at the use, e.g. with a static_assert on
/// the largest item times the largest count.
struct LookbackPackedBelow2To62 {
    static constexpr bool PACKED = true;
    using Value = std::uint64_t;
    static constexpr std::uint64_t BOUND = 1ULL << 62U;  ///< every inclusive prefix < BOUND

    __device__ static unsigned long long pack(std::uint32_t flag, std::uint64_t value) {
        return (static_cast<unsigned long long>(value) << 2U) | flag;
    }
    __device__ static std::uint32_t flagOf(unsigned long long descriptor) {
        return static_cast<std::uint32_t>(descriptor & 3ULL);
    }
    __device__ static std::uint64_t valueOf(unsigned long long descriptor) {
        return static_cast<std::uint64_t>(descriptor >> 2U);
    }
};
static_assert(TILE_PREFIX < 4, "the flags fit the two low bits of LookbackPackedBelow2To62");

/// Whether T's flag and value fit one 64-bit tile descriptor whatever the value (the default layout
/// for T).
template <typename T>
inline constexpr bool LOOKBACK_PACKS = sizeof(T) == 4 && std::is_trivially_copyable_v<T>;

/// The layout a scan of T gets unless its caller picks one: packed for 4-byte T, general otherwise.
template <typename T>
using LookbackDefaultDescriptor = std::conditional_t<LOOKBACK_PACKS<T>, LookbackPackedWord<T>, LookbackGeneral>;

/// General layout. Per tile: a flag, the tile's aggregate (final once flagged) and its inclusive
/// prefix (final once flagged TILE_PREFIX; after the scan, every tile's). Views into caller-provided
/// scratch.
template <typename T, typename Descriptor = LookbackDefaultDescriptor<T>>
struct LookbackState {
    static_assert(!Descriptor::PACKED);
    std::uint32_t* flags;
    T* aggregates;
    T* prefixes;
};

/// Packed layout: per tile one descriptor in Descriptor's encoding.
template <typename T, typename Descriptor>
    requires(Descriptor::PACKED)
struct LookbackState<T, Descriptor> {
    static_assert(std::is_same_v<typename Descriptor::Value, T>, "the descriptor policy encodes values of T");
    unsigned long long* descriptors;
};

constexpr std::size_t lookbackAlign(std::size_t bytes) noexcept { return (bytes + 255U) & ~std::size_t{255U}; }

/// Bytes to zero before a scan: the flags (general layout; the values need no clearing) or the
/// descriptors (packed). They are the start of the state, so one memset clears it.
template <typename T, typename Descriptor = LookbackDefaultDescriptor<T>>
constexpr std::size_t lookbackClearBytes(std::size_t tiles) noexcept {
    return Descriptor::PACKED ? tiles * sizeof(unsigned long long) : tiles * sizeof(std::uint32_t);
}

/// Scratch bytes of the state for `tiles` tiles.
template <typename T, typename Descriptor = LookbackDefaultDescriptor<T>>
constexpr std::size_t lookbackStateBytes(std::size_t tiles) noexcept {
    if constexpr (Descriptor::PACKED) {
        return lookbackAlign(lookbackClearBytes<T, Descriptor>(tiles));
    } else {
        return lookbackAlign(tiles * sizeof(std::uint32_t)) + 2 * lookbackAlign(tiles * sizeof(T));
    }
}

/// Views of `scratch` (lookbackStateBytes<T, Descriptor>(tiles) bytes, 256-byte aligned).
template <typename T, typename Descriptor = LookbackDefaultDescriptor<T>>
inline LookbackState<T, Descriptor> lookbackState(void* scratch, std::size_t tiles) noexcept {
    char* p = static_cast<char*>(scratch);
    LookbackState<T, Descriptor> s{};
    if constexpr (Descriptor::PACKED) {
        s.descriptors = reinterpret_cast<unsigned long long*>(p);
    } else {
        s.flags = reinterpret_cast<std::uint32_t*>(p);
        p += lookbackAlign(tiles * sizeof(std::uint32_t));
        s.aggregates = reinterpret_cast<T*>(p);
        p += lookbackAlign(tiles * sizeof(T));
        s.prefixes = reinterpret_cast<T*>(p);
    }
    return s;
}

/// Clears the state from inside a kernel that runs after the scan (grid-stride over the tiles).
template <typename T, typename Descriptor>
__device__ __forceinline__ void zeroLookbackState(const LookbackState<T, Descriptor>& s, std::uint32_t tiles,
                                                  std::uint32_t thread, std::uint32_t threads) {
    for (std::uint32_t t = thread; t < tiles; t += threads) {
        if constexpr (Descriptor::PACKED) {
            s.descriptors[t] = 0ULL;
        } else {
            s.flags[t] = TILE_EMPTY;
        }
    }
}

/// How a look-back waits (CUB's "delay constructors", cub/agent/single_pass_scan_operators.cuh):
/// `firstWait_ns` once after publishing the tile's aggregate, before reading the first window (the
/// predecessors' prefixes are more likely to be out by then), and `spinWait_ns` between two reads of
/// a predecessor that has published nothing yet. Both only in grids of at least LOOKBACK_WAIT_GRID
/// blocks (in small grids every tile is resident at once and the chain is short). Zero: no wait.
struct LookbackWait {
    std::uint32_t firstWait_ns;
    std::uint32_t spinWait_ns;
};
inline constexpr LookbackWait LOOKBACK_NO_WAIT{0, 0};
inline constexpr std::uint32_t LOOKBACK_WAIT_GRID = 500;  ///< CUB's GridThreshold

template <std::uint32_t NS>
__device__ __forceinline__ void lookbackSleep() {
    if constexpr (NS > 0) {
        if (gridDim.x >= LOOKBACK_WAIT_GRID) {
            __nanosleep(NS);
        }
    }
}

/// Adds one window's values to `exclusive`: lane 0 is the nearest predecessor; the sum runs up to and
/// including the nearest one with a prefix. Returns whether the window held a prefix (warp-uniform).
template <typename T>
__device__ __forceinline__ bool addWindow(T& exclusive, std::uint32_t flag, T value, std::uint32_t lane) {
    const std::uint32_t prefixLanes = __ballot_sync(0xFFFFFFFFU, flag == TILE_PREFIX);
    const std::uint32_t last = prefixLanes != 0 ? static_cast<std::uint32_t>(__ffs(static_cast<int>(prefixLanes))) - 1 : 31;
    exclusive += warpAllSum(lane <= last ? value : T{});
    return prefixLanes != 0;
}

/// Warp 0's part, general layout: publishes the tile aggregate, looks back over 32 predecessors at a
/// time until one has its prefix, publishes this tile's prefix. Returns the tile's exclusive prefix
/// (lane 0).
template <LookbackWait WAIT, typename T>
__device__ __forceinline__ T lookBack(const LookbackState<T, LookbackGeneral>& s, std::uint32_t tile, T aggregate,
                                      std::uint32_t lane) {
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
    lookbackSleep<WAIT.firstWait_ns>();
    T exclusive{};
    auto predecessor = static_cast<std::int64_t>(tile) - 1 - static_cast<std::int64_t>(lane);
    while (true) {
        std::uint32_t flag = TILE_PREFIX;  // before tile 0: nothing to add (never reached past tile 0's lane)
        T value{};
        if (predecessor >= 0) {
            const auto t = static_cast<std::size_t>(predecessor);
            while ((flag = Flag(s.flags[t]).load(::cuda::memory_order_acquire)) == TILE_EMPTY) {
                lookbackSleep<WAIT.spinWait_ns>();
            }
            value = flag == TILE_PREFIX ? __ldcg(&s.prefixes[t]) : __ldcg(&s.aggregates[t]);
        }
        if (addWindow(exclusive, flag, value, lane)) {
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

/// Warp 0's part, packed layout (any packed Descriptor policy): the same protocol, each publication
/// one relaxed 64-bit store and each read one relaxed 64-bit load (flag and value cannot be seen
/// apart, so no fence orders them).
template <LookbackWait WAIT, typename T, typename Descriptor>
    requires(Descriptor::PACKED)
__device__ __forceinline__ T lookBack(const LookbackState<T, Descriptor>& s, std::uint32_t tile, T aggregate,
                                      std::uint32_t lane) {
    using Word = ::cuda::atomic_ref<unsigned long long, ::cuda::thread_scope_device>;
    if (tile == 0) {
        if (lane == 0) {
            Word(s.descriptors[0]).store(Descriptor::pack(TILE_PREFIX, aggregate), ::cuda::memory_order_relaxed);
        }
        return T{};
    }
    if (lane == 0) {
        Word(s.descriptors[tile]).store(Descriptor::pack(TILE_AGGREGATE, aggregate), ::cuda::memory_order_relaxed);
    }
    lookbackSleep<WAIT.firstWait_ns>();
    T exclusive{};
    auto predecessor = static_cast<std::int64_t>(tile) - 1 - static_cast<std::int64_t>(lane);
    while (true) {
        unsigned long long d = Descriptor::pack(TILE_PREFIX, T{});  // before tile 0: nothing to add
        if (predecessor >= 0) {
            const auto t = static_cast<std::size_t>(predecessor);
            while (Descriptor::flagOf(d = Word(s.descriptors[t]).load(::cuda::memory_order_relaxed)) == TILE_EMPTY) {
                lookbackSleep<WAIT.spinWait_ns>();
            }
        }
        if (addWindow(exclusive, Descriptor::flagOf(d), Descriptor::valueOf(d), lane)) {
            break;
        }
        predecessor -= 32;
    }
    if (lane == 0) {
        Word(s.descriptors[tile]).store(Descriptor::pack(TILE_PREFIX, exclusive + aggregate),
                                        ::cuda::memory_order_relaxed);
    }
    return exclusive;
}

/// The lane layout of lookbackScanTile: the first item this thread holds in tile blockIdx.x; its
/// segment g starts g · LOOKBACK_SEGMENT_ITEMS items later (for callers that load a tile's items
/// themselves, before the scan).
inline constexpr std::uint32_t LOOKBACK_SEGMENT_ITEMS = 32 * LOOKBACK_LANE_ITEMS;
template <std::uint32_t SEGMENTS, std::uint32_t BLOCK = LOOKBACK_BLOCK>
__device__ __forceinline__ std::uint64_t lookbackLaneFirst() {
    return static_cast<std::uint64_t>(blockIdx.x) * lookbackTileItems<SEGMENTS, BLOCK>() +
           static_cast<std::uint64_t>(threadIdx.x / 32) * SEGMENTS * LOOKBACK_SEGMENT_ITEMS +
           LOOKBACK_LANE_ITEMS * (threadIdx.x % 32);
}

/// Scans tile blockIdx.x; every thread of a BLOCK-thread block calls it once (BLOCK a multiple of 32,
/// at most 1024).
///   load(i, v):        v[q] = item i + q for q < 4 (items at or past n read as zero); i % 4 == 0
///   store(i, base, v): the items i … i+3 with values v[q], base = the sum of every item before i
/// Warp w of tile t holds items t·TILE + w·SEGMENTS·128 + s·128 + 4·lane + q: each segment is 128
/// consecutive items (coalesced 16-byte accesses for 4-byte items).
template <typename T, std::uint32_t SEGMENTS, std::uint32_t BLOCK = LOOKBACK_BLOCK, LookbackWait WAIT = LOOKBACK_NO_WAIT,
          typename Descriptor, typename Load, typename Store>
__device__ __forceinline__ void lookbackScanTile(const LookbackState<T, Descriptor>& s, Load&& load, Store&& store) {
    static_assert(BLOCK % 32 == 0 && BLOCK <= 1024, "whole warps, one block");
    constexpr std::uint32_t WARPS = BLOCK / 32;
    constexpr std::uint32_t SEGMENT_ITEMS = LOOKBACK_SEGMENT_ITEMS;
    __shared__ T warpTotals[WARPS];
    __shared__ T tileExclusive;
    const std::uint32_t lane = threadIdx.x % 32;
    const std::uint32_t warp = threadIdx.x / 32;
    const std::uint32_t tile = blockIdx.x;
    const std::uint64_t first = lookbackLaneFirst<SEGMENTS, BLOCK>();
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
        const T exclusive = lookBack<WAIT>(s, tile, aggregate, lane);
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
