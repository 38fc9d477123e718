// Statistical behaviour of the bank and the smoother: NEES / NIS over 100 Monte-Carlo runs inside their
// χ² 95% bounds, smoothed error below filtered error, and convergence of a constant-velocity filter's
// covariance to the steady-state Riccati solution (computed independently by the doubling algorithm).
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <vector>

#include "augur/kernels/kf/smoother.hpp"
#include "kf_test_support.hpp"

namespace augur::kernels::kf {
namespace {

constexpr std::size_t MONTE_CARLO_RUNS = 100;  // one bank target per run
constexpr std::size_t STEPS = 150;
// With exact 95% bounds about 95% of the steps fall inside; correlation between neighbouring steps makes
// the fraction noisy, so the test asks for 90%. A filter with Q or R off by a factor of two fails it.
constexpr double MIN_FRACTION_INSIDE = 0.90;

struct McResult {
    testing::Simulation sim;
    testing::Filtered<double> filtered;
    std::vector<double> smoothedMean;
    std::vector<double> smoothedCov;
};

McResult runMonteCarlo(MotionModel model, double filterDensityScale = 1.0, double velAlongStd_mps = 0.0,
                       double velAcrossStd_mps = 0.0) {
    testing::Scenario scenario;
    scenario.model = model;
    scenario.velAlongStd_mps = velAlongStd_mps;
    scenario.velAcrossStd_mps = velAcrossStd_mps;
    scenario.steps = STEPS;
    scenario.targets = MONTE_CARLO_RUNS;
    scenario.seed = 2024;
    McResult r;
    r.sim = testing::simulate(scenario);
    testing::Simulation filterView = r.sim;
    filterView.scenario.noiseDensity *= filterDensityScale;
    r.filtered = testing::filterSimulation<double>(filterView);
    r.smoothedMean.resize(r.filtered.mean.size());
    r.smoothedCov.resize(r.filtered.cov.size());
    std::vector<double> scratch(cpu::smootherScratchCount(model, STEPS, MONTE_CARLO_RUNS));
    const ModelParams<double> params{model, filterView.scenario.noiseDensity};
    cpu::smoothParallel<double>(params,
                                {r.filtered.mean.data(), r.filtered.cov.data(), r.filtered.dt.data(), STEPS,
                                 MONTE_CARLO_RUNS},
                                {r.smoothedMean.data(), r.smoothedCov.data()}, scratch.data());
    return r;
}

template <int D>
double fractionOfStepsWithConsistentNees(const testing::Simulation& sim, const std::vector<double>& mean,
                                         const std::vector<double>& cov) {
    const std::size_t runs = sim.scenario.targets;
    const double dof = static_cast<double>(runs * D);
    const double lower = testing::chiSquareQuantile(dof, -testing::Z_975) / static_cast<double>(runs);
    const double upper = testing::chiSquareQuantile(dof, testing::Z_975) / static_cast<double>(runs);
    std::size_t inside = 0;
    for (std::size_t k = 0; k < sim.scenario.steps; ++k) {
        double sum = 0.0;
        for (std::size_t b = 0; b < runs; ++b) {
            Eigen::Matrix<double, D, 1> e;
            for (int c = 0; c < D; ++c) {
                e(c) = sim.truth[(k * D + c) * runs + b] - mean[(k * D + c) * runs + b];
            }
            const Eigen::Matrix<double, D, D> p = testing::covAt<D>(cov, k, b, runs);
            sum += e.dot(p.llt().solve(e));
        }
        const double average = sum / static_cast<double>(runs);
        inside += (average >= lower && average <= upper) ? 1 : 0;
    }
    return static_cast<double>(inside) / static_cast<double>(sim.scenario.steps);
}

/// `measurementDim`: 2 for positions, 4 with velocities.
double fractionOfStepsWithConsistentNis(const testing::Simulation& sim, const std::vector<double>& nis,
                                        int measurementDim = MEAS_DIM) {
    const std::size_t runs = sim.scenario.targets;
    std::size_t inside = 0;
    std::size_t considered = 0;
    for (std::size_t k = 1; k < sim.scenario.steps; ++k) {
        double sum = 0.0;
        std::size_t measured = 0;
        for (std::size_t b = 0; b < runs; ++b) {
            if (sim.present[k * runs + b] != 0) {
                sum += nis[k * runs + b];
                ++measured;
            }
        }
        const double dof = static_cast<double>(static_cast<std::size_t>(measurementDim) * measured);
        const double average = sum / static_cast<double>(measured);
        const double n = static_cast<double>(measured);
        inside += (average >= testing::chiSquareQuantile(dof, -testing::Z_975) / n &&
                   average <= testing::chiSquareQuantile(dof, testing::Z_975) / n)
                      ? 1
                      : 0;
        ++considered;
    }
    return static_cast<double>(inside) / static_cast<double>(considered);
}

TEST(Consistency, FilterNeesAndNisInsideChiSquareBoundsCv) {
    const auto r = runMonteCarlo(MotionModel::ConstantVelocity);
    EXPECT_GE(fractionOfStepsWithConsistentNees<4>(r.sim, r.filtered.mean, r.filtered.cov), MIN_FRACTION_INSIDE);
    EXPECT_GE(fractionOfStepsWithConsistentNis(r.sim, r.filtered.nis), MIN_FRACTION_INSIDE);
}

TEST(Consistency, FilterNeesAndNisInsideChiSquareBoundsCa) {
    const auto r = runMonteCarlo(MotionModel::ConstantAcceleration);
    EXPECT_GE(fractionOfStepsWithConsistentNees<6>(r.sim, r.filtered.mean, r.filtered.cov), MIN_FRACTION_INSIDE);
    EXPECT_GE(fractionOfStepsWithConsistentNis(r.sim, r.filtered.nis), MIN_FRACTION_INSIDE);
}

// A speed-and-heading sensor's velocity: 0.3 m/s along the direction of travel, 0.6 m/s across it.
constexpr double VEL_ALONG_STD_MPS = 0.3;
constexpr double VEL_ACROSS_STD_MPS = 0.6;
constexpr int POSITION_AND_VELOCITY = 4;

TEST(Consistency, FilterNeesAndNisInsideChiSquareBoundsWithVelocityMeasurements) {
    for (const MotionModel model : {MotionModel::ConstantVelocity, MotionModel::ConstantAcceleration}) {
        const auto r = runMonteCarlo(model, 1.0, VEL_ALONG_STD_MPS, VEL_ACROSS_STD_MPS);
        const double nees = model == MotionModel::ConstantVelocity
                                ? fractionOfStepsWithConsistentNees<4>(r.sim, r.filtered.mean, r.filtered.cov)
                                : fractionOfStepsWithConsistentNees<6>(r.sim, r.filtered.mean, r.filtered.cov);
        EXPECT_GE(nees, MIN_FRACTION_INSIDE);
        EXPECT_GE(fractionOfStepsWithConsistentNis(r.sim, r.filtered.nis, POSITION_AND_VELOCITY), MIN_FRACTION_INSIDE);
    }
}

/// Root-mean-square velocity error over the runs at step k.
double velocityRmse(const McResult& r, std::size_t k, int dim) {
    const std::size_t runs = r.sim.scenario.targets;
    double sum = 0.0;
    for (std::size_t b = 0; b < runs; ++b) {
        for (int c = 2; c < 4; ++c) {
            const std::size_t i = (k * static_cast<std::size_t>(dim) + static_cast<std::size_t>(c)) * runs + b;
            sum += (r.sim.truth[i] - r.filtered.mean[i]) * (r.sim.truth[i] - r.filtered.mean[i]);
        }
    }
    return std::sqrt(sum / static_cast<double>(runs));
}

TEST(Consistency, VelocityMeasurementsMakeTheVelocityConvergeFaster) {
    const auto positionsOnly = runMonteCarlo(MotionModel::ConstantAcceleration);
    const auto withVelocity =
        runMonteCarlo(MotionModel::ConstantAcceleration, 1.0, VEL_ALONG_STD_MPS, VEL_ACROSS_STD_MPS);
    // Half a second in (five steps) and at the end: the velocity measured at 0.3–0.6 m/s leaves the
    // filtered velocity well below what differentiated positions (0.5 m noise) give.
    constexpr std::size_t EARLY_STEP = 5;
    constexpr double EARLY_RATIO = 0.5;
    constexpr double LATE_RATIO = 0.8;
    EXPECT_LT(velocityRmse(withVelocity, EARLY_STEP, 6), EARLY_RATIO * velocityRmse(positionsOnly, EARLY_STEP, 6));
    EXPECT_LT(velocityRmse(withVelocity, STEPS - 1, 6), LATE_RATIO * velocityRmse(positionsOnly, STEPS - 1, 6));
    EXPECT_LT(velocityRmse(withVelocity, EARLY_STEP, 6), VEL_ACROSS_STD_MPS);
}

TEST(Consistency, SmootherNeesInsideChiSquareBounds) {
    const auto r = runMonteCarlo(MotionModel::ConstantVelocity);
    EXPECT_GE(fractionOfStepsWithConsistentNees<4>(r.sim, r.smoothedMean, r.smoothedCov), MIN_FRACTION_INSIDE);
}

TEST(Consistency, MismatchedProcessNoiseIsDetected) {
    // The same check must fail for a filter that assumes a tenth of the true process noise.
    constexpr double WRONG_SCALE = 0.1;
    const auto r = runMonteCarlo(MotionModel::ConstantVelocity, WRONG_SCALE);
    EXPECT_LT(fractionOfStepsWithConsistentNees<4>(r.sim, r.filtered.mean, r.filtered.cov), MIN_FRACTION_INSIDE);
}

TEST(Consistency, SmoothedErrorIsBelowFilteredError) {
    const auto r = runMonteCarlo(MotionModel::ConstantVelocity);
    double filteredSq = 0.0;
    double smoothedSq = 0.0;
    for (std::size_t k = 0; k < STEPS; ++k) {
        for (std::size_t c = 0; c < 2; ++c) {
            for (std::size_t b = 0; b < MONTE_CARLO_RUNS; ++b) {
                const std::size_t i = (k * 4 + c) * MONTE_CARLO_RUNS + b;
                filteredSq += (r.sim.truth[i] - r.filtered.mean[i]) * (r.sim.truth[i] - r.filtered.mean[i]);
                smoothedSq += (r.sim.truth[i] - r.smoothedMean[i]) * (r.sim.truth[i] - r.smoothedMean[i]);
            }
        }
    }
    EXPECT_LT(smoothedSq, filteredSq);
    // And the smoothed covariance never exceeds the filtered one (trace of position block).
    for (std::size_t k = 0; k < STEPS; ++k) {
        for (std::size_t b = 0; b < MONTE_CARLO_RUNS; ++b) {
            const auto pf = testing::covAt<4>(r.filtered.cov, k, b, MONTE_CARLO_RUNS);
            const auto ps = testing::covAt<4>(r.smoothedCov, k, b, MONTE_CARLO_RUNS);
            ASSERT_LE(ps.trace(), pf.trace() * (1.0 + 1e-12)) << "step " << k;
        }
    }
}

/// Steady-state prior covariance X = F X Fᵀ − F X Hᵀ (H X Hᵀ + R)⁻¹ H X Fᵀ + Q by the structure-preserving
/// doubling algorithm (Chu, Fan, Lin, Wang 2004): A₀ = Fᵀ, G₀ = Hᵀ R⁻¹ H, H₀ = Q.
Eigen::Matrix4d steadyStatePrior(double dt, double q, double measVar) {
    Eigen::Matrix4d a = testing::transitionOf<4>(dt).transpose();
    Eigen::Matrix4d g = Eigen::Matrix4d::Zero();
    g(0, 0) = g(1, 1) = 1.0 / measVar;
    Eigen::Matrix4d h = testing::noiseOf<4>(dt, q);
    constexpr int ITERATIONS = 40;
    for (int i = 0; i < ITERATIONS; ++i) {
        const Eigen::Matrix4d w = (Eigen::Matrix4d::Identity() + g * h).inverse();
        const Eigen::Matrix4d aNext = a * w * a;
        const Eigen::Matrix4d gNext = g + a * w * g * a.transpose();
        const Eigen::Matrix4d hNext = h + a.transpose() * h * w * a;
        a = aNext;
        g = gNext;
        h = hNext;
    }
    return h;
}

TEST(Consistency, CvCovarianceConvergesToSteadyStateRiccatiSolution) {
    constexpr double DT = 0.1;
    testing::Scenario scenario;
    scenario.steps = 3000;
    scenario.dtMin_s = DT;
    scenario.dtMax_s = DT;
    scenario.missingProbability = 0.0;
    const auto sim = testing::simulate(scenario);
    const auto sut = testing::filterSimulation<double>(sim);

    const Eigen::Matrix4d posterior = testing::covAt<4>(sut.cov, scenario.steps - 1, 0, 1);
    const Eigen::Matrix4d f = testing::transitionOf<4>(DT);
    const Eigen::Matrix4d prior = f * posterior * f.transpose() + testing::noiseOf<4>(DT, scenario.noiseDensity);
    const Eigen::Matrix4d expected = steadyStatePrior(DT, scenario.noiseDensity, scenario.measStd_m * scenario.measStd_m);

    constexpr double TOLERANCE = 1e-9;
    EXPECT_LE((prior - expected).cwiseAbs().maxCoeff(), TOLERANCE * expected.cwiseAbs().maxCoeff());
}

}  // namespace
}  // namespace augur::kernels::kf
