// The scene model on synthetic roads: intentions and corridors the filter must infer.
#include <gtest/gtest.h>

#include <cmath>
#include <utility>
#include <vector>

#include "augur/kernels/pf/filter.hpp"
#include "augur/kernels/pf/testing/filter_probe.hpp"

namespace augur::kernels::pf {
namespace {

constexpr std::uint32_t PARTICLES = 2000;
constexpr float DT_S = 0.2F;

cpu::ParticleFilter<SceneModel> makeFilter(std::uint32_t vehicles, std::uint64_t seed) {
    FilterConfig config;
    config.particles = PARTICLES;
    config.vehicles = vehicles;
    config.seed = seed;
    auto created = cpu::ParticleFilter<SceneModel>::create(config, SceneModel::Params{});
    EXPECT_TRUE(created.hasValue());
    return std::move(created).value();
}

float output(const cpu::ParticleFilter<SceneModel>& f, std::uint32_t vehicle, std::uint32_t channel) {
    return f.outputs()[vehicle * SceneModel::OUTPUTS_PER_VEHICLE + channel];
}

/// A vehicle at 10 m/s braking uniformly to a stop line 40 m ahead on a road limited to 13.9 m/s.
TEST(SceneModel, DeceleratingToAStopLineRaisesStopProbabilityBeforeItStops) {
    constexpr float STOP_LINE_M = 40.0F;
    constexpr float V0_MPS = 10.0F;
    constexpr float DECEL_MPS2 = V0_MPS * V0_MPS / (2.0F * STOP_LINE_M);
    constexpr float REQUIRED_P_STOP = 0.8F;
    auto sut = makeFilter(1, 11);
    auto measure = [&](float t) {
        SceneVehicleInput in;
        const float v = std::fmax(0.0F, V0_MPS - DECEL_MPS2 * t);
        const float tc = std::fmin(t, V0_MPS / DECEL_MPS2);
        in.x_m = V0_MPS * tc - 0.5F * DECEL_MPS2 * tc * tc;
        in.v_mps = v;
        in.corridorCount = 1;
        in.corridors[0].distanceToStop_m = STOP_LINE_M - in.x_m;
        in.corridors[0].mustGiveWay = 1;
        in.corridors[0].goSpeed_mps = 13.9F;
        return in;
    };
    auto in = measure(0.0F);
    ASSERT_TRUE(sut.initialize({&in, 1}));
    float pStopWhileMoving = 0.0F;
    for (int k = 1; k <= 35; ++k) {  // 7 s; the vehicle stops at 8 s
        in = measure(DT_S * static_cast<float>(k));
        ASSERT_TRUE(sut.setInputs({&in, 1}));
        sut.step();
        ASSERT_GT(in.v_mps, 0.5F);
        pStopWhileMoving = output(sut, 0, SceneModel::OUT_P_STOP);
    }
    EXPECT_GT(pStopWhileMoving, REQUIRED_P_STOP);
}

/// Two corridors share the road until x = 20 m; then corridor 1 turns left. The vehicle goes straight.
TEST(SceneModel, VehicleAtAForkEndsOnTheCorridorItTakes) {
    constexpr float SPEED_MPS = 10.0F;
    constexpr float BRANCH_HEADING_RAD = 0.5F;
    constexpr float REQUIRED_P_CORRIDOR = 0.9F;
    auto sut = makeFilter(1, 12);
    auto measure = [&](float t) {
        SceneVehicleInput in;
        in.x_m = SPEED_MPS * t;
        in.v_mps = SPEED_MPS;
        in.corridorCount = 2;
        in.corridors[0].goSpeed_mps = SPEED_MPS;
        in.corridors[1].goSpeed_mps = SPEED_MPS;
        in.corridors[1].heading_rad = in.x_m > 20.0F ? BRANCH_HEADING_RAD : 0.0F;
        return in;
    };
    auto in = measure(0.0F);
    ASSERT_TRUE(sut.initialize({&in, 1}));
    const float before = output(sut, 0, SceneModel::OUT_P_CORRIDOR0);
    (void)before;
    for (int k = 1; k <= 25; ++k) {
        in = measure(DT_S * static_cast<float>(k));
        ASSERT_TRUE(sut.setInputs({&in, 1}));
        sut.step();
    }
    EXPECT_GT(output(sut, 0, SceneModel::OUT_P_CORRIDOR0), REQUIRED_P_CORRIDOR);
    EXPECT_NEAR(output(sut, 0, SceneModel::OUT_P_CORRIDOR0) + output(sut, 0, SceneModel::OUT_P_CORRIDOR0 + 1), 1.0F,
                1e-5F);
}

/// Three candidates that coincide (heading 0, no fork in sight): nothing in the measurements tells
/// them apart, so the corridor estimate is the prior the candidates carry, through draws and changes.
TEST(SceneModel, CandidatesTheMeasurementsCannotTellApartKeepTheirPriorWeights) {
    constexpr float SPEED_MPS = 10.0F;
    constexpr float PRIORS[3] = {0.8F, 0.1F, 0.1F};
    constexpr float TOLERANCE = 0.05F;  // 2000 particles: a share's standard error is below 0.01
    auto sut = makeFilter(1, 15);
    auto measure = [&](float t) {
        SceneVehicleInput in;
        in.x_m = SPEED_MPS * t;
        in.v_mps = SPEED_MPS;
        in.corridorCount = 3;
        for (int k = 0; k < 3; ++k) {
            in.corridors[k].goSpeed_mps = SPEED_MPS;
            in.corridors[k].prior = PRIORS[k];
        }
        return in;
    };
    auto in = measure(0.0F);
    ASSERT_TRUE(sut.initialize({&in, 1}));
    // Drawn from the prior, and changes of corridor drawn from it again: a hop to one of the others
    // instead would drift the shares towards 1/3 each over the 5 s.
    for (int step = 1; step <= 25; ++step) {
        in = measure(DT_S * static_cast<float>(step));
        ASSERT_TRUE(sut.setInputs({&in, 1}));
        sut.step();
        if (step == 1 || step == 25) {
            for (int k = 0; k < 3; ++k) {
                EXPECT_NEAR(output(sut, 0, SceneModel::OUT_P_CORRIDOR0 + k), PRIORS[k], TOLERANCE)
                    << "step " << step << ", corridor " << k;
            }
        }
    }
}

TEST(SceneModel, PriorWeightsThatAreNegativeNotFiniteOrAllZeroAreRejected) {
    auto sut = makeFilter(1, 16);
    SceneVehicleInput in;
    in.corridorCount = 2;
    ASSERT_TRUE(sut.initialize({&in, 1}));
    for (const auto& [a, b] : {std::pair{-0.5F, 1.0F}, std::pair{NAN, 1.0F}, std::pair{INFINITY, 1.0F}, std::pair{0.0F, 0.0F}}) {
        in.corridors[0].prior = a;
        in.corridors[1].prior = b;
        EXPECT_FALSE(SceneModel::validInput(in, 1)) << a << ", " << b;
        EXPECT_FALSE(sut.setInputs({&in, 1})) << a << ", " << b;
    }
    in.corridors[0].prior = 0.0F;  // one candidate ruled out a priori: valid
    in.corridors[1].prior = 1.0F;
    EXPECT_TRUE(SceneModel::validInput(in, 1));
}

TEST(SceneModel, EstimateFollowsTheMeasuredVehicles) {
    constexpr std::uint32_t VEHICLES = 20;
    auto sut = makeFilter(VEHICLES, 13);
    std::vector<SceneVehicleInput> in(VEHICLES);
    auto measure = [&](float t) {
        for (std::uint32_t n = 0; n < VEHICLES; ++n) {
            in[n].x_m = 5.0F * t + 15.0F * static_cast<float>(n);
            in[n].y_m = 4.0F * static_cast<float>(n % 4);
            in[n].v_mps = 5.0F;
            in[n].corridors[0].goSpeed_mps = 5.0F;
        }
    };
    measure(0.0F);
    ASSERT_TRUE(sut.initialize(in));
    for (int k = 1; k <= 10; ++k) {
        measure(DT_S * static_cast<float>(k));
        ASSERT_TRUE(sut.setInputs(in));
        sut.step();
    }
    // One particle holds all 20 vehicles (80 measured dimensions), so K = 2000 covers each vehicle
    // coarsely: require the estimate within 1.5 measurement standard deviations (σ = 1 m, 0.5 m/s).
    constexpr float POSITION_TOLERANCE_M = 1.5F;
    constexpr float SPEED_TOLERANCE_MPS = 0.75F;
    for (std::uint32_t n = 0; n < VEHICLES; ++n) {
        EXPECT_NEAR(output(sut, n, SceneModel::OUT_X), in[n].x_m, POSITION_TOLERANCE_M) << "vehicle " << n;
        EXPECT_NEAR(output(sut, n, SceneModel::OUT_Y), in[n].y_m, POSITION_TOLERANCE_M) << "vehicle " << n;
        EXPECT_NEAR(output(sut, n, SceneModel::OUT_V), in[n].v_mps, SPEED_TOLERANCE_MPS) << "vehicle " << n;
    }
    // 20 vehicles × 4 Gaussians: the log-sum-exp normalisation keeps the weights finite.
    EXPECT_TRUE(std::isfinite(sut.summary().effectiveSampleSize));
    EXPECT_GE(sut.summary().effectiveSampleSize, 1.0F);
}

TEST(SceneModel, GivingWayToAVehicleThatGoesRaisesTheExpectationToStop) {
    // Vehicle 0 must give way to vehicle 1 at a point 30 m ahead. Vehicle 1 drives on at speed (goes),
    // so the particles' expectation for vehicle 0 leans to stop more than with a stop sign for nobody.
    SceneModel::Params params;
    auto run = [&](std::int32_t giveWayTo) {
        auto sut = makeFilter(2, 14);
        std::vector<SceneVehicleInput> in(2);
        in[0].v_mps = 8.0F;
        in[0].corridors[0].distanceToStop_m = 30.0F;
        in[0].corridors[0].mustGiveWay = 1;
        in[0].corridors[0].giveWayTo = giveWayTo;
        in[1].y_m = 50.0F;
        in[1].v_mps = 13.9F;
        EXPECT_TRUE(sut.initialize(in));
        EXPECT_TRUE(sut.setInputs(in));
        kernels::pf::testing::FilterProbe(sut).predict();
        std::vector<float> particles(PARTICLES * 2 * SceneModel::SLOT_FLOATS);
        sut.copyParticles(particles);
        double expectStop = 0.0;
        for (std::uint32_t k = 0; k < PARTICLES; ++k) {
            expectStop += particles[k * 2 * SceneModel::SLOT_FLOATS + SceneModel::EXPECT_STOP];
        }
        return expectStop / PARTICLES;
    };
    const double yielding = run(1);
    // Half the particles start with vehicle 1 intending to go → P = ½·0.95 + ½·0.3.
    const double expected = 0.5 * (params.pStopGiveWayConflict + params.pStopGiveWayClear);
    EXPECT_NEAR(yielding, expected, 0.05);
    EXPECT_NEAR(run(-1), params.pStopSign, 0.05);
}

}  // namespace
}  // namespace augur::kernels::pf
