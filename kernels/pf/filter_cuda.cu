// CUDA particle filter. Layers: ParticleFilter methods (host API, stream last) → launch shapes (sized
// at create from tuning.hpp and the device's occupancy) → thin __global__ entries → the per-particle
// device functions of engine_detail.hpp and the model. Decisions (resample or not, DE generations)
// are read from the device control block by the kernels themselves, so a step never waits for the
// host and can be captured into a graph.
//
// A step is three kernels:
//   upload     the inputs, one block reading the mapped pinned staging (a kernel, not a copy node)
//   advance    when the previous step decided to resample, each block first draws the copy indices
//              of its own particles from that step's CDF (systematic resampling's second half);
//              then per particle (or per particle and vehicle): read it — through the copy indices
//              when resampling, which is that resampling's gather — predict, weight, write it to the
//              other state buffer; then the block's partial sums of the reduction relative to its
//              max (online log-sum-exp): Σe, Σe², Σe·output, e = exp(log w − max)
//   combine    one block per output channel sums the partials and Σe in a fixed order and writes
//              its output (into mapped page-locked memory: the host reads them without a copy);
//              the Σe² block writes N_eff, the resample decision and commits the buffer; blocks
//              beside them scan the integer CDF of systematic resampling (single-pass look-back)
// Differential evolution adds its generations' kernels after the combine. On devices of compute
// capability 9.0 and later the kernels after the upload are launched early (programmatic dependent
// launch, primitives/dependent_launch.cuh): each is scheduled while the one before it finishes and
// waits for it before it touches what that kernel writes. The advance draws its copy indices before
// that wait: the upload writes nothing they read, so drawing them overlaps the upload.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "../primitives/dependent_launch.cuh"
#include "augur/kernels/pf/filter.hpp"
#include "augur/platform/sm_partition.hpp"
#include "cdf_scan.cuh"
#include "engine_detail.hpp"
#include "resample_cuda.hpp"
#include "tuning.hpp"

namespace augur::kernels::pf::cuda {

using detail::FilterControl;
namespace {

using platform::GpuStatus;
using platform::StreamHandle;

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
/// Registers per thread that admit the vehicle kernel's largest block (32 warps) on one SM.
constexpr int VEHICLE_KERNEL_REGISTERS = 64;

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

/// The step's inputs, copied by one block from the mapped page-locked staging into device memory,
/// read over the bus (on an integrated GPU, from the same memory) in one round of 16-byte loads for
/// up to UPLOAD_BLOCK · 16 bytes (both buffers are 16-byte aligned: cudaHostAlloc and cudaMalloc
/// return page- and 256-byte-aligned memory); the words past the last whole 16 bytes one by one.
/// A kernel, not a copy-engine node: in a graph, the kernels after a copy-engine upload of the seed
/// scale's 2.9 KB started 6–9 µs later (H100, augur-bench-pf --only nodes). Also zeroes the look-back
/// state of the step's CDF scan (cdfTiles descriptors; the last scan finished before this kernel
/// started): there, not in the advance kernels, where the loop over the descriptors cost the
/// 48-register vehicle kernel 72 more bytes of spills (ptxas, sm_90).
__global__ void __launch_bounds__(tuning::UPLOAD_BLOCK)
    uploadKernel(const std::uint32_t* __restrict__ staged, std::uint32_t* __restrict__ inputs, std::uint32_t words,
                 internal::CdfLookbackState cdfState, std::uint32_t cdfTiles) {
    primitives::allowDependentLaunch();  // the advance kernel's blocks may be scheduled meanwhile
    const std::uint32_t vectors = words / 4;
    for (std::uint32_t i = threadIdx.x; i < vectors; i += blockDim.x) {
        reinterpret_cast<uint4*>(inputs)[i] = reinterpret_cast<const uint4*>(staged)[i];
    }
    for (std::uint32_t i = 4 * vectors + threadIdx.x; i < words; i += blockDim.x) {
        inputs[i] = staged[i];
    }
    internal::lookback::zeroLookbackState(cdfState, cdfTiles, threadIdx.x, blockDim.x);
}

template <typename Model>
__global__ void initializeKernel(Shape s, typename Model::Params params, const typename Model::VehicleInput* inputs) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < s.particles) {
        Model::initialize(particleRef(s, 0, k), s.vehicles, params, inputs, s.seed);
        s.logWeights[k] = 0.0F;
    }
}

