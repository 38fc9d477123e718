// The CUDA path against the CPU reference: the prediction (marginals, corridor points, grid) at the
// seed's grid size on seeded random corridors, directly and replayed from a captured CUDA graph, and the
// seed's combination Γ = diag(λ)·ψ.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/prediction.hpp"
#include "augur/kernels/markov/priority.hpp"
#include "augur/kernels/tuning_policy.hpp"
#include "augur/platform/gpu_info.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"
#include "augur/testing/testing.hpp"
#include "markov_test_support.hpp"

namespace augur::kernels::markov {
namespace {

using platform::DeviceBuffer;
using platform::DeviceMemory;
using platform::Stream;
using testing::PredictionHarness;

constexpr float MARGINAL_TOLERANCE = 2e-5F;
constexpr float POSITION_TOLERANCE_M = 2e-3F;
constexpr int GRID_TOLERANCE = 3;  // fixed-point units of 1/65535: float rounding may flip a few

/// Device copies of a harness's inputs and room for its outputs.
struct DevicePrediction {
    DeviceBuffer<CorridorInput> corridors;
    DeviceBuffer<float> x, y, s;
    DeviceBuffer<float> positionMarginal, speedMarginal;
    DeviceBuffer<CorridorPoint> points;
    DeviceBuffer<std::uint16_t> grid;
    DeviceMemory scratch;

    static DevicePrediction upload(const PredictionHarness& h, const ChainConfig& chain) {
        DevicePrediction d;
        d.corridors = DeviceBuffer<CorridorInput>::create(std::max<std::size_t>(1, h.corridors.size())).value();
        d.x = DeviceBuffer<float>::create(h.x.size()).value();
        d.y = DeviceBuffer<float>::create(h.y.size()).value();
        d.s = DeviceBuffer<float>::create(h.s.size()).value();
        d.positionMarginal = DeviceBuffer<float>::create(h.positionMarginal.size()).value();
        d.speedMarginal = DeviceBuffer<float>::create(h.speedMarginal.size()).value();
        d.points = DeviceBuffer<CorridorPoint>::create(h.points.size()).value();
        d.grid = DeviceBuffer<std::uint16_t>::create(h.grid.size()).value();
        d.scratch = DeviceMemory::allocate(cuda::predictScratchBytes(chain, h.config)).value();
        EXPECT_TRUE(d.corridors.upload(h.corridors).hasValue());
        EXPECT_TRUE(d.x.upload(h.x).hasValue());
        EXPECT_TRUE(d.y.upload(h.y).hasValue());
        EXPECT_TRUE(d.s.upload(h.s).hasValue());
        return d;
    }

    [[nodiscard]] Polylines polylines() const { return {x.data(), y.data(), s.data()}; }
    [[nodiscard]] PredictionOutputs outputs(const PredictionHarness& h) const {
        return {positionMarginal.data(), speedMarginal.data(), points.data(), grid.data(),
                static_cast<std::size_t>(h.config.gridWidthCells) * static_cast<std::size_t>(h.config.gridHeightCells)};
    }

    platform::GpuStatus enqueue(const cuda::DeviceChain& chain, const PredictionHarness& h, const InputDynamics& psi,
                                platform::StreamHandle stream) const {
        return cuda::predict(chain, h.config, psi, corridors.data(), static_cast<int>(h.corridors.size()), polylines(),
                             h.placement, outputs(h), scratch.get(), scratch.bytes(), stream);
    }

