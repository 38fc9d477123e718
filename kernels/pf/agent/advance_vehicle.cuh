// The agent of the vehicle-parallel advance (and reduce) kernel: one thread per (particle, vehicle).
// Private to kernels/pf (filter_cuda.cu).
#pragma once

#include <cmath>
#include <cstdint>

#include "common.cuh"

namespace augur::kernels::pf::cuda::agent {

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
/// Shared storage: the log terms of a group (or, before them, the copy-index window), the vehicles'
/// measurements and inputs, warp 0's weights and factor, the copy bounds, declared in consumeGroups.
template <typename Model, bool ADVANCE, StateLayout LAYOUT>
struct VehicleAgent {
    using Params = typename Model::Params;
    using Input = typename Model::VehicleInput;
    using Measurement = typename Model::Measurement;

    static constexpr int SLOT = Model::SLOT_FLOATS;
    static constexpr auto OUTPUTS = static_cast<std::uint32_t>(Model::OUTPUTS_PER_VEHICLE);
    static_assert(OUTPUTS <= SCATTER, "a vehicle's outputs must fit one reduce-scatter");
    // terms[lane][n]: vehicle n's log term of the group's particle `lane` (warp 0 reads a row as
    // 16-byte vectors; the warps write the next group's only after the second barrier). Rows of
    // MAX_VEHICLES + 4 floats: the 8 lanes of a vector load's quarter warp start 4 banks apart
    // (conflict-free). The columns past `vehicles` stay zero and add nothing. Before the terms, the
    // same memory holds the window of the copy-index drawing (a separate 16 KB window measured about
    // 1 µs slower at seed scale, in the step and on steps without a resampling: H100, augur-bench-pf).
    static constexpr std::uint32_t TERM_ROW = Model::MAX_VEHICLES + 4;
    static_assert(Model::MAX_VEHICLES % 4 == 0, "a row of terms is whole 16-byte vectors");
    static constexpr std::uint32_t WINDOW = WARP * TERM_ROW / 2;

    /// The thread's running sums over the block's share.
    struct Sums {
        float runningMax;  // of the share's log-weights
        double channel;    // output scatterChannel(lane) of vehicle n
        double sumE;       // warp 0: its lane's particles, relative to runningMax
        double sumE2;
    };

    /// Block blockIdx.x of a one-wave grid of blocks (32, vehicles): the share of `groups` it claims,
    /// then the partial of that share in `out`.
    static __device__ __forceinline__ void consumeGroups(const Shape& s, const Params& params, const Input* inputs,
                                                         const FilterControl* control, const Partials& out,
                                                         std::uint32_t groups, bool afterUpload);

    /// Warp n's vehicle input copied to blockInputs[n] (32-bit words, then a warp barrier).
    static __device__ __forceinline__ void copyInput(const Input* inputs, Input (&blockInputs)[Model::MAX_VEHICLES],
                                                     std::uint32_t lane, std::uint32_t n) {
        static_assert(sizeof(blockInputs[0]) % sizeof(std::uint32_t) == 0, "inputs are copied as 32-bit words");
        constexpr std::uint32_t WORDS = sizeof(blockInputs[0]) / sizeof(std::uint32_t);
        const auto* from = reinterpret_cast<const std::uint32_t*>(inputs + n);
        auto* to = reinterpret_cast<std::uint32_t*>(blockInputs + n);
        for (std::uint32_t i = lane; i < WORDS; i += WARP) {
            to[i] = from[i];
        }
        __syncwarp();
    }

    /// ADVANCE: vehicle n's slot of particle k read (through ρ when pending) with the previous
    /// intention of the vehicle it yields to, advanced in registers, written to the other buffer, and
    /// its log term to terms[lane][n].
    static __device__ __forceinline__ void advanceVehicle(const Shape& s, const Params& params, const Source& src,
                                                          const Input& z, bool weighs,
                                                          const Measurement (&measured)[Model::MAX_VEHICLES],
                                                          float (&terms)[WARP][TERM_ROW], std::uint32_t k,
                                                          std::uint32_t lane, std::uint32_t n, std::uint32_t vehicles,
                                                          float (&slot)[SLOT]) {
        const ParticleRef in = sourceRef<LAYOUT>(s, src, k);
        loadUsed<Model>(in, n, slot);
        const std::int32_t other = Model::yieldsTo(slot, z, vehicles);
        const float otherIntent =
            other >= 0 ? in.get(static_cast<std::uint32_t>(other) * SLOT + Model::INTENT_STOP) : 0.0F;
        BasicRandomStream<tuning::VEHICLE_KERNEL_MULTIPLY> rng(s.seed, src.step, k, n);
        Model::advanceSlot(slot, otherIntent, vehicles, params, z, rng);
        storeUsed<Model>(particleRef<LAYOUT>(s, src.buffer ^ 1U, k), n, slot);
        terms[lane][n] = weighs ? Model::slotLogLikelihood(slot, measured[n]) : 0.0F;
    }

