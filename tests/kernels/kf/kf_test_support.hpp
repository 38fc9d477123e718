// Shared fixtures of the kf suites: seeded simulation of CV/CA targets with noisy, sometimes missing
// position (and optionally velocity) measurements, and the filtered histories the smoother tests start from.
#pragma once

#include <Eigen/Dense>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "augur/kernels/kf/kalman_bank.hpp"
#include "augur/kernels/kf/motion_model.hpp"

namespace augur::kernels::kf::testing {

struct Scenario {
    MotionModel model{MotionModel::ConstantVelocity};
    double noiseDensity{0.5};
    double measStd_m{0.5};
    std::size_t steps{100};
    std::size_t targets{1};
    double dtMin_s{0.05};
    double dtMax_s{0.15};
    double missingProbability{0.2};
    double initialVelStd_mps{3.0};
    double initialAccStd_mps2{1.0};
    /// > 0: every measured step also measures the velocity, with standard deviation velAlongStd_mps along
    /// the true direction of travel and velAcrossStd_mps across it (a full, rotated covariance, as a
    /// speed-and-heading sensor gives).
    double velAlongStd_mps{0.0};
    double velAcrossStd_mps{0.0};
    std::uint64_t seed{1};
};

/// Truth and measurements, layout of smoother.hpp: value c of target b at step k at [(k·C + c)·B + b].
struct Simulation {
    Scenario scenario;
    int dim{4};
    std::vector<double> truth;      // C = dim
    std::vector<double> z;          // C = 2
    std::vector<double> measVar;    // C = 2
    std::vector<double> zVel;       // C = 2 (empty without velocity measurements)
    std::vector<double> velCov;     // C = 3: xx, xy, yy
    std::vector<std::uint8_t> present;  // [k·B + b]
    std::vector<double> dt;         // [k·B + b], step k → k+1
};

template <int D>
Eigen::Matrix<double, D, D> transitionOf(double dt) {
    Eigen::Matrix<double, D, D> f = Eigen::Matrix<double, D, D>::Identity();
    for (int a = 0; a < 2; ++a) {
        f(a, 2 + a) = dt;
        if constexpr (D == 6) {
            f(a, 4 + a) = 0.5 * dt * dt;
            f(2 + a, 4 + a) = dt;
        }
    }
    return f;
}

template <int D>
Eigen::Matrix<double, D, D> noiseOf(double dt, double q) {
    Eigen::Matrix<double, D, D> m = Eigen::Matrix<double, D, D>::Zero();
    for (int a = 0; a < 2; ++a) {
        if constexpr (D == 4) {
            m(a, a) = q * dt * dt * dt / 3;
            m(a, 2 + a) = m(2 + a, a) = q * dt * dt / 2;
            m(2 + a, 2 + a) = q * dt;
        } else {
            m(a, a) = q * std::pow(dt, 5) / 20;
            m(a, 2 + a) = m(2 + a, a) = q * std::pow(dt, 4) / 8;
            m(a, 4 + a) = m(4 + a, a) = q * std::pow(dt, 3) / 6;
            m(2 + a, 2 + a) = q * std::pow(dt, 3) / 3;
            m(2 + a, 4 + a) = m(4 + a, 2 + a) = q * dt * dt / 2;
            m(4 + a, 4 + a) = q * dt;
        }
    }
    return m;
}

template <int D>
void simulateModel(Simulation& sim) {
    const Scenario& s = sim.scenario;
    const std::size_t bCount = s.targets;
    std::mt19937_64 rng(s.seed);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    for (std::size_t b = 0; b < bCount; ++b) {
        Eigen::Matrix<double, D, 1> x = Eigen::Matrix<double, D, 1>::Zero();
        x(0) = 100.0 * normal(rng);
        x(1) = 100.0 * normal(rng);
        x(2) = s.initialVelStd_mps * normal(rng);
        x(3) = s.initialVelStd_mps * normal(rng);
        if constexpr (D == 6) {
            x(4) = s.initialAccStd_mps2 * normal(rng);
            x(5) = s.initialAccStd_mps2 * normal(rng);
        }
        for (std::size_t k = 0; k < s.steps; ++k) {
            if (k > 0) {
                const double dt = sim.dt[(k - 1) * bCount + b];
                const Eigen::Matrix<double, D, D> chol = noiseOf<D>(dt, s.noiseDensity).llt().matrixL();
                Eigen::Matrix<double, D, 1> w;
                for (int c = 0; c < D; ++c) {
                    w(c) = normal(rng);
                }
                x = transitionOf<D>(dt) * x + chol * w;
            }
            for (int c = 0; c < D; ++c) {
                sim.truth[(k * D + c) * bCount + b] = x(c);
            }
            const double var = s.measStd_m * s.measStd_m;
            for (int a = 0; a < 2; ++a) {
                sim.z[(k * 2 + a) * bCount + b] = x(a) + s.measStd_m * normal(rng);
                sim.measVar[(k * 2 + a) * bCount + b] = var;
            }
            if (!sim.zVel.empty()) {
                const double heading = std::atan2(x(3), x(2));
                const double c = std::cos(heading);
                const double sn = std::sin(heading);
                const double along = s.velAlongStd_mps * s.velAlongStd_mps;
                const double across = s.velAcrossStd_mps * s.velAcrossStd_mps;
                Eigen::Matrix2d r;
                r << along * c * c + across * sn * sn, (along - across) * c * sn, (along - across) * c * sn,
                    along * sn * sn + across * c * c;
                const Eigen::Vector2d w(normal(rng), normal(rng));
                const Eigen::Vector2d noise = Eigen::Matrix2d(r.llt().matrixL()) * w;
                for (int a = 0; a < 2; ++a) {
                    sim.zVel[(k * 2 + a) * bCount + b] = x(2 + a) + noise(a);
                }
                sim.velCov[(k * 3 + 0) * bCount + b] = r(0, 0);
                sim.velCov[(k * 3 + 1) * bCount + b] = r(0, 1);
                sim.velCov[(k * 3 + 2) * bCount + b] = r(1, 1);
            }
            // The first step is always measured (it initialises the track).
            sim.present[k * bCount + b] = (k == 0 || uniform(rng) >= s.missingProbability) ? 1 : 0;
        }
    }
}

inline Simulation simulate(const Scenario& scenario) {
    Simulation sim;
    sim.scenario = scenario;
    sim.dim = stateDim(scenario.model);
    const std::size_t n = scenario.steps * scenario.targets;
    sim.truth.assign(n * static_cast<std::size_t>(sim.dim), 0.0);
    sim.z.assign(n * 2, 0.0);
    sim.measVar.assign(n * 2, 0.0);
    if (scenario.velAlongStd_mps > 0.0) {
        sim.zVel.assign(n * 2, 0.0);
        sim.velCov.assign(n * 3, 0.0);
    }
    sim.present.assign(n, 0);
    sim.dt.assign(n, 0.0);
    std::mt19937_64 rng(scenario.seed ^ 0x5DEECE66DULL);
    std::uniform_real_distribution<double> dtDist(scenario.dtMin_s, scenario.dtMax_s);
    for (auto& dt : sim.dt) {
        dt = dtDist(rng);
    }
    if (sim.dim == 4) {
        simulateModel<4>(sim);
    } else {
        simulateModel<6>(sim);
    }
    return sim;
}

/// Filtered means, packed covariances and NIS of every step (smoother layout).
template <typename Real>
struct Filtered {
    std::vector<Real> mean;
    std::vector<Real> cov;
    std::vector<Real> nis;  // [k·B + b]
    std::vector<Real> dt;   // [k·B + b]
};

template <typename Real>
std::vector<Real> convert(const std::vector<double>& v) {
    return std::vector<Real>(v.begin(), v.end());
}

/// Runs the CPU bank over the whole simulation: step 0 initialises each target at its first measurement
/// (position variance R, velocity/acceleration variances of the scenario's initial spread), every later
/// step is one bank cycle. `initialPosVarOverride` > 0 replaces the initial position variance.
template <typename Real>
Filtered<Real> filterSimulation(const Simulation& sim, double initialPosVarOverride = 0.0) {
    const Scenario& s = sim.scenario;
    const std::size_t bCount = s.targets;
    const int dim = sim.dim;
    const int np = packedSize(dim);
    Filtered<Real> out;
    out.mean.assign(s.steps * bCount * static_cast<std::size_t>(dim), Real(0));
    out.cov.assign(s.steps * bCount * static_cast<std::size_t>(np), Real(0));
    out.nis.assign(s.steps * bCount, Real(0));
    out.dt = convert<Real>(sim.dt);
    const std::vector<Real> z = convert<Real>(sim.z);
    const std::vector<Real> measVar = convert<Real>(sim.measVar);
    const std::vector<Real> zVel = convert<Real>(sim.zVel);
    const std::vector<Real> velCov = convert<Real>(sim.velCov);
    const bool withVelocity = !zVel.empty();
    const ModelParams<Real> params{s.model, static_cast<Real>(s.noiseDensity)};
    BankState<Real> first{out.mean.data(), out.cov.data(), bCount, bCount};
    const double posVar = initialPosVarOverride > 0.0 ? initialPosVarOverride : s.measStd_m * s.measStd_m;
    for (std::size_t b = 0; b < bCount; ++b) {
        cpu::initializeTarget<Real>(s.model, first, b, z[b], z[bCount + b], static_cast<Real>(posVar),
                                    static_cast<Real>(s.initialVelStd_mps * s.initialVelStd_mps),
                                    static_cast<Real>(s.initialAccStd_mps2 * s.initialAccStd_mps2));
    }
    for (std::size_t k = 1; k < s.steps; ++k) {
        Real* mean = out.mean.data() + k * bCount * static_cast<std::size_t>(dim);
        Real* cov = out.cov.data() + k * bCount * static_cast<std::size_t>(np);
        std::copy(mean - bCount * static_cast<std::size_t>(dim), mean, mean);
        std::copy(cov - bCount * static_cast<std::size_t>(np), cov, cov);
        const CycleInput<Real> input{out.dt.data() + (k - 1) * bCount,
                                     z.data() + k * 2 * bCount,
                                     measVar.data() + k * 2 * bCount,
                                     sim.present.data() + k * bCount,
                                     out.nis.data() + k * bCount,
                                     withVelocity ? zVel.data() + k * 2 * bCount : nullptr,
                                     withVelocity ? velCov.data() + k * 3 * bCount : nullptr,
                                     withVelocity ? sim.present.data() + k * bCount : nullptr};
        cpu::step<Real>(params, BankState<Real>{mean, cov, bCount, bCount}, input);
    }
    return out;
}

/// Symmetric matrix from the packed entries of target b at step k (smoother layout).
template <int D, typename Real>
Eigen::Matrix<double, D, D> covAt(const std::vector<Real>& cov, std::size_t k, std::size_t b, std::size_t bCount) {
    constexpr int NP = packedSize(D);
    Eigen::Matrix<double, D, D> m;
    for (int i = 0; i < D; ++i) {
        for (int j = i; j < D; ++j) {
            m(i, j) = m(j, i) = static_cast<double>(cov[(k * NP + static_cast<std::size_t>(packedIndex(D, i, j))) * bCount + b]);
        }
    }
    return m;
}

/// Largest |a − b| / (|b| + scale) over two arrays.
template <typename Real>
double maxRelativeDifference(const std::vector<Real>& a, const std::vector<Real>& b, double scale) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const double d = std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])) /
                         (std::abs(static_cast<double>(b[i])) + scale);
        worst = std::max(worst, d);
    }
    return worst;
}

