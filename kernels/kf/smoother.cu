// CUDA smoothers (smoother.hpp): the parallel-in-time RTS smoother as a blocked suffix scan over all
// targets and chunks at once, and the sequential RTS recursion with one thread per target (baseline).
//
// Layers: host API → pass plan (device::planScan) and launch shapes from tuning.hpp → thin __global__
// entries → thread bodies in kf_threads.cuh.
// Scan (after the reduce-then-scan structure of CUB's agent_scan, with a per-thread sequential chunk):
//   up-sweep   level 0 → 1: each thread builds the elements of one chunk of one target from the filtered
//              history (never stored) and folds them into the chunk's aggregate; levels l → l+1 likewise;
//   down-sweep from the top level (one chunk per target) down to level 1: each thread re-scans its chunk
//              from the suffix carried in from the level above, in place;
//              level 0: re-builds its elements, scans them from the carry and writes the smoothed mean (g)
//              and covariance (L).
// Scratch levels are stored as structure of arrays, value v of chunk j of target b at
// [(j·V + v)·B + b], so that batched launches (consecutive threads = consecutive targets) coalesce.
#include <cuda_runtime.h>

#include "augur/kernels/kf/smoother.hpp"
#include "kf_threads.cuh"
#include "scan_levels.hpp"
#include "tuning.hpp"

namespace augur::kernels::kf::cuda {
namespace {

constexpr int INVALID_VALUE = 1;  // cudaErrorInvalidValue

using device::HistoryArgs;
using device::ScanPass;

template <typename Real, int D, bool FROM_HISTORY>
__global__ void __launch_bounds__(tuning::SMOOTHER_BLOCK_THREADS)
    upsweepKernel(HistoryArgs<Real> h, ScanPass<Real> pass) {
    device::upsweepThread<Real, D, FROM_HISTORY>(h, pass, tuning::SMOOTHER_CHUNK_LENGTH,
                                                 static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x);
}

template <typename Real, int D, bool TO_OUTPUT>
__global__ void __launch_bounds__(tuning::SMOOTHER_BLOCK_THREADS)
    downsweepKernel(HistoryArgs<Real> h, ScanPass<Real> pass) {
    device::downsweepThread<Real, D, TO_OUTPUT>(h, pass, tuning::SMOOTHER_CHUNK_LENGTH,
                                                static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x);
}

template <typename Real, int D>
__global__ void __launch_bounds__(tuning::SMOOTHER_BLOCK_THREADS) sequentialRtsKernel(HistoryArgs<Real> h) {
    device::sequentialRtsThread<Real, D>(h, static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x);
}

unsigned blocksFor(std::size_t threads) {
    return static_cast<unsigned>((threads + tuning::SMOOTHER_BLOCK_THREADS - 1) / tuning::SMOOTHER_BLOCK_THREADS);
}

template <typename Real, int D>
platform::GpuStatus smoothParallelModel(const HistoryArgs<Real>& h, Real* scratch, platform::StreamHandle stream) {
    constexpr int THREADS = tuning::SMOOTHER_BLOCK_THREADS;
    const detail::ScanLevels levels = detail::scanLevels(h.steps, tuning::SMOOTHER_CHUNK_LENGTH);
    ScanPass<Real> passes[device::MAX_SCAN_PASSES];
    const int count = device::planScan<Real, D>(levels, h.targets, scratch, passes);
    using Kind = typename ScanPass<Real>::Kind;
    for (int i = 0; i < count; ++i) {
        const ScanPass<Real>& pass = passes[i];
        const unsigned blocks = blocksFor(pass.threads);
        switch (pass.kind) {
            case Kind::UpFromHistory: upsweepKernel<Real, D, true><<<blocks, THREADS, 0, stream>>>(h, pass); break;
            case Kind::UpFromLevel: upsweepKernel<Real, D, false><<<blocks, THREADS, 0, stream>>>(h, pass); break;
            case Kind::DownLevel: downsweepKernel<Real, D, false><<<blocks, THREADS, 0, stream>>>(h, pass); break;
            case Kind::DownToOutput: downsweepKernel<Real, D, true><<<blocks, THREADS, 0, stream>>>(h, pass); break;
        }
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
    }
    return {};
}

template <typename Real>
HistoryArgs<Real> argsOf(const ModelParams<Real>& params, const FilteredHistory<Real>& history, SmoothedHistory<Real> out) {
    return HistoryArgs<Real>{history.mean, history.cov, history.dt_s, out.mean, out.cov,
                             history.steps, history.targets, params.noiseDensity};
}

}  // namespace

std::size_t smootherScratchBytes(MotionModel model, std::size_t steps, std::size_t targets,
                                 std::size_t realBytes) noexcept {
    const int dim = stateDim(model);
    const std::size_t values = static_cast<std::size_t>(dim * dim + dim + packedSize(dim));
    return detail::scanLevels(steps, tuning::SMOOTHER_CHUNK_LENGTH).scratchElements * targets * values * realBytes;
}

template <typename Real>
platform::GpuStatus smoothParallel(const ModelParams<Real>& params, const FilteredHistory<Real>& history,
                                   SmoothedHistory<Real> out, void* scratch, std::size_t scratchBytes,
                                   platform::StreamHandle stream) noexcept {
    if (history.steps == 0 || history.targets == 0) {
        return {};
    }
    if (scratchBytes < smootherScratchBytes(params.model, history.steps, history.targets, sizeof(Real))) {
        return platform::checkCuda(INVALID_VALUE, "kf::cuda::smoothParallel: scratch smaller than smootherScratchBytes",
                                   __FILE__, __LINE__);
    }
    const auto h = argsOf(params, history, out);
    if (params.model == MotionModel::ConstantVelocity) {
        return smoothParallelModel<Real, 4>(h, static_cast<Real*>(scratch), stream);
    }
    return smoothParallelModel<Real, 6>(h, static_cast<Real*>(scratch), stream);
}

template <typename Real>
platform::GpuStatus smoothSequential(const ModelParams<Real>& params, const FilteredHistory<Real>& history,
                                     SmoothedHistory<Real> out, platform::StreamHandle stream) noexcept {
    if (history.steps == 0 || history.targets == 0) {
        return {};
    }
    const auto h = argsOf(params, history, out);
    if (params.model == MotionModel::ConstantVelocity) {
        sequentialRtsKernel<Real, 4><<<blocksFor(history.targets), tuning::SMOOTHER_BLOCK_THREADS, 0, stream>>>(h);
    } else {
        sequentialRtsKernel<Real, 6><<<blocksFor(history.targets), tuning::SMOOTHER_BLOCK_THREADS, 0, stream>>>(h);
    }
    return AUGUR_CUDA_CHECK_LAUNCH();
}

template platform::GpuStatus smoothParallel<float>(const ModelParams<float>&, const FilteredHistory<float>&,
                                                   SmoothedHistory<float>, void*, std::size_t,
                                                   platform::StreamHandle) noexcept;
template platform::GpuStatus smoothParallel<double>(const ModelParams<double>&, const FilteredHistory<double>&,
                                                    SmoothedHistory<double>, void*, std::size_t,
                                                    platform::StreamHandle) noexcept;
template platform::GpuStatus smoothSequential<float>(const ModelParams<float>&, const FilteredHistory<float>&,
                                                     SmoothedHistory<float>, platform::StreamHandle) noexcept;
template platform::GpuStatus smoothSequential<double>(const ModelParams<double>&, const FilteredHistory<double>&,
                                                      SmoothedHistory<double>, platform::StreamHandle) noexcept;

}  // namespace augur::kernels::kf::cuda
