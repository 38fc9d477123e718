// The agent of the per-particle advance (and reduce) kernel: one thread per particle, looping over
// the vehicles. Private to kernels/pf (filter_cuda.cu).
#pragma once

#include <cmath>
#include <cstdint>

#include "common.cuh"

namespace augur::kernels::pf::cuda::agent {

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
/// Shared storage: the lanes' channel sums (or, before them, the copy-index window), the warps'
/// maxima and sums, the copy bounds and the vehicles' measurements, declared in consumeChunks.
template <typename Model, bool ADVANCE, std::uint32_t VEHICLES, StateLayout LAYOUT>
struct ParticleAgent {
    using Params = typename Model::Params;
    using Input = typename Model::VehicleInput;
    using Measurement = typename MeasurementOf<Model>::type;

    static constexpr int SLOT = Model::SLOT_FLOATS;
    static constexpr auto OUTPUTS = static_cast<std::uint32_t>(Model::OUTPUTS_PER_VEHICLE);
    static constexpr std::uint32_t MAX_CHANNELS = 2 + VEHICLES * OUTPUTS;
    static_assert(OUTPUTS <= SCATTER, "a vehicle's outputs must fit one reduce-scatter");
    static constexpr std::uint32_t vehicles = VEHICLES;  // == s.vehicles (the launch picks the instantiation)
    static constexpr std::uint32_t ROW = (OUTPUTS + 3) / 4 * 4;
    // One vehicle: each thread loads its next particle's slot (through ρ) one iteration ahead, so
    // that the gather overlaps the step of the particle before it (the K = 10⁶ step measured 2.2–3.3 µs
    // faster: H200, augur-bench-pf --only floor). The other per-particle instantiations keep their
    // registers for their vehicles' slots. The copy index of that slot is loaded one iteration
    // earlier still, so that the slot's loads need not wait for it (otherwise that wait holds 7 % of
    // the kernel's stall samples at K = 10⁶, and the step measured about 0.9 µs slower).
    static constexpr bool AHEAD = ADVANCE && VEHICLES == 1 && detail::vehicleParallel<Model>();

    // The lanes' channel sums live in shared memory, which keeps the one-vehicle kernel inside its
    // register budget: with several vehicles each sum a column (a lane's own word: no bank
    // conflicts), with one vehicle each lane a row padded to 16 bytes, which the loop reads and
    // writes in 16-byte pieces (48-byte rows: a quarter warp's pieces fall in distinct banks; the
    // K = 10⁶ step measured 0.36–0.37 µs faster than with columns: H200, augur-bench-pf --only
    // floor). Before them, the same memory holds the window of the copy-index drawing (16-byte
    // aligned: markedSources reads it in 16 bytes).
    union alignas(16) ChannelStorage {
        std::uint64_t window[tuning::COPY_INDEX_WINDOW];
        float channelSums[VEHICLES * OUTPUTS][tuning::PARTICLE_BLOCK];
        float channelRows[tuning::PARTICLE_BLOCK][ROW];
    };

    // Per thread: the max of its own particles' log-weights and its sums relative to a reference
    // (REBASE_MARGIN); the warp combines its lanes once, after the loop (a lane's particles in chunk
    // order, then a fixed shuffle tree), so a particle costs a compare and a few adds, not a warp
    // reduction.
    struct LaneSums {
        float laneMax;
        float reference;
        double sumE;
        double sumE2;
    };

    /// Block blockIdx.x of a one-wave grid of PARTICLE_BLOCK threads: its share of `chunks`, then
    /// partial blockIdx.x of `out`.
    static __device__ __forceinline__ void consumeChunks(const Shape& s, const Params& params, const Input* inputs,
                                                         const FilterControl* control, const Partials& out,
                                                         std::uint32_t chunks, bool afterUpload);

    /// The thread's channel sum c of vehicle n.
    static __device__ __forceinline__ float& channel(ChannelStorage& shared, std::uint32_t n, std::uint32_t c) {
        if constexpr (VEHICLES == 1) {
            return shared.channelRows[threadIdx.x][c];
        } else {
            return shared.channelSums[n * OUTPUTS + c][threadIdx.x];
        }
    }

    /// The thread's channel sums set to zero.
    static __device__ __forceinline__ void zeroChannels(ChannelStorage& shared) {
#pragma unroll
        for (std::uint32_t n = 0; n < VEHICLES; ++n) {
#pragma unroll
            for (std::uint32_t c = 0; c < OUTPUTS; ++c) {
                channel(shared, n, c) = 0.0F;
            }
        }
    }

