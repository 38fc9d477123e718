#include "augur/hil/bench_scoring.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <optional>
#include <span>
#include <unordered_map>

#include "augur/hil/cv_baseline.hpp"

namespace augur::hil {
namespace {

constexpr double NS_PER_S = 1e9;
constexpr std::size_t HORIZON_4S_INDEX = 3;  // REPORT_HORIZONS_S[3] == 4.0
static_assert(REPORT_HORIZONS_S[HORIZON_4S_INDEX] == 4.0);

double scenarioTime_s(const ReplayLog& log, std::int64_t stamp_ns) {
    return static_cast<double>(stamp_ns - log.stampOfStep0_ns) / NS_PER_S;
}

/// The list sent for `step`, or nullptr when none was.
const ObjectList* listOfStep(const ReplayLog& log, std::size_t step) {
    if (step < log.firstStep || step - log.firstStep >= log.lists.size()) {
        return nullptr;
    }
    const ObjectList& list = log.lists[step - log.firstStep];
    return list.header.sequence == 0 ? nullptr : &list;
}

/// Nearest step of scenario time t_s; false before step 0.
bool stepOfTime(const ReplayLog& log, double t_s, std::size_t& step) {
    const double s = std::round(t_s / log.step_s);
    if (!(s >= 0.0)) {
        return false;
    }
    step = static_cast<std::size_t>(s);
    return true;
}

/// The road user augur track `trackId` of cycle `cycle` follows: the nearest road user but the ego at
/// `step` within `gate_m` of the track's published position (the tracks are at that step's time); 0 when
/// the track is not in the cycle's list or no road user is that near. Independent of perception ids.
std::uint32_t roadUserOfTrack(const Scenario& scenario, const ReplayLog& log,
                              const std::unordered_map<std::uint64_t, const RecordedTrackList*>& tracksOfCycle,
                              std::uint64_t cycle, std::uint32_t trackId, std::size_t step, double gate_m) {
    const auto it = tracksOfCycle.find(cycle);
    if (it == tracksOfCycle.end() || step >= scenario.stepCount()) {
        return 0;
    }
    for (const Track& t : it->second->tracks) {
        if (t.id != trackId) {
            continue;
        }
        std::uint32_t nearest = 0;
        double best = gate_m;
        for (const GroundTruthState& s : scenario.frame(step)) {
            const double d = std::hypot(static_cast<double>(s.x_m) - t.x_m, static_cast<double>(s.y_m) - t.y_m);
            if (s.id != log.egoId && d < best) {
                best = d;
                nearest = s.id;
            }
        }
        return nearest;
    }
    return 0;
}

/// The newest object the bench sent for road user `trueId` at or before `step` (within `lookback`), by
/// the emulator's record of who carried each id in each list.
const PerceivedObject* perceivedOfRoadUser(const PerceptionEmulator& emulator, const ReplayLog& log, std::size_t step,
                                           std::uint32_t trueId, std::size_t lookback, std::size_t& foundStep) {
    for (std::size_t back = 0; back <= lookback && back <= step; ++back) {
        const ObjectList* list = listOfStep(log, step - back);
        if (list == nullptr) {
            continue;
        }
        for (std::uint32_t i = 0; i < list->objectCount && i < MAX_OBJECTS; ++i) {
            if (emulator.trueIdAt(step - back, list->objects[i].id) == trueId) {
                foundStep = step - back;
                return &list->objects[i];
            }
        }
    }
    return nullptr;
}

/// Scenario time before which nothing is scored.
double warmUpEnd_s(const ReplayLog& log, const ScoringOptions& options) {
    constexpr double HALF_STEP = 0.5;
    return (static_cast<double>(log.firstStep) - HALF_STEP) * log.step_s + options.warmUp_s;
}

KinematicState kinematic(const GroundTruthState& s) {
    return {s.x_m, s.y_m, s.speed_mps * std::cos(static_cast<double>(s.heading_rad)),
            s.speed_mps * std::sin(static_cast<double>(s.heading_rad))};
}

/// Cycle start per cycle number, from the track lists (stamp = cycle start).
std::unordered_map<std::uint64_t, std::int64_t> cycleStarts(const Recording& recording) {
    std::unordered_map<std::uint64_t, std::int64_t> starts;
    for (const auto& t : recording.tracks) {
        starts.emplace(t.cycle, t.stamp_ns);
    }
    return starts;
}

void scoreTiming(const Recording& recording, const ScoringOptions& options, BenchScore& score) {
    // Watchdog alarms (published while a cycle overran) are counted; the cycles are the cycles' own health
    // (link updates, published between cycles when the DDS link changed, are neither).
    std::vector<Health> health;
    for (const Health& h : recording.health) {
        if (h.overrunAlarm != 0) {
            ++score.watchdogAlarms;
        } else if (h.linkUpdate == 0) {
            health.push_back(h);
        }
    }
    std::stable_sort(health.begin(), health.end(), [](const Health& a, const Health& b) { return a.cycle < b.cycle; });
    const auto starts = cycleStarts(recording);
    std::vector<double> latencies;
    latencies.reserve(health.size());
    std::int64_t firstStart_ns = 0;
    bool haveFirst = false;
    std::uint64_t previousMisses = 0;
    for (std::size_t i = 0; i < health.size(); ++i) {
        const Health& h = health[i];
        const double latency_us = static_cast<double>(h.cycleLatency.last_us);
        const auto start = starts.find(h.cycle);
        const std::int64_t start_ns = start != starts.end()
                                          ? start->second
                                          : h.header.stamp_ns - static_cast<std::int64_t>(latency_us * 1e3);
        if (!haveFirst) {
            firstStart_ns = start_ns;
            haveFirst = true;
        }
        CycleRecord record;
        record.cycle = h.cycle;
        record.t_s = static_cast<double>(start_ns - firstStart_ns) / NS_PER_S;
        record.latency_us = latency_us;
        record.mode = h.mode;
        record.stale = i == 0 ? latency_us > options.deadline_us : h.deadlineMisses > previousMisses;
        record.hadInput = h.lastCycleHadInput != 0;
        previousMisses = h.deadlineMisses;
        score.cycles.push_back(record);
        latencies.push_back(latency_us);
    }
    score.latency = summarizeLatency(latencies, options.deadline_us);
    if (!health.empty()) {
        const Health& last = health.back();
        std::copy(std::begin(last.rejections), std::end(last.rejections), score.rejections.begin());
        score.runtimeDeadlineMisses = last.deadlineMisses;
        score.modeChanges = last.modeChanges;
        score.acceptedInputs = last.acceptedInputs;
        score.inputQueueOverflows = last.inputQueueOverflows;
        score.loanFailures = last.loanFailures;
        score.stageFailures = last.stageFailures;
        score.backendIsCuda = last.backendIsCuda != 0;
    }
}

void scoreTracking(const Scenario& scenario, const ReplayLog& log, const Recording& recording,
                   const ScoringOptions& options, BenchScore& score) {
    std::unordered_map<std::uint64_t, const RecordedPrediction*> predictionOfCycle;
    for (const auto& p : recording.predictions) {
        predictionOfCycle.emplace(p.cycle, &p);
    }
    TrackingAccumulator accumulator(options.trackingCutoff_m, options.ospaOrder);
    std::vector<KinematicState> truths;
    std::vector<KinematicState> tracks;
    std::int64_t lastScored_ns = 0;
    bool scoredAny = false;
    for (const auto& list : recording.tracks) {
        const auto p = predictionOfCycle.find(list.cycle);
        if (p == predictionOfCycle.end() || p->second->mode >= RuntimeMode::HoldLast) {
            continue;  // the tracks' time is unknown, or the cycle did not compute
        }
        const std::int64_t source_ns = p->second->sourceStamp_ns;
        if (scoredAny && source_ns <= lastScored_ns) {
            continue;  // no new input since the last scored cycle: the same tracks again
        }
        std::size_t step = 0;
        const ObjectList* sent = nullptr;
        if (!stepOfTime(log, scenarioTime_s(log, source_ns), step) || (sent = listOfStep(log, step)) == nullptr ||
            step >= scenario.stepCount() ||
            static_cast<double>(step) * log.step_s < warmUpEnd_s(log, options)) {
            continue;
        }
        truths.clear();
        for (const GroundTruthState& s : scenario.frame(step)) {
            const double dx = s.x_m - sent->ego.x_m;
            const double dy = s.y_m - sent->ego.y_m;
            if (s.id != log.egoId && std::hypot(dx, dy) <= options.sensorRange_m) {
                truths.push_back(kinematic(s));
            }
        }
        tracks.clear();
        for (const Track& t : list.tracks) {
            tracks.push_back({t.x_m, t.y_m, t.vx_mps, t.vy_mps});
        }
        accumulator.addCycle(truths, tracks);
        lastScored_ns = source_ns;
        scoredAny = true;
    }
    score.tracking = accumulator.summary();
}

/// Track identity (IdentityAccumulator) on the cycles scoreTracking scores: the published tracks by id
/// against every road user but the ego at the tracks' time, those within sensor range counted as truth.
void scoreIdentity(const Scenario& scenario, const ReplayLog& log, const Recording& recording,
                   const ScoringOptions& options, BenchScore& score) {
    std::unordered_map<std::uint64_t, const RecordedPrediction*> predictionOfCycle;
    for (const auto& p : recording.predictions) {
        predictionOfCycle.emplace(p.cycle, &p);
    }
    IdentityAccumulator accumulator(options.identityGate_m, options.trackingCutoff_m, options.ospaOrder);
    std::vector<IdentifiedPosition> roadUsers;
    std::vector<IdentifiedPosition> tracks;
    std::int64_t lastScored_ns = 0;
    bool scoredAny = false;
    for (const auto& list : recording.tracks) {
        const auto p = predictionOfCycle.find(list.cycle);
        if (p == predictionOfCycle.end() || p->second->mode >= RuntimeMode::HoldLast) {
            continue;
        }
        const std::int64_t source_ns = p->second->sourceStamp_ns;
        if (scoredAny && source_ns <= lastScored_ns) {
            continue;
        }
        std::size_t step = 0;
        const ObjectList* sent = nullptr;
        if (!stepOfTime(log, scenarioTime_s(log, source_ns), step) || (sent = listOfStep(log, step)) == nullptr ||
            step >= scenario.stepCount()) {
            continue;
        }
        roadUsers.clear();
        for (const GroundTruthState& s : scenario.frame(step)) {
            if (s.id != log.egoId) {
                const bool inRange = std::hypot(s.x_m - sent->ego.x_m, s.y_m - sent->ego.y_m) <= options.sensorRange_m;
                roadUsers.push_back({s.id, s.x_m, s.y_m, inRange});
            }
        }
        tracks.clear();
        for (const Track& t : list.tracks) {
            tracks.push_back({t.id, t.x_m, t.y_m, true});
        }
        accumulator.addCycle(scenarioTime_s(log, source_ns), roadUsers, tracks);
        lastScored_ns = source_ns;
        scoredAny = true;
    }
    score.identity = accumulator.summary();
}

/// The per-sample record of one scored vehicle (see PredictionSample).
PredictionSample describeSample(const Scenario& scenario, std::size_t step0, double t0_s, const RecordedPrediction& p,
                                const VehiclePrediction& v, std::uint32_t trueId, const PerceivedObject& measured,
                                std::span<const Point2> truth, std::span<const std::span<const Point2>> candidates,
                                std::span<const double> probabilities, std::span<const Point2> cvPath) {
    constexpr double NOT_REACHED = std::numeric_limits<double>::quiet_NaN();
    PredictionSample s;
    s.t0_s = t0_s;
    s.mode = p.mode;
    s.trueId = trueId;
    s.trackId = v.trackId;
    s.perceivedSpeed_mps = measured.speed_mps;
    s.corridors = static_cast<std::uint32_t>(candidates.size());
    double total = 0.0;
    for (std::size_t c = 0; c < probabilities.size(); ++c) {
        total += probabilities[c];
        s.mostLikelyCorridor = probabilities[c] > probabilities[s.mostLikelyCorridor] ? static_cast<std::uint32_t>(c)
                                                                                       : s.mostLikelyCorridor;
    }
    s.mostLikelyProbability = probabilities[s.mostLikelyCorridor] / total;
    std::vector<Point2> weighted(truth.size());
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        for (std::size_t k = 0; k < truth.size(); ++k) {
            weighted[k].x_m += probabilities[c] / total * candidates[c][k].x_m;
            weighted[k].y_m += probabilities[c] / total * candidates[c][k].y_m;
        }
    }
    std::size_t longest = 0;
    for (std::size_t h = 0; h < PredictionSample::HORIZONS; ++h) {
        const auto steps = static_cast<std::size_t>(std::lround(REPORT_HORIZONS_S[h] / static_cast<double>(p.step_s)));
        if (steps < 1 || steps > truth.size()) {
            s.fdeOurs_m[h] = s.fdeMin_m[h] = s.fdeWeighted_m[h] = s.fdeCv_m[h] = NOT_REACHED;
            s.adeOurs_m[h] = s.adeCv_m[h] = NOT_REACHED;
            continue;
        }
        longest = steps;
        const DisplacementErrors ours = displacementErrors(truth, candidates[s.mostLikelyCorridor], steps);
        const DisplacementErrors cv = displacementErrors(truth, cvPath, steps);
        s.fdeOurs_m[h] = ours.fde_m;
        s.adeOurs_m[h] = ours.ade_m;
        s.fdeMin_m[h] = minOverCandidates(truth, candidates, steps).minFde_m;
        s.fdeWeighted_m[h] = displacementErrors(truth, weighted, steps).fde_m;
        s.fdeCv_m[h] = cv.fde_m;
        s.adeCv_m[h] = cv.ade_m;
    }
    if (const GroundTruthState* now = scenario.find(step0, trueId)) {
        s.trueSpeed_mps = now->speed_mps;
        const GroundTruthState* later = scenario.find(step0 + longest, trueId);
        if (later != nullptr) {
            s.headingChange_rad = std::remainder(static_cast<double>(later->heading_rad) - now->heading_rad, 2.0 * std::numbers::pi);
        }
    }
    if (longest >= 2) {
        double best = std::numeric_limits<double>::infinity();
        for (std::size_t c = 0; c < candidates.size(); ++c) {
            const double fde = distance(truth[longest - 1], candidates[c][longest - 1]);
            if (fde < best) {
                best = fde;
                s.bestCorridor = static_cast<std::uint32_t>(c);
            }
        }
        // Direction of travel at the horizon from the last two true points.
        const Point2 a = truth[longest - 2];
        const Point2 b = truth[longest - 1];
        const double len = std::hypot(b.x_m - a.x_m, b.y_m - a.y_m);
        const double tx = len > 1e-6 ? (b.x_m - a.x_m) / len : 1.0;
        const double ty = len > 1e-6 ? (b.y_m - a.y_m) / len : 0.0;
        const auto split = [&](Point2 q, double& along, double& across) {
            const double dx = q.x_m - b.x_m;
            const double dy = q.y_m - b.y_m;
            along = dx * tx + dy * ty;
            across = -dx * ty + dy * tx;
        };
        split(candidates[s.mostLikelyCorridor][longest - 1], s.alongOurs_m, s.acrossOurs_m);
        split(cvPath[longest - 1], s.alongCv_m, s.acrossCv_m);
    }
    return s;
}

struct SnapshotCandidate {
    const RecordedPrediction* prediction{nullptr};
    std::size_t vehiclesInGrid{0};
    double distanceFromMiddle_s{0.0};
};

/// The recording's intention and track lists by cycle.
struct RecordingIndex {
    explicit RecordingIndex(const Recording& recording) {
        for (const auto& i : recording.intentions) {
            intentionsOfCycle.emplace(i.cycle, &i);
        }
        for (const auto& t : recording.tracks) {
            tracksOfCycle.emplace(t.cycle, &t);
        }
    }
    std::unordered_map<std::uint64_t, const RecordedIntentionList*> intentionsOfCycle;
    std::unordered_map<std::uint64_t, const RecordedTrackList*> tracksOfCycle;
};

constexpr auto COMPUTED_MODES = static_cast<std::size_t>(RuntimeMode::HoldLast);  // modes that compute

/// The error accumulators of one predictor (ours, constant velocity, lane following): over every
/// sample, by the runtime mode of the prediction and by what the road user did.
struct PredictorErrors {
    void start(float step_s, std::span<const double> horizons) {
        all.emplace(step_s, horizons);
        for (std::size_t m = 0; m < COMPUTED_MODES; ++m) {
            byMode.emplace_back(step_s, horizons);
        }
        for (std::size_t c = 0; c < MOTION_CLASS_COUNT; ++c) {
            byClass.emplace_back(step_s, horizons);
        }
    }
    void add(std::size_t mode, std::size_t motion, std::span<const Point2> truth,
             std::span<const std::span<const Point2>> candidates, std::span<const double> probabilities) {
        all->add(truth, candidates, probabilities);
        byMode[mode].add(truth, candidates, probabilities);
        byClass[motion].add(truth, candidates, probabilities);
    }