    /// Downloads the outputs into `h`'s host vectors (of a second harness used as the sink).
    void download(PredictionHarness& h, platform::StreamHandle stream) const {
        ASSERT_TRUE(positionMarginal.download(h.positionMarginal, stream).hasValue());
        ASSERT_TRUE(speedMarginal.download(h.speedMarginal, stream).hasValue());
        ASSERT_TRUE(points.download(h.points, stream).hasValue());
        ASSERT_TRUE(grid.download(h.grid, stream).hasValue());
    }
};

void expectMatchesReference(const PredictionHarness& reference, const PredictionHarness& sut, int corridors) {
    const ChainConfig& c = reference.chainConfig;
    for (int k = 0; k < corridors; ++k) {
        for (int t = 0; t < reference.config.horizonSteps; ++t) {
            for (int is = 0; is < c.positionCells; ++is) {
                ASSERT_NEAR(sut.positionAt(k, t)[is], reference.positionAt(k, t)[is], MARGINAL_TOLERANCE)
                    << "corridor " << k << " step " << t << " s cell " << is;
            }
            for (int iv = 0; iv < c.speedCells; ++iv) {
                ASSERT_NEAR(sut.speedAt(k, t)[iv], reference.speedAt(k, t)[iv], MARGINAL_TOLERANCE)
                    << "corridor " << k << " step " << t << " v cell " << iv;
            }
            const CorridorPoint& a = sut.pointAt(k, t);
            const CorridorPoint& b = reference.pointAt(k, t);
            ASSERT_NEAR(a.sMean_m, b.sMean_m, POSITION_TOLERANCE_M) << k << "," << t;
            ASSERT_NEAR(a.sStd_m, b.sStd_m, POSITION_TOLERANCE_M) << k << "," << t;
            ASSERT_NEAR(a.x_m, b.x_m, POSITION_TOLERANCE_M) << k << "," << t;
            ASSERT_NEAR(a.y_m, b.y_m, POSITION_TOLERANCE_M) << k << "," << t;
        }
    }
    for (std::size_t i = 0; i < reference.grid.size(); ++i) {
        ASSERT_LE(std::abs(static_cast<int>(sut.grid[i]) - static_cast<int>(reference.grid[i])), GRID_TOLERANCE)
            << "grid cell " << i;
    }
}

/// Captures the prediction of `sut`'s corridors into a CUDA graph, replays it `replays` times, and
/// checks the result against the CPU `reference` and, bit for bit, against the direct launch `direct`
/// (fixed reduction orders and integer accumulation make replays identical to direct launches).
void expectGraphReplayMatches(const cuda::DeviceChain& chain, const InputDynamics& psi,
                              const PredictionHarness& reference, const PredictionHarness& direct,
                              PredictionHarness& sut, int corridors, int replays, const Stream& stream) {
    const auto device = DevicePrediction::upload(sut, sut.chainConfig);
    auto graph = platform::Graph::capture(stream.get(),
                                          [&](platform::StreamHandle s) { return device.enqueue(chain, sut, psi, s); });
    ASSERT_TRUE(graph.hasValue()) << platform::describe(graph.error());
    for (int replay = 0; replay < replays; ++replay) {
        ASSERT_TRUE(graph->launch(stream.get()).hasValue());
    }
    device.download(sut, stream.get());
    ASSERT_TRUE(stream.synchronize().hasValue());
    expectMatchesReference(reference, sut, corridors);
    EXPECT_EQ(sut.positionMarginal, direct.positionMarginal);
    EXPECT_EQ(sut.speedMarginal, direct.speedMarginal);
    EXPECT_EQ(sut.grid, direct.grid);
}

/// Whether GPU 0's shared memory per block holds the seed's resident block (196 KB): sm_90 and newer
/// (227 KB); sm_80 / sm_87 offer 163 KB, sm_86 / sm_89 99 KB, where the seed's chain runs tiled.
bool seedChainFitsOneBlock() {
    const auto info = platform::queryGpu(0);
    return info.hasValue() && info->computeMajor >= 9;
}

/// The prediction tests run on every propagation choice at the seed's size.
class MarkovGpu : public ::testing::TestWithParam<cuda::Propagation> {
protected:
    static constexpr int CORRIDORS = 9;  // not a multiple of the corridors a tiled thread propagates together

    void SetUp() override {
        AUGUR_REQUIRE_GPU();
        if (GetParam() != cuda::Propagation::Tiled && !seedChainFitsOneBlock()) {
            GTEST_SKIP() << "this GPU's shared memory per block cannot hold the seed's resident block";
        }
        auto built = MarkovChain::build(ChainConfig{});
        ASSERT_TRUE(built.hasValue());
        chain = std::make_unique<MarkovChain>(std::move(built).value());
        auto device = cuda::DeviceChain::create(*chain, GetParam());
        ASSERT_TRUE(device.hasValue());
        deviceChain = std::make_unique<cuda::DeviceChain>(std::move(device).value());
        ASSERT_EQ(deviceChain->propagation(), GetParam());
        auto created = Stream::create();
        ASSERT_TRUE(created.hasValue());
        stream = std::make_unique<Stream>(std::move(created).value());
    }

