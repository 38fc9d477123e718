// The agent of the filter's initialisation kernel: every particle drawn from the first inputs.
// Private to kernels/pf (filter_cuda.cu).
#pragma once

#include <cstdint>

#include "common.cuh"

namespace augur::kernels::pf::cuda::agent {

/// The initial draw: thread k of the grid draws particle k from the inputs (Model::initialize) with log-weight 0.
template <typename Model>
__device__ __forceinline__ void initializeParticles(const Shape& s, const typename Model::Params& params,
                                                    const typename Model::VehicleInput* inputs) {
    const std::uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < s.particles) {
        Model::initialize(particleRef(s, 0, k), s.vehicles, params, inputs, s.seed);
        s.logWeights[k] = 0.0F;
    }
}

}  // namespace augur::kernels::pf::cuda::agent