    std::optional<PredictionAccumulator> all;
    std::vector<PredictionAccumulator> byMode;
    std::vector<PredictionAccumulator> byClass;
};

/// What one scored vehicle of one prediction is compared with, rebuilt per vehicle (the storage is kept).
struct VehicleCandidates {
    std::vector<Point2> truth;                       ///< the road user's true positions over the horizon
    std::vector<std::vector<Point2>> corridors;      ///< ours: the predicted corridors' points
    std::vector<std::span<const Point2>> candidates;
    std::vector<double> probabilities;
    std::vector<Point2> cvPath;                      ///< the constant-velocity baseline
    std::vector<LaneFollowingMode> lfModes;          ///< the lane-following baseline
    std::vector<std::span<const Point2>> lfCandidates;
    std::vector<double> lfProbabilities;
    std::vector<bool> taken;
};

/// Scores the recorded predictions against the ground truth and both baselines, and picks the snapshot.
/// The steps: per prediction, whether it is scored at all (scorePrediction); per vehicle, the truth, our
/// corridors and the baselines from the perceived state (scoreVehicle), added to the accumulators and
/// described as a sample; then the results and the snapshot.
class PredictionScorer {
public:
    PredictionScorer(const Scenario& scenario, const PerceptionEmulator& emulator, const ReplayLog& log,
                     const Recording& recording, const ScoringOptions& options, BenchScore& score)
        : m_scenario(scenario), m_emulator(emulator), m_log(log), m_recording(recording), m_options(options),
          m_score(score), m_index(recording), m_grid(std::make_unique<OccupancyGrid>()),
          m_runMiddle_s(log.step_s * (static_cast<double>(log.firstStep) + 0.5 * static_cast<double>(log.lists.size()))) {}

