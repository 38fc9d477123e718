// augur-flock's CSV formats: parsing (ids, steps, gaps, errors) and the flock rows written back.
#include <gtest/gtest.h>

#include <sstream>

#include "augur/kernels/flock/flock_finder.hpp"
#include "trajectory_csv.hpp"

namespace augur::apps::flock {
namespace {

TEST(FlockCsv, ParsesRowsMapsIdsInOrderAndMarksMissingSamples) {
    std::istringstream in("entity_id,step,x,y\n# comment\n42,10,1.5,2\n7,10,0,0\n42,12,3,4e0\n");
    const auto sut = readTrajectories(in);
    ASSERT_TRUE(sut.hasValue());
    const std::vector<std::int64_t> ids{7, 42};
    EXPECT_EQ(sut->entityIds, ids);
    EXPECT_EQ(sut->firstStep, 10);
    EXPECT_EQ(sut->stepCount, 3);
    const std::vector<std::uint8_t> present{1, 1, 0, 0, 0, 1};  // step 11 has no rows; 7 has no step 12
    EXPECT_EQ(sut->present, present);
    EXPECT_EQ(sut->x_m[1], 1.5);
    EXPECT_EQ(sut->y_m[5], 4.0);
}

TEST(FlockCsv, MalformedRowReportsItsLine) {
    std::istringstream in("entity_id,step,x,y\n1,0,0,0\n2,0,zero,0\n");
    const auto sut = readTrajectories(in);
    ASSERT_TRUE(sut.hasError());
    EXPECT_EQ(sut.error().line, 3U);
}

TEST(FlockCsv, DuplicateSampleAndNonFiniteCoordinateAreErrors) {
    std::istringstream duplicate("1,0,0,0\n1,0,1,1\n");
    std::istringstream notFinite("1,0,nan,0\n");
    EXPECT_TRUE(readTrajectories(duplicate).hasError());
    EXPECT_TRUE(readTrajectories(notFinite).hasError());
}

TEST(FlockCsv, EmptyInputGivesNoEntities) {
    std::istringstream in("entity_id,step,x,y\n");
    const auto sut = readTrajectories(in);
    ASSERT_TRUE(sut.hasValue());
    EXPECT_TRUE(sut->entityIds.empty());
}

TEST(FlockCsv, FlocksAreWrittenWithCsvStepsAndIds) {
    // Entities 100, 200 travel together over steps 5…7 (ε = 1 radius: 1.9 apart fits); 300 is far away.
    std::istringstream in("100,5,0,0\n200,5,1.9,0\n300,5,50,0\n100,6,1,0\n200,6,2.9,0\n300,6,60,0\n100,7,2,0\n200,7,3.9,0\n");
    const auto trajectories = readTrajectories(in);
    ASSERT_TRUE(trajectories.hasValue());
    kernels::flock::FlockCapacities capacities;
    capacities.maxEntities = 3;
    capacities.maxBatchSteps = 8;
    capacities.workerThreads = 1;
    auto finder = kernels::flock::FlockFinder::create({2, 2, 1.0}, capacities, kernels::Backend::Cpu);
    ASSERT_TRUE(finder.hasValue());
    auto flocks = kernels::flock::FlockList::create(16, 64);
    ASSERT_TRUE(finder->find(trajectories->view(), flocks, nullptr).hasValue());
    std::ostringstream out;
    writeFlocks(out, *trajectories, flocks, 2);
    EXPECT_EQ(out.str(), "window_start,window_end,size,entity_ids\n5,6,2,100;200\n6,7,2,100;200\n");
}

}  // namespace
}  // namespace augur::apps::flock
