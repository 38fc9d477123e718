// Reusing a vehicle slot of the scene filter for a new road user (the runtime's vehicles come and go).
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

Filter steppedFilter(StateLayout layout) {
    FilterConfig config;
    config.particles = PARTICLES;
    config.vehicles = VEHICLES;
    config.seed = SEED;
    config.layout = layout;
    Filter filter = Filter::create(config, SceneModel::Params{}).value();
    const std::vector<SceneVehicleInput> inputs{vehicleAt(0.0F, 1.0F), vehicleAt(50.0F, 1.0F), vehicleAt(100.0F, 1.0F)};
    EXPECT_TRUE(filter.initialize(inputs).hasValue());
    for (int k = 0; k < STEPS; ++k) {
        EXPECT_TRUE(filter.setInputs(inputs).hasValue());
        filter.step();
    }
    return filter;
}

std::vector<float> particles(const Filter& filter) {
    std::vector<float> aos(static_cast<std::size_t>(PARTICLES) * VEHICLES * SceneModel::SLOT_FLOATS);
    filter.copyParticles(aos);
    return aos;
}

class ReinitializeVehicle : public ::testing::TestWithParam<StateLayout> {};

TEST_P(ReinitializeVehicle, RedrawsOnlyThatSlotFromTheNewMeasurementAndKeepsTheWeights) {
    Filter sut = steppedFilter(GetParam());
    const std::vector<float> before = particles(sut);
    const std::vector<float> weightsBefore(sut.logWeights().begin(), sut.logWeights().end());

    sut.reinitializeVehicle(SLOT, vehicleAt(NEWCOMER_X_M, NEWCOMER_SIGMA_M));

    const std::vector<float> after = particles(sut);
    double meanX = 0.0;
    for (std::uint32_t k = 0; k < PARTICLES; ++k) {
        for (std::uint32_t n = 0; n < VEHICLES; ++n) {
            const std::size_t slot = (static_cast<std::size_t>(k) * VEHICLES + n) * SceneModel::SLOT_FLOATS;
            if (n == SLOT) {
                meanX += after[slot + SceneModel::X];
            } else {
                ASSERT_EQ(std::memcmp(&before[slot], &after[slot], SceneModel::SLOT_FLOATS * sizeof(float)), 0)
                    << "particle " << k << " vehicle " << n;
            }
        }
    }
    meanX /= PARTICLES;
    EXPECT_NEAR(meanX, NEWCOMER_X_M, 4.0 * NEWCOMER_SIGMA_M / std::sqrt(static_cast<double>(PARTICLES)));
    EXPECT_TRUE(std::equal(weightsBefore.begin(), weightsBefore.end(), sut.logWeights().begin()));
}

TEST_P(ReinitializeVehicle, IsDeterministicAndDrawsFreshNumbersAtALaterStep) {
    Filter first = steppedFilter(GetParam());
    Filter second = steppedFilter(GetParam());
    Filter later = steppedFilter(GetParam());
    ASSERT_TRUE(later.setInputs(std::vector<SceneVehicleInput>(VEHICLES, vehicleAt(0.0F, 1.0F))).hasValue());
    later.step();

    first.reinitializeVehicle(SLOT, vehicleAt(NEWCOMER_X_M, NEWCOMER_SIGMA_M));
    second.reinitializeVehicle(SLOT, vehicleAt(NEWCOMER_X_M, NEWCOMER_SIGMA_M));
    later.reinitializeVehicle(SLOT, vehicleAt(NEWCOMER_X_M, NEWCOMER_SIGMA_M));

    const std::vector<float> a = particles(first);
    const std::vector<float> b = particles(second);
    const std::vector<float> c = particles(later);
    EXPECT_EQ(a, b);
    const std::size_t slot = SLOT * SceneModel::SLOT_FLOATS;  // particle 0, the reused slot
    EXPECT_NE(a[slot + SceneModel::X], c[slot + SceneModel::X]) << "a slot reused later gets other draws";
}

INSTANTIATE_TEST_SUITE_P(Layouts, ReinitializeVehicle,
                         ::testing::Values(StateLayout::ArrayOfStructs, StateLayout::StructOfArrays),
                         [](const ::testing::TestParamInfo<StateLayout>& param) {
                             return param.param == StateLayout::ArrayOfStructs ? std::string("ArrayOfStructs")
                                                                              : std::string("StructOfArrays");
                         });

}  // namespace
}  // namespace augur::kernels::pf