    void run() {
        for (const RecordedPrediction& p : m_recording.predictions) {
            scorePrediction(p);
        }
        writeResults();
        m_score.occupancyThreshold = m_options.occupancyThreshold;
        if (m_best.prediction != nullptr) {
            m_score.snapshot = snapshotOf(*m_best.prediction);
        }
    }

private:
    /// Whether `p` is one to score: computed (not held or stale), not older than the last scored one, and
    /// on the step of the first scored prediction (the accumulators start with it).
    bool admissible(const RecordedPrediction& p) {
        if (p.mode >= RuntimeMode::HoldLast || p.stale || p.horizonSteps == 0 || !(p.step_s > 0.0F) ||
            (m_scoredAny && p.sourceStamp_ns <= m_lastScored_ns)) {
            return false;
        }
        if (m_ours.all && p.step_s != m_step_s) {
            return false;  // the runtime changed its step mid-run: keep the first
        }
        if (!m_ours.all) {
            const std::span<const double> horizons(REPORT_HORIZONS_S);
            m_step_s = p.step_s;
            m_ours.start(p.step_s, horizons);
            m_cv.start(p.step_s, horizons);
            m_lf.start(p.step_s, horizons);
        }
        return true;
    }

    void scorePrediction(const RecordedPrediction& p) {
        if (!admissible(p)) {
            ++m_score.predictionsSkipped;
            return;
        }
        const double t0_s = scenarioTime_s(m_log, p.sourceStamp_ns);
        std::size_t step0 = 0;
        if (!stepOfTime(m_log, t0_s, step0)) {
            ++m_score.predictionsSkipped;
            return;
        }
        if (t0_s < warmUpEnd_s(m_log, m_options)) {
            ++m_score.predictionsInWarmUp;
            return;
        }
        const bool hasGrid = p.grid.frameCount > 0 && p.horizonSteps % p.grid.frameCount == 0;
        if (hasGrid) {
            restoreGrid(p.grid, *m_grid);
        }
        std::size_t scoredVehicles = 0;
        std::size_t vehiclesInGrid = 0;
        for (const VehiclePrediction& v : p.vehicles) {
            bool inGrid = false;
            if (scoreVehicle(p, v, step0, t0_s, hasGrid, inGrid)) {
                ++scoredVehicles;
                vehiclesInGrid += inGrid ? 1 : 0;
            }
        }
        if (scoredVehicles == 0) {
            ++m_score.predictionsSkipped;
            return;
        }
        ++m_score.predictionsScored;
        m_lastScored_ns = p.sourceStamp_ns;
        m_scoredAny = true;
        const double fromMiddle = std::fabs(t0_s - m_runMiddle_s);
        if (hasGrid && (vehiclesInGrid > m_best.vehiclesInGrid ||
                        (vehiclesInGrid == m_best.vehiclesInGrid && vehiclesInGrid > 0 &&
                         fromMiddle < m_best.distanceFromMiddle_s))) {
            m_best = {&p, vehiclesInGrid, fromMiddle};
        }
    }