    /// Vehicle-parallel models' advance: the vehicles' measurements (measurementOf(z_n)) to shared
    /// memory and which of them weigh the particles, then a barrier.
    static __device__ __forceinline__ void loadMeasurements(const Input* inputs, Measurement (&measured)[VEHICLES],
                                                            bool (&weighs)[VEHICLES]) {
        if (threadIdx.x < VEHICLES) {
            measured[threadIdx.x] = Model::measurementOf(inputs[threadIdx.x]);
        }
#pragma unroll
        for (std::uint32_t n = 0; n < VEHICLES; ++n) {
            weighs[n] = n < vehicles && Model::weighs(inputs[n]);
        }
        __syncthreads();
    }

    /// The source of the thread's particle in `chunk` (0 past the block's share).
    static __device__ __forceinline__ std::uint32_t chunkSource(const Shape& s, const Source& src, const Share& share,
                                                                std::uint32_t chunk) {
        const std::uint32_t k = chunk * tuning::PARTICLE_BLOCK + threadIdx.x;
        return chunk < share.end && k < s.particles ? sourceIndex(s, src, k) : 0U;
    }

    /// AHEAD, before the loop: the slot of the thread's first particle (`ahead`) and the source of its
    /// second (`aheadSource`).
    static __device__ __forceinline__ void loadFirstAhead(const Shape& s, const Source& src, const Share& share,
                                                          float (&ahead)[SLOT], std::uint32_t& aheadSource) {
        const std::uint32_t k = share.first * tuning::PARTICLE_BLOCK + threadIdx.x;
        if (share.first < share.end && k < s.particles) {
            loadUsed<Model, AHEAD>(sourceRef<LAYOUT>(s, src, k), 0, ahead);
        }
        aheadSource = chunkSource(s, src, share, share.first + 1);
    }

    /// Vehicle-parallel models: the vehicles' slots of particle k in chunk c, each advanced and
    /// stored to `view`; the last vehicle's is left in `slot` (AHEAD: taken from `ahead`, which then
    /// loads the next particle's). Returns the particle's log-likelihood.
    static __device__ __forceinline__ float advanceSlots(const Shape& s, const Params& params, const Input* inputs,
                                                         const Source& src, const Share& share,
                                                         const Measurement (&measured)[VEHICLES],
                                                         const bool (&weighs)[VEHICLES], float (&ahead)[SLOT],
                                                         std::uint32_t& aheadSource, std::uint32_t c, std::uint32_t k,
                                                         const ParticleRef& view, const ParticleRef& in,
                                                         float (&slot)[SLOT]) {
        float logLikelihood = 0.0F;
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
                    if (c + 1 < share.end && next < s.particles) {
                        loadUsed<Model, AHEAD>(particleRef<LAYOUT>(s, src.buffer, aheadSource), 0, ahead);
                    }
                    aheadSource = chunkSource(s, src, share, c + 2);
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
        return logLikelihood;
    }

    /// ADVANCE: particle k in chunk c predicted and weighed (read from `in`, written to `view`), its
    /// log-weight (and fitness) stored; the last vehicle's slot is left in `slot`. Returns the log-weight.
    static __device__ __forceinline__ float advanceParticle(
        const Shape& s, const Params& params, const Input* inputs, const Source& src, [[maybe_unused]] const Share& share,
        [[maybe_unused]] const Measurement (&measured)[VEHICLES], [[maybe_unused]] const bool (&weighs)[VEHICLES],
        [[maybe_unused]] float (&ahead)[SLOT], [[maybe_unused]] std::uint32_t& aheadSource,
        [[maybe_unused]] std::uint32_t c, std::uint32_t k, const ParticleRef& view, const ParticleRef& in,
        float (&slot)[SLOT]) {
        float logLikelihood = 0.0F;
        if constexpr (detail::vehicleParallel<Model>()) {
            logLikelihood =
                advanceSlots(s, params, inputs, src, share, measured, weighs, ahead, aheadSource, c, k, view, in, slot);
        } else {
            for (std::uint32_t f = 0; f < s.stride; ++f) {
                view.set(f, in.get(f));  // the pending gather, then the model's in-place step
            }
            Model::predict(view, vehicles, params, inputs, s.seed, src.step);
            logLikelihood = Model::logLikelihood(view, vehicles, params, inputs);
            view.loadSlot(vehicles - 1, slot);
        }
        // As detail::updateParticle.
        const float logWeight = (src.pending ? 0.0F : s.logWeights[k]) - src.previousMax + logLikelihood;
        s.logWeights[k] = logWeight;
        if (s.fitness != nullptr) {
            s.fitness[k] = logLikelihood;
        }
        return logWeight;
    }