/// The per-particle path (every model; the scene model below VEHICLE_PARALLEL_MIN vehicles, one
/// instantiation per vehicle count VEHICLES so the vehicle loops unroll): the K particles are cut
/// into 256-particle chunks, block b takes chunks [b·C/B, (b+1)·C/B) of the C chunks (B blocks: one
/// wave), thread t particle 256·c + t of chunk c.
/// ADVANCE: predict and update each particle (read from the source buffer, through ρ when pending;
/// written to the other buffer); otherwise only read it and its log-weight (the reduce stage). Each
/// lane keeps a running max of its particles and its sums relative to it; after the loop each warp
/// combines its lanes (a fixed shuffle tree) and the block its warps in order, and writes one partial
/// per channel. First, when a resampling is pending, the copy indices of the block's particles
/// (drawCopyIndices) — before the wait for the kernel before it when afterUpload (launched early
/// behind the filter's upload, which writes nothing that drawing reads: ParticleFilter::m_uploadLaunchedLast).
template <typename Model, bool ADVANCE, std::uint32_t VEHICLES, StateLayout LAYOUT>
__global__ void __launch_bounds__(tuning::PARTICLE_BLOCK, VEHICLES == 1 ? tuning::ONE_VEHICLE_MIN_BLOCKS : 1)
    particleKernel(Shape s, typename Model::Params params, const typename Model::VehicleInput* inputs,
                   const FilterControl* control, Partials out, std::uint32_t chunks, bool afterUpload) {
    constexpr int SLOT = Model::SLOT_FLOATS;
    constexpr auto OUTPUTS = static_cast<std::uint32_t>(Model::OUTPUTS_PER_VEHICLE);
    constexpr std::uint32_t MAX_CHANNELS = 2 + VEHICLES * OUTPUTS;
    static_assert(OUTPUTS <= SCATTER, "a vehicle's outputs must fit one reduce-scatter");
    __shared__ float warpMaxima[PARTICLE_WARPS];
    __shared__ double warpSums[PARTICLE_WARPS][MAX_CHANNELS];
    const std::uint32_t lane = threadIdx.x % WARP;
    const std::uint32_t warp = threadIdx.x / WARP;
    constexpr std::uint32_t vehicles = VEHICLES;  // == s.vehicles (the launch picks the instantiation)
    const Share share = shareOf(blockIdx.x, gridDim.x, chunks);
    const std::uint32_t firstChunk = share.first;
    const std::uint32_t endChunk = share.end;
    if (!afterUpload) {
        primitives::waitForPrerequisiteGrid();  // may start early: no global access before this
    }
    const std::uint64_t cdfTotal = lastCdfValue(s);
    const Source src = sourceOf(control);
    // The lanes' channel sums live in shared memory, which keeps the one-vehicle kernel inside its
    // register budget: with several vehicles each sum a column (a lane's own word: no bank
    // conflicts), with one vehicle each lane a row padded to 16 bytes, which the loop reads and
    // writes in 16-byte pieces (48-byte rows: a quarter warp's pieces fall in distinct banks; the
    // K = 10⁶ step measured 0.36–0.37 µs faster than with columns: H200, augur-bench-pf --only
    // floor). Before them, the same memory holds the window of the copy-index drawing (16-byte
    // aligned: markedSources reads it in 16 bytes).
    constexpr std::uint32_t ROW = (OUTPUTS + 3) / 4 * 4;
    __shared__ union alignas(16) {
        std::uint64_t window[tuning::COPY_INDEX_WINDOW];
        float channelSums[VEHICLES * OUTPUTS][tuning::PARTICLE_BLOCK];
        float channelRows[tuning::PARTICLE_BLOCK][ROW];
    } shared;
    __shared__ std::uint32_t copyBounds[PARTICLE_WARPS];
    if (src.pending) {
        drawCopyIndices<tuning::COPY_INDEX_ITEMS>(s.resampling.cdf, cdfTotal, s.particles, src.uniform,
                                                  firstChunk * tuning::PARTICLE_BLOCK,
                                                  min(endChunk * tuning::PARTICLE_BLOCK, s.particles),
                                                  s.resampling.copyIndex, shared.window, tuning::COPY_INDEX_WINDOW,
                                                  copyBounds, threadIdx.x, blockDim.x);
    }
    primitives::waitForPrerequisiteGrid();  // before the inputs, the weights and the state

    // Per thread: the max of its own particles' log-weights and its sums relative to a reference
    // (REBASE_MARGIN); the warp combines its lanes once, after the loop (a lane's particles in chunk
    // order, then a fixed shuffle tree), so a particle costs a compare and a few adds, not a warp
    // reduction.
    float laneMax = -INFINITY;
    float reference = -INFINITY;
    double sumE = 0.0;
    double sumE2 = 0.0;
    auto channel = [&](std::uint32_t n, std::uint32_t c) -> float& {
        if constexpr (VEHICLES == 1) {
            return shared.channelRows[threadIdx.x][c];
        } else {
            return shared.channelSums[n * OUTPUTS + c][threadIdx.x];
        }
    };
#pragma unroll
    for (std::uint32_t n = 0; n < VEHICLES; ++n) {
#pragma unroll
        for (std::uint32_t c = 0; c < OUTPUTS; ++c) {
            channel(n, c) = 0.0F;
        }
    }
    using Measurement = typename MeasurementOf<Model>::type;
    [[maybe_unused]] __shared__ Measurement measured[VEHICLES];  // vehicle-parallel models: measurementOf(z_n)
    // Which vehicles' measurements weigh the particles: loop-invariant, read once. Read in the loop,
    // it was loaded again after every store to the state, which might alias it for all the compiler
    // knows: the K = 10⁶ step measured 0.38–0.58 µs slower (H200, augur-bench-pf --only floor).
    [[maybe_unused]] bool weighs[VEHICLES] = {};
    if constexpr (ADVANCE && detail::vehicleParallel<Model>()) {  // the reduce stage weighs nothing
        if (threadIdx.x < VEHICLES) {
            measured[threadIdx.x] = Model::measurementOf(inputs[threadIdx.x]);
        }
#pragma unroll
        for (std::uint32_t n = 0; n < VEHICLES; ++n) {
            weighs[n] = n < vehicles && Model::weighs(inputs[n]);
        }
        __syncthreads();
    }
    // One vehicle: each thread loads its next particle's slot (through ρ) one iteration ahead, so
    // that the gather overlaps the step of the particle before it (the K = 10⁶ step measured 2.2–3.3 µs
    // faster: H200, augur-bench-pf --only floor). The other per-particle instantiations keep their
    // registers for their vehicles' slots. The copy index of that slot is loaded one iteration
    // earlier still, so that the slot's loads need not wait for it (otherwise that wait holds 7 % of
    // the kernel's stall samples at K = 10⁶, and the step measured about 0.9 µs slower).
    constexpr bool AHEAD = ADVANCE && VEHICLES == 1 && detail::vehicleParallel<Model>();
    [[maybe_unused]] float ahead[SLOT];
    [[maybe_unused]] std::uint32_t aheadSource = 0;  // where the particle after the loaded one reads from
    // The source of the thread's particle in `chunk` (0 past the block's share).
    [[maybe_unused]] auto chunkSource = [&](std::uint32_t chunk) -> std::uint32_t {
        const std::uint32_t k = chunk * tuning::PARTICLE_BLOCK + threadIdx.x;
        return chunk < endChunk && k < s.particles ? sourceIndex(s, src, k) : 0U;
    };
    if constexpr (AHEAD) {
        const std::uint32_t k = firstChunk * tuning::PARTICLE_BLOCK + threadIdx.x;
        if (firstChunk < endChunk && k < s.particles) {
            loadUsed<Model, AHEAD>(sourceRef<LAYOUT>(s, src, k), 0, ahead);
        }
        aheadSource = chunkSource(firstChunk + 1);
    }
    for (std::uint32_t c = firstChunk; c < endChunk; ++c) {
        const std::uint32_t k = c * tuning::PARTICLE_BLOCK + threadIdx.x;
        if (k >= s.particles) {
            break;  // the last chunk's tail: this thread has no more particles
        }
        float logWeight = -INFINITY;
        float slot[SLOT];  // the last vehicle's slot after this particle's step
        const ParticleRef view = particleRef<LAYOUT>(s, ADVANCE ? src.buffer ^ 1U : src.buffer, k);
        const ParticleRef in = sourceRef<LAYOUT>(s, src, k);
        if constexpr (ADVANCE) {
            float logLikelihood = 0.0F;
            if constexpr (detail::vehicleParallel<Model>()) {
                // Pass 1 of each vehicle reads the other vehicles' previous intentions from the
                // source buffer, which nothing writes during the step.
#pragma unroll
                for (std::uint32_t n = 0; n < VEHICLES; ++n) {
                    if (n < vehicles) {
                        const typename Model::VehicleInput& z = inputs[n];
                        if constexpr (AHEAD) {
#pragma unroll
                            for (int f = 0; f < SLOT; ++f) {
                                slot[f] = ahead[f];
                            }
                            const std::uint32_t next = k + tuning::PARTICLE_BLOCK;
                            if (c + 1 < endChunk && next < s.particles) {
                                loadUsed<Model, AHEAD>(particleRef<LAYOUT>(s, src.buffer, aheadSource), 0, ahead);
                            }
                            aheadSource = chunkSource(c + 2);
                        } else {
                            loadUsed<Model>(in, n, slot);
                        }
                        const std::int32_t other = Model::yieldsTo(slot, z, vehicles);
                        // Vehicle n's own previous intention is the slot's, before the step. (With one
                        // vehicle, other is n or −1 and the slot's value would do without yieldsTo; but
                        // this call is what issues the corridor's loads before advanceSlot's Philox
                        // blocks: without it the K = 10⁶ step measured 1.9 µs slower, H200.)
                        const float otherIntent =
                            other < 0 ? 0.0F
                                      : (static_cast<std::uint32_t>(other) == n
                                             ? slot[Model::INTENT_STOP]
                                             : in.get(static_cast<std::uint32_t>(other) * SLOT + Model::INTENT_STOP));
                        BasicRandomStream<tuning::PARTICLE_KERNEL_MULTIPLY<LAYOUT, VEHICLES>> rng(s.seed, src.step, k, n);
                        Model::advanceSlot(slot, otherIntent, vehicles, params, z, rng);
                        storeUsed<Model, AHEAD>(view, n, slot);
                        if (weighs[n]) {
                            logLikelihood += Model::slotLogLikelihood(slot, measured[n]);
                        }
                    }
                }
            } else {
                for (std::uint32_t f = 0; f < s.stride; ++f) {
                    view.set(f, in.get(f));  // the pending gather, then the model's in-place step
                }
                Model::predict(view, vehicles, params, inputs, s.seed, src.step);
                logLikelihood = Model::logLikelihood(view, vehicles, params, inputs);
                view.loadSlot(vehicles - 1, slot);
            }
            // As detail::updateParticle.
            logWeight = (src.pending ? 0.0F : s.logWeights[k]) - src.previousMax + logLikelihood;
            s.logWeights[k] = logWeight;
            if (s.fitness != nullptr) {
                s.fitness[k] = logLikelihood;
            }
        } else {
            in.loadSlot(vehicles - 1, slot);
            logWeight = src.pending ? 0.0F : s.logWeights[k];
        }
        laneMax = detail::maxLog(laneMax, logWeight);
        if (logWeight > reference + REBASE_MARGIN) {  // the lane's first particle, then rarely
            const double factor = detail::weightTerm(reference, logWeight);
            reference = logWeight;
            sumE *= factor;
            sumE2 *= factor * factor;
            const auto f = static_cast<float>(factor);
#pragma unroll
            for (std::uint32_t n = 0; n < VEHICLES; ++n) {
#pragma unroll
                for (std::uint32_t ch = 0; ch < OUTPUTS; ++ch) {
                    channel(n, ch) *= f;
                }
            }
        }
        const double e = detail::weightTerm(logWeight, reference);
        sumE += e;
        sumE2 += e * e;
        const auto ef = static_cast<float>(e);
        if constexpr (VEHICLES == 1) {
            // The lane's row in 16-byte pieces: three shared loads and stores per particle for the
            // scene model's eleven sums, not eleven of each (the padding word is carried, never read).
            auto* row = reinterpret_cast<float4*>(shared.channelRows[threadIdx.x]);
#pragma unroll
            for (std::uint32_t q = 0; q < ROW / 4; ++q) {
                float4 piece = row[q];
                float* sum = &piece.x;
#pragma unroll
                for (std::uint32_t j = 0; j < 4; ++j) {
                    if (4 * q + j < OUTPUTS) {
                        sum[j] += ef * Model::output(slot, 4 * q + j);
                    }
                }
                row[q] = piece;
            }
        } else {
#pragma unroll
            for (std::uint32_t n = 0; n < VEHICLES; ++n) {
                if (n < vehicles) {
                    float o[SLOT];
                    if (n + 1 == vehicles) {
#pragma unroll
                        for (int f = 0; f < SLOT; ++f) {
                            o[f] = slot[f];
                        }
                    } else {
                        (ADVANCE ? view : in).loadSlot(n, o);
                    }
#pragma unroll
                    for (std::uint32_t ch = 0; ch < OUTPUTS; ++ch) {
                        channel(n, ch) += ef * Model::output(o, ch);
                    }
                }
            }
        }
    }
    // The warp: every lane's sums rescaled from its reference to the warp's max (≤ 1: a lane's
    // reference is never above its max), summed by a fixed shuffle tree.
    const float runningMax = warpMax(laneMax);
    {
        const double laneScale = detail::weightTerm(reference, runningMax);
        sumE = warpAllSum(sumE * laneScale);
        sumE2 = warpAllSum(sumE2 * laneScale * laneScale);
        const auto f = static_cast<float>(laneScale);
#pragma unroll
        for (std::uint32_t n = 0; n < VEHICLES; ++n) {
            float v[SCATTER];
#pragma unroll
            for (std::uint32_t ch = 0; ch < SCATTER; ++ch) {
                v[ch] = ch < OUTPUTS ? channel(n, ch) * f : 0.0F;
            }
            channel(n, 0) = reduceScatter<OUTPUTS>(v, lane);  // lanes 2c, 2c + 1: channel c's warp total
        }
    }
    // The block: warps in order, each rescaled to the block's max.
    if (lane == 0) {
        warpMaxima[warp] = runningMax;
    }
    __syncthreads();
    float blockMax = warpMaxima[0];
    for (std::uint32_t w = 1; w < PARTICLE_WARPS; ++w) {
        blockMax = detail::maxLog(blockMax, warpMaxima[w]);
    }
    const double scale = detail::weightTerm(runningMax, blockMax);
    const std::uint32_t channels = 2 + vehicles * OUTPUTS;
    if (lane == 0) {
        warpSums[warp][0] = sumE * scale;
        warpSums[warp][1] = sumE2 * scale * scale;
    }
#pragma unroll
    for (std::uint32_t n = 0; n < VEHICLES; ++n) {
        if (n < vehicles && lane % 2 == 0 && scatterChannel(lane) < OUTPUTS) {
            warpSums[warp][2 + n * OUTPUTS + scatterChannel(lane)] = static_cast<double>(channel(n, 0)) * scale;
        }
    }
    __syncthreads();
    for (std::uint32_t c = threadIdx.x; c < channels; c += blockDim.x) {
        double total = 0.0;
        for (std::uint32_t w = 0; w < PARTICLE_WARPS; ++w) {
            total += warpSums[w][c];
        }
        out.sums[static_cast<std::size_t>(c) * out.blocks + blockIdx.x] = total;
    }
    if (threadIdx.x == 0) {
        out.maxima[blockIdx.x] = blockMax;
    }
}

