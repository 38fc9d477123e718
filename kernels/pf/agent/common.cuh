// Device-side pieces every particle-filter agent shares (kernels/pf/agent/*.cuh): what a step's
// kernels are handed (Shape, Partials, the control block's Source), the warp reductions, how blocks
// share the particles, and a slot's loads and stores. Private to kernels/pf (filter_cuda.cu).
//
// An agent is a struct template per kernel whose static method does the block's work; the
// __global__ entries (dispatch_filter.cuh) only call it. Each method declares its shared storage at
// its top, as separate __shared__ arrays: so the shared-memory layout, and with it the compiled code,
// is the one augur-bench-pf measures (a storage struct would move the arrays' offsets).
#pragma once

#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>

#include "../../primitives/dependent_launch.cuh"
#include "../cdf_scan.cuh"
#include "../engine_detail.hpp"
#include "../filter_control.hpp"
#include "../tuning.hpp"
#include "augur/kernels/pf/filter.hpp"

namespace augur::kernels::pf::cuda::agent {

using detail::FilterControl;

constexpr std::uint32_t WARP = 32;
constexpr std::uint32_t FULL_MASK = 0xFFFFFFFFU;
constexpr std::uint32_t PARTICLE_WARPS = tuning::PARTICLE_BLOCK / WARP;
constexpr std::uint32_t COMBINE_WARPS = tuning::COMBINE_BLOCK / WARP;
static_assert(tuning::COMBINE_BLOCK == internal::lookback::LOOKBACK_BLOCK, "a combine block scans one CDF tile");
/// Channels a warp reduces at once (reduce-scatter over 16 values); a model's outputs per vehicle fit.
constexpr std::uint32_t SCATTER = 16;
/// Largest number of partial blocks (the shapes' bound; the combine holds up to 4 per thread in
/// registers and reloads the rest; the vehicle kernel's share claims count blocks in 16 bits). The grids are one wave of resident blocks, far below this on
/// any current GPU.
constexpr std::uint32_t MAX_PARTIAL_BLOCKS = 4096;

/// Systematic resampling as the advance kernels see it: the CDF the last combine scanned, from which
/// they draw the copy indices of their own particles when a resampling is pending, and ρ.
struct Resampling {
    const std::uint64_t* cdf;  ///< nullptr for differential evolution (never pending)
    std::uint32_t* copyIndex;
};

struct Shape {
    float* states[2];
    float* logWeights;
    float* fitness;  ///< differential evolution only (nullptr otherwise)
    Resampling resampling;
    std::uint32_t particles;
    std::uint32_t vehicles;
    std::uint32_t stride;
    StateLayout layout;
    std::uint64_t seed;
};

/// The vehicle kernel's shares claimed at run time, so that no SM runs two of the larger ones (with
/// fixed shares, the H100 put two three-group blocks on each of seven SMs, which then ended the
/// advance 2.5–3.5 µs after the rest: timed from inside the kernels). Share i (shareOf: the larger ones
/// first) is also partial i, so the sums do not depend on which block took which share.
///   perSm[smid]  counts the blocks that started on that SM, modulo 2 (atomicInc wraps): the first
///                of an SM's two blocks claims from the front (the larger shares), the second from
///                the back — so an SM gets at most one larger share;
///   next         front claims in the low 16 bits, back claims in the high 16: front claim f takes
///                share f, back claim k share blocks − 1 − k, so the claims are a bijection onto the
///                shares whatever the SMs did; the last of a launch's claims resets it to zero.
/// An SM that runs one block or three only shifts which of its blocks claims from the front.
struct ShareClaims {
    std::uint32_t* next;
    std::uint32_t* perSm;  ///< SHARE_CLAIM_SMS counters, indexed by %smid modulo that
};
constexpr std::uint32_t SHARE_CLAIM_SMS = 1024;
static_assert(MAX_PARTIAL_BLOCKS <= 0xFFFFU, "front and back claims are counted in 16 bits each");

/// The advance/reduce kernels' output: per partial block its running max and, channel-major, its
/// sums (channel c of block b at c · blocks + b, so the combine reads them coalesced).
struct Partials {
    double* sums;
    float* maxima;
    std::uint32_t blocks;
    ShareClaims claims;  ///< the vehicle kernel's: which share (and partial) each block takes
};

/// State buffer `buffer` (0 or 1). A select, not s.states[buffer]: indexing the parameter's array
/// with a run-time value made the compiler copy the whole Shape to local memory at every kernel's
/// start and load the buffer's address from there in every iteration of the step's loops — the
/// longest waits of the one-vehicle advance at K = 10⁶ (ncu stall samples).
__device__ __forceinline__ float* stateBuffer(const Shape& s, std::uint32_t buffer) {
    return buffer == 0U ? s.states[0] : s.states[1];
}

__device__ __forceinline__ ParticleRef particleRef(const Shape& s, std::uint32_t buffer, std::uint32_t k) {
    return ParticleRef{stateBuffer(s, buffer), k, s.particles, s.stride, s.layout};
}

/// The same with the layout known at compile time (the step's kernels are instantiated per layout,
/// so every field access compiles to one address computation, no layout branch).
template <StateLayout LAYOUT>
__device__ __forceinline__ ParticleRef particleRef(const Shape& s, std::uint32_t buffer, std::uint32_t k) {
    return ParticleRef{stateBuffer(s, buffer), k, s.particles, s.stride, LAYOUT};
}

/// What a step reads: the committed buffer (current ^ swap; swap is set by differential evolution),
/// through the copy indices when a systematic resampling is pending — then every log-weight, and
/// the max they are relative to, counts as 0 (the state right after resampling) — and that
/// resampling's uniform.
struct Source {
    std::uint32_t buffer;
    bool pending;
    float previousMax;
    std::uint32_t step;
    float uniform;
};

__device__ __forceinline__ Source sourceOf(const FilterControl* control) {
    const FilterControl c = *control;
    const bool pending = c.pending != 0U;
    return Source{c.current ^ c.swap, pending, pending ? 0.0F : c.maxLogWeight, c.step, c.uniform};
}

/// The last value of the CDF the last combine scanned (0 without one: differential evolution), which
/// drawCopyIndices needs first: loaded beside the control block, not after it.
__device__ __forceinline__ std::uint64_t lastCdfValue(const Shape& s) {
    return s.resampling.cdf != nullptr ? __ldcg(&s.resampling.cdf[s.particles - 1]) : 0U;
}

/// The slot of the source buffer particle k of the step reads its state from: ρ[k] when a
/// resampling is pending (its gather), else k.
__device__ __forceinline__ std::uint32_t sourceIndex(const Shape& s, const Source& src, std::uint32_t k) {
    return src.pending ? s.resampling.copyIndex[k] : k;
}

/// Where particle k of the step reads its state from (sourceIndex).
template <StateLayout LAYOUT>
__device__ __forceinline__ ParticleRef sourceRef(const Shape& s, const Source& src, std::uint32_t k) {
    return particleRef<LAYOUT>(s, src.buffer, sourceIndex(s, src, k));
}

using internal::drawCopyIndices;

using primitives::detail::warpAllSum;

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
    for (std::uint32_t offset = WARP / 2; offset > 0; offset /= 2) {
        v = detail::maxLog(v, __shfl_xor_sync(FULL_MASK, v, offset));
    }
    return v;
}

