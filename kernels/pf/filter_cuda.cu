// CUDA particle filter, the host API. Layers (after CUB): these ParticleFilter methods (stream last,
// buffers sized at create) → dispatch_filter.cuh (the launch shapes, from tuning.hpp and the device's
// occupancy, and the thin __global__ entries) → the agents of kernels/pf/agent/ and the per-particle
// device functions of engine_detail.hpp and the model. Decisions (resample or not, DE generations) are
// read from the device control block by the kernels themselves, so a step never waits for the host
// and can be captured into a graph.
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
#include <cstring>
#include <optional>

#include "augur/kernels/pf/filter.hpp"
#include "cdf_scan.cuh"
#include "dispatch_filter.cuh"
#include "filter_control.hpp"
#include "resample_cuda.hpp"

namespace augur::kernels::pf::cuda {

using detail::FilterControl;
using platform::GpuStatus;
using platform::StreamHandle;

template <typename Model>
Result<ParticleFilter<Model>, FilterError> ParticleFilter<Model>::create(const FilterConfig& config,
                                                                         const Params& params) {
    auto valid = validate<Model>(config);
    if (!valid) {
        return fail(valid.error());
    }
    const std::optional<tuning::LaunchPolicy> policy = dispatch::activeLaunchPolicy();
    if (!policy) {
        return fail(FilterError::Gpu);
    }
    ParticleFilter filter;
    filter.m_config = config;
    filter.m_params = params;
    filter.m_spreadMaxBlocks = policy->spreadMaxBlocks;
    filter.m_stride = config.vehicles * static_cast<std::uint32_t>(Model::SLOT_FLOATS);
    const std::optional<dispatch::PartialsShape> shape = dispatch::partialsShape<Model>(config);
    if (!shape) {
        return fail(FilterError::Gpu);
    }
    filter.m_vehicleParallel = shape->vehicleParallel;
    filter.m_cappedRegisters = shape->cappedRegisters;
    filter.m_units = shape->units;
    filter.m_dependentLaunch = primitives::dependentLaunchSupported();
    filter.m_partialBlocks = shape->blocks;

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
    assign(filter.m_shareClaims, platform::DeviceBuffer<std::uint32_t>::create(1 + agent::SHARE_CLAIM_SMS));
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
    m_uploadLaunchedLast = true;
    return dispatch::launchUpload(static_cast<const std::uint32_t*>(m_stagedInputs.devicePointer()),
                                  reinterpret_cast<std::uint32_t*>(m_inputs.data()), words, cdf.state, tiles, stream);
}

namespace {

/// What the step's kernels are handed about a filter's buffers (the fitness only for differential
/// evolution, the resampling's CDF only for systematic resampling).
agent::Shape stepShape(const FilterConfig& config, std::uint32_t stride, platform::DeviceBuffer<float> (&states)[2],
                       float* logWeights, float* fitness, void* resampleScratch, std::uint32_t* copyIndex) {
    return agent::Shape{{states[0].data(), states[1].data()},
                        logWeights,
                        config.resampler == Resampler::DifferentialEvolution ? fitness : nullptr,
                        dispatch::resamplingOf(config, resampleScratch, copyIndex),
                        config.particles,
                        config.vehicles,
                        stride,
                        config.layout,
                        config.seed};
}

}  // namespace


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
    m_uploadLaunchedLast = false;
    const agent::Shape s = stepShape(m_config, m_stride, m_states, m_logWeights.data(), m_fitness.data(),
                                     m_resampleScratch.get(), m_copyIndex.data());
    return dispatch::launchInitialize<Model>(s, m_params, m_inputs.data(), stream);
}

template <typename Model>
GpuStatus ParticleFilter<Model>::launchPartials(bool advance, StreamHandle stream) noexcept {
    const bool afterUpload = m_uploadLaunchedLast && m_dependentLaunch;
    m_uploadLaunchedLast = false;
    const agent::Partials out{m_partials.data(), m_partialMax.data(), m_partialBlocks,
                              agent::ShareClaims{m_shareClaims.data(), m_shareClaims.data() + 1}};
    const dispatch::PartialsShape shape{m_vehicleParallel, m_cappedRegisters, m_partialBlocks, m_units};
    const agent::Shape s = stepShape(m_config, m_stride, m_states, m_logWeights.data(), m_fitness.data(),
                                     m_resampleScratch.get(), m_copyIndex.data());
    return dispatch::launchPartials<Model>(shape, advance, m_config, m_dependentLaunch, s, m_params, m_inputs.data(),
                                           m_control.data(), out, afterUpload, stream);
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
    const agent::CombineArgs args{m_partials.data(),
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
    return dispatch::launchCombine(args, channels, m_dependentLaunch, stream);
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
    const agent::Shape s = stepShape(m_config, m_stride, m_states, m_logWeights.data(), m_fitness.data(),
                                     m_resampleScratch.get(), m_copyIndex.data());
    return dispatch::launchEvolution<Model>(s, m_params, m_inputs.data(), m_config.de, m_spreadMaxBlocks,
                                            m_partials.data(), control, stream);
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

template class ParticleFilter<UngmModel>;
template class ParticleFilter<GammaNoiseSwitchingModel>;
template class ParticleFilter<LinearGaussianModel>;
template class ParticleFilter<SceneModel>;

}  // namespace augur::kernels::pf::cuda
