// The recorded-run files the bench writes after a run and the report writer
// (apps/augur-hil/report/hil_report.py) reads. Format: docs/hil-run-format.md ("augur-hil-run 1").
//
//   run.csv             key,value: scenario, map, backend, deadline, thresholds, date, command, extras
//   cycles.csv          one row per runtime cycle (latency, mode, stale, had input)
//   horizon_errors.csv  HorizonErrors per horizon for "ours" and "cv"
//   horizon_errors_by_mode.csv  the same, split by the runtime mode each prediction was made in
//   metrics.csv         name,value,unit
//   snapshot_grid.csv   one frame of an augur::OccupancyGrid as probabilities
//   snapshot_paths.csv  ego, true futures, our corridors and the CV prediction at the snapshot
//   prediction_samples.csv  one row per scored (prediction, vehicle): the errors behind the means, for breakdowns
// Offline code: each function opens, writes and closes one file, and returns what went wrong.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "augur/core/messages.hpp"
#include "augur/core/result.hpp"
#include "augur/hil/assignment.hpp"
#include "augur/hil/latency_summary.hpp"
#include "augur/hil/occupancy_metrics.hpp"
#include "augur/hil/prediction_metrics.hpp"
#include "augur/hil/tracking_metrics.hpp"

namespace augur::hil {

inline constexpr const char* RUN_FORMAT = "augur-hil-run 1";

struct RunInfo {
    std::string scenario;     ///< scenario name
    std::string scenarioDir;  ///< where the scenario was read from
    std::string mapPath;      ///< the network drawn under the snapshot (absolute, or relative to the run directory)
    std::string backend;      ///< "cuda" or "cpu"
    std::string device;       ///< e.g. "NVIDIA H100 80GB HBM3", or the CPU model
    std::string date;         ///< ISO 8601, UTC
    std::string command;      ///< the command line that made the run
    double deadline_us{200'000.0};
    double speedFactor{1.0};
    std::optional<std::uint64_t> maxDeadlineMisses;  ///< acceptance threshold, if any
    std::optional<double> maxAde4s_m;                ///< acceptance threshold on ADE at 4 s, if any
    std::vector<std::pair<std::string, std::string>> extra;  ///< further key,value rows (perception settings ...)
};

struct CycleRecord {
    std::uint64_t cycle{0};
    double t_s{0.0};          ///< cycle start, seconds from the first cycle
    double latency_us{0.0};   ///< cycle start to outputs published
    RuntimeMode mode{RuntimeMode::Nominal};
    bool stale{false};
    bool hadInput{true};
};

struct MetricRecord {
    std::string name;
    double value{0.0};
    std::string unit;
};

/// Our errors and the baseline's on the same samples, for the predictions made in one runtime mode.
struct ModeHorizonErrors {
    RuntimeMode mode{RuntimeMode::Nominal};
    std::vector<HorizonErrors> ours;
    std::vector<HorizonErrors> cv;
    std::vector<HorizonErrors> lf;  ///< the lane-following baseline (empty when it was not scored)
};

/// The same split by what the road user did over the horizon (classifyMotion).
struct ClassHorizonErrors {
    MotionClass motion{MotionClass::Straight};
    std::vector<HorizonErrors> ours;
    std::vector<HorizonErrors> cv;
    std::vector<HorizonErrors> lf;
};

/// One scored (prediction, vehicle) sample: what the horizon means average, kept per sample so that the
/// error can be broken down (moving or standing, turning or straight, by vehicle). Errors at a horizon
/// the truth does not reach are NaN.
struct PredictionSample {
    static constexpr std::size_t HORIZONS = std::size(REPORT_HORIZONS_S);
    double t0_s{0.0};                 ///< prediction time, scenario seconds
    RuntimeMode mode{RuntimeMode::Nominal};
    std::uint32_t trueId{0};          ///< road user
    std::uint32_t trackId{0};         ///< perceived id the runtime predicted it under
    double trueSpeed_mps{0.0};        ///< ground truth at t0
    double perceivedSpeed_mps{0.0};   ///< the baseline's perceived speed
    double headingChange_rad{0.0};    ///< true heading change over the longest scored horizon (signed)
    std::uint32_t corridors{0};       ///< predicted corridors
    std::uint32_t intentionCorridors{0};  ///< candidate corridors of the cycle's intention estimate (0: none)
    double stopProbability{0.0};      ///< P(stop) of that estimate
    double trackSpeed_mps{0.0};       ///< the cycle's track speed (NaN when no track)
    double mostLikelyProbability{0.0};
    std::uint32_t bestCorridor{0};    ///< corridor with the smallest FDE at the longest scored horizon
    std::uint32_t mostLikelyCorridor{0};
    double fdeOurs_m[HORIZONS]{};     ///< most likely corridor
    double fdeMin_m[HORIZONS]{};      ///< best corridor
    double fdeWeighted_m[HORIZONS]{}; ///< probability-weighted mean
    double fdeCv_m[HORIZONS]{};       ///< constant-velocity baseline
    double adeOurs_m[HORIZONS]{};
    double adeCv_m[HORIZONS]{};
    double fdeLf_m[HORIZONS]{};         ///< lane-following baseline, probability-weighted path (NaN: not scored)
    double fdeLfMin_m[HORIZONS]{};      ///< lane-following baseline, best mode
    MotionClass motion{MotionClass::Straight};  ///< over the longest scored horizon
    double brierOurs{0.0};              ///< Brier score of the corridor taken, longest scored horizon
    double brierLf{0.0};
    std::uint32_t lfModes{0};
    /// Error of the most likely corridor at the longest scored horizon split along the true direction of
    /// travel there (positive: ahead of the truth) and across it (positive: to its left).
    double alongOurs_m{0.0};
    double acrossOurs_m{0.0};
    double alongCv_m{0.0};
    double acrossCv_m{0.0};
};

enum class PathKind : std::uint8_t { Ego, Truth, Ours, ConstantVelocity, LaneFollowing };

/// One polyline of the snapshot. Ego: its position at the snapshot (one point, step 0). Others: the
/// positions at the snapshot time + k·step, k = 1, 2, ... (points[k − 1]).
struct SnapshotPath {
    PathKind kind{PathKind::Truth};
    std::uint32_t vehicleId{0};
    std::uint32_t candidate{0};   ///< corridor index for Ours, else 0
    double probability{1.0};      ///< corridor probability for Ours, else 1
    std::vector<Point2> points;
};

struct RunWriteError {
    std::string detail;  ///< the file and what failed
};

const char* toString(PathKind kind) noexcept;

Result<void, RunWriteError> writeRunInfo(const std::string& runDir, const RunInfo& info);
Result<void, RunWriteError> writeCycles(const std::string& runDir, std::span<const CycleRecord> cycles);
/// `ours` and `cv` as returned by PredictionAccumulator::results (either may be empty).
/// `lf`: the lane-following baseline's rows (method `lf`), when it was scored.
Result<void, RunWriteError> writeHorizonErrors(const std::string& runDir, std::span<const HorizonErrors> ours,
                                               std::span<const HorizonErrors> cv, std::span<const HorizonErrors> lf = {});
/// horizon_errors.csv's columns after a `mode` column (toString(RuntimeMode)), one block per entry.
Result<void, RunWriteError> writeHorizonErrorsByMode(const std::string& runDir, std::span<const ModeHorizonErrors> modes);
/// horizon_errors.csv's columns after a `motion` column (toString(MotionClass)).
Result<void, RunWriteError> writeHorizonErrorsByClass(const std::string& runDir, std::span<const ClassHorizonErrors> classes);
Result<void, RunWriteError> writeMetrics(const std::string& runDir, std::span<const MetricRecord> metrics);
/// Frame `frame` of `grid` (< grid.frameCount) predicted at `t_s` for `horizon_s` ahead, and the paths.
Result<void, RunWriteError> writeSnapshot(const std::string& runDir, const OccupancyGrid& grid, std::uint32_t frame,
                                          double t_s, double horizon_s, std::span<const SnapshotPath> paths);

/// prediction_samples.csv: one row per sample (docs/hil-run-format.md).
Result<void, RunWriteError> writePredictionSamples(const std::string& runDir, std::span<const PredictionSample> samples);

/// The metrics.csv rows of a tracking summary, a latency summary, an occupancy hit count (with the
/// threshold used) and the runtime's rejection counters (Health::rejections; "accepted" is skipped).
std::vector<MetricRecord> trackingMetrics(const TrackingSummary& summary);
std::vector<MetricRecord> latencyMetrics(const LatencySummary& summary);
std::vector<MetricRecord> occupancyMetrics(const OccupancyHitCounter& counter, double threshold);
std::vector<MetricRecord> rejectionMetrics(std::span<const std::uint64_t, REJECT_REASON_COUNT> rejections);

}  // namespace augur::hil
