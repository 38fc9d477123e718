// Systematic (low-variance) resampling in Cao et al. 2018's copy-index formulation (section 3, eqs. 9–13):
// one u ∈ (0, 1], points (j + u)/K, and every source particle i writes its own copies
//     ρ[j] = i  for  s_lo(i) ≤ j ≤ s_hi(i),  s_lo(i) = ⌊K·W_{i−1} + 1 − u⌋,  s_hi(i) = ⌊K·W_i − u⌋,
// followed by a coalesced gather of whole particles (Hortelano et al. 2023 section 4.2.3, grid-stride copy).
//
// The CDF W is exact: each normalised weight exp(log w − max) is quantised to a 32-bit fixed-point
// integer by a polynomial evaluated with explicit fused multiply-adds (bit-identical on host and
// device), and W is an integer prefix sum (exact in any order). So the CDF never loses mass over
// 10⁶ particles, the CPU and the GPU compute the same copy indices for the same u, and every j is
// written by exactly one source. Weights below 2⁻³¹ of the largest one count as zero.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <span>

#include "augur/kernels/pf/host_device.hpp"
#include "augur/kernels/pf/particles.hpp"
#include "augur/kernels/pf/philox.hpp"
#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::pf {

/// Largest K: Σ quantised weights ≤ K·2³² must stay exact in a double (2⁵³).
inline constexpr std::uint32_t MAX_PARTICLES = 1U << 21U;

/// RNG "vehicle" word of the filter's systematic-resampling draw (models use 0 … vehicles − 1).
inline constexpr std::uint32_t RESAMPLE_STREAM = 0xFFFFFFF0U;

/// The uniform u ∈ (0, 1] of the filter's systematic resampling at step `step` (counted from 0):
/// one Philox draw keyed by the seed, the same on host and device.
AUGUR_HD_INLINE float resampleUniform(std::uint64_t seed, std::uint32_t step) noexcept {
    RandomStream rng(seed, step, 0xFFFFFFFFU, RESAMPLE_STREAM);
    return uniformOpen0(rng.block().v[0]);
}

/// exp(logWeight − maxLogWeight) as fixed point with 31 fractional bits (the largest weight → 2³¹).
/// −∞ or NaN → 0. maxLogWeight = −∞ (no particle has weight) → every particle 2³¹ (uniform).
/// Bit-identical on host and device; relative error of the exponential < 2·10⁻⁷.
AUGUR_HD_INLINE std::uint64_t quantizeWeight(float logWeight, float maxLogWeight) noexcept {
    constexpr float LOG2E = 1.44269504088896340736F;
    constexpr float LN2 = 0.693147180559945309417F;
    if (maxLogWeight == -INFINITY) {
        return 1ULL << 31U;
    }
    const float t = (logWeight - maxLogWeight) * LOG2E;  // ≤ 0
    if (!(t > -31.0F)) {
        return 0;
    }
    const float whole = std::floor(t);
    const float frac = (t - whole) * LN2;  // [0, ln 2)
    // e^frac by Horner with explicit FMAs (degree 8 Taylor; remainder < 1.1·10⁻⁷ on [0, ln 2)).
    float p = 1.0F / 40320.0F;
    p = std::fma(p, frac, 1.0F / 5040.0F);
    p = std::fma(p, frac, 1.0F / 720.0F);
    p = std::fma(p, frac, 1.0F / 120.0F);
    p = std::fma(p, frac, 1.0F / 24.0F);
    p = std::fma(p, frac, 1.0F / 6.0F);
    p = std::fma(p, frac, 0.5F);
    p = std::fma(p, frac, 1.0F);
    p = std::fma(p, frac, 1.0F);
    return static_cast<std::uint64_t>(std::ldexp(p, 31 + static_cast<int>(whole)));
}

/// K/total, the factor copyPosition scales a CDF value by: the same for every particle, so a loop
/// over particles divides once (the device's double division is a dozen instructions and a
/// slow-path branch; the copy-index kernels evaluate copyPosition once per source).
AUGUR_HD_INLINE double copyPerUnit(std::uint64_t total, std::uint32_t particles) noexcept {
    return static_cast<double>(particles) / static_cast<double>(total);
}

/// K·W_i − u for the particle whose inclusive CDF value is cdfAt: the rounded product
/// cdfAt · perUnit (perUnit = copyPerUnit), then the rounded difference. Never one fused
/// multiply-add: the device's explicitly rounded operations, two statements on the host (which
/// compiles in ISO mode, without contraction across statements), so both compute the same bits.
AUGUR_HD_INLINE double copyPosition(std::uint64_t cdfAt, double perUnit, float u) noexcept {
#if defined(__CUDA_ARCH__)
    return __dsub_rn(__dmul_rn(static_cast<double>(cdfAt), perUnit), static_cast<double>(u));
#else
    const double at = static_cast<double>(cdfAt) * perUnit;
    return at - static_cast<double>(u);
#endif
}

