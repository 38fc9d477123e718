// Device functions of the kf family: the per-target maths of the bank step, the RTS step and the scan
// elements, on small fixed-size matrices held in registers (row-major D×D arrays, fully unrolled).
// Internal to kernels/kf; the CPU reference (Eigen) computes the same quantities independently. Compiles
// as CUDA device code and, for tests, as plain host C++.
#pragma once

#include "augur/kernels/kf/motion_model.hpp"

#if defined(__CUDACC__)
#define AUGUR_KF_DEVICE __device__ __forceinline__
#define AUGUR_KF_UNROLL _Pragma("unroll")
#else
// Host compilation of the same code: the device-code tests (tests/kernels/kf/device_code_test.cpp) run
// every thread body on the CPU against the Eigen reference.
#include <cmath>
#define AUGUR_KF_DEVICE inline
#define AUGUR_KF_UNROLL
#endif

namespace augur::kernels::kf::device {

template <typename Real>
AUGUR_KF_DEVICE Real squareRoot(Real v) {
#if defined(__CUDACC__)
    return sqrt(v);
#else
    return std::sqrt(v);
#endif
}

/// M ← F M (rows) for F(dt) of the D-state model: position rows += dt·velocity (+ dt²/2·acceleration),
/// velocity rows += dt·acceleration (CA). Works on vectors with cols = 1.
template <typename Real, int D, int COLS>
AUGUR_KF_DEVICE void applyTransitionRows(Real (&m)[D * COLS], Real dt) {
    const Real half = Real(0.5) * dt * dt;
AUGUR_KF_UNROLL
    for (int axis = 0; axis < 2; ++axis) {
AUGUR_KF_UNROLL
        for (int c = 0; c < COLS; ++c) {
            Real pos = m[axis * COLS + c] + dt * m[(2 + axis) * COLS + c];
            if constexpr (D == 6) {
                pos += half * m[(4 + axis) * COLS + c];
                m[(2 + axis) * COLS + c] += dt * m[(4 + axis) * COLS + c];
            }
            m[axis * COLS + c] = pos;
        }
    }
}

/// M ← M Fᵀ (columns).
template <typename Real, int D>
AUGUR_KF_DEVICE void applyTransitionCols(Real (&m)[D * D], Real dt) {
    const Real half = Real(0.5) * dt * dt;
AUGUR_KF_UNROLL
    for (int axis = 0; axis < 2; ++axis) {
AUGUR_KF_UNROLL
        for (int r = 0; r < D; ++r) {
            Real pos = m[r * D + axis] + dt * m[r * D + 2 + axis];
            if constexpr (D == 6) {
                pos += half * m[r * D + 4 + axis];
                m[r * D + 2 + axis] += dt * m[r * D + 4 + axis];
            }
            m[r * D + axis] = pos;
        }
    }
}

/// M += Q(dt) (white-noise acceleration / jerk, motion_model.hpp).
template <typename Real, int D>
AUGUR_KF_DEVICE void addProcessNoise(Real (&m)[D * D], Real dt, Real q) {
    const Real dt2 = dt * dt;
    const Real dt3 = dt2 * dt;
AUGUR_KF_UNROLL
    for (int axis = 0; axis < 2; ++axis) {
        const int p = axis;
        const int v = 2 + axis;
        if constexpr (D == 4) {
            m[p * D + p] += q * dt3 / Real(3);
            m[p * D + v] += q * dt2 / Real(2);
            m[v * D + p] += q * dt2 / Real(2);
            m[v * D + v] += q * dt;
        } else {
            const int a = 4 + axis;
            const Real dt4 = dt3 * dt;
            const Real dt5 = dt4 * dt;
            m[p * D + p] += q * dt5 / Real(20);
            m[p * D + v] += q * dt4 / Real(8);
            m[v * D + p] += q * dt4 / Real(8);
            m[p * D + a] += q * dt3 / Real(6);
            m[a * D + p] += q * dt3 / Real(6);
            m[v * D + v] += q * dt3 / Real(3);
            m[v * D + a] += q * dt2 / Real(2);
            m[a * D + v] += q * dt2 / Real(2);
            m[a * D + a] += q * dt;
        }
    }
}

/// In-place Cholesky factor (lower triangle of `a`, upper left untouched) of an SPD matrix.
template <typename Real, int D>
AUGUR_KF_DEVICE void cholesky(Real (&a)[D * D]) {
AUGUR_KF_UNROLL
    for (int j = 0; j < D; ++j) {
        Real d = a[j * D + j];
AUGUR_KF_UNROLL
        for (int k = 0; k < j; ++k) {
            d -= a[j * D + k] * a[j * D + k];
        }
        d = squareRoot(d);
        a[j * D + j] = d;
        const Real inv = Real(1) / d;
AUGUR_KF_UNROLL
        for (int i = j + 1; i < D; ++i) {
            Real s = a[i * D + j];
AUGUR_KF_UNROLL
            for (int k = 0; k < j; ++k) {
                s -= a[i * D + k] * a[j * D + k];
            }
            a[i * D + j] = s * inv;
        }
    }
}

/// Solves (L Lᵀ) X = B in place of B (D×D, every column), L from cholesky().
template <typename Real, int D>
AUGUR_KF_DEVICE void choleskySolve(const Real (&l)[D * D], Real (&b)[D * D]) {
AUGUR_KF_UNROLL
    for (int c = 0; c < D; ++c) {
AUGUR_KF_UNROLL
        for (int i = 0; i < D; ++i) {  // forward: L y = b
            Real s = b[i * D + c];
AUGUR_KF_UNROLL
            for (int k = 0; k < i; ++k) {
                s -= l[i * D + k] * b[k * D + c];
            }
            b[i * D + c] = s / l[i * D + i];
        }
AUGUR_KF_UNROLL
        for (int i = D - 1; i >= 0; --i) {  // backward: Lᵀ x = y
            Real s = b[i * D + c];
AUGUR_KF_UNROLL
            for (int k = i + 1; k < D; ++k) {
                s -= l[k * D + i] * b[k * D + c];
            }
            b[i * D + c] = s / l[i * D + i];
        }
    }
}

template <typename Real, int D>
AUGUR_KF_DEVICE void unpack(const Real (&packed)[packedSize(D)], Real (&m)[D * D]) {
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
AUGUR_KF_UNROLL
        for (int j = i; j < D; ++j) {
            m[i * D + j] = packed[packedIndex(D, i, j)];
            m[j * D + i] = packed[packedIndex(D, i, j)];
        }
    }
}

