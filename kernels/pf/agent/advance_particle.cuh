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

    /// Block blockIdx.x of a one-wave grid of PARTICLE_BLOCK threads: its share of `chunks`, then
    /// partial blockIdx.x of `out`.
    static __device__ __forceinline__ void consumeChunks(const Shape& s, const Params& params, const Input* inputs,
                                                         const FilterControl* control, const Partials& out,
                                                         std::uint32_t chunks, bool afterUpload);
};

template <typename Model, bool ADVANCE, std::uint32_t VEHICLES, StateLayout LAYOUT>
__device__ __forceinline__ void ParticleAgent<Model, ADVANCE, VEHICLES, LAYOUT>::consumeChunks(
    const Shape& s, const Params& params, const Input* inputs, const FilterControl* control, const Partials& out,
    std::uint32_t chunks, bool afterUpload) {
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

}  // namespace augur::kernels::pf::cuda::agent
