// CPU reference of the Kalman bank (kalman_bank.hpp): Eigen fixed-size matrices, one target at a time.
#include <cmath>

#include "augur/kernels/kf/kalman_bank.hpp"
#include "model_matrices.hpp"

namespace augur::kernels::kf::cpu {
namespace {

/// Joseph update of (x, P) with a measurement z of state components first, first + 1 and covariance r.
/// Returns the NIS.
template <typename Real, int D>
Real josephUpdate(detail::Vec<Real, D>& x, detail::Mat<Real, D>& p, int first,
                  const Eigen::Matrix<Real, MEAS_DIM, 1>& z, const Eigen::Matrix<Real, MEAS_DIM, MEAS_DIM>& r) {
    Eigen::Matrix<Real, MEAS_DIM, D> h = Eigen::Matrix<Real, MEAS_DIM, D>::Zero();
    h(0, first) = 1;
    h(1, first + 1) = 1;
    const Eigen::Matrix<Real, MEAS_DIM, 1> nu = z - h * x;
    const Eigen::Matrix<Real, D, MEAS_DIM> pht = p * h.transpose();
    const Eigen::Matrix<Real, MEAS_DIM, MEAS_DIM> s = h * pht + r;
    const Eigen::Matrix<Real, MEAS_DIM, MEAS_DIM> sInv = s.inverse();  // closed-form 2×2
    const Eigen::Matrix<Real, D, MEAS_DIM> k = pht * sInv;
    x += k * nu;
    const detail::Mat<Real, D> ikh = detail::Mat<Real, D>::Identity() - k * h;
    p = ikh * p * ikh.transpose() + k * r * k.transpose();
    return nu.dot(sInv * nu);
}

template <typename Real, int D>
void stepModel(const ModelParams<Real>& params, BankState<Real> state, const CycleInput<Real>& input) noexcept {
    using detail::Mat;
    using detail::Vec;
    constexpr int NP = packedSize(D);
    const std::size_t stride = state.stride;
    for (std::size_t t = 0; t < state.count; ++t) {
        Vec<Real, D> x;
        Real packed[NP];
        for (int c = 0; c < D; ++c) {
            x(c) = state.mean[static_cast<std::size_t>(c) * stride + t];
        }
        for (int c = 0; c < NP; ++c) {
            packed[c] = state.cov[static_cast<std::size_t>(c) * stride + t];
        }
        Mat<Real, D> p = detail::unpack<Real, D>(packed);

        // Predict.
        const Real dt = input.dt_s[t];
        const Mat<Real, D> f = detail::transition<Real, D>(dt);
        x = f * x;
        p = f * p * f.transpose() + detail::processNoise<Real, D>(dt, params.noiseDensity);

        // Joseph-form update: the position, then the velocity where one was measured.
        Real nis = 0;
        if (input.hasMeasurement[t] != 0) {
            const Eigen::Matrix<Real, MEAS_DIM, MEAS_DIM> r{{input.measVar_m2[t], Real(0)},
                                                             {Real(0), input.measVar_m2[stride + t]}};
            nis = josephUpdate<Real, D>(x, p, 0, Eigen::Matrix<Real, MEAS_DIM, 1>(input.z_m[t], input.z_m[stride + t]), r);
            if (input.zVel_mps != nullptr && input.hasVelocity[t] != 0) {
                const Real* cov = input.velCov_m2ps2;
                const Eigen::Matrix<Real, MEAS_DIM, MEAS_DIM> rv{{cov[t], cov[stride + t]},
                                                                  {cov[stride + t], cov[2 * stride + t]}};
                nis += josephUpdate<Real, D>(
                    x, p, 2, Eigen::Matrix<Real, MEAS_DIM, 1>(input.zVel_mps[t], input.zVel_mps[stride + t]), rv);
            }
        }
        for (int c = 0; c < D; ++c) {
            state.mean[static_cast<std::size_t>(c) * stride + t] = x(c);
        }
        detail::pack<Real, D>(p, packed);
        for (int c = 0; c < NP; ++c) {
            state.cov[static_cast<std::size_t>(c) * stride + t] = packed[c];
        }
        if (input.nis != nullptr) {
            input.nis[t] = nis;
        }
    }
}

}  // namespace

template <typename Real>
void step(const ModelParams<Real>& params, BankState<Real> state, const CycleInput<Real>& input) noexcept {
    if (params.model == MotionModel::ConstantVelocity) {
        stepModel<Real, 4>(params, state, input);
    } else {
        stepModel<Real, 6>(params, state, input);
    }
}

template <typename Real>
void initializeTarget(MotionModel model, BankState<Real> state, std::size_t t, Real x_m, Real y_m, Real posVar_m2,
                      Real velVar_m2ps2, Real accVar_m2ps4) noexcept {
    const int dim = stateDim(model);
    for (int c = 0; c < dim; ++c) {
        state.mean[static_cast<std::size_t>(c) * state.stride + t] = 0;
    }
    state.mean[t] = x_m;
    state.mean[state.stride + t] = y_m;
    for (int c = 0; c < packedSize(dim); ++c) {
        state.cov[static_cast<std::size_t>(c) * state.stride + t] = 0;
    }
    for (int i = 0; i < dim; ++i) {
        const Real var = i < 2 ? posVar_m2 : (i < 4 ? velVar_m2ps2 : accVar_m2ps4);
        state.cov[static_cast<std::size_t>(packedIndex(dim, i, i)) * state.stride + t] = var;
    }
}

template void step<float>(const ModelParams<float>&, BankState<float>, const CycleInput<float>&) noexcept;
template void step<double>(const ModelParams<double>&, BankState<double>, const CycleInput<double>&) noexcept;
template void initializeTarget<float>(MotionModel, BankState<float>, std::size_t, float, float, float, float,
                                      float) noexcept;
template void initializeTarget<double>(MotionModel, BankState<double>, std::size_t, double, double, double, double,
                                       double) noexcept;

}  // namespace augur::kernels::kf::cpu
