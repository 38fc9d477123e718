// The Kalman filter of a whole measurement history in parallel-in-time form: an associative prefix scan
// (Särkkä & García-Fernández, "Temporal parallelization of Bayesian smoothers", IEEE TAC 66(1), 2021,
// §III, Lemmas 7–8), next to the sequential filter (the bank's cycle applied step by step) as reference.
// CPU only so far; it uses the blocked decomposition of the smoother (smoother.hpp) with a prefix instead
// of a suffix scan.
//
// Elements (D-state model, H = [I₂ 0], step k−1 → k with F = F(dt_{k−1}), Q = Q(dt_{k−1})):
//   step 0 (the given initial estimate): A = 0, b = m₀, C = P₀, η = 0, J = 0;
//   step k with a measurement y_k:  S = H Q Hᵀ + R, K = Q Hᵀ S⁻¹, A = (I − K H) F, b = K y,
//                                   C = (I − K H) Q, η = Fᵀ Hᵀ S⁻¹ y, J = Fᵀ Hᵀ S⁻¹ H F;
//   step k without one:             A = F, b = 0, C = Q, η = 0, J = 0.
// Combine (i earlier than j), M = (I + C_i J_j)⁻¹ (an LU solve):
//   A = A_j M A_i,  b = A_j M (b_i + C_i η_j) + b_j,  C = A_j M C_i A_jᵀ + C_j,
//   η = A_iᵀ Mᵀ (η_j − J_j b_i) + η_i,  J = A_iᵀ Mᵀ J_j A_i + J_i.
// The prefix e_0 ⊗ … ⊗ e_k holds the filtered mean in b and covariance in C.
#pragma once

#include <cstddef>
#include <cstdint>

#include "augur/kernels/kf/motion_model.hpp"
#include "augur/kernels/kf/smoother.hpp"

namespace augur::kernels::kf {

/// Measurements of `targets` targets over `steps` steps, in the smoother's layout: z and its variances at
/// [(k·2 + axis)·B + b], the flag at [k·B + b], dt (step k → k+1) at [k·B + b]; the estimate of step 0
/// (mean [c·B + b], packed covariance [c·B + b]) is given, the measurement of step 0 is not used.
template <typename Real>
struct MeasurementHistory {
    const Real* initialMean{nullptr};
    const Real* initialCov{nullptr};
    const Real* dt_s{nullptr};
    const Real* z_m{nullptr};
    const Real* measVar_m2{nullptr};
    const std::uint8_t* hasMeasurement{nullptr};
    std::size_t steps{0};
    std::size_t targets{0};
};

/// Filtered means and packed covariances of every step (smoother layout).
template <typename Real>
struct FilteredOutput {
    Real* mean{nullptr};
    Real* cov{nullptr};
};

namespace cpu {

/// Sequential reference: step 0 copied from the initial estimate, then one bank cycle (cpu::step) per step.
/// O(B·T·D³); noexcept, allocation-free.
template <typename Real>
void filterSequential(const ModelParams<Real>& params, const MeasurementHistory<Real>& in, FilteredOutput<Real> out) noexcept;

/// Reals of scratch filterParallel needs.
[[nodiscard]] std::size_t parallelFilterScratchCount(MotionModel model, std::size_t steps, std::size_t targets,
                                                     std::size_t chunkLength = DEFAULT_CHUNK_LENGTH) noexcept;

/// The parallel-in-time filter evaluated with the blocked prefix scan on one core. chunkLength ≥ 2.
/// noexcept, allocation-free.
template <typename Real>
void filterParallel(const ModelParams<Real>& params, const MeasurementHistory<Real>& in, FilteredOutput<Real> out,
                    Real* scratch, std::size_t chunkLength = DEFAULT_CHUNK_LENGTH) noexcept;

}  // namespace cpu

}  // namespace augur::kernels::kf
