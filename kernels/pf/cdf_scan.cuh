// Private to kernels/pf: the integer CDF of systematic resampling as device code — the layout of the
// resampling scratch, one tile of the single-pass scan of the quantised weights, and the copies'
// sources drawn from it — shared by the resampling kernels (resample_cuda.cu) and the filter's
// agents (agent/): its combine scans the CDF in the same launch as it combines the
// reduction, and its advance draws the copy indices of its own particles.
#pragma once

#include <cstddef>
#include <cstdint>

#include "../primitives/lookback_scan.cuh"
#include "augur/kernels/pf/resample.hpp"

namespace augur::kernels::pf::cuda::internal {

namespace lookback = primitives::detail;

/// Segments of a CDF tile (4 quantised weights per thread and segment, LOOKBACK_BLOCK threads):
/// 1 (1,024 per tile) while the CDF has at most CDF_ONE_SEGMENT_TILES such tiles — every look-back
/// then ends in its first window, and the shorter tiles shorten the scan's chain: the seed-scale
/// step (20 tiles) measured 0.3–0.7 µs faster than with 2 segments (H100, augur-bench-pf) — else 2
/// (2,048 per tile, 489 tiles at K = 10⁶), where 1 segment made the step 2–3 µs slower. 2 segments
/// against 4 (4,096 per tile), with the packed descriptors and the scan beside the combine's channel
/// sums: the seed-scale step 26.6–27.1 µs against 27.1–27.6, K = 10⁶ within noise. 8 segments
/// (8,192 per tile, 122 registers) measured slower in the combine: 17.2–17.8 against 14.7–15.2 µs at
/// K = 10⁶, 11.1–12.3 against 7.7–8.2 µs at 20,000 × 20 (H100, apps/benchmarks/pf/profile-kernels.sh).
inline constexpr std::uint32_t CDF_ONE_SEGMENT_TILES = 32;
constexpr std::uint32_t cdfSegments(std::uint32_t particles) noexcept {
    return particles <= CDF_ONE_SEGMENT_TILES * lookback::lookbackTileItems<1>() ? 1 : 2;
}
constexpr std::uint32_t cdfTileItems(std::uint32_t particles) noexcept {
    return cdfSegments(particles) * lookback::lookbackTileItems<1>();
}

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
constexpr std::uint32_t cdfTiles(std::uint32_t particles) noexcept {
    return (particles + cdfTileItems(particles) - 1) / cdfTileItems(particles);
}
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
template <std::uint32_t SEGMENTS>
struct TileLogWeights {
    float w[SEGMENTS][lookback::LOOKBACK_LANE_ITEMS];
};

/// This thread's log-weights of CDF tile blockIdx.x (LOOKBACK_BLOCK threads; items past K read as 0
/// and are not scanned). VECTOR: the log-weights are 16-byte aligned.
template <bool VECTOR, std::uint32_t SEGMENTS>
__device__ __forceinline__ TileLogWeights<SEGMENTS> loadTileLogWeights(const float* logWeights,
                                                                       std::uint32_t particles) {
    TileLogWeights<SEGMENTS> t;
    const std::uint64_t first = lookback::lookbackLaneFirst<SEGMENTS>();
#pragma unroll
    for (std::uint32_t g = 0; g < SEGMENTS; ++g) {
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
template <std::uint32_t SEGMENTS>
__device__ __forceinline__ void scanQuantizedTile(const TileLogWeights<SEGMENTS>& t, std::uint32_t particles,
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
    lookback::lookbackScanTile<std::uint64_t, SEGMENTS>(state, load, store);
}

/// Sources that bound copy j's: lo ≤ source(j) ≤ hi, with hi − lo < `slack` unless many weights
/// quantise to zero there. One warp compares CDF values with copy j's integer bracket (copyBracket:
/// below `low` no source reaches j, at or above `high` every one does), 64 evenly spaced values a
/// round: lo moves past the last one below `low`, hi to the first one at or above `high` — no
/// copyLast, and two rounds of dependent loads from K = 10⁶ down to the one-vehicle advance's slack
/// of 256. Every lane returns the bounds.
struct SourceBounds {
    std::uint32_t lo;
    std::uint32_t hi;
};
__device__ __forceinline__ SourceBounds warpSourceBounds(const std::uint64_t* cdf, std::uint64_t total,
                                                         std::uint32_t particles, float u, std::uint32_t j,
                                                         std::uint32_t lane, std::uint32_t slack) {
    constexpr std::uint32_t FULL = 0xFFFFFFFFU;
    constexpr std::uint32_t PROBES = 64;  // two per lane
    // Invariant: source(j) ∈ [lo, hi] and cdf[hi] ≥ low (cdf[K − 1] = total > low).
    std::uint32_t lo = 0;
    std::uint32_t hi = particles - 1;
    while (hi - lo >= slack) {  // warp-uniform
        const std::uint32_t step = (hi - lo + PROBES) / PROBES;  // ⌈(hi − lo + 1) / 64⌉
        // Probe k at min(lo + (k + 1)·step − 1, hi); lane l holds probes l and l + 32.
        const std::uint64_t first = __ldcg(&cdf[min(lo + (lane + 1) * step - 1, hi)]);
        const std::uint64_t second = __ldcg(&cdf[min(lo + (lane + 33) * step - 1, hi)]);
        // The bracket after the loads, which need not wait for `total` (a load too, in the caller).
        const CopyBracket bracket = copyBracket(total, particles, u, j);
        // The probes below `low` are a prefix, those at or above `high` a suffix (the CDF rises).
        const auto below = static_cast<std::uint32_t>(__popc(__ballot_sync(FULL, first < bracket.low)) +
                                                      __popc(__ballot_sync(FULL, second < bracket.low)));
        const auto reach = static_cast<std::uint32_t>(__popc(__ballot_sync(FULL, first >= bracket.high)) +
                                                      __popc(__ballot_sync(FULL, second >= bracket.high)));
        const std::uint32_t newLo = below == 0 ? lo : min(lo + below * step - 1, hi) + 1;
        const std::uint32_t newHi = reach == 0 ? hi : min(lo + (PROBES - reach + 1) * step - 1, hi);
        if (newLo == lo && newHi == hi) {
            break;  // every probe between the bracket's ends: weights that quantise to zero
        }
        lo = newLo;
        hi = newHi;
    }
    return SourceBounds{lo, hi};
}

/// The copies blockCopyIndices draws: j = firstCopy … lastCopy, whose sources lie in [lo, hi] (lo
/// at most the source of firstCopy, hi at least that of lastCopy: warpSourceBounds), from the CDF of K =
/// `particles` entries whose last value is `total`, and the resampling's uniform.
struct CopyRange {
    const std::uint64_t* cdf;
    std::uint64_t total;
    std::uint32_t particles;
    float uniform;
    std::uint32_t firstCopy;
    std::uint32_t lastCopy;
    std::uint32_t lo;
    std::uint32_t hi;
};

/// blockCopyIndices when the sources [lo, hi] are at most `windowSize`: the source of copy j is the
/// smallest i with copyLast(cdf[i]) ≥ j (copySource's definition), so ρ over the round's copies is a
/// suffix minimum. Every source i of [lo, hi] computes its s_hi = copyLast(cdf[i]) once (coalesced
/// loads, no search) and marks that copy, clamped to the round's last (zero-weight sources share
/// their neighbour's s_hi: the smaller index stays, atomicMin); then ρ[j] is the smallest mark at or
/// after copy j — the thread's ITEMS consecutive copies, then the warp's lanes above it by shuffles,
/// then the warps above it. Replaced a bracketed binary search per copy over the range read into
/// shared memory, a chain of dependent shared loads: at K = 10⁶ the step measured about 1 µs faster
/// (H100, augur-bench-pf --only floor). `marks`: the window's memory as 32-bit words; the round's copies
/// (at most windowSize / 2), then one word per warp. A CDF that does not rise (the stages run out
/// of order, without the upload that resets the scan) may leave a copy unmarked: its source is hi.
template <std::uint32_t ITEMS>
__device__ __forceinline__ void markedSources(const CopyRange& r, std::uint32_t* marks, std::uint32_t windowSize,
                                              std::uint32_t t, std::uint32_t threads,
                                              std::uint32_t (&source)[ITEMS]) {
    constexpr std::uint32_t FULL = 0xFFFFFFFFU;
    constexpr std::uint32_t NONE = 0xFFFFFFFFU;  // above every source
    constexpr std::uint32_t WARP = 32;
    const std::uint32_t copies = r.lastCopy - r.firstCopy + 1;
    for (std::uint32_t k = t; k < copies; k += threads) {
        marks[k] = NONE;
    }
    __syncthreads();
    const std::uint32_t span = r.hi - r.lo + 1;
    // Loads in batches, then their copyLast: each load's latency is paid once per batch.
    constexpr std::uint32_t BATCH = 4;
    for (std::uint32_t s0 = t; s0 < span; s0 += BATCH * threads) {
        std::uint64_t v[BATCH];
#pragma unroll
        for (std::uint32_t b = 0; b < BATCH; ++b) {
            const std::uint32_t s = s0 + b * threads;
            v[b] = s < span ? __ldcg(&r.cdf[r.lo + s]) : 0U;
        }
#pragma unroll
        for (std::uint32_t b = 0; b < BATCH; ++b) {
            const std::uint32_t s = s0 + b * threads;
            if (s < span) {
                const std::int64_t last = copyLast(v[b], r.total, r.particles, r.uniform);
                if (last >= static_cast<std::int64_t>(r.firstCopy)) {
                    const auto at = static_cast<std::uint32_t>(min(last, static_cast<std::int64_t>(r.lastCopy)));
                    atomicMin(&marks[at - r.firstCopy], r.lo + s);
                }
            }
        }
    }
    __syncthreads();
    // The thread's copies base … base + ITEMS − 1: the minimum of each one's marks and those after it.
    // Four items: one 16-byte load where the round's half of the window holds them (the window is
    // 16-byte aligned), not four 4-byte loads at a 16-byte stride, each a 4-way bank conflict (the
    // K = 10⁶ step measured 0.3 µs faster: H200, augur-bench-pf --only floor).
    const std::uint32_t base = t * ITEMS;
    std::uint32_t mark[ITEMS];
    bool loaded = false;
    if constexpr (ITEMS == 4) {
        if (base + ITEMS <= windowSize / 2) {
            const uint4 m = *reinterpret_cast<const uint4*>(marks + base);
            mark[0] = m.x;
            mark[1] = m.y;
            mark[2] = m.z;
            mark[3] = m.w;
            loaded = true;
        }
    }
    if (!loaded) {
#pragma unroll
        for (std::uint32_t item = 0; item < ITEMS; ++item) {
            mark[item] = base + item < copies ? marks[base + item] : NONE;
        }
    }
    std::uint32_t after = NONE;
#pragma unroll
    for (std::uint32_t item = ITEMS; item-- > 0;) {
        after = min(after, base + item < copies ? mark[item] : NONE);
        source[item] = after;
    }
    // The lanes above this one (an inclusive suffix minimum by shuffles, shifted by one lane).
    const std::uint32_t lane = t % WARP;
    std::uint32_t suffix = after;
#pragma unroll
    for (std::uint32_t d = 1; d < WARP; d *= 2) {
        const std::uint32_t above = __shfl_down_sync(FULL, suffix, d);
        suffix = lane + d < WARP ? min(suffix, above) : suffix;
    }
    std::uint32_t beyond = __shfl_down_sync(FULL, suffix, 1);
    beyond = lane + 1 < WARP ? beyond : NONE;
    // The warps above this one.
    std::uint32_t* warpMinima = marks + windowSize / 2;
    const std::uint32_t warp = t / WARP;
    if (lane == 0) {
        warpMinima[warp] = suffix;
    }
    __syncthreads();
    for (std::uint32_t w = warp + 1; w < threads / WARP; ++w) {
        beyond = min(beyond, warpMinima[w]);
    }
#pragma unroll
    for (std::uint32_t item = 0; item < ITEMS; ++item) {
        source[item] = min(min(source[item], beyond), r.hi);
    }
}

/// blockCopyIndices when the sources [lo, hi] are more than `windowSize` (weights that quantise to
/// zero between two copies: then a few sources own all copies): the window holds every step-th CDF
/// entry (step ≥ 2) and every thread searches it for its copies with the same integer bracket and
/// copyLast search as copySourceBracketed, each search ending with log2(step) steps in global memory.
/// A thread's ITEMS copies are consecutive: the first is found by halving over the whole window,
/// each later one by galloping from the one before it.
template <std::uint32_t ITEMS>
__device__ __forceinline__ void searchedSources(const CopyRange& r, std::uint64_t* window, std::uint32_t windowSize,
                                                std::uint32_t t, std::uint32_t threads,
                                                std::uint32_t (&source)[ITEMS]) {
    const std::uint64_t* cdf = r.cdf;
    const std::uint32_t lo = r.lo;
    const std::uint32_t hi = r.hi;
    const std::uint32_t span = hi - lo + 1;
    const std::uint32_t step = (span + windowSize - 1) / windowSize;  // block-uniform, ≥ 2
    const std::uint32_t samples = (span + step - 1) / step;
    for (std::uint32_t k = t; k < samples; k += threads) {
        window[k] = __ldcg(&cdf[lo + k * step]);
    }
    __syncthreads();

    // The thread's copies are consecutive: j = base … base + ITEMS − 1 (the last ones clamped to
    // lastCopy, which only repeats the last copy's search).
    const std::uint32_t base = r.firstCopy + t * ITEMS;
    std::uint32_t j[ITEMS];
    CopyBracket bracket[ITEMS];
    std::uint32_t first[ITEMS];
#pragma unroll
    for (std::uint32_t item = 0; item < ITEMS; ++item) {
        j[item] = min(base + item, r.lastCopy);
        bracket[item] = copyBracket(r.total, r.particles, r.uniform, j[item]);
    }
    // The first sample with CDF ≥ bracket.low: the first item by halving over all the samples; each
    // later one by galloping from the item before it (bracket.low does not decrease with j), then
    // halving over the last gallop's gap.
    first[0] = 0;
    for (std::uint32_t len = samples + 1; len > 1;) {  // halvings of fixed count: the lanes in step
        const std::uint32_t half = len / 2;
        first[0] = window[first[0] + half - 1] < bracket[0].low ? first[0] + half : first[0];
        len -= half;
    }
#pragma unroll
    for (std::uint32_t item = 1; item < ITEMS; ++item) {
        const std::uint64_t low = bracket[item].low;
        std::uint32_t from = first[item - 1];  // every sample before it is below the previous low
        std::uint32_t width = 1;
        while (from + width - 1 < samples && window[from + width - 1] < low) {
            from += width;
            width *= 2;
        }
        // The answer (samples: none) is in [from, min(from + width − 1, samples)].
        first[item] = cdfLowerBoundIn(window, from, min(from + width - 1, samples), low);
    }
    // first[item] = k: sample k ≥ low and sample k − 1 < low, or k = samples when no sample is. The
    // first source ≥ low is in (lo + (k − 1)·step, lo + k·step], or past the last sample up to hi.
    std::uint32_t len[ITEMS];
#pragma unroll
    for (std::uint32_t item = 0; item < ITEMS; ++item) {
        const std::uint32_t k = first[item];
        const std::uint32_t from = k == 0 ? lo : min(lo + (k - 1) * step + 1, hi);
        const std::uint32_t to = k == 0 ? lo : (k < samples ? lo + k * step : hi);
        first[item] = from;
        len[item] = to - from + 1;
    }
    for (std::uint32_t round = 1; round < step; round *= 2) {  // ⌈log2(step)⌉ halvings, ITEMS at once
#pragma unroll
        for (std::uint32_t item = 0; item < ITEMS; ++item) {
            if (len[item] > 1) {
                const std::uint32_t half = len[item] / 2;
                first[item] = __ldcg(&cdf[first[item] + half - 1]) < bracket[item].low ? first[item] + half : first[item];
                len[item] -= half;
            }
        }
    }
    // Usually the first source ≥ low is also ≥ high: that is the answer (copySourceIn would return it
    // without another load); otherwise the full search from there.
#pragma unroll
    for (std::uint32_t item = 0; item < ITEMS; ++item) {
        source[item] = first[item];
        if (__ldcg(&cdf[first[item]]) < bracket[item].high && first[item] < hi) {
            source[item] = copySourceIn(cdf, r.total, r.particles, r.uniform, j[item], bracket[item], first[item], hi);
        }
    }
}

/// ρ[j] of the consecutive copies of `r` (at most ITEMS · threads of them, and at most windowSize / 2),
/// by the whole block: the sources are consecutive too (ρ is non-decreasing) and lie in [lo, hi].
/// Typically [lo, hi] holds about as many sources as copies, plus the bounds' slack, and each is read
/// once (markedSources); when it is wider than the window, a search per copy (searchedSources). Both
/// give the smallest i with copyLast(cdf[i]) ≥ j — the same indices as cpu::systematicResample, bit for
/// bit. A thread's ITEMS copies are consecutive and written as one 16-byte store where ρ's alignment
/// allows. `window`: `windowSize` 64-bit words of shared memory; `t`: the thread's index in the block
/// of `threads` (whole warps). Ends with a barrier, after which the window may be reused and the
/// block's stores to ρ are visible to the whole block.
template <std::uint32_t ITEMS>
__device__ __forceinline__ void blockCopyIndices(const CopyRange& r, std::uint32_t* copyIndex, std::uint64_t* window,
                                                 std::uint32_t windowSize, std::uint32_t t, std::uint32_t threads) {
    std::uint32_t source[ITEMS];
    if (r.hi - r.lo < windowSize) {  // block-uniform
        markedSources<ITEMS>(r, reinterpret_cast<std::uint32_t*>(window), windowSize, t, threads, source);
    } else {
        searchedSources<ITEMS>(r, window, windowSize, t, threads, source);
    }
    const std::uint32_t base = r.firstCopy + t * ITEMS;
    bool stored = false;
    if constexpr (ITEMS == 4) {  // one 16-byte store where all four are copies of r and ρ is aligned
        if (base + 3 <= r.lastCopy && reinterpret_cast<std::uintptr_t>(copyIndex + base) % 16 == 0) {
            *reinterpret_cast<uint4*>(copyIndex + base) = make_uint4(source[0], source[1], source[2], source[3]);
            stored = true;
        }
    }
    if (!stored) {
#pragma unroll
        for (std::uint32_t item = 0; item < ITEMS; ++item) {
            if (base + item <= r.lastCopy) {
                copyIndex[base + item] = source[item];
            }
        }
    }
    __syncthreads();
}

/// Block-wide: the copy indices ρ[j] of the consecutive copies j = first … end − 1 (the copy-index
/// kernel's block of copies; an advance kernel block's particles, whose gather reads them), drawn
/// from the CDF of the K = `particles` particles, whose last value is `total` (the caller loads it
/// beside its other first loads: one dependent load fewer), and written to ρ, where the whole block
/// may read them after the last barrier. In rounds of ITEMS · threads copies, or half the window's
/// `windowSize` entries if fewer (blockCopyIndices); pairs of warps find the bounds of up to
/// warps / 2 rounds at once (warpSourceBounds), so one chain of dependent loads serves them all.
/// `bounds`: one entry per warp, shared. `t`: the thread's index in the block of `threads` (whole
/// warps, at least two). Not inlined: the advance kernels' loops keep their register allocation
/// (inlined, the 48-register kernels spilled about twice as much, and the step measured 3–7 µs
/// slower: H100, augur-bench-pf).
template <std::uint32_t ITEMS>
__device__ __noinline__ void drawCopyIndices(const std::uint64_t* cdf, std::uint64_t total, std::uint32_t particles,
                                             float uniform, std::uint32_t first, std::uint32_t end,
                                             std::uint32_t* copyIndex, std::uint64_t* window, std::uint32_t windowSize,
                                             std::uint32_t* bounds, std::uint32_t t, std::uint32_t threads) {
    constexpr std::uint32_t WARP = 32;
    const std::uint32_t perRound = min(ITEMS * threads, windowSize / 2);
    const std::uint32_t rounds = (end - first + perRound - 1) / perRound;
    const std::uint32_t batch = threads / WARP / 2;  // rounds whose bounds one pass finds
    const std::uint32_t warp = t / WARP;
    // Each bound may lie up to an eighth of the window off the source it bounds: with a round's
    // sources (about as many as its copies, half the window) the range still fits the window.
    const std::uint32_t slack = windowSize / 8;
    for (std::uint32_t r0 = 0; r0 < rounds; r0 += batch) {
        const std::uint32_t r = r0 + warp / 2;
        if (r < rounds && warp < 2 * batch) {  // warp-uniform
            const std::uint32_t from = first + r * perRound;
            const std::uint32_t copy = warp % 2 == 0 ? from : min(end, from + perRound) - 1;
            const SourceBounds b = warpSourceBounds(cdf, total, particles, uniform, copy, t % WARP, slack);
            if (t % WARP == 0) {
                bounds[warp] = warp % 2 == 0 ? b.lo : b.hi;
            }
        }
        __syncthreads();
        for (std::uint32_t q = 0; q < batch && r0 + q < rounds; ++q) {
            const std::uint32_t from = first + (r0 + q) * perRound;
            // hi ≥ lo holds for any CDF that rises; the max keeps a corrupt one (a scan whose look-back
            // state was not reset) from turning the window's span negative.
            const std::uint32_t lo = bounds[2 * q];
            blockCopyIndices<ITEMS>(CopyRange{cdf, total, particles, uniform, from, min(end, from + perRound) - 1,
                                              lo, max(bounds[2 * q + 1], lo)},
                                    copyIndex, window, windowSize, t, threads);
        }
    }
}

}  // namespace augur::kernels::pf::cuda::internal
