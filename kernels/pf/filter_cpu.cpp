// CPU reference particle filter: the same stages, random numbers and copy indices as the CUDA path,
// one particle at a time, reductions in double in particle order.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "augur/core/panic.hpp"
#include "augur/kernels/pf/filter.hpp"
#include "engine_detail.hpp"

namespace augur::kernels::pf::cpu {

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
    const std::size_t k = config.particles;
    for (auto& state : filter.m_states) {
        state.assign(k * filter.m_stride, 0.0F);
    }
    filter.m_logWeights.assign(k, 0.0F);
    filter.m_fitness.assign(k, 0.0F);
    filter.m_outputs.assign(outputCount<Model>(config.vehicles), 0.0F);
    filter.m_accumulators.assign(outputCount<Model>(config.vehicles), 0.0);
    filter.m_copyIndex.assign(k, 0U);
    filter.m_cdf.assign(k, 0U);
    filter.m_inputs.assign(config.vehicles, Input{});
    return Result<ParticleFilter, FilterError>(std::move(filter));
}

template <typename Model>
ParticleRef ParticleFilter<Model>::ref(std::uint32_t buffer, std::uint32_t k) noexcept {
    return ParticleRef{m_states[buffer].data(), k, m_config.particles, m_stride, m_config.layout};
}

template <typename Model>
Result<void, FilterError> ParticleFilter<Model>::setInputs(std::span<const Input> inputs) noexcept {
    if (inputs.size() != m_config.vehicles) {
        return fail(FilterError::InputSizeMismatch);
    }
    std::copy(inputs.begin(), inputs.end(), m_inputs.begin());
    return {};
}

template <typename Model>
Result<void, FilterError> ParticleFilter<Model>::initialize(std::span<const Input> inputs) noexcept {
    auto stored = setInputs(inputs);
    if (!stored) {
        return stored;
    }
    m_control = FilterControl{};
    for (std::uint32_t k = 0; k < m_config.particles; ++k) {
        Model::initialize(ref(0, k), m_config.vehicles, m_params, m_inputs.data(), m_config.seed);
    }
    std::fill(m_logWeights.begin(), m_logWeights.end(), 0.0F);
    return {};
}

template <typename Model>
void ParticleFilter<Model>::reinitializeVehicle(std::uint32_t vehicle, const Input& input) noexcept {
    AUGUR_ASSERT(vehicle < m_config.vehicles, "reinitializeVehicle: slot out of range");
    m_inputs[vehicle] = input;
    // A one-vehicle view of slot `vehicle`: both layouts address field f of that slot as field f of a
    // state array that starts vehicle · SLOT_FLOATS fields later.
    const std::uint32_t buffer = m_control.current ^ m_control.swap;
    const std::size_t offset = static_cast<std::size_t>(vehicle) * static_cast<std::size_t>(Model::SLOT_FLOATS) *
                               (m_config.layout == StateLayout::ArrayOfStructs ? 1U : m_config.particles);
    const std::uint64_t key = m_config.seed ^ (0x9E3779B97F4A7C15ULL * (static_cast<std::uint64_t>(vehicle) + 1U)) ^
                              (static_cast<std::uint64_t>(m_control.step) << 32U);
    for (std::uint32_t k = 0; k < m_config.particles; ++k) {
        const ParticleRef slot{m_states[buffer].data() + offset, k, m_config.particles, m_stride, m_config.layout};
        Model::initialize(slot, 1, m_params, &m_inputs[vehicle], key);
    }
}

template <typename Model>
void ParticleFilter<Model>::predict() noexcept {
    const std::uint32_t buffer = m_control.current ^ m_control.swap;
    for (std::uint32_t k = 0; k < m_config.particles; ++k) {
        Model::predict(ref(buffer, k), m_config.vehicles, m_params, m_inputs.data(), m_config.seed, m_control.step);
    }
}

template <typename Model>
void ParticleFilter<Model>::update() noexcept {
    const std::uint32_t buffer = m_control.current ^ m_control.swap;
    float* fitness = m_config.resampler == Resampler::DifferentialEvolution ? m_fitness.data() : nullptr;
    for (std::uint32_t k = 0; k < m_config.particles; ++k) {
        detail::updateParticle<Model>(ref(buffer, k), m_config.vehicles, m_params, m_inputs.data(),
                                      m_control.maxLogWeight, m_logWeights.data(), fitness);
    }
}

