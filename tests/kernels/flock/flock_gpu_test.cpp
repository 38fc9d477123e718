// FlockFinder on the CUDA backend (potential flocks, intersections, maximal sets and ordering all on
// the device) equals the CPU reference (as sets, and in fact in order), directly and with the
// per-batch work replayed as CUDA graphs, from host or device-resident input; small instances also
// equal the oracle; pools that are too small are reported; the run phase allocates nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <ostream>
#include <random>
#include <span>
#include <string>

#include "augur/kernels/flock/flock_finder.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"
#include "augur/testing/testing.hpp"
#include "augur/testing/allocation_counter.hpp"
#include "flock_oracle.hpp"
#include "flock_test_support.hpp"

namespace augur::kernels::flock {
namespace {

using testing::Instance;
using testing::testCapacities;
using testing::toSets;

constexpr std::size_t LIST_FLOCKS = 1 << 16;
constexpr std::size_t LIST_MEMBERS = 1 << 20;

testing::FlockSetList detect(const TrajectoryView& view, const FlockParams& params, const FlockCapacities& capacities,
                             Backend backend, bool useGraph, platform::StreamHandle stream) {
    auto sut = FlockFinder::create(params, capacities, backend, FlockOptions{useGraph});
    EXPECT_TRUE(sut.hasValue());
    if (!sut) {
        return {};
    }
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    const auto stats = sut->find(view, list, stream);
    EXPECT_TRUE(stats.hasValue());
    return toSets(list);
}

/// A per-step shared-memory budget too small for any step: every step goes to the global workspaces.
constexpr int SHARED_NONE = 16;
/// … and one large enough for every step of the tests that use it (sm_87 and sm_90 allow it per block).
constexpr int SHARED_ALL = 144 * 1024;

/// Groups of 8 entities (spread `spread_m`, leaving and rejoining with probability `leave` per step)
/// among walkers moving 3 m per step, at one entity per 40 m × 40 m; `missing`: samples left out.
SyntheticSpec groupedSpec(int entities, int steps, int groups, double spread_m, double leave, double missing, std::uint64_t seed) {
    SyntheticSpec spec;
    spec.entities = entities;
    spec.steps = steps;
    spec.groups = groups;
    spec.groupSize = 8;
    spec.area_m = 40.0 * std::sqrt(static_cast<double>(entities));
    spec.groupSpread_m = spread_m;
    spec.stepLength_m = 3.0;
    spec.leaveProbability = leave;
    spec.missingProbability = missing;
    spec.seed = seed;
    return spec;
}

/// testCapacities with room for dense instances' intersections: the CPU workers' families and the CUDA
/// intersection pools (about 65 sets per step: up to 65² intersections per window).
FlockCapacities denseCapacities(int entities, int batchSteps) {
    FlockCapacities capacities = testCapacities(entities, batchSteps, 4);
    capacities.maxWorkSets = 1 << 16;
    capacities.maxWorkMembers = 1 << 20;
    capacities.maxIntersectSetsPerBatch = 1 << 18;
    capacities.maxIntersectMembersPerBatch = 1 << 21;
    return capacities;
}

/// A CUDA finder with `options` run once over `view` into `list` (an init failure fails the test and
/// returns nullopt).
std::optional<Result<FlockStats, FlockFailure>> findOnCuda(const TrajectoryView& view, const FlockParams& params,
                                                           const FlockCapacities& capacities, const FlockOptions& options,
                                                           FlockList& list) {
    auto sut = FlockFinder::create(params, capacities, Backend::Cuda, options);
    EXPECT_TRUE(sut.hasValue());
    if (!sut) {
        return std::nullopt;
    }
    return sut->find(view, list, nullptr);
}

testing::FlockSetList detectWith(const TrajectoryView& view, const FlockParams& params, const FlockCapacities& capacities,
                                 const FlockOptions& options, FlockStats* stats = nullptr) {
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    const auto result = findOnCuda(view, params, capacities, options, list);
    if (!result) {
        return {};
    }
    EXPECT_TRUE(result->hasValue());
    if (*result && stats != nullptr) {
        *stats = **result;
    }
    return toSets(list);
}

/// Trajectories copied into device memory, viewed as findOnDevice expects.
struct DeviceTrajectories {
    platform::DeviceBuffer<double> x;
    platform::DeviceBuffer<double> y;
    platform::DeviceBuffer<std::uint8_t> present;
    int entities{0};
    int steps{0};

