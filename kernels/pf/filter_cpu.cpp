// CPU reference particle filter: the same stages, random numbers and copy indices as the CUDA path.
// Particles are split into fixed CPU_CHUNK-particle chunks that the worker threads share by a fixed
// partition; reductions are in double, in particle order within a chunk, then chunk by chunk — so the
// result does not depend on the thread count.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <thread>

#include "augur/core/panic.hpp"
#include "augur/kernels/pf/filter.hpp"
#include "engine_detail.hpp"
#include "filter_control.hpp"
#include "../src/worker_pool.hpp"

namespace augur::kernels::pf::cpu {

using detail::FilterControl;
namespace {

std::uint32_t chunkCount(std::uint32_t items) noexcept { return (items + CPU_CHUNK - 1) / CPU_CHUNK; }

/// fn(chunk, begin, end) for every CPU_CHUNK-item chunk of [0, items), chunks shared among the pool's
/// workers by a fixed partition. Allocation-free; returns when every chunk is done.
template <typename Fn>
void forEachChunk(kernels::detail::WorkerPool& pool, std::uint32_t items, Fn&& fn) noexcept {
    const std::uint32_t chunks = chunkCount(items);
    auto work = [&](int worker) noexcept {
        const kernels::detail::Share share = kernels::detail::shareOf(chunks, worker, pool.size());
        for (auto c = static_cast<std::uint32_t>(share.begin); c < static_cast<std::uint32_t>(share.end); ++c) {
            fn(c, c * CPU_CHUNK, std::min(items, (c + 1) * CPU_CHUNK));
        }
    };
    pool.forEach(work);
}

}  // namespace

template <typename Model>
ParticleFilter<Model>::ParticleFilter() noexcept = default;
template <typename Model>
ParticleFilter<Model>::ParticleFilter(ParticleFilter&&) noexcept = default;
template <typename Model>
ParticleFilter<Model>& ParticleFilter<Model>::operator=(ParticleFilter&&) noexcept = default;
template <typename Model>
ParticleFilter<Model>::~ParticleFilter() = default;

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
    const std::uint32_t chunks = chunkCount(config.particles);
    filter.m_chunkMax.assign(chunks, 0.0F);
    filter.m_chunkSums.assign(static_cast<std::size_t>(chunks) * (2 + outputCount<Model>(config.vehicles)), 0.0);
    filter.m_chunkMass.assign(chunks, 0U);
    filter.m_control = std::make_unique<FilterControl>();
    const unsigned threads = config.cpuThreads == 0 ? std::max(1U, std::thread::hardware_concurrency()) : config.cpuThreads;
    filter.m_pool = std::make_unique<kernels::detail::WorkerPool>(static_cast<int>(std::min(threads, chunks)));
    return Result<ParticleFilter, FilterError>(std::move(filter));
}

template <typename Model>
ParticleRef ParticleFilter<Model>::ref(std::uint32_t buffer, std::uint32_t k) noexcept {
    return ParticleRef{m_states[buffer].data(), k, m_config.particles, m_stride, m_config.layout};
}