    PredictionHarness harness(int corridors, std::uint32_t seed) const {
        PredictionConfig p = testing::predictionFor(CORRIDORS);
        p.gridWidthCells = 128;
        p.gridHeightCells = 64;
        p.gridResolution_m = 1.0F;
        return testing::randomHarness(chain->config(), p, corridors, seed);
    }

    std::unique_ptr<MarkovChain> chain;
    std::unique_ptr<cuda::DeviceChain> deviceChain;
    std::unique_ptr<Stream> stream;
    InputDynamics psi = bandedInputDynamics(6, 0.7F);
};

std::string propagationName(const ::testing::TestParamInfo<cuda::Propagation>& info) {
    switch (info.param) {
        case cuda::Propagation::Resident: return "Resident";
        case cuda::Propagation::Tiled: return "Tiled";
        case cuda::Propagation::Auto: return "Auto";
    }
    return "Unknown";
}

// Auto keeps both paths and takes the resident one for any batch (the sm_90 policy's RESIDENT_MIN_CORRIDORS).
INSTANTIATE_TEST_SUITE_P(Paths, MarkovGpu,
                         ::testing::Values(cuda::Propagation::Resident, cuda::Propagation::Tiled, cuda::Propagation::Auto),
                         propagationName);

TEST_P(MarkovGpu, PredictionEqualsTheCpuReference) {
    PredictionHarness reference = harness(CORRIDORS, 31);
    reference.run(*chain, psi);
    PredictionHarness sut = harness(CORRIDORS, 31);
    const auto device = DevicePrediction::upload(sut, chain->config());
    const auto status = device.enqueue(*deviceChain, sut, psi, stream->get());
    ASSERT_TRUE(status.hasValue()) << platform::describe(status.error());
    device.download(sut, stream->get());
    ASSERT_TRUE(stream->synchronize().hasValue());
    expectMatchesReference(reference, sut, CORRIDORS);
}

TEST_P(MarkovGpu, CapturedGraphReplayEqualsTheCpuReferenceAndTheDirectLaunch) {
    PredictionHarness reference = harness(CORRIDORS, 47);
    reference.run(*chain, psi);
    PredictionHarness direct = harness(CORRIDORS, 47);
    const auto device = DevicePrediction::upload(direct, chain->config());
    ASSERT_TRUE(device.enqueue(*deviceChain, direct, psi, stream->get()).hasValue());
    device.download(direct, stream->get());
    ASSERT_TRUE(stream->synchronize().hasValue());

    PredictionHarness sut = harness(CORRIDORS, 47);
    expectGraphReplayMatches(*deviceChain, psi, reference, direct, sut, CORRIDORS, 2, *stream);
}

// The rules and ψ the runtime predicts with (cells' representative speeds, the free-road rule and its
// press, cruise-and-release inputs).
TEST_P(MarkovGpu, RuntimeRulesAndInputDynamicsEqualTheCpuReference) {
    const InputDynamics runtimePsi = relaxingInputDynamics(6, 0.1F / 30.0F, 0.1F / 2.0F, 0.001F);
    PriorityRules rules;
    rules.speed = RuleSpeed::Typical;
    rules.freeRoadExponent = 4.0F;
    rules.pressReaction_s = 0.5F;
    PredictionHarness reference = harness(CORRIDORS, 59);
    reference.config.rules = rules;
    reference.run(*chain, runtimePsi);
    PredictionHarness sut = harness(CORRIDORS, 59);
    sut.config.rules = rules;
    const auto device = DevicePrediction::upload(sut, chain->config());
    const auto status = device.enqueue(*deviceChain, sut, runtimePsi, stream->get());
    ASSERT_TRUE(status.hasValue()) << platform::describe(status.error());
    device.download(sut, stream->get());
    ASSERT_TRUE(stream->synchronize().hasValue());
    expectMatchesReference(reference, sut, CORRIDORS);
}

TEST_P(MarkovGpu, NoCorridorsGiveAnEmptyGrid) {
    PredictionHarness sut = harness(0, 1);
    auto device = DevicePrediction::upload(sut, chain->config());
    std::fill(sut.grid.begin(), sut.grid.end(), std::uint16_t{9});
    ASSERT_TRUE(device.grid.upload(sut.grid, stream->get()).hasValue());
    ASSERT_TRUE(device.enqueue(*deviceChain, sut, psi, stream->get()).hasValue());
    device.download(sut, stream->get());
    ASSERT_TRUE(stream->synchronize().hasValue());
    for (const auto cell : sut.grid) {
        ASSERT_EQ(cell, 0);
    }
}

TEST(MarkovGpuPropagation, SeedSizeChainKeepsBothPathsAndRunsEveryBatchResident) {
    AUGUR_REQUIRE_GPU();
    if (!seedChainFitsOneBlock()) {
        GTEST_SKIP() << "this GPU's shared memory per block cannot hold the seed's resident block";
    }
    const auto chain = MarkovChain::build(ChainConfig{});
    ASSERT_TRUE(chain.hasValue());
    const auto sut = cuda::DeviceChain::create(*chain);
    ASSERT_TRUE(sut.hasValue());
    EXPECT_EQ(sut->propagation(), cuda::Propagation::Auto);
    EXPECT_GT(sut->residentSharedBytes(), 0U);
    EXPECT_TRUE(sut->residentFor(1));
    EXPECT_TRUE(sut->residentFor(64));
    EXPECT_TRUE(sut->residentFor(512));
}

/// Auto with a batch large enough for the resident path, against the CPU reference.
TEST(MarkovGpuPropagation, AutoPropagationOfALargeBatchEqualsTheCpuReference) {
    AUGUR_REQUIRE_GPU();
    if (!seedChainFitsOneBlock()) {
        GTEST_SKIP() << "this GPU's shared memory per block cannot hold the seed's resident block";
    }
    constexpr int CORRIDORS = 32;
    const auto chain = MarkovChain::build(ChainConfig{});
    ASSERT_TRUE(chain.hasValue());
    const auto deviceChain = cuda::DeviceChain::create(*chain);
    ASSERT_TRUE(deviceChain.hasValue());
    ASSERT_TRUE(deviceChain->residentFor(CORRIDORS));
    auto stream = Stream::create();
    ASSERT_TRUE(stream.hasValue());
    const InputDynamics psi = bandedInputDynamics(chain->config().inputCells, 0.7F);
    const PredictionConfig p = testing::predictionFor(CORRIDORS);

    PredictionHarness reference = testing::randomHarness(chain->config(), p, CORRIDORS, 83);
    reference.run(*chain, psi);
    PredictionHarness sut = testing::randomHarness(chain->config(), p, CORRIDORS, 83);
    const auto device = DevicePrediction::upload(sut, chain->config());
    ASSERT_TRUE(device.enqueue(*deviceChain, sut, psi, stream->get()).hasValue());
    device.download(sut, stream->get());
    ASSERT_TRUE(stream->synchronize().hasValue());
    expectMatchesReference(reference, sut, CORRIDORS);
}

TEST(MarkovGpuPropagation, AForcedPolicyTakesThePathItsArchitectureWould) {
    AUGUR_REQUIRE_GPU();
    // The shipped chain (200 × 20 cells, 7 inputs) needs about 220 KB of shared memory per block on the
    // resident path: more than sm_87 gives a block (163 KB), so Orin's policy propagates it tiled on any
    // device, as an Orin would.
    const auto chain = MarkovChain::build(testing::deploymentChain());
    ASSERT_TRUE(chain.hasValue());
    kernels::forceTuningArch(kernels::TuningArch::Sm87);
    const auto orin = cuda::DeviceChain::create(*chain);
    kernels::forceTuningArch(std::nullopt);
    ASSERT_TRUE(orin.hasValue());
    EXPECT_EQ(orin->propagation(), cuda::Propagation::Tiled);
    EXPECT_FALSE(orin->residentFor(64));
}

TEST(MarkovGpuPropagation, MoreSpeedCellsThanAWarpFallBackToTiledAndCannotBeForcedResident) {
    AUGUR_REQUIRE_GPU();
    const auto chain = MarkovChain::build(testing::behaviourChain());  // n_v = 41
    ASSERT_TRUE(chain.hasValue());
    const auto automatic = cuda::DeviceChain::create(*chain);
    ASSERT_TRUE(automatic.hasValue());
    EXPECT_EQ(automatic->propagation(), cuda::Propagation::Tiled);
    EXPECT_FALSE(automatic->residentFor(256));
    const auto forced = cuda::DeviceChain::create(*chain, cuda::Propagation::Resident);
    ASSERT_FALSE(forced.hasValue());
    EXPECT_EQ(forced.error(), MarkovError::InvalidGrid);
}

/// A small grid (n_a = 3, 16 position cells) over 10 s: the mass reaches the absorbing last position
/// cell and every input mixes with every other, so all of the resident kernel's branches run.
TEST(MarkovGpuPropagation, ResidentPropagationOnASmallGridEqualsTheCpuReference) {
    AUGUR_REQUIRE_GPU();
    constexpr int CORRIDORS = 5;
    const ChainConfig config = testing::smallChain();
    const auto chain = MarkovChain::build(config);
    ASSERT_TRUE(chain.hasValue());
    const auto deviceChain = cuda::DeviceChain::create(*chain, cuda::Propagation::Resident);
    ASSERT_TRUE(deviceChain.hasValue());
    auto stream = Stream::create();
    ASSERT_TRUE(stream.hasValue());
    const InputDynamics psi = mixingInputDynamics(config.inputCells, 0.6F);
    const PredictionConfig p = testing::predictionFor(CORRIDORS);

    PredictionHarness reference = testing::randomHarness(config, p, CORRIDORS, 71);
    reference.run(*chain, psi);
    const int last = p.horizonSteps - 1;
    float absorbed = 0.0F;
    for (int k = 0; k < CORRIDORS; ++k) {
        absorbed = std::max(absorbed, reference.positionAt(k, last)[config.positionCells - 1]);
    }
    ASSERT_GT(absorbed, 0.1F) << "precondition: some corridor reaches the last position cell";

    PredictionHarness sut = testing::randomHarness(config, p, CORRIDORS, 71);
    const auto device = DevicePrediction::upload(sut, config);
    ASSERT_TRUE(device.enqueue(*deviceChain, sut, psi, stream->get()).hasValue());
    device.download(sut, stream->get());
    ASSERT_TRUE(stream->synchronize().hasValue());
    expectMatchesReference(reference, sut, CORRIDORS);
}

/// Whether GPU 0 launches thread-block clusters (sm_90 and newer).
bool clustersAvailable() {
    const auto info = platform::queryGpu(0);
    return info.hasValue() && info->computeMajor >= 9;
}

/// The resident path with each corridor on a cluster of GetParam() blocks.
class MarkovGpuCluster : public ::testing::TestWithParam<int> {
protected:
    void SetUp() override {
        AUGUR_REQUIRE_GPU();
        if (GetParam() > 1 && !clustersAvailable()) {
            GTEST_SKIP() << "this GPU launches no thread-block clusters";
        }
        auto created = Stream::create();
        ASSERT_TRUE(created.hasValue());
        stream = std::make_unique<Stream>(std::move(created).value());
    }

