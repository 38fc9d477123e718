// Benchmark-only kernels: Hortelano et al. 2023's atomicAdd reduction baseline, a bandwidth probe and an empty kernel.
#include <cuda_runtime.h>

#include <cmath>

#include "augur/bench/bench.hpp"
#include "augur/kernels/pf/models.hpp"
#include "augur/platform/memory.hpp"
#include "baselines.hpp"

namespace augur::bench {
namespace {

using kernels::pf::ParticleRef;
using kernels::pf::SceneModel;

__global__ void atomicOutputs(const float* states, const float* logWeights, std::uint32_t particles,
                              std::uint32_t vehicles, kernels::pf::StateLayout layout, float* outputs) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= particles) {
        return;
    }
    const float w = __expf(logWeights[k]);
    atomicAdd(&outputs[0], w);
    const ParticleRef p{const_cast<float*>(states), k, particles, vehicles * SceneModel::SLOT_FLOATS, layout};
    for (std::uint32_t n = 0; n < vehicles; ++n) {
        float slot[SceneModel::SLOT_FLOATS];
        p.loadSlot(n, slot);
        for (std::uint32_t c = 0; c < SceneModel::OUTPUTS_PER_VEHICLE; ++c) {
            atomicAdd(&outputs[1 + n * SceneModel::OUTPUTS_PER_VEHICLE + c], w * SceneModel::output(slot, c));
        }
    }
}

__global__ void nothing() {}

}  // namespace

platform::GpuStatus emptyKernel(platform::StreamHandle stream) noexcept {
    nothing<<<1, 1, 0, stream>>>();
    return AUGUR_CUDA_CHECK_LAUNCH();
}

platform::GpuStatus sceneOutputsAtomicAdd(const float* states, const float* logWeights, std::uint32_t particles,
                                          std::uint32_t vehicles, kernels::pf::StateLayout layout, float* outputs,
                                          platform::StreamHandle stream) noexcept {
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cudaMemsetAsync(
        outputs, 0, sizeof(float) * (1 + vehicles * SceneModel::OUTPUTS_PER_VEHICLE), stream)));
    atomicOutputs<<<(particles + 255) / 256, 256, 0, stream>>>(states, logWeights, particles, vehicles, layout, outputs);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

}  // namespace augur::bench
