// CUDA particle filter. Layers: ParticleFilter methods (host API, stream last) → launch shapes from
// tuning.hpp → thin __global__ entries → the per-particle device functions of engine_detail.hpp and
// the model. Decisions (resample or not, DE generations) are read from the device control block by
// the kernels themselves, so a step never waits for the host and can be captured into a graph.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "augur/kernels/pf/filter.hpp"
#include "engine_detail.hpp"
#include "resample_cuda.hpp"
#include "tuning.hpp"

namespace augur::kernels::pf::cuda {
namespace {

using platform::GpuStatus;
using platform::StreamHandle;

constexpr std::uint32_t WARP = 32;
constexpr std::uint32_t REDUCE_WARPS = tuning::REDUCE_BLOCK / WARP;
/// Σw, Σw² and the model outputs of up to MAX_VEHICLES scene vehicles.
constexpr std::uint32_t MAX_CHANNELS = 2 + SceneModel::MAX_VEHICLES * SceneModel::OUTPUTS_PER_VEHICLE;
/// Partial blocks whose scales the final combine caches in shared memory: those of the largest filter
/// with one particle per thread (the vehicle-parallel step's larger counts compute them inline).
constexpr std::uint32_t MAX_PARTIAL_BLOCKS = (MAX_PARTICLES + tuning::REDUCE_BLOCK - 1) / tuning::REDUCE_BLOCK;

struct Shape {
    float* states[2];
    float* logWeights;
    float* fitness;
    std::uint32_t particles;
    std::uint32_t vehicles;
    std::uint32_t stride;
    StateLayout layout;
    std::uint64_t seed;
};

__device__ __forceinline__ ParticleRef particleRef(const Shape& s, std::uint32_t buffer, std::uint32_t k) {
    return ParticleRef{s.states[buffer], k, s.particles, s.stride, s.layout};
}

__device__ __forceinline__ double warpSum(double v) {
#pragma unroll
    for (std::uint32_t offset = WARP / 2; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xFFFFFFFFU, v, offset);
    }
    return v;
}

__device__ __forceinline__ float warpMax(float v) {
#pragma unroll
    for (std::uint32_t offset = WARP / 2; offset > 0; offset /= 2) {
        v = detail::maxLog(v, __shfl_xor_sync(0xFFFFFFFFU, v, offset));
    }
    return v;
}

template <typename Model>
__global__ void initializeKernel(Shape s, typename Model::Params params, const typename Model::VehicleInput* inputs) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < s.particles) {
        Model::initialize(particleRef(s, 0, k), s.vehicles, params, inputs, s.seed);
        s.logWeights[k] = 0.0F;
    }
}

template <typename Model, bool PREDICT, bool UPDATE>
__global__ void predictUpdateKernel(Shape s, typename Model::Params params, const typename Model::VehicleInput* inputs,
                                    const FilterControl* control) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= s.particles) {
        return;
    }
    const std::uint32_t buffer = control->current ^ control->swap;
    const ParticleRef p = particleRef(s, buffer, k);
    if constexpr (PREDICT) {
        Model::predict(p, s.vehicles, params, inputs, s.seed, control->step);
    }
    if constexpr (UPDATE) {
        detail::updateParticle<Model>(p, s.vehicles, params, inputs, control->maxLogWeight, s.logWeights, s.fitness);
    }
}

