#include "augur/bridge/autoware.hpp"

#include <array>
#include <cmath>
#include <vector>

namespace augur::bridge {
namespace {

constexpr std::size_t AUTOWARE_MAX_PATHS = 10;       // PredictedObjectKinematics.predicted_paths[<=10]
constexpr std::size_t AUTOWARE_MAX_PATH_POSES = 100;  // PredictedPath.path[<=100]
static_assert(MAX_CORRIDORS_PER_VEHICLE <= AUTOWARE_MAX_PATHS);
static_assert(MAX_HORIZON_STEPS <= AUTOWARE_MAX_PATH_POSES);

constexpr std::uint8_t SHAPE_BOUNDING_BOX = 0;
constexpr std::int64_t NS_PER_S = 1'000'000'000;

/// Quaternion of a rotation by `yaw_rad` about +z.
geometry_msgs_msg_dds__Quaternion_ yawQuaternion(double yaw_rad) noexcept {
    return {0.0, 0.0, std::sin(0.5 * yaw_rad), std::cos(0.5 * yaw_rad)};
}

builtin_interfaces_msg_dds__Time_ toTime(std::int64_t ns) noexcept {
    const std::int64_t sec = ns >= 0 ? ns / NS_PER_S : -((-ns + NS_PER_S - 1) / NS_PER_S);
    return {static_cast<std::int32_t>(sec), static_cast<std::uint32_t>(ns - sec * NS_PER_S)};
}

// Row-major 6x6 index over (x, y, z, rotation about x, y, z).
constexpr std::size_t cov(std::size_t row, std::size_t col) { return row * 6 + col; }

}  // namespace

std::uint8_t autowareLabel(ObjectClass value) noexcept {
    switch (value) {
        case ObjectClass::Unknown: return 0;
        case ObjectClass::Car: return 1;
        case ObjectClass::Truck: return 2;
        case ObjectClass::Bus: return 3;
        case ObjectClass::Motorcycle: return 5;
        case ObjectClass::Bicycle: return 6;
        case ObjectClass::Pedestrian: return 7;
        case ObjectClass::Count: break;
    }
    return 0;
}

void autowareUuid(std::uint32_t trackId, std::uint8_t (&uuid)[16]) noexcept {
    constexpr std::array<std::uint8_t, 5> TAG{'a', 'u', 'g', 'u', 'r'};
    for (std::size_t i = 0; i < 16; ++i) {
        uuid[i] = i < TAG.size() ? TAG[i] : 0;
    }
    uuid[12] = static_cast<std::uint8_t>(trackId >> 24U);
    uuid[13] = static_cast<std::uint8_t>(trackId >> 16U);
    uuid[14] = static_cast<std::uint8_t>(trackId >> 8U);
    uuid[15] = static_cast<std::uint8_t>(trackId);
}

struct AutowarePredictions::Buffers {
    std::array<autoware_perception_msgs_msg_dds__PredictedObject_, MAX_PREDICTED_VEHICLES> objects{};
    std::array<autoware_perception_msgs_msg_dds__ObjectClassification_, MAX_PREDICTED_VEHICLES> classes{};
    std::array<std::array<autoware_perception_msgs_msg_dds__PredictedPath_, MAX_CORRIDORS_PER_VEHICLE>,
               MAX_PREDICTED_VEHICLES>
        paths{};
    std::vector<geometry_msgs_msg_dds__Pose_> poses = std::vector<geometry_msgs_msg_dds__Pose_>(
        MAX_PREDICTED_VEHICLES * MAX_CORRIDORS_PER_VEHICLE * MAX_HORIZON_STEPS);
};

AutowarePredictions::AutowarePredictions(std::string frameId)
    : m_frameId(std::move(frameId)), m_buffers(std::make_unique<Buffers>()) {
    Buffers& b = *m_buffers;
    m_sample.header.frame_id = m_frameId.data();
    m_sample.objects = {static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES), 0, b.objects.data(), false};
    for (std::size_t v = 0; v < MAX_PREDICTED_VEHICLES; ++v) {
        auto& object = b.objects[v];
        object.classification = {1, 0, &b.classes[v], false};
        object.kinematics.predicted_paths = {static_cast<std::uint32_t>(MAX_CORRIDORS_PER_VEHICLE), 0,
                                             b.paths[v].data(), false};
        for (std::size_t c = 0; c < MAX_CORRIDORS_PER_VEHICLE; ++c) {
            b.paths[v][c].path = {static_cast<std::uint32_t>(MAX_HORIZON_STEPS), 0,
                                  &b.poses[(v * MAX_CORRIDORS_PER_VEHICLE + c) * MAX_HORIZON_STEPS], false};
        }
        object.shape.footprint.points = {0, 0, nullptr, false};
    }
}

AutowarePredictions::~AutowarePredictions() = default;