template <typename Model>
void ParticleFilter<Model>::reduce() noexcept {
    const std::uint32_t buffer = m_control.current ^ m_control.swap;
    float maxLogWeight = -INFINITY;
    for (const float l : m_logWeights) {
        maxLogWeight = detail::maxLog(maxLogWeight, l);
    }
    double sum = 0.0;
    double sumSquares = 0.0;
    std::fill(m_accumulators.begin(), m_accumulators.end(), 0.0);
    constexpr auto OUTPUTS = static_cast<std::uint32_t>(Model::OUTPUTS_PER_VEHICLE);
    for (std::uint32_t k = 0; k < m_config.particles; ++k) {
        const double w = detail::weightTerm(m_logWeights[k], maxLogWeight);
        sum += w;
        sumSquares += w * w;
        const ParticleRef p = ref(buffer, k);
        for (std::uint32_t n = 0; n < m_config.vehicles; ++n) {
            float slot[Model::SLOT_FLOATS];
            p.loadSlot(n, slot);
            for (std::uint32_t c = 0; c < OUTPUTS; ++c) {
                m_accumulators[n * OUTPUTS + c] += w * static_cast<double>(Model::output(slot, c));
            }
        }
    }
    for (std::size_t c = 0; c < m_outputs.size(); ++c) {
        m_outputs[c] = static_cast<float>(m_accumulators[c] / sum);
    }
    m_control.sumWeights = sum;
    m_control.effectiveSampleSize = static_cast<float>(sum * sum / sumSquares);
    m_control.maxLogWeight = maxLogWeight;
    m_control.current ^= m_control.swap;
    m_control.swap = 0;
    m_control.resample = m_control.effectiveSampleSize <
                                 m_config.resampleThreshold * static_cast<float>(m_config.particles)
                             ? 1U
                             : 0U;
    m_control.uniform = detail::resampleUniform(m_config.seed, m_control.step);
    m_control.deActive =
        (m_control.resample != 0 && m_config.resampler == Resampler::DifferentialEvolution &&
         m_config.particles >= 2 && m_config.de.maxGenerations > 0)
            ? 1U
            : 0U;
    m_control.deParity = 0;
    m_control.generations = 0;
    m_control.step += 1;
}

template <typename Model>
void ParticleFilter<Model>::resample() noexcept {
    if (m_control.resample == 0) {
        return;
    }
    if (m_config.resampler == Resampler::DifferentialEvolution) {
        differentialEvolution();
        return;
    }
    systematicResample(m_logWeights, m_control.maxLogWeight, m_control.uniform, m_cdf, m_copyIndex);
    const std::uint32_t from = m_control.current;
    gatherParticles(m_states[from], m_states[from ^ 1U], m_copyIndex, m_stride, m_config.layout);
    std::fill(m_logWeights.begin(), m_logWeights.end(), 0.0F);
    m_control.maxLogWeight = 0.0F;
    m_control.swap = 1;
}

template <typename Model>
void ParticleFilter<Model>::differentialEvolution() noexcept {
    if (m_control.deActive == 0) {
        return;
    }
    std::fill(m_logWeights.begin(), m_logWeights.end(), 0.0F);
    m_control.maxLogWeight = 0.0F;
    const std::uint32_t step = m_control.step - 1;
    for (std::uint32_t g = 0; g < m_config.de.maxGenerations && m_control.deActive != 0; ++g) {
        const std::uint32_t src = m_control.current ^ m_control.deParity;
        for (std::uint32_t k = 0; k < m_config.particles; ++k) {
            detail::evolveParticle<Model>(ref(src, k), ref(src ^ 1U, k), m_config.vehicles, m_params, m_inputs.data(),
                                          m_config.de, m_config.seed, step, g, m_fitness.data());
        }
        double sum = 0.0;
        double sumSquares = 0.0;
        for (const float f : m_fitness) {
            sum += f;
            sumSquares += static_cast<double>(f) * f;
        }
        const double n = m_config.particles;
        const double variance = std::max(0.0, sumSquares / n - (sum / n) * (sum / n));
        m_control.deParity ^= 1U;
        m_control.swap = m_control.deParity;
        m_control.generations += 1;
        if (!(std::sqrt(variance) >= m_config.de.minSpread) || m_control.generations >= m_config.de.maxGenerations) {
            m_control.deActive = 0;
        }
    }
}

template <typename Model>
void ParticleFilter<Model>::step() noexcept {
    predict();
    update();
    reduce();
    resample();
}

template <typename Model>
StepSummary ParticleFilter<Model>::summary() const noexcept {
    return StepSummary{m_control.sumWeights, m_control.effectiveSampleSize, m_control.maxLogWeight, m_control.step,
                       m_control.resample, m_control.generations};
}

template <typename Model>
void ParticleFilter<Model>::copyParticles(std::span<float> aos) const noexcept {
    const std::uint32_t buffer = m_control.current ^ m_control.swap;
    const std::size_t k = m_config.particles;
    AUGUR_ASSERT(aos.size() >= k * m_stride, "copyParticles: destination smaller than K·stride");
    const std::vector<float>& state = m_states[buffer];
    if (m_config.layout == StateLayout::ArrayOfStructs) {
        std::copy(state.begin(), state.end(), aos.begin());
        return;
    }
    for (std::size_t p = 0; p < k; ++p) {
        for (std::size_t f = 0; f < m_stride; ++f) {
            aos[p * m_stride + f] = state[f * k + p];
        }
    }
}

template class ParticleFilter<UngmModel>;
template class ParticleFilter<Seed004Model>;
template class ParticleFilter<LinearGaussianModel>;
template class ParticleFilter<SceneModel>;

}  // namespace augur::kernels::pf::cpu