/// s_hi of the particle whose inclusive CDF value is cdfAt (of total): the last copy index it owns
/// (−1 … K−1; below its s_lo when it gets no copy), ⌊copyPosition⌋ and K − 1 for the last
/// particle. Non-decreasing in cdfAt, so the source of copy j is the smallest i with
/// copyLast(W_i) ≥ j — what the balanced (one thread per copy) search uses.
AUGUR_HD_INLINE std::int64_t copyLast(std::uint64_t cdfAt, std::uint64_t total, std::uint32_t particles,
                                      float u) noexcept {
    if (cdfAt == total) {
        return static_cast<std::int64_t>(particles) - 1;
    }
    const auto last = static_cast<std::int64_t>(std::floor(copyPosition(cdfAt, copyPerUnit(total, particles), u)));
    return last > static_cast<std::int64_t>(particles) - 1 ? static_cast<std::int64_t>(particles) - 1 : last;
}

/// The copies [first, last] (inclusive; first > last: none) of the particle whose exclusive and
/// inclusive CDF values are cdfBefore and cdfAt (of total), for K particles and u ∈ (0, 1].
/// Neighbouring particles' ranges chain exactly: first(i) = last(i−1) + 1.
AUGUR_HD_INLINE void copyRange(std::uint64_t cdfBefore, std::uint64_t cdfAt, std::uint64_t total,
                               std::uint32_t particles, float u, std::int64_t& first, std::int64_t& last) noexcept {
    // s_lo(i) = s_hi(i−1) + 1, computed by the same expression so the ranges chain exactly.
    first = cdfBefore == 0 ? 0 : copyLast(cdfBefore, total, particles, u) + 1;
    last = copyLast(cdfAt, total, particles, u);
}