/// Norm-wise relative difference of two histories in the smoother layout: for every (step, target) the
/// largest component difference over the largest reference component of that vector or matrix, maximised
/// over all (step, target). `components` is C of the layout.
template <typename Real>
double maxNormwiseDifference(const std::vector<Real>& a, const std::vector<Real>& b, std::size_t components,
                             std::size_t targets) {
    const std::size_t steps = b.size() / (components * targets);
    double worst = 0.0;
    for (std::size_t k = 0; k < steps; ++k) {
        for (std::size_t t = 0; t < targets; ++t) {
            double diff = 0.0;
            double scale = 0.0;
            for (std::size_t c = 0; c < components; ++c) {
                const std::size_t i = (k * components + c) * targets + t;
                diff = std::max(diff, std::abs(static_cast<double>(a[i]) - static_cast<double>(b[i])));
                scale = std::max(scale, std::abs(static_cast<double>(b[i])));
            }
            worst = std::max(worst, scale > 0.0 ? diff / scale : diff);
        }
    }
    return worst;
}

/// χ² quantile (Wilson–Hilferty; relative error < 1e-3 for ≥ 30 degrees of freedom).
inline double chiSquareQuantile(double dof, double standardNormalQuantile) {
    const double a = 2.0 / (9.0 * dof);
    const double c = 1.0 - a + standardNormalQuantile * std::sqrt(a);
    return dof * c * c * c;
}
inline constexpr double Z_975 = 1.959963984540054;

}  // namespace augur::kernels::kf::testing