    /// Scores vehicle `v` of `p` (made at scenario time `t0_s`, step `step0`); false when it cannot be
    /// scored (no road user, no truth, no perceived state for the baselines, no probable corridor).
    /// `inGrid`: its true path touched the occupancy grid.
    bool scoreVehicle(const RecordedPrediction& p, const VehiclePrediction& v, std::size_t step0, double t0_s,
                      bool hasGrid, bool& inGrid) {
        const std::uint32_t trueId = roadUserOfTrack(m_scenario, m_log, m_index.tracksOfCycle, p.cycle, v.trackId, step0,
                                                     m_options.identityGate_m);
        if (trueId == 0 || trueId == m_log.egoId || v.corridorCount == 0 || !collectTruth(trueId, t0_s, p)) {
            return false;
        }
        std::size_t measuredStep = 0;
        const PerceivedObject* measured =
            perceivedOfRoadUser(m_emulator, m_log, step0, trueId, m_options.cvLookbackSteps, measuredStep);
        if (measured == nullptr) {
            ++m_score.samplesWithoutBaseline;
            return false;
        }
        if (!collectCorridors(v, p.horizonSteps)) {
            return false;
        }
        predictBaselines(*measured, measuredStep, t0_s, p);
        const MotionClass motion = motionOverHorizon(step0, trueId, p.step_s);
        addToAccumulators(static_cast<std::size_t>(p.mode), static_cast<std::size_t>(motion));

        VehicleCandidates& c = m_vehicle;
        PredictionSample& sample = m_score.samples.emplace_back(describeSample(
            m_scenario, step0, t0_s, p, v, trueId, *measured, c.truth, c.candidates, c.probabilities, c.cvPath));
        sample.motion = motion;
        (void)candidatesTaken(c.truth, c.candidates, c.truth.size(), c.taken);
        sample.brierOurs = brierScore(c.probabilities, c.taken);
        describeLaneFollowing(sample, p.step_s);
        describeRuntimeState(sample, p.cycle, v.trackId);
        inGrid = hasGrid && scoreOccupancy(p);
        return true;
    }

