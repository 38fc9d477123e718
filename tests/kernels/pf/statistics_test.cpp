// Statistical tests of the CPU reference filter (label: statistics). Sizes are kept so the suite
// runs in a few seconds in Release: UNGM 100 Monte-Carlo runs × T = 100 at K = 1000.
#include <gtest/gtest.h>

#include <cmath>
#include <chrono>
#include <cstdio>
#include <random>
#include <vector>

#include "augur/kernels/pf/filter.hpp"

namespace augur::kernels::pf {
namespace {

template <typename Model>
cpu::ParticleFilter<Model> makeFilter(const FilterConfig& config, const typename Model::Params& params) {
    auto created = cpu::ParticleFilter<Model>::create(config, params);
    EXPECT_TRUE(created.hasValue());
    return std::move(created).value();
}

// ---- linear-Gaussian: PF mean → Kalman mean ------------------------------------------------------

/// RMS over runs and steps of (PF mean − Kalman mean).
double linearGaussianError(std::uint32_t particles, int runs, int steps) {
    const LinearGaussianModel::Params p{};
    double squared = 0.0;
    int count = 0;
    for (int run = 0; run < runs; ++run) {
        std::mt19937 gen(1000 + static_cast<std::uint32_t>(run));
        std::normal_distribution<double> normal(0.0, 1.0);
        FilterConfig config;
        config.particles = particles;
        config.seed = 77 + static_cast<std::uint64_t>(run);
        auto sut = makeFilter<LinearGaussianModel>(config, p);
        LinearGaussianModel::VehicleInput z{};
        EXPECT_TRUE(sut.initialize({&z, 1}));
        double x = p.m0 + std::sqrt(p.p0) * normal(gen);
        double mean = p.m0;
        double variance = p.p0;
        for (int k = 1; k <= steps; ++k) {
            x = p.a * x + std::sqrt(p.q) * normal(gen);
            z.z = static_cast<float>(p.h * x + std::sqrt(p.r) * normal(gen));
            // Kalman filter on the same measurement.
            const double predictedMean = p.a * mean;
            const double predictedVariance = p.a * p.a * variance + p.q;
            const double gain = predictedVariance * p.h / (p.h * p.h * predictedVariance + p.r);
            mean = predictedMean + gain * (z.z - p.h * predictedMean);
            variance = (1.0 - gain * p.h) * predictedVariance;
            EXPECT_TRUE(sut.setInputs({&z, 1}));
            sut.step();
            const double error = sut.outputs()[0] - mean;
            squared += error * error;
            ++count;
        }
    }
    return std::sqrt(squared / count);
}

TEST(LinearGaussian, ParticleMeanConvergesToKalmanMeanAsOneOverRootK) {
    constexpr int RUNS = 20;
    constexpr int STEPS = 20;
    const double e100 = linearGaussianError(100, RUNS, STEPS);
    const double e1000 = linearGaussianError(1000, RUNS, STEPS);
    const double e10000 = linearGaussianError(10000, RUNS, STEPS);
    std::printf("linear-Gaussian RMS(PF − KF): K=100 %.4f, K=1000 %.4f, K=10000 %.4f\n", e100, e1000, e10000);
    // 1/√K predicts a factor √10 ≈ 3.16 per decade; accept 2 … 5.
    EXPECT_GT(e100 / e1000, 2.0);
    EXPECT_LT(e100 / e1000, 5.0);
    EXPECT_GT(e1000 / e10000, 2.0);
    EXPECT_LT(e1000 / e10000, 5.0);
    EXPECT_LT(e10000, 0.03);
}

// ---- UNGM -------------------------------------------------------------------------------------

struct UngmResult {
    double rmse;
    double seconds;
};

UngmResult ungmRmse(std::uint32_t particles, Resampler resampler, int runs, int steps) {
    const UngmModel::Params p{};
    double squared = 0.0;
    int count = 0;
    const auto start = std::chrono::steady_clock::now();
    for (int run = 0; run < runs; ++run) {
        std::mt19937 gen(5000 + static_cast<std::uint32_t>(run));
        std::normal_distribution<double> normal(0.0, 1.0);
        FilterConfig config;
        config.particles = particles;
        config.seed = 4242 + static_cast<std::uint64_t>(run);
        config.resampler = resampler;
        if (resampler == Resampler::DifferentialEvolution) {
            config.resampleThreshold = 2.0F;  // the DE step replaces resampling every step
        } else {
            config.resampleThreshold = 2.0F;  // bootstrap PF: resample every step
        }
        auto sut = makeFilter<UngmModel>(config, p);
        UngmModel::VehicleInput z{};
        EXPECT_TRUE(sut.initialize({&z, 1}));
        double x = std::sqrt(p.initialVariance) * normal(gen);
        for (int k = 1; k <= steps; ++k) {
            x = 0.5 * x + 25.0 * x / (1.0 + x * x) + 8.0 * std::cos(1.2 * k) + std::sqrt(p.processVariance) * normal(gen);
            z.z = static_cast<float>(x * x / 20.0 + std::sqrt(p.measurementVariance) * normal(gen));
            z.time = static_cast<float>(k);
            EXPECT_TRUE(sut.setInputs({&z, 1}));
            sut.step();
            const double error = sut.outputs()[0] - x;
            squared += error * error;
            ++count;
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return {std::sqrt(squared / count), seconds};
}

TEST(Ungm, BootstrapFilterRmseIsNearItsConvergedValue) {
    constexpr int RUNS = 100;
    constexpr int STEPS = 100;
    const auto r = ungmRmse(1000, Resampler::Systematic, RUNS, STEPS);
    std::printf("UNGM bootstrap PF, K=1000, 100 runs × T=100: RMSE %.3f (%.2f s CPU)\n", r.rmse, r.seconds);
    EXPECT_GT(r.rmse, 3.5);
    EXPECT_LT(r.rmse, 6.0);
}

TEST(Ungm, DifferentialEvolutionResamplingReportedAgainstBootstrap) {
    // Reported, not ranked: the issue asks for the honest comparison at K = 100 and 1000.
    constexpr int RUNS = 30;
    constexpr int STEPS = 100;
    for (const std::uint32_t k : {100U, 1000U}) {
        const auto boot = ungmRmse(k, Resampler::Systematic, RUNS, STEPS);
        const auto de = ungmRmse(k, Resampler::DifferentialEvolution, RUNS, STEPS);
        std::printf("UNGM K=%u, %d runs × T=%d: bootstrap RMSE %.3f (%.3f s), DE RMSE %.3f (%.3f s)\n", k, RUNS, STEPS,
                    boot.rmse, boot.seconds, de.rmse, de.seconds);
        EXPECT_TRUE(std::isfinite(de.rmse));
        EXPECT_LT(de.rmse, 15.0);  // sanity: it tracks (the prior alone gives ≈ 20)
    }
}

// ---- Cao et al. 2018's model -------------------------------------------------------------------------

TEST(GammaNoiseSwitchingModel, BootstrapAndDifferentialEvolutionTrackTheState) {
    constexpr int RUNS = 20;
    constexpr int STEPS = 50;  // T = 50 (Cao et al. 2018)
    constexpr std::uint32_t K = 500;
    GammaNoiseSwitchingModel::Params p;
    p.measurementVariance = 1e-2F;
    for (const Resampler resampler : {Resampler::Systematic, Resampler::DifferentialEvolution}) {
        double squared = 0.0;
        int count = 0;
        for (int run = 0; run < RUNS; ++run) {
            std::mt19937 gen(9000 + static_cast<std::uint32_t>(run));
            std::gamma_distribution<double> gamma(3.0, 2.0);
            std::normal_distribution<double> normal(0.0, 1.0);
            FilterConfig config;
            config.particles = K;
            config.seed = 31 + static_cast<std::uint64_t>(run);
            config.resampler = resampler;
            auto sut = makeFilter<GammaNoiseSwitchingModel>(config, p);
            GammaNoiseSwitchingModel::VehicleInput y{};
            EXPECT_TRUE(sut.initialize({&y, 1}));
            double x = p.initialMean + std::sqrt(p.initialVariance) * normal(gen);
            for (int k = 1; k <= STEPS; ++k) {
                x = 1.0 + std::sin(0.04 * M_PI * k) + 0.5 * x + gamma(gen);
                const double clean = k <= p.switchTime ? 0.2 * x * x : 0.5 * x - 2.0;
                y.y = static_cast<float>(clean + std::sqrt(p.measurementVariance) * normal(gen));
                y.time = static_cast<float>(k);
                EXPECT_TRUE(sut.setInputs({&y, 1}));
                sut.step();
                const double error = sut.outputs()[0] - x;
                squared += error * error;
                ++count;
            }
        }
        const double rmse = std::sqrt(squared / count);
        std::printf("seed-004 model, K=%u, %d runs × T=%d, R=%.0e: %s RMSE %.3f\n", K, RUNS, STEPS,
                    static_cast<double>(p.measurementVariance),
                    resampler == Resampler::Systematic ? "bootstrap" : "DE", rmse);
        // The process noise alone has standard deviation √12 ≈ 3.5; a working filter does far better.
        EXPECT_LT(rmse, 1.0);
    }
}

}  // namespace
}  // namespace augur::kernels::pf
