// Motion models of the Kalman bank and the smoother: 2-D constant velocity (CV, 4 states) and constant
// acceleration (CA, 6 states) with white-noise-acceleration process noise, and the packed storage of
// symmetric covariance matrices shared by the CPU reference and the CUDA kernels.
//
// State order: CV [x, y, vx, vy]; CA [x, y, vx, vy, ax, ay] (metres, m/s, m/s²). The measurement is the
// position z = H x = [x, y]. Process noise follows the continuous white-noise model: for a time step dt
// and spectral density q (m²/s³ for CV's acceleration noise, m²/s⁵ for CA's jerk noise) each axis gets
//   CV: q·[dt³/3 dt²/2; dt²/2 dt]
//   CA: q·[dt⁵/20 dt⁴/8 dt³/6; dt⁴/8 dt³/3 dt²/2; dt³/6 dt²/2 dt]
// (Bar-Shalom, Li, Kirubarajan, "Estimation with Applications to Tracking and Navigation", §6.2.2, §6.2.3).
//
// Everything here is constexpr and usable from device code (the build passes --expt-relaxed-constexpr).
#pragma once

#include <cstddef>

namespace augur::kernels::kf {

enum class MotionModel { ConstantVelocity, ConstantAcceleration };

/// Number of state components of `model` (4 or 6).
[[nodiscard]] constexpr int stateDim(MotionModel model) noexcept {
    return model == MotionModel::ConstantVelocity ? 4 : 6;
}

/// Number of stored entries of a symmetric D×D matrix (its upper triangle): D(D+1)/2.
[[nodiscard]] constexpr int packedSize(int dim) noexcept { return dim * (dim + 1) / 2; }

/// Position of entry (i, j) of a symmetric D×D matrix in its packed upper triangle, row-major:
/// (0,0) (0,1) … (0,D−1) (1,1) … (D−1,D−1). Symmetric in (i, j).
[[nodiscard]] constexpr int packedIndex(int dim, int i, int j) noexcept {
    const int r = i < j ? i : j;
    const int c = i < j ? j : i;
    return r * dim - r * (r - 1) / 2 + (c - r);
}

/// Measurement dimension (position x, y).
inline constexpr int MEAS_DIM = 2;

/// Model parameters shared by every target of a bank or a smoother call.
template <typename Real>
struct ModelParams {
    MotionModel model{MotionModel::ConstantVelocity};
    /// Spectral density q of the white-noise acceleration (CV, m²/s³) or jerk (CA, m²/s⁵); > 0.
    Real noiseDensity{1};
};

}  // namespace augur::kernels::kf