/// Packs ½(M + Mᵀ).
template <typename Real, int D>
AUGUR_KF_DEVICE void packSymmetric(const Real (&m)[D * D], Real (&packed)[packedSize(D)]) {
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
AUGUR_KF_UNROLL
        for (int j = i; j < D; ++j) {
            packed[packedIndex(D, i, j)] = Real(0.5) * (m[i * D + j] + m[j * D + i]);
        }
    }
}

/// Joseph update of (x, P) with a measurement of the two state components i0, i0 + 1 (H = [0 … I₂ … 0]),
/// value (z0, z1) and full covariance R = [[r00, r01], [r01, r11]]. Returns the NIS νᵀS⁻¹ν.
template <typename Real, int D>
AUGUR_KF_DEVICE Real updatePair(Real (&x)[D], Real (&p)[D * D], int i0, Real z0, Real z1, Real r00, Real r01,
                                Real r11) {
    const int i1 = i0 + 1;
    // S = H P Hᵀ + R (2×2), closed-form inverse.
    const Real s00 = p[i0 * D + i0] + r00;
    const Real s01 = Real(0.5) * (p[i0 * D + i1] + p[i1 * D + i0]) + r01;
    const Real s11 = p[i1 * D + i1] + r11;
    const Real invDet = Real(1) / (s00 * s11 - s01 * s01);
    const Real i00 = s11 * invDet;
    const Real iOff = -s01 * invDet;
    const Real i11 = s00 * invDet;
    const Real nu0 = z0 - x[i0];
    const Real nu1 = z1 - x[i1];
    // K = P Hᵀ S⁻¹ (D×2).
    Real k0[D];
    Real k1[D];
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
        k0[i] = p[i * D + i0] * i00 + p[i * D + i1] * iOff;
        k1[i] = p[i * D + i0] * iOff + p[i * D + i1] * i11;
        x[i] += k0[i] * nu0 + k1[i] * nu1;
    }
    // A = (I − K H) P = P − K · (rows i0, i1 of P).
    Real row0[D];
    Real row1[D];