    static DeviceTrajectories upload(const TrajectoryView& view) {
        const auto samples = static_cast<std::size_t>(view.entityCount) * static_cast<std::size_t>(view.stepCount);
        DeviceTrajectories d;
        d.x = std::move(platform::DeviceBuffer<double>::create(samples)).value();
        d.y = std::move(platform::DeviceBuffer<double>::create(samples)).value();
        d.present = std::move(platform::DeviceBuffer<std::uint8_t>::create(samples)).value();
        EXPECT_TRUE(d.x.upload(std::span<const double>(view.x_m, samples)).hasValue());
        EXPECT_TRUE(d.y.upload(std::span<const double>(view.y_m, samples)).hasValue());
        if (view.present != nullptr) {
            EXPECT_TRUE(d.present.upload(std::span<const std::uint8_t>(view.present, samples)).hasValue());
        }
        d.entities = view.entityCount;
        d.steps = view.stepCount;
        return d;
    }
    [[nodiscard]] TrajectoryView view(bool withPresent) const {
        return {x.data(), y.data(), withPresent ? present.data() : nullptr, entities, steps};
    }
};

testing::FlockSetList detectOnDevice(const TrajectoryView& deviceView, const FlockParams& params, const FlockCapacities& capacities,
                                     bool useGraph, platform::StreamHandle stream) {
    auto sut = FlockFinder::create(params, capacities, Backend::Cuda, FlockOptions{useGraph});
    EXPECT_TRUE(sut.hasValue());
    if (!sut) {
        return {};
    }
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    const auto stats = sut->findOnDevice(deviceView, list, stream);
    EXPECT_TRUE(stats.hasValue());
    return toSets(list);
}

/// Runs find on the CUDA backend and returns its failure (the test fails if it succeeds).
FlockFailure cudaFailure(const TrajectoryView& view, const FlockParams& params, const FlockCapacities& capacities,
                         const FlockOptions& options) {
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    const auto result = findOnCuda(view, params, capacities, options, list);
    if (!result) {
        return {};
    }
    EXPECT_TRUE(result->hasError());
    EXPECT_EQ(list.size(), 0U);
    return result->hasError() ? result->error() : FlockFailure{};
}

struct GpuCase {
    int entities;
    int steps;
    int minEntities;
    int windowSteps;
    double radius_m;
    int batchSteps;
    double missing;
};

std::string caseName(const GpuCase& c) {
    char name[96];
    std::snprintf(name, sizeof(name), "n%d_steps%d_mu%d_delta%d_batch%d", c.entities, c.steps, c.minEntities, c.windowSteps,
                  c.batchSteps);
    return name;
}
void PrintTo(const GpuCase& c, std::ostream* os) { *os << caseName(c); }

class FlockGpu : public ::testing::TestWithParam<GpuCase> {};

TEST_P(FlockGpu, EqualsCpuReferenceDirectAndUnderGraphReplay) {
    AUGUR_REQUIRE_GPU();
    constexpr int SEEDS = 3;
    const GpuCase c = GetParam();
    auto stream = platform::Stream::create();
    ASSERT_TRUE(stream.hasValue());
    for (int seed = 1; seed <= SEEDS; ++seed) {
        // A whole group fits in one disk, give or take the jitter.
        const SyntheticTrajectories t = generateTrajectories(
            groupedSpec(c.entities, c.steps, c.entities / 20 + 1, c.radius_m, 0.01, c.missing, static_cast<std::uint64_t>(seed)));
        const FlockParams params{c.minEntities, c.windowSteps, c.radius_m};
        FlockCapacities capacities = testCapacities(c.entities, c.batchSteps, 4);
        capacities.maxFamilySetsPerBatch = 1 << 17;
        capacities.maxFamilyMembersPerBatch = 1 << 21;
        const auto expected = detect(t.view(), params, capacities, Backend::Cpu, false, nullptr);
        EXPECT_FALSE(expected.empty()) << "seed " << seed;
        EXPECT_EQ(detect(t.view(), params, capacities, Backend::Cuda, false, stream->get()), expected) << "seed " << seed;
        EXPECT_EQ(detect(t.view(), params, capacities, Backend::Cuda, true, stream->get()), expected) << "seed " << seed;
    }
}

INSTANTIATE_TEST_SUITE_P(SeededInstances, FlockGpu,
                         ::testing::Values(GpuCase{40, 30, 3, 1, 1.0, 64, 0.0}, GpuCase{100, 60, 3, 4, 1.0, 16, 0.02},
                                           GpuCase{300, 50, 4, 5, 2.0, 50, 0.0}, GpuCase{150, 80, 2, 3, 1.5, 9, 0.05},
                                           GpuCase{500, 20, 5, 20, 2.0, 20, 0.0}, GpuCase{200, 40, 3, 7, 1.5, 12, 0.02},
                                           GpuCase{150, 50, 3, 13, 1.5, 20, 0.0}),
                         [](const ::testing::TestParamInfo<GpuCase>& param) { return caseName(param.param); });

TEST(FlockGpuDevice, DeviceResidentInputEqualsCpuReferenceDirectAndUnderGraphReplay) {
    AUGUR_REQUIRE_GPU();
    constexpr int SEEDS = 3;
    constexpr int ENTITIES = 200;
    constexpr int STEPS = 70;
    constexpr int BATCH_STEPS = 24;  // several batches, overlapping by δ - 1
    auto stream = platform::Stream::create();
    ASSERT_TRUE(stream.hasValue());
    for (int seed = 1; seed <= SEEDS; ++seed) {
        const SyntheticTrajectories t =
            generateTrajectories(groupedSpec(ENTITIES, STEPS, 12, 1.5, 0.02, 0.02, static_cast<std::uint64_t>(seed)));
        const FlockParams params{3, 5, 1.5};
        const FlockCapacities capacities = testCapacities(ENTITIES, BATCH_STEPS, 4);
        const auto expected = detect(t.view(), params, capacities, Backend::Cpu, false, nullptr);
        EXPECT_FALSE(expected.empty()) << "seed " << seed;
        const DeviceTrajectories device = DeviceTrajectories::upload(t.view());
        EXPECT_EQ(detectOnDevice(device.view(true), params, capacities, false, stream->get()), expected) << "seed " << seed;
        EXPECT_EQ(detectOnDevice(device.view(true), params, capacities, true, stream->get()), expected) << "seed " << seed;
    }
}

/// Flock by flock the same records (window, member offset and count) and members.
void expectSameList(const FlockList& a, const FlockList& b, const std::string& what) {
    ASSERT_EQ(a.size(), b.size()) << what;
    EXPECT_EQ(a.memberCount(), b.memberCount()) << what;
    for (std::size_t i = 0; i < a.size(); ++i) {
        const Flock& fa = a.flocks()[i];
        const Flock& fb = b.flocks()[i];
        EXPECT_EQ(fa.windowStart, fb.windowStart) << what << ", flock " << i;
        EXPECT_EQ(fa.memberOffset, fb.memberOffset) << what << ", flock " << i;
        const auto ma = a.members(fa);
        const auto mb = b.members(fb);
        EXPECT_TRUE(std::equal(ma.begin(), ma.end(), mb.begin(), mb.end())) << what << ", flock " << i;
    }
}

// A pinned list receives the download directly: over several batches (member offsets continue from
// batch to batch) it holds the same flocks, record by record, as a pageable one, from host and from
// device input, direct and under graphs; a pinned list that is too small is reported full and left empty.
TEST(FlockGpuDevice, PinnedListHoldsTheSameFlocksAsAPageableOne) {
    AUGUR_REQUIRE_GPU();
    constexpr int ENTITIES = 200;
    constexpr int STEPS = 70;
    constexpr int BATCH_STEPS = 24;
    const SyntheticTrajectories t = generateTrajectories(groupedSpec(ENTITIES, STEPS, 12, 1.5, 0.02, 0.02, 5));
    const FlockParams params{3, 5, 1.5};
    const FlockCapacities capacities = testCapacities(ENTITIES, BATCH_STEPS, 4);
    const DeviceTrajectories device = DeviceTrajectories::upload(t.view());
    const auto expected = detect(t.view(), params, capacities, Backend::Cpu, false, nullptr);
    ASSERT_FALSE(expected.empty());
    for (const bool useGraph : {false, true}) {
        auto sut = FlockFinder::create(params, capacities, Backend::Cuda, FlockOptions{useGraph});
        ASSERT_TRUE(sut.hasValue());
        FlockList pageable = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
        auto pinned = FlockList::createPinned(LIST_FLOCKS, LIST_MEMBERS);
        ASSERT_TRUE(pinned.hasValue());
        EXPECT_TRUE(pinned->pinned());
        const auto batches = sut->find(t.view(), pageable, nullptr);
        ASSERT_TRUE(batches.hasValue());
        EXPECT_GT(batches->batches, 2);
        ASSERT_TRUE(sut->find(t.view(), *pinned, nullptr).hasValue());
        EXPECT_EQ(toSets(*pinned), expected) << "graph " << useGraph;
        expectSameList(pageable, *pinned, useGraph ? "host input, graph" : "host input");
        ASSERT_TRUE(sut->findOnDevice(device.view(true), *pinned, nullptr).hasValue());
        expectSameList(pageable, *pinned, useGraph ? "device input, graph" : "device input");

        auto fewMembers = FlockList::createPinned(LIST_FLOCKS, pageable.memberCount() - 1);
        ASSERT_TRUE(fewMembers.hasValue());
        const auto full = sut->find(t.view(), *fewMembers, nullptr);
        ASSERT_TRUE(full.hasError());
        EXPECT_EQ(full.error().capacity, Capacity::OutputMembers);
        EXPECT_EQ(fewMembers->size(), 0U);
        auto fewFlocks = FlockList::createPinned(pageable.size() - 1, LIST_MEMBERS);
        ASSERT_TRUE(fewFlocks.hasValue());
        const auto fullOfFlocks = sut->findOnDevice(device.view(true), *fewFlocks, nullptr);
        ASSERT_TRUE(fullOfFlocks.hasError());
        EXPECT_EQ(fullOfFlocks.error().capacity, Capacity::OutputFlocks);
        EXPECT_EQ(fewFlocks->size(), 0U);
    }
}

TEST(FlockGpuDevice, InputWithoutPresenceMaskMeansAllPresent) {
    AUGUR_REQUIRE_GPU();
    const Instance instance = testing::randomInstance(30, 12, 4.0, 0.0, 7);
    const FlockParams params{3, 3, 1.0};
    const auto expected = detect(instance.view(), params, testCapacities(30), Backend::Cpu, false, nullptr);
    EXPECT_FALSE(expected.empty());
    const DeviceTrajectories device = DeviceTrajectories::upload(instance.view());
    EXPECT_EQ(detectOnDevice(device.view(false), params, testCapacities(30), true, nullptr), expected);
    TrajectoryView host = instance.view();  // host input without a mask too (nothing of it is uploaded)
    host.present = nullptr;
    EXPECT_EQ(detect(host, params, testCapacities(30), Backend::Cuda, true, nullptr), expected);
}

// Dense instances: large, heavily overlapping families per step, so that the intersections produce
// many duplicates and nested sets for the device's maximal-set filter and lexicographic ranking.
TEST(FlockGpuIntersections, DenseOverlappingFamiliesEqualCpuReference) {
    AUGUR_REQUIRE_GPU();
    constexpr int INSTANCES = 4;
    constexpr int ENTITIES = 60;
    constexpr int STEPS = 16;
    auto stream = platform::Stream::create();
    ASSERT_TRUE(stream.hasValue());
    for (int seed = 1; seed <= INSTANCES; ++seed) {
        const Instance instance = testing::randomInstance(ENTITIES, STEPS, 5.0, 0.03, static_cast<std::uint64_t>(100 + seed));
        for (const int delta : {1, 2, 3, 4, 7, STEPS}) {
            const FlockParams params{3, delta, 1.0};
            const FlockCapacities capacities = denseCapacities(ENTITIES, 8 + delta);
            const auto expected = detect(instance.view(), params, capacities, Backend::Cpu, false, nullptr);
            EXPECT_EQ(detect(instance.view(), params, capacities, Backend::Cuda, false, stream->get()), expected)
                << "seed " << seed << " delta " << delta;
            EXPECT_EQ(detect(instance.view(), params, capacities, Backend::Cuda, true, stream->get()), expected)
                << "seed " << seed << " delta " << delta;
        }
    }
}

// Large families (about 390 sets and 2,400 members per step, more in the intersection levels): many
// warps per position, many lanes per set.
TEST(FlockGpuIntersections, LargeFamiliesEqualCpuReference) {
    AUGUR_REQUIRE_GPU();
    constexpr int ENTITIES = 200;
    constexpr int STEPS = 6;
    constexpr double SIDE_M = 10.0;
    const Instance instance = testing::randomInstance(ENTITIES, STEPS, SIDE_M, 0.02, 5);
    FlockCapacities capacities = testCapacities(ENTITIES, STEPS, 4);
    capacities.maxDisksPerStep = 1 << 16;
    capacities.maxCandidateMembersPerStep = 1 << 20;
    capacities.maxFamilySetsPerBatch = 1 << 16;
    capacities.maxFamilyMembersPerBatch = 1 << 20;
    capacities.maxWorkSets = 1 << 16;
    capacities.maxWorkMembers = 1 << 20;
    capacities.maxIntersectSetsPerBatch = 1 << 20;
    capacities.maxIntersectMembersPerBatch = 1 << 23;
    capacities.maxFlocksPerBatch = 1 << 16;
    capacities.maxFlockMembersPerBatch = 1 << 20;
    for (const int delta : {2, 3, STEPS}) {
        const FlockParams params{3, delta, 1.0};
        const auto expected = detect(instance.view(), params, capacities, Backend::Cpu, false, nullptr);
        EXPECT_FALSE(expected.empty()) << "delta " << delta;
        EXPECT_EQ(detect(instance.view(), params, capacities, Backend::Cuda, false, nullptr), expected) << "delta " << delta;
        EXPECT_EQ(detect(instance.view(), params, capacities, Backend::Cuda, true, nullptr), expected) << "delta " << delta;
    }
}

// Grids with far fewer cells than the data needs (cells from about 1.5 ε to 6 ε, searched ±2 or ±1
// cells) give the oracle's flocks, directly and under graph replay.
TEST(FlockGpuOracle, CoarseGridsEqualTheBruteForceOracle) {
    AUGUR_REQUIRE_GPU();
    constexpr int INSTANCES = 4;
    constexpr int ENTITIES = 12;
    constexpr int STEPS = 6;
    constexpr double SIDE_M = 6.0;
    constexpr int GRID_CELLS[] = {4, 9, 16, 25};
    const FlockParams params{2, 2, 1.0};
    for (const int cells : GRID_CELLS) {
        for (int seed = 1; seed <= INSTANCES; ++seed) {
            const Instance instance = testing::randomInstance(ENTITIES, STEPS, SIDE_M, 0.0, static_cast<std::uint64_t>(seed));
            FlockCapacities capacities = testCapacities(ENTITIES);
            capacities.gridCellsPerStep = cells;
            const auto expected = testing::bruteForceFlocks(instance.view(), params);
            for (const bool useGraph : {false, true}) {
                EXPECT_EQ(detect(instance.view(), params, capacities, Backend::Cuda, useGraph, nullptr), expected)
                    << cells << " cells, seed " << seed << ", graph " << useGraph;
            }
        }
    }
}

TEST(FlockGpuEdges, FewerEntitiesThanMinimumNoEntitiesAndTooFewStepsGiveNoFlock) {
    AUGUR_REQUIRE_GPU();
    const Instance together(3, 4);  // all at the origin
    const Instance empty(0, 5);
    const Instance shortRun(3, 2);
    EXPECT_TRUE(detect(together.view(), {4, 2, 1.0}, testCapacities(3), Backend::Cuda, true, nullptr).empty());
    EXPECT_TRUE(detect(empty.view(), {2, 2, 1.0}, testCapacities(1), Backend::Cuda, true, nullptr).empty());
    EXPECT_TRUE(detect(shortRun.view(), {2, 3, 1.0}, testCapacities(3), Backend::Cuda, true, nullptr).empty());
}

TEST(FlockGpuEdges, NonFinitePresentSampleIsInvalidInputButAMissingOneIsIgnored) {
    AUGUR_REQUIRE_GPU();
    Instance instance(3, 2);
    instance.x[instance.index(1, 1)] = std::numeric_limits<double>::quiet_NaN();
    const FlockParams params{2, 1, 1.0};
    for (const bool useGraph : {false, true}) {
        EXPECT_EQ(cudaFailure(instance.view(), params, testCapacities(3), FlockOptions{useGraph}).error, FlockError::InvalidInput);
    }
    instance.remove(1, 1);
    const testing::FlockSetList expected{{0, {0, 1, 2}}, {1, {0, 2}}};
    EXPECT_EQ(detect(instance.view(), params, testCapacities(3), Backend::Cuda, true, nullptr), expected);
}

// 40 coincident entities over 4 steps, δ = 2: one potential flock of 40 per step, hence one
// intersection of 40 members in each of the 3 windows (3 sets, 120 members at level 1).
TEST(FlockGpuCapacity, IntersectionAndOutputPoolOverflowsAreReportedWithTheNeededSize) {
    AUGUR_REQUIRE_GPU();
    constexpr int ENTITIES = 40;
    constexpr int STEPS = 4;
    constexpr std::int64_t WINDOWS = 3;
    constexpr std::int64_t MEMBERS = WINDOWS * ENTITIES;
    const Instance instance(ENTITIES, STEPS);
    const FlockParams params{2, 2, 1.0};
    for (const bool useGraph : {false, true}) {
        FlockCapacities sets = testCapacities(ENTITIES);
        sets.maxIntersectSetsPerBatch = WINDOWS - 1;
        const FlockFailure setsFailure = cudaFailure(instance.view(), params, sets, FlockOptions{useGraph});
        EXPECT_EQ(setsFailure.error, FlockError::CapacityExceeded);
        EXPECT_EQ(setsFailure.capacity, Capacity::IntersectSetsPerBatch);
        EXPECT_EQ(setsFailure.needed, WINDOWS);

        FlockCapacities members = testCapacities(ENTITIES);
        members.maxIntersectMembersPerBatch = MEMBERS - 1;
        const FlockFailure membersFailure = cudaFailure(instance.view(), params, members, FlockOptions{useGraph});
        EXPECT_EQ(membersFailure.capacity, Capacity::IntersectMembersPerBatch);
        EXPECT_EQ(membersFailure.needed, MEMBERS);

        FlockCapacities flocks = testCapacities(ENTITIES);
        flocks.maxFlocksPerBatch = WINDOWS - 1;
        const FlockFailure flocksFailure = cudaFailure(instance.view(), params, flocks, FlockOptions{useGraph});
        EXPECT_EQ(flocksFailure.capacity, Capacity::FlocksPerBatch);
        EXPECT_EQ(flocksFailure.needed, WINDOWS);

        FlockCapacities flockMembers = testCapacities(ENTITIES);
        flockMembers.maxFlockMembersPerBatch = MEMBERS - 1;
        const FlockFailure flockMembersFailure = cudaFailure(instance.view(), params, flockMembers, FlockOptions{useGraph});
        EXPECT_EQ(flockMembersFailure.capacity, Capacity::FlockMembersPerBatch);
        EXPECT_EQ(flockMembersFailure.needed, MEMBERS);

        FlockCapacities exact = testCapacities(ENTITIES);  // boundary: exactly enough everywhere
        exact.maxIntersectSetsPerBatch = WINDOWS;
        exact.maxIntersectMembersPerBatch = MEMBERS;
        exact.maxFlocksPerBatch = WINDOWS;
        exact.maxFlockMembersPerBatch = MEMBERS;
        EXPECT_EQ(detect(instance.view(), params, exact, Backend::Cuda, useGraph, nullptr).size(), static_cast<std::size_t>(WINDOWS));
    }
}

TEST(FlockGpu, LaunchShapesDoNotChangeTheResult) {
    AUGUR_REQUIRE_GPU();
    const Instance instance = testing::randomInstance(60, 16, 5.0, 0.03, 11);
    const FlockParams params{3, 3, 1.0};
    const FlockCapacities capacities = denseCapacities(60, 16);
    const auto expected = detect(instance.view(), params, capacities, Backend::Cpu, false, nullptr);
    EXPECT_FALSE(expected.empty());
    constexpr int SHAPES[][3] = {{32, 1, 32}, {128, 4, 64}, {1024, 16, 1024}};
    for (const auto& shape : SHAPES) {
        FlockOptions options;
        options.useGraph = true;
        options.blockThreads = shape[0];
        options.blocksPerMultiprocessor = shape[1];
        options.windowBlockThreads = shape[2];
        auto sut = FlockFinder::create(params, capacities, Backend::Cuda, options);
        ASSERT_TRUE(sut.hasValue());
        FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
        ASSERT_TRUE(sut->find(instance.view(), list, nullptr).hasValue());
        EXPECT_EQ(toSets(list), expected) << shape[0] << " " << shape[1] << " " << shape[2];
    }
}

TEST(FlockGpu, LargeSetsAndCrowdedPositionsMatchTheCpu) {
    AUGUR_REQUIRE_GPU();
    // A cluster of 45 entities (sets of more than 32 members: the warp writes their intersections in
    // two rounds) and 90 pairs far apart (about 83 sets per step: more partners than count can record
    // in its 64-bit mask, so write tests those pairs again); members leave the cluster and pairs split
    // now and then.
    constexpr int CLUSTER = 45;
    constexpr int PAIRS = 90;
    constexpr int MASKED_PARTNERS = 64;  // the count kernel's kept-pair mask
    constexpr int STEPS = 12;
    Instance instance(CLUSTER + 2 * PAIRS, STEPS);
    std::mt19937_64 rng(5);
    std::uniform_real_distribution<double> jitter(-0.3, 0.3);
    std::bernoulli_distribution away(0.08);
    for (int t = 0; t < STEPS; ++t) {
        for (int e = 0; e < CLUSTER; ++e) {
            const double offset = away(rng) ? 5.0 : 0.0;
            instance.set(t, e, offset + jitter(rng), jitter(rng));
        }
        for (int q = 0; q < PAIRS; ++q) {
            const double x = 20.0 + 10.0 * q;
            instance.set(t, CLUSTER + 2 * q, x, 0.0);
            instance.set(t, CLUSTER + 2 * q + 1, x + (away(rng) ? 3.0 : 0.5), 0.0);
        }
    }
    const FlockParams params{2, 3, 1.0};
    const FlockCapacities capacities = denseCapacities(CLUSTER + 2 * PAIRS, STEPS);
    const auto expected = detect(instance.view(), params, capacities, Backend::Cpu, false, nullptr);
    ASSERT_FALSE(expected.empty());
    const bool hasLargeFlock =
        std::any_of(expected.begin(), expected.end(), [](const auto& flock) { return flock.second.size() > 32; });
    EXPECT_TRUE(hasLargeFlock);
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    const auto stats = findOnCuda(instance.view(), params, capacities, FlockOptions{}, list);
    ASSERT_TRUE(stats.has_value() && stats->hasValue());
    EXPECT_GT((*stats)->potentialFlocks, static_cast<std::int64_t>(MASKED_PARTNERS) * STEPS);  // some step has more sets
    for (const bool useGraph : {false, true}) {
        EXPECT_EQ(detect(instance.view(), params, capacities, Backend::Cuda, useGraph, nullptr), expected) << "graph " << useGraph;
    }
}

TEST(FlockGpu, FindAndFindOnDeviceAllocateNothingAfterInit) {
    AUGUR_REQUIRE_GPU();
    const Instance instance = testing::randomInstance(24, 20, 4.0, 0.05, 3);
    const DeviceTrajectories device = DeviceTrajectories::upload(instance.view());
    for (const bool useGraph : {false, true}) {
        for (const bool pinnedList : {false, true}) {  // a pinned list gets the download directly
            auto sut = FlockFinder::create({2, 3, 1.0}, testCapacities(24, 8, 3), Backend::Cuda, FlockOptions{useGraph});
            ASSERT_TRUE(sut.hasValue());
            auto made = pinnedList ? FlockList::createPinned(LIST_FLOCKS, LIST_MEMBERS)
                                   : Result<FlockList, platform::GpuError>(FlockList::create(LIST_FLOCKS, LIST_MEMBERS));
            ASSERT_TRUE(made.hasValue());
            FlockList& list = *made;
            ASSERT_TRUE(sut->find(instance.view(), list, nullptr).hasValue());  // warm-up
            ASSERT_TRUE(sut->findOnDevice(device.view(true), list, nullptr).hasValue());
            Result<FlockStats, FlockFailure> host = fail(FlockFailure{});
            Result<FlockStats, FlockFailure> resident = fail(FlockFailure{});
            std::size_t hostFlocks = 0;
            // The CUDA backend does all of a call's work on the calling thread; the CUDA driver's own
            // threads allocate on their own schedule (one such allocation once showed up in a count over
            // all threads).
            const auto allocations = augur::testing::threadAllocationsDuring([&] {
                host = sut->find(instance.view(), list, nullptr);
                hostFlocks = list.size();
                resident = sut->findOnDevice(device.view(true), list, nullptr);
            });
            ASSERT_TRUE(host.hasValue());
            ASSERT_TRUE(resident.hasValue());
            EXPECT_GT(hostFlocks, 0U);
            EXPECT_EQ(list.size(), hostFlocks);
            EXPECT_EQ(allocations, 0U) << "graph " << useGraph << ", pinned list " << pinnedList;
        }
    }
}

TEST(FlockGpuOracle, SmallInstancesEqualTheBruteForceOracle) {
    AUGUR_REQUIRE_GPU();
    constexpr int INSTANCES = 10;
    auto stream = platform::Stream::create();
    ASSERT_TRUE(stream.hasValue());
    for (int seed = 1; seed <= INSTANCES; ++seed) {
        const Instance instance = testing::randomInstance(12, 8, 3.0, 0.05, static_cast<std::uint64_t>(seed));
        const FlockParams params{3, 2, 1.0};
        const auto expected = testing::bruteForceFlocks(instance.view(), params);
        EXPECT_EQ(detect(instance.view(), params, testCapacities(12), Backend::Cuda, true, stream->get()), expected)
            << "seed " << seed;
    }
}

TEST(FlockGpuEdges, ExactDiameterCoincidentMissingAndLargeCoordinatesMatchTheCpu) {
    AUGUR_REQUIRE_GPU();
    auto stream = platform::Stream::create();
    ASSERT_TRUE(stream.hasValue());
    Instance instance(6, 3);
    constexpr double OFFSET_M = 1.0e9;
    for (int t = 0; t < 3; ++t) {
        instance.set(t, 0, OFFSET_M, OFFSET_M);
        instance.set(t, 1, OFFSET_M + 2.0, OFFSET_M);  // exactly 2ε from 0
        instance.set(t, 2, OFFSET_M + 5.0, OFFSET_M);
        instance.set(t, 3, OFFSET_M + 5.0, OFFSET_M);  // coincident with 2
        instance.set(t, 4, OFFSET_M + 5.5, OFFSET_M);
        instance.set(t, 5, OFFSET_M + 5.5, OFFSET_M + 0.5);
    }
    instance.remove(1, 5);
    const FlockParams params{2, 2, 1.0};
    const auto expected = testing::bruteForceFlocks(instance.view(), params);
    EXPECT_EQ(detect(instance.view(), params, testCapacities(6), Backend::Cpu, false, nullptr), expected);
    EXPECT_EQ(detect(instance.view(), params, testCapacities(6), Backend::Cuda, false, stream->get()), expected);
}

TEST(FlockGpuCapacity, PerStepDiskAndMemberOverflowsAreReportedWithTheStepsNeed) {
    AUGUR_REQUIRE_GPU();
    constexpr int ENTITIES = 40;  // all coincident: 780 pairs per step, each disk holding all 40
    constexpr std::int64_t DISKS = ENTITIES * (ENTITIES - 1) / 2;
    constexpr std::int64_t MEMBERS = DISKS * ENTITIES;
    const Instance instance(ENTITIES, 4);
    const FlockParams params{2, 2, 1.0};
    struct Path {
        int sharedBytes;
        bool fallbackInShared;
    };
    // The default budget; every step in the second kernel's shared memory; every step in a workspace.
    for (const Path path : {Path{0, true}, Path{SHARED_NONE, true}, Path{SHARED_NONE, false}}) {
        const int sharedBytes = path.sharedBytes;
        FlockOptions options;
        options.stepSharedBytes = path.sharedBytes;
        options.fallbackInSharedMemory = path.fallbackInShared;
        FlockCapacities disks = testCapacities(ENTITIES);
        disks.maxDisksPerStep = DISKS - 1;
        const FlockFailure disksFailure = cudaFailure(instance.view(), params, disks, options);
        EXPECT_EQ(disksFailure.error, FlockError::CapacityExceeded);
        EXPECT_EQ(disksFailure.capacity, Capacity::DisksPerStep);
        EXPECT_EQ(disksFailure.needed, DISKS);

        FlockCapacities members = testCapacities(ENTITIES);
        members.maxCandidateMembersPerStep = MEMBERS - 1;
        const FlockFailure membersFailure = cudaFailure(instance.view(), params, members, options);
        EXPECT_EQ(membersFailure.capacity, Capacity::CandidateMembersPerStep);
        EXPECT_EQ(membersFailure.needed, MEMBERS);

        FlockCapacities exact = testCapacities(ENTITIES);  // boundary: exactly enough
        exact.maxDisksPerStep = DISKS;
        exact.maxCandidateMembersPerStep = MEMBERS;
        EXPECT_EQ(detectWith(instance.view(), params, exact, options).size(), 3U)
            << "shared bytes " << sharedBytes << ", fallback in shared memory " << path.fallbackInShared;
    }
}

// The potential stage of a step runs in one block's shared memory when it fits; otherwise a second
// kernel takes it in the largest shared memory of a block, or in a global-memory workspace. Forcing
// each path, or a mix (clustered steps that do not fit among spread-out steps that do), on the same
// instance gives the CPU reference's flocks.
Instance clusteredEveryOtherStep(std::uint64_t seed) {
    constexpr int ENTITIES = 120;
    constexpr int CORE = 6;             // always within 0.5 ε of each other: a flock in every window
    constexpr int GROUP = 40;
    constexpr int STEPS = 12;
    constexpr double CORE_M = 0.5;
    constexpr double CLUSTER_M = 3.0;   // odd steps: the group within 3 ε (hundreds of disks)
    constexpr double LOOSE_M = 10.0;    // even steps: within 10 ε (tens of disks)
    constexpr double SPREAD_M = 40.0;   // the others
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<double> unit(0.0, 1.0);
    Instance instance(ENTITIES, STEPS);
    for (int t = 0; t < STEPS; ++t) {
        const double side = t % 2 == 1 ? CLUSTER_M : LOOSE_M;
        for (int i = 0; i < ENTITIES; ++i) {
            const double extent = i < CORE ? CORE_M : (i < GROUP ? side : SPREAD_M);
            instance.set(t, i, 0.5 * t + extent * unit(rng), extent * unit(rng));
        }
    }
    return instance;
}

TEST(FlockGpuSteps, SharedMemoryWorkspaceAndMixedStepsEqualCpuReference) {
    AUGUR_REQUIRE_GPU();
    constexpr int SEEDS = 3;
    constexpr int MIXED_BYTES = 16 * 1024;  // the spread-out steps fit, the clustered ones do not
    constexpr int STEPS = 12;
    const FlockParams params{4, 3, 1.0};
    for (int seed = 1; seed <= SEEDS; ++seed) {
        const Instance instance = clusteredEveryOtherStep(static_cast<std::uint64_t>(seed));
        const FlockCapacities capacities = denseCapacities(instance.entities, STEPS);
        const auto expected = detect(instance.view(), params, capacities, Backend::Cpu, false, nullptr);
        EXPECT_FALSE(expected.empty()) << "seed " << seed;
        struct Path {
            int sharedBytes;
            int workspaceBlocks;
            bool fallbackInShared;
            int inPlaceWaves;  // 0: the per-step kernel works the steps that do not fit itself; -1: tuning (12 steps: none)
            const char* name;
        };
        const Path paths[] = {{SHARED_ALL, 0, true, -1, "shared"},
                              {0, 0, true, -1, "default"},
                              {SHARED_NONE, 0, true, -1, "second kernel's shared memory"},
                              {SHARED_NONE, 0, false, -1, "workspace"},
                              {SHARED_NONE, 1, false, -1, "one workspace"},
                              {MIXED_BYTES, 2, false, -1, "mixed"},
                              {SHARED_NONE, 0, true, 0, "in place, but not even the points fit"},
                              {MIXED_BYTES, 0, true, 0, "mixed in place"},
                              {MIXED_BYTES, 1, false, 0, "mixed, in place in one workspace, the rest in the second kernel"}};
        for (const Path& path : paths) {
            for (const bool useGraph : {false, true}) {
                FlockOptions options;
                options.useGraph = useGraph;
                options.stepSharedBytes = path.sharedBytes;
                options.workspaceBlocks = path.workspaceBlocks;
                options.fallbackInSharedMemory = path.fallbackInShared;
                options.inPlaceWaves = path.inPlaceWaves;
                FlockStats stats;
                EXPECT_EQ(detectWith(instance.view(), params, capacities, options, &stats), expected)
                    << path.name << ", seed " << seed << ", graph " << useGraph;
                if (path.sharedBytes == SHARED_ALL) {
                    EXPECT_EQ(stats.stepsInWorkspace, 0) << path.name;
                } else if (path.sharedBytes == SHARED_NONE) {
                    EXPECT_EQ(stats.stepsInWorkspace, STEPS) << path.name;
                } else if (path.sharedBytes == MIXED_BYTES) {
                    EXPECT_GT(stats.stepsInWorkspace, 0) << path.name;
                    EXPECT_LT(stats.stepsInWorkspace, STEPS) << path.name;
                }
                // In place: the steps whose points and grid fit (not with SHARED_NONE).
                if (path.inPlaceWaves < 0 || path.sharedBytes == SHARED_NONE) {
                    EXPECT_EQ(stats.stepsInPlace, 0) << path.name;
                } else if (path.workspaceBlocks == 0) {  // a workspace for every block
                    EXPECT_EQ(stats.stepsInPlace, stats.stepsInWorkspace) << path.name;
                } else {
                    EXPECT_GE(stats.stepsInPlace, 1) << path.name;
                }
                // Every step of this instance fits a block's largest shared memory.
                EXPECT_EQ(stats.stepsInGlobal, path.fallbackInShared ? stats.stepsInPlace : stats.stepsInWorkspace) << path.name;
            }
        }
    }
}

// Every shared-memory budget of the per-step kernel, with the steps that do not fit finished in place:
// the budgets run out at every point of a step (the disks, the candidates, the members; before and
// after the pair masks are overwritten), and every one gives the CPU reference's flocks.
TEST(FlockGpuSteps, InPlaceStepsEqualCpuReferenceAtEveryBudget) {
    AUGUR_REQUIRE_GPU();
    constexpr int STEPS = 12;
    constexpr int SMALLEST = 4 * 1024;
    constexpr int LARGEST = 96 * 1024;
    constexpr int STRIDE = 2 * 1024;
    const FlockParams params{4, 3, 1.0};
    const Instance instance = clusteredEveryOtherStep(7);
    const FlockCapacities capacities = denseCapacities(instance.entities, STEPS);
    const auto expected = detect(instance.view(), params, capacities, Backend::Cpu, false, nullptr);
    ASSERT_FALSE(expected.empty());
    int budgetsWithStepsInPlace = 0;
    int budgetsWithAllSteps = 0;
    for (int bytes = SMALLEST; bytes <= LARGEST; bytes += STRIDE) {
        FlockOptions options;
        options.stepSharedBytes = bytes;
        options.inPlaceWaves = 0;
        FlockStats stats;
        EXPECT_EQ(detectWith(instance.view(), params, capacities, options, &stats), expected) << bytes << " bytes";
        budgetsWithStepsInPlace += stats.stepsInPlace > 0 ? 1 : 0;
        budgetsWithAllSteps += stats.stepsInWorkspace == 0 ? 1 : 0;
    }
    EXPECT_GT(budgetsWithStepsInPlace, 4);  // the sweep crosses the clustered steps' disks, candidates and members
    EXPECT_GT(budgetsWithAllSteps, 0);      // … up to budgets where every step fits
}

// 6,000 entities: a step's points and grid (≈ 190 KB) leave too little of a block's shared memory (one
// block per SM) for its disks; the steps go to the second kernel, or with inPlaceWaves = 0 have their
// disks in a global workspace.
TEST(FlockGpuSteps, StepLargerThanTheSharedBudgetEqualsCpuReference) {
    AUGUR_REQUIRE_GPU();
    constexpr int ENTITIES = 6000;
    constexpr int STEPS = 6;
    const SyntheticTrajectories t = generateTrajectories(groupedSpec(ENTITIES, STEPS, ENTITIES / 20, 1.5, 0.01, 0.01, 9));
    const FlockParams params{4, 3, 1.5};
    FlockCapacities capacities = testCapacities(ENTITIES, STEPS, 4);
    capacities.gridCellsPerStep = 2 * ENTITIES;
    const auto expected = detect(t.view(), params, capacities, Backend::Cpu, false, nullptr);
    EXPECT_FALSE(expected.empty());
    for (const bool useGraph : {false, true}) {
        for (const bool fallbackInShared : {true, false}) {
            for (const int inPlaceWaves : {-1, 0}) {
                FlockOptions options;
                options.useGraph = useGraph;
                options.fallbackInSharedMemory = fallbackInShared;
                options.inPlaceWaves = inPlaceWaves;
                FlockStats stats;
                EXPECT_EQ(detectWith(t.view(), params, capacities, options, &stats), expected)
                    << "graph " << useGraph << ", fallback in shared memory " << fallbackInShared << ", in place " << inPlaceWaves;
                EXPECT_EQ(stats.stepsInWorkspace, STEPS);
                EXPECT_EQ(stats.stepsInPlace, inPlaceWaves == 0 ? STEPS : 0);
                if (!fallbackInShared || inPlaceWaves == 0) {
                    EXPECT_EQ(stats.stepsInGlobal, STEPS);
                }
            }
        }
    }
}

}  // namespace
}  // namespace augur::kernels::flock
