// One element of the parallel RTS smoother's associative scan and its combine operator
// (Särkkä & García-Fernández, IEEE TAC 2021, eqs. (41)–(46)).
//
// Element k < T−1 of a history (0-based; F, Q of the step k → k+1):
//   E_k = P_k Fᵀ (F P_k Fᵀ + Q)⁻¹ (solved with a Cholesky factor, never inverted),
//   g_k = m_k − E_k F m_k,  L_k = P_k − E_k F P_k;
// the last element: E = 0, g = m_{T−1}, L = P_{T−1}.
// Combine (a earlier than b): E = E_a E_b, g = E_a g_b + g_a, L = E_a L_b E_aᵀ + L_a.
// The suffix scan a_k ⊗ a_{k+1} ⊗ … ⊗ a_{T−1} holds the smoothed mean in g and covariance in L.
#pragma once

#include "augur/kernels/kf/motion_model.hpp"

namespace augur::kernels::kf {

/// E row-major D×D, g length D, L packed symmetric (packedSize(D)).
template <typename Real, int D>
struct ScanElement {
    static constexpr int DIM = D;
    static constexpr int VALUES = D * D + D + packedSize(D);  ///< Reals in one element
    Real E[D * D];
    Real g[D];
    Real L[packedSize(D)];
};

namespace cpu {

/// a ⊗ b with a the earlier element (Eigen reference). noexcept, allocation-free.
template <typename Real, int D>
[[nodiscard]] ScanElement<Real, D> combine(const ScanElement<Real, D>& earlier, const ScanElement<Real, D>& later) noexcept;

/// The element of step k from its filtered mean (D) and packed covariance; `last` for k = T−1 (dt unused).
template <typename Real, int D>
[[nodiscard]] ScanElement<Real, D> makeElement(const ModelParams<Real>& params, const Real* mean, const Real* covPacked,
                                               Real dt_s, bool last) noexcept;

}  // namespace cpu

}  // namespace augur::kernels::kf
