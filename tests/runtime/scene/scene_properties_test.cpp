// Invariants of corridors and relations on real maps with seeded random traffic.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "augur/core/messages.hpp"

#include "augur/runtime/scene/map_readers.hpp"
#include "augur/runtime/scene/scene.hpp"
#include "scene_test_support.hpp"
#include "sumo_nets.hpp"

namespace augur::runtime::scene {
namespace {

constexpr std::uint32_t VEHICLES = 64;
constexpr std::uint32_t SEEDS[] = {1, 2, 3};
constexpr double S_TOLERANCE_M = 1e-3;

std::vector<SceneVehicle> randomTraffic(const RoadMap& map, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::uniform_int_distribution<std::uint32_t> laneDist(0, static_cast<std::uint32_t>(map.laneCount() - 1));
    std::uniform_real_distribution<double> fraction(0.0, 1.0);
    std::uniform_real_distribution<float> speed(0.0F, 20.0F);
    std::vector<SceneVehicle> out;
    for (std::uint32_t i = 0; i < VEHICLES; ++i) {
        const std::uint32_t lane = laneDist(rng);
        out.push_back(testing::vehicleOnLane(map, lane, fraction(rng) * map.lane(lane).length_m, speed(rng), i));
    }
    return out;
}

RelativePriority mirrored(RelativePriority p) {
    switch (p) {
        case RelativePriority::ThisHasPriority: return RelativePriority::OtherHasPriority;
        case RelativePriority::OtherHasPriority: return RelativePriority::ThisHasPriority;
        default: return p;
    }
}

void checkInvariants(const RoadMap& map, const std::vector<SceneVehicle>& vehicles) {
    auto sut = Scene::create(map, SceneCapacities{}, CorridorSearchParams{});
    ASSERT_TRUE(sut.hasValue());
    const SceneStats stats = sut->update(vehicles);
    EXPECT_EQ(stats.unlocalised, 0U);  // every vehicle was placed on a lane, heading along it
    const auto perVehicle = SceneCapacities{}.corridorsPerVehicle;
    const auto relationCapacity = SceneCapacities{}.relationsPerCorridor;
    const CorridorSearchParams params;
    for (std::uint32_t v = 0; v < sut->vehicleCount(); ++v) {
        const double maxLength =
            std::max(params.minLength_m, vehicles[v].speed_mps * params.horizon_s +
                                             0.5 * params.accel_mps2 * params.horizon_s * params.horizon_s + params.margin_m);
        for (std::uint32_t k = 0; k < sut->corridors(v).size(); ++k) {
            const std::uint32_t global = sut->corridorIndex(v, k);
            const Corridor& c = sut->corridor(global);
            ASSERT_FALSE(c.segments.empty());
            EXPECT_EQ(c.vehicle, v);
            EXPECT_LE(c.length_m, maxLength + S_TOLERANCE_M);
            EXPECT_EQ(c.segments[0].corridorS_m, 0.0F);
            // Contiguous: each segment starts where the previous ended, on one of its successors, or (a
            // merge) on a neighbour of a lane that ends there without successors.
            for (std::size_t i = 1; i < c.segments.size(); ++i) {
                const auto& prev = c.segments[i - 1];
                const auto& seg = c.segments[i];
                EXPECT_NEAR(seg.corridorS_m, prev.corridorS_m + (prev.sEnd_m - prev.sBegin_m), S_TOLERANCE_M);
                const auto next = map.successors(prev.lane);
                if (seg.merge) {
                    const Lane& ended = map.lane(prev.lane);
                    EXPECT_TRUE(next.empty());
                    EXPECT_NEAR(prev.sEnd_m, ended.length_m, S_TOLERANCE_M);
                    EXPECT_TRUE(ended.left.lane == seg.lane || ended.right.lane == seg.lane);
                    continue;
                }
                EXPECT_NE(std::find(next.begin(), next.end(), seg.lane), next.end());
                EXPECT_EQ(seg.sBegin_m, 0.0F);
            }
            const auto& last = c.segments[c.segments.size() - 1];
            EXPECT_NEAR(c.length_m, last.corridorS_m + (last.sEnd_m - last.sBegin_m), S_TOLERANCE_M);
            // Relations lie on both corridors and are mirrored by the other corridor.
            for (const CorridorRelation& r : sut->relations(global)) {
                EXPECT_NE(r.otherVehicle, v);
                EXPECT_GE(r.s_m, -S_TOLERANCE_M);
                EXPECT_LE(r.s_m, c.length_m + S_TOLERANCE_M);
                ASSERT_NE(r.otherCorridors, 0U);
                for (std::uint32_t j = 0; j < perVehicle; ++j) {
                    if (!r.involves(j)) {
                        continue;
                    }
                    ASSERT_LT(j, sut->corridors(r.otherVehicle).size());
                    const std::uint32_t otherGlobal = sut->corridorIndex(r.otherVehicle, j);
                    EXPECT_LE(r.otherS_m, sut->corridor(otherGlobal).length_m + S_TOLERANCE_M);
                    const auto back = sut->relations(otherGlobal);
                    if (back.size() == relationCapacity) {
                        continue;  // the mirror may have been dropped (counted)
                    }
                    const auto mirror = std::find_if(back.begin(), back.end(), [&](const CorridorRelation& b) {
                        return b.otherVehicle == v && b.involves(k) && b.kind == r.kind;
                    });
                    ASSERT_NE(mirror, back.end());
                    if (mirror->conflict == r.conflict) {  // the same place (corridors may meet twice)
                        EXPECT_EQ(mirror->priority, mirrored(r.priority));
                        EXPECT_NEAR(mirror->s_m, r.otherS_m, S_TOLERANCE_M);
                    }
                }
                if (r.kind != CorridorRelationKind::SharedLane) {
                    // The s on this corridor points at the conflict point.
                    Point2 p;
                    double h = 0.0;
                    corridorPointAt(map, c, r.s_m, p, h);
                    EXPECT_NEAR(p.x_m, map.conflicts()[r.conflict].point.x_m, 0.05);
                    EXPECT_NEAR(p.y_m, map.conflicts()[r.conflict].point.y_m, 0.05);
                }
            }
            for (const IntersectionRelation& x : sut->intersections(global)) {
                EXPECT_LE(x.entry_m, x.exit_m);
                EXPECT_LE(x.exit_m, c.length_m + S_TOLERANCE_M);
            }
        }
        // A vehicle found ahead of v on its own lane reports v behind it with the same gap.
        const LateralNeighbour& ahead = sut->lateral(v)[LateralSlot::SameAhead];
        if (ahead.vehicle != NO_INDEX) {
            const LateralNeighbour& behind = sut->lateral(ahead.vehicle)[LateralSlot::SameBehind];
            ASSERT_NE(behind.vehicle, NO_INDEX);
            EXPECT_LE(behind.gap_m, ahead.gap_m + S_TOLERANCE_M);
        }
    }
}

TEST(SceneProperties, CorridorsAndRelationsAreConsistentOnTheLanelet2Example) {
    auto map = readLanelet2(testing::mapPath("lanelet2_mapping_example.osm"), Lanelet2Options{49.0, 8.4});
    ASSERT_TRUE(map.hasValue());
    for (const std::uint32_t seed : SEEDS) {
        SCOPED_TRACE(seed);
        checkInvariants(*map, randomTraffic(*map, seed));
    }
}

TEST(SceneProperties, CorridorsAndRelationsAreConsistentOnASumoCityGrid) {
    std::string error;
    const std::string path = testing::cityGridNet(3, error);
    ASSERT_FALSE(path.empty()) << error;
    auto map = readSumoNet(path);
    ASSERT_TRUE(map.hasValue());
    for (const std::uint32_t seed : SEEDS) {
        SCOPED_TRACE(seed);
        checkInvariants(*map, randomTraffic(*map, seed));
    }
}

}  // namespace
}  // namespace augur::runtime::scene