/// The vehicle-parallel path (Model::VEHICLE_PARALLEL, ≥ VEHICLE_PARALLEL_MIN vehicles): one thread
/// per (particle, vehicle). Block = 32 particles × `vehicles` warps, warp n = vehicle n of 32
/// consecutive particles (coalesced in the structure-of-arrays layout); block b takes the groups of
/// 32 particles [b·G/B, (b+1)·G/B) (B blocks: one wave). Per group: each thread reads its slot (through ρ when
/// pending) and the previous intention of the vehicle it yields to from the source buffer, advances
/// the slot in registers, writes it to the other buffer and its log term to shared memory; after a
/// barrier warp 0 sums the terms in vehicle order (the CPU's sum) into the particles' log-weights,
/// writes them, keeps the running max and hands e and the rescaling factor to the other warps
/// through shared memory; after a second barrier every warp adds e·output of its own vehicle to its
/// sums (reduce-scatter: lane 2c holds output c), and warp 0's lanes add e and e² to their own Σe
/// and Σe², summed over the warp once, after the loop. (Two double warp sums per group, on warp 0's
/// path to the next group, cost the seed-scale step about 1.3 µs: H200, augur-bench-pf.)
/// (Every warp computing the log-weights itself, one barrier per group, took 16 % more instructions
/// and no less time: H100, ncu.) ADVANCE false: read only (the reduce
/// stage), every warp from the stored log-weights. First, when a resampling is pending, the copy
/// indices of the block's particles, as the per-particle kernel's (afterUpload likewise).
/// MAX_REGISTERS: 64 admits the largest block (32 vehicles, 1024 threads); create() takes the
/// VEHICLE_KERNEL_CAPPED_REGISTERS instantiation when it keeps more blocks resident (20 vehicles: 2
/// blocks of 640 threads per SM instead of 1).
template <typename Model, bool ADVANCE, int MAX_REGISTERS, StateLayout LAYOUT>
__global__ void __maxnreg__(MAX_REGISTERS)
    vehicleKernel(Shape s, typename Model::Params params, const typename Model::VehicleInput* inputs,
                  const FilterControl* control, Partials out, std::uint32_t groups, bool afterUpload) {
    constexpr int SLOT = Model::SLOT_FLOATS;
    constexpr auto OUTPUTS = static_cast<std::uint32_t>(Model::OUTPUTS_PER_VEHICLE);
    static_assert(OUTPUTS <= SCATTER, "a vehicle's outputs must fit one reduce-scatter");
    // terms[lane][n]: vehicle n's log term of the group's particle `lane` (warp 0 reads a row as
    // 16-byte vectors; the warps write the next group's only after the second barrier). Rows of
    // MAX_VEHICLES + 4 floats: the 8 lanes of a vector load's quarter warp start 4 banks apart
    // (conflict-free). The columns past `vehicles` stay zero and add nothing. Before the terms, the
    // same memory holds the window of the copy-index drawing (a separate 16 KB window measured about
    // 1 µs slower at seed scale, in the step and on steps without a resampling: H100, augur-bench-pf).
    constexpr std::uint32_t TERM_ROW = Model::MAX_VEHICLES + 4;
    static_assert(Model::MAX_VEHICLES % 4 == 0, "a row of terms is whole 16-byte vectors");
    constexpr std::uint32_t WINDOW = WARP * TERM_ROW / 2;
    __shared__ union {
        __align__(16) float terms[WARP][TERM_ROW];
        std::uint64_t window[WINDOW];
    } shared;
    [[maybe_unused]] auto& terms = shared.terms;
    [[maybe_unused]] __shared__ typename Model::Measurement measured[Model::MAX_VEHICLES];
    [[maybe_unused]] __shared__ double weights[WARP];  // warp 0's e of the group's particles
    [[maybe_unused]] __shared__ double rescale;        // and its factor for the sums
    const std::uint32_t lane = threadIdx.x;
    const std::uint32_t n = threadIdx.y;
    const std::uint32_t vehicles = s.vehicles;
    const std::uint32_t rank = n * WARP + lane;  // in the block
    const std::uint32_t threads = vehicles * WARP;
    if (!afterUpload) {
        primitives::waitForPrerequisiteGrid();  // may start early: no global access before this
    }
    const std::uint64_t cdfTotal = lastCdfValue(s);
    const Source src = sourceOf(control);
    const std::uint32_t b = claimShare(out.claims, gridDim.x, groups, rank == 0);
    const Share share = shareOf(b, gridDim.x, groups);
    const std::uint32_t firstGroup = share.first;
    const std::uint32_t endGroup = share.end;
    __shared__ std::uint32_t copyBounds[Model::MAX_VEHICLES];  // a warp per vehicle
    if (src.pending) {
        drawCopyIndices<1>(s.resampling.cdf, cdfTotal, s.particles, src.uniform, firstGroup * WARP,
                           min(endGroup * WARP, s.particles), s.resampling.copyIndex, shared.window, WINDOW,
                           copyBounds, rank, threads);
    }
    if constexpr (ADVANCE) {
        for (std::uint32_t i = rank; i < WARP * TERM_ROW; i += threads) {
            (&terms[0][0])[i] = 0.0F;
        }
    }
    primitives::waitForPrerequisiteGrid();  // before the inputs, the weights and the state
    // Warp n's vehicle input in shared memory: read from global memory at every group, it was
    // reloaded each time (a store to the state could alias it, for all the compiler knows). The
    // seed-scale step measured 0.6 µs faster, the kernel spills 2 bytes instead of 18–22 (H100).
    // The one-vehicle advance keeps reading global memory: there the same copy spilled 16–48 bytes
    // and the K = 10⁶ step measured 0.5 µs slower (SoA), 3.5 µs (AoS).
    __shared__ typename Model::VehicleInput blockInputs[Model::MAX_VEHICLES];
    {
        static_assert(sizeof(blockInputs[0]) % sizeof(std::uint32_t) == 0, "inputs are copied as 32-bit words");
        constexpr std::uint32_t WORDS = sizeof(blockInputs[0]) / sizeof(std::uint32_t);
        const auto* from = reinterpret_cast<const std::uint32_t*>(inputs + n);
        auto* to = reinterpret_cast<std::uint32_t*>(blockInputs + n);
        for (std::uint32_t i = lane; i < WORDS; i += WARP) {
            to[i] = from[i];
        }
        __syncwarp();
    }
    const typename Model::VehicleInput& z = blockInputs[n];
    const bool weighs = Model::weighs(z);
    if constexpr (ADVANCE) {
        if (lane == 0) {
            measured[n] = Model::measurementOf(z);
        }
        __syncthreads();
    }
    const std::uint32_t termVectors = (vehicles + 3) / 4;

    float runningMax = -INFINITY;
    double channel = 0.0;  // output scatterChannel(lane) of vehicle n
    double sumE = 0.0;     // warp 0: its lane's particles, relative to runningMax
    double sumE2 = 0.0;
    for (std::uint32_t g = firstGroup; g < endGroup; ++g) {
        const std::uint32_t k = g * WARP + lane;
        const bool valid = k < s.particles;
        float slot[SLOT];
        float logWeight = -INFINITY;
        // The stored log-weight: warp 0 updates it (ADVANCE), every warp reads it (the reduce stage).
        const float previous = valid && !src.pending && (n == 0 || !ADVANCE) ? s.logWeights[k] : 0.0F;
        if (valid) {
            const ParticleRef in = sourceRef<LAYOUT>(s, src, k);
            loadUsed<Model>(in, n, slot);
            if constexpr (ADVANCE) {
                const std::int32_t other = Model::yieldsTo(slot, z, vehicles);
                const float otherIntent =
                    other >= 0 ? in.get(static_cast<std::uint32_t>(other) * SLOT + Model::INTENT_STOP) : 0.0F;
                BasicRandomStream<tuning::VEHICLE_KERNEL_MULTIPLY> rng(s.seed, src.step, k, n);
                Model::advanceSlot(slot, otherIntent, vehicles, params, z, rng);
                storeUsed<Model>(particleRef<LAYOUT>(s, src.buffer ^ 1U, k), n, slot);
                terms[lane][n] = weighs ? Model::slotLogLikelihood(slot, measured[n]) : 0.0F;
            } else {
                logWeight = previous;
            }
        }
        double factor = 1.0;
        double e = 0.0;
        if constexpr (ADVANCE) {
            __syncthreads();
            // Warp 0 alone sums the terms into the log-weights, keeps the running max and hands the
            // weights e and the rescaling factor to the other warps through shared memory.
            if (n == 0) {
                if (valid) {
                    // In vehicle order, as the CPU's sum (+ 0 for the vehicles that do not weigh).
                    float logLikelihood = 0.0F;
                    const auto* row = reinterpret_cast<const float4*>(terms[lane]);
                    for (std::uint32_t q = 0; q < termVectors; ++q) {
                        const float4 t = row[q];
                        logLikelihood += t.x;
                        logLikelihood += t.y;
                        logLikelihood += t.z;
                        logLikelihood += t.w;
                    }
                    // As detail::updateParticle.
                    logWeight = previous - src.previousMax + logLikelihood;
                    s.logWeights[k] = logWeight;
                    if (s.fitness != nullptr) {
                        s.fitness[k] = logLikelihood;
                    }
                }
                factor = rebase(runningMax, warpMaxReduced(logWeight));
                e = valid ? detail::weightTerm(logWeight, runningMax) : 0.0;
                weights[lane] = e;
                if (lane == 0) {
                    rescale = factor;
                }
            }
            __syncthreads();
            if (n != 0) {
                e = weights[lane];
                factor = rescale;
            }
        } else {
            factor = rebase(runningMax, warpMaxReduced(logWeight));
            e = valid ? detail::weightTerm(logWeight, runningMax) : 0.0;
        }
        if (n == 0) {
            sumE = sumE * factor + e;
            sumE2 = sumE2 * factor * factor + e * e;
        }
        const auto ef = static_cast<float>(e);
        float v[SCATTER];
#pragma unroll
        for (std::uint32_t c = 0; c < SCATTER; ++c) {
            v[c] = valid && c < OUTPUTS ? ef * Model::output(slot, c) : 0.0F;
        }
        channel = channel * factor + static_cast<double>(reduceScatter<OUTPUTS>(v, lane));
    }
    if (lane % 2 == 0 && scatterChannel(lane) < OUTPUTS) {
        out.sums[(2 + static_cast<std::size_t>(n) * OUTPUTS + scatterChannel(lane)) * out.blocks + b] = channel;
    }
    if (n == 0) {
        sumE = warpAllSum(sumE);
        sumE2 = warpAllSum(sumE2);
        if (lane == 0) {
            out.sums[b] = sumE;
            out.sums[out.blocks + b] = sumE2;
            out.maxima[b] = runningMax;
        }
    }
}

