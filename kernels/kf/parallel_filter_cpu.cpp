// The parallel-in-time Kalman filter on the CPU (parallel_filter.hpp) and its sequential reference.
#include <algorithm>

#include "augur/kernels/kf/kalman_bank.hpp"
#include "augur/kernels/kf/parallel_filter.hpp"
#include "model_matrices.hpp"
#include "scan_levels.hpp"

namespace augur::kernels::kf::cpu {
namespace {

template <typename Real, int D>
struct FilterElement {
    static constexpr std::size_t VALUES = 3 * D * D + 2 * D;
    detail::Mat<Real, D> a;
    detail::Vec<Real, D> b;
    detail::Mat<Real, D> c;
    detail::Vec<Real, D> eta;
    detail::Mat<Real, D> j;

    void store(Real* out) const {
        std::copy_n(a.data(), D * D, out);
        std::copy_n(b.data(), D, out + D * D);
        std::copy_n(c.data(), D * D, out + D * D + D);
        std::copy_n(eta.data(), D, out + 2 * D * D + D);
        std::copy_n(j.data(), D * D, out + 2 * D * D + 2 * D);
    }
    void load(const Real* in) {
        std::copy_n(in, D * D, a.data());
        std::copy_n(in + D * D, D, b.data());
        std::copy_n(in + D * D + D, D * D, c.data());
        std::copy_n(in + 2 * D * D + D, D, eta.data());
        std::copy_n(in + 2 * D * D + 2 * D, D * D, j.data());
    }
};

/// i ⊗ j, i earlier.
template <typename Real, int D>
FilterElement<Real, D> combine(const FilterElement<Real, D>& i, const FilterElement<Real, D>& j) {
    using Mat = detail::Mat<Real, D>;
    const Mat identity = Mat::Identity();
    const Eigen::PartialPivLU<Mat> lu(identity + i.c * j.j);
    const Mat ma = lu.solve(i.a);                     // M A_i
    const detail::Vec<Real, D> mv = lu.solve(detail::Vec<Real, D>(i.b + i.c * j.eta));  // M (b_i + C_i η_j)
    const Mat mc = lu.solve(i.c);                     // M C_i
    // Mᵀ x = (I + J_j C_i)⁻¹ x
    const Eigen::PartialPivLU<Mat> luT(identity + j.j * i.c);
    FilterElement<Real, D> out;
    out.a = j.a * ma;
    out.b = j.a * mv + j.b;
    out.c = j.a * mc * j.a.transpose() + j.c;
    out.c = (Real(0.5) * (out.c + out.c.transpose())).eval();
    out.eta = i.a.transpose() * luT.solve(j.eta - j.j * i.b) + i.eta;
    out.j = i.a.transpose() * luT.solve(j.j) * i.a + i.j;
    out.j = (Real(0.5) * (out.j + out.j.transpose())).eval();
    return out;
}

template <typename Real, int D>
FilterElement<Real, D> makeFilterElement(const ModelParams<Real>& params, const MeasurementHistory<Real>& in,
                                         std::size_t k, std::size_t b) {
    using Mat = detail::Mat<Real, D>;
    constexpr int NP = packedSize(D);
    const std::size_t bCount = in.targets;
    FilterElement<Real, D> e;
    if (k == 0) {
        Real packed[NP];
        for (int c = 0; c < NP; ++c) {
            packed[c] = in.initialCov[static_cast<std::size_t>(c) * bCount + b];
        }
        e.a.setZero();
        for (int c = 0; c < D; ++c) {
            e.b(c) = in.initialMean[static_cast<std::size_t>(c) * bCount + b];
        }
        e.c = detail::unpack<Real, D>(packed);
        e.eta.setZero();
        e.j.setZero();
        return e;
    }
    const Real dt = in.dt_s[(k - 1) * bCount + b];
    const Mat f = detail::transition<Real, D>(dt);
    const Mat q = detail::processNoise<Real, D>(dt, params.noiseDensity);
    if (in.hasMeasurement[k * bCount + b] == 0) {
        e.a = f;
        e.b.setZero();
        e.c = q;
        e.eta.setZero();
        e.j.setZero();
        return e;
    }
    Eigen::Matrix<Real, MEAS_DIM, D> h = Eigen::Matrix<Real, MEAS_DIM, D>::Zero();
    h(0, 0) = 1;
    h(1, 1) = 1;
    Eigen::Matrix<Real, MEAS_DIM, MEAS_DIM> r = Eigen::Matrix<Real, MEAS_DIM, MEAS_DIM>::Zero();
    r(0, 0) = in.measVar_m2[(k * 2) * bCount + b];
    r(1, 1) = in.measVar_m2[(k * 2 + 1) * bCount + b];
    const Eigen::Matrix<Real, MEAS_DIM, 1> y(in.z_m[(k * 2) * bCount + b], in.z_m[(k * 2 + 1) * bCount + b]);
    const Eigen::Matrix<Real, MEAS_DIM, MEAS_DIM> s = h * q * h.transpose() + r;
    const Eigen::LLT<Eigen::Matrix<Real, MEAS_DIM, MEAS_DIM>> sChol(s);
    const Eigen::Matrix<Real, D, MEAS_DIM> gain = sChol.solve(h * q).transpose();  // K = Q Hᵀ S⁻¹
    const Mat ikh = Mat::Identity() - gain * h;
    const Eigen::Matrix<Real, MEAS_DIM, D> hf = h * f;
    e.a = ikh * f;
    e.b = gain * y;
    e.c = ikh * q;
    e.c = (Real(0.5) * (e.c + e.c.transpose())).eval();
    e.eta = hf.transpose() * sChol.solve(y);
    e.j = hf.transpose() * sChol.solve(hf);
    e.j = (Real(0.5) * (e.j + e.j.transpose())).eval();
    return e;
}

template <typename Real, int D>
void filterParallelModel(const ModelParams<Real>& params, const MeasurementHistory<Real>& in, FilteredOutput<Real> out,
                         Real* scratch, std::size_t chunk) {
    using Element = FilterElement<Real, D>;
    constexpr int NP = packedSize(D);
    constexpr std::size_t V = Element::VALUES;
    const std::size_t bCount = in.targets;
    const detail::ScanLevels levels = detail::scanLevels(in.steps, chunk);
    for (std::size_t b = 0; b < bCount; ++b) {
        auto element0 = [&](std::size_t k) { return makeFilterElement<Real, D>(params, in, k, b); };
        auto output0 = [&](std::size_t k, const Element& e) {
            for (int c = 0; c < D; ++c) {
                out.mean[(k * D + static_cast<std::size_t>(c)) * bCount + b] = e.b(c);
            }
            Real packed[NP];
            detail::pack<Real, D>(e.c, packed);
            for (int c = 0; c < NP; ++c) {
                out.cov[(k * NP + static_cast<std::size_t>(c)) * bCount + b] = packed[c];
            }
        };
        auto stored = [&](int l, std::size_t i) {
            Element e;
            e.load(scratch + (levels.offset[l] + i) * V);
            return e;
        };
        auto get = [&](int l, std::size_t i) { return l == 0 ? element0(i) : stored(l, i); };
        // Up-sweep: forward fold of every chunk.
        for (int l = 1; l < levels.count; ++l) {
            for (std::size_t j = 0; j < levels.size[l]; ++j) {
                const std::size_t begin = j * chunk;
                const std::size_t end = std::min(begin + chunk, levels.size[l - 1]);
                Element acc = get(l - 1, begin);
                for (std::size_t i = begin + 1; i < end; ++i) {
                    acc = combine<Real, D>(acc, get(l - 1, i));
                }
                acc.store(scratch + (levels.offset[l] + j) * V);
            }
        }
        // Down-sweep: each chunk starts from the prefix before it (chunk j − 1 of the level above).
        for (int l = levels.count - 1; l >= 0; --l) {
            const bool hasAbove = l + 1 < levels.count;
            const std::size_t chunks = hasAbove ? levels.size[l + 1] : 1;
            for (std::size_t j = 0; j < chunks; ++j) {
                const std::size_t begin = j * chunk;
                const std::size_t end = std::min(begin + chunk, levels.size[l]);
                Element acc = (hasAbove && j > 0) ? combine<Real, D>(stored(l + 1, j - 1), get(l, begin)) : get(l, begin);
                auto put = [&](std::size_t i, const Element& e) {
                    if (l == 0) {
                        output0(i, e);
                    } else {
                        e.store(scratch + (levels.offset[l] + i) * V);
                    }
                };
                put(begin, acc);
                for (std::size_t i = begin + 1; i < end; ++i) {
                    acc = combine<Real, D>(acc, get(l, i));
                    put(i, acc);
                }
            }
        }
    }
}

constexpr std::size_t filterElementValues(int dim) { return static_cast<std::size_t>(3 * dim * dim + 2 * dim); }

}  // namespace

template <typename Real>
void filterSequential(const ModelParams<Real>& params, const MeasurementHistory<Real>& in, FilteredOutput<Real> out) noexcept {
    const auto dim = static_cast<std::size_t>(stateDim(params.model));
    const auto np = static_cast<std::size_t>(packedSize(stateDim(params.model)));
    const std::size_t bCount = in.targets;
    if (in.steps == 0 || bCount == 0) {
        return;
    }
    std::copy_n(in.initialMean, dim * bCount, out.mean);
    std::copy_n(in.initialCov, np * bCount, out.cov);
    for (std::size_t k = 1; k < in.steps; ++k) {
        Real* mean = out.mean + k * dim * bCount;
        Real* cov = out.cov + k * np * bCount;
        std::copy_n(mean - dim * bCount, dim * bCount, mean);
        std::copy_n(cov - np * bCount, np * bCount, cov);
        step<Real>(params, {mean, cov, bCount, bCount},
                   {in.dt_s + (k - 1) * bCount, in.z_m + k * 2 * bCount, in.measVar_m2 + k * 2 * bCount,
                    in.hasMeasurement + k * bCount, nullptr});
    }
}

std::size_t parallelFilterScratchCount(MotionModel model, std::size_t steps, std::size_t /*targets*/,
                                       std::size_t chunkLength) noexcept {
    return detail::scanLevels(steps, std::max<std::size_t>(chunkLength, 2)).scratchElements *
           filterElementValues(stateDim(model));
}

template <typename Real>
void filterParallel(const ModelParams<Real>& params, const MeasurementHistory<Real>& in, FilteredOutput<Real> out,
                    Real* scratch, std::size_t chunkLength) noexcept {
    if (in.steps == 0 || in.targets == 0) {
        return;
    }
    const std::size_t chunk = std::max<std::size_t>(chunkLength, 2);
    if (params.model == MotionModel::ConstantVelocity) {
        filterParallelModel<Real, 4>(params, in, out, scratch, chunk);
    } else {
        filterParallelModel<Real, 6>(params, in, out, scratch, chunk);
    }
}

template void filterSequential<float>(const ModelParams<float>&, const MeasurementHistory<float>&,
                                      FilteredOutput<float>) noexcept;
template void filterSequential<double>(const ModelParams<double>&, const MeasurementHistory<double>&,
                                       FilteredOutput<double>) noexcept;
template void filterParallel<float>(const ModelParams<float>&, const MeasurementHistory<float>&, FilteredOutput<float>,
                                    float*, std::size_t) noexcept;
template void filterParallel<double>(const ModelParams<double>&, const MeasurementHistory<double>&,
                                     FilteredOutput<double>, double*, std::size_t) noexcept;

}  // namespace augur::kernels::kf::cpu
