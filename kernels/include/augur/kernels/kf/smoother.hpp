// Rauch–Tung–Striebel smoothing of whole target histories: the classic sequential backward pass (the
// reference) and the parallel-in-time form as an associative suffix scan (Särkkä & García-Fernández,
// "Temporal parallelization of Bayesian smoothers", IEEE TAC 66(1), 2021, §IV, eqs. (40)–(46)), with
// smoothed means AND covariances (Tager 2013, ch. 3, smoothed states only).
//
// Input: the filtered means and covariances (m_k, P_k), k = 0 … T−1, of B targets, and the time step
// dt_k from k to k+1 of each target (F_k = F(dt_k), Q_k = Q(dt_k): time-varying models). Output: the
// smoothed means and covariances in the same layout.
//
// Layout (time-major, target-minor structure of arrays): component c of target b at step k lives at
// data[(k·C + c)·B + b], C = stateDim (means) or packedSize(stateDim) (covariances); dt at dt_s[k·B + b]
// (the entry of step T−1 is not read). For one target (B = 1) a step's components are contiguous; for a
// batch, consecutive targets are consecutive addresses so one-thread-per-target access coalesces.
//
// Scan elements (smoother_element.hpp) are combined by a blocked scan: each target's history is cut into
// chunks of `chunkLength`, each chunk folded sequentially into an aggregate, the aggregates scanned
// recursively the same way, and a fix-up pass scans every chunk again from its carried suffix. The CPU
// parallel path follows exactly the CUDA decomposition, so both combine the same elements in the same
// order. Work O(B·T·D³), depth O(chunkLength · log_chunkLength T).
#pragma once

#include <cstddef>

#include "augur/kernels/kf/motion_model.hpp"
#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::kf {

/// Filtered histories of `targets` targets over `steps` steps (layout above).
template <typename Real>
struct FilteredHistory {
    const Real* mean{nullptr};
    const Real* cov{nullptr};
    const Real* dt_s{nullptr};
    std::size_t steps{0};    ///< T ≥ 1
    std::size_t targets{0};  ///< B ≥ 1
};

/// Smoothed output, same layout and sizes as the history it came from. May not alias the input.
template <typename Real>
struct SmoothedHistory {
    Real* mean{nullptr};
    Real* cov{nullptr};
};

/// Default chunk length of the blocked scan (see kernels/kf/tuning.hpp for the measured choice).
inline constexpr std::size_t DEFAULT_CHUNK_LENGTH = 32;

namespace cpu {

/// Classic RTS backward recursion, per target (the reference):
///   P⁻ = F P_k Fᵀ + Q,  G = P_k Fᵀ (P⁻)⁻¹ (a Cholesky solve),  mˢ_k = m_k + G (mˢ_{k+1} − F m_k),
///   Pˢ_k = P_k + G (Pˢ_{k+1} − P⁻) Gᵀ.
/// O(B·T·D³); noexcept, allocation-free.
template <typename Real>
void smoothSequential(const ModelParams<Real>& params, const FilteredHistory<Real>& history,
                      SmoothedHistory<Real> out) noexcept;

/// Number of Real values of scratch smoothParallel needs for these sizes.
[[nodiscard]] std::size_t smootherScratchCount(MotionModel model, std::size_t steps, std::size_t targets,
                                               std::size_t chunkLength = DEFAULT_CHUNK_LENGTH) noexcept;

/// The parallel-in-time smoother evaluated on one core with the blocked-scan decomposition of the GPU.
/// `scratch` holds at least smootherScratchCount(...) values. chunkLength ≥ 2. noexcept, allocation-free.
template <typename Real>
void smoothParallel(const ModelParams<Real>& params, const FilteredHistory<Real>& history, SmoothedHistory<Real> out,
                    Real* scratch, std::size_t chunkLength = DEFAULT_CHUNK_LENGTH) noexcept;

}  // namespace cpu

namespace cuda {

/// Bytes of device scratch smoothParallel needs for these sizes (init phase).
[[nodiscard]] std::size_t smootherScratchBytes(MotionModel model, std::size_t steps, std::size_t targets,
                                               std::size_t realBytes) noexcept;

/// The parallel smoother on the GPU: all targets and all chunks in each launch (2·levels + 1 launches,
/// levels = ⌈log_chunkLength T⌉ − 1). Device pointers; `scratch` of at least smootherScratchBytes(...).
/// Asynchronous on `stream`; graph-capturable; noexcept, allocation-free.
template <typename Real>
[[nodiscard]] platform::GpuStatus smoothParallel(const ModelParams<Real>& params, const FilteredHistory<Real>& history,
                                                 SmoothedHistory<Real> out, void* scratch, std::size_t scratchBytes,
                                                 platform::StreamHandle stream) noexcept;

/// The sequential RTS recursion on the GPU, one thread per target (the GPU baseline). Device pointers;
/// asynchronous on `stream`; noexcept, allocation-free.
template <typename Real>
[[nodiscard]] platform::GpuStatus smoothSequential(const ModelParams<Real>& params, const FilteredHistory<Real>& history,
                                                   SmoothedHistory<Real> out, platform::StreamHandle stream) noexcept;

}  // namespace cuda

}  // namespace augur::kernels::kf
