// Υ(τ), Υ([0, τ]) by sampling; the λ rules; the seed's combination Γ = diag(λ)·ψ.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/priority.hpp"
#include "markov_test_support.hpp"

namespace augur::kernels::markov {
namespace {

using testing::densify;
using testing::naiveDenseStep;
using testing::smallChain;

constexpr double COLUMN_SUM_TOLERANCE = 1e-5;

void expectColumnsSumToOne(const SparseTransition& m) {
    std::vector<double> sums(static_cast<std::size_t>(m.rows), 0.0);
    for (std::size_t slot = 0; slot < m.value.size(); ++slot) {
        sums[static_cast<std::size_t>(m.column[slot])] += m.value[slot];
    }
    for (std::size_t col = 0; col < sums.size(); ++col) {
        ASSERT_NEAR(sums[col], 1.0, COLUMN_SUM_TOLERANCE) << "column " << col;
    }
}

TEST(MarkovChain, EveryColumnOfBothTransitionsSumsToOne) {
    const auto sut = MarkovChain::build(smallChain());
    ASSERT_TRUE(sut.hasValue());
    expectColumnsSumToOne(sut->stepTransition());
    expectColumnsSumToOne(sut->intervalTransition());
}

TEST(MarkovChain, KeepsTheInputIndex) {
    const auto sut = MarkovChain::build(smallChain());
    ASSERT_TRUE(sut.hasValue());
    const int na = sut->config().inputCells;
    for (const SparseTransition* m : {&sut->stepTransition(), &sut->intervalTransition()}) {
        for (std::size_t slot = 0; slot < m->value.size(); ++slot) {
            if (m->value[slot] != 0.0F) {
                const auto row = static_cast<int>(slot % static_cast<std::size_t>(m->rows));
                ASSERT_EQ(row % na, m->column[slot] % na) << "slot " << slot;
            }
        }
    }
}

TEST(MarkovChain, EqualsTheNaiveDenseConstruction) {
    const ChainConfig config = smallChain();
    const auto sut = MarkovChain::build(config);
    ASSERT_TRUE(sut.hasValue());
    const auto expected = naiveDenseStep(config);
    const auto actual = densify(sut->stepTransition());
    ASSERT_EQ(actual.size(), expected.size());
    for (std::size_t i = 0; i < actual.size(); ++i) {
        ASSERT_NEAR(actual[i], expected[i], 1e-6) << "entry " << i;
    }
}

/// Row r of both matrices rebuilt from the stencil: column → (Υ(τ), Υ([0, τ])) weight.
std::map<int, std::pair<double, double>> stencilRow(const MarkovChain& chain, int r) {
    const ChainConfig& c = chain.config();
    const ShiftStencil& st = chain.stencil();
    const int na = c.inputCells;
    const int rowStates = c.speedCells * na;
    const int is = r / rowStates;
    const int type = r % rowStates;
    const int j = type % na;
    std::map<int, std::pair<double, double>> row;
    for (int e = 0; e < st.entriesPerRow; ++e) {
        const auto slot = static_cast<std::size_t>(type * st.entriesPerRow + e);
        const int shift = st.shift[slot];
        const int last = is + 1 == c.positionCells ? is : is - shift;  // the last cell absorbs
        for (int source = std::max(0, is - shift); source <= last; ++source) {
            auto& w = row[(source * c.speedCells + st.sourceSpeed[slot]) * na + j];
            w.first += st.stepWeight[slot];
            w.second += st.intervalWeight[slot];
        }
    }
    return row;
}

void expectStencilReproducesTheMatrices(const ChainConfig& config) {
    constexpr double ENTRY_TOLERANCE = 1e-6;  // merged entries are rounded to float once in the ELL, per slot in the stencil
    const auto sut = MarkovChain::build(config);
    ASSERT_TRUE(sut.hasValue());
    ASSERT_GE(sut->stencil().minShift, 0) << "mass never moves backwards along the corridor";
    const SparseTransition& step = sut->stepTransition();
    const SparseTransition& interval = sut->intervalTransition();
    for (int r = 0; r < step.rows; ++r) {
        std::map<int, std::pair<double, double>> ell;
        for (int e = 0; e < step.entriesPerRow; ++e) {
            const auto slot = static_cast<std::size_t>(e) * static_cast<std::size_t>(step.rows) + static_cast<std::size_t>(r);
            ell[step.column[slot]].first += step.value[slot];
        }
        for (int e = 0; e < interval.entriesPerRow; ++e) {
            const auto slot = static_cast<std::size_t>(e) * static_cast<std::size_t>(interval.rows) + static_cast<std::size_t>(r);
            ell[interval.column[slot]].second += interval.value[slot];
        }
        auto fromStencil = stencilRow(*sut, r);
        for (const auto& [column, weights] : ell) {
            const auto it = fromStencil.find(column);
            const std::pair<double, double> expected = it == fromStencil.end() ? std::pair{0.0, 0.0} : it->second;
            ASSERT_NEAR(expected.first, weights.first, ENTRY_TOLERANCE) << "Υ(τ) row " << r << " column " << column;
            ASSERT_NEAR(expected.second, weights.second, ENTRY_TOLERANCE) << "Υ([0,τ]) row " << r << " column " << column;
            if (it != fromStencil.end()) {
                fromStencil.erase(it);
            }
        }
        for (const auto& [column, weights] : fromStencil) {  // what the ELL row does not hold must be zero
            ASSERT_NEAR(weights.first, 0.0, ENTRY_TOLERANCE) << "row " << r << " column " << column;
            ASSERT_NEAR(weights.second, 0.0, ENTRY_TOLERANCE) << "row " << r << " column " << column;
        }
    }
}

TEST(MarkovChain, ShiftStencilReproducesEveryRowOfBothMatricesOnASmallGrid) {
    expectStencilReproducesTheMatrices(smallChain());
}

TEST(MarkovChain, ShiftStencilReproducesEveryRowOfBothMatricesAtTheSeedSize) {
    expectStencilReproducesTheMatrices(ChainConfig{});
}

TEST(MarkovChain, ShiftStencilReproducesTheMatricesWithOneMovingSpeedCellAndOneInput) {
    ChainConfig c = smallChain();
    c.speedCells = 2;
    c.inputCells = 1;
    expectStencilReproducesTheMatrices(c);
}

TEST(MarkovChain, ShiftStencilReproducesTheMatricesWhenOnePositionCellAbsorbsEverything) {
    ChainConfig c = smallChain();
    c.positionCells = 1;
    expectStencilReproducesTheMatrices(c);
}

TEST(MarkovChain, SampledTransitionConvergesAsSamplesGrow) {
    // Parameters chosen off the grid so that no sample sits exactly on a cell boundary.
    ChainConfig config = smallChain();
    config.accelMax_mps2 = 3.7F;
    config.step_s = 0.23F;
    config.speedMax_mps = 5.3F;
    config.samplesPerAxis = 64;
    config.intervalSamples = 64;
    const auto reference = MarkovChain::build(config);
    ASSERT_TRUE(reference.hasValue());
    const auto exact = densify(reference->stepTransition());
    const auto exactInterval = densify(reference->intervalTransition());
    const int columns = reference->stateCount();
    double previousStep = 1e9;
    double previousInterval = 1e9;
    for (const int samples : {2, 6, 18}) {
        config.samplesPerAxis = samples;
        config.intervalSamples = samples;
        const auto sut = MarkovChain::build(config);
        ASSERT_TRUE(sut.hasValue());
        const auto step = densify(sut->stepTransition());
        const auto interval = densify(sut->intervalTransition());
        double stepError = 0.0;
        double intervalError = 0.0;
        for (std::size_t i = 0; i < step.size(); ++i) {
            stepError += std::abs(step[i] - exact[i]);
            intervalError += std::abs(interval[i] - exactInterval[i]);
        }
        stepError /= columns;  // mean L1 distance per column (0 … 2)
        intervalError /= columns;
        EXPECT_LT(stepError, previousStep) << samples << " samples";
        EXPECT_LT(intervalError, previousInterval) << samples << " samples";
        previousStep = stepError;
        previousInterval = intervalError;
    }
    constexpr double CONVERGED_L1 = 0.1;
    EXPECT_LT(previousStep, CONVERGED_L1);
    EXPECT_LT(previousInterval, CONVERGED_L1);
}

TEST(MarkovChain, RejectsInvalidConfigurations) {
    ChainConfig noCells = smallChain();
    noCells.positionCells = 0;
    ChainConfig oneSpeed = smallChain();
    oneSpeed.speedCells = 1;
    ChainConfig tooManyInputs = smallChain();
    tooManyInputs.inputCells = MAX_INPUT_CELLS + 1;
    ChainConfig noStep = smallChain();
    noStep.step_s = 0.0F;
    ChainConfig nanSpeed = smallChain();
    nanSpeed.speedMax_mps = std::nanf("");
    ChainConfig noSamples = smallChain();
    noSamples.samplesPerAxis = 0;
    for (const auto& config : {noCells, oneSpeed, tooManyInputs, noStep, nanSpeed}) {
        const auto sut = MarkovChain::build(config);
        ASSERT_TRUE(sut.hasError());
        EXPECT_EQ(sut.error(), MarkovError::InvalidGrid);
    }
    const auto sut = MarkovChain::build(noSamples);
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error(), MarkovError::InvalidSampling);
}

TEST(MarkovChain, OneInputCellIsCoasting) {
    ChainConfig config = smallChain();
    config.inputCells = 1;
    const auto sut = MarkovChain::build(config);
    ASSERT_TRUE(sut.hasValue());
    EXPECT_EQ(inputValue(0, 1), 0.0F);
    expectColumnsSumToOne(sut->stepTransition());
}

TEST(MarkovDynamics, SpeedNeverLeavesItsBounds) {
    constexpr float SPEED_MAX = 20.0F;
    constexpr float ACCEL_MAX = 6.0F;
    std::mt19937 rng(7);
    std::uniform_real_distribution<float> speed(0.0F, SPEED_MAX);
    std::uniform_real_distribution<float> input(-1.0F, 1.0F);
    std::uniform_real_distribution<float> time(0.0F, 3.0F);
    for (int i = 0; i < 10'000; ++i) {
        const float v0 = speed(rng);
        const Motion sut = integrateMotion(0.0F, v0, ACCEL_MAX * input(rng), time(rng), SPEED_MAX);
        ASSERT_GE(sut.v_mps, -1e-5F);
        ASSERT_LE(sut.v_mps, SPEED_MAX + 1e-5F);
        ASSERT_GE(sut.s_m, -1e-5F);
    }
}

TEST(MarkovDynamics, FullBrakingStopsAtTheStoppingDistance) {
    constexpr float V0 = 12.0F;
    constexpr float DECEL = 4.0F;
    const Motion sut = integrateMotion(5.0F, V0, -DECEL, 10.0F, 30.0F);
    EXPECT_FLOAT_EQ(sut.v_mps, 0.0F);
    EXPECT_NEAR(sut.s_m, 5.0F + V0 * V0 / (2.0F * DECEL), 1e-4F);
}

TEST(MarkovCells, StandstillIsItsOwnSpeedCell) {
    const ChainConfig c = smallChain();  // Δv = 1 m/s
    EXPECT_EQ(speedCellOf(0.0F, c), 0);
    EXPECT_EQ(speedCellOf(1e-4F, c), 1);
    EXPECT_EQ(speedCellOf(1.0F, c), 1);
    EXPECT_EQ(speedCellOf(1.001F, c), 2);
    EXPECT_EQ(speedCellOf(c.speedMax_mps + 3.0F, c), c.speedCells - 1);
    EXPECT_EQ(positionCellOf(c.positionMax_m + 10.0F, c), c.positionCells - 1);
}

// --- λ rules ------------------------------------------------------------------------------------

class PriorityRule : public ::testing::Test {
protected:
    ChainConfig chain = testing::behaviourChain();  // inputs −1, −0.5, 0, 0.5, 1
    PriorityRules rules{};
    static constexpr int BRAKE = 0;
    static constexpr int MILD_BRAKE = 1;
    static constexpr int COAST = 2;
    static constexpr int ACCELERATE = 4;
};

TEST_F(PriorityRule, NoConstraintsAllowEveryInput) {
    const CorridorConstraints none{};
    for (int j = 0; j < chain.inputCells; ++j) {
        EXPECT_EQ(priority(10.0F, 8.0F, j, 0.5F, none, rules, chain), 1.0F) << j;
    }
}

TEST_F(PriorityRule, SpeedLimitForbidsAcceleratingPastItButNotHoldingTheSpeed) {
    CorridorConstraints limit{};
    limit.speedLimit_mps = 10.0F;
    EXPECT_EQ(priority(0.0F, 9.0F, ACCELERATE, 0.0F, limit, rules, chain), 1.0F);  // 9.5 m/s after the step
    EXPECT_EQ(priority(0.0F, 9.9F, ACCELERATE, 0.0F, limit, rules, chain), 0.0F);
    EXPECT_EQ(priority(0.0F, 11.0F, ACCELERATE, 0.0F, limit, rules, chain), 0.0F);
    EXPECT_EQ(priority(0.0F, 10.0F, COAST, 0.0F, limit, rules, chain), 1.0F);
    // A driver already above the limit is not made to brake: holding the speed exceeds it no further.
    EXPECT_EQ(priority(0.0F, 11.0F, COAST, 0.0F, limit, rules, chain), 1.0F);
    EXPECT_EQ(priority(0.0F, 11.0F, MILD_BRAKE, 0.0F, limit, rules, chain), 1.0F);
}

TEST_F(PriorityRule, ExpectedStopScalesInputsThatOvershootByOneMinusItsProbability) {
    constexpr float STOP_PROBABILITY = 0.8F;
    CorridorConstraints stop{};
    stop.stopProbability = STOP_PROBABILITY;
    stop.stopDistance_m = 30.0F;
    // At 10 m/s, 18 m before the line: coasting ends the step 17 m before it with a comfortable stopping
    // distance of 10²/6 ≈ 16.7 m; accelerating needs 10.5²/6 ≈ 18.4 m from 16.97 m before it.
    EXPECT_EQ(priority(12.0F, 10.0F, COAST, 0.0F, stop, rules, chain), 1.0F);
    EXPECT_NEAR(priority(12.0F, 10.0F, ACCELERATE, 0.0F, stop, rules, chain), 1.0F - STOP_PROBABILITY, 1e-6F);
    // Past the stop point the rule no longer applies.
    EXPECT_EQ(priority(31.0F, 10.0F, ACCELERATE, 0.0F, stop, rules, chain), 1.0F);
}

TEST_F(PriorityRule, GapAheadForbidsInputsThatLeaveLessThanTheSafeDistance) {
    CorridorConstraints lead{};
    lead.leadGap_m = 40.0F;
    lead.leadSpeed_mps = 0.0F;
    // At s = 5 m, 10 m/s, coasting: s' = 6 m needs 2 + 0.5·10 + 10²/6 ≈ 23.7 m → 29.7 m ≤ 40 m.
    EXPECT_EQ(priority(5.0F, 10.0F, COAST, 0.0F, lead, rules, chain), 1.0F);
    // At 12 m/s, accelerating: s' ≈ 6.2 m, v' = 12.5 m/s needs ≈ 34.3 m → 40.5 m > 40 m.
    EXPECT_EQ(priority(5.0F, 12.0F, ACCELERATE, 0.0F, lead, rules, chain), 0.0F);
    // The lead drives away at 5 m/s: at t = 10 s it is 40 + 5·10.1 + 5²/10 m ahead.
    lead.leadSpeed_mps = 5.0F;
    EXPECT_EQ(priority(5.0F, 12.0F, ACCELERATE, 10.0F, lead, rules, chain), 1.0F);
}

TEST_F(PriorityRule, StrongestBrakingIsAlwaysAllowed) {
    CorridorConstraints all{};
    all.speedLimit_mps = 0.0F;
    all.stopProbability = 1.0F;
    all.stopDistance_m = 1.0F;
    all.leadGap_m = 0.0F;
    EXPECT_EQ(priority(0.5F, 15.0F, BRAKE, 0.0F, all, rules, chain), 1.0F);
    for (int j = 1; j < chain.inputCells; ++j) {
        EXPECT_EQ(priority(0.5F, 15.0F, j, 0.0F, all, rules, chain), 0.0F) << j;
    }
}

// --- Γ = diag(λ)·ψ --------------------------------------------------------------------------------

TEST(InputTransition, CombinationEqualsTheDenseProductDiagLambdaTimesPsi) {
    constexpr int NA = 4;
    constexpr int CELLS = 7;
    constexpr int N = CELLS * NA;
    const InputDynamics psi = bandedInputDynamics(NA, 0.6F);
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> unit(0.0F, 1.0F);
    std::vector<float> lambda(N);
    for (auto& l : lambda) {
        l = unit(rng);
    }
    std::vector<float> sut(static_cast<std::size_t>(CELLS * NA * NA));
    cpu::combineInputTransition(lambda, psi, NA, CELLS, sut, false);

    // Dense: Γ = diag(λ)·blockdiag(ψ_sub), naively.
    for (int r = 0; r < N; ++r) {
        for (int col = 0; col < N; ++col) {
            double expected = 0.0;
            for (int m = 0; m < N; ++m) {
                const double diag = r == m ? lambda[static_cast<std::size_t>(r)] : 0.0;
                const double psiEntry = m / NA == col / NA ? psi.psi[(m % NA) * NA + col % NA] : 0.0;
                expected += diag * psiEntry;
            }
            if (r / NA == col / NA) {
                const auto at = static_cast<std::size_t>((r / NA) * NA * NA + (r % NA) * NA + col % NA);
                ASSERT_NEAR(sut[at], expected, 1e-7) << r << "," << col;
            } else {
                ASSERT_EQ(expected, 0.0);  // outside the blocks Γ has no non-zeros
            }
        }
    }
}

TEST(InputTransition, RenormalisedColumnsSumToOne) {
    constexpr int NA = 6;
    constexpr int CELLS = 50;
    const InputDynamics psi = bandedInputDynamics(NA, 0.5F);
    std::mt19937 rng(3);
    std::uniform_real_distribution<float> unit(0.0F, 1.0F);
    std::vector<float> lambda(CELLS * NA);
    for (auto& l : lambda) {
        l = unit(rng) < 0.3F ? 0.0F : unit(rng);
    }
    std::vector<float> sut(static_cast<std::size_t>(CELLS * NA * NA));
    cpu::combineInputTransition(lambda, psi, NA, CELLS, sut, true);
    for (int c = 0; c < CELLS; ++c) {
        for (int up = 0; up < NA; ++up) {
            float sum = 0.0F;
            for (int u = 0; u < NA; ++u) {
                sum += sut[static_cast<std::size_t>(c * NA * NA + u * NA + up)];
            }
            ASSERT_NEAR(sum, 1.0F, 1e-6F) << c << "," << up;
        }
    }
}

TEST(InputTransition, ColumnWithNoAllowedInputBecomesBraking) {
    constexpr int NA = 3;
    const InputDynamics psi = identityInputDynamics(NA);
    const float lambda[NA] = {1.0F, 0.0F, 0.0F};  // the coasting and accelerating inputs are forbidden
    float sut[NA * NA];
    inputTransitionBlock(lambda, psi.psi, NA, 0.0F, sut);
    for (int up = 0; up < NA; ++up) {
        EXPECT_EQ(sut[0 * NA + up], 1.0F);
        EXPECT_EQ(sut[1 * NA + up], 0.0F);
        EXPECT_EQ(sut[2 * NA + up], 0.0F);
    }
}

TEST(InputTransition, ThePressMovesItsShareOfEveryInputThatDoesNotAccelerateToTheGentlestAcceleration) {
    constexpr int NA = 7;  // −1 … 1 in thirds: inputs 0 … 3 do not accelerate, 4 is the gentlest that does
    constexpr float PRESS = 0.25F;
    const InputDynamics psi = relaxingInputDynamics(NA, 0.01F, 0.05F, 0.001F);
    const float lambda[NA] = {1.0F, 1.0F, 0.5F, 0.5F, 1.0F, 1.0F, 0.0F};
    float without[NA * NA];
    float sut[NA * NA];
    inputTransitionBlock(lambda, psi.psi, NA, 0.0F, without);
    inputTransitionBlock(lambda, psi.psi, NA, PRESS, sut);
    const int probe = gentlestAcceleration(NA);
    ASSERT_EQ(probe, 4);
    for (int up = 0; up < NA; ++up) {
        float sum = 0.0F;
        for (int u = 0; u < NA; ++u) {
            const float kept = up < probe ? (1.0F - PRESS) * without[u * NA + up] : without[u * NA + up];
            const float expected = kept + (up < probe && u == probe ? PRESS : 0.0F);
            EXPECT_NEAR(sut[u * NA + up], expected, 1e-6F) << u << "," << up;
            sum += sut[u * NA + up];
        }
        EXPECT_NEAR(sum, 1.0F, 1e-6F) << "column " << up;
    }
}

TEST(InputTransition, PriorityVectorIsOneWithoutConstraints) {
    const ChainConfig chain = smallChain();
    std::vector<float> sut(static_cast<std::size_t>(chain.positionCells * chain.speedCells * chain.inputCells), -1.0F);
    cpu::priorityVector(chain, CorridorConstraints{}, PriorityRules{}, 0.0F, sut);
    for (const float l : sut) {
        ASSERT_EQ(l, 1.0F);
    }
}

}  // namespace
}  // namespace augur::kernels::markov
