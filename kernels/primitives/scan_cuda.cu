// CUDA scan variants (see scan.hpp). Layers: exclusiveScan (host API) → scanLevels (dispatch of the
// multi-level variants: tile kernel, recursive scan of tile totals, offset add) or the single-pass
// look-back kernel → thin tile kernels → device functions.
#include <cub/device/device_scan.cuh>

#include <cuda_runtime.h>

#include <type_traits>
#include <utility>

#include "augur/kernels/primitives/scan.hpp"
#include "lookback_scan.cuh"
#include "tuning.hpp"

namespace augur::kernels::primitives::cuda {
namespace {

using platform::GpuStatus;
using platform::StreamHandle;

constexpr int BLOCK = static_cast<int>(tuning::SCAN_BLOCK);
constexpr int WARP = 32;

/// Bank-conflict-free padding for 32 four-byte banks: one pad word every 32 and every 1024 words.
/// (Cao et al. 2018's macro, with the parentheses it lacks and LOG_NUM_BANKS = 5.)
__device__ __forceinline__ int padded(int n) { return n + (n >> 5) + (n >> 10); }
constexpr int paddedSize(int n) { return n + (n >> 5) + (n >> 10) + 1; }

constexpr int log2Of(int n) { return n <= 1 ? 0 : 1 + log2Of(n / 2); }

/// level(d, offset) for the levels of a Blelloch sweep over N values: the up-sweep visits
/// d = N/2, N/4, …, 1 with offset = N/(2d); the down-sweep d = 1, 2, …, N/2. Every level of a
/// complete unrolling is a straight-line block (UNROLL), otherwise one loop.
template <int N, bool UNROLL, bool UP, typename Level>
__device__ __forceinline__ void forEachLevel(Level&& level) {
    constexpr int LEVELS = log2Of(N);
    auto visit = [&](int i) {
        const int d = UP ? (N >> 1) >> i : 1 << i;
        level(d, (N >> 1) / d);
    };
    if constexpr (UNROLL) {
#pragma unroll
        for (int i = 0; i < LEVELS; ++i) {
            visit(i);
        }
    } else {
#pragma unroll 1
        for (int i = 0; i < LEVELS; ++i) {
            visit(i);
        }
    }
}

/// Exclusive Blelloch scan of N values already in s[padded(i)]; threads 0 … N/2−1 work, every
/// thread of the block must call it. Returns the total of the N values (to every thread).
template <int N, bool UNROLL>
__device__ float blellochExclusive(float* s) {
    const int tid = static_cast<int>(threadIdx.x);
    forEachLevel<N, UNROLL, true>([&](int d, int offset) {
        __syncthreads();
        if (tid < d) {
            const int ai = offset * (2 * tid + 1) - 1;
            const int bi = offset * (2 * tid + 2) - 1;
            s[padded(bi)] += s[padded(ai)];
        }
    });
    __syncthreads();
    const float total = s[padded(N - 1)];
    __syncthreads();
    if (tid == 0) {
        s[padded(N - 1)] = 0.0F;
    }
    forEachLevel<N, UNROLL, false>([&](int d, int offset) {
        __syncthreads();
        if (tid < d) {
            const int ai = offset * (2 * tid + 1) - 1;
            const int bi = offset * (2 * tid + 2) - 1;
            const float t = s[padded(ai)];
            s[padded(ai)] = s[padded(bi)];
            s[padded(bi)] += t;
        }
    });
    __syncthreads();
    return total;
}

/// Cao et al. 2018's tile: 2 elements per thread (thid and thid + n/2), padded Blelloch over 2·BLOCK.
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

/// The register part shared by the unrolled tiles: loads U consecutive elements of this thread
/// (from `first`), replaces them by their exclusive scan and returns their total.
template <int U>
__device__ __forceinline__ float loadThreadScan(const float* in, std::uint32_t n, std::uint64_t first, float (&v)[U]) {
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
    return running;
}

/// Writes the thread's U elements: its prefix plus their in-thread exclusive scan.
template <int U>
__device__ __forceinline__ void storeThreadScan(float* out, std::uint32_t n, std::uint64_t first, float prefix,
                                                const float (&v)[U]) {
#pragma unroll
    for (int i = 0; i < U; ++i) {
        if (first + i < n) {
            out[first + i] = prefix + v[i];
        }
    }
}

/// U consecutive elements per thread scanned in registers, then the thread totals either by the
/// padded Blelloch ("loop unrolling", WARP_SHUFFLE false) or by warp-synchronous shuffle scans with
/// one block barrier between the warp totals and their use ("warp unrolling", WARP_SHUFFLE true).
template <int U, bool WARP_SHUFFLE>
__global__ void __launch_bounds__(BLOCK) tileUnrolled(const float* in, float* out, std::uint32_t n, float* totals) {
    constexpr int TILE = U * BLOCK;
    const std::uint64_t first = static_cast<std::uint64_t>(blockIdx.x) * TILE + static_cast<std::uint64_t>(threadIdx.x) * U;
    float v[U];
    const float running = loadThreadScan<U>(in, n, first, v);
    float prefix = 0.0F;
    if constexpr (WARP_SHUFFLE) {
        constexpr int WARPS = BLOCK / WARP;
        __shared__ float warpTotals[WARPS];
        const int lane = static_cast<int>(threadIdx.x) % WARP;
        const int warp = static_cast<int>(threadIdx.x) / WARP;
        const float inclusive = primitives::detail::warpInclusiveScan(running, static_cast<std::uint32_t>(lane));
        if (lane == WARP - 1) {
            warpTotals[warp] = inclusive;
        }
        __syncthreads();
        if (warp == 0) {
            const float t = lane < WARPS ? warpTotals[lane] : 0.0F;
            const float scanned = primitives::detail::warpInclusiveScan(t, static_cast<std::uint32_t>(lane));
            if (lane < WARPS) {
                warpTotals[lane] = scanned - t;  // exclusive
            }
            if (lane == WARPS - 1) {
                totals[blockIdx.x] = scanned;
            }
        }
        __syncthreads();
        prefix = warpTotals[warp] + inclusive - running;
    } else {
        __shared__ float s[paddedSize(BLOCK)];
        s[padded(static_cast<int>(threadIdx.x))] = running;
        const float total = blellochExclusive<BLOCK, false>(s);
        prefix = s[padded(static_cast<int>(threadIdx.x))];
        if (threadIdx.x == 0) {
            totals[blockIdx.x] = total;
        }
    }
    storeThreadScan<U>(out, n, first, prefix, v);
}

__global__ void addOffsets(float* out, std::uint32_t n, const float* offsets, std::uint32_t tile) {
    const std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] += offsets[i / tile];
    }
}

