// Track: the Kalman filter bank (paper 003) over every object list accepted this cycle, in arrival
// order, with track management by perception object id (kernels/kf TrackTable).
//
// Runs on the CPU for both backends: at ≤ 128 tracks a 6-state predict + Joseph update is about
// 128 × ~1 µs of arithmetic, less than one kernel launch plus the two copies a GPU bank would need on
// the planner-critical chain (docs/design/runtime.md, Considerations).
//
// Per list: every object is associated by id (born → initialised at the measured position and velocity),
// each slot is predicted with its own time step since its last update and updated in Joseph form when
// measured — with the measured position and with the velocity of the measured speed and heading (their
// covariance converted to first order, kf::polarVelocityCovariance);
// tracks missed more than maxMissedCycles lists are deleted. The TrackList holds the confirmed tracks
// (≥ confirmAfterHits measurements) in slot order; every cycle it is appended to the TrackHistory. Run phase: noexcept, allocation-free, O(capacity).
#pragma once

#include <cstdint>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/kernels/kf/kalman_bank.hpp"
#include "augur/kernels/kf/track_table.hpp"
#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"
#include "augur/runtime/scene_frame.hpp"
#include "augur/runtime/track_history.hpp"

namespace augur::runtime {

struct TrackStageSettings {
    std::uint32_t capacity{static_cast<std::uint32_t>(MAX_TRACKS)};  ///< ≤ MAX_TRACKS
    kernels::kf::MotionModel model{kernels::kf::MotionModel::ConstantAcceleration};
    float noiseDensity{2.0F};
    std::uint32_t maxMissedCycles{5};
    std::uint32_t confirmAfterHits{2};
};

class TrackStage final : public StageRunner {
public:
    /// Allocates the bank and the table. Init phase.
    [[nodiscard]] static Result<std::unique_ptr<TrackStage>, kernels::kf::TrackTableError> create(
        const TrackStageSettings& settings, PipelineState& state, SceneFrame& frame, TrackHistory& history);

    StageStatus run(CycleContext& context) noexcept override;

    /// Sightings dropped because every slot was taken (since init).
    [[nodiscard]] std::uint64_t overflows() const noexcept { return m_table.overflowCount(); }

private:
    TrackStage(const TrackStageSettings& settings, kernels::kf::TrackTable table, PipelineState& state, SceneFrame& frame,
               TrackHistory& history);
    void track(const ObjectList& list) noexcept;
    void writeTrackList() noexcept;
    /// Deletes every live track whose state or covariance is no longer finite; returns how many.
    std::uint32_t dropNonFiniteTracks() noexcept;

    TrackStageSettings m_settings;
    kernels::kf::TrackTable m_table;
    PipelineState& m_state;
    SceneFrame& m_frame;
    TrackHistory& m_history;
    int m_dim;
    std::vector<float> m_mean;
    std::vector<float> m_cov;
    std::vector<float> m_dt;
    std::vector<float> m_z;
    std::vector<float> m_var;
    std::vector<float> m_zVel;    ///< measured velocity, [2 × capacity]
    std::vector<float> m_velCov;  ///< its covariance xx, xy, yy, [3 × capacity]
    std::vector<std::uint8_t> m_measured;
    std::vector<std::uint32_t> m_deleted;
    // Per slot bookkeeping.
    std::vector<std::int64_t> m_lastStamp_ns;
    std::vector<std::uint32_t> m_hits;
    std::vector<std::uint32_t> m_age;
    std::vector<ObjectClass> m_class;
    std::vector<TrackMeasurement> m_measurement;
};

}  // namespace augur::runtime