/// The block reduction of one step, one particle per thread (invalid threads contribute nothing):
/// the block's max log-weight, then Σe, Σe² and Σe·output for every channel with
/// e = exp(log w − block max). Fixed assignment of particles to blocks and threads, fixed summation
/// tree (warp shuffles, then warps in order): the same result run after run. Every thread of the
/// block must call it (it synchronises).
template <typename Model>
__device__ __forceinline__ void blockPartials(const Shape& s, std::uint32_t buffer, std::uint32_t k, bool valid,
                                              float logWeight, double* partials, float* partialMax) {
    constexpr auto OUTPUTS = static_cast<std::uint32_t>(Model::OUTPUTS_PER_VEHICLE);
    __shared__ double warpSums[REDUCE_WARPS][MAX_CHANNELS];
    __shared__ float warpMaxima[REDUCE_WARPS];
    const std::uint32_t channels = 2 + s.vehicles * OUTPUTS;
    const std::uint32_t warp = threadIdx.x / WARP;
    const std::uint32_t lane = threadIdx.x % WARP;

    const float localMax = warpMax(valid ? logWeight : -INFINITY);
    if (lane == 0) {
        warpMaxima[warp] = localMax;
    }
    __syncthreads();
    float blockMax = warpMaxima[0];
    for (std::uint32_t w = 1; w < REDUCE_WARPS; ++w) {
        blockMax = detail::maxLog(blockMax, warpMaxima[w]);
    }

    const double e = valid ? detail::weightTerm(logWeight, blockMax) : 0.0;
    const double sum = warpSum(e);
    const double sumSquares = warpSum(e * e);
    if (lane == 0) {
        warpSums[warp][0] = sum;
        warpSums[warp][1] = sumSquares;
    }
    const ParticleRef p = particleRef(s, buffer, k);
    for (std::uint32_t n = 0; n < s.vehicles; ++n) {
        double acc[OUTPUTS];
#pragma unroll
        for (std::uint32_t c = 0; c < OUTPUTS; ++c) {
            acc[c] = 0.0;
        }
        if (valid) {
            float slot[Model::SLOT_FLOATS];
            p.loadSlot(n, slot);
#pragma unroll
            for (std::uint32_t c = 0; c < OUTPUTS; ++c) {
                acc[c] = e * static_cast<double>(Model::output(slot, c));
            }
        }
#pragma unroll
        for (std::uint32_t c = 0; c < OUTPUTS; ++c) {
            const double v = warpSum(acc[c]);
            if (lane == 0) {
                warpSums[warp][2 + n * OUTPUTS + c] = v;
            }
        }
    }
    __syncthreads();
    for (std::uint32_t c = threadIdx.x; c < channels; c += blockDim.x) {
        double total = 0.0;
        for (std::uint32_t w = 0; w < REDUCE_WARPS; ++w) {
            total += warpSums[w][c];
        }
        partials[static_cast<std::size_t>(blockIdx.x) * channels + c] = total;
    }
    if (threadIdx.x == 0) {
        partialMax[blockIdx.x] = blockMax;
    }
}

/// The reduce stage alone: block partials of the current log-weights.
template <typename Model>
__global__ void __launch_bounds__(tuning::REDUCE_BLOCK)
    reducePartialsKernel(Shape s, const FilterControl* control, double* partials, float* partialMax) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    const bool valid = k < s.particles;
    const std::uint32_t buffer = control->current ^ control->swap;
    blockPartials<Model>(s, buffer, k, valid, valid ? s.logWeights[k] : -INFINITY, partials, partialMax);
}

/// The step's fused kernel: predict, update and the block reduction of particle k, with the new
/// particle and its log-weight still in the thread (one launch and one pass over the states instead
/// of three).
template <typename Model>
__global__ void __launch_bounds__(tuning::REDUCE_BLOCK)
    predictUpdateReduceKernel(Shape s, typename Model::Params params, const typename Model::VehicleInput* inputs,
                              const FilterControl* control, double* partials, float* partialMax) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    const bool valid = k < s.particles;
    const std::uint32_t buffer = control->current ^ control->swap;
    float logWeight = -INFINITY;
    if (valid) {
        const ParticleRef p = particleRef(s, buffer, k);
        Model::predict(p, s.vehicles, params, inputs, s.seed, control->step);
        detail::updateParticle<Model>(p, s.vehicles, params, inputs, control->maxLogWeight, s.logWeights, s.fitness);
        logWeight = s.logWeights[k];
    }
    blockPartials<Model>(s, buffer, k, valid, logWeight, partials, partialMax);
}