// ---- single pass ------------------------------------------------------------------------------------

namespace lookback = primitives::detail;

/// A compiled tile shape of the single-pass scan (the public SinglePassShape plus its waits as a
/// compile-time value).
struct Shape {
    std::uint32_t block;
    std::uint32_t segments;
    bool packed;
    lookback::LookbackWait wait;
};

/// CUB's sm_90 waits for 4-byte scans (tuning_scan.cuh: fixed_delay_constructor_t<688, 1140>).
constexpr lookback::LookbackWait CUB_WAIT{1140, 688};

/// The shapes compiled in (measured side by side by augur-bench-pf --only scan); tuning::SINGLE_PASS_SHAPE
/// picks the one SinglePassLookback uses.
constexpr Shape SHAPES[] = {
    {256, 4, false, lookback::LOOKBACK_NO_WAIT},  // 0: flag + separate values (the previous layout)
    {256, 4, true, lookback::LOOKBACK_NO_WAIT},   // 1
    {256, 4, true, CUB_WAIT},                     // 2
    {256, 6, true, lookback::LOOKBACK_NO_WAIT},   // 3
    {256, 8, true, lookback::LOOKBACK_NO_WAIT},   // 4
    {256, 8, true, CUB_WAIT},                     // 5
    {256, 12, true, lookback::LOOKBACK_NO_WAIT},  // 6
    {128, 6, true, CUB_WAIT},                     // 7: CUB's sm_90 float tile (128 threads x 24 items)
    {128, 8, true, lookback::LOOKBACK_NO_WAIT},   // 8
    {512, 4, true, lookback::LOOKBACK_NO_WAIT},   // 9
};
constexpr std::size_t SHAPE_COUNT = sizeof(SHAPES) / sizeof(SHAPES[0]);
static_assert(tuning::SINGLE_PASS_SHAPE < SHAPE_COUNT);

