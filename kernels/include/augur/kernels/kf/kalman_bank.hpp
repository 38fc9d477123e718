// The Kalman filter bank: N independent targets predicted and updated together each cycle.
//
// Model (Tager 2013, ch. 2; Bar-Shalom et al. §5.2): x_{k+1} = F(dt) x_k + q, q ~ N(0, Q(dt));
// z = H x + r, r ~ N(0, R). Per target and cycle: predict with its own time step dt, then, when a
// measurement is present, update in Joseph form
//   S = H P Hᵀ + R,  K = P Hᵀ S⁻¹,  x ← x + K (z − H x),  P ← (I − K H) P (I − K H)ᵀ + K R Kᵀ
// which keeps P symmetric positive semi-definite under rounding; the stored covariance is the packed
// upper triangle, so it is symmetric by construction. Without a measurement the target is predicted only.
// A target may also come with a measured velocity (vx, vy) and its full 2×2 covariance (a perception
// stack's speed and heading, converted: see polarVelocityCovariance): it is applied after the position
// as a second Joseph update with H = [0 I₂ 0] — the sequential form of the joint 4-D update, exact
// because position and velocity noise are independent.
//
// Layout (structure of arrays, so that thread t of the CUDA kernel reads component c of every target
// in one coalesced transaction): component c of target t lives at data[c * stride + t], stride ≥ count.
// Means have stateDim(model) components, covariances packedSize(stateDim(model)).
//
// Two implementations behind the same arguments: cpu::step (Eigen fixed-size matrices, the reference)
// and cuda::step (one thread per target, matrices in registers). Both are run-phase functions:
// noexcept, allocation-free; the CUDA one is asynchronous on `stream` and capturable into a graph.
#pragma once

#include <cmath>
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
    /// Optional [count] output: innovation νᵀS⁻¹ν (χ² with 2 degrees of freedom, 4 with a velocity), 0 when
    /// missing; nullptr: not written.
    Real* nis{nullptr};
    /// Optional [2 × stride] measured velocity, vx at [t], vy at [stride + t]; nullptr: positions only.
    const Real* zVel_mps{nullptr};
    /// [3 × stride] its covariance (set with zVel_mps): xx at [t], xy at [stride + t], yy at [2·stride + t];
    /// positive definite.
    const Real* velCov_m2ps2{nullptr};
    /// [count] (set with zVel_mps) 0: no velocity for this target this cycle. A velocity is used only
    /// together with a position (hasMeasurement).
    const std::uint8_t* hasVelocity{nullptr};
};

/// Covariance of the velocity v = speed·(cos θ, sin θ) measured as speed and heading with independent
/// errors of standard deviations stdSpeed and stdHeading, to first order: J diag(σ_v², σ_θ²) Jᵀ with
/// J = ∂v/∂(speed, θ). Writes xx, xy, yy. noexcept, O(1).
template <typename Real>
void polarVelocityCovariance(Real speed_mps, Real heading_rad, Real stdSpeed_mps, Real stdHeading_rad, Real& xx,
                             Real& xy, Real& yy) noexcept {
    const Real c = std::cos(heading_rad);
    const Real s = std::sin(heading_rad);
    const Real along = stdSpeed_mps * stdSpeed_mps;
    const Real across = speed_mps * speed_mps * stdHeading_rad * stdHeading_rad;
    xx = along * c * c + across * s * s;
    xy = (along - across) * c * s;
    yy = along * s * s + across * c * c;
}

namespace cpu {

/// One predict + Joseph update(s) cycle for targets 0 … count−1 (Eigen reference). O(count·D³);
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
