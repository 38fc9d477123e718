// Test and benchmark access to a particle filter's stages and diagnostics, outside the public API
// (target augur::kernels_testing): the stages step() runs one by one — what augur-bench-pf times and
// the tests drive — and the CUDA path's readbacks of a pending resampling. The filters keep them
// private and befriend FilterProbe.
#pragma once

#include <cstdint>
#include <span>

#include "augur/kernels/pf/filter.hpp"

namespace augur::kernels::pf::testing {

/// The CPU reference's stages, in the order step() runs them: call them in this order, once each.
template <typename Model>
class FilterProbe<cpu::ParticleFilter<Model>> {
public:
    explicit FilterProbe(cpu::ParticleFilter<Model>& filter) noexcept : m_filter(filter) {}

    void predict() noexcept { m_filter.predict(); }
    void update() noexcept { m_filter.update(); }
    void reduce() noexcept { m_filter.reduce(); }
    void resample() noexcept { m_filter.resample(); }

private:
    cpu::ParticleFilter<Model>& m_filter;
};

/// The CUDA path's stages (cuda::ParticleFilter documents each) and its diagnostics.
template <typename Model>
class FilterProbe<cuda::ParticleFilter<Model>> {
public:
    explicit FilterProbe(cuda::ParticleFilter<Model>& filter) noexcept : m_filter(filter) {}

    // The stages step() runs, in this order (call them in this order, once each — another order
    // measures the same work but need not leave a meaningful filter state).
    [[nodiscard]] platform::GpuStatus uploadInputs(platform::StreamHandle stream) noexcept {
        return m_filter.uploadInputs(stream);
    }
    [[nodiscard]] platform::GpuStatus advance(platform::StreamHandle stream) noexcept {
        return m_filter.advance(stream);
    }
    [[nodiscard]] platform::GpuStatus combine(platform::StreamHandle stream) noexcept {
        return m_filter.combine(stream);
    }
    [[nodiscard]] platform::GpuStatus resample(platform::StreamHandle stream) noexcept {
        return m_filter.resample(stream);
    }
    /// The reduction alone over the committed particles and weights (what the output-reduction
    /// comparison measures).
    [[nodiscard]] platform::GpuStatus reduce(platform::StreamHandle stream) noexcept { return m_filter.reduce(stream); }

    /// The particles (array-of-structs order) and log-weights as the last step weighted them, and the
    /// copy indices of its pending resampling; returns whether one is pending. Synchronises.
    [[nodiscard]] Result<bool, platform::GpuError> copyWeightedParticles(std::span<float> aos,
                                                                       std::span<float> logWeights,
                                                                       std::span<std::uint32_t> copyIndex,
                                                                       platform::StreamHandle stream) const noexcept {
        return m_filter.copyWeightedParticles(aos, logWeights, copyIndex, stream);
    }
    /// The copy indices the last advance read its particles through. Synchronises.
    [[nodiscard]] platform::GpuStatus copyAppliedCopyIndices(std::span<std::uint32_t> copyIndex,
                                                             platform::StreamHandle stream) const noexcept {
        return m_filter.copyAppliedCopyIndices(copyIndex, stream);
    }

private:
    cuda::ParticleFilter<Model>& m_filter;
};

template <typename Model>
FilterProbe(cpu::ParticleFilter<Model>&) -> FilterProbe<cpu::ParticleFilter<Model>>;
template <typename Model>
FilterProbe(cuda::ParticleFilter<Model>&) -> FilterProbe<cuda::ParticleFilter<Model>>;

}  // namespace augur::kernels::pf::testing
