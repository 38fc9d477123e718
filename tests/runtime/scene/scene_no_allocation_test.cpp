// Proves the run-phase claim: Scene::update() allocates nothing (after Eigen's test/nomalloc.cpp,
// this binary replaces global operator new and counts calls while a flag is set).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <random>
#include <vector>

#include "augur/runtime/scene/map_readers.hpp"
#include "augur/runtime/scene/scene.hpp"
#include "scene_test_support.hpp"
#include "sumo_nets.hpp"

namespace {
std::atomic<bool> g_counting{false};
std::atomic<std::size_t> g_allocations{0};
}  // namespace

// GCC pairs the inlined replacement delete with the library's operator new and warns; the pair
// below is consistent (malloc/free).
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

void* operator new(std::size_t size) {
    if (g_counting.load(std::memory_order_relaxed)) {
        g_allocations.fetch_add(1, std::memory_order_relaxed);
    }
    if (void* p = std::malloc(size == 0 ? 1 : size)) {
        return p;
    }
    throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

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
    g_allocations = 0;
    g_counting = true;
    (void)sut->update(vehicles);
    g_counting = false;
    return g_allocations.load();
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

TEST(SceneNoAllocation, TheCounterSeesAllocations) {
    g_allocations = 0;
    g_counting = true;
    auto* p = new std::vector<int>(3);
    g_counting = false;
    delete p;
    EXPECT_GE(g_allocations.load(), 1U);
}

}  // namespace
}  // namespace augur::runtime::scene