    /// The road user's true positions at t0 + k·step, k = 1 … horizon, up to its last; false if none.
    bool collectTruth(std::uint32_t trueId, double t0_s, const RecordedPrediction& p) {
        std::vector<Point2>& truth = m_vehicle.truth;
        truth.clear();
        for (std::size_t k = 1; k <= p.horizonSteps; ++k) {
            Point2 point;
            if (!truthPositionAt(m_scenario, trueId, t0_s + static_cast<double>(k) * p.step_s, point)) {
                break;
            }
            truth.push_back(point);
        }
        return !truth.empty();
    }

    /// Our candidates: the vehicle's corridors and their probabilities; false if none is probable.
    bool collectCorridors(const VehiclePrediction& v, std::size_t steps) {
        VehicleCandidates& c = m_vehicle;
        c.corridors.resize(v.corridorCount);
        c.candidates.clear();
        c.probabilities.clear();
        double probabilitySum = 0.0;
        for (std::uint32_t i = 0; i < v.corridorCount; ++i) {
            c.corridors[i].resize(steps);
            for (std::size_t k = 0; k < steps; ++k) {
                c.corridors[i][k] = {v.corridors[i].points[k].x_m, v.corridors[i].points[k].y_m};
            }
            c.candidates.emplace_back(c.corridors[i]);
            const double probability = std::max(0.0, static_cast<double>(v.corridors[i].probability));
            c.probabilities.push_back(probability);
            probabilitySum += probability;
        }
        return probabilitySum > 0.0;
    }

    /// The baselines from the perceived state carried forward to t0: constant velocity and, when given,
    /// lane following.
    void predictBaselines(const PerceivedObject& measured, std::size_t measuredStep, double t0_s,
                          const RecordedPrediction& p) {
        VehicleCandidates& c = m_vehicle;
        const double lag_s = t0_s - static_cast<double>(measuredStep) * m_log.step_s;
        const double heading = measured.heading_rad;
        const double speed = measured.speed_mps;
        const Point2 atT0{measured.x_m + lag_s * speed * std::cos(heading), measured.y_m + lag_s * speed * std::sin(heading)};
        c.cvPath.resize(p.horizonSteps);
        predictConstantVelocity(atT0, heading, speed, p.step_s, c.cvPath);
        c.lfCandidates.clear();
        c.lfProbabilities.clear();
        if (m_options.laneFollowing != nullptr) {
            m_options.laneFollowing->predict(atT0, heading, speed, p.step_s, p.horizonSteps, c.lfModes);
            for (const LaneFollowingMode& m : c.lfModes) {
                c.lfCandidates.emplace_back(m.points);
                c.lfProbabilities.push_back(m.probability);
            }
        }
    }

