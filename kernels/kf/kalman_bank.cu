// CUDA path of the Kalman bank (kalman_bank.hpp): host API → launch shape from tuning.hpp → thin
// __global__ entry → device::bankStepThread (kf_threads.cuh), one thread per target, state and covariance
// in registers, structure-of-arrays loads and stores so that every global access of a warp is coalesced.
#include <cuda_runtime.h>

#include "augur/kernels/kf/kalman_bank.hpp"
#include "kf_threads.cuh"
#include "tuning.hpp"

namespace augur::kernels::kf::cuda {
namespace {

template <typename Real, int D>
__global__ void __launch_bounds__(tuning::BANK_BLOCK_THREADS) bankStepKernel(device::BankArgs<Real> args) {
    device::bankStepThread<Real, D>(args, static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x);
}

}  // namespace

template <typename Real>
platform::GpuStatus step(const ModelParams<Real>& params, BankState<Real> state, const CycleInput<Real>& input,
                         platform::StreamHandle stream) noexcept {
    if (state.count == 0) {
        return {};
    }
    const device::BankArgs<Real> args{params.noiseDensity, state.mean,         state.cov,
                                      state.count,         state.stride,       input.dt_s,
                                      input.z_m,           input.measVar_m2,   input.hasMeasurement,
                                      input.nis,           input.zVel_mps,     input.velCov_m2ps2,
                                      input.hasVelocity};
    const unsigned blocks =
        static_cast<unsigned>((state.count + tuning::BANK_BLOCK_THREADS - 1) / tuning::BANK_BLOCK_THREADS);
    if (params.model == MotionModel::ConstantVelocity) {
        bankStepKernel<Real, 4><<<blocks, tuning::BANK_BLOCK_THREADS, 0, stream>>>(args);
    } else {
        bankStepKernel<Real, 6><<<blocks, tuning::BANK_BLOCK_THREADS, 0, stream>>>(args);
    }
    return AUGUR_CUDA_CHECK_LAUNCH();
}

template platform::GpuStatus step<float>(const ModelParams<float>&, BankState<float>, const CycleInput<float>&,
                                         platform::StreamHandle) noexcept;
template platform::GpuStatus step<double>(const ModelParams<double>&, BankState<double>, const CycleInput<double>&,
                                          platform::StreamHandle) noexcept;

}  // namespace augur::kernels::kf::cuda