struct CombineArgs {
    const double* sums;
    const float* maxima;
    std::uint32_t blocks;
    float* outputs;
    FilterControl* control;
    std::uint32_t particles;
    float threshold;
    std::uint64_t seed;
    std::uint32_t deEnabled;
    std::uint32_t commit;  ///< 1: the advance kernel wrote the other buffer; make it the committed one
    // Systematic resampling: blocks 0 … cdfTiles − 1 also scan the CDF of the quantised weights
    // (cdfTiles = 0: they do not).
    const float* logWeights;
    std::uint64_t* cdf;
    internal::CdfLookbackState cdfState;
    std::uint32_t cdfTiles;
};

/// Blocks 0 … cdfTiles − 1 scan the CDF, the rest combine the channels; every block first finds the
/// global max over the partial maxima (a max is exact in any order).
/// Scan blocks (systematic resampling): block b scans CDF tile b of the quantised weights, which need
/// only the global max — the scan is ready when the device decides to resample, one launch fewer,
/// and it runs beside the channel sums instead of before them (tile order = block order, so the
/// look-back waits only on blocks that started earlier).
/// Channel blocks: one per channel c ≥ 1 (Σe², then the outputs): each partial block's scale
/// exp(max_b − max); thread t sums partial blocks t, t + 256, … of channel c and of Σe (channel 0)
/// in order and a fixed tree combines the threads, so every block has the same Σe, bit for bit,
/// and needs no other block's sum. Its rows are loaded with the maxima, before the max is known.
/// An output block writes its output normalised by Σe; the Σe² block writes the control block:
/// N_eff, the resample decision, u, the buffer commit, the step, and a systematic resampling as
/// pending, which the next advance draws the copy indices of from the CDF (stream order). Without a
/// commit (the reduce stage) only N_eff, Σw and the max: a pending resampling keeps its u for the
/// next advance. (A completion counter, the last block to finish normalising the outputs, would put a
/// fence, an atomic and a reload on the step's path: the seed-scale step measured about 1 µs slower
/// with it, H100, augur-bench-pf.)
/// SEGMENTS: those of a CDF tile (internal::cdfSegments).
template <std::uint32_t SEGMENTS>
__global__ void __launch_bounds__(tuning::COMBINE_BLOCK) combineKernel(CombineArgs a) {
    __shared__ float warpMaxima[COMBINE_WARPS];
    __shared__ double warpTotals[2][COMBINE_WARPS];
    const std::uint32_t lane = threadIdx.x % WARP;
    const std::uint32_t warp = threadIdx.x / WARP;
    const bool scanBlock = blockIdx.x < a.cdfTiles;  // block-uniform: CDF tile blockIdx.x, nothing else
    primitives::waitForPrerequisiteGrid();  // may start early: no global access before this

    // A scan block loads its tile's log-weights first, so that their loads overlap the maxima's.
    internal::TileLogWeights<SEGMENTS> tile{};
    if (scanBlock) {
        tile = internal::loadTileLogWeights<true, SEGMENTS>(a.logWeights, a.particles);
    }
    // A channel block c ≥ 1 loads its row of partial sums and that of Σe (channel 0) with the
    // maxima, before the max is known.
    constexpr std::uint32_t HELD = 4;  // partial blocks a thread holds in registers (the rest: reloaded)
    const std::uint32_t c = blockIdx.x - a.cdfTiles + 1;  // a channel block's channel (one per block)
    const double* row = scanBlock ? nullptr : a.sums + static_cast<std::size_t>(c) * a.blocks;
    const double* weightRow = a.sums;
    float heldMax[HELD];
    double heldSum[HELD];
    double heldWeight[HELD];
    float localMax = -INFINITY;
#pragma unroll
    for (std::uint32_t h = 0; h < HELD; ++h) {
        const std::uint32_t b = threadIdx.x + h * blockDim.x;
        heldMax[h] = b < a.blocks ? a.maxima[b] : -INFINITY;
        heldSum[h] = !scanBlock && b < a.blocks ? row[b] : 0.0;
        heldWeight[h] = !scanBlock && b < a.blocks ? weightRow[b] : 0.0;
    }
#pragma unroll
    for (std::uint32_t h = 0; h < HELD; ++h) {
        localMax = detail::maxLog(localMax, heldMax[h]);
    }
    for (std::uint32_t b = threadIdx.x + HELD * blockDim.x; b < a.blocks; b += blockDim.x) {
        localMax = detail::maxLog(localMax, a.maxima[b]);
    }
    [[maybe_unused]] FilterControl ctl{};
    if (!scanBlock && c == 1 && threadIdx.x == 0) {
        ctl = *a.control;  // nothing in this kernel writes it before this block
    }
    localMax = warpMax(localMax);
    if (lane == 0) {
        warpMaxima[warp] = localMax;
    }
    __syncthreads();
    float globalMax = warpMaxima[0];
    for (std::uint32_t w = 1; w < COMBINE_WARPS; ++w) {
        globalMax = detail::maxLog(globalMax, warpMaxima[w]);
    }
    if (scanBlock) {
        internal::scanQuantizedTile(tile, a.particles, globalMax, a.cdf, a.cdfState);
        return;
    }
    // Thread t sums partial blocks t, t + 256, … in order, each scaled by exp(max_b − max) as a float;
    // Σe the same way in every block (the same bits).
    double total = 0.0;
    double weights = 0.0;
    auto add = [&](float blockMax, double sum, double weight) {
        const auto f = static_cast<double>(static_cast<float>(detail::weightTerm(blockMax, globalMax)));
        total += sum * (c == 1 ? f * f : f);
        weights += weight * f;
    };
#pragma unroll
    for (std::uint32_t h = 0; h < HELD; ++h) {
        if (threadIdx.x + h * blockDim.x < a.blocks) {
            add(heldMax[h], heldSum[h], heldWeight[h]);
        }
    }
    for (std::uint32_t b = threadIdx.x + HELD * blockDim.x; b < a.blocks; b += blockDim.x) {
        add(a.maxima[b], row[b], weightRow[b]);
    }
    total = warpAllSum(total);
    weights = warpAllSum(weights);
    if (lane == 0) {
        warpTotals[0][warp] = total;
        warpTotals[1][warp] = weights;
    }
    __syncthreads();
    if (threadIdx.x != 0) {
        return;
    }
    double channelSum = 0.0;
    double sum = 0.0;
    for (std::uint32_t w = 0; w < COMBINE_WARPS; ++w) {
        channelSum += warpTotals[0][w];
        sum += warpTotals[1][w];
    }
    if (c >= 2) {
        a.outputs[c - 2] = static_cast<float>(channelSum / sum);
        return;
    }
    const double sumSquares = channelSum;
    ctl.sumWeights = sum;
    ctl.effectiveSampleSize = static_cast<float>(sum * sum / sumSquares);
    ctl.maxLogWeight = globalMax;
    ctl.current ^= ctl.swap ^ a.commit;
    ctl.swap = 0;
    if (a.commit != 0U) {
        // The step's decision, u and count. A systematic resampling is left to the next advance:
        // its copy indices (with this u) and its gather. The reduce stage leaves them alone.
        ctl.resample = ctl.effectiveSampleSize < a.threshold * static_cast<float>(a.particles) ? 1U : 0U;
        ctl.pending = a.cdfTiles != 0U ? ctl.resample : 0U;
        ctl.uniform = resampleUniform(a.seed, ctl.step);
        ctl.deActive = (ctl.resample != 0 && a.deEnabled != 0) ? 1U : 0U;
        ctl.deParity = 0;
        ctl.generations = 0;
        ctl.step += 1;
    }
    *a.control = ctl;
}

