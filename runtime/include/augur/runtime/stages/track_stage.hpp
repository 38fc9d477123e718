// Track: the Kalman filter bank (paper 003) over every object list accepted this cycle, in arrival
// order, with association by position and track management of augur's own (docs/design/tracking.md).
//
// Runs on the CPU for both backends: at ≤ 128 tracks a 6-state predict + Joseph update is about
// 128 × ~1 µs of arithmetic, less than one kernel launch plus the two copies a GPU bank would need on
// the planner-critical chain (docs/design/runtime.md, Considerations).
//
// Per list:
//   1. every live track is predicted to the list's time (its own time step since its last list);
//   2. objects are associated with the predicted tracks (kernels/kf Associator: Euclidean pre-gate,
//      Mahalanobis gate on the position innovation with S = H P Hᵀ + R, global nearest neighbour; the
//      perception id only lowers a pair's cost when it equals the id last associated with the track);
//      Objects and confirmed tracks left over are associated once more with the gate widened
//      RESCUE_GATE_FACTOR times (a pair outside the 99 % gate with no competitor is still the likelier
//      explanation than a new road user beside a track that missed its object; tentative tracks are left
//      out: they earn confirmation inside the plain gate, so clutter does not confirm itself);
//   3. each associated track is updated in Joseph form with the measured position and the velocity of the
//      measured speed and heading (kf::polarVelocityCovariance); an unassigned object inside the widened
//      gate of any live track (one born from this list included) is a second report of a tracked road
//      user and starts nothing (counted, duplicatesSuppressed); any other unassigned object starts a
//      tentative track with a new augur id, initialised from the object (not updated with it again);
//      beside the bank, each track's measured speed updates its speed-rate filter (kf/speed_rate_filter.hpp:
//      a 1-D constant-acceleration filter on |v| with the bank's jerk density, predicted with the track,
//      started with it), whose rate is the longitudinal acceleration the frame carries (trackAccel_mps2:
//      the rate of change of the speed, which a turn at constant speed does not move);
//   4. track management: a tentative track is confirmed once associated in confirmAfterHits of its last
//      confirmWindow lists, and deleted when its first confirmWindow lists pass without that; a track
//      missed more lists in a row than it was associated in, or than maxMissedCycles, is deleted (a track
//      coasts on the evidence it has); of two live tracks that have become one (velocities within
//      MERGE_SPEED_MPS, and positions within MERGE_GATE_SQ of their summed covariance or, when one followed
//      this list's object and the other coasted, footprints that overlap) the younger is deleted
//      (counted, tracksMerged); a kept track that coasted goes on from the state of the one that
//      followed the object. A jump of a road user's detections beyond the rescue gate starts a track
//      where the objects now are; this rule folds it into the old track's id within the list.
// The TrackList holds the confirmed tracks in slot order; Track::id is augur's id (assigned at birth,
// never reused while 2³² births have not passed), Track::perceptionId the perception id last associated.
// Every cycle it is appended to the TrackHistory. Run phase: noexcept, allocation-free,
// O(capacity · objects) per list plus the association's component solves.
#pragma once

#include <cstdint>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/kernels/kf/kalman_bank.hpp"
#include "augur/kernels/kf/association.hpp"
#include "augur/kernels/kf/speed_rate_filter.hpp"
#include "augur/runtime/executor.hpp"
#include "augur/runtime/pipeline_state.hpp"
#include "augur/runtime/scene_frame.hpp"
#include "augur/runtime/track_history.hpp"

namespace augur::runtime {

struct TrackStageSettings {
    std::uint32_t capacity{static_cast<std::uint32_t>(MAX_TRACKS)};  ///< ≤ MAX_TRACKS
    kernels::kf::MotionModel model{kernels::kf::MotionModel::ConstantAcceleration};
    float noiseDensity{2.0F};
    std::uint32_t maxMissedCycles{5};   ///< lists a track may coast before it is deleted (at most its hits)
    std::uint32_t confirmAfterHits{2};  ///< M of the M-of-N confirmation
    std::uint32_t confirmWindow{3};     ///< N (lists, ≤ 64); 0: confirmed after M associated lists ever
    float gateMahalanobisSq{9.21F};     ///< association gate on d²
    float gateDistance_m{5.0F};         ///< Euclidean pre-gate
    float idBonus{1.0F};                ///< cost reduction for an unchanged perception id
};

/// The second association pass and the duplicate test use the gate times this (9.21 → 27.6: a pair
/// beyond it is 5σ off).
inline constexpr float RESCUE_GATE_FACTOR = 3.0F;

/// Two live tracks within MERGE_SPEED_MPS in velocity follow one road user, and the younger goes, when their
/// positions are closer than this squared Mahalanobis distance (position difference under the sum of their
/// position covariances), or when one of them was associated in this list, the other coasted, and their
/// footprints (last measured length and width) overlap.
inline constexpr float MERGE_GATE_SQ = 4.0F;
inline constexpr float MERGE_SPEED_MPS = 3.0F;

class TrackStage final : public StageRunner {
public:
    /// Allocates the bank and the table. Init phase.
    [[nodiscard]] static Result<std::unique_ptr<TrackStage>, kernels::kf::AssociationError> create(
        const TrackStageSettings& settings, PipelineState& state, SceneFrame& frame, TrackHistory& history);

    StageStatus run(CycleContext& context) noexcept override;

