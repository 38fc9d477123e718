// CUDA smoothers (smoother.hpp): the parallel-in-time RTS smoother as a blocked suffix scan over all
// targets and chunks at once, and the sequential RTS recursion with one thread per target (baseline).
//
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
#include "kf_device.cuh"
#include "scan_levels.hpp"
#include "tuning.hpp"

namespace augur::kernels::kf::cuda {
namespace {

constexpr int INVALID_VALUE = 1;  // cudaErrorInvalidValue

template <typename Real, int D>
__device__ __forceinline__ void loadStored(const Real* __restrict__ base, std::size_t j, std::size_t b, std::size_t bCount,
                                           device::Element<Real, D>& e) {
    constexpr int V = device::Element<Real, D>::VALUES;
    const Real* p = base + j * V * bCount + b;
#pragma unroll
    for (int i = 0; i < D * D; ++i) {
        e.e[i] = p[static_cast<std::size_t>(i) * bCount];
    }
#pragma unroll
    for (int i = 0; i < D; ++i) {
        e.g[i] = p[static_cast<std::size_t>(D * D + i) * bCount];
    }
#pragma unroll
    for (int i = 0; i < packedSize(D); ++i) {
        e.l[i] = p[static_cast<std::size_t>(D * D + D + i) * bCount];
    }
}

template <typename Real, int D>
__device__ __forceinline__ void storeElement(Real* __restrict__ base, std::size_t j, std::size_t b, std::size_t bCount,
                                             const device::Element<Real, D>& e) {
    constexpr int V = device::Element<Real, D>::VALUES;
    Real* p = base + j * V * bCount + b;
#pragma unroll
    for (int i = 0; i < D * D; ++i) {
        p[static_cast<std::size_t>(i) * bCount] = e.e[i];
    }
#pragma unroll
    for (int i = 0; i < D; ++i) {
        p[static_cast<std::size_t>(D * D + i) * bCount] = e.g[i];
    }
#pragma unroll
    for (int i = 0; i < packedSize(D); ++i) {
        p[static_cast<std::size_t>(D * D + D + i) * bCount] = e.l[i];
    }
}

/// The filtered history of one target and where its output goes.
template <typename Real>
struct HistoryArgs {
    const Real* mean;
    const Real* cov;
    const Real* dt;
    Real* outMean;
    Real* outCov;
    std::size_t steps;
    std::size_t targets;
    Real q;
};

template <typename Real, int D>
__device__ __forceinline__ void historyElement(const HistoryArgs<Real>& h, std::size_t k, std::size_t b,
                                               device::Element<Real, D>& e) {
    constexpr int NP = packedSize(D);
    Real m[D];
    Real p[NP];
#pragma unroll
    for (int c = 0; c < D; ++c) {
        m[c] = h.mean[(k * D + c) * h.targets + b];
    }
#pragma unroll
    for (int c = 0; c < NP; ++c) {
        p[c] = h.cov[(k * NP + c) * h.targets + b];
    }
    const bool last = k + 1 == h.steps;
    const Real dt = last ? Real(0) : h.dt[k * h.targets + b];
    device::makeElement<Real, D>(e, m, p, dt, h.q, last);
}

template <typename Real, int D>
__global__ void __launch_bounds__(tuning::SMOOTHER_BLOCK_THREADS)
    upsweepHistoryKernel(HistoryArgs<Real> h, std::size_t chunk, Real* __restrict__ dst, std::size_t dstCount) {
    const std::size_t idx = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= dstCount * h.targets) {
        return;
    }
    const std::size_t j = idx / h.targets;
    const std::size_t b = idx % h.targets;
    const std::size_t begin = j * chunk;
    const std::size_t end = begin + chunk < h.steps ? begin + chunk : h.steps;
    device::Element<Real, D> acc;
    historyElement<Real, D>(h, end - 1, b, acc);
    for (std::size_t i = end - 1; i-- > begin;) {
        device::Element<Real, D> e;
        historyElement<Real, D>(h, i, b, e);
        device::combineInto<Real, D>(e, acc);
    }
    storeElement<Real, D>(dst, j, b, h.targets, acc);
}

template <typename Real, int D>
__global__ void __launch_bounds__(tuning::SMOOTHER_BLOCK_THREADS)
    upsweepLevelKernel(const Real* __restrict__ src, std::size_t srcCount, Real* __restrict__ dst,
                       std::size_t dstCount, std::size_t targets, std::size_t chunk) {
    const std::size_t idx = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= dstCount * targets) {
        return;
    }
    const std::size_t j = idx / targets;
    const std::size_t b = idx % targets;
    const std::size_t begin = j * chunk;
    const std::size_t end = begin + chunk < srcCount ? begin + chunk : srcCount;
    device::Element<Real, D> acc;
    loadStored<Real, D>(src, end - 1, b, targets, acc);
    for (std::size_t i = end - 1; i-- > begin;) {
        device::Element<Real, D> e;
        loadStored<Real, D>(src, i, b, targets, e);
        device::combineInto<Real, D>(e, acc);
    }
    storeElement<Real, D>(dst, j, b, targets, acc);
}

