// Reusing a vehicle slot of the scene filter for a new road user (the runtime's vehicles come and go):
// SceneVehicleInput::redraw makes a step draw that slot from its measurement instead of predicting it.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "augur/kernels/pf/filter.hpp"

namespace augur::kernels::pf {
namespace {

constexpr std::uint32_t PARTICLES = 512;
constexpr std::uint32_t VEHICLES = 3;
constexpr std::uint32_t SLOT = 1;
constexpr std::uint64_t SEED = 7;
constexpr float NEWCOMER_X_M = 500.0F;
constexpr float NEWCOMER_SIGMA_M = 0.5F;
constexpr int STEPS = 4;

using Filter = cpu::ParticleFilter<SceneModel>;

SceneVehicleInput vehicleAt(float x_m, float sigma_m) {
    SceneVehicleInput in;
    in.x_m = x_m;
    in.v_mps = 8.0F;
    in.sigmaX_m = in.sigmaY_m = sigma_m;
    return in;
}

std::vector<SceneVehicleInput> tracked() {
    return {vehicleAt(0.0F, 1.0F), vehicleAt(50.0F, 1.0F), vehicleAt(100.0F, 1.0F)};
}

Filter steppedFilter(StateLayout layout, int steps = STEPS) {
    FilterConfig config;
    config.particles = PARTICLES;
    config.vehicles = VEHICLES;
    config.seed = SEED;
    config.layout = layout;
    Filter filter = Filter::create(config, SceneModel::Params{}).value();
    EXPECT_TRUE(filter.initialize(tracked()).hasValue());
    for (int k = 0; k < steps; ++k) {
        EXPECT_TRUE(filter.setInputs(tracked()).hasValue());
        filter.step();
    }
    return filter;
}

/// This step's inputs: the tracked vehicles, with a newcomer taking SLOT when `redraw`.
std::vector<SceneVehicleInput> withNewcomer(bool redraw) {
    std::vector<SceneVehicleInput> in = tracked();
    in[SLOT] = vehicleAt(NEWCOMER_X_M, NEWCOMER_SIGMA_M);
    in[SLOT].redraw = redraw ? 1 : 0;
    in[SLOT].present = 1;
    return in;
}

/// withNewcomer(redraw) with no vehicle measured but the newcomer (and it only when `newcomerMeasured`).
std::vector<SceneVehicleInput> onlyNewcomerMeasured(bool redraw, bool newcomerMeasured) {
    std::vector<SceneVehicleInput> in = withNewcomer(redraw);
    for (std::size_t n = 0; n < in.size(); ++n) {
        in[n].present = n == SLOT && newcomerMeasured ? 1 : 0;
    }
    return in;
}

std::vector<float> particles(const Filter& filter) {
    std::vector<float> aos(static_cast<std::size_t>(PARTICLES) * VEHICLES * SceneModel::SLOT_FLOATS);
    filter.copyParticles(aos);
    return aos;
}

class RedrawSlot : public ::testing::TestWithParam<StateLayout> {};

TEST_P(RedrawSlot, DrawsOnlyThatSlotFromTheNewMeasurementAndDoesNotWeightIt) {
    Filter sut = steppedFilter(GetParam());
    Filter twin = steppedFilter(GetParam());
    // No other vehicle is measured this step, so nothing is weighted or resampled and the slot's mean is the
    // mean of PARTICLES independent draws. The twin sees the same inputs except that the slot is
    // predicted: every other slot and every weight must come out bit for bit the same.
    // The newcomer is measured, but a redrawn slot is not weighted by it.
    const std::vector<SceneVehicleInput> inputs = onlyNewcomerMeasured(true, true);
    ASSERT_TRUE(twin.setInputs(onlyNewcomerMeasured(false, false)).hasValue());
    twin.step();

    ASSERT_TRUE(sut.setInputs(inputs).hasValue());
    sut.step();

    const std::vector<float> after = particles(sut);
    const std::vector<float> expected = particles(twin);
    ASSERT_EQ(sut.summary().resampled, twin.summary().resampled);
    double meanX = 0.0;
    for (std::uint32_t k = 0; k < PARTICLES; ++k) {
        for (std::uint32_t n = 0; n < VEHICLES; ++n) {
            const std::size_t slot = (static_cast<std::size_t>(k) * VEHICLES + n) * SceneModel::SLOT_FLOATS;
            if (n == SLOT) {
                meanX += after[slot + SceneModel::X];
            } else {
                ASSERT_EQ(std::memcmp(&expected[slot], &after[slot], SceneModel::SLOT_FLOATS * sizeof(float)), 0)
                    << "particle " << k << " vehicle " << n;
            }
        }
    }
    meanX /= PARTICLES;
    // Drawn at the measurement (not predicted a step further), so the mean is the measurement.
    EXPECT_NEAR(meanX, NEWCOMER_X_M, 4.0 * NEWCOMER_SIGMA_M / std::sqrt(static_cast<double>(PARTICLES)));
    EXPECT_TRUE(std::equal(twin.logWeights().begin(), twin.logWeights().end(), sut.logWeights().begin()));
}

TEST_P(RedrawSlot, IsDeterministicAndDrawsFreshNumbersAtALaterStep) {
    Filter first = steppedFilter(GetParam());
    Filter second = steppedFilter(GetParam());
    Filter later = steppedFilter(GetParam(), STEPS + 1);

    for (Filter* filter : {&first, &second, &later}) {
        ASSERT_TRUE(filter->setInputs(withNewcomer(true)).hasValue());
        filter->step();
    }

    const std::vector<float> a = particles(first);
    const std::vector<float> b = particles(second);
    const std::vector<float> c = particles(later);
    EXPECT_EQ(a, b);
    const std::size_t slot = SLOT * SceneModel::SLOT_FLOATS;  // particle 0, the reused slot
    EXPECT_NE(a[slot + SceneModel::X], c[slot + SceneModel::X]) << "a slot reused later gets other draws";
}

TEST_P(RedrawSlot, LaterStepsPredictAndWeightTheSlotAgain) {
    Filter sut = steppedFilter(GetParam());
    ASSERT_TRUE(sut.setInputs(withNewcomer(true)).hasValue());
    sut.step();
    // The newcomer drives on at 8 m/s: one step later the slot is predicted from its draw and weighted.
    std::vector<SceneVehicleInput> next = withNewcomer(false);
    next[SLOT].x_m += 8.0F * next[SLOT].dt_s;
    ASSERT_TRUE(sut.setInputs(next).hasValue());
    sut.step();
    const std::size_t outX = SLOT * SceneModel::OUTPUTS_PER_VEHICLE + SceneModel::OUT_X;
    EXPECT_NEAR(sut.outputs()[outX], next[SLOT].x_m, 1.0F);
}

INSTANTIATE_TEST_SUITE_P(Layouts, RedrawSlot,
                         ::testing::Values(StateLayout::ArrayOfStructs, StateLayout::StructOfArrays),
                         [](const ::testing::TestParamInfo<StateLayout>& param) {
                             return param.param == StateLayout::ArrayOfStructs ? std::string("ArrayOfStructs")
                                                                              : std::string("StructOfArrays");
                         });

}  // namespace
}  // namespace augur::kernels::pf
