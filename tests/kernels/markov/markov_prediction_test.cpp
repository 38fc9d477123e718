// The CPU reference of the prediction: mass, the naive dense reference, the motion it predicts under
// each λ rule, the projection and the occupancy grid, and the run phase's no-allocation claim.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>

#include "augur/testing/allocation_counter.hpp"
#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/prediction.hpp"
#include "augur/kernels/markov/priority.hpp"
#include "markov_test_support.hpp"

namespace augur::kernels::markov {
namespace {

using testing::behaviourChain;
using testing::PredictionHarness;
using testing::predictionFor;

constexpr float MASS_TOLERANCE = 1e-5F;
constexpr int COAST_INPUT = 2;       // behaviourChain: inputs −1, −0.5, 0, 0.5, 1
constexpr int BRAKE_INPUT = 0;
constexpr int ACCELERATE_INPUT = 4;

const MarkovChain& behaviour() {
    static const MarkovChain chain = MarkovChain::build(behaviourChain()).value();
    return chain;
}

float massBeyond(const float* positionMarginal, const ChainConfig& c, float s_m) {
    float mass = 0.0F;
    for (int is = 0; is < c.positionCells; ++is) {
        if (static_cast<float>(is) * positionCellSize_m(c) >= s_m) {
            mass += positionMarginal[is];
        }
    }
    return mass;
}

TEST(MarkovPrediction, ConservesMassAtEveryStepForEveryCorridorAtTheSeedSize) {
    const auto chain = MarkovChain::build(ChainConfig{});
    ASSERT_TRUE(chain.hasValue());
    constexpr int CORRIDORS = 4;
    PredictionHarness sut = testing::randomHarness(chain->config(), predictionFor(CORRIDORS), CORRIDORS, 21);
    sut.run(*chain, bandedInputDynamics(chain->config().inputCells, 0.7F));
    for (int k = 0; k < CORRIDORS; ++k) {
        for (int t = 0; t < sut.config.horizonSteps; ++t) {
            const float* ps = sut.positionAt(k, t);
            const float* pv = sut.speedAt(k, t);
            ASSERT_NEAR(std::accumulate(ps, ps + chain->config().positionCells, 0.0F), 1.0F, MASS_TOLERANCE) << k << "," << t;
            ASSERT_NEAR(std::accumulate(pv, pv + chain->config().speedCells, 0.0F), 1.0F, MASS_TOLERANCE) << k << "," << t;
        }
    }
}

/// p ← Γ(t_k)·Υ(τ)·p with dense matrices built naively, in double.
TEST(MarkovPrediction, EqualsTheNaiveDenseReference) {
    const ChainConfig c = testing::smallChain();
    const auto chain = MarkovChain::build(c);
    ASSERT_TRUE(chain.hasValue());
    constexpr int CORRIDORS = 6;
    constexpr int STEPS = 8;
    PredictionHarness sut = testing::randomHarness(c, predictionFor(CORRIDORS, STEPS), CORRIDORS, 5);
    const InputDynamics psi = bandedInputDynamics(c.inputCells, 0.6F);
    sut.run(*chain, psi);

    const int na = c.inputCells;
    const int n = chain->stateCount();
    const auto upsilon = testing::naiveDenseStep(c);
    for (int k = 0; k < CORRIDORS; ++k) {
        std::vector<float> p0(static_cast<std::size_t>(n));
        initialDistribution(c, sut.corridors[static_cast<std::size_t>(k)], p0.data());
        std::vector<double> p(p0.begin(), p0.end());
        for (int t = 0; t < STEPS; ++t) {
            std::vector<float> lambda(static_cast<std::size_t>(n));
            cpu::priorityVector(c, sut.corridors[static_cast<std::size_t>(k)].constraints, sut.config.rules,
                                static_cast<float>(t + 1) * c.step_s, lambda);
            // Γ = diag(λ)·Ψ, Ψ = blockdiag(ψ_sub), then every column renormalised ("brake" if empty).
            std::vector<double> gamma(static_cast<std::size_t>(n) * static_cast<std::size_t>(n), 0.0);
            for (int r = 0; r < n; ++r) {
                for (int col = 0; col < n; ++col) {
                    if (r / na == col / na) {
                        gamma[static_cast<std::size_t>(r * n + col)] = lambda[static_cast<std::size_t>(r)] * psi.psi[(r % na) * na + col % na];
                    }
                }
            }
            for (int col = 0; col < n; ++col) {
                double sum = 0.0;
                for (int r = 0; r < n; ++r) {
                    sum += gamma[static_cast<std::size_t>(r * n + col)];
                }
                for (int r = 0; r < n; ++r) {
                    auto& g = gamma[static_cast<std::size_t>(r * n + col)];
                    g = sum > 0.0 ? g / sum : (r == (col / na) * na ? 1.0 : 0.0);
                }
            }
            std::vector<double> q(static_cast<std::size_t>(n), 0.0);
            for (int r = 0; r < n; ++r) {
                for (int col = 0; col < n; ++col) {
                    q[static_cast<std::size_t>(r)] += upsilon[static_cast<std::size_t>(r * n + col)] * p[static_cast<std::size_t>(col)];
                }
            }
            for (int r = 0; r < n; ++r) {
                double value = 0.0;
                for (int col = 0; col < n; ++col) {
                    value += gamma[static_cast<std::size_t>(r * n + col)] * q[static_cast<std::size_t>(col)];
                }
                p[static_cast<std::size_t>(r)] = value;
            }
            const float* actual = sut.positionAt(k, t);
            for (int is = 0; is < c.positionCells; ++is) {
                double expected = 0.0;
                for (int rest = 0; rest < c.speedCells * na; ++rest) {
                    expected += p[static_cast<std::size_t>(is * c.speedCells * na + rest)];
                }
                ASSERT_NEAR(actual[is], expected, 1e-5) << "corridor " << k << " step " << t << " cell " << is;
            }
        }
    }
}

TEST(MarkovPrediction, ConstantSpeedStaysCentredOnTheConstantSpeedPath) {
    const ChainConfig& c = behaviour().config();
    constexpr float SPEED = 10.25F;      // centre of the speed cell (10, 10.5]
    constexpr float START = 0.5F;        // centre of the first position cell
    constexpr float HALF_CELL = 0.5F;
    PredictionHarness sut(c, predictionFor(1), 1);
    sut.corridors[0].initialSpeed_mps = SPEED;
    sut.corridors[0].initialInput[COAST_INPUT] = 1.0F;
    sut.run(behaviour(), identityInputDynamics(c.inputCells));
    const int speedCell = speedCellOf(SPEED, c);
    for (int t = 0; t < sut.config.horizonSteps; ++t) {
        const float expected = START + SPEED * static_cast<float>(t + 1) * c.step_s;
        EXPECT_NEAR(sut.pointAt(0, t).sMean_m, expected, HALF_CELL) << "step " << t;
        EXPECT_NEAR(sut.speedAt(0, t)[speedCell], 1.0F, MASS_TOLERANCE) << "step " << t;
    }
}

TEST(MarkovPrediction, FullBrakingNeverPassesTheStoppingDistance) {
    const ChainConfig& c = behaviour().config();
    constexpr float SPEED = 10.25F;  // in (10, 10.5]
    constexpr float NEGLIGIBLE = 1e-3F;
    constexpr float DIFFUSION_MARGIN_M = 4.0F;  // the chain's position diffusion (design doc)
    PredictionHarness sut(c, predictionFor(1), 1);
    sut.corridors[0].initialSpeed_mps = SPEED;
    sut.corridors[0].initialInput[BRAKE_INPUT] = 1.0F;
    sut.run(behaviour(), identityInputDynamics(c.inputCells));
    // From the farthest point of the initial cells: s < 1 m, v ≤ 10.5 m/s.
    const float fastest = speedCellUpper_mps(speedCellOf(SPEED, c), c);
    const float bound_m = 1.0F + fastest * fastest / (2.0F * c.accelMax_mps2) + DIFFUSION_MARGIN_M;
    const int last = sut.config.horizonSteps - 1;
    for (int t = 0; t <= last; ++t) {
        ASSERT_LT(massBeyond(sut.positionAt(0, t), c, bound_m), NEGLIGIBLE) << "step " << t;
        for (int iv = speedCellOf(SPEED, c) + 1; iv < c.speedCells; ++iv) {
            ASSERT_EQ(sut.speedAt(0, t)[iv], 0.0F) << "speed rose at step " << t;
        }
    }
    EXPECT_NEAR(sut.speedAt(0, last)[0], 1.0F, MASS_TOLERANCE) << "stopped by the end of the horizon";
}

TEST(MarkovPrediction, SpeedStaysWithinItsBoundsUnderFullAcceleration) {
    const ChainConfig& c = behaviour().config();
    PredictionHarness sut(c, predictionFor(1), 1);
    sut.corridors[0].initialSpeed_mps = c.speedMax_mps - 1.5F;
    sut.corridors[0].initialInput[ACCELERATE_INPUT] = 1.0F;
    sut.run(behaviour(), identityInputDynamics(c.inputCells));
    const float* speed = sut.speedAt(0, sut.config.horizonSteps - 1);
    EXPECT_NEAR(speed[c.speedCells - 1], 1.0F, MASS_TOLERANCE) << "all mass at v_max";
    EXPECT_NEAR(std::accumulate(speed, speed + c.speedCells, 0.0F), 1.0F, MASS_TOLERANCE);
}

TEST(MarkovPrediction, ExpectedStopRemovesMassBeyondTheStopPointAsItsProbabilityGrows) {
    const ChainConfig& c = behaviour().config();
    constexpr float STOP_AT = 30.0F;
    constexpr float NEGLIGIBLE = 5e-3F;
    constexpr float DIFFUSION_MARGIN_M = 2.0F;  // the chain's position diffusion (design doc)
    float previous = 2.0F;
    for (const float stopProbability : {0.0F, 0.5F, 0.9F, 0.99F, 1.0F}) {
        PredictionHarness sut(c, predictionFor(1), 1);
        sut.corridors[0].initialSpeed_mps = 10.0F;
        sut.corridors[0].initialSpeedStd_mps = 1.0F;
        sut.corridors[0].constraints.stopProbability = stopProbability;
        sut.corridors[0].constraints.stopDistance_m = STOP_AT;
        sut.run(behaviour(), mixingInputDynamics(c.inputCells, 0.8F));
        const float beyond = massBeyond(sut.positionAt(0, sut.config.horizonSteps - 1), c, STOP_AT + DIFFUSION_MARGIN_M);
        EXPECT_LT(beyond, previous) << "P(stop) = " << stopProbability;
        previous = beyond;
    }
    EXPECT_LT(previous, NEGLIGIBLE) << "with P(stop) = 1";
}

TEST(MarkovPrediction, SpeedLimitRemovesMassAboveIt) {
    const ChainConfig& c = behaviour().config();
    constexpr float LIMIT = 10.0F;
    constexpr float NEGLIGIBLE = 1e-4F;
    auto massAboveLimit = [&](float limit) {
        PredictionHarness sut(c, predictionFor(1), 1);
        sut.corridors[0].initialSpeed_mps = 8.0F;
        sut.corridors[0].initialInput[ACCELERATE_INPUT] = 1.0F;
        sut.corridors[0].constraints.speedLimit_mps = limit;
        sut.run(behaviour(), bandedInputDynamics(c.inputCells, 0.9F));
        const float* speed = sut.speedAt(0, sut.config.horizonSteps - 1);
        float mass = 0.0F;
        for (int iv = speedCellOf(LIMIT, c) + 2; iv < c.speedCells; ++iv) {  // cells wholly above limit + Δv
            mass += speed[iv];
        }
        return mass;
    };
    EXPECT_GT(massAboveLimit(NO_LIMIT), 0.5F);
    EXPECT_LT(massAboveLimit(LIMIT), NEGLIGIBLE);
}

TEST(MarkovPrediction, GapToAStoppedVehicleKeepsTheFollowerBehindIt) {
    const ChainConfig& c = behaviour().config();
    constexpr float LEAD_AT = 30.0F;
    constexpr float NEGLIGIBLE = 1e-4F;
    PredictionHarness sut(c, predictionFor(1), 1);
    sut.corridors[0].initialSpeed_mps = 10.0F;
    sut.corridors[0].constraints.leadGap_m = LEAD_AT;
    sut.run(behaviour(), bandedInputDynamics(c.inputCells, 0.8F));
    for (int t = 0; t < sut.config.horizonSteps; ++t) {
        ASSERT_LT(massBeyond(sut.positionAt(0, t), c, LEAD_AT), NEGLIGIBLE) << "step " << t;
    }
}

TEST(MarkovPrediction, CorridorPointsLieOnTheCentrelineAtTheMeanPosition) {
    const ChainConfig& c = behaviour().config();
    constexpr int CORRIDORS = 3;
    PredictionHarness sut = testing::randomHarness(c, predictionFor(CORRIDORS), CORRIDORS, 9);
    sut.run(behaviour(), bandedInputDynamics(c.inputCells, 0.7F));
    for (int k = 0; k < CORRIDORS; ++k) {
        for (int t = 0; t < sut.config.horizonSteps; ++t) {
            const CorridorPoint& point = sut.pointAt(k, t);
            EXPECT_NEAR(point.x_m, point.sMean_m, 1e-3F);  // the harness's centrelines run along +x from x = 0
            EXPECT_NEAR(point.y_m, 4.0F * static_cast<float>(k % 4), 1e-5F);
            EXPECT_GE(point.sStd_m, 0.0F);
        }
    }
}

TEST(MarkovPrediction, GridHoldsTheCorridorProbabilityInEveryFrame) {
    const ChainConfig& c = behaviour().config();
    constexpr float PROBABILITY = 0.4F;
    constexpr float QUANTISATION = 0.01F;
    PredictionHarness sut(c, predictionFor(1), 1);
    sut.corridors[0].probability = PROBABILITY;
    sut.corridors[0].initialSpeed_mps = 12.0F;
    sut.corridors[0].initialSpeedStd_mps = 2.0F;
    sut.run(behaviour(), bandedInputDynamics(c.inputCells, 0.7F));
    const auto frameCells = static_cast<std::size_t>(sut.config.gridWidthCells * sut.config.gridHeightCells);
    for (int f = 0; f < sut.config.gridFrames; ++f) {
        double sum = 0.0;
        for (std::size_t i = 0; i < frameCells; ++i) {
            sum += sut.grid[static_cast<std::size_t>(f) * frameCells + i] / 65535.0;
        }
        EXPECT_NEAR(sum, PROBABILITY, QUANTISATION) << "frame " << f;
    }
}

TEST(MarkovPrediction, NoCorridorsLeaveAnEmptyGrid) {
    const ChainConfig& c = behaviour().config();
    PredictionHarness sut(c, predictionFor(2), 0);
    std::fill(sut.grid.begin(), sut.grid.end(), std::uint16_t{7});
    sut.run(behaviour(), identityInputDynamics(c.inputCells));
    for (const auto cell : sut.grid) {
        ASSERT_EQ(cell, 0);
    }
}

TEST(MarkovPrediction, RunPhaseAllocatesNothing) {
    const ChainConfig& c = behaviour().config();
    constexpr int CORRIDORS = 2;
    PredictionHarness sut = testing::randomHarness(c, predictionFor(CORRIDORS), CORRIDORS, 2);
    const InputDynamics psi = bandedInputDynamics(c.inputCells, 0.7F);
    const PredictionOutputs outputs = sut.outputs();
    void* scratch = sut.alignedScratch();
    const Polylines lines = sut.polylines();
    const auto allocations = augur::testing::allocationsDuring([&] {
        cpu::predict(behaviour(), sut.config, psi, sut.corridors.data(), CORRIDORS, lines, sut.placement, outputs,
                     scratch, sut.scratch.size() - 16);
    });
    EXPECT_EQ(allocations, 0U);
}

TEST(MarkovPredictionDeathTest, MoreCorridorsThanConfiguredIsAContractBreach) {
    const ChainConfig& c = behaviour().config();
    constexpr int CONFIGURED = 2;
    PredictionHarness sut(c, predictionFor(CONFIGURED), CONFIGURED + 1);
    EXPECT_DEATH(sut.run(behaviour(), identityInputDynamics(c.inputCells)), "too many corridors");
}

TEST(MarkovPrediction, RejectsPredictionSizesBeyondTheMessageCapacities) {
    const ChainConfig c = testing::smallChain();
    PredictionConfig tooLong = predictionFor(1);
    tooLong.horizonSteps = static_cast<int>(MAX_HORIZON_STEPS) + 8;
    PredictionConfig tooWide = predictionFor(1);
    tooWide.gridWidthCells = static_cast<int>(MAX_GRID_SIDE_CELLS) + 1;
    PredictionConfig unevenFrames = predictionFor(1);
    unevenFrames.gridFrames = 3;
    for (const auto& p : {tooLong, tooWide, unevenFrames}) {
        const auto sut = validate(c, p);
        ASSERT_TRUE(sut.hasError());
        EXPECT_EQ(sut.error(), MarkovError::InvalidPrediction);
    }
    EXPECT_TRUE(validate(c, predictionFor(1)).hasValue());
}

}  // namespace
}  // namespace augur::kernels::markov
