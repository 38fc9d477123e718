// The runtime on the CUDA backend (label gpu; skipped without a device): the Markov motion prediction
// on the GPU, replayed from CUDA graphs, equals the CPU backend's within tolerance on a synthetic
// scene; an injected CUDA error makes the runtime fall back to the CPU and keep predicting.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "augur/platform/gpu_info.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/runtime.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "augur/testing/embedded_roudi.hpp"
#include "augur/testing/testing.hpp"
#include "support/synthetic_scene.hpp"

namespace augur::runtime {
namespace {

constexpr std::uint32_t VEHICLES = 12;
constexpr int CYCLES = 8;
constexpr double SCENE_STEP_S = 0.2;
constexpr std::int64_t SCENE_STEP_NS = 200'000'000;
constexpr float POSITION_TOLERANCE_M = 0.05F;  // float sums in another order over 40 steps
constexpr int GRID_TOLERANCE_UNITS = 64;       // of 65535: per-chunk rounding on the CPU, one rounding on the GPU

const auto* const g_environment =
    ::testing::AddGlobalTestEnvironment(new testing::EmbeddedRouDiEnvironment("augur-runtime-gpu-test"));

/// The shipped default with fewer particles and a small grid; the chain is the default's.
config::Deployment gpuDeployment(const std::string& instance, config::Backend backend) {
    auto loaded = config::loadDeployment(testing::sourcePath("config/default.yaml"));
    EXPECT_TRUE(loaded.hasValue());
    config::Deployment d = loaded.value();
    d.runtime.backend = backend;
    d.runtime.maxInputAge_ms = 0;
    d.runtime.deadline_ms = 10'000;  // a slow CPU reference run must not degrade the mode
    d.runtime.watchdog.recoverAfterGoodCycles = 2;
    d.capacities.particles = 256;
    d.capacities.maxPredictedVehicles = 16;
    d.capacities.maxCorridorsPerVehicle = 4;
    d.grid.widthCells = 64;
    d.grid.heightCells = 64;
    d.grid.resolution_m = 2.0;
    testing::useInstance(d, instance);
    return d;
}

const scene::RoadMap& shippedMap() {
    static const scene::RoadMap map =
        scene::readSumoNet(testing::sourcePath("data/scenarios/intersection-4way/map.net.xml")).value();
    return map;
}

std::unique_ptr<Runtime> makeRuntime(const config::Deployment& d) {
    RuntimeOptions options;
    options.connectToRouDi = false;
    options.log = [](config::LogLevel, const std::string&) {};
    options.cpuWorkers = 2;
    auto created = Runtime::create(d, options);
    EXPECT_TRUE(created.hasValue()) << (created.hasValue() ? "" : created.error().message);
    return created.hasValue() ? std::move(created).value() : nullptr;
}

/// Feeds the synthetic scene, one list per cycle.
class ScenePlayer {
public:
    explicit ScenePlayer(const config::Deployment& d)
        : m_publisher(platform::Publisher<ObjectList>::create(
                          {d.transport.objects.service, d.transport.objects.instance, d.transport.objects.event})
                          .value()),
          m_scene(shippedMap(), VEHICLES) {}
    CycleReport cycle(Runtime& sut) {
        auto loan = m_publisher.loan();
        EXPECT_TRUE(loan.hasValue());
        if (loan) {
            ++m_sequence;
            m_scene.write(**loan, m_sequence, 1'000'000'000 + static_cast<std::int64_t>(m_sequence) * SCENE_STEP_NS);
            loan->publish();
        }
        m_scene.advance(SCENE_STEP_S);
        return sut.runCycle();
    }

private:
    platform::Publisher<ObjectList> m_publisher;
    testing::SyntheticScene m_scene;
    std::uint64_t m_sequence{0};
};

std::unique_ptr<MotionPrediction> runScene(config::Backend backend, const std::string& instance, std::uint64_t* replays) {
    const config::Deployment d = gpuDeployment(instance, backend);
    auto sut = makeRuntime(d);
    auto out = std::make_unique<MotionPrediction>();
    if (sut == nullptr) {
        return out;
    }
    EXPECT_EQ(sut->backendIsCuda(), backend == config::Backend::Cuda);
    ScenePlayer player(d);
    for (int k = 0; k < CYCLES; ++k) {
        const CycleReport report = player.cycle(*sut);
        EXPECT_EQ(report.status[static_cast<std::size_t>(Stage::Motion)], StageStatus::Ok) << "cycle " << k;
    }
    *replays = sut->graphReplays();
    std::memcpy(out.get(), &sut->state().prediction, sizeof(MotionPrediction));
    return out;
}

TEST(RuntimeCuda, MotionPredictionOnTheGpuEqualsTheCpuBackendWithinTolerance) {
    AUGUR_REQUIRE_GPU();
    AUGUR_REQUIRE_ICEORYX();
    std::uint64_t cpuReplays = 0;
    std::uint64_t gpuReplays = 0;
    const auto reference = runScene(config::Backend::Cpu, "gpu-equal-cpu", &cpuReplays);
    const auto sut = runScene(config::Backend::Cuda, "gpu-equal-gpu", &gpuReplays);

    EXPECT_EQ(cpuReplays, 0U);
    EXPECT_EQ(gpuReplays, static_cast<std::uint64_t>(CYCLES)) << "one graph replay per cycle";
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
            EXPECT_EQ(actual.corridors[c].probability, expected.corridors[c].probability);
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

TEST(RuntimeCuda, AutoPicksTheGpuWhenADeviceIsPresent) {
    AUGUR_REQUIRE_GPU();
    AUGUR_REQUIRE_ICEORYX();
    auto sut = makeRuntime(gpuDeployment("gpu-auto", config::Backend::Auto));
    ASSERT_NE(sut, nullptr);
    EXPECT_TRUE(sut->backendIsCuda());
}

TEST(RuntimeCuda, AnInjectedGpuErrorFallsBackToTheCpuAndKeepsPredicting) {
    AUGUR_REQUIRE_GPU();
    AUGUR_REQUIRE_ICEORYX();
    const config::Deployment d = gpuDeployment("gpu-fallback", config::Backend::Cuda);
    auto sut = makeRuntime(d);
    ASSERT_NE(sut, nullptr);
    ScenePlayer player(d);
    for (int k = 0; k < 3; ++k) {
        ASSERT_EQ(player.cycle(*sut).status[static_cast<std::size_t>(Stage::Motion)], StageStatus::Ok);
    }
    ASSERT_TRUE(sut->backendIsCuda());
    const std::uint64_t replaysBefore = sut->graphReplays();

    sut->injectGpuError();
    const CycleReport failed = player.cycle(*sut);
    EXPECT_EQ(failed.status[static_cast<std::size_t>(Stage::Motion)], StageStatus::GpuError);
    ASSERT_TRUE(failed.transition.has_value());
    EXPECT_EQ(failed.transition->to, RuntimeMode::ConstantVelocity);
    EXPECT_FALSE(sut->backendIsCuda()) << "after a CUDA error the CPU carries the prediction";
    EXPECT_EQ(sut->counters().gpuErrors, 1U);
    EXPECT_GT(sut->state().prediction.vehicleCount, 0U) << "the failed cycle still publishes (constant velocity)";

    // The ladder steps back up after recoverAfterGoodCycles; the Markov prediction then runs on the CPU.
    CycleReport last{};
    const auto recoveryCycles = static_cast<int>(2 * d.runtime.watchdog.recoverAfterGoodCycles + 2);
    for (int k = 0; k < recoveryCycles; ++k) {
        last = player.cycle(*sut);
        EXPECT_EQ(last.status[static_cast<std::size_t>(Stage::Motion)], StageStatus::Ok);
    }
    EXPECT_EQ(last.mode, RuntimeMode::Nominal);
    EXPECT_EQ(sut->graphReplays(), replaysBefore) << "no replays after the fallback";
    EXPECT_GT(sut->state().prediction.grid.frameCount, 0U) << "Markov prediction (with its grid) on the CPU";
    EXPECT_FALSE(sut->backendIsCuda());
}

}  // namespace
}  // namespace augur::runtime