/// warpMax by one warp-wide integer reduction (sm_80 and later; shuffles before): the floats mapped
/// to integers of the same order (NaN as −∞, maxLog's convention; −0 below +0), reduced by one
/// redux.sync instead of five dependent shuffle-and-compare rounds. For the vehicle kernel's group
/// max, on the stretch warp 0 runs alone between the group's two barriers: the seed-scale step
/// measured 26.9–27.5 µs against 27.4–27.6 (H100, augur-bench-pf). In the combine's max over the
/// partial maxima it gained nothing measurable and is not used there.
__device__ __forceinline__ float warpMaxReduced(float v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    v = v == v ? v : -INFINITY;
    const int bits = __float_as_int(v);
    const int m = __reduce_max_sync(FULL_MASK, bits >= 0 ? bits : bits ^ 0x7FFFFFFF);
    return __int_as_float(m >= 0 ? m : m ^ 0x7FFFFFFF);
#else
    return warpMax(v);
#endif
}

/// One recursive-halving step: a lane with bit `offset` set keeps the upper half of `in`, its partner
/// (lane ^ offset) the lower half, and each adds the partner's copy of the half it keeps.
template <int HALF>
__device__ __forceinline__ void halveAcross(const float (&in)[2 * HALF], float (&out)[HALF], std::uint32_t lane,
                                            std::uint32_t offset) {
    const bool up = (lane & offset) != 0;
#pragma unroll
    for (int i = 0; i < HALF; ++i) {
        const float send = up ? in[i] : in[i + HALF];
        out[i] = (up ? in[i + HALF] : in[i]) + __shfl_xor_sync(FULL_MASK, send, offset);
    }
}

