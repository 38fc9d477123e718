// The runtime on the CUDA backend (label gpu; skipped without a device): the intention filters and the
// Markov motion prediction on the GPU, replayed from CUDA graphs, equal the CPU backend's within
// tolerance on a synthetic scene; an injected CUDA error in either stage makes the runtime fall back to
// the CPU and keep predicting, with the CPU sizing (motion.cpu) from then on; the trace shows their GPU
// work on its own track.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>

#include "augur/kernels/tuning_policy.hpp"
#include "augur/platform/gpu_info.hpp"
#include "augur/platform/sm_partition.hpp"
#include "augur/testing/embedded_roudi.hpp"
#include "support/runtime_fixture.hpp"

namespace augur::runtime {
namespace {

using testing::makeRuntime;
using testing::ScenePlayer;

constexpr std::uint32_t VEHICLES = 12;
constexpr int CYCLES = 8;
// The filters draw the same random numbers on both backends, but transcendentals differ in the last
// bits between host and device, so after a resampling a copy index may flip between near-tied particles:
// one of the 256 particles moves a probability by 1/256. The motion prediction consumes these
// probabilities (P(stop) through λ, P(corridor) as the grid weight), so its tolerances cover that too.
constexpr float INTENTION_TOLERANCE = 0.02F;
constexpr float POSITION_TOLERANCE_M = 0.5F;
constexpr int GRID_TOLERANCE_UNITS = 2048;  // of 65535: 3 % of a cell's full scale

const auto* const g_environment =
    ::testing::AddGlobalTestEnvironment(new testing::EmbeddedRouDiEnvironment("augur-runtime-gpu-test"));

/// The small deployment with a deadline a slow CPU reference run cannot miss (no mode changes).
config::Deployment gpuDeployment(const std::string& instance, config::Backend backend) {
    config::Deployment d = testing::smallDeployment(instance, backend);
    d.runtime.maxInputAge_ms = 0;
    d.runtime.deadline_ms = 10'000;
    d.runtime.watchdog.recoverAfterGoodCycles = 2;
    d.grid.resolution_m = 2.0;
    return d;
}

struct SceneOutputs {
    IntentionList intentions;
    MotionPrediction prediction;
    std::uint64_t replays{0};
};

/// An SM partition and a forced tuning policy for runScene (RuntimeOptions).
struct GpuShape {
    int multiprocessors{0};
    std::optional<kernels::TuningArch> policy{};
};

std::unique_ptr<SceneOutputs> runScene(config::Backend backend, const std::string& instance,
                                       std::optional<bool> zeroCopy = std::nullopt, std::string* log = nullptr,
                                       GpuShape shape = {}) {
    config::Deployment d = gpuDeployment(instance, backend);
    // Every vehicle on the deployment's chain on both backends (the CPU sizing gives the nearest vehicles
    // a full chain of its own and the others a coarser one), so that the scenes compare the same model.
    d.motion.cpu.fullPositionCells = d.motion.positionCells;
    d.motion.cpu.fullSpeedCells = d.motion.speedCells;
    d.motion.cpu.positionCells = d.motion.positionCells;
    d.motion.cpu.speedCells = d.motion.speedCells;
    RuntimeOptions options;
    options.connectToRouDi = false;
    options.cpuWorkers = 2;
    options.gpuZeroCopy = zeroCopy;
    options.gpuMultiprocessors = shape.multiprocessors;
    options.gpuTuningPolicy = shape.policy;
    options.log = [log](config::LogLevel, const std::string& line) {
        if (log != nullptr) {
            *log += line + "\n";
        }
    };
    auto created = Runtime::create(d, options);
    EXPECT_TRUE(created.hasValue()) << (created.hasValue() ? "" : created.error().message);
    auto sut = created.hasValue() ? std::move(created).value() : nullptr;
    auto out = std::make_unique<SceneOutputs>();
    if (sut == nullptr) {
        return out;
    }
    EXPECT_EQ(sut->backendIsCuda(), backend == config::Backend::Cuda);
    ScenePlayer player(d, VEHICLES);
    for (int k = 0; k < CYCLES; ++k) {
        const CycleReport report = player.cycle(*sut);
        EXPECT_EQ(report.status[static_cast<std::size_t>(Stage::Intention)], StageStatus::Ok) << "cycle " << k;
        EXPECT_EQ(report.status[static_cast<std::size_t>(Stage::Motion)], StageStatus::Ok) << "cycle " << k;
    }
    out->replays = sut->graphReplays();
    std::memcpy(&out->intentions, &sut->state().intentions, sizeof(IntentionList));
    std::memcpy(&out->prediction, &sut->state().prediction, sizeof(MotionPrediction));
    return out;
}

TEST(RuntimeCuda, IntentionsAndMotionPredictionOnTheGpuEqualTheCpuBackendWithinTolerance) {
    AUGUR_REQUIRE_GPU();
    AUGUR_REQUIRE_ICEORYX();
    const auto cpu = runScene(config::Backend::Cpu, "gpu-equal-cpu");
    const auto gpu = runScene(config::Backend::Cuda, "gpu-equal-gpu");

    EXPECT_EQ(cpu->replays, 0U);
    EXPECT_EQ(gpu->replays, static_cast<std::uint64_t>(2 * CYCLES)) << "one intention and one motion replay per cycle";
    const IntentionList& expectedIntentions = cpu->intentions;
    const IntentionList& actualIntentions = gpu->intentions;
    ASSERT_GT(expectedIntentions.vehicleCount, 0U);
    ASSERT_EQ(actualIntentions.vehicleCount, expectedIntentions.vehicleCount);
    for (std::uint32_t v = 0; v < expectedIntentions.vehicleCount; ++v) {
        const IntentionEstimate& e = expectedIntentions.vehicles[v];
        const IntentionEstimate& a = actualIntentions.vehicles[v];
        ASSERT_EQ(a.trackId, e.trackId);
        ASSERT_EQ(a.corridorCount, e.corridorCount);
        EXPECT_NEAR(a.stopProbability, e.stopProbability, INTENTION_TOLERANCE) << "vehicle " << v;
        EXPECT_NEAR(a.laneChangeProbability, e.laneChangeProbability, INTENTION_TOLERANCE) << "vehicle " << v;
        for (std::uint32_t c = 0; c < e.corridorCount; ++c) {
            EXPECT_EQ(a.corridorIds[c], e.corridorIds[c]);
            EXPECT_NEAR(a.corridorProbability[c], e.corridorProbability[c], INTENTION_TOLERANCE)
                << "vehicle " << v << " corridor " << c;
        }
    }

    const MotionPrediction* const reference = &cpu->prediction;
    const MotionPrediction* const sut = &gpu->prediction;
    ASSERT_GT(reference->vehicleCount, 0U);
    ASSERT_EQ(sut->vehicleCount, reference->vehicleCount);
    std::uint32_t corridors = 0;
    for (std::uint32_t v = 0; v < reference->vehicleCount; ++v) {
        const VehiclePrediction& expected = reference->vehicles[v];
        const VehiclePrediction& actual = sut->vehicles[v];
        ASSERT_EQ(actual.trackId, expected.trackId);
        ASSERT_EQ(actual.corridorCount, expected.corridorCount) << "vehicle " << v;
        for (std::uint32_t c = 0; c < expected.corridorCount; ++c) {
            ++corridors;
            EXPECT_EQ(actual.corridors[c].corridorId, expected.corridors[c].corridorId);
            EXPECT_NEAR(actual.corridors[c].probability, expected.corridors[c].probability, INTENTION_TOLERANCE);
            for (std::uint32_t k = 0; k < reference->horizonSteps; ++k) {
                const CorridorPoint& e = expected.corridors[c].points[k];
                const CorridorPoint& a = actual.corridors[c].points[k];
                EXPECT_NEAR(a.sMean_m, e.sMean_m, POSITION_TOLERANCE_M) << "vehicle " << v << " corridor " << c << " step " << k;
                EXPECT_NEAR(a.sStd_m, e.sStd_m, POSITION_TOLERANCE_M);
                EXPECT_NEAR(a.x_m, e.x_m, POSITION_TOLERANCE_M);
                EXPECT_NEAR(a.y_m, e.y_m, POSITION_TOLERANCE_M);
            }
        }
    }
    EXPECT_GT(corridors, 0U);
    ASSERT_EQ(sut->grid.frameCount, reference->grid.frameCount);
    EXPECT_EQ(sut->grid.originX_m, reference->grid.originX_m);
    EXPECT_EQ(sut->grid.originY_m, reference->grid.originY_m);
    std::uint64_t occupied = 0;
    int worst = 0;
    const std::size_t cells = static_cast<std::size_t>(reference->grid.widthCells) * reference->grid.heightCells;
    for (std::uint32_t f = 0; f < reference->grid.frameCount; ++f) {
        for (std::size_t i = 0; i < cells; ++i) {
            occupied += reference->grid.cells[f][i];
            worst = std::max(worst, std::abs(static_cast<int>(sut->grid.cells[f][i]) - reference->grid.cells[f][i]));
        }
    }
    EXPECT_GT(occupied, 0U) << "the grid must hold some occupancy for the comparison to mean anything";
    EXPECT_LE(worst, GRID_TOLERANCE_UNITS);
}

TEST(RuntimeCuda, ZeroCopyMotionStagingGivesTheSameOutputsAsCopies) {
    AUGUR_REQUIRE_GPU();
    AUGUR_REQUIRE_ICEORYX();
    // Mapped page-locked memory is what integrated GPUs use; a discrete GPU addresses it over the bus,
    // so the same kernels run on the same numbers either way.
    std::string copiedLog;
    std::string mappedLog;
    const auto copied = runScene(config::Backend::Cuda, "gpu-copied", false, &copiedLog);
    const auto mapped = runScene(config::Backend::Cuda, "gpu-mapped", true, &mappedLog);
    EXPECT_NE(copiedLog.find("motion staging copied"), std::string::npos) << copiedLog;
    EXPECT_NE(mappedLog.find("motion staging mapped, zero copy"), std::string::npos) << mappedLog;
    ASSERT_GT(copied->prediction.vehicleCount, 0U);
    EXPECT_EQ(std::memcmp(&copied->prediction.vehicles, &mapped->prediction.vehicles, sizeof(copied->prediction.vehicles)), 0);
    EXPECT_EQ(std::memcmp(&copied->prediction.grid, &mapped->prediction.grid, sizeof(copied->prediction.grid)), 0);
}

TEST(RuntimeCuda, InAnSmPartitionWithOrinsPolicyThePredictionsMatchTheWholeDevice) {
    AUGUR_REQUIRE_GPU();
    AUGUR_REQUIRE_ICEORYX();
    constexpr int PARTITION_SMS = 8;  // the smallest sm_90 partition
    if (auto probe = platform::SmPartition::create(PARTITION_SMS); !probe && probe.error().fault == platform::SmPartitionFault::Unsupported) {
        GTEST_SKIP() << platform::describe(probe.error());
    }
    std::string log;
    const auto whole = runScene(config::Backend::Cuda, "gpu-whole-device");
    const auto sut = runScene(config::Backend::Cuda, "gpu-partition", std::nullopt, &log,
                              GpuShape{PARTITION_SMS, kernels::TuningArch::Sm87});

    EXPECT_NE(log.find("SM partition of 8 SMs"), std::string::npos) << log;
    EXPECT_NE(log.find("tuning policy forced to sm_87"), std::string::npos) << log;
    EXPECT_FALSE(platform::smPartitionActive()) << "the partition ends with its runtime";
    EXPECT_FALSE(kernels::forcedTuningArch().has_value()) << "a later runtime without the option takes the device's policy";
    EXPECT_EQ(sut->replays, whole->replays);
    ASSERT_GT(whole->prediction.vehicleCount, 0U);
    ASSERT_EQ(sut->prediction.vehicleCount, whole->prediction.vehicleCount);
    for (std::uint32_t v = 0; v < whole->prediction.vehicleCount; ++v) {
        const VehiclePrediction& expected = whole->prediction.vehicles[v];
        const VehiclePrediction& actual = sut->prediction.vehicles[v];
        ASSERT_EQ(actual.corridorCount, expected.corridorCount) << "vehicle " << v;
        for (std::uint32_t c = 0; c < expected.corridorCount; ++c) {
            EXPECT_NEAR(actual.corridors[c].probability, expected.corridors[c].probability, INTENTION_TOLERANCE);
            for (std::uint32_t k = 0; k < whole->prediction.horizonSteps; ++k) {
                EXPECT_NEAR(actual.corridors[c].points[k].sMean_m, expected.corridors[c].points[k].sMean_m, POSITION_TOLERANCE_M)
                    << "vehicle " << v << " corridor " << c << " step " << k;
            }
        }
    }
}

TEST(RuntimeCuda, AutoPicksTheGpuWhenADeviceIsPresent) {
    AUGUR_REQUIRE_GPU();
    AUGUR_REQUIRE_ICEORYX();
    auto sut = makeRuntime(gpuDeployment("gpu-auto", config::Backend::Auto));
    ASSERT_NE(sut, nullptr);
    EXPECT_TRUE(sut->backendIsCuda());
}

TEST(RuntimeCuda, TheTraceHasTheGpuWorkOfBothStagesOnItsOwnTrack) {
    AUGUR_REQUIRE_GPU();
    AUGUR_REQUIRE_ICEORYX();
    config::Deployment d = gpuDeployment("gpu-trace", config::Backend::Cuda);
    d.output.tracePath = ::testing::TempDir() + "augur_runtime_gpu_trace.json";
    auto sut = makeRuntime(d, 2);
    ASSERT_NE(sut, nullptr);
    ScenePlayer player(d, VEHICLES);
    for (int k = 0; k < CYCLES; ++k) {
        (void)player.cycle(*sut);
    }

    (void)sut->closeTrace();

    std::ifstream file(d.output.tracePath);
    std::stringstream text;
    text << file.rdbuf();
    const std::string json = text.str();
    const auto count = [&json](const std::string& needle) {
        std::size_t n = 0;
        for (std::size_t at = json.find(needle); at != std::string::npos; at = json.find(needle, at + 1)) {
            ++n;
        }
        return n;
    };
    EXPECT_EQ(count("\"args\":{\"name\":\"gpu\"}"), 1U) << "the GPU track is named once";
    EXPECT_EQ(count("{\"name\":\"intention gpu\",\"cat\":\"gpu\",\"ph\":\"X\""), static_cast<std::size_t>(CYCLES));
    EXPECT_EQ(count("{\"name\":\"motion gpu\",\"cat\":\"gpu\",\"ph\":\"X\""), static_cast<std::size_t>(CYCLES));
    std::remove(d.output.tracePath.c_str());
}

class RuntimeCudaFallback : public ::testing::TestWithParam<Stage> {};

TEST_P(RuntimeCudaFallback, AnInjectedGpuErrorFallsBackToTheCpuAndKeepsPredicting) {
    AUGUR_REQUIRE_GPU();
    AUGUR_REQUIRE_ICEORYX();
    const Stage failing = GetParam();
    const config::Deployment d =
        gpuDeployment(failing == Stage::Motion ? "gpu-fallback-motion" : "gpu-fallback-intention", config::Backend::Cuda);
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    ScenePlayer player(d, VEHICLES);
    for (int k = 0; k < 3; ++k) {
        ASSERT_EQ(player.cycle(*sut).status[static_cast<std::size_t>(failing)], StageStatus::Ok);
    }
    ASSERT_TRUE(sut->backendIsCuda());
    EXPECT_EQ(sut->coarseMotionVehicles(), 0U) << "the GPU propagates every vehicle with the full chain";
    const std::uint64_t replaysBefore = sut->graphReplays();

    sut->injectGpuError(failing);
    const CycleReport failed = player.cycle(*sut);
    EXPECT_EQ(failed.status[static_cast<std::size_t>(failing)], StageStatus::GpuError);
    ASSERT_TRUE(failed.transition.has_value());
    EXPECT_EQ(failed.transition->to, RuntimeMode::ConstantVelocity);
    EXPECT_FALSE(sut->backendIsCuda()) << "after a CUDA error the CPU carries every stage";
    EXPECT_EQ(sut->counters().gpuErrors, 1U);
    EXPECT_GT(sut->state().prediction.vehicleCount, 0U) << "the failed cycle still publishes";
    if (failing == Stage::Intention) {
        EXPECT_GT(sut->state().intentions.vehicleCount, 0U) << "the failed cycle's filters restart on the CPU";
    }
    const std::uint64_t replaysAtFailure = sut->graphReplays();
    EXPECT_LE(replaysAtFailure, replaysBefore + 1) << "at most the failing cycle's other stage replayed";

    // The ladder steps back up after recoverAfterGoodCycles; both stages then run on the CPU.
    CycleReport last{};
    const auto recoveryCycles = static_cast<int>(2 * d.runtime.watchdog.recoverAfterGoodCycles + 2);
    for (int k = 0; k < recoveryCycles; ++k) {
        last = player.cycle(*sut);
        EXPECT_NE(last.status[static_cast<std::size_t>(Stage::Intention)], StageStatus::GpuError);
        EXPECT_EQ(last.status[static_cast<std::size_t>(Stage::Motion)], StageStatus::Ok);
    }
    EXPECT_EQ(last.mode, RuntimeMode::Nominal);
    EXPECT_EQ(last.status[static_cast<std::size_t>(Stage::Intention)], StageStatus::Ok);
    EXPECT_EQ(sut->graphReplays(), replaysAtFailure) << "no replays after the fallback";
    EXPECT_GT(sut->state().intentions.vehicleCount, 0U) << "intention filters on the CPU";
    EXPECT_GT(sut->state().prediction.grid.frameCount, 0U) << "Markov prediction (with its grid) on the CPU";
    EXPECT_EQ(sut->coarseMotionVehicles(), sut->state().prediction.vehicleCount - d.motion.cpu.fullChainVehicles)
        << "the CPU sizing applies after the fallback without being configured for it";
    EXPECT_FALSE(sut->backendIsCuda());
}

INSTANTIATE_TEST_SUITE_P(Stages, RuntimeCudaFallback, ::testing::Values(Stage::Intention, Stage::Motion),
                         [](const ::testing::TestParamInfo<Stage>& param) {
                             return param.param == Stage::Intention ? std::string("Intention") : std::string("Motion");
                         });

}  // namespace
}  // namespace augur::runtime