    /// The resident chain for `config` on clusters of GetParam() blocks (skips where it does not fit).
    std::unique_ptr<cuda::DeviceChain> residentChain(const MarkovChain& chain) const {
        auto device = cuda::DeviceChain::create(chain, cuda::Propagation::Resident, GetParam());
        if (!device.hasValue()) {
            return nullptr;
        }
        return std::make_unique<cuda::DeviceChain>(std::move(device).value());
    }

    /// Runs `sut` on the device (its corridors already set) and downloads the outputs into it.
    void predictOnDevice(const cuda::DeviceChain& chain, PredictionHarness& sut, const InputDynamics& psi) const {
        const auto device = DevicePrediction::upload(sut, sut.chainConfig);
        const auto status = device.enqueue(chain, sut, psi, stream->get());
        ASSERT_TRUE(status.hasValue()) << platform::describe(status.error());
        device.download(sut, stream->get());
        ASSERT_TRUE(stream->synchronize().hasValue());
    }

    std::unique_ptr<Stream> stream;
};

std::string clusterName(const ::testing::TestParamInfo<int>& info) { return "Blocks" + std::to_string(info.param); }

INSTANTIATE_TEST_SUITE_P(ClusterSizes, MarkovGpuCluster, ::testing::Values(1, 2, 4, 8), clusterName);

TEST_P(MarkovGpuCluster, SeedSizePredictionEqualsTheCpuReference) {
    constexpr int CORRIDORS = 9;
    if (!seedChainFitsOneBlock()) {
        GTEST_SKIP() << "this GPU's shared memory per block cannot hold the seed's resident block";
    }
    const auto chain = MarkovChain::build(ChainConfig{});
    ASSERT_TRUE(chain.hasValue());
    const auto deviceChain = residentChain(*chain);
    ASSERT_NE(deviceChain, nullptr);
    ASSERT_EQ(deviceChain->residentClusterBlocks(CORRIDORS), GetParam());
    const InputDynamics psi = bandedInputDynamics(chain->config().inputCells, 0.7F);
    const PredictionConfig p = testing::predictionFor(CORRIDORS);

    PredictionHarness reference = testing::randomHarness(chain->config(), p, CORRIDORS, 101);
    reference.run(*chain, psi);
    PredictionHarness sut = testing::randomHarness(chain->config(), p, CORRIDORS, 101);
    predictOnDevice(*deviceChain, sut, psi);
    expectMatchesReference(reference, sut, CORRIDORS);
}

/// n_a = 3, 16 position cells in chunks of 4 rows over 10 s: the mass reaches the absorbing last cell,
/// whose sources straddle a chunk boundary; with 8 blocks, half of them own no row at all.
TEST_P(MarkovGpuCluster, SmallGridReachingTheLastCellEqualsTheCpuReference) {
    constexpr int CORRIDORS = 5;
    const ChainConfig config = testing::smallChain();
    const auto chain = MarkovChain::build(config);
    ASSERT_TRUE(chain.hasValue());
    const auto deviceChain = residentChain(*chain);
    ASSERT_NE(deviceChain, nullptr);
    const InputDynamics psi = mixingInputDynamics(config.inputCells, 0.6F);
    const PredictionConfig p = testing::predictionFor(CORRIDORS);

    PredictionHarness reference = testing::randomHarness(config, p, CORRIDORS, 71);
    reference.run(*chain, psi);
    float absorbed = 0.0F;
    for (int k = 0; k < CORRIDORS; ++k) {
        absorbed = std::max(absorbed, reference.positionAt(k, p.horizonSteps - 1)[config.positionCells - 1]);
    }
    ASSERT_GT(absorbed, 0.1F) << "precondition: some corridor reaches the last position cell";
    PredictionHarness sut = testing::randomHarness(config, p, CORRIDORS, 71);
    predictOnDevice(*deviceChain, sut, psi);
    expectMatchesReference(reference, sut, CORRIDORS);
}

/// A cluster computes every position row exactly as one block does (the halo rows are copies): the
/// position marginals and the grid are bit-identical to one block per corridor, the speed marginals
/// (partial sums per block, added in another order) equal within float rounding.
TEST_P(MarkovGpuCluster, ClusterGivesTheSameRowsBitForBitAsOneBlock) {
    constexpr int CORRIDORS = 7;
    if (!seedChainFitsOneBlock()) {
        GTEST_SKIP() << "this GPU's shared memory per block cannot hold the seed's resident block";
    }
    const auto chain = MarkovChain::build(ChainConfig{});
    ASSERT_TRUE(chain.hasValue());
    const auto deviceChain = residentChain(*chain);
    ASSERT_NE(deviceChain, nullptr);
    const auto oneBlock = cuda::DeviceChain::create(*chain, cuda::Propagation::Resident, 1);
    ASSERT_TRUE(oneBlock.hasValue());
    const InputDynamics psi = mixingInputDynamics(chain->config().inputCells, 0.5F);
    const PredictionConfig p = testing::predictionFor(CORRIDORS);

    PredictionHarness expected = testing::randomHarness(chain->config(), p, CORRIDORS, 5);
    predictOnDevice(*oneBlock, expected, psi);
    PredictionHarness sut = testing::randomHarness(chain->config(), p, CORRIDORS, 5);
    predictOnDevice(*deviceChain, sut, psi);
    EXPECT_EQ(sut.positionMarginal, expected.positionMarginal);
    EXPECT_EQ(sut.grid, expected.grid);
    for (std::size_t i = 0; i < sut.speedMarginal.size(); ++i) {
        ASSERT_NEAR(sut.speedMarginal[i], expected.speedMarginal[i], MARGINAL_TOLERANCE) << "speed marginal " << i;
    }
}

TEST_P(MarkovGpuCluster, CapturedGraphReplayIsBitIdenticalToTheDirectLaunch) {
    constexpr int CORRIDORS = 6;
    if (!seedChainFitsOneBlock()) {
        GTEST_SKIP() << "this GPU's shared memory per block cannot hold the seed's resident block";
    }
    const auto chain = MarkovChain::build(ChainConfig{});
    ASSERT_TRUE(chain.hasValue());
    const auto deviceChain = residentChain(*chain);
    ASSERT_NE(deviceChain, nullptr);
    const InputDynamics psi = bandedInputDynamics(chain->config().inputCells, 0.7F);
    const PredictionConfig p = testing::predictionFor(CORRIDORS);

    PredictionHarness reference = testing::randomHarness(chain->config(), p, CORRIDORS, 13);
    reference.run(*chain, psi);
    PredictionHarness direct = testing::randomHarness(chain->config(), p, CORRIDORS, 13);
    predictOnDevice(*deviceChain, direct, psi);

    PredictionHarness sut = testing::randomHarness(chain->config(), p, CORRIDORS, 13);
    expectGraphReplayMatches(*deviceChain, psi, reference, direct, sut, CORRIDORS, 3, *stream);
}

TEST(MarkovGpuPropagation, AutoClusterSizeIsTheLargestWithWhichAllCorridorsRunAtOnce) {
    AUGUR_REQUIRE_GPU();
    if (!seedChainFitsOneBlock()) {
        GTEST_SKIP() << "this GPU's shared memory per block cannot hold the seed's resident block";
    }
    const auto chain = MarkovChain::build(ChainConfig{});
    ASSERT_TRUE(chain.hasValue());
    const auto sut = cuda::DeviceChain::create(*chain, cuda::Propagation::Resident);
    ASSERT_TRUE(sut.hasValue());
    const int oneBlockEach = sut->maxActiveResidentCorridors(1);
    ASSERT_GT(oneBlockEach, 0);
    for (const int corridors : {1, 2, 9, 16, 33, 64, 100, oneBlockEach, oneBlockEach + 1, 4 * oneBlockEach}) {
        const int blocks = sut->residentClusterBlocks(corridors);
        ASSERT_TRUE(blocks == 1 || blocks == 2 || blocks == 4 || blocks == 8) << corridors;
        if (blocks > 1) {
            EXPECT_LE(corridors, sut->maxActiveResidentCorridors(blocks)) << corridors << " corridors on " << blocks;
        }
        for (int larger = blocks * 2; larger <= 8; larger *= 2) {
            EXPECT_GT(corridors, sut->maxActiveResidentCorridors(larger)) << corridors << " corridors would fit " << larger;
        }
    }
    EXPECT_EQ(sut->residentClusterBlocks(4 * oneBlockEach), 1);
    if (clustersAvailable()) {
        EXPECT_GT(sut->residentClusterBlocks(1), 1) << "one corridor is spread over a cluster";
    }
}

TEST(MarkovGpuPropagation, ClusterSizeOtherThanAPowerOfTwoUpToEightIsRejected) {
    AUGUR_REQUIRE_GPU();
    const auto chain = MarkovChain::build(testing::smallChain());
    ASSERT_TRUE(chain.hasValue());
    for (const int blocks : {-1, 3, 6, 16}) {
        const auto sut = cuda::DeviceChain::create(*chain, cuda::Propagation::Resident, blocks);
        ASSERT_FALSE(sut.hasValue()) << blocks;
        EXPECT_EQ(sut.error(), MarkovError::InvalidGrid);
    }
}

TEST(MarkovGpuPropagation, ClustersOnAGpuWithoutClusterLaunchAreRejected) {
    AUGUR_REQUIRE_GPU();
    if (clustersAvailable()) {
        GTEST_SKIP() << "this GPU launches clusters (the case needs one before sm_90)";
    }
    const auto chain = MarkovChain::build(testing::smallChain());
    ASSERT_TRUE(chain.hasValue());
    const auto sut = cuda::DeviceChain::create(*chain, cuda::Propagation::Resident, 2);
    ASSERT_FALSE(sut.hasValue());
    EXPECT_EQ(sut.error(), MarkovError::InvalidGrid);
    const auto automatic = cuda::DeviceChain::create(*chain);
    ASSERT_TRUE(automatic.hasValue());
    EXPECT_EQ(automatic->residentClusterBlocks(1), 1);
}

/// The combination and λ kernels at the seed's size.
class MarkovGpuCombination : public ::testing::Test {
protected:
    void SetUp() override {
        AUGUR_REQUIRE_GPU();
        auto built = MarkovChain::build(ChainConfig{});
        ASSERT_TRUE(built.hasValue());
        chain = std::make_unique<MarkovChain>(std::move(built).value());
        auto created = Stream::create();
        ASSERT_TRUE(created.hasValue());
        stream = std::make_unique<Stream>(std::move(created).value());
    }