/// Down-sweep of a stored level, in place. `above` (nullable) holds the suffixes of the level above,
/// one per chunk of this level (aboveCount chunks); without it the level is a single chunk.
template <typename Real, int D>
__global__ void __launch_bounds__(tuning::SMOOTHER_BLOCK_THREADS)
    downsweepLevelKernel(Real* __restrict__ data, std::size_t count, const Real* __restrict__ above,
                         std::size_t chunks, std::size_t targets, std::size_t chunk) {
    const std::size_t idx = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= chunks * targets) {
        return;
    }
    const std::size_t j = idx / targets;
    const std::size_t b = idx % targets;
    const std::size_t begin = j * chunk;
    const std::size_t end = begin + chunk < count ? begin + chunk : count;
    device::Element<Real, D> acc;
    if (above != nullptr && j + 1 < chunks) {
        device::Element<Real, D> e;
        loadStored<Real, D>(above, j + 1, b, targets, acc);
        loadStored<Real, D>(data, end - 1, b, targets, e);
        device::combineInto<Real, D>(e, acc);
    } else {
        loadStored<Real, D>(data, end - 1, b, targets, acc);
    }
    storeElement<Real, D>(data, end - 1, b, targets, acc);
    for (std::size_t i = end - 1; i-- > begin;) {
        device::Element<Real, D> e;
        loadStored<Real, D>(data, i, b, targets, e);
        device::combineInto<Real, D>(e, acc);
        storeElement<Real, D>(data, i, b, targets, acc);
    }
}

template <typename Real, int D>
__device__ __forceinline__ void writeSmoothed(const HistoryArgs<Real>& h, std::size_t k, std::size_t b,
                                              const device::Element<Real, D>& e) {
    constexpr int NP = packedSize(D);
#pragma unroll
    for (int c = 0; c < D; ++c) {
        h.outMean[(k * D + c) * h.targets + b] = e.g[c];
    }
#pragma unroll
    for (int c = 0; c < NP; ++c) {
        h.outCov[(k * NP + c) * h.targets + b] = e.l[c];
    }
}