/// Sums v[c] over the warp's 32 lanes for 16 channels at once by recursive halving: at each of the
/// first four steps a lane keeps half its channels and adds its partner's half, so afterwards lanes
/// 2c and 2c + 1 hold channel c's total — 16 shuffles instead of 16 × 5, in a fixed order.
/// One channel (scalar models) is a plain butterfly: every lane holds it.
template <std::uint32_t CHANNELS>
__device__ __forceinline__ float reduceScatter(float (&v)[SCATTER], std::uint32_t lane) {
    if constexpr (CHANNELS == 1) {
        return warpAllSum(v[0]);
    } else {
        static_assert(SCATTER == 16, "four halving steps over 16 channels");
        float a[8];
        halveAcross<8>(v, a, lane, 16);
        float b[4];
        halveAcross<4>(a, b, lane, 8);
        float c[2];
        halveAcross<2>(b, c, lane, 4);
        float d[1];
        halveAcross<1>(c, d, lane, 2);
        return d[0] + __shfl_xor_sync(FULL_MASK, d[0], 1);
    }
}

/// The channel lane `lane` holds after reduceScatter (lanes 2c and 2c + 1 hold channel c).
__device__ __forceinline__ std::uint32_t scatterChannel(std::uint32_t lane) { return (lane >> 1U) & (SCATTER - 1U); }

/// Raises the running max to `groupMax` if larger; returns the factor exp(old − new) the sums taken
/// relative to the old max must be multiplied by (1 when unchanged, 0 when the old max was −∞).
__device__ __forceinline__ double rebase(float& runningMax, float groupMax) {
    if (!(groupMax > runningMax)) {
        return 1.0;
    }
    const double factor = detail::weightTerm(runningMax, groupMax);
    runningMax = groupMax;
    return factor;
}

/// How far above a lane's reference a log-weight may lie before the lane rebases its sums on it:
/// e = exp(log w − reference) ≤ e³⁰ ≈ 10¹³, so 2²¹ particles' e·output stay far inside float's range
/// and Σe² inside double's. A lane sets its reference at its first particle and moves it only when
/// a later one lies more than this above it — not at every new maximum, which the lanes of a warp
/// reach at different particles, so the warp took the rescaling branch at nearly every particle.
constexpr float REBASE_MARGIN = 30.0F;

/// Share b of `units` work units (particle chunks or groups) split over the `blocks` blocks of a
/// one-wave grid: consecutive ranges, the first units mod blocks shares one unit more than the
/// others. The per-particle kernel's block b takes share b: the block scheduler mostly hands a
/// grid's first blocks to distinct SMs before it gives any SM a second one, so the larger shares
/// mostly land one per SM. Not always: at seed scale (625 groups over 264 blocks, two per SM) the
/// H100 put blocks 0–6 and 89–95, all three-group shares, on the same seven SMs, which finished
/// 2.5–3.5 µs after the others (timed from inside the kernels). Spread over the block indices instead
/// (b · units / blocks), some SMs ran 3 + 3 while others ran 2 + 2 (H200, ncu); the remainder
/// claimed at run time by the blocks that finish first balanced the SMs but measured slower. So the
/// vehicle kernel's blocks claim their shares when they start (claimShare: one larger share per SM
/// at most; the advance ends at 16.9 µs instead of 18.4, and the step measured about 0.3 µs faster:
/// H100, augur-bench-pf --only nodes).
struct Share {
    std::uint32_t first;
    std::uint32_t end;
};
__device__ __forceinline__ Share shareOf(std::uint32_t b, std::uint32_t blocks, std::uint32_t units) {
    const std::uint32_t each = units / blocks;
    const std::uint32_t more = units % blocks;  // blocks 0 … more − 1 take each + 1 units
    const std::uint32_t first = b * each + min(b, more);
    return Share{first, first + each + (b < more ? 1U : 0U)};
}