AUGUR_KF_UNROLL
    for (int j = 0; j < D; ++j) {
        row0[j] = p[i0 * D + j];
        row1[j] = p[i1 * D + j];
    }
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
AUGUR_KF_UNROLL
        for (int j = 0; j < D; ++j) {
            p[i * D + j] -= k0[i] * row0[j] + k1[i] * row1[j];
        }
    }
    // P' = A (I − K H)ᵀ + K R Kᵀ = A − (cols i0, i1 of A) Kᵀ + K R Kᵀ.
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
        const Real a0 = p[i * D + i0];
        const Real a1 = p[i * D + i1];
AUGUR_KF_UNROLL
        for (int j = 0; j < D; ++j) {
            p[i * D + j] += -(a0 * k0[j] + a1 * k1[j]) +
                            (k0[i] * r00 * k0[j] + k1[i] * r11 * k1[j] + r01 * (k0[i] * k1[j] + k1[i] * k0[j]));
        }
    }
    return nu0 * (i00 * nu0 + iOff * nu1) + nu1 * (iOff * nu0 + i11 * nu1);
}

/// A velocity measurement (vx, vy) with its full covariance (xx, xy, yy); `present` false: none.
template <typename Real>
struct VelocityMeasurement {
    bool present{false};
    Real vx{0};
    Real vy{0};
    Real rxx{1};
    Real rxy{0};
    Real ryy{1};
};

/// One bank cycle for one target: predict with dt, then (when `measured`) the Joseph update with
/// H = [I₂ 0] and R = diag(rx, ry), followed by the velocity measurement when it is present (sequential
/// updates: position and velocity noise are independent, so this equals the joint 4-D update). Returns
/// the NIS, summed over the updates (0 without a measurement).
template <typename Real, int D>
AUGUR_KF_DEVICE Real bankStep(Real (&x)[D], Real (&p)[D * D], Real dt, Real q, bool measured, Real zx,
                                         Real zy, Real rx, Real ry, const VelocityMeasurement<Real>& velocity) {
    applyTransitionRows<Real, D, 1>(x, dt);
    applyTransitionRows<Real, D, D>(p, dt);
    applyTransitionCols<Real, D>(p, dt);
    addProcessNoise<Real, D>(p, dt, q);
    if (!measured) {
        return Real(0);
    }
    Real nis = updatePair<Real, D>(x, p, 0, zx, zy, rx, Real(0), ry);
    if (velocity.present) {
        nis += updatePair<Real, D>(x, p, 2, velocity.vx, velocity.vy, velocity.rxx, velocity.rxy, velocity.ryy);
    }
    return nis;
}

/// Scan element in registers (smoother_element.hpp): E row-major, g, L packed.
template <typename Real, int D>
struct Element {
    static constexpr int NP = packedSize(D);
    static constexpr int VALUES = D * D + D + NP;
    Real e[D * D];
    Real g[D];
    Real l[NP];
};