    /// What the road user did over the horizon, from the truth.
    MotionClass motionOverHorizon(std::size_t step0, std::uint32_t trueId, float step_s) const {
        const GroundTruthState* now = m_scenario.find(step0, trueId);
        if (now == nullptr) {
            return MotionClass::Straight;
        }
        const std::vector<Point2>& truth = m_vehicle.truth;
        const std::size_t endStep =
            step0 + static_cast<std::size_t>(std::lround(static_cast<double>(truth.size()) * step_s / m_log.step_s));
        const GroundTruthState* later = m_scenario.find(endStep, trueId);
        return classifyMotion(Point2{now->x_m, now->y_m}, now->heading_rad, now->speed_mps, truth.back(),
                              later != nullptr ? static_cast<double>(later->heading_rad) : now->heading_rad);
    }

    void addToAccumulators(std::size_t mode, std::size_t motion) {
        const VehicleCandidates& c = m_vehicle;
        const std::span<const Point2> cvCandidate(c.cvPath);
        const double one = 1.0;
        m_ours.add(mode, motion, c.truth, c.candidates, c.probabilities);
        m_cv.add(mode, motion, c.truth, std::span<const std::span<const Point2>>(&cvCandidate, 1),
                 std::span<const double>(&one, 1));
        if (!c.lfCandidates.empty()) {
            m_lf.add(mode, motion, c.truth, c.lfCandidates, c.lfProbabilities);
        }
        ++m_samplesByMode[mode];
        ++m_samplesByClass[motion];
    }

    /// The lane-following baseline's Brier score and final displacement errors (its probability-weighted
    /// mean path and its best mode) at the report horizons; NaN without lane following.
    void describeLaneFollowing(PredictionSample& sample, float step_s) {
        VehicleCandidates& c = m_vehicle;
        sample.lfModes = static_cast<std::uint32_t>(c.lfCandidates.size());
        sample.brierLf = std::numeric_limits<double>::quiet_NaN();
        for (std::size_t h = 0; h < PredictionSample::HORIZONS; ++h) {
            sample.fdeLf_m[h] = sample.fdeLfMin_m[h] = std::numeric_limits<double>::quiet_NaN();
        }
        if (c.lfCandidates.empty()) {
            return;
        }
        (void)candidatesTaken(c.truth, c.lfCandidates, c.truth.size(), c.taken);
        sample.brierLf = brierScore(c.lfProbabilities, c.taken);
        std::vector<Point2> lfMean(c.truth.size());
        for (std::size_t i = 0; i < c.lfCandidates.size(); ++i) {
            for (std::size_t k = 0; k < c.truth.size(); ++k) {
                lfMean[k].x_m += c.lfProbabilities[i] * c.lfCandidates[i][k].x_m;
                lfMean[k].y_m += c.lfProbabilities[i] * c.lfCandidates[i][k].y_m;
            }
        }
        for (std::size_t h = 0; h < PredictionSample::HORIZONS; ++h) {
            const auto hSteps = static_cast<std::size_t>(std::lround(REPORT_HORIZONS_S[h] / static_cast<double>(step_s)));
            if (hSteps >= 1 && hSteps <= c.truth.size()) {
                sample.fdeLf_m[h] = displacementErrors(c.truth, lfMean, hSteps).fde_m;
                sample.fdeLfMin_m[h] = minOverCandidates(c.truth, c.lfCandidates, hSteps).minFde_m;
            }
        }
    }

    /// The intention estimate and the track speed the runtime had for the vehicle in that cycle.
    void describeRuntimeState(PredictionSample& sample, std::uint64_t cycle, std::uint32_t trackId) const {
        if (const auto it = m_index.intentionsOfCycle.find(cycle); it != m_index.intentionsOfCycle.end()) {
            for (const IntentionEstimate& e : it->second->vehicles) {
                if (e.trackId == trackId) {
                    sample.intentionCorridors = e.corridorCount;
                    sample.stopProbability = e.stopProbability;
                }
            }
        }
        sample.trackSpeed_mps = std::numeric_limits<double>::quiet_NaN();
        if (const auto it = m_index.tracksOfCycle.find(cycle); it != m_index.tracksOfCycle.end()) {
            for (const Track& t : it->second->tracks) {
                if (t.id == trackId) {
                    sample.trackSpeed_mps = std::hypot(t.vx_mps, t.vy_mps);
                }
            }
        }
    }

    /// Counts the true path's cells against the prediction's occupancy frames; true if it touched the grid.
    bool scoreOccupancy(const RecordedPrediction& p) {
        const std::vector<Point2>& truth = m_vehicle.truth;
        const std::size_t perFrame = p.horizonSteps / p.grid.frameCount;
        bool inGrid = false;
        for (std::size_t k = 0; k < truth.size(); ++k) {
            const auto frame = static_cast<std::uint32_t>(k / perFrame);
            const OccupancyOutcome outcome = occupancyOutcome(*m_grid, frame, truth[k].x_m, truth[k].y_m, m_options.occupancyThreshold);
            m_score.occupancy.add(outcome);
            inGrid = inGrid || outcome != OccupancyOutcome::OutsideGrid;
        }
        return inGrid;
    }

