// Proves the run-phase claim: Scene::update() allocates nothing (counted by augur::allocation_counter,
// which replaces the global allocation functions in this binary).
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "augur/runtime/scene/map_readers.hpp"
#include "augur/runtime/scene/scene.hpp"
#include "augur/testing/allocation_counter.hpp"
#include "scene_test_support.hpp"
#include "sumo_nets.hpp"

namespace augur::runtime::scene {
namespace {

constexpr std::uint32_t VEHICLES = 64;
constexpr std::uint32_t SEED = 7;

/// VEHICLES vehicles on random lanes at random positions and speeds (seeded).
std::vector<SceneVehicle> randomVehicles(const RoadMap& map) {
    std::mt19937 rng(SEED);
    std::uniform_int_distribution<std::uint32_t> laneDist(0, static_cast<std::uint32_t>(map.laneCount() - 1));
    std::uniform_real_distribution<double> fraction(0.0, 1.0);
    std::uniform_real_distribution<float> speed(0.0F, 15.0F);
    std::vector<SceneVehicle> out;
    for (std::uint32_t i = 0; i < VEHICLES; ++i) {
        const std::uint32_t lane = laneDist(rng);
        out.push_back(testing::vehicleOnLane(map, lane, fraction(rng) * map.lane(lane).length_m, speed(rng), i));
    }
    return out;
}

std::size_t allocationsDuringUpdate(const RoadMap& map) {
    auto sut = Scene::create(map, SceneCapacities{}, CorridorSearchParams{});
    EXPECT_TRUE(sut.hasValue());
    const auto vehicles = randomVehicles(map);
    const SceneStats warm = sut->update(vehicles);
    EXPECT_GT(warm.corridors, 0U);
    EXPECT_GT(warm.relations, 0U);
    SceneStats counted;
    const auto allocations = augur::testing::allocationsDuring([&] { counted = sut->update(vehicles); });
    EXPECT_GT(counted.laneMemory.remembered, 0U);  // the update matched with the memory of the one before
    return static_cast<std::size_t>(allocations);
}

TEST(SceneNoAllocation, UpdateOnTheLanelet2ExampleAllocatesNothing) {
    auto map = readLanelet2(testing::mapPath("lanelet2_mapping_example.osm"), Lanelet2Options{49.0, 8.4});
    ASSERT_TRUE(map.hasValue());
    EXPECT_EQ(allocationsDuringUpdate(*map), 0U);
}

TEST(SceneNoAllocation, UpdateOnASumoCityGridAllocatesNothing) {
    std::string error;
    const std::string path = testing::cityGridNet(4, error);
    ASSERT_FALSE(path.empty()) << error;
    auto map = readSumoNet(path);
    ASSERT_TRUE(map.hasValue());
    EXPECT_EQ(allocationsDuringUpdate(*map), 0U);
}

}  // namespace
}  // namespace augur::runtime::scene