template <typename Model>
__global__ void evolveKernel(Shape s, typename Model::Params params, const typename Model::VehicleInput* inputs,
                             DifferentialEvolutionConfig de, std::uint32_t generation, FilterControl* control) {
    if (control->deActive == 0U) {
        return;
    }
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= s.particles) {
        return;
    }
    const std::uint32_t src = control->current ^ control->deParity;
    detail::evolveParticle<Model>(particleRef(s, src, k), particleRef(s, src ^ 1U, k), s.vehicles, params, inputs, de,
                                  s.seed, control->step - 1, generation, s.fitness);
    if (generation == 0) {
        s.logWeights[k] = 0.0F;
    }
}

/// Σ fitness and Σ fitness² per block, for the population spread.
__global__ void __launch_bounds__(tuning::REDUCE_BLOCK)
    spreadPartialsKernel(const float* fitness, std::uint32_t particles, std::uint32_t chunk, double* partials,
                         const FilterControl* control) {
    constexpr std::uint32_t WARPS = tuning::REDUCE_BLOCK / WARP;
    if (control->deActive == 0U) {
        return;
    }
    __shared__ double warpSums[WARPS][2];
    const std::uint32_t begin = blockIdx.x * chunk;
    const std::uint32_t end = min(begin + chunk, particles);
    double sum = 0.0;
    double sumSquares = 0.0;
    for (std::uint32_t k = begin + threadIdx.x; k < end; k += blockDim.x) {
        const double f = fitness[k];
        sum += f;
        sumSquares += f * f;
    }
    sum = warpAllSum(sum);
    sumSquares = warpAllSum(sumSquares);
    if (threadIdx.x % WARP == 0) {
        warpSums[threadIdx.x / WARP][0] = sum;
        warpSums[threadIdx.x / WARP][1] = sumSquares;
    }
    __syncthreads();
    if (threadIdx.x < 2) {
        double total = 0.0;
        for (std::uint32_t w = 0; w < WARPS; ++w) {
            total += warpSums[w][threadIdx.x];
        }
        partials[2 * blockIdx.x + threadIdx.x] = total;
    }
}

