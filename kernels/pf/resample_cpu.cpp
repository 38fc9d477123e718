// CPU reference of systematic resampling (copy-index formulation) and of the particle gather.
#include <algorithm>

#include "augur/core/panic.hpp"
#include "augur/kernels/pf/resample.hpp"

namespace augur::kernels::pf::cpu {

void systematicResample(std::span<const float> logWeights, float maxLogWeight, float u, std::span<std::uint64_t> cdf,
                        std::span<std::uint32_t> copyIndex) noexcept {
    const auto k = static_cast<std::uint32_t>(logWeights.size());
    AUGUR_ASSERT(cdf.size() >= k && copyIndex.size() >= k, "systematicResample: scratch smaller than K");
    AUGUR_ASSERT(k <= MAX_PARTICLES, "systematicResample: K above MAX_PARTICLES");
    std::uint64_t running = 0;
    for (std::uint32_t i = 0; i < k; ++i) {
        running += quantizeWeight(logWeights[i], maxLogWeight);
        cdf[i] = running;
    }
    const std::uint64_t total = running;
    for (std::uint32_t i = 0; i < k; ++i) {
        std::int64_t first = 0;
        std::int64_t last = 0;
        copyRange(i == 0 ? 0 : cdf[i - 1], cdf[i], total, k, u, first, last);
        for (std::int64_t j = first; j <= last; ++j) {
            copyIndex[static_cast<std::size_t>(j)] = i;
        }
    }
}

void gatherParticles(std::span<const float> src, std::span<float> dst, std::span<const std::uint32_t> copyIndex,
                     std::uint32_t stride, StateLayout layout) noexcept {
    const std::size_t k = copyIndex.size();
    AUGUR_ASSERT(src.size() >= k * stride && dst.size() >= k * stride, "gatherParticles: buffers smaller than K·stride");
    if (layout == StateLayout::ArrayOfStructs) {
        for (std::size_t j = 0; j < k; ++j) {
            const float* from = src.data() + static_cast<std::size_t>(copyIndex[j]) * stride;
            std::copy(from, from + stride, dst.data() + j * stride);
        }
    } else {
        for (std::size_t f = 0; f < stride; ++f) {
            const float* from = src.data() + f * k;
            float* to = dst.data() + f * k;
            for (std::size_t j = 0; j < k; ++j) {
                to[j] = from[copyIndex[j]];
            }
        }
    }
}

}  // namespace augur::kernels::pf::cpu