template <typename Real, int D>
__global__ void __launch_bounds__(tuning::SMOOTHER_BLOCK_THREADS)
    downsweepHistoryKernel(HistoryArgs<Real> h, const Real* __restrict__ above, std::size_t chunks, std::size_t chunk) {
    const std::size_t idx = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (idx >= chunks * h.targets) {
        return;
    }
    const std::size_t j = idx / h.targets;
    const std::size_t b = idx % h.targets;
    const std::size_t begin = j * chunk;
    const std::size_t end = begin + chunk < h.steps ? begin + chunk : h.steps;
    device::Element<Real, D> acc;
    if (above != nullptr && j + 1 < chunks) {
        device::Element<Real, D> e;
        loadStored<Real, D>(above, j + 1, b, h.targets, acc);
        historyElement<Real, D>(h, end - 1, b, e);
        device::combineInto<Real, D>(e, acc);
    } else {
        historyElement<Real, D>(h, end - 1, b, acc);
    }
    writeSmoothed<Real, D>(h, end - 1, b, acc);
    for (std::size_t i = end - 1; i-- > begin;) {
        device::Element<Real, D> e;
        historyElement<Real, D>(h, i, b, e);
        device::combineInto<Real, D>(e, acc);
        writeSmoothed<Real, D>(h, i, b, acc);
    }
}

/// Sequential RTS, one thread per target (the GPU baseline).
template <typename Real, int D>
__global__ void __launch_bounds__(tuning::SMOOTHER_BLOCK_THREADS) sequentialRtsKernel(HistoryArgs<Real> h) {
    constexpr int NP = packedSize(D);
    const std::size_t b = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (b >= h.targets) {
        return;
    }
    const std::size_t bCount = h.targets;
    Real ms[D];
    Real ps[D * D];
    Real packed[NP];
    const std::size_t lastStep = h.steps - 1;
#pragma unroll
    for (int c = 0; c < D; ++c) {
        ms[c] = h.mean[(lastStep * D + c) * bCount + b];
        h.outMean[(lastStep * D + c) * bCount + b] = ms[c];
    }
#pragma unroll
    for (int c = 0; c < NP; ++c) {
        packed[c] = h.cov[(lastStep * NP + c) * bCount + b];
        h.outCov[(lastStep * NP + c) * bCount + b] = packed[c];
    }
    device::unpack<Real, D>(packed, ps);
    for (std::size_t k = lastStep; k-- > 0;) {
        Real m[D];
        Real p[D * D];
#pragma unroll
        for (int c = 0; c < D; ++c) {
            m[c] = h.mean[(k * D + c) * bCount + b];
        }
#pragma unroll
        for (int c = 0; c < NP; ++c) {
            packed[c] = h.cov[(k * NP + c) * bCount + b];
        }
        device::unpack<Real, D>(packed, p);
        const Real dt = h.dt[k * bCount + b];
        Real gt[D * D];  // F P, then Gᵀ = (P⁻)⁻¹ F P
#pragma unroll
        for (int i = 0; i < D * D; ++i) {
            gt[i] = p[i];
        }
        device::applyTransitionRows<Real, D, D>(gt, dt);
        Real predicted[D * D];
#pragma unroll
        for (int i = 0; i < D * D; ++i) {
            predicted[i] = gt[i];
        }
        device::applyTransitionCols<Real, D>(predicted, dt);
        device::addProcessNoise<Real, D>(predicted, dt, h.q);
#pragma unroll
        for (int i = 0; i < D; ++i) {
#pragma unroll
            for (int j = i + 1; j < D; ++j) {
                const Real s = Real(0.5) * (predicted[i * D + j] + predicted[j * D + i]);
                predicted[i * D + j] = s;
                predicted[j * D + i] = s;
            }
        }
        Real factor[D * D];
#pragma unroll
        for (int i = 0; i < D * D; ++i) {
            factor[i] = predicted[i];
        }
        device::cholesky<Real, D>(factor);
        device::choleskySolve<Real, D>(factor, gt);
        // mˢ = m + G (mˢ − F m)
        Real fm[D];
#pragma unroll
        for (int i = 0; i < D; ++i) {
            fm[i] = m[i];
        }
        device::applyTransitionRows<Real, D, 1>(fm, dt);
        Real diff[D];
#pragma unroll
        for (int i = 0; i < D; ++i) {
            diff[i] = ms[i] - fm[i];
        }
#pragma unroll
        for (int i = 0; i < D; ++i) {
            Real s = m[i];
#pragma unroll
            for (int k2 = 0; k2 < D; ++k2) {
                s += gt[k2 * D + i] * diff[k2];
            }
            ms[i] = s;
        }
        // Pˢ = P + G (Pˢ − P⁻) Gᵀ
#pragma unroll
        for (int i = 0; i < D * D; ++i) {
            ps[i] -= predicted[i];
        }
        Real t[D * D];  // G (Pˢ − P⁻)
#pragma unroll
        for (int i = 0; i < D; ++i) {
#pragma unroll
            for (int j = 0; j < D; ++j) {
                Real s = Real(0);
#pragma unroll
                for (int k2 = 0; k2 < D; ++k2) {
                    s += gt[k2 * D + i] * ps[k2 * D + j];
                }
                t[i * D + j] = s;
            }
        }
#pragma unroll
        for (int i = 0; i < D; ++i) {
#pragma unroll
            for (int j = i; j < D; ++j) {
                Real s = p[i * D + j];
#pragma unroll
                for (int k2 = 0; k2 < D; ++k2) {
                    s += t[i * D + k2] * gt[k2 * D + j];
                }
                ps[i * D + j] = s;
            }
        }
#pragma unroll
        for (int i = 0; i < D; ++i) {
#pragma unroll
            for (int j = 0; j < i; ++j) {
                ps[i * D + j] = ps[j * D + i];
            }
        }
#pragma unroll
        for (int c = 0; c < D; ++c) {
            h.outMean[(k * D + c) * bCount + b] = ms[c];
        }
#pragma unroll
        for (int i = 0; i < D; ++i) {
#pragma unroll
            for (int j = i; j < D; ++j) {
                h.outCov[(k * NP + packedIndex(D, i, j)) * bCount + b] = ps[i * D + j];
            }
        }
    }
}