namespace {

/// The predicted object's initial pose, twist and acceleration (with covariances) from its track;
/// `yaw`: the heading of the track's velocity.
void fillInitialKinematics(autoware_perception_msgs_msg_dds__PredictedObjectKinematics_& kin, const Track* track,
                           double yaw) noexcept {
    kin.initial_pose_with_covariance.pose = {{track->x_m, track->y_m, 0.0}, yawQuaternion(yaw)};
    double* poseCov = kin.initial_pose_with_covariance.covariance;
    std::fill(poseCov, poseCov + 36, 0.0);
    poseCov[cov(0, 0)] = track->covXX_m2;
    poseCov[cov(0, 1)] = track->covXY_m2;
    poseCov[cov(1, 0)] = track->covXY_m2;
    poseCov[cov(1, 1)] = track->covYY_m2;
    // Autoware's twist is in the object's frame: x along its heading, which is the velocity's direction.
    const double speed = std::hypot(static_cast<double>(track->vx_mps), static_cast<double>(track->vy_mps));
    kin.initial_twist_with_covariance.twist = {{speed, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    double* twistCov = kin.initial_twist_with_covariance.covariance;
    std::fill(twistCov, twistCov + 36, 0.0);
    // Along the heading: the velocity covariance projected on the unit heading (cross term unknown: 0).
    const double cy = std::cos(yaw);
    const double sy = std::sin(yaw);
    twistCov[cov(0, 0)] = cy * cy * track->covVxVx_m2ps2 + sy * sy * track->covVyVy_m2ps2;
    twistCov[cov(1, 1)] = sy * sy * track->covVxVx_m2ps2 + cy * cy * track->covVyVy_m2ps2;
    const double ax = static_cast<double>(track->ax_mps2);
    const double ay = static_cast<double>(track->ay_mps2);
    kin.initial_acceleration_with_covariance.accel = {{cy * ax + sy * ay, -sy * ax + cy * ay, 0.0}, {0.0, 0.0, 0.0}};
    std::fill(kin.initial_acceleration_with_covariance.covariance,
              kin.initial_acceleration_with_covariance.covariance + 36, 0.0);
}

/// One corridor's predicted path: a pose per step, heading along the path (the track's until it moves).
void fillPath(autoware_perception_msgs_msg_dds__PredictedPath_& path, const CorridorPrediction& corridor,
              const Track* track, double yaw, std::uint32_t steps, std::int64_t stepNs) noexcept {
    const builtin_interfaces_msg_dds__Time_ step = toTime(stepNs);
    path.time_step = {step.sec, step.nanosec};
    path.confidence = corridor.probability;
    double previousX = track->x_m;
    double previousY = track->y_m;
    double heading = yaw;
    for (std::uint32_t k = 0; k < steps; ++k) {
        const double x = corridor.points[k].x_m;
        const double y = corridor.points[k].y_m;
        if (std::hypot(x - previousX, y - previousY) > 1e-3) {
            heading = std::atan2(y - previousY, x - previousX);
        }
        path.path._buffer[k] = {{x, y, 0.0}, yawQuaternion(heading)};
        previousX = x;
        previousY = y;
    }
    path.path._length = steps;
}

}  // namespace

std::uint32_t AutowarePredictions::fill(const MotionPrediction& prediction, const TrackList& tracks,
                                        std::int64_t wireOffset_ns) noexcept {
    Buffers& b = *m_buffers;
    m_sample.header.stamp = toTime(prediction.header.stamp_ns + wireOffset_ns);
    const std::uint32_t vehicles = std::min(prediction.vehicleCount, static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES));
    const std::uint32_t trackCount = std::min(tracks.trackCount, static_cast<std::uint32_t>(MAX_TRACKS));
    const std::uint32_t steps = std::min(prediction.horizonSteps, static_cast<std::uint32_t>(MAX_HORIZON_STEPS));
    const double step_s = static_cast<double>(prediction.step_s);
    const auto stepNs = static_cast<std::int64_t>(std::llround(step_s * static_cast<double>(NS_PER_S)));
    std::uint32_t out = 0;
    std::uint32_t missing = 0;
    for (std::uint32_t v = 0; v < vehicles; ++v) {
        const VehiclePrediction& vehicle = prediction.vehicles[v];
        const Track* track = nullptr;
        for (std::uint32_t t = 0; t < trackCount; ++t) {
            if (tracks.tracks[t].id == vehicle.trackId) {
                track = &tracks.tracks[t];
                break;
            }
        }
        if (track == nullptr) {
            ++missing;
            continue;
        }
        autoware_perception_msgs_msg_dds__PredictedObject_& object = b.objects[out];
        autowareUuid(track->id, object.object_id.uuid);
        object.existence_probability = 1.0F;
        object.classification._buffer[0] = {autowareLabel(track->objectClass), 1.0F};
        object.classification._length = 1;

        auto& kin = object.kinematics;
        const double yaw = std::atan2(static_cast<double>(track->vy_mps), static_cast<double>(track->vx_mps));
        fillInitialKinematics(kin, track, yaw);
        const std::uint32_t corridors =
            std::min(vehicle.corridorCount, static_cast<std::uint32_t>(MAX_CORRIDORS_PER_VEHICLE));
        for (std::uint32_t c = 0; c < corridors; ++c) {
            fillPath(kin.predicted_paths._buffer[c], vehicle.corridors[c], track, yaw, steps, stepNs);
        }
        kin.predicted_paths._length = corridors;
        object.shape.type = SHAPE_BOUNDING_BOX;
        object.shape.dimensions = {0.0, 0.0, 0.0};  // augur's tracks carry no extent
        ++out;
    }
    m_sample.objects._length = out;
    return missing;
}

}  // namespace augur::bridge