template <typename Model>
Result<void, FilterError> ParticleFilter<Model>::setInputs(std::span<const Input> inputs) noexcept {
    if (auto valid = validateInputs<Model>(inputs, m_config.vehicles); !valid) {
        return valid;
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
    *m_control = FilterControl{};
    for (std::uint32_t k = 0; k < m_config.particles; ++k) {
        Model::initialize(ref(0, k), m_config.vehicles, m_params, m_inputs.data(), m_config.seed);
    }
    std::fill(m_logWeights.begin(), m_logWeights.end(), 0.0F);
    return {};
}

template <typename Model>
void ParticleFilter<Model>::predict() noexcept {
    const std::uint32_t buffer = m_control->current ^ m_control->swap;
    const std::uint32_t step = m_control->step;
    forEachChunk(*m_pool, m_config.particles, [&](std::uint32_t, std::uint32_t begin, std::uint32_t end) noexcept {
        for (std::uint32_t k = begin; k < end; ++k) {
            Model::predict(ref(buffer, k), m_config.vehicles, m_params, m_inputs.data(), m_config.seed, step);
        }
    });
}

template <typename Model>
void ParticleFilter<Model>::update() noexcept {
    const std::uint32_t buffer = m_control->current ^ m_control->swap;
    float* fitness = m_config.resampler == Resampler::DifferentialEvolution ? m_fitness.data() : nullptr;
    forEachChunk(*m_pool, m_config.particles, [&](std::uint32_t, std::uint32_t begin, std::uint32_t end) noexcept {
        for (std::uint32_t k = begin; k < end; ++k) {
            detail::updateParticle<Model>(ref(buffer, k), m_config.vehicles, m_params, m_inputs.data(),
                                          m_control->maxLogWeight, m_logWeights.data(), fitness);
        }
    });
}

template <typename Model>
void ParticleFilter<Model>::reduce() noexcept {
    const std::uint32_t buffer = m_control->current ^ m_control->swap;
    const std::uint32_t chunks = chunkCount(m_config.particles);
    forEachChunk(*m_pool, m_config.particles, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) noexcept {
        float chunkMax = -INFINITY;
        for (std::uint32_t k = begin; k < end; ++k) {
            chunkMax = detail::maxLog(chunkMax, m_logWeights[k]);
        }
        m_chunkMax[c] = chunkMax;
    });
    float maxLogWeight = -INFINITY;
    for (std::uint32_t c = 0; c < chunks; ++c) {
        maxLogWeight = detail::maxLog(maxLogWeight, m_chunkMax[c]);
    }
    constexpr auto OUTPUTS = static_cast<std::uint32_t>(Model::OUTPUTS_PER_VEHICLE);
    const std::size_t width = 2 + m_outputs.size();
    forEachChunk(*m_pool, m_config.particles, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) noexcept {
        double* acc = m_chunkSums.data() + c * width;
        std::fill(acc, acc + width, 0.0);
        for (std::uint32_t k = begin; k < end; ++k) {
            const double w = detail::weightTerm(m_logWeights[k], maxLogWeight);
            acc[0] += w;
            acc[1] += w * w;
            const ParticleRef p = ref(buffer, k);
            for (std::uint32_t n = 0; n < m_config.vehicles; ++n) {
                float slot[Model::SLOT_FLOATS];
                p.loadSlot(n, slot);
                for (std::uint32_t o = 0; o < OUTPUTS; ++o) {
                    acc[2 + n * OUTPUTS + o] += w * static_cast<double>(Model::output(slot, o));
                }
            }
        }
    });
    double sum = 0.0;
    double sumSquares = 0.0;
    std::fill(m_accumulators.begin(), m_accumulators.end(), 0.0);
    for (std::uint32_t c = 0; c < chunks; ++c) {
        const double* acc = m_chunkSums.data() + c * width;
        sum += acc[0];
        sumSquares += acc[1];
        for (std::size_t o = 0; o < m_accumulators.size(); ++o) {
            m_accumulators[o] += acc[2 + o];
        }
    }
    for (std::size_t c = 0; c < m_outputs.size(); ++c) {
        m_outputs[c] = static_cast<float>(m_accumulators[c] / sum);
    }
    m_control->sumWeights = sum;
    m_control->effectiveSampleSize = static_cast<float>(sum * sum / sumSquares);
    m_control->maxLogWeight = maxLogWeight;
    m_control->current ^= m_control->swap;
    m_control->swap = 0;
    m_control->resample = m_control->effectiveSampleSize <
                                 m_config.resampleThreshold * static_cast<float>(m_config.particles)
                             ? 1U
                             : 0U;
    m_control->uniform = resampleUniform(m_config.seed, m_control->step);
    m_control->deActive =
        (m_control->resample != 0 && m_config.resampler == Resampler::DifferentialEvolution &&
         m_config.particles >= 2 && m_config.de.maxGenerations > 0)
            ? 1U
            : 0U;
    m_control->deParity = 0;
    m_control->generations = 0;
    m_control->step += 1;
}