/// Element of a step from its filtered mean and packed covariance (`last`: E = 0, g = m, L = P).
/// E = P Fᵀ (F P Fᵀ + Q)⁻¹ by a Cholesky solve; L = P − E F P written as P − (E C)(E C)ᵀ with C the
/// Cholesky factor of F P Fᵀ + Q (symmetric by construction).
template <typename Real, int D>
AUGUR_KF_DEVICE void makeElement(Element<Real, D>& out, const Real (&m)[D], const Real (&pPacked)[packedSize(D)],
                                            Real dt, Real q, bool last) {
    if (last) {
AUGUR_KF_UNROLL
        for (int i = 0; i < D * D; ++i) {
            out.e[i] = Real(0);
        }
AUGUR_KF_UNROLL
        for (int i = 0; i < D; ++i) {
            out.g[i] = m[i];
        }
AUGUR_KF_UNROLL
        for (int i = 0; i < packedSize(D); ++i) {
            out.l[i] = pPacked[i];
        }
        return;
    }
    Real fp[D * D];  // F P, then Eᵀ
    unpack<Real, D>(pPacked, fp);
    applyTransitionRows<Real, D, D>(fp, dt);
    Real pp[D * D];  // F P Fᵀ + Q, then its Cholesky factor
AUGUR_KF_UNROLL
    for (int i = 0; i < D * D; ++i) {
        pp[i] = fp[i];
    }
    applyTransitionCols<Real, D>(pp, dt);
    addProcessNoise<Real, D>(pp, dt, q);
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {  // symmetrise before factorising
AUGUR_KF_UNROLL
        for (int j = i + 1; j < D; ++j) {
            const Real s = Real(0.5) * (pp[i * D + j] + pp[j * D + i]);
            pp[i * D + j] = s;
            pp[j * D + i] = s;
        }
    }
    cholesky<Real, D>(pp);
    choleskySolve<Real, D>(pp, fp);  // fp = (F P Fᵀ + Q)⁻¹ F P = Eᵀ
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
AUGUR_KF_UNROLL
        for (int j = 0; j < D; ++j) {
            out.e[i * D + j] = fp[j * D + i];
        }
    }
    // g = m − E F m.
    Real fm[D];
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
        fm[i] = m[i];
    }
    applyTransitionRows<Real, D, 1>(fm, dt);
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
        Real s = m[i];
AUGUR_KF_UNROLL
        for (int k = 0; k < D; ++k) {
            s -= out.e[i * D + k] * fm[k];
        }
        out.g[i] = s;
    }
    // W = E C (C lower Cholesky factor in pp); L = P − W Wᵀ.
    Real w[D * D];
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
AUGUR_KF_UNROLL
        for (int j = 0; j < D; ++j) {
            Real s = Real(0);
AUGUR_KF_UNROLL
            for (int k = j; k < D; ++k) {
                s += out.e[i * D + k] * pp[k * D + j];
            }
            w[i * D + j] = s;
        }
    }
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
AUGUR_KF_UNROLL
        for (int j = i; j < D; ++j) {
            Real s = pPacked[packedIndex(D, i, j)];
AUGUR_KF_UNROLL
            for (int k = 0; k < D; ++k) {
                s -= w[i * D + k] * w[j * D + k];
            }
            out.l[packedIndex(D, i, j)] = s;
        }
    }
}

/// acc ← a ⊗ acc with a the earlier element: E = E_a E, g = E_a g + g_a, L = E_a L E_aᵀ + L_a.
template <typename Real, int D>
AUGUR_KF_DEVICE void combineInto(const Element<Real, D>& a, Element<Real, D>& acc) {
    Real t[D * D];  // E_a L
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
AUGUR_KF_UNROLL
        for (int j = 0; j < D; ++j) {
            Real s = Real(0);
AUGUR_KF_UNROLL
            for (int k = 0; k < D; ++k) {
                s += a.e[i * D + k] * acc.l[packedIndex(D, k, j)];
            }
            t[i * D + j] = s;
        }
    }
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
AUGUR_KF_UNROLL
        for (int j = i; j < D; ++j) {
            Real s = a.l[packedIndex(D, i, j)];
AUGUR_KF_UNROLL
            for (int k = 0; k < D; ++k) {
                s += t[i * D + k] * a.e[j * D + k];
            }
            acc.l[packedIndex(D, i, j)] = s;
        }
    }
    Real g[D];
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
        Real s = a.g[i];
AUGUR_KF_UNROLL
        for (int k = 0; k < D; ++k) {
            s += a.e[i * D + k] * acc.g[k];
        }
        g[i] = s;
    }
    Real e[D * D];
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
AUGUR_KF_UNROLL
        for (int j = 0; j < D; ++j) {
            Real s = Real(0);
AUGUR_KF_UNROLL
            for (int k = 0; k < D; ++k) {
                s += a.e[i * D + k] * acc.e[k * D + j];
            }
            e[i * D + j] = s;
        }
    }
AUGUR_KF_UNROLL
    for (int i = 0; i < D; ++i) {
        acc.g[i] = g[i];
    }
AUGUR_KF_UNROLL
    for (int i = 0; i < D * D; ++i) {
        acc.e[i] = e[i];
    }
}

}  // namespace augur::kernels::kf::device