unsigned blocksFor(std::size_t threads) {
    return static_cast<unsigned>((threads + tuning::SMOOTHER_BLOCK_THREADS - 1) / tuning::SMOOTHER_BLOCK_THREADS);
}

template <typename Real, int D>
platform::GpuStatus smoothParallelModel(const HistoryArgs<Real>& h, Real* scratch, platform::StreamHandle stream) {
    constexpr std::size_t V = device::Element<Real, D>::VALUES;
    constexpr std::size_t CHUNK = tuning::SMOOTHER_CHUNK_LENGTH;
    constexpr int THREADS = tuning::SMOOTHER_BLOCK_THREADS;
    const detail::ScanLevels levels = detail::scanLevels(h.steps, CHUNK);
    const std::size_t bCount = h.targets;
    auto levelData = [&](int l) { return scratch + levels.offset[l] * V * bCount; };
    for (int l = 1; l < levels.count; ++l) {
        const std::size_t threads = levels.size[l] * bCount;
        if (l == 1) {
            upsweepHistoryKernel<Real, D><<<blocksFor(threads), THREADS, 0, stream>>>(h, CHUNK, levelData(1), levels.size[1]);
        } else {
            upsweepLevelKernel<Real, D><<<blocksFor(threads), THREADS, 0, stream>>>(
                levelData(l - 1), levels.size[l - 1], levelData(l), levels.size[l], bCount, CHUNK);
        }
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
    }
    for (int l = levels.count - 1; l >= 0; --l) {
        const bool hasAbove = l + 1 < levels.count;
        const Real* above = hasAbove ? levelData(l + 1) : nullptr;
        const std::size_t chunks = hasAbove ? levels.size[l + 1] : 1;
        if (l == 0) {
            downsweepHistoryKernel<Real, D><<<blocksFor(chunks * bCount), THREADS, 0, stream>>>(h, above, chunks, CHUNK);
        } else {
            downsweepLevelKernel<Real, D><<<blocksFor(chunks * bCount), THREADS, 0, stream>>>(
                levelData(l), levels.size[l], above, chunks, bCount, CHUNK);
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