    /// The reduce stage: particle k's last slot into `slot`; returns its stored log-weight.
    static __device__ __forceinline__ float readParticle(const Shape& s, const Source& src, std::uint32_t k,
                                                         const ParticleRef& in, float (&slot)[SLOT]) {
        in.loadSlot(vehicles - 1, slot);
        return src.pending ? 0.0F : s.logWeights[k];
    }

    /// The lane's sums rebased on a particle's log-weight far above their reference.
    static __device__ __forceinline__ void rebaseLane(LaneSums& sums, ChannelStorage& shared, float logWeight) {
        const double factor = detail::weightTerm(sums.reference, logWeight);
        sums.reference = logWeight;
        sums.sumE *= factor;
        sums.sumE2 *= factor * factor;
        const auto f = static_cast<float>(factor);
#pragma unroll
        for (std::uint32_t n = 0; n < VEHICLES; ++n) {
#pragma unroll
            for (std::uint32_t ch = 0; ch < OUTPUTS; ++ch) {
                channel(shared, n, ch) *= f;
            }
        }
    }

    /// Several vehicles: e·output of each added to the lane's channel sums (`slot`: the last vehicle's;
    /// the others' read again from `view`, or from `in` in the reduce stage).
    static __device__ __forceinline__ void addVehicleOutputs(ChannelStorage& shared, float ef,
                                                             const float (&slot)[SLOT], const ParticleRef& view,
                                                             const ParticleRef& in) {
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
                    channel(shared, n, ch) += ef * Model::output(o, ch);
                }
            }
        }
    }

    /// The thread's particles of the block's share, in chunk order: each advanced (ADVANCE) or read,
    /// and added to the lane's max and sums, which it returns. The sums are this function's own and
    /// the one-vehicle outputs are added here, not in a step: otherwise the compiler assigns the
    /// loop's registers differently, and the one-vehicle kernel's machine code changes.
    static __device__ __forceinline__ LaneSums consumeParticles(const Shape& s, const Params& params,
                                                                const Input* inputs, const Source& src,
                                                                const Share& share,
                                                                const Measurement (&measured)[VEHICLES],
                                                                const bool (&weighs)[VEHICLES],
                                                                ChannelStorage& shared) {
        LaneSums sums{-INFINITY, -INFINITY, 0.0, 0.0};
        [[maybe_unused]] float ahead[SLOT];
        [[maybe_unused]] std::uint32_t aheadSource = 0;  // where the particle after the loaded one reads from
        if constexpr (AHEAD) {
            loadFirstAhead(s, src, share, ahead, aheadSource);
        }
        for (std::uint32_t c = share.first; c < share.end; ++c) {
            const std::uint32_t k = c * tuning::PARTICLE_BLOCK + threadIdx.x;
            if (k >= s.particles) {
                break;  // the last chunk's tail: this thread has no more particles
            }
            float slot[SLOT];  // the last vehicle's slot after this particle's step
            const ParticleRef view = particleRef<LAYOUT>(s, ADVANCE ? src.buffer ^ 1U : src.buffer, k);
            const ParticleRef in = sourceRef<LAYOUT>(s, src, k);
            float logWeight;
            if constexpr (ADVANCE) {
                logWeight = advanceParticle(s, params, inputs, src, share, measured, weighs, ahead, aheadSource, c, k,
                                            view, in, slot);
            } else {
                logWeight = readParticle(s, src, k, in, slot);
            }
            sums.laneMax = detail::maxLog(sums.laneMax, logWeight);
            if (logWeight > sums.reference + REBASE_MARGIN) {  // the lane's first particle, then rarely
                rebaseLane(sums, shared, logWeight);
            }
            const double e = detail::weightTerm(logWeight, sums.reference);
            sums.sumE += e;
            sums.sumE2 += e * e;
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
                addVehicleOutputs(shared, ef, slot, view, in);
            }
        }
        return sums;
    }

    /// The lane's Σe and Σe² rescaled from its reference to the warp's max `runningMax` and summed
    /// over the warp; returns the lane's factor.
    static __device__ __forceinline__ double reduceLaneSums(LaneSums& sums, float runningMax) {
        const double laneScale = detail::weightTerm(sums.reference, runningMax);
        sums.sumE = warpAllSum(sums.sumE * laneScale);
        sums.sumE2 = warpAllSum(sums.sumE2 * laneScale * laneScale);
        return laneScale;
    }

    /// The block: warps in order, each rescaled to the block's max; writes partial blockIdx.x of `out`.
    static __device__ __forceinline__ void reduceBlock(float (&warpMaxima)[PARTICLE_WARPS],
                                                       double (&warpSums)[PARTICLE_WARPS][MAX_CHANNELS],
                                                       ChannelStorage& shared, const LaneSums& sums, float runningMax,
                                                       std::uint32_t lane, std::uint32_t warp, const Partials& out) {
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
            warpSums[warp][0] = sums.sumE * scale;
            warpSums[warp][1] = sums.sumE2 * scale * scale;
        }
