// FlockFinder on the CPU reference: equals the brute-force oracle, edge cases, errors, determinism,
// batching and the no-allocation claim of the run phase.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <ostream>
#include <string>

#include "augur/kernels/flock/flock_finder.hpp"
#include "augur/testing/allocation_counter.hpp"
#include "flock_oracle.hpp"
#include "flock_test_support.hpp"

namespace augur::kernels::flock {
namespace {

using testing::bruteForceFlocks;
using testing::Instance;
using testing::testCapacities;
using testing::toSets;

constexpr double RADIUS_M = 1.0;
constexpr std::size_t LIST_FLOCKS = 1 << 14;
constexpr std::size_t LIST_MEMBERS = 1 << 17;

FlockFinder makeFinder(const FlockParams& params, const FlockCapacities& capacities) {
    auto finder = FlockFinder::create(params, capacities, Backend::Cpu);
    EXPECT_TRUE(finder.hasValue());
    return std::move(finder).value();
}

testing::FlockSetList detect(const Instance& instance, const FlockParams& params, const FlockCapacities& capacities) {
    FlockFinder sut = makeFinder(params, capacities);
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    const auto stats = sut.find(instance.view(), list, nullptr);
    EXPECT_TRUE(stats.hasValue());
    return toSets(list);
}

struct OracleCase {
    int entities;
    int steps;
    int minEntities;
    int windowSteps;
    double side_m;
    double missing;
};

std::string caseName(const OracleCase& c) {
    char name[96];
    std::snprintf(name, sizeof(name), "n%d_steps%d_mu%d_delta%d_side%d_missing%d", c.entities, c.steps, c.minEntities,
                  c.windowSteps, static_cast<int>(c.side_m * 10), static_cast<int>(c.missing * 100));
    return name;
}
void PrintTo(const OracleCase& c, std::ostream* os) { *os << caseName(c); }

class FlockCpuOracle : public ::testing::TestWithParam<OracleCase> {};

TEST_P(FlockCpuOracle, MatchesBruteForceOnSeededRandomInstances) {
    constexpr int INSTANCES = 12;
    const OracleCase c = GetParam();
    std::size_t reported = 0;
    for (int seed = 1; seed <= INSTANCES; ++seed) {
        const Instance instance = testing::randomInstance(c.entities, c.steps, c.side_m, c.missing, static_cast<std::uint64_t>(seed));
        const FlockParams params{c.minEntities, c.windowSteps, RADIUS_M};
        const auto expected = bruteForceFlocks(instance.view(), params);
        const auto actual = detect(instance, params, testCapacities(c.entities, 64));
        EXPECT_EQ(actual, expected) << "seed " << seed;
        reported += expected.size();
    }
    EXPECT_GT(reported, static_cast<std::size_t>(INSTANCES));  // the instances do contain flocks
    std::printf("[          ] %zu maximal flocks over %d instances\n", reported, INSTANCES);
}

INSTANTIATE_TEST_SUITE_P(SmallInstances, FlockCpuOracle,
                         ::testing::Values(OracleCase{4, 6, 2, 1, 2.5, 0.0}, OracleCase{8, 8, 2, 2, 3.0, 0.0},
                                           OracleCase{10, 8, 3, 3, 3.0, 0.05}, OracleCase{12, 6, 3, 2, 4.0, 0.0},
                                           OracleCase{12, 6, 4, 6, 2.5, 0.0}, OracleCase{12, 10, 2, 4, 5.0, 0.1},
                                           OracleCase{9, 7, 5, 1, 2.0, 0.0}),
                         [](const ::testing::TestParamInfo<OracleCase>& param) { return caseName(param.param); });

// Grids with far fewer cells than the data needs: cells from about 1.5 ε to 6 ε wide, so that the
// neighbourhoods are searched both ±2 cells and (cells of at least 2ε) ±1 cell.
TEST(FlockCpu, CoarseGridsMatchTheBruteForceOracle) {
    constexpr int INSTANCES = 6;
    constexpr int ENTITIES = 12;
    constexpr int STEPS = 6;
    constexpr double SIDE_M = 6.0 * RADIUS_M;
    constexpr int GRID_CELLS[] = {4, 9, 16, 25};
    const FlockParams params{2, 2, RADIUS_M};
    std::size_t reported = 0;
    for (const int cells : GRID_CELLS) {
        for (int seed = 1; seed <= INSTANCES; ++seed) {
            const Instance instance = testing::randomInstance(ENTITIES, STEPS, SIDE_M, 0.0, static_cast<std::uint64_t>(seed));
            FlockCapacities capacities = testCapacities(ENTITIES, 64);
            capacities.gridCellsPerStep = cells;
            const auto expected = bruteForceFlocks(instance.view(), params);
            EXPECT_EQ(detect(instance, params, capacities), expected) << cells << " cells, seed " << seed;
            reported += expected.size();
        }
    }
    EXPECT_GT(reported, static_cast<std::size_t>(INSTANCES));
}

TEST(FlockCpu, PairAtExactlyTwiceTheRadiusIsAFlock) {
    Instance instance(2, 1);
    instance.set(0, 0, 0.0, 0.0);
    instance.set(0, 1, 2.0 * RADIUS_M, 0.0);
    const auto sut = detect(instance, {2, 1, RADIUS_M}, testCapacities(2));
    const testing::FlockSetList expected{{0, {0, 1}}};
    EXPECT_EQ(sut, expected);
}

TEST(FlockCpu, PairJustBeyondTwiceTheRadiusIsNotAFlock) {
    constexpr double BEYOND = 2.0 * RADIUS_M * (1.0 + 1e-6);
    Instance instance(2, 1);
    instance.set(0, 0, 0.0, 0.0);
    instance.set(0, 1, 0.0, BEYOND);
    EXPECT_TRUE(detect(instance, {2, 1, RADIUS_M}, testCapacities(2)).empty());
}

TEST(FlockCpu, CoincidentPointsFormOneFlock) {
    constexpr int ENTITIES = 4;
    Instance instance(ENTITIES, 2);
    for (int t = 0; t < 2; ++t) {
        for (int i = 0; i < ENTITIES - 1; ++i) {
            instance.set(t, i, 5.0, -3.0);
        }
        instance.set(t, ENTITIES - 1, 50.0, 50.0);
    }
    const testing::FlockSetList expected{{0, {0, 1, 2}}};
    EXPECT_EQ(detect(instance, {3, 2, RADIUS_M}, testCapacities(ENTITIES)), expected);
}

TEST(FlockCpu, FewerEntitiesThanMinimumGiveNoFlock) {
    Instance instance(3, 4);  // all at the origin: one disk holds them all
    EXPECT_TRUE(detect(instance, {4, 2, RADIUS_M}, testCapacities(3)).empty());
}

TEST(FlockCpu, NoEntitiesAndTooFewStepsGiveNoFlock) {
    const Instance empty(0, 5);
    const Instance shortRun(3, 2);
    EXPECT_TRUE(detect(empty, {2, 2, RADIUS_M}, testCapacities(1)).empty());
    EXPECT_TRUE(detect(shortRun, {2, 3, RADIUS_M}, testCapacities(3)).empty());
}

TEST(FlockCpu, WindowOfOneStepReportsEachStepsMaximalSets) {
    // Step 0: {0,1,2} together, 3 alone. Step 1: {0,1} and {2,3} in two places.
    Instance instance(4, 2);
    instance.set(0, 0, 0.0, 0.0);
    instance.set(0, 1, 0.5, 0.0);
    instance.set(0, 2, 1.0, 0.0);
    instance.set(0, 3, 10.0, 0.0);
    instance.set(1, 0, 0.0, 0.0);
    instance.set(1, 1, 0.5, 0.0);
    instance.set(1, 2, 10.0, 0.0);
    instance.set(1, 3, 10.5, 0.0);
    const testing::FlockSetList expected{{0, {0, 1, 2}}, {1, {0, 1}}, {1, {2, 3}}};
    EXPECT_EQ(detect(instance, {2, 1, RADIUS_M}, testCapacities(4)), expected);
}

TEST(FlockCpu, WindowAsLongAsTheRunIntersectsAllSteps) {
    Instance instance(4, 3);
    for (int t = 0; t < 3; ++t) {
        for (int i = 0; i < 4; ++i) {
            instance.set(t, i, 0.4 * i + 3.0 * t, 7.0);  // 0…3 span 1.2 < 2ε
        }
    }
    instance.set(2, 3, 100.0, 100.0);  // 3 leaves at the last step
    const testing::FlockSetList expected{{0, {0, 1, 2}}};
    EXPECT_EQ(detect(instance, {3, 3, RADIUS_M}, testCapacities(4)), expected);
}

TEST(FlockCpu, BatchOfExactlyTheWindowStaysInsideItsSteps) {
    // The runtime's shape: batch capacity = δ = the run, one window per batch. The window's block
    // must not look at a step past the batch (BatchFamilies::step asserts t < steps).
    constexpr int STEPS = 3;
    Instance instance(4, STEPS);
    for (int t = 0; t < STEPS; ++t) {
        for (int i = 0; i < 4; ++i) {
            instance.set(t, i, 0.4 * i + 3.0 * t, 7.0);
        }
    }
    instance.set(2, 3, 100.0, 100.0);
    const testing::FlockSetList expected{{0, {0, 1, 2}}};
    EXPECT_EQ(detect(instance, {3, STEPS, RADIUS_M}, testCapacities(4, STEPS)), expected);
}

TEST(FlockCpu, MissingSampleExcludesTheEntityFromWindowsContainingThatStep) {
    constexpr int STEPS = 5;
    Instance instance(3, STEPS);
    for (int t = 0; t < STEPS; ++t) {
        for (int i = 0; i < 3; ++i) {
            instance.set(t, i, 0.3 * i, 0.0);
        }
    }
    instance.remove(2, 2);  // entity 2 has no sample at step 2
    // Windows [1,2] and [2,3] contain step 2; [0,1] and [3,4] do not.
    const testing::FlockSetList expected{{0, {0, 1, 2}}, {1, {0, 1}}, {2, {0, 1}}, {3, {0, 1, 2}}};
    EXPECT_EQ(detect(instance, {2, 2, RADIUS_M}, testCapacities(3)), expected);
}

TEST(FlockCpu, VeryLargeCoordinatesGiveTheSameFlocksAsNearTheOrigin) {
    constexpr double OFFSET_M = 1.0e9;
    const Instance near = testing::randomInstance(10, 6, 3.0, 0.0, 7);
    Instance far = near;
    for (std::size_t k = 0; k < far.x.size(); ++k) {
        far.x[k] += OFFSET_M;
        far.y[k] -= OFFSET_M;
    }
    const FlockParams params{3, 2, RADIUS_M};
    const auto expected = bruteForceFlocks(far.view(), params);
    EXPECT_FALSE(expected.empty());
    EXPECT_EQ(detect(far, params, testCapacities(10)), expected);
}

TEST(FlockCpu, InvalidParametersAreRejectedAtInit) {
    const FlockCapacities capacities = testCapacities(4);
    const FlockParams invalid[] = {{1, 2, RADIUS_M}, {2, 0, RADIUS_M}, {2, 2, 0.0}, {2, 2, -1.0},
                                   {2, 2, std::numeric_limits<double>::quiet_NaN()}, {2, 2, INFINITY}, {2, 65, RADIUS_M}};
    for (const FlockParams& params : invalid) {
        const auto sut = FlockFinder::create(params, capacities, Backend::Cpu);
        ASSERT_TRUE(sut.hasError());
        EXPECT_EQ(sut.error().error, FlockError::InvalidParams);
    }
}

TEST(FlockCpu, HostMemoryCoversTheLargestBuffersAndGrowsWithWorkersAndWindow) {
    FlockCapacities capacities;
    capacities.maxEntities = 1000;
    const FlockParams params{2, 4, RADIUS_M};
    const FlockHostMemory sut = FlockFinder::hostMemory(params, capacities, Backend::Cpu);
    // Each worker holds a batch family buffer and δ + 4 work families; the finder one more batch family.
    const double batchFamily = static_cast<double>(capacities.maxFamilyMembersPerBatch) * sizeof(std::int32_t);
    const double workFamily = static_cast<double>(capacities.maxWorkSets + 1) * sizeof(std::int64_t) +
                              static_cast<double>(capacities.maxWorkMembers) * sizeof(std::int32_t);  // offsets, members
    EXPECT_GE(sut.perWorker_bytes, batchFamily + (params.windowSteps + 4) * workFamily);
    EXPECT_GE(sut.shared_bytes, batchFamily);
    EXPECT_DOUBLE_EQ(sut.total(3) - sut.total(2), sut.perWorker_bytes);
    const FlockHostMemory longerWindow = FlockFinder::hostMemory({2, 5, RADIUS_M}, capacities, Backend::Cpu);
    EXPECT_DOUBLE_EQ(longerWindow.perWorker_bytes - sut.perWorker_bytes, workFamily);  // one more suffix family
}

TEST(FlockCpu, HostMemoryOfAbsurdCapacitiesIsLargeNotOverflowed) {
    FlockCapacities capacities;
    capacities.maxEntities = 1 << 30;
    capacities.maxWorkMembers = std::int64_t{1} << 40;
    const FlockHostMemory sut = FlockFinder::hostMemory({2, 1 << 30, RADIUS_M}, capacities, Backend::Cpu);
    EXPECT_GT(sut.total(100'000), 1e20);
    EXPECT_TRUE(std::isfinite(sut.total(100'000)));
}

TEST(FlockCpu, NonFinitePresentSampleIsInvalidInputButAMissingOneIsIgnored) {
    Instance instance(3, 2);
    instance.x[instance.index(1, 1)] = std::numeric_limits<double>::quiet_NaN();
    FlockFinder sut = makeFinder({2, 1, RADIUS_M}, testCapacities(3));
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    const auto rejected = sut.find(instance.view(), list, nullptr);
    ASSERT_TRUE(rejected.hasError());
    EXPECT_EQ(rejected.error().error, FlockError::InvalidInput);
    instance.remove(1, 1);
    const auto accepted = sut.find(instance.view(), list, nullptr);
    ASSERT_TRUE(accepted.hasValue());
    const testing::FlockSetList expected{{0, {0, 1, 2}}, {1, {0, 2}}};
    EXPECT_EQ(toSets(list), expected);
}

TEST(FlockCpu, LaunchShapeThatIsNotWholeWarpsIsRejectedAtInit) {
    FlockOptions options;
    options.blockThreads = 33;
    const auto notWarps = FlockFinder::create({2, 1, RADIUS_M}, testCapacities(3), Backend::Cpu, options);
    ASSERT_TRUE(notWarps.hasError());
    EXPECT_EQ(notWarps.error().error, FlockError::InvalidParams);
    options.blockThreads = 0;
    options.windowBlockThreads = 2048;
    const auto tooLarge = FlockFinder::create({2, 1, RADIUS_M}, testCapacities(3), Backend::Cpu, options);
    ASSERT_TRUE(tooLarge.hasError());
    EXPECT_EQ(tooLarge.error().error, FlockError::InvalidParams);
}

TEST(FlockCpu, DeviceResidentInputIsUnavailableOnTheCpuBackend) {
    const Instance instance(3, 2);
    FlockFinder sut = makeFinder({2, 1, RADIUS_M}, testCapacities(3));
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    const auto result = sut.findOnDevice(instance.view(), list, nullptr);
    ASSERT_TRUE(result.hasError());
    EXPECT_EQ(result.error().error, FlockError::BackendUnavailable);
}

TEST(FlockCpu, TooManyEntitiesIsReported) {
    const Instance instance(5, 2);
    FlockFinder sut = makeFinder({2, 1, RADIUS_M}, testCapacities(4));
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    const auto result = sut.find(instance.view(), list, nullptr);
    ASSERT_TRUE(result.hasError());
    EXPECT_EQ(result.error().capacity, Capacity::Entities);
}

TEST(FlockCpu, DiskCapacityOverflowIsReportedWithTheNeededSize) {
    constexpr int ENTITIES = 6;  // all coincident: 15 pairs in one step
    constexpr std::int64_t PAIRS = ENTITIES * (ENTITIES - 1) / 2;
    const Instance instance(ENTITIES, 1);
    FlockCapacities capacities = testCapacities(ENTITIES);
    capacities.maxDisksPerStep = PAIRS - 1;
    FlockFinder sut = makeFinder({2, 1, RADIUS_M}, capacities);
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    const auto result = sut.find(instance.view(), list, nullptr);
    ASSERT_TRUE(result.hasError());
    EXPECT_EQ(result.error().error, FlockError::CapacityExceeded);
    EXPECT_EQ(result.error().capacity, Capacity::DisksPerStep);
    EXPECT_EQ(result.error().needed, PAIRS);
    EXPECT_EQ(list.size(), 0U);
}

TEST(FlockCpu, FullOutputListIsReportedNotTruncated) {
    Instance instance(2, 3);  // one flock per window, three windows
    FlockFinder sut = makeFinder({2, 1, RADIUS_M}, testCapacities(2));
    FlockList list = FlockList::create(2, LIST_MEMBERS);
    const auto result = sut.find(instance.view(), list, nullptr);
    ASSERT_TRUE(result.hasError());
    EXPECT_EQ(result.error().capacity, Capacity::OutputFlocks);
    EXPECT_EQ(list.size(), 0U);
}

TEST(FlockCpu, ResultDoesNotDependOnWorkersOrBatchSize) {
    constexpr int ENTITIES = 60;
    constexpr int STEPS = 40;
    SyntheticSpec spec;
    spec.entities = ENTITIES;
    spec.steps = STEPS;
    spec.groups = 6;
    spec.groupSize = 6;
    spec.area_m = 60.0;
    spec.groupSpread_m = 1.0;
    spec.stepLength_m = 2.0;
    spec.leaveProbability = 0.05;
    spec.missingProbability = 0.02;
    spec.seed = 11;
    const SyntheticTrajectories t = generateTrajectories(spec);
    Instance instance(ENTITIES, STEPS);
    instance.x = t.x_m;
    instance.y = t.y_m;
    instance.present = t.present;
    const FlockParams params{3, 4, RADIUS_M};
    const auto reference = detect(instance, params, testCapacities(ENTITIES, 64, 1));
    EXPECT_FALSE(reference.empty());
    EXPECT_EQ(detect(instance, params, testCapacities(ENTITIES, 64, 4)), reference);
    EXPECT_EQ(detect(instance, params, testCapacities(ENTITIES, 4, 3)), reference);   // batch = δ
    EXPECT_EQ(detect(instance, params, testCapacities(ENTITIES, 7, 2)), reference);
}

TEST(FlockCpu, FindAllocatesNothingAfterInit) {
    const Instance instance = testing::randomInstance(12, 20, 4.0, 0.05, 3);
    FlockFinder sut = makeFinder({2, 3, RADIUS_M}, testCapacities(12, 8, 3));
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    ASSERT_TRUE(sut.find(instance.view(), list, nullptr).hasValue());  // warm-up
    Result<FlockStats, FlockFailure> result = fail(FlockFailure{});
    const auto allocations = augur::testing::allocationsDuring([&] { result = sut.find(instance.view(), list, nullptr); });
    ASSERT_TRUE(result.hasValue());
    EXPECT_GT(list.size(), 0U);
    EXPECT_EQ(allocations, 0U);
}

}  // namespace
}  // namespace augur::kernels::flock