/// The step's fused kernel for models that advance vehicles independently (Model::VEHICLE_PARALLEL):
/// one thread per (particle, vehicle). Block = 32 particles × `vehicles` warps, warp n = vehicle n of
/// 32 consecutive particles (coalesced in the structure-of-arrays layout). Pass 1 of every vehicle,
/// a block barrier (pass 1 reads other vehicles' previous intentions), pass 2, the per-vehicle log
/// terms summed in vehicle order by warp 0 (the same sum as Model::logLikelihood), then the block
/// partials: warp 0 Σe, Σe², warp n the outputs of vehicle n. K·vehicles threads instead of K: at the
/// seed's scale (20,000 × 20) the per-particle kernel has only ~5 warps per SM of long serial work.
template <typename Model>
__global__ void __launch_bounds__(WARP* SceneModel::MAX_VEHICLES)
    vehicleParallelStepKernel(Shape s, typename Model::Params params, const typename Model::VehicleInput* inputs,
                              const FilterControl* control, double* partials, float* partialMax) {
    constexpr auto OUTPUTS = static_cast<std::uint32_t>(Model::OUTPUTS_PER_VEHICLE);
    __shared__ float terms[Model::MAX_VEHICLES][WARP];
    __shared__ double weights[WARP];
    const std::uint32_t lane = threadIdx.x;
    const std::uint32_t n = threadIdx.y;
    const std::uint32_t k = blockIdx.x * WARP + lane;
    const bool valid = k < s.particles;
    const std::uint32_t channels = 2 + s.vehicles * OUTPUTS;
    const std::uint32_t buffer = control->current ^ control->swap;
    const std::uint32_t step = control->step;
    const ParticleRef p = particleRef(s, buffer, valid ? k : 0);
    if (valid) {
        Model::predictExpectation(p, n, s.vehicles, params, inputs, s.seed, step);
    }
    __syncthreads();
    if (valid) {
        Model::predictVehicle(p, n, params, inputs, s.seed, step);
        terms[n][lane] = Model::logLikelihoodTerm(p, n, inputs);
    }
    __syncthreads();
    if (n == 0) {
        float logWeight = -INFINITY;
        if (valid) {
            float logLikelihood = 0.0F;
            for (std::uint32_t v = 0; v < s.vehicles; ++v) {
                if (Model::weighs(inputs[v])) {
                    logLikelihood += terms[v][lane];
                }
            }
            // As detail::updateParticle.
            logWeight = s.logWeights[k] - control->maxLogWeight + logLikelihood;
            s.logWeights[k] = logWeight;
            if (s.fitness != nullptr) {
                s.fitness[k] = logLikelihood;
            }
        }
        const float blockMax = warpMax(logWeight);
        const double e = valid ? detail::weightTerm(logWeight, blockMax) : 0.0;
        weights[lane] = e;
        const double sum = warpSum(e);
        const double sumSquares = warpSum(e * e);
        if (lane == 0) {
            partials[static_cast<std::size_t>(blockIdx.x) * channels] = sum;
            partials[static_cast<std::size_t>(blockIdx.x) * channels + 1] = sumSquares;
            partialMax[blockIdx.x] = blockMax;
        }
    }
    __syncthreads();
    const double e = weights[lane];
    float slot[Model::SLOT_FLOATS];
    if (valid) {
        p.loadSlot(n, slot);
    }
#pragma unroll
    for (std::uint32_t c = 0; c < OUTPUTS; ++c) {
        const double v = warpSum(valid ? e * static_cast<double>(Model::output(slot, c)) : 0.0);
        if (lane == 0) {
            partials[static_cast<std::size_t>(blockIdx.x) * channels + 2 + n * OUTPUTS + c] = v;
        }
    }
}

