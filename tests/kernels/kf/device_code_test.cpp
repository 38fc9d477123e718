// The CUDA kernels' thread bodies (kernels/kf/kf_threads.cuh), compiled as host C++ and run thread by
// thread and pass by pass in launch order, against the Eigen reference: the maths, the indexing and the
// pass plan of the GPU paths are checked on every machine, not only where a GPU is present.
#include <gtest/gtest.h>

#include <vector>

#include "augur/kernels/kf/kalman_bank.hpp"
#include "augur/kernels/kf/smoother.hpp"
#include "kf_test_support.hpp"
#include "kf_threads.cuh"
#include "tuning.hpp"

namespace augur::kernels::kf {
namespace {

constexpr double FLOAT_TOLERANCE = 1e-5;
constexpr double DOUBLE_TOLERANCE = 1e-10;
constexpr std::size_t EXTRA_THREADS = 70;  // threads past the last item, as in a partly filled last block

template <typename Real>
constexpr double tolerance() {
    return sizeof(Real) == sizeof(float) ? FLOAT_TOLERANCE : DOUBLE_TOLERANCE;
}

/// Runs the bank's thread body for every thread of the launch.
template <typename Real, int D>
void emulateBankStep(const ModelParams<Real>& params, BankState<Real> s, const CycleInput<Real>& in) {
    const device::BankArgs<Real> args{params.noiseDensity, s.mean,         s.cov,           s.count,
                                      s.stride,            in.dt_s,        in.z_m,          in.measVar_m2,
                                      in.hasMeasurement,   in.nis,         in.zVel_mps,     in.velCov_m2ps2,
                                      in.hasVelocity};
    for (std::size_t t = 0; t < s.count + EXTRA_THREADS; ++t) {
        device::bankStepThread<Real, D>(args, t);
    }
}

template <typename Real, int D>
void expectBankThreadsEqualCpu(bool withVelocity = false) {
    testing::Scenario scenario;
    if (withVelocity) {
        scenario.velAlongStd_mps = 0.3;
        scenario.velAcrossStd_mps = 0.6;
    }
    scenario.model = D == 4 ? MotionModel::ConstantVelocity : MotionModel::ConstantAcceleration;
    scenario.targets = 257;
    scenario.steps = 12;
    scenario.missingProbability = 0.3;
    const auto sim = testing::simulate(scenario);
    const auto expected = testing::filterSimulation<Real>(sim);
    // Same cycles, thread bodies instead of cpu::step.
    const std::size_t bCount = scenario.targets;
    constexpr int NP = packedSize(D);
    std::vector<Real> mean(expected.mean.begin(), expected.mean.begin() + static_cast<std::ptrdiff_t>(bCount * D));
    std::vector<Real> cov(expected.cov.begin(), expected.cov.begin() + static_cast<std::ptrdiff_t>(bCount * NP));
    std::vector<Real> nis(bCount);
    const auto z = testing::convert<Real>(sim.z);
    const auto r = testing::convert<Real>(sim.measVar);
    const auto zVel = testing::convert<Real>(sim.zVel);
    const auto velCov = testing::convert<Real>(sim.velCov);
    const ModelParams<Real> params{scenario.model, static_cast<Real>(scenario.noiseDensity)};
    for (std::size_t k = 1; k < scenario.steps; ++k) {
        emulateBankStep<Real, D>(params, {mean.data(), cov.data(), bCount, bCount},
                                 {expected.dt.data() + (k - 1) * bCount, z.data() + k * 2 * bCount,
                                  r.data() + k * 2 * bCount, sim.present.data() + k * bCount, nis.data(),
                                  withVelocity ? zVel.data() + k * 2 * bCount : nullptr,
                                  withVelocity ? velCov.data() + k * 3 * bCount : nullptr,
                                  withVelocity ? sim.present.data() + k * bCount : nullptr});
    }
    const std::size_t lastMean = (scenario.steps - 1) * bCount * D;
    const std::size_t lastCov = (scenario.steps - 1) * bCount * NP;
    const std::vector<Real> expMean(expected.mean.begin() + static_cast<std::ptrdiff_t>(lastMean), expected.mean.end());
    const std::vector<Real> expCov(expected.cov.begin() + static_cast<std::ptrdiff_t>(lastCov), expected.cov.end());
    EXPECT_LE(testing::maxNormwiseDifference(mean, expMean, D, bCount), tolerance<Real>());
    EXPECT_LE(testing::maxNormwiseDifference(cov, expCov, NP, bCount), tolerance<Real>());
    // NIS = νᵀS⁻¹ν amplifies the rounding of S's inverse: in float, the thread bodies and Eigen (whose
    // summation order differs between SSE and NEON) differ by up to 1.5e-5 relative on aarch64. Means and
    // covariances keep the 1e-5 bound; the NIS is held to NIS_TOLERANCE_FACTOR times it.
    constexpr double NIS_TOLERANCE_FACTOR = 4.0;
    for (std::size_t b = 0; b < bCount; ++b) {
        const double want = expected.nis[(scenario.steps - 1) * bCount + b];
        EXPECT_NEAR(nis[b], want, NIS_TOLERANCE_FACTOR * tolerance<Real>() * (1.0 + std::abs(want)));
    }
}

TEST(KalmanBankDeviceCode, ThreadBodiesEqualCpuReference) {
    expectBankThreadsEqualCpu<float, 4>();
    expectBankThreadsEqualCpu<double, 4>();
    expectBankThreadsEqualCpu<float, 6>();
    expectBankThreadsEqualCpu<double, 6>();
}

TEST(KalmanBankDeviceCode, ThreadBodiesEqualCpuReferenceWithVelocityMeasurements) {
    constexpr bool WITH_VELOCITY = true;
    expectBankThreadsEqualCpu<float, 4>(WITH_VELOCITY);
    expectBankThreadsEqualCpu<double, 4>(WITH_VELOCITY);
    expectBankThreadsEqualCpu<float, 6>(WITH_VELOCITY);
    expectBankThreadsEqualCpu<double, 6>(WITH_VELOCITY);
}

/// Runs the scan's passes in launch order, every thread of each pass, with chunk length `chunk`.
template <typename Real, int D>
void emulateParallelSmoother(const device::HistoryArgs<Real>& h, std::size_t chunk, std::vector<Real>& scratch) {
    const detail::ScanLevels levels = detail::scanLevels(h.steps, chunk);
    scratch.assign(levels.scratchElements * h.targets * device::Element<Real, D>::VALUES + 1, Real(0));
    device::ScanPass<Real> passes[device::MAX_SCAN_PASSES];
    const int count = device::planScan<Real, D>(levels, h.targets, scratch.data(), passes);
    using Kind = typename device::ScanPass<Real>::Kind;
    for (int i = 0; i < count; ++i) {
        const auto& pass = passes[i];
        for (std::size_t idx = 0; idx < pass.threads + EXTRA_THREADS; ++idx) {
            switch (pass.kind) {
                case Kind::UpFromHistory: device::upsweepThread<Real, D, true>(h, pass, chunk, idx); break;
                case Kind::UpFromLevel: device::upsweepThread<Real, D, false>(h, pass, chunk, idx); break;
                case Kind::DownLevel: device::downsweepThread<Real, D, false>(h, pass, chunk, idx); break;
                case Kind::DownToOutput: device::downsweepThread<Real, D, true>(h, pass, chunk, idx); break;
            }
        }
    }
}

enum class Path { Parallel, Sequential };

template <typename Real, int D>
void expectSmootherThreadsEqualCpu(std::size_t steps, std::size_t targets, std::size_t chunk, Path path) {
    testing::Scenario scenario;
    scenario.model = D == 4 ? MotionModel::ConstantVelocity : MotionModel::ConstantAcceleration;
    scenario.steps = steps;
    scenario.targets = targets;
    scenario.missingProbability = 0.25;
    scenario.seed = 31 * steps + targets;
    const auto sim = testing::simulate(scenario);
    const auto f = testing::filterSimulation<Real>(sim);
    const ModelParams<Real> params{scenario.model, static_cast<Real>(scenario.noiseDensity)};
    const FilteredHistory<Real> history{f.mean.data(), f.cov.data(), f.dt.data(), steps, targets};
    std::vector<Real> expMean(f.mean.size()), expCov(f.cov.size()), gotMean(f.mean.size()), gotCov(f.cov.size());
    const device::HistoryArgs<Real> h{f.mean.data(), f.cov.data(), f.dt.data(), gotMean.data(), gotCov.data(),
                                      steps, targets, params.noiseDensity};
    if (path == Path::Parallel) {
        std::vector<Real> cpuScratch(cpu::smootherScratchCount(scenario.model, steps, targets, chunk) + 1);
        cpu::smoothParallel<Real>(params, history, {expMean.data(), expCov.data()}, cpuScratch.data(), chunk);
        std::vector<Real> scratch;
        emulateParallelSmoother<Real, D>(h, chunk, scratch);
    } else {
        cpu::smoothSequential<Real>(params, history, {expMean.data(), expCov.data()});
        for (std::size_t b = 0; b < targets + EXTRA_THREADS; ++b) {
            device::sequentialRtsThread<Real, D>(h, b);
        }
    }
    EXPECT_LE(testing::maxNormwiseDifference(gotMean, expMean, D, targets), tolerance<Real>())
        << "T = " << steps << ", B = " << targets << ", chunk = " << chunk;
    EXPECT_LE(testing::maxNormwiseDifference(gotCov, expCov, packedSize(D), targets), tolerance<Real>())
        << "T = " << steps << ", B = " << targets << ", chunk = " << chunk;
}

TEST(ParallelSmootherDeviceCode, PassesEqualCpuScanForManyLengthsAndBatches) {
    constexpr std::size_t CHUNK = tuning::SMOOTHER_CHUNK_LENGTH;
    for (const std::size_t steps : {1U, 2U, 3U, 31U, 32U, 33U, 1023U, 1024U, 1025U, 1057U}) {
        expectSmootherThreadsEqualCpu<double, 4>(steps, 1, CHUNK, Path::Parallel);
    }
    expectSmootherThreadsEqualCpu<double, 4>(257, 19, CHUNK, Path::Parallel);
    expectSmootherThreadsEqualCpu<double, 6>(100, 5, CHUNK, Path::Parallel);
    expectSmootherThreadsEqualCpu<float, 4>(100, 7, CHUNK, Path::Parallel);
}

TEST(ParallelSmootherDeviceCode, ShortChunksExerciseDeepPlans) {
    for (const std::size_t steps : {2U, 9U, 26U, 27U, 28U, 200U}) {
        expectSmootherThreadsEqualCpu<double, 4>(steps, 3, 3, Path::Parallel);
    }
}

TEST(SequentialSmootherDeviceCode, ThreadBodyEqualsCpuRts) {
    expectSmootherThreadsEqualCpu<double, 4>(300, 6, 0, Path::Sequential);
    expectSmootherThreadsEqualCpu<double, 6>(120, 4, 0, Path::Sequential);
    expectSmootherThreadsEqualCpu<float, 4>(100, 5, 0, Path::Sequential);
    expectSmootherThreadsEqualCpu<double, 4>(1, 2, 0, Path::Sequential);
}

TEST(ScanPlan, HasUpAndDownPassesForEveryLevel) {
    // T = 2^20 with chunk 32: levels 2^20, 2^15, 2^10, 2^5 → 3 up-sweeps and 4 down-sweeps.
    constexpr std::size_t STEPS = std::size_t{1} << 20U;
    const detail::ScanLevels levels = detail::scanLevels(STEPS, 32);
    device::ScanPass<double> passes[device::MAX_SCAN_PASSES];
    double* const scratch = nullptr;
    const int sut = device::planScan<double, 4>(levels, 1, scratch, passes);
    using Kind = device::ScanPass<double>::Kind;
    ASSERT_EQ(sut, 7);
    EXPECT_EQ(passes[0].kind, Kind::UpFromHistory);
    EXPECT_EQ(passes[0].threads, std::size_t{1} << 15U);
    EXPECT_EQ(passes[2].kind, Kind::UpFromLevel);
    EXPECT_EQ(passes[3].kind, Kind::DownLevel);
    EXPECT_EQ(passes[3].threads, 1U);  // the top level is one chunk
    EXPECT_EQ(passes[3].above, nullptr);
    EXPECT_EQ(passes[6].kind, Kind::DownToOutput);
    EXPECT_EQ(passes[6].threads, std::size_t{1} << 15U);
}

}  // namespace
}  // namespace augur::kernels::kf
