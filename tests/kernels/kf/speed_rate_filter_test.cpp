// The speed-rate filter (kf/speed_rate_filter.hpp): its prediction and Joseph update against the closed
// forms, convergence to the exact rate of a speed ramp, and the Riccati fixed point its header quotes.
#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "augur/kernels/kf/speed_rate_filter.hpp"

namespace augur::kernels::kf {
namespace {

constexpr float DT_S = 0.1F;
constexpr float JERK_DENSITY_M2PS5 = 2.0F;
constexpr float SPEED_STD_MPS = 0.3F;
constexpr float SPEED_VAR_M2PS2 = SPEED_STD_MPS * SPEED_STD_MPS;
constexpr float INITIAL_RATE_VAR_M2PS4 = 4.0F;

TEST(SpeedRateFilter, PredictionMovesTheSpeedByTheRateAndAddsTheJerkNoise) {
    constexpr float SPEED_MPS = 8.0F;
    constexpr float RATE_MPS2 = 1.5F;
    constexpr float SPEED_VAR = 0.5F;
    constexpr float COV = 0.2F;
    constexpr float RATE_VAR = 1.0F;
    SpeedRateState sut{SPEED_MPS, RATE_MPS2, SPEED_VAR, COV, RATE_VAR};

    predictSpeedRate(sut, DT_S, JERK_DENSITY_M2PS5);

    constexpr float TOLERANCE = 1e-6F;
    EXPECT_NEAR(sut.speed_mps, SPEED_MPS + DT_S * RATE_MPS2, TOLERANCE);
    EXPECT_FLOAT_EQ(sut.rate_mps2, RATE_MPS2);
    // F P Fᵀ + Q with F = [1 dt; 0 1], Q = q [dt³/3 dt²/2; dt²/2 dt].
    EXPECT_NEAR(sut.varSpeed_m2ps2,
                SPEED_VAR + 2.0F * DT_S * COV + DT_S * DT_S * RATE_VAR + JERK_DENSITY_M2PS5 * DT_S * DT_S * DT_S / 3.0F,
                TOLERANCE);
    EXPECT_NEAR(sut.covSpeedRate_m2ps3, COV + DT_S * RATE_VAR + JERK_DENSITY_M2PS5 * DT_S * DT_S / 2.0F, TOLERANCE);
    EXPECT_NEAR(sut.varRate_m2ps4, RATE_VAR + JERK_DENSITY_M2PS5 * DT_S, TOLERANCE);
}

TEST(SpeedRateFilter, ZeroTimeStepLeavesTheStateUnchanged) {
    const SpeedRateState before{5.0F, -1.0F, 0.4F, 0.1F, 0.9F};
    SpeedRateState sut = before;

    predictSpeedRate(sut, 0.0F, JERK_DENSITY_M2PS5);

    EXPECT_EQ(sut.speed_mps, before.speed_mps);
    EXPECT_EQ(sut.varSpeed_m2ps2, before.varSpeed_m2ps2);
    EXPECT_EQ(sut.covSpeedRate_m2ps3, before.covSpeedRate_m2ps3);
    EXPECT_EQ(sut.varRate_m2ps4, before.varRate_m2ps4);
}

TEST(SpeedRateFilter, JosephUpdateEqualsTheStandardFormInExactArithmetic) {
    constexpr float SPEED_VAR = 0.5F;
    constexpr float COV = 0.3F;
    constexpr float RATE_VAR = 1.2F;
    constexpr float MEASURED_MPS = 7.0F;
    SpeedRateState sut{6.0F, 0.5F, SPEED_VAR, COV, RATE_VAR};

    updateSpeedRate(sut, MEASURED_MPS, SPEED_VAR_M2PS2);

    // Standard form: K = (P_vv, P_va)/S, P ← P − K S Kᵀ.
    const float s = SPEED_VAR + SPEED_VAR_M2PS2;
    const float k0 = SPEED_VAR / s;
    const float k1 = COV / s;
    constexpr float TOLERANCE = 1e-5F;
    EXPECT_NEAR(sut.speed_mps, 6.0F + k0 * (MEASURED_MPS - 6.0F), TOLERANCE);
    EXPECT_NEAR(sut.rate_mps2, 0.5F + k1 * (MEASURED_MPS - 6.0F), TOLERANCE);
    EXPECT_NEAR(sut.varSpeed_m2ps2, SPEED_VAR - k0 * k0 * s, TOLERANCE);
    EXPECT_NEAR(sut.covSpeedRate_m2ps3, COV - k0 * k1 * s, TOLERANCE);
    EXPECT_NEAR(sut.varRate_m2ps4, RATE_VAR - k1 * k1 * s, TOLERANCE);
}

TEST(SpeedRateFilter, ANoiselessMeasurementOfADegenerateStateIsIgnored) {
    const SpeedRateState before{3.0F, 0.0F, 0.0F, 0.0F, 1.0F};
    SpeedRateState sut = before;

    updateSpeedRate(sut, 4.0F, 0.0F);

    EXPECT_EQ(sut.speed_mps, before.speed_mps);
    EXPECT_EQ(sut.rate_mps2, before.rate_mps2);
    EXPECT_TRUE(std::isfinite(sut.varRate_m2ps4));
}

TEST(SpeedRateFilter, ConvergesToTheExactRateOfANoiselessSpeedRamp) {
    constexpr float V0_MPS = 4.0F;
    constexpr float RATE_MPS2 = 2.0F;
    constexpr int STEPS = 60;
    constexpr float TOLERANCE_MPS2 = 1e-3F;
    SpeedRateState sut = initialSpeedRate(V0_MPS, SPEED_VAR_M2PS2, INITIAL_RATE_VAR_M2PS4);

    for (int k = 1; k <= STEPS; ++k) {
        predictSpeedRate(sut, DT_S, JERK_DENSITY_M2PS5);
        updateSpeedRate(sut, V0_MPS + RATE_MPS2 * DT_S * static_cast<float>(k), SPEED_VAR_M2PS2);
    }

    EXPECT_NEAR(sut.rate_mps2, RATE_MPS2, TOLERANCE_MPS2) << "the model holds a ramp: no lag once settled";
}

TEST(SpeedRateFilter, RateDeviationSettlesAtTheRiccatiFixedPoint) {
    // At 10 Hz, q = 2 m²/s⁵, σ_v = 0.3 m/s: σ_a = 0.801 m/s² after the update (the discrete algebraic
    // Riccati equation iterated to convergence in double precision).
    constexpr float EXPECTED_STD_MPS2 = 0.801F;
    constexpr float TOLERANCE_MPS2 = 0.002F;
    constexpr int STEPS = 200;
    SpeedRateState sut = initialSpeedRate(10.0F, SPEED_VAR_M2PS2 + 1.0F, INITIAL_RATE_VAR_M2PS4);

    for (int k = 0; k < STEPS; ++k) {
        predictSpeedRate(sut, DT_S, JERK_DENSITY_M2PS5);
        updateSpeedRate(sut, 10.0F, SPEED_VAR_M2PS2);
    }

    EXPECT_NEAR(std::sqrt(sut.varRate_m2ps4), EXPECTED_STD_MPS2, TOLERANCE_MPS2);
    EXPECT_GT(sut.varSpeed_m2ps2 * sut.varRate_m2ps4 - sut.covSpeedRate_m2ps3 * sut.covSpeedRate_m2ps3, 0.0F)
        << "positive definite";
}

TEST(SpeedRateFilter, RateErrorsAtConstantSpeedAreWithinTheReportedDeviation) {
    // Monte Carlo: a constant true speed measured with N(0, σ_v²) noise. The model contains the truth
    // (rate 0), so the error is zero-mean; the jerk noise the model allows (q > 0, the truth has none)
    // makes the reported deviation an upper bound of the error's: its RMS stays below it.
    constexpr int RUNS = 200;
    constexpr int STEPS = 100;
    constexpr int SETTLE_STEPS = 20;
    constexpr float TRUE_SPEED_MPS = 7.0F;
    std::mt19937 rng(42);
    std::normal_distribution<float> noise(0.0F, SPEED_STD_MPS);
    double sumError = 0.0;
    double sumSquaredError = 0.0;
    double sumVariance = 0.0;
    int samples = 0;
    for (int run = 0; run < RUNS; ++run) {
        SpeedRateState sut = initialSpeedRate(TRUE_SPEED_MPS + noise(rng), SPEED_VAR_M2PS2 + 1.0F,
                                              INITIAL_RATE_VAR_M2PS4);
        for (int k = 1; k < STEPS; ++k) {
            predictSpeedRate(sut, DT_S, JERK_DENSITY_M2PS5);
            updateSpeedRate(sut, TRUE_SPEED_MPS + noise(rng), SPEED_VAR_M2PS2);
            if (k >= SETTLE_STEPS) {
                sumError += sut.rate_mps2;
                sumSquaredError += static_cast<double>(sut.rate_mps2) * sut.rate_mps2;
                sumVariance += sut.varRate_m2ps4;
                ++samples;
            }
        }
    }
    constexpr double MEAN_BOUND_MPS2 = 0.05;  // the mean of 16,000 correlated errors of RMS ≈ 0.4
    EXPECT_LT(std::abs(sumError / samples), MEAN_BOUND_MPS2);
    EXPECT_LT(sumSquaredError / samples, sumVariance / samples);
}

}  // namespace
}  // namespace augur::kernels::kf
