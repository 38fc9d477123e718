#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "augur/runtime/scene/lane_memory.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "augur/runtime/scene/scene.hpp"
#include "scene_test_support.hpp"
#include "sumo_nets.hpp"

namespace augur::runtime::scene {
namespace {

constexpr std::uint32_t TRACK_ID = 7;
constexpr float TURN_SPEED_MPS = 5.0F;
/// Poses along the turn this far apart: a vehicle at TURN_SPEED_MPS seen at 10 Hz.
constexpr double STEP_M = 0.5;
/// How far the track lies outside the left turn where it lags most: a position filter lags the vehicle
/// where the turn tightens (it goes on straighter than the vehicle does), here just past the turn lane's
/// gate (half the lane width plus 1 m), and catches up by the end of the turn.
constexpr double OUTWARD_LAG_M = 2.7;
/// The turn lane ":A0_17_0" bends at 4.7 m: the track keeps to it up to LAG_START_S_M, lies outside it
/// by OUTWARD_LAG_M at LAG_PEAK_S_M and is back on it at the lane's end (linear in between).
constexpr double LAG_START_S_M = 4.0;
constexpr double LAG_PEAK_S_M = 4.5;

// The four-way junction's approach from the south: its left lane goes straight (":A0_9_1") or turns left
// (":A0_11_0" then ":A0_17_0"); the two internal lanes start at one point and overlap for metres.
const char* const APPROACH = "bottom0A0_1";
const char* const TURN_START = ":A0_11_0";
const char* const TURN = ":A0_17_0";
const char* const TURN_EXIT = "A0left0_1";
const char* const THROUGH = ":A0_9_1";
const char* const THROUGH_EXIT = "A0top0_1";

RoadMap fourWay() {
    std::string error;
    const std::string path = testing::fourWayJunctionNet(error);
    EXPECT_FALSE(path.empty()) << error;
    auto map = readSumoNet(path);
    EXPECT_TRUE(map.hasValue());
    return std::move(map).value();
}

/// Poses every STEP_M along the left turn, from 12 m before the junction to 10 m after it, the track
/// lying outside the turn lane by up to OUTWARD_LAG_M where the turn tightens.
/// `turning` (when given) is set per pose: true from the start of the turn lane proper (past the part
/// shared with the through lane) on.
std::vector<SceneVehicle> leftTurn(const RoadMap& map, std::vector<bool>* turning = nullptr) {
    struct Piece {
        std::uint32_t lane;
        double from_m;
        double to_m;
        bool lagging;
    };
    const std::uint32_t approach = testing::laneOrFail(map, APPROACH);
    const std::uint32_t turn = testing::laneOrFail(map, TURN);
    const Piece pieces[] = {
        {approach, map.lane(approach).length_m - 12.0, map.lane(approach).length_m, false},
        {testing::laneOrFail(map, TURN_START), 0.0, map.lane(testing::laneOrFail(map, TURN_START)).length_m, false},
        {turn, 0.0, map.lane(turn).length_m, true},
        {testing::laneOrFail(map, TURN_EXIT), 0.0, 10.0, false},
    };
    std::vector<SceneVehicle> poses;
    for (const Piece& piece : pieces) {
        for (double s = piece.from_m; s < piece.to_m; s += STEP_M) {
            SceneVehicle v = testing::vehicleOnLane(map, piece.lane, s, TURN_SPEED_MPS, TRACK_ID);
            if (piece.lagging) {
                const double outward =
                    s <= LAG_START_S_M   ? 0.0
                    : s <= LAG_PEAK_S_M ? OUTWARD_LAG_M * (s - LAG_START_S_M) / (LAG_PEAK_S_M - LAG_START_S_M)
                                        : OUTWARD_LAG_M * (piece.to_m - s) / (piece.to_m - LAG_PEAK_S_M);
                // Outside a left turn is to the right of the heading.
                v.x_m += static_cast<float>(outward * std::sin(v.heading_rad));
                v.y_m -= static_cast<float>(outward * std::cos(v.heading_rad));
            }
            poses.push_back(v);
            if (turning != nullptr) {
                turning->push_back(piece.lane == turn || piece.lane == testing::laneOrFail(map, TURN_EXIT));
            }
        }
    }
    return poses;
}

bool onLane(const RoadMap& map, std::span<const Corridor> corridors, const std::string& id) {
    for (const Corridor& c : corridors) {
        for (const CorridorSegment& s : c.segments) {
            if (map.laneId(s.lane) == id) {
                return true;
            }
        }
    }
    return false;
}

Scene makeScene(const RoadMap& map) {
    auto scene = Scene::create(map, SceneCapacities{}, CorridorSearchParams{});
    EXPECT_TRUE(scene.hasValue());
    return std::move(scene).value();
}

TEST(LaneMemory, WithoutMemoryTheLaggingTurnIsMatchedToTheThroughLaneOnly) {
    // The case the memory is for: matched afresh at each pose, some poses of the turn have no corridor
    // that turns left, only corridors that go straight on.
    const RoadMap map = fourWay();
    std::uint32_t straightOnly = 0;
    for (const SceneVehicle& pose : leftTurn(map)) {
        Scene sut = makeScene(map);
        (void)sut.update(std::span<const SceneVehicle>(&pose, 1));
        const auto corridors = sut.corridors(0);
        if (!corridors.empty() && !onLane(map, corridors, TURN_EXIT) && onLane(map, corridors, THROUGH_EXIT)) {
            ++straightOnly;
        }
    }
    EXPECT_GT(straightOnly, 0U);
}

TEST(LaneMemory, AVehicleThatEnteredTheLeftTurnStaysMatchedToItThroughTheJunction) {
    const RoadMap map = fourWay();
    Scene sut = makeScene(map);
    std::vector<bool> turning;
    const auto poses = leftTurn(map, &turning);
    bool turnEstablished = false;  // the through lane no longer matched: the vehicle has shown its turn
    for (std::size_t i = 0; i < poses.size(); ++i) {
        const SceneStats stats = sut.update(std::span<const SceneVehicle>(&poses[i], 1));
        const auto corridors = sut.corridors(0);
        ASSERT_FALSE(corridors.empty());
        if (turning[i]) {
            EXPECT_TRUE(onLane(map, corridors, TURN_EXIT)) << "pose " << i;
            EXPECT_EQ(stats.laneMemory.leftMemory, 0U) << "pose " << i;
        }
        if (turnEstablished) {
            EXPECT_FALSE(onLane(map, corridors, THROUGH)) << "pose " << i;
        }
        turnEstablished = turnEstablished || (turning[i] && !onLane(map, corridors, THROUGH));
    }
    EXPECT_TRUE(turnEstablished);
}

/// The first pose of the turn at which matching without memory gives only corridors straight on.
SceneVehicle firstStraightOnlyPose(const RoadMap& map, std::size_t& index) {
    const auto poses = leftTurn(map);
    for (index = 0; index < poses.size(); ++index) {
        Scene fresh = makeScene(map);
        (void)fresh.update(std::span<const SceneVehicle>(&poses[index], 1));
        if (!fresh.corridors(0).empty() && !onLane(map, fresh.corridors(0), TURN_EXIT)) {
            return poses[index];
        }
    }
    ADD_FAILURE() << "no pose of the turn is matched to the through lane only";
    return poses.front();
}

/// Drives the turn up to (not including) pose `index`.
void driveTurnUpTo(Scene& sut, const RoadMap& map, std::size_t index) {
    const auto poses = leftTurn(map);
    for (std::size_t i = 0; i < index; ++i) {
        (void)sut.update(std::span<const SceneVehicle>(&poses[i], 1));
    }
}

/// A track driven through the left turn up to `lagging`, the first pose of it that matching without
/// memory gives only corridors straight on.
class LaneMemoryAfterATurn : public ::testing::Test {
protected:
    void SetUp() override { driveTurnUpTo(sut, map, index); }