__global__ void spreadFinalKernel(const double* partials, std::uint32_t blocks, std::uint32_t particles,
                                  DifferentialEvolutionConfig de, FilterControl* control) {
    if (control->deActive == 0U || threadIdx.x != 0) {
        return;
    }
    double sum = 0.0;
    double sumSquares = 0.0;
    for (std::uint32_t b = 0; b < blocks; ++b) {
        sum += partials[2 * b];
        sumSquares += partials[2 * b + 1];
    }
    const double n = particles;
    const double variance = fmax(0.0, sumSquares / n - (sum / n) * (sum / n));
    FilterControl ctl = *control;
    if (ctl.generations == 0) {
        ctl.maxLogWeight = 0.0F;
    }
    ctl.deParity ^= 1U;
    ctl.swap = ctl.deParity;
    ctl.generations += 1;
    if (!(sqrt(variance) >= de.minSpread) || ctl.generations >= de.maxGenerations) {
        ctl.deActive = 0;
    }
    *control = ctl;
}

std::uint32_t blocksFor(std::uint32_t items, std::uint32_t block) { return (items + block - 1) / block; }

template <typename Model>
using PartialsKernel = void (*)(Shape, typename Model::Params, const typename Model::VehicleInput*,
                                const FilterControl*, Partials, std::uint32_t, bool);

/// The per-particle kernel instantiated for `vehicles` (vehicle-parallel models: 1 … VEHICLE_PARALLEL_MIN − 1)
/// and the layout.
template <typename Model, bool ADVANCE, StateLayout LAYOUT>
PartialsKernel<Model> particleKernelFor(std::uint32_t vehicles) {
    if constexpr (detail::vehicleParallel<Model>()) {
        static_assert(tuning::VEHICLE_PARALLEL_MIN == 4, "one instantiation per vehicle count below the threshold");
        switch (vehicles) {
            case 1: return particleKernel<Model, ADVANCE, 1, LAYOUT>;
            case 2: return particleKernel<Model, ADVANCE, 2, LAYOUT>;
            default: return particleKernel<Model, ADVANCE, 3, LAYOUT>;
        }
    } else {
        (void)vehicles;
        return particleKernel<Model, ADVANCE, Model::MAX_VEHICLES, LAYOUT>;
    }
}

template <typename Model, bool ADVANCE>
PartialsKernel<Model> particleKernelFor(std::uint32_t vehicles, StateLayout layout) {
    return layout == StateLayout::ArrayOfStructs ? particleKernelFor<Model, ADVANCE, StateLayout::ArrayOfStructs>(vehicles)
                                                 : particleKernelFor<Model, ADVANCE, StateLayout::StructOfArrays>(vehicles);
}

/// The vehicle-parallel kernel for the layout (nullptr for models without the per-vehicle hooks).
template <typename Model, bool ADVANCE>
PartialsKernel<Model> vehicleKernelFor(bool capped, StateLayout layout) {
    if constexpr (detail::vehicleParallel<Model>()) {
        constexpr int CAPPED = tuning::VEHICLE_KERNEL_CAPPED_REGISTERS;
        constexpr int FULL = VEHICLE_KERNEL_REGISTERS;
        if (layout == StateLayout::ArrayOfStructs) {
            return capped ? vehicleKernel<Model, ADVANCE, CAPPED, StateLayout::ArrayOfStructs>
                          : vehicleKernel<Model, ADVANCE, FULL, StateLayout::ArrayOfStructs>;
        }
        return capped ? vehicleKernel<Model, ADVANCE, CAPPED, StateLayout::StructOfArrays>
                      : vehicleKernel<Model, ADVANCE, FULL, StateLayout::StructOfArrays>;
    } else {
        (void)capped;
        (void)layout;
        return nullptr;
    }
}

/// The step's view of the resampling scratch (everything null for differential evolution).
Resampling resamplingOf(const FilterConfig& config, void* scratch, std::uint32_t* copyIndex) {
    if (config.resampler != Resampler::Systematic) {
        return {};
    }
    return {internal::carve(scratch, config.particles).cdf, copyIndex};
}

/// Resident blocks of `kernel` on the SMs the filter runs on (blocks per SM × the device's SMs, or the
/// active SM partition's: platform::activeMultiprocessors); 0 if a query failed.
template <typename Kernel>
std::uint32_t residentBlocks(Kernel kernel, std::uint32_t threads) {
    const auto sms = platform::activeMultiprocessors();
    int perSm = 0;
    if (!sms || !AUGUR_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, kernel, static_cast<int>(threads), 0))) {
        return 0;
    }
    return static_cast<std::uint32_t>(std::max(1, sms.value()) * std::max(1, perSm));
}

}  // namespace