/// The look-back layout of a shape: the packed 4-byte descriptor, or the general flag + values.
template <bool PACKED>
using FloatDescriptor = std::conditional_t<PACKED, lookback::LookbackPackedWord<float>, lookback::LookbackGeneral>;

constexpr std::uint32_t tileItems(const Shape& shape) {
    return shape.block * shape.segments * lookback::LOOKBACK_LANE_ITEMS;
}

std::uint32_t shapeTiles(const Shape& shape, std::uint32_t n) { return (n + tileItems(shape) - 1) / tileItems(shape); }

std::size_t shapeStateBytes(const Shape& shape, std::uint32_t n) {
    const std::uint32_t tiles = shapeTiles(shape, n);
    return shape.packed ? lookback::lookbackStateBytes<float, FloatDescriptor<true>>(tiles)
                        : lookback::lookbackStateBytes<float, FloatDescriptor<false>>(tiles);
}

/// One tile per block: 16-byte loads and stores where the whole group of 4 is inside [0, n) and the
/// pointers are 16-byte aligned (VECTOR), element-wise otherwise.
/// (The shape as integers: nvcc's host stubs take no class-type template arguments.)
template <bool VECTOR, std::uint32_t BLOCK, std::uint32_t SEGMENTS, bool PACKED, std::uint32_t FIRST_WAIT_NS,
          std::uint32_t SPIN_WAIT_NS>
__global__ void __launch_bounds__(BLOCK)
    singlePassScan(const float* __restrict__ in, float* __restrict__ out, std::uint32_t n,
                   lookback::LookbackState<float, FloatDescriptor<PACKED>> state) {
    auto load = [&](std::uint64_t i, float (&v)[4]) {
        if (VECTOR && i + 3 < n) {
            const float4 q = __ldg(reinterpret_cast<const float4*>(in + i));
            v[0] = q.x;
            v[1] = q.y;
            v[2] = q.z;
            v[3] = q.w;
            return;
        }
#pragma unroll
        for (std::uint32_t q = 0; q < 4; ++q) {
            v[q] = i + q < n ? in[i + q] : 0.0F;
        }
    };
    auto store = [&](std::uint64_t i, float base, const float (&v)[4]) {
        float e[4];
        float running = base;
#pragma unroll
        for (std::uint32_t q = 0; q < 4; ++q) {
            e[q] = running;
            running += v[q];
        }
        if (VECTOR && i + 3 < n) {
            *reinterpret_cast<float4*>(out + i) = make_float4(e[0], e[1], e[2], e[3]);
            return;
        }
#pragma unroll
        for (std::uint32_t q = 0; q < 4; ++q) {
            if (i + q < n) {
                out[i + q] = e[q];
            }
        }
    };
    constexpr lookback::LookbackWait WAIT{FIRST_WAIT_NS, SPIN_WAIT_NS};
    lookback::lookbackScanTile<float, SEGMENTS, BLOCK, WAIT>(state, load, store);
}

bool aligned16(const float* in, const float* out) {
    return (reinterpret_cast<std::uintptr_t>(in) | reinterpret_cast<std::uintptr_t>(out)) % 16 == 0;
}

/// Clears the state, launches the tiles. UNALIGNED: also compiled for pointers that are not 16-byte
/// aligned (the shape SinglePassLookback uses); the others refuse them.
template <std::size_t I, bool UNALIGNED>
GpuStatus launchShape(const float* in, float* out, std::uint32_t n, void* scratch, StreamHandle stream) {
    constexpr Shape SHAPE = SHAPES[I];
    const std::uint32_t tiles = shapeTiles(SHAPE, n);
    const auto state = lookback::lookbackState<float, FloatDescriptor<SHAPE.packed>>(scratch, tiles);
    const bool vector = aligned16(in, out);
    if (!UNALIGNED && !vector) {
        return AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
    }
    const std::size_t clearBytes = lookback::lookbackClearBytes<float, FloatDescriptor<SHAPE.packed>>(tiles);
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cudaMemsetAsync(scratch, 0, clearBytes, stream)));
    if (vector) {
        singlePassScan<true, SHAPE.block, SHAPE.segments, SHAPE.packed, SHAPE.wait.firstWait_ns, SHAPE.wait.spinWait_ns>
            <<<tiles, SHAPE.block, 0, stream>>>(in, out, n, state);
    } else if constexpr (UNALIGNED) {
        singlePassScan<false, SHAPE.block, SHAPE.segments, SHAPE.packed, SHAPE.wait.firstWait_ns, SHAPE.wait.spinWait_ns>
            <<<tiles, SHAPE.block, 0, stream>>>(in, out, n, state);
    }
    return AUGUR_CUDA_CHECK_LAUNCH();
}

