#include "augur/kernels/pf/testing/gather_baseline.hpp"

#include <thrust/copy.h>
#include <thrust/execution_policy.h>
#include <thrust/iterator/permutation_iterator.h>

#include <cuda_runtime.h>

namespace augur::kernels::pf::cuda::testing {
namespace {

template <int FLOATS>
struct FixedParticle {
    float f[FLOATS];
};

template <int FLOATS>
platform::GpuStatus thrustGather(const float* src, float* dst, const std::uint32_t* copyIndex, std::uint32_t particles,
                                 platform::StreamHandle stream) {
    const auto* from = reinterpret_cast<const FixedParticle<FLOATS>*>(src);
    auto* to = reinterpret_cast<FixedParticle<FLOATS>*>(dst);
    auto begin = thrust::make_permutation_iterator(from, copyIndex);
    try {
        thrust::copy(thrust::cuda::par_nosync.on(stream), begin, begin + particles, to);
    } catch (...) {  // Thrust reports CUDA errors by throwing; this API reports them as a status
        const cudaError_t error = cudaGetLastError();
        return AUGUR_CUDA_CHECK(error != cudaSuccess ? error : cudaErrorUnknown);
    }
    return AUGUR_CUDA_CHECK_LAUNCH();
}

}  // namespace

platform::GpuStatus gatherParticlesThrust(const float* src, float* dst, const std::uint32_t* copyIndex,
                                          std::uint32_t particles, std::uint32_t stride,
                                          platform::StreamHandle stream) noexcept {
    switch (stride) {
        case 12: return thrustGather<12>(src, dst, copyIndex, particles, stream);
        case 240: return thrustGather<240>(src, dst, copyIndex, particles, stream);
        default: return AUGUR_CUDA_CHECK(cudaErrorInvalidValue);
    }
}

}  // namespace augur::kernels::pf::cuda::testing