template <typename Model>
void ParticleFilter<Model>::resample() noexcept {
    if (m_control->resample == 0) {
        return;
    }
    if (m_config.resampler == Resampler::DifferentialEvolution) {
        differentialEvolution();
        return;
    }
    // cpu::systematicResample, chunk-parallel: the integer CDF is exact in any order, and every source
    // writes its own copy range, so the copy indices are the same as the sequential function's.
    const std::uint32_t k = m_config.particles;
    const float maxLogWeight = m_control->maxLogWeight;
    const float u = m_control->uniform;
    forEachChunk(*m_pool, k, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) noexcept {
        std::uint64_t mass = 0;
        for (std::uint32_t i = begin; i < end; ++i) {
            mass += quantizeWeight(m_logWeights[i], maxLogWeight);
        }
        m_chunkMass[c] = mass;
    });
    std::uint64_t offset = 0;
    for (auto& mass : m_chunkMass) {
        const std::uint64_t chunkMass = mass;
        mass = offset;
        offset += chunkMass;
    }
    forEachChunk(*m_pool, k, [&](std::uint32_t c, std::uint32_t begin, std::uint32_t end) noexcept {
        std::uint64_t running = m_chunkMass[c];
        for (std::uint32_t i = begin; i < end; ++i) {
            running += quantizeWeight(m_logWeights[i], maxLogWeight);
            m_cdf[i] = running;
        }
    });
    const std::uint64_t total = m_cdf[k - 1];
    forEachChunk(*m_pool, k, [&](std::uint32_t, std::uint32_t begin, std::uint32_t end) noexcept {
        for (std::uint32_t i = begin; i < end; ++i) {
            std::int64_t first = 0;
            std::int64_t last = 0;
            copyRange(i == 0 ? 0 : m_cdf[i - 1], m_cdf[i], total, k, u, first, last);
            for (std::int64_t j = first; j <= last; ++j) {
                m_copyIndex[static_cast<std::size_t>(j)] = i;
            }
        }
    });
    const std::uint32_t from = m_control->current;
    const float* src = m_states[from].data();
    float* dst = m_states[from ^ 1U].data();
    const std::size_t stride = m_stride;
    const bool aos = m_config.layout == StateLayout::ArrayOfStructs;
    forEachChunk(*m_pool, k, [&](std::uint32_t, std::uint32_t begin, std::uint32_t end) noexcept {
        if (aos) {
            for (std::size_t j = begin; j < end; ++j) {
                const float* particle = src + static_cast<std::size_t>(m_copyIndex[j]) * stride;
                std::copy(particle, particle + stride, dst + j * stride);
            }
            return;
        }
        for (std::size_t f = 0; f < stride; ++f) {
            const float* field = src + f * k;
            float* to = dst + f * k;
            for (std::size_t j = begin; j < end; ++j) {
                to[j] = field[m_copyIndex[j]];
            }
        }
    });
    std::fill(m_logWeights.begin(), m_logWeights.end(), 0.0F);
    m_control->maxLogWeight = 0.0F;
    m_control->swap = 1;
}

template <typename Model>
void ParticleFilter<Model>::differentialEvolution() noexcept {
    if (m_control->deActive == 0) {
        return;
    }
    std::fill(m_logWeights.begin(), m_logWeights.end(), 0.0F);
    m_control->maxLogWeight = 0.0F;
    const std::uint32_t step = m_control->step - 1;
    for (std::uint32_t g = 0; g < m_config.de.maxGenerations && m_control->deActive != 0; ++g) {
        const std::uint32_t src = m_control->current ^ m_control->deParity;
        forEachChunk(*m_pool, m_config.particles, [&](std::uint32_t, std::uint32_t begin, std::uint32_t end) noexcept {
            for (std::uint32_t k = begin; k < end; ++k) {
                detail::evolveParticle<Model>(ref(src, k), ref(src ^ 1U, k), m_config.vehicles, m_params,
                                              m_inputs.data(), m_config.de, m_config.seed, step, g, m_fitness.data());
            }
        });
        double sum = 0.0;
        double sumSquares = 0.0;
        for (const float f : m_fitness) {
            sum += f;
            sumSquares += static_cast<double>(f) * f;
        }
        const double n = m_config.particles;
        const double variance = std::max(0.0, sumSquares / n - (sum / n) * (sum / n));
        m_control->deParity ^= 1U;
        m_control->swap = m_control->deParity;
        m_control->generations += 1;
        if (!(std::sqrt(variance) >= m_config.de.minSpread) || m_control->generations >= m_config.de.maxGenerations) {
            m_control->deActive = 0;
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
    if (!m_control) {
        return StepSummary{};  // not created (or moved from): no step yet
    }
    return StepSummary{m_control->sumWeights, m_control->effectiveSampleSize, m_control->maxLogWeight, m_control->step,
                       m_control->resample, m_control->generations};
}

template <typename Model>
void ParticleFilter<Model>::copyParticles(std::span<float> aos) const noexcept {
    const std::uint32_t buffer = m_control->current ^ m_control->swap;
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
template class ParticleFilter<GammaNoiseSwitchingModel>;
template class ParticleFilter<LinearGaussianModel>;
template class ParticleFilter<SceneModel>;

}  // namespace augur::kernels::pf::cpu
