// The run-phase functions of the kf family allocate nothing: every heap allocation of the process is counted
// while they run (augur::allocation_counter).
#include <gtest/gtest.h>

#include <vector>

#include "augur/kernels/kf/association.hpp"
#include "augur/kernels/kf/kalman_bank.hpp"
#include "augur/kernels/kf/parallel_filter.hpp"
#include "augur/kernels/kf/smoother.hpp"
#include "augur/kernels/kf/track_table.hpp"
#include "augur/testing/allocation_counter.hpp"

namespace augur::kernels::kf {
namespace {

constexpr std::size_t TARGETS = 64;
constexpr std::size_t STEPS = 300;

TEST(KfRunPhase, BankStepFiltersSmoothersAndTrackTableDoNotAllocate) {
    // Arrange (allocates).
    std::vector<double> mean(6 * TARGETS, 0.0);
    std::vector<double> cov(21 * TARGETS, 0.0);
    std::vector<double> dt(TARGETS, 0.1);
    std::vector<double> z(2 * TARGETS, 1.0);
    std::vector<double> r(2 * TARGETS, 0.5);
    std::vector<std::uint8_t> present(TARGETS, 1);
    std::vector<double> nis(TARGETS);
    const BankState<double> state{mean.data(), cov.data(), TARGETS, TARGETS};
    for (std::size_t t = 0; t < TARGETS; ++t) {
        cpu::initializeTarget<double>(MotionModel::ConstantAcceleration, state, t, 0.0, 0.0, 1.0, 1.0, 1.0);
    }
    std::vector<double> hMean(STEPS * 4, 0.0);
    std::vector<double> hCov(STEPS * 10, 0.0);
    std::vector<double> hDt(STEPS, 0.1);
    for (std::size_t k = 0; k < STEPS; ++k) {
        for (int i = 0; i < 4; ++i) {
            hCov[k * 10 + static_cast<std::size_t>(packedIndex(4, i, i))] = 1.0;
        }
    }
    std::vector<double> sMean(hMean.size());
    std::vector<double> sCov(hCov.size());
    std::vector<double> scratch(cpu::smootherScratchCount(MotionModel::ConstantVelocity, STEPS, 1));
    std::vector<double> hZ(STEPS * 2, 1.0);
    std::vector<double> hR(STEPS * 2, 0.5);
    std::vector<std::uint8_t> hPresent(STEPS, 1);
    const MeasurementHistory<double> measurements{hMean.data(), hCov.data(), hDt.data(), hZ.data(),
                                                  hR.data(),    hPresent.data(), STEPS, 1};
    std::vector<double> filterScratch(cpu::parallelFilterScratchCount(MotionModel::ConstantVelocity, STEPS, 1));
    auto table = TrackTable::create({TARGETS, 2});
    ASSERT_TRUE(table.hasValue());
    std::vector<std::uint32_t> deleted(TARGETS);
    const ModelParams<double> ca{MotionModel::ConstantAcceleration, 1.0};
    const ModelParams<double> cv{MotionModel::ConstantVelocity, 1.0};
    const FilteredHistory<double> history{hMean.data(), hCov.data(), hDt.data(), STEPS, 1};

    // Act.
    const std::uint64_t allocations = testing::allocationsDuring([&] {
        cpu::step<double>(ca, state, {dt.data(), z.data(), r.data(), present.data(), nis.data()});
        cpu::smoothSequential<double>(cv, history, {sMean.data(), sCov.data()});
        cpu::smoothParallel<double>(cv, history, {sMean.data(), sCov.data()}, scratch.data());
        cpu::filterSequential<double>(cv, measurements, {sMean.data(), sCov.data()});
        cpu::filterParallel<double>(cv, measurements, {sMean.data(), sCov.data()}, filterScratch.data());
        for (int cycle = 0; cycle < 5; ++cycle) {
            table->beginCycle();
            for (std::uint32_t id = 0; id < TARGETS + 8; ++id) {
                static_cast<void>(table->observe(id * 3 + static_cast<std::uint32_t>(cycle)));
            }
            table->endCycle(deleted);
        }
    });

    // Assert.
    EXPECT_EQ(allocations, 0U);
}

TEST(KfRunPhase, AssociationOfAFullSceneDoesNotAllocate) {
    // Arrange (allocates): 128 tracks on a grid, 128 objects on top of them, all in one dense block
    // around the first track as well, so both the direct and the dense paths run.
    constexpr std::size_t SIDE = 128;
    auto sut = Associator::create({SIDE, SIDE, 9.21F, 5.0F, 1.0F});
    ASSERT_TRUE(sut.hasValue());
    std::vector<float> x(SIDE), y(SIDE), var(SIDE, 0.25F), zero(SIDE, 0.0F), ox(SIDE), oy(SIDE);
    std::vector<std::uint8_t> live(SIDE, 1);
    std::vector<std::uint32_t> ids(SIDE), objectToTrack(SIDE);
    std::vector<std::uint8_t> gated(SIDE);
    for (std::size_t i = 0; i < SIDE; ++i) {
        x[i] = i < SIDE / 2 ? 10.0F * static_cast<float>(i) : 0.05F * static_cast<float>(i % 8);
        y[i] = i < SIDE / 2 ? 0.0F : 100.0F;
        ox[i] = x[i] + 0.1F;
        oy[i] = y[i];
        ids[i] = static_cast<std::uint32_t>(i + 1);
    }
    const PredictedTracks tracks{x.data(), y.data(), var.data(), zero.data(), var.data(), live.data(), ids.data(), SIDE};
    const Detections objects{ox.data(), oy.data(), var.data(), var.data(), ids.data(), SIDE};

    // Act.
    AssociationStats stats;
    const std::uint64_t allocations =
        testing::allocationsDuring([&] { stats = sut->associate(tracks, objects, objectToTrack, gated); });

    // Assert.
    EXPECT_EQ(allocations, 0U);
    EXPECT_EQ(stats.assigned, SIDE);
}

}  // namespace
}  // namespace augur::kernels::kf