/// The source particle of copy j: the smallest i with copyLast(cdf[i]) ≥ j, by binary search over
/// the inclusive integer CDF (K entries). Gives exactly the ρ[j] of the per-source formulation above,
/// with O(log K) work per copy whatever the weights (no thread writes more than one index).
AUGUR_HD_INLINE std::uint32_t copySource(const std::uint64_t* cdf, std::uint32_t particles, float u,
                                         std::uint32_t j) noexcept {
    const std::uint64_t total = cdf[particles - 1];
    std::uint32_t lo = 0;
    std::uint32_t hi = particles - 1;
    while (lo < hi) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (copyLast(cdf[mid], total, particles, u) >= static_cast<std::int64_t>(j)) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

/// Copy j's source i has its CDF value within a few units of (j + u)·total/K; the bracket below
/// allows for 2⁻²⁰ of a copy (far above copyLast's double rounding, < 2⁻²⁹ of a copy for K ≤ 2²¹)
/// plus 4 CDF units (the rounding of the bracket's own arithmetic).
inline constexpr double COPY_BRACKET_MARGIN = 1.0 / 1048576.0;

/// Smallest i in [lo, hi] with cdf[i] ≥ value; hi when there is none. `Cdf`: anything indexed by the
/// particle index — a pointer to the whole CDF, or a window of it (in shared memory, on the device).
template <typename Cdf>
AUGUR_HD_INLINE std::uint32_t cdfLowerBoundIn(const Cdf& cdf, std::uint32_t lo, std::uint32_t hi,
                                              std::uint64_t value) noexcept {
    while (lo < hi) {
        const std::uint32_t mid = lo + (hi - lo) / 2;
        if (cdf[mid] >= value) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    return lo;
}

AUGUR_HD_INLINE std::uint32_t cdfLowerBound(const std::uint64_t* cdf, std::uint32_t lo, std::uint32_t hi,
                                            std::uint64_t value) noexcept {
    return cdfLowerBoundIn(cdf, lo, hi, value);
}

/// Integer bounds on copy j's source: every source whose CDF value is below `low` ends before copy
/// j, every one at or above `high` reaches it (copyLast ≥ j). Both lie within a few units of
/// (j + u)·total/K.
struct CopyBracket {
    std::uint64_t low;
    std::uint64_t high;
};

AUGUR_HD_INLINE CopyBracket copyBracket(std::uint64_t total, std::uint32_t particles, float u, std::uint32_t j) noexcept {
    const double scale = static_cast<double>(total) / static_cast<double>(particles);
    const double at = (static_cast<double>(j) + static_cast<double>(u)) * scale;
    const double margin = COPY_BRACKET_MARGIN * scale + 4.0;
    const double lowAt = at - margin;
    return CopyBracket{lowAt > 0.0 ? static_cast<std::uint64_t>(lowAt) : 0U,
                       static_cast<std::uint64_t>(std::ceil(at + margin))};
}

/// copySourceBracketed's second half over the sources [first, lastIndex], where `first` is the
/// smallest i ≥ the search's lower end with cdf[i] ≥ bracket.low (lastIndex when there is none) and
/// copy j's source is known to be ≤ lastIndex (K − 1 always is): gallops from `first` to the first
/// CDF value ≥ bracket.high, then evaluates copyLast only between the two (usually not at all: they
/// coincide). `Cdf` as in cdfLowerBoundIn; `total` = the CDF's last value.
template <typename Cdf>
AUGUR_HD_INLINE std::uint32_t copySourceIn(const Cdf& cdf, std::uint64_t total, std::uint32_t particles, float u,
                                           std::uint32_t j, const CopyBracket& bracket, std::uint32_t first,
                                           std::uint32_t lastIndex) noexcept {
    std::uint32_t lo = first;
    std::uint32_t hi = first;
    std::uint32_t stride = 1;
    while (hi < lastIndex && cdf[hi] < bracket.high) {
        lo = hi + 1;
        hi = lastIndex - hi > stride ? hi + stride : lastIndex;
        stride *= 2;
    }
    std::uint32_t last = cdfLowerBoundIn(cdf, lo, hi, bracket.high);
    std::uint32_t answer = first;
    while (answer < last) {
        const std::uint32_t mid = answer + (last - answer) / 2;
        if (copyLast(cdf[mid], total, particles, u) >= static_cast<std::int64_t>(j)) {
            last = mid;
        } else {
            answer = mid + 1;
        }
    }
    return answer;
}

/// copySourceIn over the whole CDF (K entries).
AUGUR_HD_INLINE std::uint32_t copySourceFrom(const std::uint64_t* cdf, std::uint32_t particles, float u, std::uint32_t j,
                                             const CopyBracket& bracket, std::uint32_t first) noexcept {
    const std::uint32_t lastIndex = particles - 1;
    return copySourceIn(cdf, cdf[lastIndex], particles, u, j, bracket, first, lastIndex);
}

/// The same source as copySource, bit for bit, with integer comparisons doing the search: the
/// answer is bracketed by two integer lower bounds (copyBracket; the second found by galloping from
/// the first), and copyLast is evaluated only inside the bracket — usually a single source, so not
/// at all. O(log K) integer steps; at most O(log K) copyLast evaluations (only when many zero-weight
/// sources share the bracket). The device (the copy-index kernel, the filter's advance kernels)
/// computes copyLast once per source of its block's copies instead and takes suffix minima, or, where
/// zero-weight particles make that range wide, runs this search (copySourceIn) in it.
AUGUR_HD_INLINE std::uint32_t copySourceBracketed(const std::uint64_t* cdf, std::uint32_t particles, float u,
                                                  std::uint32_t j) noexcept {
    const std::uint32_t lastIndex = particles - 1;
    const CopyBracket bracket = copyBracket(cdf[lastIndex], particles, u, j);
    return copySourceFrom(cdf, particles, u, j, bracket, cdfLowerBound(cdf, 0, lastIndex, bracket.low));
}

namespace cpu {

/// Copy indices ρ (K entries) from K log-weights and u ∈ (0, 1]. `cdf` is scratch of K entries.
/// O(K); allocation-free; noexcept.
void systematicResample(std::span<const float> logWeights, float maxLogWeight, float u,
                        std::span<std::uint64_t> cdf, std::span<std::uint32_t> copyIndex) noexcept;

/// dst particle j = src particle ρ[j] (whole particles of `stride` floats, either layout).
void gatherParticles(std::span<const float> src, std::span<float> dst, std::span<const std::uint32_t> copyIndex,
                     std::uint32_t stride, StateLayout layout) noexcept;

}  // namespace cpu

namespace cuda {

/// Scratch bytes systematicResample needs for K particles. Init phase.
[[nodiscard]] std::size_t systematicResampleScratchBytes(std::uint32_t particles) noexcept;

/// Device version of cpu::systematicResample: the integer CDF by a single-pass (decoupled look-back)
/// scan of the quantised weights, then blocks of 1,024 consecutive copies, each drawn from the CDF
/// between the sources of its first and last copy (pf/cdf_scan.cuh: drawCopyIndices). maxLogWeight and u
/// are device pointers (so the values may be produced on the device in the same stream); when
/// `enabled` is non-null and *enabled == 0 on the device, the copy indices are left untouched.
/// Graph-capturable; three graph nodes (a memset of the scan's tile descriptors and two kernels).
[[nodiscard]] platform::GpuStatus systematicResample(const float* logWeights, std::uint32_t particles,
                                                     const float* maxLogWeight, const float* u, std::uint32_t* copyIndex,
                                                     const std::uint32_t* enabled, void* scratch, std::size_t scratchBytes,
                                                     platform::StreamHandle stream) noexcept;

/// Coalesced grid-stride gather of whole particles (16-byte accesses when stride % 4 == 0 in AoS).
/// `enabled`: as above.
[[nodiscard]] platform::GpuStatus gatherParticles(const float* src, float* dst, const std::uint32_t* copyIndex,
                                                  std::uint32_t particles, std::uint32_t stride, StateLayout layout,
                                                  const std::uint32_t* enabled, platform::StreamHandle stream) noexcept;

}  // namespace cuda

}  // namespace augur::kernels::pf
