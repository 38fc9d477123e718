// Private to kernels/pf: the integer CDF of systematic resampling as device code — the layout of the
// resampling scratch and one tile of the single-pass scan of the quantised weights — shared by the
// resampling kernels (resample_cuda.cu) and the filter's combine kernel, which scans the CDF in the
// same launch as it combines the reduction (filter_cuda.cu).
#pragma once

#include <cstddef>
#include <cstdint>

#include "../primitives/lookback_scan.cuh"
#include "augur/kernels/pf/resample.hpp"

namespace augur::kernels::pf::cuda::internal {

namespace lookback = primitives::detail;

/// 4 segments: 16 quantised weights (uint64) per thread, 4096 per tile (2048 in the first H100 run:
/// its CDF kernel took 17.6 µs at K = 10⁶, 489 tiles, most of it look-back; fewer tiles, fewer windows).
/// 8 segments (8,192 per tile, 122 registers) measured slower in the combine: 17.2–17.8 against
/// 14.7–15.2 µs at K = 10⁶, 11.1–12.3 against 7.7–8.2 µs at 20,000 × 20 (H100, ncu).
inline constexpr std::uint32_t CDF_SEGMENTS = 4;
inline constexpr std::uint32_t CDF_TILE = lookback::lookbackTileItems<CDF_SEGMENTS>();

/// The scan's tile descriptors: flag and value in one 64-bit word ((value << 2) | flag), published
/// and read by one relaxed 64-bit access, instead of the general flag + value arrays (two dependent
/// L2 round trips per look-back window). Its precondition, every inclusive prefix below 2⁶², holds
/// with room to spare: a quantised weight is at most 2³¹ (quantizeWeight: the largest weight → 2³¹)
/// and K ≤ MAX_PARTICLES = 2²¹, so every CDF value is at most 2⁵².
using CdfDescriptor = lookback::LookbackPackedBelow2To62;
inline constexpr std::uint64_t MAX_QUANTIZED_WEIGHT = 1ULL << 31U;
static_assert(static_cast<std::uint64_t>(MAX_PARTICLES) * MAX_QUANTIZED_WEIGHT <= (1ULL << 52U) &&
                  (1ULL << 52U) < CdfDescriptor::BOUND,
              "the CDF's total (at most K·2³¹ ≤ 2⁵²) fits the packed descriptor's 62-bit values");
using CdfLookbackState = lookback::LookbackState<std::uint64_t, CdfDescriptor>;

constexpr std::size_t align256(std::size_t bytes) noexcept { return (bytes + 255U) & ~std::size_t{255U}; }
constexpr std::uint32_t cdfTiles(std::uint32_t particles) noexcept { return (particles + CDF_TILE - 1) / CDF_TILE; }
constexpr std::size_t cdfBytes(std::uint32_t particles) noexcept {
    return align256(static_cast<std::size_t>(particles) * sizeof(std::uint64_t));
}

/// The resampling scratch: the CDF (K entries), then the look-back state of its scan.
struct ResampleScratch {
    std::uint64_t* cdf;
    CdfLookbackState state;
    void* stateBase;
    std::uint32_t tiles;
};

/// Views of `scratch` (internal::resampleScratchBytes(particles) bytes).
ResampleScratch carve(void* scratch, std::uint32_t particles) noexcept;

/// The log-weights a thread scans in CDF tile blockIdx.x (the look-back scan's lane layout: segment g,
/// items q), loaded by loadTileLogWeights before the max they are quantised against is known, so
/// that the two loads overlap.
struct TileLogWeights {
    float w[CDF_SEGMENTS][lookback::LOOKBACK_LANE_ITEMS];
};

/// This thread's log-weights of CDF tile blockIdx.x (LOOKBACK_BLOCK threads; items past K read as 0
/// and are not scanned). VECTOR: the log-weights are 16-byte aligned.
template <bool VECTOR>
__device__ __forceinline__ TileLogWeights loadTileLogWeights(const float* logWeights,
                                                             std::uint32_t particles) {
    TileLogWeights t;
    const std::uint64_t first = lookback::lookbackLaneFirst<CDF_SEGMENTS>();
#pragma unroll
    for (std::uint32_t g = 0; g < CDF_SEGMENTS; ++g) {
        const std::uint64_t i = first + g * lookback::LOOKBACK_SEGMENT_ITEMS;
        if (VECTOR && i + 3 < particles) {
            const float4 q = __ldcg(reinterpret_cast<const float4*>(logWeights + i));
            t.w[g][0] = q.x;
            t.w[g][1] = q.y;
            t.w[g][2] = q.z;
            t.w[g][3] = q.w;
        } else {
#pragma unroll
            for (std::uint32_t q = 0; q < 4; ++q) {
                t.w[g][q] = i + q < particles ? logWeights[i + q] : 0.0F;
            }
        }
    }
    return t;
}

/// Tile blockIdx.x of the inclusive scan of quantizeWeight(log w, maxLogWeight) into cdf, from the
/// thread's log-weights `t` (loadTileLogWeights); every thread of a LOOKBACK_BLOCK-thread block calls
/// it once, blocks 0 … tiles − 1.
__device__ __forceinline__ void scanQuantizedTile(const TileLogWeights& t, std::uint32_t particles,
                                                  float maxLogWeight, std::uint64_t* __restrict__ cdf,
                                                  const CdfLookbackState& state) {
    std::uint32_t g = 0;  // the scan loads its segments in order, g = 0, 1, …
    auto load = [&](std::uint64_t i, std::uint64_t (&v)[4]) {
#pragma unroll
        for (std::uint32_t q = 0; q < 4; ++q) {
            v[q] = i + q < particles ? quantizeWeight(t.w[g][q], maxLogWeight) : 0U;
        }
        ++g;
    };
    auto store = [&](std::uint64_t i, std::uint64_t base, const std::uint64_t (&v)[4]) {
        std::uint64_t c[4];
        std::uint64_t running = base;
#pragma unroll
        for (std::uint32_t q = 0; q < 4; ++q) {
            running += v[q];
            c[q] = running;
        }
        if (i + 3 < particles) {
            auto* d = reinterpret_cast<ulonglong2*>(cdf + i);  // cdf is 256-byte aligned, i % 4 == 0
            d[0] = make_ulonglong2(c[0], c[1]);
            d[1] = make_ulonglong2(c[2], c[3]);
            return;
        }
#pragma unroll
        for (std::uint32_t q = 0; q < 4; ++q) {
            if (i + q < particles) {
                cdf[i + q] = c[q];
            }
        }
    };
    lookback::lookbackScanTile<std::uint64_t, CDF_SEGMENTS>(state, load, store);
}

}  // namespace augur::kernels::pf::cuda::internal