    std::unique_ptr<MarkovChain> chain;
    std::unique_ptr<Stream> stream;
};

TEST_F(MarkovGpuCombination, CombinationEqualsTheCpuCombination) {
    const int cells = chain->cellCount();
    std::mt19937 rng(17);
    std::uniform_real_distribution<float> unit(0.0F, 1.0F);
    for (const int na : {1, 3, 6, MAX_INPUT_CELLS}) {  // odd n_a² takes the scalar stores
        const InputDynamics dynamics = mixingInputDynamics(na, 0.5F);
        std::vector<float> lambda(static_cast<std::size_t>(cells * na));
        for (auto& l : lambda) {
            l = unit(rng) < 0.2F ? 0.0F : unit(rng);
        }
        auto lambdaDevice = DeviceBuffer<float>::create(lambda.size()).value();
        auto gammaDevice = DeviceBuffer<float>::create(static_cast<std::size_t>(cells * na * na)).value();
        ASSERT_TRUE(lambdaDevice.upload(lambda, stream->get()).hasValue());
        for (const bool renormalise : {false, true}) {
            std::vector<float> expected(static_cast<std::size_t>(cells * na * na));
            cpu::combineInputTransition(lambda, dynamics, na, cells, expected, renormalise);
            std::vector<float> sut(expected.size(), std::nanf(""));  // poisoned: every entry must be written
            ASSERT_TRUE(gammaDevice.upload(sut, stream->get()).hasValue());
            ASSERT_TRUE(cuda::combineInputTransition(lambdaDevice.data(), dynamics, na, cells, gammaDevice.data(), renormalise,
                                                     stream->get())
                            .hasValue());
            ASSERT_TRUE(gammaDevice.download(sut, stream->get()).hasValue());
            ASSERT_TRUE(stream->synchronize().hasValue());
            for (std::size_t i = 0; i < sut.size(); ++i) {
                ASSERT_NEAR(sut[i], expected[i], 1e-6F) << "n_a " << na << " Γ_" << i << (renormalise ? " renormalised" : "");
            }
        }
    }
}

TEST_F(MarkovGpuCombination, PriorityVectorEqualsTheCpuPriorityVector) {
    const ChainConfig& c = chain->config();
    const int n = chain->stateCount();
    std::vector<CorridorInput> corridors(4);
    testing::randomiseCorridors(corridors, c, 23);
    auto lambdaDevice = DeviceBuffer<float>::create(static_cast<std::size_t>(n)).value();
    for (const auto& corridor : corridors) {
        constexpr float TIME_S = 1.3F;
        std::vector<float> expected(static_cast<std::size_t>(n));
        for (const bool representative : {false, true}) {
            PriorityRules rules{};
            rules.speed = representative ? RuleSpeed::Typical : RuleSpeed::FarCorner;
            cpu::priorityVector(c, corridor.constraints, rules, TIME_S, expected);
            ASSERT_TRUE(
                cuda::priorityVector(c, corridor.constraints, rules, TIME_S, lambdaDevice.data(), stream->get()).hasValue());
            std::vector<float> sut(expected.size());
            ASSERT_TRUE(lambdaDevice.download(sut, stream->get()).hasValue());
            ASSERT_TRUE(stream->synchronize().hasValue());
            for (std::size_t r = 0; r < sut.size(); ++r) {
                ASSERT_NEAR(sut[r], expected[r], 1e-6F) << "state " << r << (representative ? " (representative)" : "");
            }
        }
    }
}

}  // namespace
}  // namespace augur::kernels::markov
