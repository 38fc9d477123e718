// CUDA path of the Kalman bank (kalman_bank.hpp): one thread per target, state and covariance in
// registers, structure-of-arrays loads and stores so that every global access of a warp is coalesced.
#include <cuda_runtime.h>

#include "augur/kernels/kf/kalman_bank.hpp"
#include "kf_device.cuh"
#include "tuning.hpp"

namespace augur::kernels::kf::cuda {
namespace {

template <typename Real, int D>
__global__ void __launch_bounds__(tuning::BANK_BLOCK_THREADS)
    bankStepKernel(Real q, Real* __restrict__ mean, Real* __restrict__ cov, std::size_t count, std::size_t stride,
                   const Real* __restrict__ dt, const Real* __restrict__ z, const Real* __restrict__ measVar,
                   const std::uint8_t* __restrict__ present, Real* __restrict__ nis) {
    constexpr int NP = packedSize(D);
    const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (t >= count) {
        return;
    }
    Real x[D];
    Real packed[NP];
    Real p[D * D];
#pragma unroll
    for (int c = 0; c < D; ++c) {
        x[c] = mean[c * stride + t];
    }
#pragma unroll
    for (int c = 0; c < NP; ++c) {
        packed[c] = cov[c * stride + t];
    }
    device::unpack<Real, D>(packed, p);
    const bool measured = present[t] != 0;
    Real zx = 0;
    Real zy = 0;
    Real rx = 1;
    Real ry = 1;
    if (measured) {
        zx = z[t];
        zy = z[stride + t];
        rx = measVar[t];
        ry = measVar[stride + t];
    }
    const Real innovation = device::bankStep<Real, D>(x, p, dt[t], q, measured, zx, zy, rx, ry);
    device::packSymmetric<Real, D>(p, packed);
#pragma unroll
    for (int c = 0; c < D; ++c) {
        mean[c * stride + t] = x[c];
    }
#pragma unroll
    for (int c = 0; c < NP; ++c) {
        cov[c * stride + t] = packed[c];
    }
    if (nis != nullptr) {
        nis[t] = innovation;
    }
}

}  // namespace

template <typename Real>
platform::GpuStatus step(const ModelParams<Real>& params, BankState<Real> state, const CycleInput<Real>& input,
                         platform::StreamHandle stream) noexcept {
    if (state.count == 0) {
        return {};
    }
    const unsigned blocks =
        static_cast<unsigned>((state.count + tuning::BANK_BLOCK_THREADS - 1) / tuning::BANK_BLOCK_THREADS);
    if (params.model == MotionModel::ConstantVelocity) {
        bankStepKernel<Real, 4><<<blocks, tuning::BANK_BLOCK_THREADS, 0, stream>>>(
            params.noiseDensity, state.mean, state.cov, state.count, state.stride, input.dt_s, input.z_m,
            input.measVar_m2, input.hasMeasurement, input.nis);
    } else {
        bankStepKernel<Real, 6><<<blocks, tuning::BANK_BLOCK_THREADS, 0, stream>>>(
            params.noiseDensity, state.mean, state.cov, state.count, state.stride, input.dt_s, input.z_m,
            input.measVar_m2, input.hasMeasurement, input.nis);
    }
    return AUGUR_CUDA_CHECK_LAUNCH();
}

template platform::GpuStatus step<float>(const ModelParams<float>&, BankState<float>, const CycleInput<float>&,
                                         platform::StreamHandle) noexcept;
template platform::GpuStatus step<double>(const ModelParams<double>&, BankState<double>, const CycleInput<double>&,
                                          platform::StreamHandle) noexcept;

}  // namespace augur::kernels::kf::cuda