    void writeResults() {
        if (!m_ours.all) {
            return;
        }
        m_score.ours = m_ours.all->results();
        m_score.cv = m_cv.all->results();
        const bool withLf = m_options.laneFollowing != nullptr;
        if (withLf) {
            m_score.lf = m_lf.all->results();
        }
        for (std::size_t m = 0; m < COMPUTED_MODES; ++m) {
            if (m_samplesByMode[m] > 0) {
                m_score.byMode.push_back({static_cast<RuntimeMode>(m), m_ours.byMode[m].results(), m_cv.byMode[m].results(),
                                          withLf ? m_lf.byMode[m].results() : std::vector<HorizonErrors>{}});
            }
        }
        for (std::size_t c = 0; c < MOTION_CLASS_COUNT; ++c) {
            if (m_samplesByClass[c] > 0) {
                m_score.byClass.push_back({static_cast<MotionClass>(c), m_ours.byClass[c].results(),
                                           m_cv.byClass[c].results(),
                                           withLf ? m_lf.byClass[c].results() : std::vector<HorizonErrors>{}});
            }
        }
    }

    /// The snapshot: the last frame of prediction `p`, with the paths of its vehicles (truth, ours and
    /// the baselines').
    BenchSnapshot snapshotOf(const RecordedPrediction& p) const {
        BenchSnapshot snapshot;
        snapshot.grid = std::make_shared<OccupancyGrid>();
        restoreGrid(p.grid, *snapshot.grid);
        snapshot.frame = p.grid.frameCount - 1;
        snapshot.mode = p.mode;
        snapshot.t_s = scenarioTime_s(m_log, p.sourceStamp_ns);
        snapshot.horizon_s = static_cast<double>(p.grid.frameCount) * p.grid.frameInterval_s;
        std::size_t step0 = 0;
        (void)stepOfTime(m_log, snapshot.t_s, step0);
        if (const ObjectList* sent = listOfStep(m_log, step0)) {
            snapshot.paths.push_back({PathKind::Ego, m_log.egoId, 0, 1.0, {{sent->ego.x_m, sent->ego.y_m}}});
        }
        for (const VehiclePrediction& v : p.vehicles) {
            const std::uint32_t trueId = roadUserOfTrack(m_scenario, m_log, m_index.tracksOfCycle, p.cycle, v.trackId,
                                                         step0, m_options.identityGate_m);
            if (trueId != 0 && trueId != m_log.egoId) {
                addSnapshotPaths(snapshot, p, v, trueId, step0);
            }
        }
        return snapshot;
    }

    void addSnapshotPaths(BenchSnapshot& snapshot, const RecordedPrediction& p, const VehiclePrediction& v,
                          std::uint32_t trueId, std::size_t step0) const {
        SnapshotPath truthPath{PathKind::Truth, trueId, 0, 1.0, {}};
        for (std::size_t k = 1; k <= p.horizonSteps; ++k) {
            Point2 point;
            if (!truthPositionAt(m_scenario, trueId, snapshot.t_s + static_cast<double>(k) * p.step_s, point)) {
                break;
            }
            truthPath.points.push_back(point);
        }
        if (!truthPath.points.empty()) {
            snapshot.paths.push_back(std::move(truthPath));
        }
        for (std::uint32_t c = 0; c < v.corridorCount && c < MAX_CORRIDORS_PER_VEHICLE; ++c) {
            SnapshotPath path{PathKind::Ours, trueId, c, v.corridors[c].probability, {}};
            for (std::size_t k = 0; k < p.horizonSteps; ++k) {
                path.points.push_back({v.corridors[c].points[k].x_m, v.corridors[c].points[k].y_m});
            }
            snapshot.paths.push_back(std::move(path));
        }
        std::size_t measuredStep = 0;
        const PerceivedObject* m = perceivedOfRoadUser(m_emulator, m_log, step0, trueId, m_options.cvLookbackSteps, measuredStep);
        if (m == nullptr) {
            return;
        }
        const double lag_s = snapshot.t_s - static_cast<double>(measuredStep) * m_log.step_s;
        const Point2 atT0{m->x_m + lag_s * m->speed_mps * std::cos(static_cast<double>(m->heading_rad)),
                          m->y_m + lag_s * m->speed_mps * std::sin(static_cast<double>(m->heading_rad))};
        SnapshotPath path{PathKind::ConstantVelocity, trueId, 0, 1.0, std::vector<Point2>(p.horizonSteps)};
        predictConstantVelocity(atT0, m->heading_rad, m->speed_mps, p.step_s, path.points);
        snapshot.paths.push_back(std::move(path));
        if (m_options.laneFollowing != nullptr) {
            std::vector<LaneFollowingMode> modes;
            m_options.laneFollowing->predict(atT0, m->heading_rad, m->speed_mps, p.step_s, p.horizonSteps, modes);
            for (std::size_t c = 0; c < modes.size(); ++c) {
                snapshot.paths.push_back({PathKind::LaneFollowing, trueId, static_cast<std::uint32_t>(c),
                                          modes[c].probability, std::move(modes[c].points)});
            }
        }
    }

    const Scenario& m_scenario;
    const PerceptionEmulator& m_emulator;
    const ReplayLog& m_log;
    const Recording& m_recording;
    const ScoringOptions& m_options;
    BenchScore& m_score;
    RecordingIndex m_index;
    std::unique_ptr<OccupancyGrid> m_grid;  ///< the scored prediction's occupancy frames
    double m_runMiddle_s;
    PredictorErrors m_ours;
    PredictorErrors m_cv;
    PredictorErrors m_lf;
    std::array<std::size_t, COMPUTED_MODES> m_samplesByMode{};
    std::array<std::size_t, MOTION_CLASS_COUNT> m_samplesByClass{};
    float m_step_s{0.0F};  ///< the step of the first scored prediction
    VehicleCandidates m_vehicle;
    SnapshotCandidate m_best;
    std::int64_t m_lastScored_ns{0};
    bool m_scoredAny{false};
};

void scorePredictions(const Scenario& scenario, const PerceptionEmulator& emulator, const ReplayLog& log,
                      const Recording& recording, const ScoringOptions& options, BenchScore& score) {
    PredictionScorer(scenario, emulator, log, recording, options, score).run();
}

}  // namespace

