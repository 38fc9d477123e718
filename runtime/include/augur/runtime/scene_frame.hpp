// What the computing stages of one cycle hand each other beyond the published messages: per track the
// measurement details the Kalman state does not carry, and per predicted vehicle its corridors (road
// summary for the intention filter, constraints and centreline for the motion prediction) and the
// intention estimate the motion prediction weights its corridors with.
//
// Allocated once at init (makeSceneFrame, about 1 MB); filled and read in the run phase.
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "augur/core/messages.hpp"
#include "augur/kernels/markov/priority.hpp"
#include "augur/kernels/pf/models.hpp"  // INIT_STEP, used by scene_model.hpp
#include "augur/kernels/pf/scene_model.hpp"

namespace augur::runtime {

/// Centreline points kept per corridor (the motion prediction's polylines).
inline constexpr std::size_t FRAME_POLYLINE_POINTS = 32;

/// Per published track: the last measurement's pose, speed, size and standard deviations, the Kalman
/// state's speed deviation along the measured heading, and the longitudinal acceleration (the speed-rate
/// filter's rate of change of the speed, kf/speed_rate_filter.hpp) with its deviation.
struct TrackMeasurement {
    float heading_rad{0.0F};
    float speed_mps{0.0F};
    float length_m{4.5F};
    float width_m{1.8F};
    float stdX_m{1.0F};
    float stdY_m{1.0F};
    float stdHeading_rad{0.1F};
    float stdSpeed_mps{0.5F};
    std::int64_t stamp_ns{0};  ///< sensor time of the last measurement
    float trackSpeedStd_mps{0.5F};     ///< standard deviation of the track's velocity along the heading
    float trackAccel_mps2{0.0F};       ///< rate of change of the track's speed (0 for CV tracks)
    float trackAccelStd_mps2{1.0F};    ///< its standard deviation
};

/// Lanes of a corridor's route kept in the frame (its identity from one cycle to the next).
inline constexpr std::size_t FRAME_ROUTE_LANES = 8;

struct FrameCorridor {
    std::uint32_t id{0};                         ///< scene-global corridor index (stable only within a cycle)
    std::uint32_t route[FRAME_ROUTE_LANES]{};    ///< map lane indices of its first routeLanes segments
    std::uint32_t routeLanes{0};
    bool laneChange{false};                      ///< starts with a change to a neighbour of the vehicle's lane
    kernels::pf::SceneCorridor road{};           ///< summary at the vehicle's position (intention filter)
    kernels::markov::CorridorConstraints limits{};  ///< speed limit, stop point, lead vehicle (motion)
    /// Distance to the first conflict ahead where the map has this corridor yield, whoever comes (a left
    /// turn across oncoming traffic, a minor road); kernels::markov::NO_LIMIT when none.
    float yield_m{kernels::markov::NO_LIMIT};
    float length_m{0.0F};
    std::int32_t polylinePoints{0};
};

struct FrameVehicle {
    std::uint32_t trackIndex{0};  ///< index into TrackList::tracks
    std::uint32_t trackId{0};
    float x_m{0.0F};
    float y_m{0.0F};
    float heading_rad{0.0F};
    float speed_mps{0.0F};
    std::uint32_t corridorCount{0};  ///< 0: not on the map (constant-velocity prediction only)
    FrameCorridor corridors[MAX_CORRIDORS_PER_VEHICLE];
    // Written by the intention stage (uniform when it did not run).
    float stopProbability{0.0F};
    float corridorProbability[MAX_CORRIDORS_PER_VEHICLE]{};
};

struct SceneFrame {
    std::array<TrackMeasurement, MAX_TRACKS> measurements{};  ///< parallel to TrackList::tracks
    std::uint32_t vehicleCount{0};
    std::array<FrameVehicle, MAX_PREDICTED_VEHICLES> vehicles{};
    /// Centrelines, corridor (v, k) at [(v · MAX_CORRIDORS_PER_VEHICLE + k) · FRAME_POLYLINE_POINTS].
    std::array<float, MAX_PREDICTED_VEHICLES * MAX_CORRIDORS_PER_VEHICLE * FRAME_POLYLINE_POINTS> polyX_m{};
    std::array<float, MAX_PREDICTED_VEHICLES * MAX_CORRIDORS_PER_VEHICLE * FRAME_POLYLINE_POINTS> polyY_m{};
    std::array<float, MAX_PREDICTED_VEHICLES * MAX_CORRIDORS_PER_VEHICLE * FRAME_POLYLINE_POINTS> polyS_m{};
    std::int64_t sourceStamp_ns{0};  ///< sensor time of the newest object list behind the tracks
    bool tracksValid{false};         ///< at least one object list was tracked since start
};

[[nodiscard]] inline std::size_t polylineOffset(std::size_t vehicle, std::size_t corridor) noexcept {
    return (vehicle * MAX_CORRIDORS_PER_VEHICLE + corridor) * FRAME_POLYLINE_POINTS;
}

/// Allocates a zeroed frame (init phase).
[[nodiscard]] inline std::unique_ptr<SceneFrame> makeSceneFrame() { return std::make_unique<SceneFrame>(); }

}  // namespace augur::runtime
