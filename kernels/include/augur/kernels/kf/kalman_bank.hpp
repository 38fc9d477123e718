// The Kalman filter bank: N independent targets predicted and updated together each cycle.
//
// Model (Tager 2013, ch. 2; Bar-Shalom et al. §5.2): x_{k+1} = F(dt) x_k + q, q ~ N(0, Q(dt));
// z = H x + r, r ~ N(0, R). Per target and cycle: predict with its own time step dt, then, when a
// measurement is present, update in Joseph form
//   S = H P Hᵀ + R,  K = P Hᵀ S⁻¹,  x ← x + K (z − H x),  P ← (I − K H) P (I − K H)ᵀ + K R Kᵀ
// which keeps P symmetric positive semi-definite under rounding; the stored covariance is the packed
// upper triangle, so it is symmetric by construction. Without a measurement the target is predicted only.
//
// Layout (structure of arrays, so that thread t of the CUDA kernel reads component c of every target
// in one coalesced transaction): component c of target t lives at data[c * stride + t], stride ≥ count.
// Means have stateDim(model) components, covariances packedSize(stateDim(model)).
//
// Two implementations behind the same arguments: cpu::step (Eigen fixed-size matrices, the reference)
// and cuda::step (one thread per target, matrices in registers). Both are run-phase functions:
// noexcept, allocation-free; the CUDA one is asynchronous on `stream` and capturable into a graph.
#pragma once

#include <cstddef>
#include <cstdint>

#include "augur/kernels/kf/motion_model.hpp"
#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::kf {

/// The filtered states of a bank (see the layout above). Device pointers for cuda::step.
template <typename Real>
struct BankState {
    Real* mean{nullptr};  ///< [stateDim × stride]
    Real* cov{nullptr};   ///< [packedSize(stateDim) × stride]
    std::size_t count{0};   ///< targets processed: 0 … count−1
    std::size_t stride{0};  ///< distance between components, ≥ count
};

/// One cycle's inputs, same layout (index t, stride of the BankState).
template <typename Real>
struct CycleInput {
    const Real* dt_s{nullptr};                    ///< [count] time step of each target, ≥ 0
    const Real* z_m{nullptr};                     ///< [2 × stride] measured x at [t], y at [stride + t]
    const Real* measVar_m2{nullptr};              ///< [2 × stride] variances of x and y, > 0
    const std::uint8_t* hasMeasurement{nullptr};  ///< [count] 0: missing (predict only)
    Real* nis{nullptr};  ///< optional [count] output: innovation νᵀS⁻¹ν, 0 when missing; nullptr: not written
};

namespace cpu {

/// One predict + Joseph update cycle for targets 0 … count−1 (Eigen reference). O(count·D³);
/// noexcept, allocation-free. Precondition: arguments valid for state.count targets.
template <typename Real>
void step(const ModelParams<Real>& params, BankState<Real> state, const CycleInput<Real>& input) noexcept;

/// Writes an initial state for target t: position (x, y), zero velocity (and acceleration), a diagonal
/// covariance with the given variances. Host memory. noexcept.
template <typename Real>
void initializeTarget(MotionModel model, BankState<Real> state, std::size_t t, Real x_m, Real y_m, Real posVar_m2,
                      Real velVar_m2ps2, Real accVar_m2ps4) noexcept;

}  // namespace cpu

namespace cuda {

/// cpu::step on the GPU: one thread per target, state and covariance in registers, every global access
/// coalesced. All pointers are device (or mapped) memory. Asynchronous on `stream`; graph-capturable;
/// noexcept, allocation-free. Returns the launch status. Without the CUDA backend compiled in it returns
/// an error (cudaErrorNoDevice).
template <typename Real>
[[nodiscard]] platform::GpuStatus step(const ModelParams<Real>& params, BankState<Real> state,
                                       const CycleInput<Real>& input, platform::StreamHandle stream) noexcept;

}  // namespace cuda

}  // namespace augur::kernels::kf
