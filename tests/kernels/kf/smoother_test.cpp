// The parallel-in-time RTS smoother (scan form) against the sequential RTS recursion, the associativity
// of its combine operator, and the boundary elements.
#include <gtest/gtest.h>

#include <Eigen/Dense>

#include <random>
#include <vector>

#include "augur/kernels/kf/smoother.hpp"
#include "augur/kernels/kf/smoother_element.hpp"
#include "kf_test_support.hpp"

namespace augur::kernels::kf {
namespace {

using testing::Filtered;
using testing::Scenario;

// Parallel vs sequential, relative and norm-wise: per step and target, the largest difference of a mean
// (covariance) over the largest entry of the reference mean (covariance). Component-wise relative error
// is meaningless for a velocity crossing zero while the position is 10^7 m.
constexpr double DOUBLE_TOLERANCE = 1e-9;

struct Smoothed {
    std::vector<double> mean;
    std::vector<double> cov;
};

Smoothed runSequential(const ModelParams<double>& params, const Filtered<double>& f, std::size_t steps,
                       std::size_t targets) {
    Smoothed out{std::vector<double>(f.mean.size()), std::vector<double>(f.cov.size())};
    cpu::smoothSequential<double>(params, {f.mean.data(), f.cov.data(), f.dt.data(), steps, targets},
                                  {out.mean.data(), out.cov.data()});
    return out;
}

Smoothed runParallel(const ModelParams<double>& params, const Filtered<double>& f, std::size_t steps,
                     std::size_t targets, std::size_t chunk) {
    Smoothed out{std::vector<double>(f.mean.size()), std::vector<double>(f.cov.size())};
    std::vector<double> scratch(cpu::smootherScratchCount(params.model, steps, targets, chunk));
    cpu::smoothParallel<double>(params, {f.mean.data(), f.cov.data(), f.dt.data(), steps, targets},
                                {out.mean.data(), out.cov.data()}, scratch.data(), chunk);
    return out;
}

double meanError(const Smoothed& sut, const Smoothed& expected, MotionModel model, std::size_t targets) {
    return testing::maxNormwiseDifference(sut.mean, expected.mean, static_cast<std::size_t>(stateDim(model)), targets);
}

double covError(const Smoothed& sut, const Smoothed& expected, MotionModel model, std::size_t targets) {
    return testing::maxNormwiseDifference(sut.cov, expected.cov, static_cast<std::size_t>(packedSize(stateDim(model))),
                                          targets);
}

struct LengthCase {
    MotionModel model;
    std::size_t chunk;
};

class ParallelSmootherLengths : public ::testing::TestWithParam<LengthCase> {};

TEST_P(ParallelSmootherLengths, EqualsSequentialRtsForEveryLength) {
    // T = 1, 2, 3, powers of two and ±1 around them, up to past chunk² (two scan levels).
    const std::vector<std::size_t> lengths{1,  2,  3,  4,  5,  7,  8,   9,   15,  16,   17,   31,   32,
                                           33, 63, 64, 65, 127, 128, 129, 1023, 1024, 1025, 2049};
    const LengthCase param = GetParam();
    for (const std::size_t steps : lengths) {
        Scenario scenario;
        scenario.model = param.model;
        scenario.steps = steps;
        scenario.targets = 3;
        scenario.missingProbability = 0.3;
        scenario.seed = 1000 + steps;
        const auto sim = testing::simulate(scenario);
        const auto filtered = testing::filterSimulation<double>(sim);
        const ModelParams<double> params{scenario.model, scenario.noiseDensity};

        const auto expected = runSequential(params, filtered, steps, scenario.targets);
        const auto sut = runParallel(params, filtered, steps, scenario.targets, param.chunk);

        EXPECT_LE(meanError(sut, expected, param.model, scenario.targets), DOUBLE_TOLERANCE)
            << "T = " << steps;
        EXPECT_LE(covError(sut, expected, param.model, scenario.targets), DOUBLE_TOLERANCE)
            << "T = " << steps;
    }
}

INSTANTIATE_TEST_SUITE_P(ModelsAndChunks, ParallelSmootherLengths,
                         ::testing::Values(LengthCase{MotionModel::ConstantVelocity, DEFAULT_CHUNK_LENGTH},
                                           LengthCase{MotionModel::ConstantVelocity, 4},
                                           LengthCase{MotionModel::ConstantAcceleration, DEFAULT_CHUNK_LENGTH},
                                           LengthCase{MotionModel::ConstantAcceleration, 3}));

TEST(ParallelSmoother, EqualsSequentialRtsOverAMillionSteps) {
    constexpr std::size_t STEPS = 1'000'000;
    Scenario scenario;
    scenario.steps = STEPS;
    scenario.missingProbability = 0.1;
    scenario.seed = 77;
    const auto sim = testing::simulate(scenario);
    const auto filtered = testing::filterSimulation<double>(sim);
    const ModelParams<double> params{scenario.model, scenario.noiseDensity};

    const auto expected = runSequential(params, filtered, STEPS, 1);
    const auto sut = runParallel(params, filtered, STEPS, 1, DEFAULT_CHUNK_LENGTH);

    EXPECT_LE(meanError(sut, expected, scenario.model, std::size_t{1}), DOUBLE_TOLERANCE);
    EXPECT_LE(covError(sut, expected, scenario.model, std::size_t{1}), DOUBLE_TOLERANCE);
}

TEST(ParallelSmoother, LastStepEqualsFilteredEstimate) {
    Scenario scenario;
    scenario.steps = 50;
    scenario.targets = 2;
    const auto sim = testing::simulate(scenario);
    const auto filtered = testing::filterSimulation<double>(sim);
    const ModelParams<double> params{scenario.model, scenario.noiseDensity};

    const auto sut = runParallel(params, filtered, scenario.steps, scenario.targets, DEFAULT_CHUNK_LENGTH);

    const std::size_t meanBegin = (scenario.steps - 1) * 4 * scenario.targets;
    const std::size_t covBegin = (scenario.steps - 1) * 10 * scenario.targets;
    for (std::size_t i = meanBegin; i < filtered.mean.size(); ++i) {
        EXPECT_EQ(sut.mean[i], filtered.mean[i]);
    }
    for (std::size_t i = covBegin; i < filtered.cov.size(); ++i) {
        EXPECT_EQ(sut.cov[i], filtered.cov[i]);
    }
}

TEST(ParallelSmoother, SingleStepHistoryIsTheFilteredEstimate) {
    Scenario scenario;
    scenario.steps = 1;
    const auto sim = testing::simulate(scenario);
    const auto filtered = testing::filterSimulation<double>(sim);
    const ModelParams<double> params{scenario.model, scenario.noiseDensity};

    const auto sut = runParallel(params, filtered, 1, 1, DEFAULT_CHUNK_LENGTH);

    EXPECT_EQ(sut.mean, filtered.mean);
    EXPECT_EQ(sut.cov, filtered.cov);
}

template <typename Real, int D>
ScanElement<Real, D> randomElement(std::mt19937_64& rng) {
    std::normal_distribution<double> normal(0.0, 1.0);
    ScanElement<Real, D> e;
    for (auto& v : e.E) {
        v = static_cast<Real>(0.4 * normal(rng));
    }
    for (auto& v : e.g) {
        v = static_cast<Real>(10.0 * normal(rng));
    }
    Eigen::Matrix<double, D, D> a;
    for (int i = 0; i < D; ++i) {
        for (int j = 0; j < D; ++j) {
            a(i, j) = normal(rng);
        }
    }
    const Eigen::Matrix<double, D, D> spd = a * a.transpose() + Eigen::Matrix<double, D, D>::Identity();
    for (int i = 0; i < D; ++i) {
        for (int j = i; j < D; ++j) {
            e.L[packedIndex(D, i, j)] = static_cast<Real>(spd(i, j));
        }
    }
    return e;
}

template <typename Real, int D>
double associativityError(int trials, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    double worst = 0.0;
    for (int t = 0; t < trials; ++t) {
        const auto a = randomElement<Real, D>(rng);
        const auto b = randomElement<Real, D>(rng);
        const auto c = randomElement<Real, D>(rng);
        const auto left = cpu::combine<Real, D>(cpu::combine<Real, D>(a, b), c);
        const auto right = cpu::combine<Real, D>(a, cpu::combine<Real, D>(b, c));
        constexpr int N = ScanElement<Real, D>::VALUES;
        const Real* l = left.E;
        const Real* r = right.E;
        double scale = 0.0;
        for (int i = 0; i < N; ++i) {
            scale = std::max(scale, std::abs(static_cast<double>(r[i])));
        }
        for (int i = 0; i < N; ++i) {
            worst = std::max(worst, std::abs(static_cast<double>(l[i]) - static_cast<double>(r[i])) / scale);
        }
    }
    return worst;
}

TEST(ScanCombine, IsAssociativeOnRandomElements) {
    constexpr int TRIALS = 1000;
    constexpr double DOUBLE_BOUND = 1e-13;
    constexpr double FLOAT_BOUND = 1e-5;
    EXPECT_LE((associativityError<double, 4>(TRIALS, 1)), DOUBLE_BOUND);
    EXPECT_LE((associativityError<double, 6>(TRIALS, 2)), DOUBLE_BOUND);
    EXPECT_LE((associativityError<float, 4>(TRIALS, 3)), FLOAT_BOUND);
    EXPECT_LE((associativityError<float, 6>(TRIALS, 4)), FLOAT_BOUND);
}

TEST(ScanCombine, TerminalElementAbsorbsEverythingAfterIt) {
    // e ⊗ terminal keeps E = 0: nothing after the last step changes a suffix that contains it.
    std::mt19937_64 rng(9);
    auto terminal = randomElement<double, 4>(rng);
    for (auto& v : terminal.E) {
        v = 0.0;
    }
    const auto earlier = randomElement<double, 4>(rng);
    const auto other = randomElement<double, 4>(rng);

    const auto sut = cpu::combine<double, 4>(earlier, terminal);
    const auto extended = cpu::combine<double, 4>(sut, other);

    for (double v : sut.E) {
        EXPECT_EQ(v, 0.0);
    }
    for (int i = 0; i < 4; ++i) {
        EXPECT_DOUBLE_EQ(extended.g[i], sut.g[i]);
    }
}

TEST(ScanElement, CombinedWithSmoothedSuccessorReproducesRtsStep) {
    // One RTS step by hand: element k combined with the terminal element of k+1 equals G-form RTS.
    Scenario scenario;
    scenario.steps = 2;
    const auto sim = testing::simulate(scenario);
    const auto f = testing::filterSimulation<double>(sim);
    const ModelParams<double> params{scenario.model, scenario.noiseDensity};
    const double dt = f.dt[0];

    const auto e0 = cpu::makeElement<double, 4>(params, f.mean.data(), f.cov.data(), dt, false);
    const auto e1 = cpu::makeElement<double, 4>(params, f.mean.data() + 4, f.cov.data() + 10, 0.0, true);
    const auto sut = cpu::combine<double, 4>(e0, e1);

    const Eigen::Vector4d m0 = Eigen::Map<const Eigen::Vector4d>(f.mean.data());
    const Eigen::Vector4d m1 = Eigen::Map<const Eigen::Vector4d>(f.mean.data() + 4);
    const Eigen::Matrix4d p0 = testing::covAt<4>(f.cov, 0, 0, 1);
    const Eigen::Matrix4d p1 = testing::covAt<4>(f.cov, 1, 0, 1);
    const Eigen::Matrix4d fm = testing::transitionOf<4>(dt);
    const Eigen::Matrix4d pp = fm * p0 * fm.transpose() + testing::noiseOf<4>(dt, scenario.noiseDensity);
    const Eigen::Matrix4d g = p0 * fm.transpose() * pp.inverse();
    const Eigen::Vector4d expectedMean = m0 + g * (m1 - fm * m0);
    const Eigen::Matrix4d expectedCov = p0 + g * (p1 - pp) * g.transpose();
    constexpr double TOLERANCE = 1e-10;
    for (int i = 0; i < 4; ++i) {
        EXPECT_NEAR(sut.g[i], expectedMean(i), TOLERANCE * (1.0 + std::abs(expectedMean(i))));
        for (int j = i; j < 4; ++j) {
            EXPECT_NEAR(sut.L[packedIndex(4, i, j)], expectedCov(i, j), TOLERANCE);
        }
    }
}

TEST(ParallelSmoother, CovariancesStayPositiveDefiniteUnderStress) {
    // Tiny measurement noise and a huge initial covariance, CA model, 4096 steps.
    Scenario scenario;
    scenario.model = MotionModel::ConstantAcceleration;
    scenario.measStd_m = 1e-3;
    scenario.steps = 4096;
    scenario.targets = 2;
    scenario.seed = 5;
    constexpr double HUGE_INITIAL_VARIANCE = 1e8;
    const auto sim = testing::simulate(scenario);
    const auto filtered = testing::filterSimulation<double>(sim, HUGE_INITIAL_VARIANCE);
    const ModelParams<double> params{scenario.model, scenario.noiseDensity};

    const auto sut = runParallel(params, filtered, scenario.steps, scenario.targets, DEFAULT_CHUNK_LENGTH);

    for (std::size_t k = 0; k < scenario.steps; ++k) {
        for (std::size_t b = 0; b < scenario.targets; ++b) {
            const Eigen::Matrix<double, 6, 6> p = testing::covAt<6>(sut.cov, k, b, scenario.targets);
            ASSERT_EQ(p.llt().info(), Eigen::Success) << "step " << k << " target " << b;
        }
    }
}

}  // namespace
}  // namespace augur::kernels::kf
