// Scores a recorded bench run (recording.hpp) against the scenario's ground truth with the bench's
// metric functions:
//
//   tracking   every cycle that took new input: the published tracks against the road users within the
//              ego's sensor range at the tracks' time (MotionPrediction::sourceStamp_ns of the cycle), by
//              TrackingAccumulator (GOSPA association, RMSE, OSPA/GOSPA); the same cycles by track id
//              against road user id, by IdentityAccumulator (identity switches, fragmentation, MOTA/MOTP,
//              false tracks, GOSPA's parts);
//   prediction every computed, on-time prediction with new input: each predicted vehicle whose track (in the
//              cycle's track list) lies within identityGate_m of a road user at t0 is scored, as that road
//              user, by PredictionAccumulator against its true positions at t0 + k·step_s (t0 =
//              sourceStamp_ns, linear interpolation between scenario steps), and so is the constant-velocity
//              baseline on the same sample: predicted from the newest perceived (noisy) state of that road
//              user the bench sent at or before t0 (within cvLookbackSteps; PerceptionEmulator::trueIdAt),
//              carried forward to t0 at its speed, and so is the lane-following baseline
//              (lane_following.hpp) from the same state, when the options name one. Only samples all can
//              be scored on count; each is also counted under the runtime mode of its prediction and under
//              the road user's motion class (classifyMotion). Predictions made before the warm-up's end
//              (warmUp_s after the first replayed step) are not scored, nor are their cycles' tracks;
//   occupancy  for each scored vehicle and grid frame f (covering prediction steps [f·s, (f+1)·s), s =
//              horizonSteps / frameCount), the true position at each of those steps against the frame
//              (occupancyOutcome with the threshold);
//   timing     one CycleRecord per Health message (latency = Health::cycleLatency.last_us, the cycle's own
//              latency; stale when the runtime's deadline-miss counter rose); the runtime's counters
//              (rejections by reason, mode changes, accepted lists) from the last Health message.
// A snapshot for the report is taken at the scored prediction with the most vehicles inside its grid.
// Offline code: allocates.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "augur/core/messages.hpp"
#include "augur/hil/lane_following.hpp"
#include "augur/hil/identity_metrics.hpp"
#include "augur/hil/latency_summary.hpp"
#include "augur/hil/occupancy_metrics.hpp"
#include "augur/hil/perception_emulator.hpp"
#include "augur/hil/prediction_metrics.hpp"
#include "augur/hil/recording.hpp"
#include "augur/hil/run_record.hpp"
#include "augur/hil/scenario.hpp"
#include "augur/hil/tracking_metrics.hpp"

namespace augur::hil {

struct ScoringOptions {
    double deadline_us{200'000.0};      ///< the runtime's cycle deadline
    double trackingCutoff_m{10.0};      ///< OSPA/GOSPA cut-off c and association gate
    double ospaOrder{2.0};              ///< p
    double sensorRange_m{80.0};         ///< road users within this of the ego should be tracked
    double occupancyThreshold{0.01};    ///< a true position is a hit in a cell with at least this probability
    std::size_t cvLookbackSteps{10};    ///< how far back the baseline looks for a perceived state
    double warmUp_s{0.0};               ///< predictions and tracks of the replay's first warmUp_s seconds are not scored
    const LaneFollowingPredictor* laneFollowing{nullptr};  ///< the lane-following baseline; nullptr: not scored
    double identityGate_m{2.5};         ///< a track and a road user closer than this may match (CLEAR MOT,
                                        ///< and a predicted vehicle's road user)
};

/// One occupancy frame and the paths drawn over it (run_record.hpp's writeSnapshot).
struct BenchSnapshot {
    std::shared_ptr<OccupancyGrid> grid;  ///< heap: the message type is 256 KiB
    std::uint32_t frame{0};
    double t_s{0.0};        ///< prediction time, scenario seconds
    double horizon_s{0.0};  ///< end of the frame's window
    RuntimeMode mode{RuntimeMode::Nominal};  ///< the mode the prediction was made in
    std::vector<SnapshotPath> paths;
};

struct BenchScore {
    TrackingSummary tracking;
    IdentitySummary identity;
    std::vector<HorizonErrors> ours;  ///< per REPORT_HORIZONS_S
    std::vector<HorizonErrors> cv;    ///< the baseline on the same samples
    std::vector<HorizonErrors> lf;    ///< the lane-following baseline on the same samples (empty: not scored)
    std::vector<ModeHorizonErrors> byMode;  ///< the same split by the mode of the prediction (modes with samples)
    std::vector<ClassHorizonErrors> byClass;  ///< the same split by motion class (classes with samples)
    std::vector<PredictionSample> samples;  ///< every scored (prediction, vehicle), for breakdowns
    OccupancyHitCounter occupancy;
    double occupancyThreshold{0.0};
    std::vector<CycleRecord> cycles;
    LatencySummary latency;
    std::array<std::uint64_t, REJECT_REASON_COUNT> rejections{};
    std::uint64_t runtimeDeadlineMisses{0};  ///< the runtime's own count (last Health)
    std::uint64_t watchdogAlarms{0};         ///< health alarms the watchdog published while a cycle overran
    std::uint64_t modeChanges{0};
    std::uint64_t acceptedInputs{0};
    std::uint64_t inputQueueOverflows{0};
    std::uint64_t loanFailures{0};
    std::uint64_t stageFailures{0};
    bool backendIsCuda{false};
    std::size_t predictionsScored{0};   ///< predictions that contributed samples
    std::size_t predictionsSkipped{0};  ///< held, "no prediction", stale, or without new input
    std::size_t predictionsInWarmUp{0};  ///< made during the warm-up, not scored
    std::size_t samplesWithoutBaseline{0};  ///< predicted vehicles left out: no perceived state for the baseline
    std::optional<BenchSnapshot> snapshot;
};

/// Scores `recording` (made while `log`'s lists were replayed from `scenario` through `emulator`).
/// Preconditions: `emulator` is the one that produced `log`'s lists; options positive.
BenchScore scoreRun(const Scenario& scenario, const PerceptionEmulator& emulator, const ReplayLog& log,
                    const Recording& recording, const ScoringOptions& options);

/// Acceptance thresholds a release is gated on; an unset one is not checked.
struct Acceptance {
    std::optional<std::uint64_t> maxDeadlineMisses;
    std::optional<double> maxAde4s_m;  ///< our ADE (most likely corridor) at 4 s
};

struct Verdict {
    bool held{true};
    std::vector<std::string> failures;  ///< one line per threshold that did not hold
};

/// Checks `score` against `acceptance`. Deadline misses are the recorded cycles over the deadline or
/// the runtime's own count, whichever is larger; an ADE threshold with no sample at 4 s does not hold.
Verdict judge(const BenchScore& score, const Acceptance& acceptance);

/// The metrics.csv rows of a score (run_record.hpp's helpers plus the runtime's counters).
std::vector<MetricRecord> benchMetrics(const BenchScore& score, const ReplayLog& log, const Recording& recording);

/// Position of road user `id` at scenario time t_s, linearly interpolated between the two steps around
/// it; false when it is absent at either (or t_s lies outside the scenario). O(log n), allocation-free.
bool truthPositionAt(const Scenario& scenario, std::uint32_t id, double t_s, Point2& out) noexcept;

}  // namespace augur::hil
