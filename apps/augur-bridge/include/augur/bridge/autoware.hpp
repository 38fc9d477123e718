// augur's prediction as autoware_perception_msgs/PredictedObjects (idl/autoware/predicted_objects.idl),
// so that an Autoware planner consumes it like the output of its own map_based_prediction.
//
// One PredictedObject per predicted vehicle, joined with the track of the same id from the track list
// of the same cycle: object_id = a UUID made of "augur" and the track id; one classification with
// Autoware's label numbering (autowareLabel: its TRAILER takes 4, so MOTORCYCLE is 5 where augur's is
// 4) and probability 1; the pose from the track's position, the orientation a yaw quaternion of the
// velocity's direction; covariances from the track's; one PredictedPath per corridor with its
// probability as confidence and the prediction's step as time_step. The full table is in docs/dds.md.
//
// Init phase: the constructor allocates every buffer at augur's capacities. Run phase: fill() is
// noexcept and allocation-free.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "augur/core/messages.hpp"
#include "predicted_objects.h"

namespace augur::bridge {

/// Autoware's ObjectClassification label for augur's class (autoware_perception_msgs/ObjectClassification).
[[nodiscard]] std::uint8_t autowareLabel(ObjectClass value) noexcept;

/// The object_id Autoware gets for track `trackId`: bytes 'a' 'u' 'g' 'u' 'r', zeros, then the id
/// big-endian in the last four bytes (stable for the track's life, distinct across tracks).
void autowareUuid(std::uint32_t trackId, std::uint8_t (&uuid)[16]) noexcept;

class AutowarePredictions {
public:
    /// `frameId`: header.frame_id of every message (copied).
    explicit AutowarePredictions(std::string frameId);
    ~AutowarePredictions();
    AutowarePredictions(const AutowarePredictions&) = delete;
    AutowarePredictions& operator=(const AutowarePredictions&) = delete;

    /// Fills sample() from `prediction`, joining `tracks` by track id. Vehicles without a track in
    /// `tracks` are left out and counted in the return value. header.stamp = prediction.header.stamp_ns
    /// (the runtime's monotonic clock) + `wireOffset_ns` (the wire clock's offset from it: realtime by
    /// default, the time ROS 2 stamps carry). noexcept, allocation-free, O(vehicles · (tracks + points)).
    std::uint32_t fill(const MotionPrediction& prediction, const TrackList& tracks, std::int64_t wireOffset_ns = 0) noexcept;

    [[nodiscard]] const autoware_perception_msgs_msg_dds__PredictedObjects_& sample() const noexcept { return m_sample; }

private:
    struct Buffers;
    std::string m_frameId;
    autoware_perception_msgs_msg_dds__PredictedObjects_ m_sample{};
    std::unique_ptr<Buffers> m_buffers;
};

}  // namespace augur::bridge