/// Block-uniform (thread 0 claims, a barrier hands it to the block): the share, and partial, this
/// block takes. Fixed (blockIdx.x) when every share is the same size.
__device__ __forceinline__ std::uint32_t claimShare(const ShareClaims& c, std::uint32_t blocks, std::uint32_t units,
                                                    bool first) {
    __shared__ std::uint32_t claimed;
    if (units % blocks == 0U) {
        return blockIdx.x;
    }
    if (first) {
        std::uint32_t sm = 0;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        const bool front = atomicInc(&c.perSm[sm % SHARE_CLAIM_SMS], 1U) == 0U;
        const std::uint32_t before = atomicAdd(c.next, front ? 1U : 0x10000U);
        const std::uint32_t f = before & 0xFFFFU;
        const std::uint32_t k = before >> 16U;
        claimed = front ? f : blocks - 1U - k;
        if (f + k + 1U == blocks) {
            *c.next = 0U;  // every block of this launch has claimed: ready for the next launch
        }
    }
    __syncthreads();
    return claimed;
}

/// The vehicle-parallel models' per-vehicle Measurement (char for the other models, which have none).
template <typename Model, bool = detail::vehicleParallel<Model>()>
struct MeasurementOf {
    using type = char;
};
template <typename Model>
struct MeasurementOf<Model, true> {
    using type = typename Model::Measurement;
};

/// Floats of a slot the model reads and writes (the rest is padding that stays zero).
template <typename Model>
constexpr int usedFloats() noexcept {
    if constexpr (requires { Model::USED_FLOATS; }) {
        return Model::USED_FLOATS;
    } else {
        return Model::SLOT_FLOATS;
    }
}

/// The fields of a slot a step reads (Model::READ_FIELDS; every used one when the model does not say).
template <typename Model>
constexpr bool readsField(int f) noexcept {
    if constexpr (requires { Model::READ_FIELDS; }) {
        return f < usedFloats<Model>() && ((Model::READ_FIELDS >> static_cast<std::uint32_t>(f)) & 1U) != 0;
    } else {
        return f < usedFloats<Model>();
    }
}

/// Slot n of p: whole 16-byte vectors in the array-of-structs layout, only the fields the step reads
/// in the structure-of-arrays layout (the others read as zero: the step overwrites them).
///
/// STREAM: the step touches this state once (one vehicle: each slot is read once, through ρ, and
/// written once), so its loads and stores are marked evict-first (ld/st.global.cs). The state
/// streams through the L2 at about 68 of the 104 bytes per particle the K = 10⁶ step moves; marked
/// so, it leaves the L2 to what the step reads again soon after writing it — the log-weights the
/// combine reads, the CDF the next draw reads, the copy indices the loop reads. H200: the K = 10⁶
/// step 0.9–1.3 µs faster (augur-bench-pf --only floor, means of rounds). The vehicle kernel does not
/// stream: its loads marked so made the seed-scale step about 1 µs slower.
template <typename Model, bool STREAM = false>
__device__ __forceinline__ void loadUsed(const ParticleRef& p, std::uint32_t n, float (&s)[Model::SLOT_FLOATS]) {
    if (p.layout == StateLayout::ArrayOfStructs) {
        p.loadSlot<Model::SLOT_FLOATS, STREAM>(n, s);
        return;
    }
#pragma unroll
    for (int f = 0; f < Model::SLOT_FLOATS; ++f) {
        const float* field = p.base + p.index(n * Model::SLOT_FLOATS + static_cast<std::uint32_t>(f));
        s[f] = readsField<Model>(f) ? (STREAM ? __ldcs(field) : *field) : 0.0F;
    }
}

template <typename Model, bool STREAM = false>
__device__ __forceinline__ void storeUsed(const ParticleRef& p, std::uint32_t n, const float (&s)[Model::SLOT_FLOATS]) {
    if (p.layout == StateLayout::ArrayOfStructs) {
        p.storeSlot<Model::SLOT_FLOATS, STREAM>(n, s);
        return;
    }
#pragma unroll
    for (int f = 0; f < usedFloats<Model>(); ++f) {
        float* field = p.base + p.index(n * Model::SLOT_FLOATS + static_cast<std::uint32_t>(f));
        if constexpr (STREAM) {
            __stcs(field, s[f]);
        } else {
            *field = s[f];
        }
    }
}

}  // namespace augur::kernels::pf::cuda::agent
