// F(dt), Q(dt), H of the motion models as Eigen fixed-size matrices, and packing helpers (CPU reference).
// Internal to kernels/kf.
#pragma once

#include <Eigen/Dense>

#include "augur/kernels/kf/motion_model.hpp"

namespace augur::kernels::kf::detail {

template <typename Real, int D>
using Mat = Eigen::Matrix<Real, D, D>;
template <typename Real, int D>
using Vec = Eigen::Matrix<Real, D, 1>;

/// Transition F(dt): position += dt·v (+ dt²/2·a); velocity += dt·a (CA).
template <typename Real, int D>
Mat<Real, D> transition(Real dt) {
    Mat<Real, D> f = Mat<Real, D>::Identity();
    for (int axis = 0; axis < 2; ++axis) {
        f(axis, 2 + axis) = dt;
        if constexpr (D == 6) {
            f(axis, 4 + axis) = Real(0.5) * dt * dt;
            f(2 + axis, 4 + axis) = dt;
        }
    }
    return f;
}

/// Process noise Q(dt) of the continuous white-noise model with density q (see motion_model.hpp).
template <typename Real, int D>
Mat<Real, D> processNoise(Real dt, Real q) {
    Mat<Real, D> m = Mat<Real, D>::Zero();
    const Real dt2 = dt * dt;
    const Real dt3 = dt2 * dt;
    for (int axis = 0; axis < 2; ++axis) {
        const int p = axis;
        const int v = 2 + axis;
        if constexpr (D == 4) {
            m(p, p) = q * dt3 / Real(3);
            m(p, v) = m(v, p) = q * dt2 / Real(2);
            m(v, v) = q * dt;
        } else {
            const int a = 4 + axis;
            const Real dt4 = dt3 * dt;
            const Real dt5 = dt4 * dt;
            m(p, p) = q * dt5 / Real(20);
            m(p, v) = m(v, p) = q * dt4 / Real(8);
            m(p, a) = m(a, p) = q * dt3 / Real(6);
            m(v, v) = q * dt3 / Real(3);
            m(v, a) = m(a, v) = q * dt2 / Real(2);
            m(a, a) = q * dt;
        }
    }
    return m;
}

/// Symmetric matrix from a packed upper triangle.
template <typename Real, int D>
Mat<Real, D> unpack(const Real* packed) {
    Mat<Real, D> m;
    for (int i = 0; i < D; ++i) {
        for (int j = i; j < D; ++j) {
            m(i, j) = m(j, i) = packed[packedIndex(D, i, j)];
        }
    }
    return m;
}

/// Packs the symmetric part ½(M + Mᵀ) of `m`.
template <typename Real, int D>
void pack(const Mat<Real, D>& m, Real* packed) {
    for (int i = 0; i < D; ++i) {
        for (int j = i; j < D; ++j) {
            packed[packedIndex(D, i, j)] = Real(0.5) * (m(i, j) + m(j, i));
        }
    }
}

}  // namespace augur::kernels::kf::detail