    /// Objects that would have started a track but found every slot taken (since init).
    [[nodiscard]] std::uint64_t overflows() const noexcept { return m_overflows; }
    /// Unassigned objects inside the gates of a live track: not started as tracks (since init).
    [[nodiscard]] std::uint64_t duplicatesSuppressed() const noexcept { return m_duplicatesSuppressed; }
    /// Tracks deleted because they had merged with an older one (since init).
    [[nodiscard]] std::uint64_t tracksMerged() const noexcept { return m_tracksMerged; }
    /// Objects offered to the association, and those of them inside the gates of more than one track
    /// (ambiguous: where a soft, JPDA-style update would differ from the hard assignment), since init.
    [[nodiscard]] std::uint64_t objectsAssociated() const noexcept { return m_objectsOffered; }
    [[nodiscard]] std::uint64_t objectsContested() const noexcept { return m_objectsContested; }
    /// Live tracks, tentative and confirmed.
    [[nodiscard]] std::uint32_t liveTracks() const noexcept { return m_liveCount; }

private:
    TrackStage(const TrackStageSettings& settings, kernels::kf::Associator associator, kernels::kf::Associator rescue,
               PipelineState& state, SceneFrame& frame, TrackHistory& history);
    /// A new track in a free slot from object `o` (counted as an overflow when none is free).
    void startTrack(const PerceivedObject& o, const kernels::kf::BankState<float>& bank, std::int64_t stamp_ns) noexcept;
    /// Second pass: objects the first left unassigned against the live tracks it left unmeasured, with the
    /// widened gate; writes the pairs it finds into m_objectToTrack.
    void rescueLeftovers(std::uint32_t objects) noexcept;
    /// True when object j lies inside the widened gate of any live track.
    [[nodiscard]] bool nearAnyTrack(std::uint32_t j) const noexcept;
    void track(const ObjectList& list) noexcept;
    /// Takes a free slot for a new track (NO_SLOT when none is free).
    [[nodiscard]] std::uint32_t allocateSlot() noexcept;
    void removeTrack(std::uint32_t slot) noexcept;
    /// Writes object `o` of a list stamped `stamp_ns` as slot t's measurement of this list.
    void setMeasurement(std::uint32_t t, const PerceivedObject& o, std::int64_t stamp_ns) noexcept;
    /// Counts hits and misses of this list, confirms and deletes tracks.
    void manageTracks() noexcept;
    /// Deletes the younger of every pair of live tracks that follow one road user (see MERGE_GATE_SQ); a
    /// kept track that coasted in this list takes over the state of the deleted one that was associated.
    void mergeDuplicates() noexcept;
    /// Whether the boxes of the two tracks' last measured length and width, centred on their estimated
    /// positions and aligned with a's measured heading, overlap. O(1).
    [[nodiscard]] bool footprintsOverlap(std::uint32_t a, std::uint32_t b) const noexcept;
    /// Slot `keep` goes on from slot `from`'s filter state and last measurement, counted as associated in
    /// this list; its augur id, age and confirmation stay.
    void takeOverState(std::uint32_t keep, std::uint32_t from) noexcept;
    void writeTrackList() noexcept;
    /// Deletes every live track whose state or covariance is no longer finite; returns how many.
    std::uint32_t dropNonFiniteTracks() noexcept;

    static constexpr std::uint32_t NO_SLOT = 0xFFFF'FFFFU;

    TrackStageSettings m_settings;
    kernels::kf::Associator m_associator;
    kernels::kf::Associator m_rescue;  ///< the widened second pass
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
    std::vector<std::uint8_t> m_noMeasurement;  ///< all 0: the predict-only pass
    std::vector<std::uint8_t> m_update;         ///< measured and not born from this list: the update pass
    // One list's objects for the associator, [MAX_OBJECTS].
    std::vector<float> m_objX;
    std::vector<float> m_objY;
    std::vector<float> m_objVarX;
    std::vector<float> m_objVarY;
    std::vector<std::uint32_t> m_objId;
    std::vector<std::uint32_t> m_objectToTrack;
    std::vector<std::uint8_t> m_gated;
    // The second pass: leftover objects (compacted) and the tracks still unmeasured.
    std::vector<std::uint32_t> m_restIndex;  ///< rest object → list object
    std::vector<float> m_restX;
    std::vector<float> m_restY;
    std::vector<float> m_restVarX;
    std::vector<float> m_restVarY;
    std::vector<std::uint32_t> m_restId;
    std::vector<std::uint32_t> m_restToTrack;
    std::vector<std::uint8_t> m_restGated;
    std::vector<std::uint8_t> m_restLive;  ///< per slot: live and not yet measured
    // Per slot bookkeeping.
    std::vector<std::uint8_t> m_live;
    std::vector<std::uint8_t> m_confirmed;
    std::vector<std::uint32_t> m_trackId;       ///< augur's id
    std::vector<std::uint32_t> m_perceptionId;  ///< last associated perception id
    std::vector<std::uint64_t> m_hitWindow;     ///< bit k: associated k lists ago
    std::vector<std::uint32_t> m_missed;        ///< lists missed in a row
    std::vector<std::uint32_t> m_freeSlots;     ///< stack, lowest slot on top
    std::uint32_t m_freeCount{0};
    std::uint32_t m_liveCount{0};
    std::uint32_t m_nextTrackId{1};
    std::uint64_t m_overflows{0};
    std::uint64_t m_duplicatesSuppressed{0};
    std::uint64_t m_tracksMerged{0};
    std::uint64_t m_objectsOffered{0};
    std::uint64_t m_objectsContested{0};
    std::vector<std::int64_t> m_lastStamp_ns;
    std::vector<std::uint32_t> m_hits;
    std::vector<std::uint32_t> m_age;
    std::vector<ObjectClass> m_class;
    std::vector<TrackMeasurement> m_measurement;
    std::vector<kernels::kf::SpeedRateState> m_speedRate;  ///< per slot: speed and its rate of change
};

}  // namespace augur::runtime