template <typename Model>
Result<ParticleFilter<Model>, FilterError> ParticleFilter<Model>::create(const FilterConfig& config,
                                                                         const Params& params) {
    auto valid = validate<Model>(config);
    if (!valid) {
        return fail(valid.error());
    }
    const auto arch = activeTuningArch();
    if (!arch) {
        return fail(FilterError::Gpu);
    }
    ParticleFilter filter;
    filter.m_config = config;
    filter.m_params = params;
    filter.m_spreadMaxBlocks = tuning::launchPolicy(arch.value()).spreadMaxBlocks;
    filter.m_stride = config.vehicles * static_cast<std::uint32_t>(Model::SLOT_FLOATS);
    if constexpr (detail::vehicleParallel<Model>()) {
        filter.m_vehicleParallel = config.vehicles >= tuning::VEHICLE_PARALLEL_MIN;
    }
    // One wave of resident blocks, each with a fixed share of the particles.
    std::uint32_t slots = 0;
    std::uint32_t units = 0;  // 32-particle groups (vehicle-parallel) or 256-particle chunks
    if (filter.m_vehicleParallel) {
        const std::uint32_t threads = WARP * config.vehicles;
        const std::uint32_t full = residentBlocks(vehicleKernelFor<Model, true>(false, config.layout), threads);
        const std::uint32_t capped = residentBlocks(vehicleKernelFor<Model, true>(true, config.layout), threads);
        filter.m_cappedRegisters = capped > full;
        slots = std::max(full, capped);
        units = blocksFor(config.particles, WARP);
    } else {
        slots = residentBlocks(particleKernelFor<Model, true>(config.vehicles, config.layout), tuning::PARTICLE_BLOCK);
        units = blocksFor(config.particles, tuning::PARTICLE_BLOCK);
    }
    if (slots == 0) {
        return fail(FilterError::Gpu);
    }
    filter.m_units = units;
    filter.m_dependentLaunch = primitives::dependentLaunchSupported();
    filter.m_partialBlocks = std::min({slots, units, MAX_PARTIAL_BLOCKS});

    const std::size_t k = config.particles;
    const std::size_t channels = 2 + outputCount<Model>(config.vehicles);
    bool ok = true;
    auto assign = [&ok](auto& target, auto&& created) {
        if (created) {
            target = std::move(created).value();
        } else {
            ok = false;
        }
    };
    for (auto& state : filter.m_states) {
        assign(state, platform::DeviceBuffer<float>::create(k * filter.m_stride));
    }
    assign(filter.m_logWeights, platform::DeviceBuffer<float>::create(k));
    assign(filter.m_fitness, platform::DeviceBuffer<float>::create(k));
    assign(filter.m_outputs,
           platform::PinnedMemory::allocate(sizeof(float) * outputCount<Model>(config.vehicles), true));
    // Also the differential-evolution spread partials (2 per block, at most the policy's SPREAD_MAX_BLOCKS).
    assign(filter.m_partials, platform::DeviceBuffer<double>::create(
                                  std::max<std::size_t>(filter.m_partialBlocks * channels, 2 * filter.m_spreadMaxBlocks)));
    assign(filter.m_partialMax, platform::DeviceBuffer<float>::create(filter.m_partialBlocks));
    assign(filter.m_shareClaims, platform::DeviceBuffer<std::uint32_t>::create(1 + SHARE_CLAIM_SMS));
    assign(filter.m_copyIndex, platform::DeviceBuffer<std::uint32_t>::create(k));
    assign(filter.m_inputs, platform::DeviceBuffer<Input>::create(config.vehicles));
    assign(filter.m_control, platform::DeviceBuffer<FilterControl>::create(1));
    assign(filter.m_resampleScratch, platform::DeviceMemory::allocate(internal::resampleScratchBytes(config.particles)));
    assign(filter.m_stagedInputs, platform::PinnedMemory::allocate(sizeof(Input) * config.vehicles, true));
    if (!ok) {
        return fail(FilterError::Gpu);
    }
    filter.m_hostState.assign(k * filter.m_stride, 0.0F);
    filter.m_hostCopyIndex.assign(k, 0U);
    return Result<ParticleFilter, FilterError>(std::move(filter));
}

template <typename Model>
Result<void, FilterError> ParticleFilter<Model>::setInputs(std::span<const Input> inputs) noexcept {
    if (auto valid = validateInputs<Model>(inputs, m_config.vehicles); !valid) {
        return valid;
    }
    std::memcpy(m_stagedInputs.get(), inputs.data(), inputs.size_bytes());
    return {};
}

template <typename Model>
GpuStatus ParticleFilter<Model>::uploadInputs(StreamHandle stream) noexcept {
    static_assert(sizeof(Input) % sizeof(std::uint32_t) == 0, "inputs are copied as 32-bit words");
    const auto words = static_cast<std::uint32_t>(m_inputs.bytes() / sizeof(std::uint32_t));
    const internal::ResampleScratch cdf = internal::carve(m_resampleScratch.get(), m_config.particles);
    const std::uint32_t tiles = m_config.resampler == Resampler::Systematic ? cdf.tiles : 0U;
    uploadKernel<<<1, tuning::UPLOAD_BLOCK, 0, stream>>>(static_cast<const std::uint32_t*>(m_stagedInputs.devicePointer()),
                                                         reinterpret_cast<std::uint32_t*>(m_inputs.data()), words,
                                                         cdf.state, tiles);
    m_uploadLaunchedLast = true;
    return AUGUR_CUDA_CHECK_LAUNCH();
}

#define AUGUR_PF_SHAPE                                                                             \
    Shape {                                                                                       \
        {m_states[0].data(), m_states[1].data()}, m_logWeights.data(),                            \
            m_config.resampler == Resampler::DifferentialEvolution ? m_fitness.data() : nullptr, \
            resamplingOf(m_config, m_resampleScratch.get(), m_copyIndex.data()), m_config.particles, \
            m_config.vehicles, m_stride, m_config.layout, m_config.seed                          \
    }

template <typename Model>
GpuStatus ParticleFilter<Model>::initialize(std::span<const Input> inputs, StreamHandle stream) noexcept {
    if (!setInputs(inputs)) {
        return AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
    }
    AUGUR_CUDA_TRY(uploadInputs(stream));
    AUGUR_CUDA_TRY(platform::fillDevice(m_control.data(), 0, sizeof(FilterControl), stream));
    AUGUR_CUDA_TRY(platform::fillDevice(m_outputs.devicePointer(), 0, m_outputs.bytes(), stream));
    // Both buffers: the padding of a slot is never written by a step and must read as zero.
    for (auto& state : m_states) {
        AUGUR_CUDA_TRY(platform::fillDevice(state.data(), 0, state.bytes(), stream));
    }
    AUGUR_CUDA_TRY(internal::clearResampleState(m_resampleScratch.get(), m_config.particles, stream));
    AUGUR_CUDA_TRY(platform::fillDevice(m_shareClaims.data(), 0, m_shareClaims.bytes(), stream));
    initializeKernel<Model><<<blocksFor(m_config.particles, tuning::PARTICLE_BLOCK), tuning::PARTICLE_BLOCK, 0, stream>>>(
        AUGUR_PF_SHAPE, m_params, m_inputs.data());
    m_uploadLaunchedLast = false;
    return AUGUR_CUDA_CHECK_LAUNCH();
}

template <typename Model>
GpuStatus ParticleFilter<Model>::launchPartials(bool advance, StreamHandle stream) noexcept {
    const bool afterUpload = m_uploadLaunchedLast && m_dependentLaunch;
    m_uploadLaunchedLast = false;
    const Partials out{m_partials.data(), m_partialMax.data(), m_partialBlocks,
                       ShareClaims{m_shareClaims.data(), m_shareClaims.data() + 1}};
    PartialsKernel<Model> kernel = nullptr;
    dim3 block(tuning::PARTICLE_BLOCK);
    if (m_vehicleParallel) {
        kernel = advance ? vehicleKernelFor<Model, true>(m_cappedRegisters, m_config.layout)
                         : vehicleKernelFor<Model, false>(m_cappedRegisters, m_config.layout);
        block = dim3(WARP, m_config.vehicles);
    } else {
        kernel = advance ? particleKernelFor<Model, true>(m_config.vehicles, m_config.layout)
                         : particleKernelFor<Model, false>(m_config.vehicles, m_config.layout);
    }
    return AUGUR_CUDA_CHECK(primitives::launchKernel(m_dependentLaunch, kernel, dim3(m_partialBlocks), block, stream,
                                                     AUGUR_PF_SHAPE, m_params, m_inputs.data(), m_control.data(), out,
                                                     m_units, afterUpload));
}

template <typename Model>
GpuStatus ParticleFilter<Model>::launchCombine(bool commit, StreamHandle stream) noexcept {
    const auto channels = static_cast<std::uint32_t>(2 + outputCount<Model>(m_config.vehicles));
    const std::uint32_t deEnabled = m_config.resampler == Resampler::DifferentialEvolution && m_config.particles >= 2 &&
                                            m_config.de.maxGenerations > 0
                                        ? 1U
                                        : 0U;
    // The step's combine also scans the CDF for systematic resampling (the reduce stage does not).
    const bool scan = commit && m_config.resampler == Resampler::Systematic;
    const internal::ResampleScratch cdf = internal::carve(m_resampleScratch.get(), m_config.particles);
    auto* outputs = static_cast<float*>(m_outputs.devicePointer());
    m_uploadLaunchedLast = false;
    const CombineArgs args{m_partials.data(),
                           m_partialMax.data(),
                           m_partialBlocks,
                           outputs,
                           m_control.data(),
                           m_config.particles,
                           m_config.resampleThreshold,
                           m_config.seed,
                           deEnabled,
                           commit ? 1U : 0U,
                           m_logWeights.data(),
                           cdf.cdf,
                           cdf.state,
                           scan ? cdf.tiles : 0U};
    // A block per channel but Σe, which every channel block sums beside its own.
    auto* kernel = internal::cdfSegments(m_config.particles) == 1 ? combineKernel<1> : combineKernel<2>;
    return AUGUR_CUDA_CHECK(primitives::launchKernel(m_dependentLaunch, kernel, dim3(args.cdfTiles + channels - 1),
                                                     dim3(tuning::COMBINE_BLOCK), stream, args));
}