template <std::size_t... I>
GpuStatus launchShapeIndex(std::size_t shape, const float* in, float* out, std::uint32_t n, void* scratch,
                           StreamHandle stream, std::index_sequence<I...> /*shapes*/) {
    GpuStatus status = AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
    (void)((shape == I ? (status = launchShape<I, I == tuning::SINGLE_PASS_SHAPE>(in, out, n, scratch, stream), true)
                       : false) ||
           ...);
    return status;
}

GpuStatus singlePass(std::size_t shape, const float* in, float* out, std::uint32_t n, void* scratch, StreamHandle stream) {
    return launchShapeIndex(shape, in, out, n, scratch, stream, std::make_index_sequence<SHAPE_COUNT>{});
}

// ---- multi-level ------------------------------------------------------------------------------------

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
        case ScanVariant::Unrolled2: tileUnrolled<2, false><<<blocks, BLOCK, 0, stream>>>(in, out, n, totals); break;
        case ScanVariant::Unrolled4: tileUnrolled<4, false><<<blocks, BLOCK, 0, stream>>>(in, out, n, totals); break;
        case ScanVariant::Unrolled8: tileUnrolled<8, false><<<blocks, BLOCK, 0, stream>>>(in, out, n, totals); break;
        case ScanVariant::WarpUnrolled: tileUnrolled<8, true><<<blocks, BLOCK, 0, stream>>>(in, out, n, totals); break;
        case ScanVariant::SinglePassLookback:
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

std::span<const SinglePassShape> singlePassShapes() noexcept {
    static constexpr auto PUBLIC = [] {
        std::array<SinglePassShape, SHAPE_COUNT> shapes{};
        for (std::size_t i = 0; i < SHAPE_COUNT; ++i) {
            shapes[i] = SinglePassShape{SHAPES[i].block, SHAPES[i].segments, SHAPES[i].packed,
                                        SHAPES[i].wait.firstWait_ns, SHAPES[i].wait.spinWait_ns};
        }
        return shapes;
    }();
    return PUBLIC;
}

std::size_t singlePassDefaultShape() noexcept { return tuning::SINGLE_PASS_SHAPE; }

std::size_t singlePassScratchBytes(std::size_t shape, std::uint32_t n) noexcept {
    return shape < SHAPE_COUNT ? shapeStateBytes(SHAPES[shape], n) : 0;
}

GpuStatus singlePassScan(std::size_t shape, const float* in, float* out, std::uint32_t n, void* scratch,
                         std::size_t scratchBytes, StreamHandle stream) noexcept {
    if (n == 0) {
        return {};
    }
    if (shape >= SHAPE_COUNT || scratchBytes < singlePassScratchBytes(shape, n) || n > 0x7FFFFFFFU) {
        return AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
    }
    return singlePass(shape, in, out, n, scratch, stream);
}

std::size_t exclusiveScanScratchBytes(ScanVariant variant, std::uint32_t n) noexcept {
    if (variant == ScanVariant::Cub) {
        std::size_t bytes = 0;
        (void)cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const float*>(nullptr),
                                            static_cast<float*>(nullptr), static_cast<int>(n));
        return bytes + 256;
    }
    if (variant == ScanVariant::SinglePassLookback) {
        return shapeStateBytes(SHAPES[tuning::SINGLE_PASS_SHAPE], n);
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
    if (variant == ScanVariant::SinglePassLookback) {
        return singlePass(tuning::SINGLE_PASS_SHAPE, in, out, n, scratch, stream);
    }
    return scanLevels(variant, in, out, n, static_cast<char*>(scratch), stream);
}

}  // namespace augur::kernels::primitives::cuda
