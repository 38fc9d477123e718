// The Kalman bank's CPU reference: prediction, Joseph update, missing measurements, independence of
// targets in the structure-of-arrays layout, and positive definiteness under stress.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <cmath>
#include <random>
#include <vector>

#include "augur/kernels/kf/kalman_bank.hpp"
#include "kf_test_support.hpp"

namespace augur::kernels::kf {
namespace {

constexpr double Q_DENSITY = 0.8;
constexpr double DT_S = 0.1;
constexpr double POS_VAR = 4.0;
constexpr double VEL_VAR = 9.0;
constexpr double MEAS_VAR = 0.25;

/// One CV target in a bank of stride 1.
struct OneTarget {
    std::vector<double> mean = std::vector<double>(4);
    std::vector<double> cov = std::vector<double>(10);
    BankState<double> state() { return {mean.data(), cov.data(), 1, 1}; }

    /// Mean and every packed covariance entry within `tolerance` of a dense reference.
    void expectNear(const Eigen::Vector4d& expectedMean, const Eigen::Matrix4d& expectedCov, double tolerance) const {
        for (int i = 0; i < 4; ++i) {
            EXPECT_NEAR(mean[i], expectedMean(i), tolerance) << "mean " << i;
            for (int j = i; j < 4; ++j) {
                EXPECT_NEAR(cov[packedIndex(4, i, j)], expectedCov(i, j), tolerance) << "cov " << i << "," << j;
            }
        }
    }
};

TEST(KalmanBank, MissingMeasurementPredictsOnly) {
    OneTarget target;
    cpu::initializeTarget<double>(MotionModel::ConstantVelocity, target.state(), 0, 10.0, -5.0, POS_VAR, VEL_VAR, 0.0);
    target.mean[2] = 2.0;   // vx
    target.mean[3] = -1.0;  // vy
    const double dt = DT_S;
    const double z[2] = {0.0, 0.0};
    const double r[2] = {MEAS_VAR, MEAS_VAR};
    const std::uint8_t present = 0;
    double nis = -1.0;
    const ModelParams<double> sut{MotionModel::ConstantVelocity, Q_DENSITY};

    cpu::step<double>(sut, target.state(), {&dt, z, r, &present, &nis});

    EXPECT_DOUBLE_EQ(target.mean[0], 10.0 + 2.0 * DT_S);
    EXPECT_DOUBLE_EQ(target.mean[1], -5.0 - 1.0 * DT_S);
    EXPECT_DOUBLE_EQ(target.mean[2], 2.0);
    // P_xx = posVar + dt² velVar + q dt³/3; P_xvx = dt velVar + q dt²/2; P_vxvx = velVar + q dt.
    EXPECT_DOUBLE_EQ(target.cov[packedIndex(4, 0, 0)], POS_VAR + DT_S * DT_S * VEL_VAR + Q_DENSITY * DT_S * DT_S * DT_S / 3);
    EXPECT_DOUBLE_EQ(target.cov[packedIndex(4, 0, 2)], DT_S * VEL_VAR + Q_DENSITY * DT_S * DT_S / 2);
    EXPECT_DOUBLE_EQ(target.cov[packedIndex(4, 2, 2)], VEL_VAR + Q_DENSITY * DT_S);
    EXPECT_DOUBLE_EQ(target.cov[packedIndex(4, 0, 1)], 0.0);
    EXPECT_EQ(nis, 0.0);
}

TEST(KalmanBank, JosephUpdateEqualsTextbookGainForm) {
    OneTarget target;
    cpu::initializeTarget<double>(MotionModel::ConstantVelocity, target.state(), 0, 1.0, 2.0, POS_VAR, VEL_VAR, 0.0);
    const double dt = DT_S;
    const double z[2] = {1.7, 1.2};
    const double r[2] = {MEAS_VAR, 2 * MEAS_VAR};
    const std::uint8_t present = 1;
    double nis = 0.0;
    const ModelParams<double> sut{MotionModel::ConstantVelocity, Q_DENSITY};

    cpu::step<double>(sut, target.state(), {&dt, z, r, &present, &nis});

    // Independent computation: predict, K = P Hᵀ S⁻¹, x + K ν, (I − K H) P.
    const Eigen::Matrix4d f = testing::transitionOf<4>(DT_S);
    Eigen::Vector4d x(1.0, 2.0, 0.0, 0.0);
    Eigen::Matrix4d p = Eigen::Vector4d(POS_VAR, POS_VAR, VEL_VAR, VEL_VAR).asDiagonal();
    x = f * x;
    p = f * p * f.transpose() + testing::noiseOf<4>(DT_S, Q_DENSITY);
    Eigen::Matrix<double, 2, 4> h = Eigen::Matrix<double, 2, 4>::Zero();
    h(0, 0) = h(1, 1) = 1.0;
    const Eigen::Matrix2d rm = Eigen::Vector2d(r[0], r[1]).asDiagonal();
    const Eigen::Matrix2d s = h * p * h.transpose() + rm;
    const Eigen::Matrix<double, 4, 2> k = p * h.transpose() * s.inverse();
    const Eigen::Vector2d nu = Eigen::Vector2d(z[0], z[1]) - h * x;
    const Eigen::Vector4d expectedMean = x + k * nu;
    const Eigen::Matrix4d expectedCov = (Eigen::Matrix4d::Identity() - k * h) * p;
    constexpr double TOLERANCE = 1e-12;
    target.expectNear(expectedMean, expectedCov, TOLERANCE);
    EXPECT_NEAR(nis, nu.dot(s.inverse() * nu), TOLERANCE);
}

TEST(KalmanBank, VelocityMeasurementEqualsJointFourDimensionalGainForm) {
    OneTarget target;
    cpu::initializeTarget<double>(MotionModel::ConstantVelocity, target.state(), 0, 1.0, 2.0, POS_VAR, VEL_VAR, 0.0);
    const double dt = DT_S;
    const double z[2] = {1.7, 1.2};
    const double r[2] = {MEAS_VAR, 2 * MEAS_VAR};
    const double zVel[2] = {3.0, -0.5};
    const double velCov[3] = {0.09, 0.02, 0.16};  // xx, xy, yy: correlated
    const std::uint8_t present = 1;
    double nis = 0.0;
    const ModelParams<double> sut{MotionModel::ConstantVelocity, Q_DENSITY};

    cpu::step<double>(sut, target.state(), {&dt, z, r, &present, &nis, zVel, velCov, &present});

    // Independent computation: one update with z = (x, y, vx, vy), H = I₄, R block-diagonal.
    const Eigen::Matrix4d f = testing::transitionOf<4>(DT_S);
    Eigen::Vector4d x(1.0, 2.0, 0.0, 0.0);
    Eigen::Matrix4d p = Eigen::Vector4d(POS_VAR, POS_VAR, VEL_VAR, VEL_VAR).asDiagonal();
    x = f * x;
    p = f * p * f.transpose() + testing::noiseOf<4>(DT_S, Q_DENSITY);
    Eigen::Matrix4d rm = Eigen::Matrix4d::Zero();
    rm(0, 0) = r[0];
    rm(1, 1) = r[1];
    rm(2, 2) = velCov[0];
    rm(2, 3) = rm(3, 2) = velCov[1];
    rm(3, 3) = velCov[2];
    const Eigen::Matrix4d s = p + rm;
    const Eigen::Matrix4d k = p * s.inverse();
    const Eigen::Vector4d nu = Eigen::Vector4d(z[0], z[1], zVel[0], zVel[1]) - x;
    const Eigen::Vector4d expectedMean = x + k * nu;
    const Eigen::Matrix4d expectedCov = (Eigen::Matrix4d::Identity() - k) * p;
    constexpr double TOLERANCE = 1e-12;
    target.expectNear(expectedMean, expectedCov, TOLERANCE);
    EXPECT_NEAR(nis, nu.dot(s.inverse() * nu), TOLERANCE);
}

TEST(KalmanBank, VelocityWithoutPositionMeasurementIsNotApplied) {
    OneTarget withVelocity;
    OneTarget without;
    for (OneTarget* t : {&withVelocity, &without}) {
        cpu::initializeTarget<double>(MotionModel::ConstantVelocity, t->state(), 0, 1.0, 2.0, POS_VAR, VEL_VAR, 0.0);
    }
    const double dt = DT_S;
    const double z[2] = {0.0, 0.0};
    const double r[2] = {MEAS_VAR, MEAS_VAR};
    const double zVel[2] = {5.0, 5.0};
    const double velCov[3] = {0.1, 0.0, 0.1};
    const std::uint8_t missing = 0;
    const std::uint8_t velocityFlag = 1;
    const ModelParams<double> sut{MotionModel::ConstantVelocity, Q_DENSITY};

    cpu::step<double>(sut, withVelocity.state(), {&dt, z, r, &missing, nullptr, zVel, velCov, &velocityFlag});
    cpu::step<double>(sut, without.state(), {&dt, z, r, &missing, nullptr});

    EXPECT_EQ(withVelocity.mean, without.mean);
    EXPECT_EQ(withVelocity.cov, without.cov);
}

TEST(KalmanBank, PolarVelocityCovarianceMatchesSampledSpeedAndHeadingNoise) {
    constexpr double SPEED_MPS = 12.0;
    constexpr double HEADING_RAD = 0.7;
    constexpr double STD_SPEED_MPS = 0.3;
    constexpr double STD_HEADING_RAD = 0.05;
    constexpr int SAMPLES = 200000;
    std::mt19937_64 rng(7);
    std::normal_distribution<double> normal(0.0, 1.0);
    Eigen::Matrix2d sampled = Eigen::Matrix2d::Zero();
    const Eigen::Vector2d mean(SPEED_MPS * std::cos(HEADING_RAD), SPEED_MPS * std::sin(HEADING_RAD));
    for (int i = 0; i < SAMPLES; ++i) {
        const double v = SPEED_MPS + STD_SPEED_MPS * normal(rng);
        const double h = HEADING_RAD + STD_HEADING_RAD * normal(rng);
        const Eigen::Vector2d e = Eigen::Vector2d(v * std::cos(h), v * std::sin(h)) - mean;
        sampled += e * e.transpose() / SAMPLES;
    }
    double xx = 0.0;
    double xy = 0.0;
    double yy = 0.0;

    polarVelocityCovariance(SPEED_MPS, HEADING_RAD, STD_SPEED_MPS, STD_HEADING_RAD, xx, xy, yy);

    // First order in σ_θ: the sampled covariance differs by O(σ_θ²) relative plus sampling error (~1 %).
    constexpr double RELATIVE_TOLERANCE = 0.02;
    const double scale = std::max(xx, yy);
    EXPECT_NEAR(xx, sampled(0, 0), RELATIVE_TOLERANCE * scale);
    EXPECT_NEAR(xy, sampled(0, 1), RELATIVE_TOLERANCE * scale);
    EXPECT_NEAR(yy, sampled(1, 1), RELATIVE_TOLERANCE * scale);
}

TEST(KalmanBank, PolarVelocityCovarianceOfAStandingObjectIsTheSpeedNoiseAlongItsHeading) {
    constexpr float STD_SPEED_MPS = 0.4F;
    float xx = -1.0F;
    float xy = -1.0F;
    float yy = -1.0F;

    polarVelocityCovariance(0.0F, 0.0F, STD_SPEED_MPS, 0.1F, xx, xy, yy);

    EXPECT_FLOAT_EQ(xx, STD_SPEED_MPS * STD_SPEED_MPS);
    EXPECT_FLOAT_EQ(xy, 0.0F);
    EXPECT_FLOAT_EQ(yy, 0.0F);  // heading noise moves nothing at speed 0
}

TEST(KalmanBank, ZeroTargetsTouchesNothing) {
    constexpr double SENTINEL = 123.0;
    std::vector<double> mean(4, SENTINEL);
    std::vector<double> cov(10, SENTINEL);
    const ModelParams<double> sut{MotionModel::ConstantVelocity, Q_DENSITY};

    cpu::step<double>(sut, {mean.data(), cov.data(), 0, 1}, {nullptr, nullptr, nullptr, nullptr, nullptr});

    EXPECT_EQ(mean, std::vector<double>(4, SENTINEL));
    EXPECT_EQ(cov, std::vector<double>(10, SENTINEL));
}

TEST(KalmanBank, ManyTargetsEqualSeparateSingleTargetRuns) {
    // A bank of B targets with stride > B gives each target exactly what a bank of one would.
    testing::Scenario scenario;
    scenario.model = MotionModel::ConstantAcceleration;
    scenario.targets = 7;
    scenario.steps = 40;
    scenario.missingProbability = 0.4;
    const auto sim = testing::simulate(scenario);
    const auto all = testing::filterSimulation<double>(sim);
    for (std::size_t b = 0; b < scenario.targets; ++b) {
        testing::Scenario single = scenario;
        single.targets = 1;
        testing::Simulation one;
        one.scenario = single;
        one.dim = sim.dim;
        for (std::size_t k = 0; k < scenario.steps; ++k) {
            one.dt.push_back(sim.dt[k * scenario.targets + b]);
            one.present.push_back(sim.present[k * scenario.targets + b]);
            for (int a = 0; a < 2; ++a) {
                one.z.push_back(sim.z[(k * 2 + a) * scenario.targets + b]);
                one.measVar.push_back(sim.measVar[(k * 2 + a) * scenario.targets + b]);
            }
        }
        const auto sut = testing::filterSimulation<double>(one);
        for (std::size_t k = 0; k < scenario.steps; ++k) {
            for (int c = 0; c < 6; ++c) {
                ASSERT_EQ(sut.mean[k * 6 + c], all.mean[(k * 6 + c) * scenario.targets + b]);
            }
            for (int c = 0; c < 21; ++c) {
                ASSERT_EQ(sut.cov[k * 21 + c], all.cov[(k * 21 + c) * scenario.targets + b]);
            }
        }
    }
}

template <typename Real, int D>
void expectPositiveDefiniteEverywhere(const testing::Filtered<Real>& f, std::size_t steps, std::size_t targets) {
    for (std::size_t k = 0; k < steps; ++k) {
        for (std::size_t b = 0; b < targets; ++b) {
            const Eigen::Matrix<double, D, D> p = testing::covAt<D>(f.cov, k, b, targets);
            const Eigen::SelfAdjointEigenSolver<Eigen::Matrix<double, D, D>> eig(p);
            ASSERT_GT(eig.eigenvalues().minCoeff(), 0.0) << "step " << k << " target " << b;
        }
    }
}

TEST(KalmanBank, CovarianceStaysPositiveDefiniteWithTinyNoiseAndHugePriorInFloat) {
    testing::Scenario scenario;
    scenario.model = MotionModel::ConstantAcceleration;
    scenario.measStd_m = 1e-3;
    scenario.noiseDensity = 1e-2;
    scenario.steps = 5000;
    scenario.targets = 4;
    scenario.seed = 11;
    constexpr double HUGE_INITIAL_VARIANCE = 1e8;
    const auto sim = testing::simulate(scenario);

    const auto sut = testing::filterSimulation<float>(sim, HUGE_INITIAL_VARIANCE);

    expectPositiveDefiniteEverywhere<float, 6>(sut, scenario.steps, scenario.targets);
}

TEST(KalmanBank, CovarianceStaysPositiveDefiniteOverLongCvRunInFloat) {
    testing::Scenario scenario;
    scenario.steps = 20000;
    scenario.targets = 2;
    scenario.missingProbability = 0.5;
    scenario.seed = 12;
    const auto sim = testing::simulate(scenario);

    const auto sut = testing::filterSimulation<float>(sim);

    expectPositiveDefiniteEverywhere<float, 4>(sut, scenario.steps, scenario.targets);
}

TEST(KalmanBank, FloatTracksDoubleOverLongRun) {
    testing::Scenario scenario;
    scenario.steps = 2000;
    scenario.targets = 3;
    const auto sim = testing::simulate(scenario);
    const auto reference = testing::filterSimulation<double>(sim);

    const auto sut = testing::filterSimulation<float>(sim);

    constexpr double FLOAT_TOLERANCE = 1e-4;  // norm-wise relative, after 2000 cycles
    EXPECT_LE(testing::maxNormwiseDifference(sut.mean, testing::convert<float>(reference.mean), 4, scenario.targets),
              FLOAT_TOLERANCE);
    EXPECT_LE(testing::maxNormwiseDifference(sut.cov, testing::convert<float>(reference.cov), 10, scenario.targets),
              FLOAT_TOLERANCE);
}

}  // namespace
}  // namespace augur::kernels::kf
