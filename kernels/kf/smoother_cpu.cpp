// CPU smoothers (smoother.hpp): the sequential RTS reference and the parallel-in-time scan evaluated with
// the same blocked decomposition as the CUDA path.
#include <algorithm>
#include <cstring>

#include "augur/kernels/kf/smoother.hpp"
#include "augur/kernels/kf/smoother_element.hpp"
#include "model_matrices.hpp"
#include "scan_levels.hpp"

namespace augur::kernels::kf {
namespace cpu {

template <typename Real, int D>
ScanElement<Real, D> combine(const ScanElement<Real, D>& earlier, const ScanElement<Real, D>& later) noexcept {
    using detail::Mat;
    using detail::Vec;
    using RowMat = Eigen::Matrix<Real, D, D, Eigen::RowMajor>;
    const Eigen::Map<const RowMat> ea(earlier.E);
    const Eigen::Map<const RowMat> eb(later.E);
    const Eigen::Map<const Vec<Real, D>> ga(earlier.g);
    const Eigen::Map<const Vec<Real, D>> gb(later.g);
    ScanElement<Real, D> out;
    Eigen::Map<RowMat>(out.E) = ea * eb;
    Eigen::Map<Vec<Real, D>>(out.g) = ea * gb + ga;
    const Mat<Real, D> l = ea * detail::unpack<Real, D>(later.L) * ea.transpose() + detail::unpack<Real, D>(earlier.L);
    detail::pack<Real, D>(l, out.L);
    return out;
}

template <typename Real, int D>
ScanElement<Real, D> makeElement(const ModelParams<Real>& params, const Real* mean, const Real* covPacked, Real dt_s,
                                 bool last) noexcept {
    using detail::Mat;
    using detail::Vec;
    using RowMat = Eigen::Matrix<Real, D, D, Eigen::RowMajor>;
    ScanElement<Real, D> out;
    const Eigen::Map<const Vec<Real, D>> m(mean);
    if (last) {
        Eigen::Map<RowMat>(out.E).setZero();
        Eigen::Map<Vec<Real, D>>(out.g) = m;
        std::memcpy(out.L, covPacked, sizeof(out.L));
        return out;
    }
    const Mat<Real, D> p = detail::unpack<Real, D>(covPacked);
    const Mat<Real, D> f = detail::transition<Real, D>(dt_s);
    const Mat<Real, D> c = f * p;  // F P
    Mat<Real, D> predicted = c * f.transpose() + detail::processNoise<Real, D>(dt_s, params.noiseDensity);
    predicted = Real(0.5) * (predicted + predicted.transpose()).eval();
    // E = P Fᵀ (F P Fᵀ + Q)⁻¹  ⇔  (F P Fᵀ + Q) Eᵀ = F P: one Cholesky solve.
    const Mat<Real, D> e = predicted.llt().solve(c).transpose();
    Eigen::Map<RowMat>(out.E) = e;
    Eigen::Map<Vec<Real, D>>(out.g) = m - e * (f * m);
    detail::pack<Real, D>(Mat<Real, D>(p - e * c), out.L);
    return out;
}

namespace {

constexpr std::size_t elementValues(int dim) { return static_cast<std::size_t>(dim * dim + dim + packedSize(dim)); }

/// Folds chunk [begin, end) of a level into its aggregate: e_begin ⊗ … ⊗ e_{end−1}.
template <typename Real, int D, typename Get>
ScanElement<Real, D> foldChunk(Get&& get, std::size_t begin, std::size_t end) noexcept {
    ScanElement<Real, D> acc = get(end - 1);
    for (std::size_t i = end - 1; i-- > begin;) {
        acc = combine<Real, D>(get(i), acc);
    }
    return acc;
}

/// Suffix-scans chunk [begin, end) starting from `carry` (the suffix after `end`), writing each result.
template <typename Real, int D, typename Get, typename Put>
void scanChunk(Get&& get, Put&& put, std::size_t begin, std::size_t end, const ScanElement<Real, D>* carry) noexcept {
    ScanElement<Real, D> acc = carry != nullptr ? combine<Real, D>(get(end - 1), *carry) : get(end - 1);
    put(end - 1, acc);
    for (std::size_t i = end - 1; i-- > begin;) {
        acc = combine<Real, D>(get(i), acc);
        put(i, acc);
    }
}

template <typename Real, int D>
void smoothParallelModel(const ModelParams<Real>& params, const FilteredHistory<Real>& history,
                         SmoothedHistory<Real> out, Real* scratch, std::size_t chunk) noexcept {
    constexpr int NP = packedSize(D);
    using Element = ScanElement<Real, D>;
    const std::size_t steps = history.steps;
    const std::size_t targets = history.targets;
    const detail::ScanLevels levels = detail::scanLevels(steps, chunk);
    auto* stored = reinterpret_cast<Element*>(scratch);
    static_assert(sizeof(Element) == sizeof(Real) * Element::VALUES);

    for (std::size_t b = 0; b < targets; ++b) {
        Real mean[D];
        Real cov[NP];
        auto element0 = [&](std::size_t k) {
            for (int c = 0; c < D; ++c) {
                mean[c] = history.mean[(k * D + static_cast<std::size_t>(c)) * targets + b];
            }
            for (int c = 0; c < NP; ++c) {
                cov[c] = history.cov[(k * NP + static_cast<std::size_t>(c)) * targets + b];
            }
            const bool last = k + 1 == steps;
            return makeElement<Real, D>(params, mean, cov, last ? Real(0) : history.dt_s[k * targets + b], last);
        };
        auto output0 = [&](std::size_t k, const Element& e) {
            for (int c = 0; c < D; ++c) {
                out.mean[(k * D + static_cast<std::size_t>(c)) * targets + b] = e.g[c];
            }
            for (int c = 0; c < NP; ++c) {
                out.cov[(k * NP + static_cast<std::size_t>(c)) * targets + b] = e.L[c];
            }
        };
        auto levelData = [&](int l) { return stored + levels.offset[l]; };

        // Up-sweep: aggregates of every chunk, level by level.
        for (int l = 1; l < levels.count; ++l) {
            Element* dst = levelData(l);
            for (std::size_t j = 0; j < levels.size[l]; ++j) {
                const std::size_t begin = j * chunk;
                const std::size_t end = std::min(begin + chunk, levels.size[l - 1]);
                if (l == 1) {
                    dst[j] = foldChunk<Real, D>(element0, begin, end);
                } else {
                    const Element* src = levelData(l - 1);
                    dst[j] = foldChunk<Real, D>([src](std::size_t i) { return src[i]; }, begin, end);
                }
            }
        }
        // Down-sweep: the top level is one chunk; every lower chunk starts from the suffix after it.
        for (int l = levels.count - 1; l >= 0; --l) {
            const Element* above = l + 1 < levels.count ? levelData(l + 1) : nullptr;
            const std::size_t chunks = l + 1 < levels.count ? levels.size[l + 1] : 1;
            for (std::size_t j = 0; j < chunks; ++j) {
                const std::size_t begin = j * chunk;
                const std::size_t end = std::min(begin + chunk, levels.size[l]);
                const Element* carry = (above != nullptr && j + 1 < chunks) ? &above[j + 1] : nullptr;
                if (l == 0) {
                    scanChunk<Real, D>(element0, output0, begin, end, carry);
                } else {
                    Element* data = levelData(l);
                    scanChunk<Real, D>([data](std::size_t i) { return data[i]; },
                                       [data](std::size_t i, const Element& e) { data[i] = e; }, begin, end, carry);
                }
            }
        }
    }
}

template <typename Real, int D>
void smoothSequentialModel(const ModelParams<Real>& params, const FilteredHistory<Real>& history,
                           SmoothedHistory<Real> out) noexcept {
    using detail::Mat;
    using detail::Vec;
    constexpr int NP = packedSize(D);
    const std::size_t steps = history.steps;
    const std::size_t targets = history.targets;
    for (std::size_t b = 0; b < targets; ++b) {
        auto loadMean = [&](const Real* base, std::size_t k) {
            Vec<Real, D> v;
            for (int c = 0; c < D; ++c) {
                v(c) = base[(k * D + static_cast<std::size_t>(c)) * targets + b];
            }
            return v;
        };
        auto loadCov = [&](const Real* base, std::size_t k) {
            Real packed[NP];
            for (int c = 0; c < NP; ++c) {
                packed[c] = base[(k * NP + static_cast<std::size_t>(c)) * targets + b];
            }
            return detail::unpack<Real, D>(packed);
        };
        auto store = [&](std::size_t k, const Vec<Real, D>& m, const Mat<Real, D>& p) {
            Real packed[NP];
            detail::pack<Real, D>(p, packed);
            for (int c = 0; c < D; ++c) {
                out.mean[(k * D + static_cast<std::size_t>(c)) * targets + b] = m(c);
            }
            for (int c = 0; c < NP; ++c) {
                out.cov[(k * NP + static_cast<std::size_t>(c)) * targets + b] = packed[c];
            }
        };
        Vec<Real, D> ms = loadMean(history.mean, steps - 1);
        Mat<Real, D> ps = loadCov(history.cov, steps - 1);
        store(steps - 1, ms, ps);
        for (std::size_t k = steps - 1; k-- > 0;) {
            const Vec<Real, D> m = loadMean(history.mean, k);
            const Mat<Real, D> p = loadCov(history.cov, k);
            const Real dt = history.dt_s[k * targets + b];
            const Mat<Real, D> f = detail::transition<Real, D>(dt);
            const Mat<Real, D> fp = f * p;
            Mat<Real, D> predicted = fp * f.transpose() + detail::processNoise<Real, D>(dt, params.noiseDensity);
            predicted = Real(0.5) * (predicted + predicted.transpose()).eval();
            const Mat<Real, D> gain = predicted.llt().solve(fp).transpose();  // G = P Fᵀ (P⁻)⁻¹
            ms = m + gain * (ms - f * m);
            ps = p + gain * (ps - predicted) * gain.transpose();
            store(k, ms, ps);
            ps = (Real(0.5) * (ps + ps.transpose())).eval();
        }
    }
}

}  // namespace

template <typename Real>
void smoothSequential(const ModelParams<Real>& params, const FilteredHistory<Real>& history,
                      SmoothedHistory<Real> out) noexcept {
    if (history.steps == 0 || history.targets == 0) {
        return;
    }
    if (params.model == MotionModel::ConstantVelocity) {
        smoothSequentialModel<Real, 4>(params, history, out);
    } else {
        smoothSequentialModel<Real, 6>(params, history, out);
    }
}

std::size_t smootherScratchCount(MotionModel model, std::size_t steps, std::size_t /*targets*/,
                                 std::size_t chunkLength) noexcept {
    return detail::scanLevels(steps, std::max<std::size_t>(chunkLength, 2)).scratchElements *
           elementValues(stateDim(model));
}

template <typename Real>
void smoothParallel(const ModelParams<Real>& params, const FilteredHistory<Real>& history, SmoothedHistory<Real> out,
                    Real* scratch, std::size_t chunkLength) noexcept {
    if (history.steps == 0 || history.targets == 0) {
        return;
    }
    const std::size_t chunk = std::max<std::size_t>(chunkLength, 2);
    if (params.model == MotionModel::ConstantVelocity) {
        smoothParallelModel<Real, 4>(params, history, out, scratch, chunk);
    } else {
        smoothParallelModel<Real, 6>(params, history, out, scratch, chunk);
    }
}

#define AUGUR_KF_INSTANTIATE_ELEMENT(Real, D)                                                                  \
    template ScanElement<Real, D> combine<Real, D>(const ScanElement<Real, D>&, const ScanElement<Real, D>&) noexcept; \
    template ScanElement<Real, D> makeElement<Real, D>(const ModelParams<Real>&, const Real*, const Real*, Real,      \
                                                       bool) noexcept;
AUGUR_KF_INSTANTIATE_ELEMENT(float, 4)
AUGUR_KF_INSTANTIATE_ELEMENT(float, 6)
AUGUR_KF_INSTANTIATE_ELEMENT(double, 4)
AUGUR_KF_INSTANTIATE_ELEMENT(double, 6)
#undef AUGUR_KF_INSTANTIATE_ELEMENT

template void smoothSequential<float>(const ModelParams<float>&, const FilteredHistory<float>&,
                                      SmoothedHistory<float>) noexcept;
template void smoothSequential<double>(const ModelParams<double>&, const FilteredHistory<double>&,
                                       SmoothedHistory<double>) noexcept;
template void smoothParallel<float>(const ModelParams<float>&, const FilteredHistory<float>&, SmoothedHistory<float>,
                                    float*, std::size_t) noexcept;
template void smoothParallel<double>(const ModelParams<double>&, const FilteredHistory<double>&,
                                     SmoothedHistory<double>, double*, std::size_t) noexcept;

}  // namespace cpu
}  // namespace augur::kernels::kf
