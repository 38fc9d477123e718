// augur's prediction as autoware_perception_msgs/PredictedObjects: the class numbering, the object id,
// the pose, the covariances and the paths of docs/dds.md's mapping table.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <memory>

#include "augur/bridge/autoware.hpp"
#include "augur/testing/allocation_counter.hpp"

namespace augur::bridge {
namespace {

// autoware_perception_msgs/ObjectClassification constants.
constexpr std::uint8_t AW_UNKNOWN = 0;
constexpr std::uint8_t AW_CAR = 1;
constexpr std::uint8_t AW_TRUCK = 2;
constexpr std::uint8_t AW_BUS = 3;
constexpr std::uint8_t AW_MOTORCYCLE = 5;
constexpr std::uint8_t AW_BICYCLE = 6;
constexpr std::uint8_t AW_PEDESTRIAN = 7;
constexpr double TOLERANCE = 1e-6;

TEST(AutowareLabel, FollowsAutowaresNumberingWhereMotorcycleIsFive) {
    EXPECT_EQ(autowareLabel(ObjectClass::Unknown), AW_UNKNOWN);
    EXPECT_EQ(autowareLabel(ObjectClass::Car), AW_CAR);
    EXPECT_EQ(autowareLabel(ObjectClass::Truck), AW_TRUCK);
    EXPECT_EQ(autowareLabel(ObjectClass::Bus), AW_BUS);
    EXPECT_EQ(autowareLabel(ObjectClass::Motorcycle), AW_MOTORCYCLE);
    EXPECT_EQ(autowareLabel(ObjectClass::Bicycle), AW_BICYCLE);
    EXPECT_EQ(autowareLabel(ObjectClass::Pedestrian), AW_PEDESTRIAN);
}

TEST(AutowareUuid, IsStablePerTrackAndDistinctAcrossTracks) {
    std::uint8_t a[16];
    std::uint8_t again[16];
    std::uint8_t b[16];

    autowareUuid(0x01020304U, a);
    autowareUuid(0x01020304U, again);
    autowareUuid(0x01020305U, b);

    EXPECT_EQ(0, std::memcmp(a, again, 16));
    EXPECT_NE(0, std::memcmp(a, b, 16));
    EXPECT_EQ(a[0], 'a');
    EXPECT_EQ(a[12], 0x01);
    EXPECT_EQ(a[15], 0x04);
}

struct Scene {
    std::unique_ptr<MotionPrediction> prediction = std::make_unique<MotionPrediction>();
    std::unique_ptr<TrackList> tracks = std::make_unique<TrackList>();
};

/// One motorcycle driving north-east at 45° with two corridors of four steps; a second predicted
/// vehicle whose track is missing from the list.
Scene makeScene() {
    Scene s;
    s.tracks->trackCount = 1;
    Track& t = s.tracks->tracks[0];
    t.id = 5;
    t.objectClass = ObjectClass::Motorcycle;
    t.x_m = 10.0F;
    t.y_m = 20.0F;
    t.vx_mps = 3.0F;
    t.vy_mps = 3.0F;
    t.covXX_m2 = 0.4F;
    t.covXY_m2 = 0.1F;
    t.covYY_m2 = 0.5F;
    MotionPrediction& p = *s.prediction;
    p.header.stamp_ns = 12'500'000'000;
    p.step_s = 0.5F;
    p.horizonSteps = 4;
    p.vehicleCount = 2;
    p.vehicles[0].trackId = 5;
    p.vehicles[0].corridorCount = 2;
    for (std::uint32_t c = 0; c < 2; ++c) {
        p.vehicles[0].corridors[c].probability = c == 0 ? 0.7F : 0.3F;
        for (std::uint32_t k = 0; k < 4; ++k) {
            const auto d = static_cast<float>(k + 1);
            p.vehicles[0].corridors[c].points[k] = {d, 0.1F, 10.0F + d, c == 0 ? 20.0F + d : 20.0F};
        }
    }
    p.vehicles[1].trackId = 99;
    return s;
}

TEST(AutowarePredictions, JoinsEachVehicleWithItsTrack) {
    const Scene scene = makeScene();
    AutowarePredictions sut("map");

    const std::uint32_t missing = sut.fill(*scene.prediction, *scene.tracks);

    EXPECT_EQ(missing, 1U);
    ASSERT_EQ(sut.sample().objects._length, 1U);
    EXPECT_STREQ(sut.sample().header.frame_id, "map");
    EXPECT_EQ(sut.sample().header.stamp.sec, 12);
    EXPECT_EQ(sut.sample().header.stamp.nanosec, 500'000'000U);
    const auto& object = sut.sample().objects._buffer[0];
    ASSERT_EQ(object.classification._length, 1U);
    EXPECT_EQ(object.classification._buffer[0].label, AW_MOTORCYCLE);
    EXPECT_EQ(object.object_id.uuid[15], 5);
}

TEST(AutowarePredictions, PoseIsThePositionWithTheHeadingOfTheVelocity) {
    const Scene scene = makeScene();
    AutowarePredictions sut("map");

    (void)sut.fill(*scene.prediction, *scene.tracks);

    const auto& kin = sut.sample().objects._buffer[0].kinematics;
    const auto& pose = kin.initial_pose_with_covariance.pose;
    EXPECT_NEAR(pose.position.x, 10.0, TOLERANCE);
    EXPECT_NEAR(pose.position.y, 20.0, TOLERANCE);
    EXPECT_NEAR(pose.orientation.z, std::sin(M_PI / 8.0), TOLERANCE);  // yaw 45°
    EXPECT_NEAR(pose.orientation.w, std::cos(M_PI / 8.0), TOLERANCE);
    EXPECT_NEAR(kin.initial_twist_with_covariance.twist.linear.x, std::hypot(3.0, 3.0), 1e-5);
    const double* covariance = kin.initial_pose_with_covariance.covariance;
    EXPECT_NEAR(covariance[0], 0.4, 1e-6);
    EXPECT_NEAR(covariance[1], 0.1, 1e-6);
    EXPECT_NEAR(covariance[6], 0.1, 1e-6);
    EXPECT_NEAR(covariance[7], 0.5, 1e-6);
    EXPECT_EQ(covariance[35], 0.0);
}

TEST(AutowarePredictions, OnePathPerCorridorWithConfidenceAndTimeStep) {
    const Scene scene = makeScene();
    AutowarePredictions sut("map");

    (void)sut.fill(*scene.prediction, *scene.tracks);

    const auto& paths = sut.sample().objects._buffer[0].kinematics.predicted_paths;
    ASSERT_EQ(paths._length, 2U);
    EXPECT_FLOAT_EQ(paths._buffer[0].confidence, 0.7F);
    EXPECT_FLOAT_EQ(paths._buffer[1].confidence, 0.3F);
    EXPECT_EQ(paths._buffer[0].time_step.sec, 0);
    EXPECT_EQ(paths._buffer[0].time_step.nanosec, 500'000'000U);
    ASSERT_EQ(paths._buffer[1].path._length, 4U);
    EXPECT_NEAR(paths._buffer[1].path._buffer[3].position.x, 14.0, TOLERANCE);
    // The second corridor runs due east: yaw 0.
    EXPECT_NEAR(paths._buffer[1].path._buffer[3].orientation.z, 0.0, TOLERANCE);
    EXPECT_NEAR(paths._buffer[1].path._buffer[3].orientation.w, 1.0, TOLERANCE);
}

TEST(AutowarePredictions, NoVehiclesGivesNoObjects) {
    Scene scene = makeScene();
    scene.prediction->vehicleCount = 0;
    AutowarePredictions sut("map");

    EXPECT_EQ(sut.fill(*scene.prediction, *scene.tracks), 0U);
    EXPECT_EQ(sut.sample().objects._length, 0U);
}

TEST(AutowarePredictions, FillAllocatesNothing) {
    const Scene scene = makeScene();
    AutowarePredictions sut("map");

    const std::uint64_t allocations =
        testing::allocationsDuring([&] { (void)sut.fill(*scene.prediction, *scene.tracks); });

    EXPECT_EQ(allocations, 0U);
}

}  // namespace
}  // namespace augur::bridge
