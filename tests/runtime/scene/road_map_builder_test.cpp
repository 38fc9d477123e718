#include "augur/runtime/scene/road_map_builder.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace augur::runtime::scene {
namespace {

constexpr double TOLERANCE_M = 1e-9;

LaneSpec straight(const std::string& id, Point2 from, Point2 to) {
    LaneSpec spec;
    spec.id = id;
    spec.centreline = {from, to};
    return spec;
}

TEST(RoadMapBuilder, CrossingIsFoundWithArcLengthOnBothLanes) {
    RoadMapBuilder sut("cross");
    const auto a = sut.addLane(straight("a", {0.0, 0.0}, {10.0, 0.0}));
    const auto b = sut.addLane(straight("b", {4.0, -3.0}, {4.0, 7.0}));
    auto map = sut.build();
    ASSERT_TRUE(map.hasValue());
    ASSERT_EQ(map->conflicts().size(), 1U);
    const Conflict& c = map->conflicts()[0];
    EXPECT_EQ(c.first, a);
    EXPECT_EQ(c.second, b);
    EXPECT_EQ(c.kind, ConflictKind::Crossing);
    EXPECT_NEAR(c.firstS_m, 4.0, TOLERANCE_M);
    EXPECT_NEAR(c.secondS_m, 3.0, TOLERANCE_M);
    EXPECT_NEAR(c.point.x_m, 4.0, TOLERANCE_M);
    EXPECT_EQ(c.priority, Priority::Unregulated);  // no rule installed
    EXPECT_EQ(map->conflictBetween(b, a), 0U);
    EXPECT_EQ(map->laneConflicts(a).size(), 1U);
}

TEST(RoadMapBuilder, SuccessorsNeighboursTwinsAndDivergingLanesNeverConflict) {
    RoadMapBuilder sut("related");
    const auto in = sut.addLane(straight("in", {-10.0, 0.0}, {0.0, 0.0}));
    const auto left = sut.addLane(straight("left", {0.0, 0.0}, {10.0, 5.0}));
    const auto right = sut.addLane(straight("right", {0.0, 0.0}, {10.0, -5.0}));
    const auto twinA = sut.addLane(straight("twin", {0.0, 10.0}, {10.0, 10.0}));
    const auto twinB = sut.addLane(straight("twin:reverse", {10.0, 10.0}, {0.0, 10.0}));
    const auto crossing = sut.addLane(straight("neighbour", {0.0, 12.0}, {10.0, 8.0}));
    sut.addSuccessor(in, left);
    sut.addSuccessor(in, right);
    sut.setTwins(twinA, twinB);
    sut.setNeighbour(twinA, Side::Left, crossing, false);
    auto map = sut.build();
    ASSERT_TRUE(map.hasValue());
    // Only the reverse twin crosses the "neighbour" (which is a neighbour of the forward twin only).
    ASSERT_EQ(map->conflicts().size(), 1U);
    EXPECT_EQ(map->conflicts()[0].first, twinB);
    EXPECT_EQ(map->conflicts()[0].second, crossing);
    EXPECT_EQ(map->predecessors(left).size(), 1U);
    EXPECT_EQ(map->predecessors(left)[0], in);
}

TEST(RoadMapBuilder, LanesIntoOneSuccessorMergeAtItsStartAndFormAJunction) {
    RoadMapBuilder sut("merge");
    const auto main = sut.addLane(straight("main", {0.0, 0.0}, {10.0, 0.0}));
    const auto ramp = sut.addLane(straight("ramp", {0.0, -5.0}, {10.0, 0.0}));
    const auto out = sut.addLane(straight("out", {10.0, 0.0}, {20.0, 0.0}));
    sut.addSuccessor(main, out);
    sut.addSuccessor(ramp, out);
    ConflictKind seenKind = ConflictKind::Crossing;
    sut.setPriorityRule([&](std::uint32_t a, std::uint32_t, ConflictKind kind) {
        seenKind = kind;
        return a == main ? Priority::FirstHasPriority : Priority::SecondHasPriority;
    });
    sut.deriveJunctions(true);
    auto map = sut.build();
    ASSERT_TRUE(map.hasValue());
    ASSERT_EQ(map->conflicts().size(), 1U);
    const Conflict& c = map->conflicts()[0];
    EXPECT_EQ(c.kind, ConflictKind::Merge);
    EXPECT_EQ(seenKind, ConflictKind::Merge);
    EXPECT_NEAR(c.firstS_m, 10.0, TOLERANCE_M);
    EXPECT_NEAR(c.secondS_m, std::hypot(10.0, 5.0), TOLERANCE_M);
    EXPECT_TRUE(map->hasPriority(0, main));
    EXPECT_FALSE(map->hasPriority(0, ramp));
    ASSERT_EQ(map->junctions().size(), 1U);
    EXPECT_EQ(map->junctionLanes(0).size(), 2U);
    EXPECT_EQ(map->lane(out).junction, NO_INDEX);
    EXPECT_EQ(c.junction, 0U);
}

TEST(RoadMapBuilder, PointAtInterpolatesAndClampsToTheLane) {
    RoadMapBuilder sut("polyline");
    LaneSpec spec;
    spec.id = "l";
    spec.centreline = {{0.0, 0.0}, {10.0, 0.0}, {10.0, 0.0}, {10.0, 10.0}};  // a repeated point is dropped
    (void)sut.addLane(spec);
    auto map = sut.build();
    ASSERT_TRUE(map.hasValue());
    EXPECT_EQ(map->lane(0).pointCount, 3U);
    EXPECT_NEAR(map->lane(0).length_m, 20.0, TOLERANCE_M);
    Point2 p;
    double heading = 0.0;
    map->pointAt(0, 15.0, p, heading);
    EXPECT_NEAR(p.x_m, 10.0, TOLERANCE_M);
    EXPECT_NEAR(p.y_m, 5.0, TOLERANCE_M);
    EXPECT_NEAR(heading, M_PI / 2.0, TOLERANCE_M);
    map->pointAt(0, -3.0, p, heading);
    EXPECT_NEAR(p.x_m, 0.0, TOLERANCE_M);
    map->pointAt(0, 99.0, p, heading);
    EXPECT_NEAR(p.y_m, 10.0, TOLERANCE_M);
}

TEST(RoadMapBuilder, RejectsDegenerateLanesAndEmptyMaps) {
    {
        RoadMapBuilder sut("empty");
        auto map = sut.build();
        ASSERT_TRUE(map.hasError());
        EXPECT_EQ(map.error().code, MapErrorCode::Empty);
    }
    {
        RoadMapBuilder sut("point");
        LaneSpec spec = straight("p", {1.0, 1.0}, {1.0, 1.0});
        spec.sourceLine = 42;
        (void)sut.addLane(spec);
        auto map = sut.build();
        ASSERT_TRUE(map.hasError());
        EXPECT_EQ(map.error().code, MapErrorCode::BadGeometry);
        EXPECT_EQ(map.error().elementId, "lane p");
        EXPECT_EQ(map.error().line, 42U);
    }
    {
        RoadMapBuilder sut("nan");
        (void)sut.addLane(straight("n", {0.0, 0.0}, {std::numeric_limits<double>::quiet_NaN(), 1.0}));
        auto map = sut.build();
        ASSERT_TRUE(map.hasError());
        EXPECT_EQ(map.error().code, MapErrorCode::BadGeometry);
    }
    {
        RoadMapBuilder sut("width");
        LaneSpec spec = straight("w", {0.0, 0.0}, {1.0, 0.0});
        spec.width_m = 0.0;
        (void)sut.addLane(spec);
        auto map = sut.build();
        ASSERT_TRUE(map.hasError());
        EXPECT_EQ(map.error().code, MapErrorCode::BadValue);
    }
}

}  // namespace
}  // namespace augur::runtime::scene
