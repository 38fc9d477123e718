// FlockFinder on the CUDA backend equals the CPU reference (as sets, and in fact in order), directly
// and with the per-batch work replayed as a CUDA graph; small instances also equal the oracle.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <ostream>
#include <string>

#include "augur/kernels/flock/flock_finder.hpp"
#include "augur/platform/stream.hpp"
#include "augur/testing/testing.hpp"
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
        SyntheticSpec spec;
        spec.entities = c.entities;
        spec.steps = c.steps;
        spec.groups = c.entities / 20 + 1;
        spec.groupSize = 8;
        spec.area_m = 40.0 * std::sqrt(static_cast<double>(c.entities));
        spec.groupSpread_m = c.radius_m;  // a whole group fits in one disk, give or take the jitter
        spec.stepLength_m = 3.0;
        spec.leaveProbability = 0.01;
        spec.missingProbability = c.missing;
        spec.seed = static_cast<std::uint64_t>(seed);
        const SyntheticTrajectories t = generateTrajectories(spec);
        const FlockParams params{c.minEntities, c.windowSteps, c.radius_m};
        FlockCapacities capacities = testCapacities(c.entities, c.batchSteps, 4);
        capacities.maxDisksPerBatch = 1 << 20;
        capacities.maxCandidateMembersPerBatch = 1 << 22;
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
                                           GpuCase{500, 20, 5, 20, 2.0, 20, 0.0}),
                         [](const ::testing::TestParamInfo<GpuCase>& param) { return caseName(param.param); });

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

TEST(FlockGpuCapacity, DiskPoolOverflowIsReported) {
    AUGUR_REQUIRE_GPU();
    constexpr int ENTITIES = 40;  // all coincident: 780 pairs per step
    const Instance instance(ENTITIES, 4);
    FlockCapacities capacities = testCapacities(ENTITIES);
    capacities.maxDisksPerBatch = 100;
    auto sut = FlockFinder::create({2, 2, 1.0}, capacities, Backend::Cuda);
    ASSERT_TRUE(sut.hasValue());
    FlockList list = FlockList::create(LIST_FLOCKS, LIST_MEMBERS);
    const auto result = sut->find(instance.view(), list, nullptr);
    ASSERT_TRUE(result.hasError());
    EXPECT_EQ(result.error().error, FlockError::CapacityExceeded);
    EXPECT_EQ(result.error().capacity, Capacity::DisksPerBatch);
    EXPECT_EQ(result.error().needed, 4 * ENTITIES * (ENTITIES - 1) / 2);
}

}  // namespace
}  // namespace augur::kernels::flock