#pragma unroll
        for (std::uint32_t n = 0; n < VEHICLES; ++n) {
            if (n < vehicles && lane % 2 == 0 && scatterChannel(lane) < OUTPUTS) {
                warpSums[warp][2 + n * OUTPUTS + scatterChannel(lane)] =
                    static_cast<double>(channel(shared, n, 0)) * scale;
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
};

template <typename Model, bool ADVANCE, std::uint32_t VEHICLES, StateLayout LAYOUT>
__device__ __forceinline__ void ParticleAgent<Model, ADVANCE, VEHICLES, LAYOUT>::consumeChunks(
    const Shape& s, const Params& params, const Input* inputs, const FilterControl* control, const Partials& out,
    std::uint32_t chunks, bool afterUpload) {
    __shared__ float warpMaxima[PARTICLE_WARPS];
    __shared__ double warpSums[PARTICLE_WARPS][MAX_CHANNELS];
    const std::uint32_t lane = threadIdx.x % WARP;
    const std::uint32_t warp = threadIdx.x / WARP;
    const Share share = shareOf(blockIdx.x, gridDim.x, chunks);
    const std::uint32_t firstChunk = share.first;
    const std::uint32_t endChunk = share.end;
    if (!afterUpload) {
        primitives::waitForPrerequisiteGrid();  // may start early: no global access before this
    }
    const std::uint64_t cdfTotal = lastCdfValue(s);
    const Source src = sourceOf(control);
    __shared__ ChannelStorage shared;
    __shared__ std::uint32_t copyBounds[PARTICLE_WARPS];
    if (src.pending) {
        drawCopyIndices<tuning::COPY_INDEX_ITEMS>(s.resampling.cdf, cdfTotal, s.particles, src.uniform,
                                                  firstChunk * tuning::PARTICLE_BLOCK,
                                                  min(endChunk * tuning::PARTICLE_BLOCK, s.particles),
                                                  s.resampling.copyIndex, shared.window, tuning::COPY_INDEX_WINDOW,
                                                  copyBounds, threadIdx.x, blockDim.x);
    }
    primitives::waitForPrerequisiteGrid();  // before the inputs, the weights and the state

    zeroChannels(shared);
    [[maybe_unused]] __shared__ Measurement measured[VEHICLES];  // vehicle-parallel models: measurementOf(z_n)
    // Which vehicles' measurements weigh the particles: loop-invariant, read once. Read in the loop,
    // it was loaded again after every store to the state, which might alias it for all the compiler
    // knows: the K = 10⁶ step measured 0.38–0.58 µs slower (H200, augur-bench-pf --only floor).
    [[maybe_unused]] bool weighs[VEHICLES] = {};
    if constexpr (ADVANCE && detail::vehicleParallel<Model>()) {  // the reduce stage weighs nothing
        loadMeasurements(inputs, measured, weighs);
    }
    LaneSums sums = consumeParticles(s, params, inputs, src, share, measured, weighs, shared);
    // The warp: every lane's sums rescaled from its reference to the warp's max (≤ 1: a lane's
    // reference is never above its max), summed by a fixed shuffle tree. (The channels' shuffles
    // stay here: in a step of their own they change the one-vehicle kernel's machine code.)
    const float runningMax = warpMax(sums.laneMax);
    const auto f = static_cast<float>(reduceLaneSums(sums, runningMax));
#pragma unroll
    for (std::uint32_t n = 0; n < VEHICLES; ++n) {
        float v[SCATTER];
#pragma unroll
        for (std::uint32_t ch = 0; ch < SCATTER; ++ch) {
            v[ch] = ch < OUTPUTS ? channel(shared, n, ch) * f : 0.0F;
        }
        channel(shared, n, 0) = reduceScatter<OUTPUTS>(v, lane);  // lanes 2c, 2c + 1: channel c's warp total
    }
    reduceBlock(warpMaxima, warpSums, shared, sums, runningMax, lane, warp, out);
}

}  // namespace augur::kernels::pf::cuda::agent