bool truthPositionAt(const Scenario& scenario, std::uint32_t id, double t_s, Point2& out) noexcept {
    const double step_s = scenario.step_s();
    if (!(t_s >= 0.0) || !(step_s > 0.0)) {
        return false;
    }
    const double position = t_s / step_s;
    const auto lower = static_cast<std::size_t>(std::floor(position));
    const double fraction = position - static_cast<double>(lower);
    constexpr double ON_STEP = 1e-6;  // within a microstep of a step: no interpolation
    const GroundTruthState* a = scenario.find(lower, id);
    if (a == nullptr) {
        return false;
    }
    if (fraction < ON_STEP) {
        out = {a->x_m, a->y_m};
        return true;
    }
    const GroundTruthState* b = scenario.find(lower + 1, id);
    if (b == nullptr) {
        return false;
    }
    out = {a->x_m + fraction * (b->x_m - a->x_m), a->y_m + fraction * (b->y_m - a->y_m)};
    return true;
}

BenchScore scoreRun(const Scenario& scenario, const PerceptionEmulator& emulator, const ReplayLog& log,
                    const Recording& recording, const ScoringOptions& options) {
    BenchScore score;
    scoreTiming(recording, options, score);
    scoreTracking(scenario, log, recording, options, score);
    scoreIdentity(scenario, log, recording, options, score);
    scorePredictions(scenario, emulator, log, recording, options, score);
    return score;
}

Verdict judge(const BenchScore& score, const Acceptance& acceptance) {
    Verdict verdict;
    if (acceptance.maxDeadlineMisses) {
        const std::uint64_t misses =
            std::max<std::uint64_t>(score.latency.deadlineMisses, score.runtimeDeadlineMisses);
        if (misses > *acceptance.maxDeadlineMisses) {
            verdict.held = false;
            verdict.failures.push_back("deadline misses " + std::to_string(misses) + " > " +
                                       std::to_string(*acceptance.maxDeadlineMisses));
        }
    }
    if (acceptance.maxAde4s_m) {
        if (score.ours.size() <= HORIZON_4S_INDEX || score.ours[HORIZON_4S_INDEX].samples == 0) {
            verdict.held = false;
            verdict.failures.push_back("ADE at 4 s: no prediction could be scored at 4 s");
        } else if (score.ours[HORIZON_4S_INDEX].ade_m > *acceptance.maxAde4s_m) {
            verdict.held = false;
            verdict.failures.push_back("ADE at 4 s " + std::to_string(score.ours[HORIZON_4S_INDEX].ade_m) + " m > " +
                                       std::to_string(*acceptance.maxAde4s_m) + " m");
        }
    }
    return verdict;
}

std::vector<MetricRecord> benchMetrics(const BenchScore& score, const ReplayLog& log, const Recording& recording) {
    std::vector<MetricRecord> rows = trackingMetrics(score.tracking);
    const auto append = [&rows](std::vector<MetricRecord> more) { rows.insert(rows.end(), more.begin(), more.end()); };
    append(identityMetrics(score.identity));
    append(latencyMetrics(score.latency));
    append(occupancyMetrics(score.occupancy, score.occupancyThreshold));
    append(rejectionMetrics(std::span<const std::uint64_t, REJECT_REASON_COUNT>(score.rejections)));
    const auto count = [&rows](const char* name, std::uint64_t value, const char* unit) {
        rows.push_back({name, static_cast<double>(value), unit});
    };
    count("runtime_deadline_misses", score.runtimeDeadlineMisses, "cycles");
    count("watchdog_alarms", score.watchdogAlarms, "messages");
    count("mode_changes", score.modeChanges, "changes");
    count("accepted_inputs", score.acceptedInputs, "lists");
    count("input_queue_overflows", score.inputQueueOverflows, "times");
    count("runtime_loan_failures", score.loanFailures, "loans");
    count("stage_failures", score.stageFailures, "stages");
    count("predictions_scored", score.predictionsScored, "predictions");
    count("predictions_skipped", score.predictionsSkipped, "predictions");
    count("samples_without_baseline", score.samplesWithoutBaseline, "vehicles");
    count("predictions_in_warm_up", score.predictionsInWarmUp, "predictions");
    count("lists_published", log.published, "lists");
    count("bench_loan_failures", log.loanFailures, "lists");
    count("late_sends", log.lateSends, "lists");
    rows.push_back({"max_send_lateness", log.maxLateness_us, "us"});
    count("recorded_track_lists", recording.tracks.size(), "messages");
    count("recorded_intention_lists", recording.intentions.size(), "messages");
    count("recorded_predictions", recording.predictions.size(), "messages");
    count("recorded_platoon_lists", recording.platoons.size(), "messages");
    count("recorded_health", recording.health.size(), "messages");
    count("recorder_queue_overflows", recording.queueOverflows, "times");
    return rows;
}

}  // namespace augur::hil