/// One block: combines the block partials (rescaled to the global max) in parallel — the global max
/// by a fixed tree, each block's scale once into shared memory, then warp w combines channels
/// w, w + 32, … (lane l sums blocks l, l + 32, … in order, then a fixed shuffle tree) — and writes the
/// normalised outputs and the control block: N_eff, the resample decision, u, buffer commit, step.
__global__ void __launch_bounds__(tuning::REDUCE_FINAL_BLOCK)
    reduceFinalKernel(const double* partials, const float* partialMax, std::uint32_t blocks, std::uint32_t channels,
                      float* outputs, FilterControl* control, std::uint32_t particles, float threshold,
                      std::uint64_t seed, std::uint32_t deEnabled) {
    constexpr std::uint32_t FINAL_WARPS = tuning::REDUCE_FINAL_BLOCK / WARP;
    __shared__ float scale[MAX_PARTIAL_BLOCKS];  // 32 KiB at MAX_PARTICLES; each in (0, 1], float suffices
    __shared__ double sums[MAX_CHANNELS];
    __shared__ float warpMaxima[FINAL_WARPS];
    const std::uint32_t warp = threadIdx.x / WARP;
    const std::uint32_t lane = threadIdx.x % WARP;

    float localMax = -INFINITY;
    for (std::uint32_t b = threadIdx.x; b < blocks; b += blockDim.x) {
        localMax = detail::maxLog(localMax, partialMax[b]);
    }
    localMax = warpMax(localMax);
    if (lane == 0) {
        warpMaxima[warp] = localMax;
    }
    __syncthreads();
    float globalMax = warpMaxima[0];
    for (std::uint32_t w = 1; w < FINAL_WARPS; ++w) {
        globalMax = detail::maxLog(globalMax, warpMaxima[w]);
    }
    const bool cached = blocks <= MAX_PARTIAL_BLOCKS;
    for (std::uint32_t b = threadIdx.x; cached && b < blocks; b += blockDim.x) {
        scale[b] = static_cast<float>(detail::weightTerm(partialMax[b], globalMax));
    }
    __syncthreads();
    for (std::uint32_t c = warp; c < channels; c += FINAL_WARPS) {
        double total = 0.0;
        for (std::uint32_t b = lane; b < blocks; b += WARP) {
            const double f = cached ? static_cast<double>(scale[b])
                                    : static_cast<double>(static_cast<float>(detail::weightTerm(partialMax[b], globalMax)));
            total += partials[static_cast<std::size_t>(b) * channels + c] * (c == 1 ? f * f : f);
        }
        total = warpSum(total);
        if (lane == 0) {
            sums[c] = total;
        }
    }
    __syncthreads();
    for (std::uint32_t c = 2 + threadIdx.x; c < channels; c += blockDim.x) {
        outputs[c - 2] = static_cast<float>(sums[c] / sums[0]);
    }
    if (threadIdx.x == 0) {
        FilterControl ctl = *control;
        ctl.sumWeights = sums[0];
        ctl.effectiveSampleSize = static_cast<float>(sums[0] * sums[0] / sums[1]);
        ctl.maxLogWeight = globalMax;
        ctl.current ^= ctl.swap;
        ctl.swap = 0;
        ctl.resample = ctl.effectiveSampleSize < threshold * static_cast<float>(particles) ? 1U : 0U;
        ctl.uniform = detail::resampleUniform(seed, ctl.step);
        ctl.deActive = (ctl.resample != 0 && deEnabled != 0) ? 1U : 0U;
        ctl.deParity = 0;
        ctl.generations = 0;
        ctl.step += 1;
        *control = ctl;
    }
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
    if (control->deActive == 0U) {
        return;
    }
    __shared__ double warpSums[REDUCE_WARPS][2];
    const std::uint32_t begin = blockIdx.x * chunk;
    const std::uint32_t end = min(begin + chunk, particles);
    double sum = 0.0;
    double sumSquares = 0.0;
    for (std::uint32_t k = begin + threadIdx.x; k < end; k += blockDim.x) {
        const double f = fitness[k];
        sum += f;
        sumSquares += f * f;
    }
    sum = warpSum(sum);
    sumSquares = warpSum(sumSquares);
    if (threadIdx.x % WARP == 0) {
        warpSums[threadIdx.x / WARP][0] = sum;
        warpSums[threadIdx.x / WARP][1] = sumSquares;
    }
    __syncthreads();
    if (threadIdx.x < 2) {
        double total = 0.0;
        for (std::uint32_t w = 0; w < REDUCE_WARPS; ++w) {
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

}  // namespace

template <typename Model>
Result<ParticleFilter<Model>, FilterError> ParticleFilter<Model>::create(const FilterConfig& config,
                                                                         const Params& params) {
    auto valid = validate<Model>(config);
    if (!valid) {
        return fail(valid.error());
    }
    ParticleFilter filter;
    filter.m_config = config;
    filter.m_params = params;
    filter.m_stride = config.vehicles * static_cast<std::uint32_t>(Model::SLOT_FLOATS);
    filter.m_reduceBlocks = blocksFor(config.particles, tuning::REDUCE_BLOCK);
    filter.m_stepBlocks = filter.m_reduceBlocks;
    if constexpr (detail::vehicleParallel<Model>()) {
        if (config.vehicles >= tuning::VEHICLE_PARALLEL_MIN) {
            filter.m_stepBlocks = blocksFor(config.particles, WARP);
        }
    }
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
    assign(filter.m_outputs, platform::DeviceBuffer<float>::create(outputCount<Model>(config.vehicles)));
    // Also the differential-evolution spread partials (2 per block, at most SPREAD_MAX_BLOCKS blocks).
    const std::size_t partialBlocks = std::max<std::size_t>(filter.m_stepBlocks, tuning::SPREAD_MAX_BLOCKS);
    assign(filter.m_partials, platform::DeviceBuffer<double>::create(partialBlocks * channels));
    assign(filter.m_partialMax, platform::DeviceBuffer<float>::create(filter.m_stepBlocks));
    assign(filter.m_copyIndex, platform::DeviceBuffer<std::uint32_t>::create(k));
    assign(filter.m_inputs, platform::DeviceBuffer<Input>::create(config.vehicles));
    assign(filter.m_control, platform::DeviceBuffer<FilterControl>::create(1));
    assign(filter.m_resampleScratch, platform::DeviceMemory::allocate(systematicResampleScratchBytes(config.particles)));
    assign(filter.m_stagedInputs, platform::PinnedMemory::allocate(sizeof(Input) * config.vehicles, false));
    if (!ok) {
        return fail(FilterError::Gpu);
    }
    if (config.layout == StateLayout::StructOfArrays) {
        filter.m_hostTranspose.assign(k * filter.m_stride, 0.0F);
    }
    return Result<ParticleFilter, FilterError>(std::move(filter));
}

template <typename Model>
Result<void, FilterError> ParticleFilter<Model>::setInputs(std::span<const Input> inputs) noexcept {
    if (inputs.size() != m_config.vehicles) {
        return fail(FilterError::InputSizeMismatch);
    }
    std::memcpy(m_stagedInputs.get(), inputs.data(), inputs.size_bytes());
    return {};
}

template <typename Model>
GpuStatus ParticleFilter<Model>::uploadInputs(StreamHandle stream) noexcept {
    return platform::copyToDevice(m_inputs.data(), m_stagedInputs.get(), m_inputs.bytes(), stream);
}

#define AUGUR_PF_SHAPE                                                                                        \
    Shape {                                                                                                  \
        {m_states[0].data(), m_states[1].data()}, m_logWeights.data(),                                       \
            m_config.resampler == Resampler::DifferentialEvolution ? m_fitness.data() : nullptr,            \
            m_config.particles, m_config.vehicles, m_stride, m_config.layout, m_config.seed                  \
    }

template <typename Model>
GpuStatus ParticleFilter<Model>::initialize(std::span<const Input> inputs, StreamHandle stream) noexcept {
    if (!setInputs(inputs)) {
        return AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
    }
    AUGUR_CUDA_TRY(uploadInputs(stream));
    AUGUR_CUDA_TRY(platform::fillDevice(m_control.data(), 0, sizeof(FilterControl), stream));
    AUGUR_CUDA_TRY(platform::fillDevice(m_outputs.data(), 0, m_outputs.bytes(), stream));
    initializeKernel<Model><<<blocksFor(m_config.particles, tuning::PARTICLE_BLOCK), tuning::PARTICLE_BLOCK, 0, stream>>>(
        AUGUR_PF_SHAPE, m_params, m_inputs.data());
    return AUGUR_CUDA_CHECK_LAUNCH();
}

template <typename Model>
GpuStatus ParticleFilter<Model>::predict(StreamHandle stream) noexcept {
    predictUpdateKernel<Model, true, false>
        <<<blocksFor(m_config.particles, tuning::PARTICLE_BLOCK), tuning::PARTICLE_BLOCK, 0, stream>>>(
            AUGUR_PF_SHAPE, m_params, m_inputs.data(), m_control.data());
    return AUGUR_CUDA_CHECK_LAUNCH();
}

template <typename Model>
GpuStatus ParticleFilter<Model>::update(StreamHandle stream) noexcept {
    predictUpdateKernel<Model, false, true>
        <<<blocksFor(m_config.particles, tuning::PARTICLE_BLOCK), tuning::PARTICLE_BLOCK, 0, stream>>>(
            AUGUR_PF_SHAPE, m_params, m_inputs.data(), m_control.data());
    return AUGUR_CUDA_CHECK_LAUNCH();
}

template <typename Model>
GpuStatus ParticleFilter<Model>::predictUpdate(StreamHandle stream) noexcept {
    predictUpdateKernel<Model, true, true>
        <<<blocksFor(m_config.particles, tuning::PARTICLE_BLOCK), tuning::PARTICLE_BLOCK, 0, stream>>>(
            AUGUR_PF_SHAPE, m_params, m_inputs.data(), m_control.data());
    return AUGUR_CUDA_CHECK_LAUNCH();
}

template <typename Model>
GpuStatus ParticleFilter<Model>::reduceFinal(std::uint32_t blocks, StreamHandle stream) noexcept {
    const auto channels = static_cast<std::uint32_t>(2 + outputCount<Model>(m_config.vehicles));
    const std::uint32_t deEnabled = m_config.resampler == Resampler::DifferentialEvolution && m_config.particles >= 2 &&
                                            m_config.de.maxGenerations > 0
                                        ? 1U
                                        : 0U;
    reduceFinalKernel<<<1, tuning::REDUCE_FINAL_BLOCK, 0, stream>>>(
        m_partials.data(), m_partialMax.data(), blocks, channels, m_outputs.data(), m_control.data(),
        m_config.particles, m_config.resampleThreshold, m_config.seed, deEnabled);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

template <typename Model>
GpuStatus ParticleFilter<Model>::reduce(StreamHandle stream) noexcept {
    reducePartialsKernel<Model><<<m_reduceBlocks, tuning::REDUCE_BLOCK, 0, stream>>>(
        AUGUR_PF_SHAPE, m_control.data(), m_partials.data(), m_partialMax.data());
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
    return reduceFinal(m_reduceBlocks, stream);
}

template <typename Model>
GpuStatus ParticleFilter<Model>::resample(StreamHandle stream) noexcept {
    FilterControl* control = m_control.data();
    const std::uint32_t particleBlocks = blocksFor(m_config.particles, tuning::PARTICLE_BLOCK);
    if (m_config.resampler == Resampler::Systematic) {
        AUGUR_CUDA_TRY(systematicResample(m_logWeights.data(), m_config.particles, &control->maxLogWeight,
                                          &control->uniform, m_copyIndex.data(), &control->resample,
                                          m_resampleScratch.get(), m_resampleScratch.bytes(), stream));
        // The gather reads the committed buffer `current`; the control block tells which one.
        return internal::launchGather(m_states[0].data(), m_states[1].data(), m_copyIndex.data(), m_config.particles,
                                      m_stride, m_config.layout, &control->resample, &control->current,
                                      m_logWeights.data(), &control->swap, &control->maxLogWeight, stream);
    }
    const std::uint32_t chunk =
        blocksFor(blocksFor(m_config.particles, tuning::SPREAD_MAX_BLOCKS), tuning::REDUCE_BLOCK) * tuning::REDUCE_BLOCK;
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
    bool launched = false;
    if constexpr (detail::vehicleParallel<Model>()) {
        if (m_stepBlocks != m_reduceBlocks) {
            vehicleParallelStepKernel<Model><<<m_stepBlocks, dim3(WARP, m_config.vehicles), 0, stream>>>(
                AUGUR_PF_SHAPE, m_params, m_inputs.data(), m_control.data(), m_partials.data(), m_partialMax.data());
            launched = true;
        }
    }
    if (!launched) {
        predictUpdateReduceKernel<Model><<<m_reduceBlocks, tuning::REDUCE_BLOCK, 0, stream>>>(
            AUGUR_PF_SHAPE, m_params, m_inputs.data(), m_control.data(), m_partials.data(), m_partialMax.data());
    }
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
    AUGUR_CUDA_TRY(reduceFinal(m_stepBlocks, stream));
    return resample(stream);
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
    return StepSummary{control.sumWeights,  control.effectiveSampleSize, control.maxLogWeight,
                       control.step,        control.resample,            control.generations};
}

template <typename Model>
GpuStatus ParticleFilter<Model>::copyOutputs(std::span<float> outputs, StreamHandle stream) const noexcept {
    AUGUR_CUDA_TRY(m_outputs.download(outputs, stream));
    return AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream));
}

template <typename Model>
GpuStatus ParticleFilter<Model>::copyParticles(std::span<float> aos, std::span<float> logWeights,
                                               StreamHandle stream) const noexcept {
    FilterControl control{};
    AUGUR_CUDA_TRY(platform::copyToHost(&control, m_control.data(), sizeof(control), stream));
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream)));
    const std::uint32_t buffer = control.current ^ control.swap;
    const bool soa = m_config.layout == StateLayout::StructOfArrays;
    AUGUR_CUDA_TRY(m_states[buffer].download(soa ? std::span<float>(m_hostTranspose) : aos, stream));
    AUGUR_CUDA_TRY(m_logWeights.download(logWeights, stream));
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cudaStreamSynchronize(stream)));
    if (soa) {
        const std::size_t k = m_config.particles;
        const std::size_t stride = m_stride;
        for (std::size_t p = 0; p < k; ++p) {
            for (std::size_t f = 0; f < stride; ++f) {
                aos[p * stride + f] = m_hostTranspose[f * k + p];
            }
        }
    }
    return {};
}

#undef AUGUR_PF_SHAPE

template class ParticleFilter<UngmModel>;
template class ParticleFilter<Seed004Model>;
template class ParticleFilter<LinearGaussianModel>;
template class ParticleFilter<SceneModel>;

}  // namespace augur::kernels::pf::cuda