template <typename Model>
GpuStatus ParticleFilter<Model>::advance(StreamHandle stream) noexcept {
    return launchPartials(true, stream);
}

template <typename Model>
GpuStatus ParticleFilter<Model>::combine(StreamHandle stream) noexcept {
    return launchCombine(true, stream);
}

template <typename Model>
GpuStatus ParticleFilter<Model>::reduce(StreamHandle stream) noexcept {
    AUGUR_CUDA_TRY(launchPartials(false, stream));
    return launchCombine(false, stream);
}

template <typename Model>
GpuStatus ParticleFilter<Model>::resample(StreamHandle stream) noexcept {
    FilterControl* control = m_control.data();
    if (m_config.resampler == Resampler::Systematic) {
        return {};  // the combine has scanned the CDF; the next advance draws the copy indices
    }
    m_uploadLaunchedLast = false;
    const std::uint32_t particleBlocks = blocksFor(m_config.particles, tuning::PARTICLE_BLOCK);
    const std::uint32_t chunk =
        blocksFor(blocksFor(m_config.particles, m_spreadMaxBlocks), tuning::REDUCE_BLOCK) * tuning::REDUCE_BLOCK;
    const std::uint32_t blocks = blocksFor(m_config.particles, chunk);
    for (std::uint32_t g = 0; g < m_config.de.maxGenerations; ++g) {
        evolveKernel<Model><<<particleBlocks, tuning::PARTICLE_BLOCK, 0, stream>>>(AUGUR_PF_SHAPE, m_params,
                                                                                  m_inputs.data(), m_config.de, g, control);
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
        spreadPartialsKernel<<<blocks, tuning::REDUCE_BLOCK, 0, stream>>>(m_fitness.data(), m_config.particles, chunk,
                                                                          m_partials.data(), control);
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
        spreadFinalKernel<<<1, WARP, 0, stream>>>(m_partials.data(), blocks, m_config.particles, m_config.de, control);
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
    }
    return {};
}

template <typename Model>
GpuStatus ParticleFilter<Model>::step(StreamHandle stream) noexcept {
    AUGUR_CUDA_TRY(uploadInputs(stream));
    AUGUR_CUDA_TRY(advance(stream));
    AUGUR_CUDA_TRY(combine(stream));
    return resample(stream);
}

template <typename Model>
GpuStatus ParticleFilter<Model>::drawPendingCopyIndices(StreamHandle stream) const noexcept {
    const FilterControl* control = m_control.data();
    return internal::launchSystematicResample(m_logWeights.data(), m_config.particles, &control->maxLogWeight,
                                              &control->uniform, m_copyIndex.data(), nullptr,
                                              m_resampleScratch.get(), true, stream);
}

template <typename Model>
Result<StepSummary, platform::GpuError> ParticleFilter<Model>::summary(StreamHandle stream) const noexcept {
    FilterControl control{};
    auto copied = platform::copyToHost(&control, m_control.data(), sizeof(control), stream);
    if (!copied) {
        return fail(copied.error());
    }
    auto synced = AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream));
    if (!synced) {
        return fail(synced.error());
    }
    // A pending resampling has, logically, already reset the weights and their max.
    return StepSummary{control.sumWeights,
                       control.effectiveSampleSize,
                       control.pending != 0 ? 0.0F : control.maxLogWeight,
                       control.step,
                       control.resample,
                       control.generations};
}

template <typename Model>
GpuStatus ParticleFilter<Model>::copyOutputs(std::span<float> outputs, StreamHandle stream) const noexcept {
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream)));
    const std::span<const float> written = hostOutputs();
    std::copy_n(written.begin(), std::min(outputs.size(), written.size()), outputs.begin());
    return {};
}

template <typename Model>
GpuStatus ParticleFilter<Model>::copyParticles(std::span<float> aos, std::span<float> logWeights,
                                               StreamHandle stream) const noexcept {
    FilterControl control{};
    AUGUR_CUDA_TRY(platform::copyToHost(&control, m_control.data(), sizeof(control), stream));
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream)));
    const std::uint32_t buffer = control.current ^ control.swap;
    const bool pending = control.pending != 0;
    AUGUR_CUDA_TRY(m_states[buffer].download(std::span<float>(m_hostState), stream));
    if (pending) {
        AUGUR_CUDA_TRY(drawPendingCopyIndices(stream));
        AUGUR_CUDA_TRY(m_copyIndex.download(std::span<std::uint32_t>(m_hostCopyIndex), stream));
    } else {
        AUGUR_CUDA_TRY(m_logWeights.download(logWeights, stream));
    }
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream)));
    const std::size_t k = m_config.particles;
    const std::size_t stride = m_stride;
    const bool soa = m_config.layout == StateLayout::StructOfArrays;
    for (std::size_t p = 0; p < k; ++p) {
        const std::size_t from = pending ? m_hostCopyIndex[p] : p;
        for (std::size_t f = 0; f < stride; ++f) {
            aos[p * stride + f] = soa ? m_hostState[f * k + from] : m_hostState[from * stride + f];
        }
    }
    if (pending) {
        std::fill(logWeights.begin(), logWeights.begin() + static_cast<std::ptrdiff_t>(k), 0.0F);
    }
    return {};
}

template <typename Model>
Result<bool, platform::GpuError> ParticleFilter<Model>::copyWeightedParticles(std::span<float> aos,
                                                                             std::span<float> logWeights,
                                                                             std::span<std::uint32_t> copyIndex,
                                                                             StreamHandle stream) const noexcept {
    FilterControl control{};
    auto status = platform::copyToHost(&control, m_control.data(), sizeof(control), stream);
    if (status) {
        status = AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    const bool pending = control.pending != 0;
    if (status) {
        status = m_states[control.current ^ control.swap].download(std::span<float>(m_hostState), stream);
    }
    if (status) {
        status = m_logWeights.download(logWeights, stream);
    }
    if (status && pending) {
        status = drawPendingCopyIndices(stream);
    }
    if (status && pending) {
        status = m_copyIndex.download(copyIndex, stream);
    }
    if (status) {
        status = AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    if (!status) {
        return fail(status.error());
    }
    const std::size_t k = m_config.particles;
    const std::size_t stride = m_stride;
    const bool soa = m_config.layout == StateLayout::StructOfArrays;
    for (std::size_t p = 0; p < k; ++p) {
        for (std::size_t f = 0; f < stride; ++f) {
            aos[p * stride + f] = soa ? m_hostState[f * k + p] : m_hostState[p * stride + f];
        }
    }
    return pending;
}

template <typename Model>
GpuStatus ParticleFilter<Model>::copyAppliedCopyIndices(std::span<std::uint32_t> copyIndex,
                                                        StreamHandle stream) const noexcept {
    AUGUR_CUDA_TRY(m_copyIndex.download(copyIndex, stream));
    return AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream));
}

#undef AUGUR_PF_SHAPE

template class ParticleFilter<UngmModel>;
template class ParticleFilter<GammaNoiseSwitchingModel>;
template class ParticleFilter<LinearGaussianModel>;
template class ParticleFilter<SceneModel>;

}  // namespace augur::kernels::pf::cuda