    /// The update was matched as without memory: nothing remembered, restored or left, and no turn.
    void expectMatchedWithoutMemory(const SceneStats& stats) const {
        EXPECT_EQ(stats.laneMemory.remembered + stats.laneMemory.restored + stats.laneMemory.leftMemory, 0U);
        EXPECT_FALSE(onLane(map, sut.corridors(0), TURN_EXIT));
    }

    const RoadMap map = fourWay();
    Scene sut = makeScene(map);
    std::size_t index = 0;
    SceneVehicle lagging = firstStraightOnlyPose(map, index);
};

TEST_F(LaneMemoryAfterATurn, ATrackThatJumpsFarOffIsMatchedWithoutMemory) {
    // The same track now 40 m up the north arm, over 50 m away: further than a vehicle drives between two
    // updates, whatever lanes lead there.
    const std::uint32_t north = testing::laneOrFail(map, "A0top0_0");
    const SceneVehicle jumped = testing::vehicleOnLane(map, north, 40.0, 10.0F, TRACK_ID);
    const SceneStats stats = sut.update(std::span<const SceneVehicle>(&jumped, 1));
    EXPECT_EQ(stats.laneMemory.leftMemory, 1U);
    EXPECT_EQ(map.laneId(sut.located(0).lane), "A0top0_0");
    EXPECT_TRUE(onLane(map, sut.corridors(0), "A0top0_0"));
}

TEST_F(LaneMemoryAfterATurn, AVehicleThatLeftItsTurnForTheBranchNotTakenIsMatchedWithoutMemory) {
    // The track turns up past the junction on the through lane's exit after all, beyond the widened gates
    // of the turn: the memory was wrong.
    const std::uint32_t exit = testing::laneOrFail(map, THROUGH_EXIT);
    const SceneVehicle straight = testing::vehicleOnLane(map, exit, 5.0, 5.0F, TRACK_ID);
    const SceneStats stats = sut.update(std::span<const SceneVehicle>(&straight, 1));
    EXPECT_EQ(stats.laneMemory.leftMemory, 1U);
    EXPECT_EQ(sut.located(0).lane, exit);
}

TEST_F(LaneMemoryAfterATurn, ALaneNoForkBehindTheVehicleLeadsToIsKept) {
    // Memory drops only the branches the vehicle did not take: a lane that no remembered lane forks into
    // (here the opposite direction's through lane, as a track might jump to) is matched as without memory.
    const SceneVehicle off = testing::vehicleOnLane(map, testing::laneOrFail(map, ":A0_1_0"), 12.0, 5.0F, TRACK_ID);
    const SceneStats stats = sut.update(std::span<const SceneVehicle>(&off, 1));
    EXPECT_EQ(stats.laneMemory.candidatesDropped, 0U);
    EXPECT_EQ(map.laneId(sut.located(0).lane), ":A0_1_0");
}

TEST_F(LaneMemoryAfterATurn, AnIdThatComesBackAfterItsTrackEndedCarriesNoMemory) {
    // The track ends (an update without it); a vehicle under the same id afterwards is another road user.
    const SceneVehicle other = testing::vehicleOnLane(map, testing::laneOrFail(map, "A0top0_0"), 40.0, 10.0F, 99);
    (void)sut.update(std::span<const SceneVehicle>(&other, 1));
    const SceneStats stats = sut.update(std::span<const SceneVehicle>(&lagging, 1));
    expectMatchedWithoutMemory(stats);
}

TEST_F(LaneMemoryAfterATurn, TheMemoryOfOneTrackIsNotAnothers) {
    // Another track at the lagging pose while the turning one is gone: matched without memory.
    lagging.id = TRACK_ID + 1;
    const SceneStats stats = sut.update(std::span<const SceneVehicle>(&lagging, 1));
    expectMatchedWithoutMemory(stats);
}

TEST_F(LaneMemoryAfterATurn, AnIdGivenToTwoVehiclesOfOneUpdateCarriesNoMemory) {
    const SceneVehicle twice[2] = {lagging, testing::vehicleOnLane(map, testing::laneOrFail(map, "A0top0_0"), 40.0,
                                                                    10.0F, TRACK_ID)};
    const SceneStats stats = sut.update(twice);
    expectMatchedWithoutMemory(stats);
}

TEST_F(LaneMemoryAfterATurn, ForgetClearsEveryTracksMemory) {
    sut.forgetLanes();
    const SceneStats stats = sut.update(std::span<const SceneVehicle>(&lagging, 1));
    expectMatchedWithoutMemory(stats);
}

TEST_F(LaneMemoryAfterATurn, TheSameTrackAtTheLaggingPoseKeepsItsTurn) {
    // The counterpart of the tests above: with its own memory the lagging pose keeps the turn.
    const SceneStats stats = sut.update(std::span<const SceneVehicle>(&lagging, 1));
    EXPECT_EQ(stats.laneMemory.restored, 1U);
    EXPECT_TRUE(onLane(map, sut.corridors(0), TURN_EXIT));
}

TEST(LaneMemory, AStandingVehicleKeepsItsLanes) {
    const RoadMap map = fourWay();
    Scene sut = makeScene(map);
    const SceneVehicle v = testing::vehicleOnLane(map, testing::laneOrFail(map, APPROACH), 40.0, 0.0F, TRACK_ID);
    (void)sut.update(std::span<const SceneVehicle>(&v, 1));
    const auto before = sut.corridors(0).size();
    const SceneStats stats = sut.update(std::span<const SceneVehicle>(&v, 1));
    EXPECT_EQ(stats.laneMemory.remembered, 1U);
    EXPECT_EQ(stats.laneMemory.candidatesDropped, 0U);
    EXPECT_EQ(sut.corridors(0).size(), before);
}

}  // namespace
}  // namespace augur::runtime::scene