    /// Warp 0, ADVANCE: particle k's log-likelihood, the sum of its row of terms, into its log-weight
    /// (and fitness), stored. Returns the log-weight.
    static __device__ __forceinline__ float weighParticle(const Shape& s, const Source& src,
                                                          const float (&termRow)[TERM_ROW], std::uint32_t termVectors,
                                                          float previous, std::uint32_t k) {
        // In vehicle order, as the CPU's sum (+ 0 for the vehicles that do not weigh).
        float logLikelihood = 0.0F;
        const auto* row = reinterpret_cast<const float4*>(termRow);
        for (std::uint32_t q = 0; q < termVectors; ++q) {
            const float4 t = row[q];
            logLikelihood += t.x;
            logLikelihood += t.y;
            logLikelihood += t.z;
            logLikelihood += t.w;
        }
        // As detail::updateParticle.
        const float logWeight = previous - src.previousMax + logLikelihood;
        s.logWeights[k] = logWeight;
        if (s.fitness != nullptr) {
            s.fitness[k] = logLikelihood;
        }
        return logWeight;
    }

    /// ADVANCE, after the group's terms are written: the group weighed between two barriers. Warp 0
    /// alone sums the terms into the log-weights, keeps the running max and hands the weights e and
    /// the rescaling factor to the other warps through shared memory; every warp leaves them in `e`
    /// and `factor`.
    static __device__ __forceinline__ void weighGroup(const Shape& s, const Source& src,
                                                      const float (&terms)[WARP][TERM_ROW], double (&weights)[WARP],
                                                      double& rescale, Sums& sums, std::uint32_t termVectors,
                                                      float previous, bool valid, std::uint32_t k, std::uint32_t lane,
                                                      std::uint32_t n, double& factor, double& e) {
        __syncthreads();
        if (n == 0) {
            float logWeight = -INFINITY;
            if (valid) {
                logWeight = weighParticle(s, src, terms[lane], termVectors, previous, k);
            }
            factor = rebase(sums.runningMax, warpMaxReduced(logWeight));
            e = valid ? detail::weightTerm(logWeight, sums.runningMax) : 0.0;
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
    }

    /// The reduce stage: vehicle n's slot of particle k read (through ρ when pending); every warp
    /// weighs the group from the stored log-weights (`previous`) itself, into `e` and `factor`.
    static __device__ __forceinline__ void readGroup(const Shape& s, const Source& src, Sums& sums, float previous,
                                                     bool valid, std::uint32_t k, std::uint32_t n, float (&slot)[SLOT],
                                                     double& factor, double& e) {
        float logWeight = -INFINITY;
        if (valid) {
            const ParticleRef in = sourceRef<LAYOUT>(s, src, k);
            loadUsed<Model>(in, n, slot);
            logWeight = previous;
        }
        factor = rebase(sums.runningMax, warpMaxReduced(logWeight));
        e = valid ? detail::weightTerm(logWeight, sums.runningMax) : 0.0;
    }

    /// The groups of the block's share, [share.first, share.end): per group, the thread's slot advanced
    /// (ADVANCE) or read and the group weighed; then warp 0's lanes add e and e² to their Σe and Σe²,
    /// and every warp e·output of its own vehicle to its channel (reduce-scatter: lane 2c holds output
    /// c). Returns the thread's sums. These additions stay in the loop, and e is declared before
    /// factor: as a step of their own, or in the other order, they change the compiled kernel (the
    /// FMA contraction of Σe², the registers' assignment).
    static __device__ __forceinline__ Sums consumeShare(
        const Shape& s, [[maybe_unused]] const Params& params, const Source& src, const Share& share,
        [[maybe_unused]] const Input& z, [[maybe_unused]] bool weighs,
        [[maybe_unused]] const Measurement (&measured)[Model::MAX_VEHICLES],
        [[maybe_unused]] float (&terms)[WARP][TERM_ROW], [[maybe_unused]] double (&weights)[WARP],
        [[maybe_unused]] double& rescale, [[maybe_unused]] std::uint32_t termVectors, std::uint32_t lane,
        std::uint32_t n, [[maybe_unused]] std::uint32_t vehicles) {
        Sums sums{-INFINITY, 0.0, 0.0, 0.0};
        for (std::uint32_t g = share.first; g < share.end; ++g) {
            const std::uint32_t k = g * WARP + lane;
            const bool valid = k < s.particles;
            float slot[SLOT];
            // The stored log-weight: warp 0 updates it (ADVANCE), every warp reads it (the reduce stage).
            const float previous = valid && !src.pending && (n == 0 || !ADVANCE) ? s.logWeights[k] : 0.0F;
            double e = 0.0;
            double factor = 1.0;
            if constexpr (ADVANCE) {
                if (valid) {
                    advanceVehicle(s, params, src, z, weighs, measured, terms, k, lane, n, vehicles, slot);
                }
                weighGroup(s, src, terms, weights, rescale, sums, termVectors, previous, valid, k, lane, n, factor, e);
            } else {
                readGroup(s, src, sums, previous, valid, k, n, slot, factor, e);
            }
            if (n == 0) {
                sums.sumE = sums.sumE * factor + e;
                sums.sumE2 = sums.sumE2 * factor * factor + e * e;
            }
            const auto ef = static_cast<float>(e);
            float v[SCATTER];
#pragma unroll
            for (std::uint32_t c = 0; c < SCATTER; ++c) {
                v[c] = valid && c < OUTPUTS ? ef * Model::output(slot, c) : 0.0F;
            }
            sums.channel = sums.channel * factor + static_cast<double>(reduceScatter<OUTPUTS>(v, lane));
        }
        return sums;
    }

    /// Partial b of `out`: the warps' channels, and warp 0's Σe, Σe² (summed over the warp) and running max.
    static __device__ __forceinline__ void writePartial(const Partials& out, const Sums& sums, std::uint32_t b,
                                                        std::uint32_t lane, std::uint32_t n) {
        if (lane % 2 == 0 && scatterChannel(lane) < OUTPUTS) {
            out.sums[(2 + static_cast<std::size_t>(n) * OUTPUTS + scatterChannel(lane)) * out.blocks + b] =
                sums.channel;
        }
        if (n == 0) {
            const double sumE = warpAllSum(sums.sumE);
            const double sumE2 = warpAllSum(sums.sumE2);
            if (lane == 0) {
                out.sums[b] = sumE;
                out.sums[out.blocks + b] = sumE2;
                out.maxima[b] = sums.runningMax;
            }
        }
    }
};

template <typename Model, bool ADVANCE, StateLayout LAYOUT>
__device__ __forceinline__ void VehicleAgent<Model, ADVANCE, LAYOUT>::consumeGroups(
    const Shape& s, const Params& params, const Input* inputs, const FilterControl* control, const Partials& out,
    std::uint32_t groups, bool afterUpload) {
    __shared__ union {
        __align__(16) float terms[WARP][TERM_ROW];
        std::uint64_t window[WINDOW];
    } shared;
    [[maybe_unused]] auto& terms = shared.terms;
    [[maybe_unused]] __shared__ Measurement measured[Model::MAX_VEHICLES];
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
    __shared__ Input blockInputs[Model::MAX_VEHICLES];
    copyInput(inputs, blockInputs, lane, n);
    const Input& z = blockInputs[n];
    const bool weighs = Model::weighs(z);
    if constexpr (ADVANCE) {
        if (lane == 0) {
            measured[n] = Model::measurementOf(z);
        }
        __syncthreads();
    }
    const std::uint32_t termVectors = (vehicles + 3) / 4;
    const Sums sums =
        consumeShare(s, params, src, share, z, weighs, measured, terms, weights, rescale, termVectors, lane, n, vehicles);
    writePartial(out, sums, b, lane, n);
}

}  // namespace augur::kernels::pf::cuda::agent
