// The parallel-in-time Kalman filter (prefix scan) against the sequential bank cycle, step by step.
#include <gtest/gtest.h>

#include <vector>

#include "augur/kernels/kf/parallel_filter.hpp"
#include "kf_test_support.hpp"

namespace augur::kernels::kf {
namespace {

constexpr double DOUBLE_TOLERANCE = 1e-9;  // norm-wise relative, as for the smoother

struct Run {
    std::vector<double> expectedMean, expectedCov, mean, cov;
};

Run runBoth(const testing::Scenario& scenario, std::size_t chunk) {
    const auto sim = testing::simulate(scenario);
    const auto reference = testing::filterSimulation<double>(sim);  // bank cycles, initial estimate at step 0
    const std::size_t bCount = scenario.targets;
    const int dim = stateDim(scenario.model);
    const int np = packedSize(dim);
    const MeasurementHistory<double> in{reference.mean.data(), reference.cov.data(), reference.dt.data(),
                                        sim.z.data(),          sim.measVar.data(),   sim.present.data(),
                                        scenario.steps,        bCount};
    const ModelParams<double> params{scenario.model, scenario.noiseDensity};
    Run run;
    run.expectedMean.resize(scenario.steps * bCount * static_cast<std::size_t>(dim));
    run.expectedCov.resize(scenario.steps * bCount * static_cast<std::size_t>(np));
    run.mean.resize(run.expectedMean.size());
    run.cov.resize(run.expectedCov.size());
    cpu::filterSequential<double>(params, in, {run.expectedMean.data(), run.expectedCov.data()});
    std::vector<double> scratch(cpu::parallelFilterScratchCount(scenario.model, scenario.steps, bCount, chunk) + 1);
    cpu::filterParallel<double>(params, in, {run.mean.data(), run.cov.data()}, scratch.data(), chunk);
    EXPECT_EQ(run.expectedMean, reference.mean);  // the sequential reference is the bank, cycle by cycle
    return run;
}

TEST(ParallelFilter, EqualsSequentialFilterForEveryLength) {
    for (const MotionModel model : {MotionModel::ConstantVelocity, MotionModel::ConstantAcceleration}) {
        for (const std::size_t chunk : {std::size_t{3}, DEFAULT_CHUNK_LENGTH}) {
            for (const std::size_t steps : {1U, 2U, 3U, 4U, 5U, 31U, 32U, 33U, 64U, 65U, 1023U, 1025U}) {
                testing::Scenario scenario;
                scenario.model = model;
                scenario.steps = steps;
                scenario.targets = 3;
                scenario.missingProbability = 0.3;
                scenario.seed = 7 * steps + chunk;
                const auto sut = runBoth(scenario, chunk);
                const auto dim = static_cast<std::size_t>(stateDim(model));
                EXPECT_LE(testing::maxNormwiseDifference(sut.mean, sut.expectedMean, dim, 3), DOUBLE_TOLERANCE)
                    << "T = " << steps << ", chunk = " << chunk;
                EXPECT_LE(testing::maxNormwiseDifference(sut.cov, sut.expectedCov,
                                                         static_cast<std::size_t>(packedSize(stateDim(model))), 3),
                          DOUBLE_TOLERANCE)
                    << "T = " << steps << ", chunk = " << chunk;
            }
        }
    }
}

TEST(ParallelFilter, EqualsSequentialFilterOverALongHistory) {
    testing::Scenario scenario;
    scenario.steps = 100'000;
    scenario.missingProbability = 0.1;
    scenario.seed = 99;
    const auto sut = runBoth(scenario, DEFAULT_CHUNK_LENGTH);
    EXPECT_LE(testing::maxNormwiseDifference(sut.mean, sut.expectedMean, 4, 1), DOUBLE_TOLERANCE);
    EXPECT_LE(testing::maxNormwiseDifference(sut.cov, sut.expectedCov, 10, 1), DOUBLE_TOLERANCE);
}

TEST(ParallelFilter, HistoryWithoutMeasurementsIsPurePrediction) {
    testing::Scenario scenario;
    scenario.steps = 40;
    scenario.missingProbability = 1.0;  // only step 0 (the initial estimate) is measured
    const auto sut = runBoth(scenario, 4);
    EXPECT_LE(testing::maxNormwiseDifference(sut.mean, sut.expectedMean, 4, 1), DOUBLE_TOLERANCE);
    EXPECT_LE(testing::maxNormwiseDifference(sut.cov, sut.expectedCov, 10, 1), DOUBLE_TOLERANCE);
}

}  // namespace
}  // namespace augur::kernels::kf
