#include "augur/hil/bench_scoring.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
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
    // Watchdog alarms (published while a cycle overran) are counted; the cycles are the cycles' own health.
    std::vector<Health> health;
    for (const Health& h : recording.health) {
        if (h.overrunAlarm != 0) {
            ++score.watchdogAlarms;
        } else {
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

void scorePredictions(const Scenario& scenario, const PerceptionEmulator& emulator, const ReplayLog& log,
                      const Recording& recording, const ScoringOptions& options, BenchScore& score) {
    const std::span<const double> horizons(REPORT_HORIZONS_S);
    std::unordered_map<std::uint64_t, const RecordedIntentionList*> intentionsOfCycle;
    for (const auto& i : recording.intentions) {
        intentionsOfCycle.emplace(i.cycle, &i);
    }
    std::unordered_map<std::uint64_t, const RecordedTrackList*> tracksOfCycle;
    for (const auto& t : recording.tracks) {
        tracksOfCycle.emplace(t.cycle, &t);
    }
    std::optional<PredictionAccumulator> ours;
    std::optional<PredictionAccumulator> cv;
    constexpr auto COMPUTED_MODES = static_cast<std::size_t>(RuntimeMode::HoldLast);  // modes that compute
    std::optional<PredictionAccumulator> lf;
    std::vector<PredictionAccumulator> oursByMode;
    std::vector<PredictionAccumulator> cvByMode;
    std::vector<PredictionAccumulator> lfByMode;
    std::vector<std::size_t> samplesByMode(COMPUTED_MODES, 0);
    std::vector<PredictionAccumulator> oursByClass;
    std::vector<PredictionAccumulator> cvByClass;
    std::vector<PredictionAccumulator> lfByClass;
    std::vector<std::size_t> samplesByClass(MOTION_CLASS_COUNT, 0);
    std::vector<LaneFollowingMode> lfModes;
    std::vector<std::span<const Point2>> lfCandidates;
    std::vector<double> lfProbabilities;
    std::vector<bool> taken;
    float accumulatorStep_s = 0.0F;
    auto grid = std::make_unique<OccupancyGrid>();
    std::vector<Point2> truth;
    std::vector<std::vector<Point2>> corridors;
    std::vector<std::span<const Point2>> candidates;
    std::vector<double> probabilities;
    std::vector<Point2> cvPath;
    const double runMiddle_s = log.step_s * (static_cast<double>(log.firstStep) + 0.5 * static_cast<double>(log.lists.size()));
    SnapshotCandidate best;
    std::int64_t lastScored_ns = 0;
    bool scoredAny = false;

    for (const RecordedPrediction& p : recording.predictions) {
        if (p.mode >= RuntimeMode::HoldLast || p.stale || p.horizonSteps == 0 || !(p.step_s > 0.0F) ||
            (scoredAny && p.sourceStamp_ns <= lastScored_ns)) {
            ++score.predictionsSkipped;
            continue;
        }
        if (!ours || p.step_s != accumulatorStep_s) {
            if (ours) {
                ++score.predictionsSkipped;  // the runtime changed its step mid-run: keep the first
                continue;
            }
            accumulatorStep_s = p.step_s;
            ours.emplace(p.step_s, horizons);
            cv.emplace(p.step_s, horizons);
            lf.emplace(p.step_s, horizons);
            for (std::size_t m = 0; m < COMPUTED_MODES; ++m) {
                oursByMode.emplace_back(p.step_s, horizons);
                cvByMode.emplace_back(p.step_s, horizons);
                lfByMode.emplace_back(p.step_s, horizons);
            }
            for (std::size_t c = 0; c < MOTION_CLASS_COUNT; ++c) {
                oursByClass.emplace_back(p.step_s, horizons);
                cvByClass.emplace_back(p.step_s, horizons);
                lfByClass.emplace_back(p.step_s, horizons);
            }
        }
        const double t0_s = scenarioTime_s(log, p.sourceStamp_ns);
        std::size_t step0 = 0;
        if (!stepOfTime(log, t0_s, step0)) {
            ++score.predictionsSkipped;
            continue;
        }
        if (t0_s < warmUpEnd_s(log, options)) {
            ++score.predictionsInWarmUp;
            continue;
        }
        const bool hasGrid = p.grid.frameCount > 0 && p.horizonSteps % p.grid.frameCount == 0;
        if (hasGrid) {
            restoreGrid(p.grid, *grid);
        }
        const std::size_t steps = p.horizonSteps;
        std::size_t scoredVehicles = 0;
        std::size_t vehiclesInGrid = 0;
        for (const VehiclePrediction& v : p.vehicles) {
            const std::uint32_t trueId =
                roadUserOfTrack(scenario, log, tracksOfCycle, p.cycle, v.trackId, step0, options.identityGate_m);
            if (trueId == 0 || trueId == log.egoId || v.corridorCount == 0) {
                continue;
            }
            truth.clear();
            for (std::size_t k = 1; k <= steps; ++k) {
                Point2 point;
                if (!truthPositionAt(scenario, trueId, t0_s + static_cast<double>(k) * p.step_s, point)) {
                    break;
                }
                truth.push_back(point);
            }
            if (truth.empty()) {
                continue;
            }
            std::size_t measuredStep = 0;
            const PerceivedObject* measured =
                perceivedOfRoadUser(emulator, log, step0, trueId, options.cvLookbackSteps, measuredStep);
            if (measured == nullptr) {
                ++score.samplesWithoutBaseline;
                continue;
            }
            corridors.resize(v.corridorCount);
            candidates.clear();
            probabilities.clear();
            double probabilitySum = 0.0;
            for (std::uint32_t c = 0; c < v.corridorCount; ++c) {
                corridors[c].resize(steps);
                for (std::size_t k = 0; k < steps; ++k) {
                    corridors[c][k] = {v.corridors[c].points[k].x_m, v.corridors[c].points[k].y_m};
                }
                candidates.emplace_back(corridors[c]);
                const double probability = std::max(0.0, static_cast<double>(v.corridors[c].probability));
                probabilities.push_back(probability);
                probabilitySum += probability;
            }
            if (!(probabilitySum > 0.0)) {
                continue;
            }
            // Baseline: the perceived state carried forward to t0, then constant velocity.
            const double lag_s = t0_s - static_cast<double>(measuredStep) * log.step_s;
            const double heading = measured->heading_rad;
            const double speed = measured->speed_mps;
            const Point2 atT0{measured->x_m + lag_s * speed * std::cos(heading), measured->y_m + lag_s * speed * std::sin(heading)};
            cvPath.resize(steps);
            predictConstantVelocity(atT0, heading, speed, p.step_s, cvPath);
            const std::span<const Point2> cvCandidate(cvPath);
            const double one = 1.0;
            const std::span<const std::span<const Point2>> cvCandidates(&cvCandidate, 1);
            const std::span<const double> cvProbability(&one, 1);
            // Lane following from the same perceived state.
            lfCandidates.clear();
            lfProbabilities.clear();
            if (options.laneFollowing != nullptr) {
                options.laneFollowing->predict(atT0, heading, speed, p.step_s, steps, lfModes);
                for (const LaneFollowingMode& m : lfModes) {
                    lfCandidates.emplace_back(m.points);
                    lfProbabilities.push_back(m.probability);
                }
            }
            // What the road user did over the horizon, from the truth.
            MotionClass motion = MotionClass::Straight;
            if (const GroundTruthState* now = scenario.find(step0, trueId)) {
                const std::size_t endStep =
                    step0 + static_cast<std::size_t>(std::lround(static_cast<double>(truth.size()) * p.step_s / log.step_s));
                const GroundTruthState* later = scenario.find(endStep, trueId);
                motion = classifyMotion(Point2{now->x_m, now->y_m}, now->heading_rad, now->speed_mps, truth.back(),
                                        later != nullptr ? static_cast<double>(later->heading_rad) : now->heading_rad);
            }
            const auto mode = static_cast<std::size_t>(p.mode);
            const auto motionIndex = static_cast<std::size_t>(motion);
            ours->add(truth, candidates, probabilities);
            cv->add(truth, cvCandidates, cvProbability);
            oursByMode[mode].add(truth, candidates, probabilities);
            cvByMode[mode].add(truth, cvCandidates, cvProbability);
            oursByClass[motionIndex].add(truth, candidates, probabilities);
            cvByClass[motionIndex].add(truth, cvCandidates, cvProbability);
            if (!lfCandidates.empty()) {
                lf->add(truth, lfCandidates, lfProbabilities);
                lfByMode[mode].add(truth, lfCandidates, lfProbabilities);
                lfByClass[motionIndex].add(truth, lfCandidates, lfProbabilities);
            }
            ++samplesByMode[mode];
            ++samplesByClass[motionIndex];
            ++scoredVehicles;
            PredictionSample& sample = score.samples.emplace_back(describeSample(
                scenario, step0, t0_s, p, v, trueId, *measured, truth, candidates, probabilities, cvPath));
            sample.motion = motion;
            (void)candidatesTaken(truth, candidates, truth.size(), taken);
            sample.brierOurs = brierScore(probabilities, taken);
            sample.lfModes = static_cast<std::uint32_t>(lfCandidates.size());
            sample.brierLf = std::numeric_limits<double>::quiet_NaN();
            for (std::size_t h = 0; h < PredictionSample::HORIZONS; ++h) {
                sample.fdeLf_m[h] = sample.fdeLfMin_m[h] = std::numeric_limits<double>::quiet_NaN();
            }
            if (!lfCandidates.empty()) {
                (void)candidatesTaken(truth, lfCandidates, truth.size(), taken);
                sample.brierLf = brierScore(lfProbabilities, taken);
                std::vector<Point2> lfMean(truth.size());
                for (std::size_t c = 0; c < lfCandidates.size(); ++c) {
                    for (std::size_t k = 0; k < truth.size(); ++k) {
                        lfMean[k].x_m += lfProbabilities[c] * lfCandidates[c][k].x_m;
                        lfMean[k].y_m += lfProbabilities[c] * lfCandidates[c][k].y_m;
                    }
                }
                for (std::size_t h = 0; h < PredictionSample::HORIZONS; ++h) {
                    const auto hSteps = static_cast<std::size_t>(std::lround(REPORT_HORIZONS_S[h] / static_cast<double>(p.step_s)));
                    if (hSteps >= 1 && hSteps <= truth.size()) {
                        sample.fdeLf_m[h] = displacementErrors(truth, lfMean, hSteps).fde_m;
                        sample.fdeLfMin_m[h] = minOverCandidates(truth, lfCandidates, hSteps).minFde_m;
                    }
                }
            }
            if (const auto it = intentionsOfCycle.find(p.cycle); it != intentionsOfCycle.end()) {
                for (const IntentionEstimate& e : it->second->vehicles) {
                    if (e.trackId == v.trackId) {
                        sample.intentionCorridors = e.corridorCount;
                        sample.stopProbability = e.stopProbability;
                    }
                }
            }
            sample.trackSpeed_mps = std::numeric_limits<double>::quiet_NaN();
            if (const auto it = tracksOfCycle.find(p.cycle); it != tracksOfCycle.end()) {
                for (const Track& t : it->second->tracks) {
                    if (t.id == v.trackId) {
                        sample.trackSpeed_mps = std::hypot(t.vx_mps, t.vy_mps);
                    }
                }
            }

            if (hasGrid) {
                const std::size_t perFrame = steps / p.grid.frameCount;
                bool inGrid = false;
                for (std::size_t k = 0; k < truth.size(); ++k) {
                    const auto frame = static_cast<std::uint32_t>(k / perFrame);
                    const OccupancyOutcome outcome =
                        occupancyOutcome(*grid, frame, truth[k].x_m, truth[k].y_m, options.occupancyThreshold);
                    score.occupancy.add(outcome);
                    inGrid = inGrid || outcome != OccupancyOutcome::OutsideGrid;
                }
                vehiclesInGrid += inGrid ? 1 : 0;
            }
        }
        if (scoredVehicles == 0) {
            ++score.predictionsSkipped;
            continue;
        }
        ++score.predictionsScored;
        lastScored_ns = p.sourceStamp_ns;
        scoredAny = true;
        const double fromMiddle = std::fabs(t0_s - runMiddle_s);
        if (hasGrid && (vehiclesInGrid > best.vehiclesInGrid ||
                        (vehiclesInGrid == best.vehiclesInGrid && vehiclesInGrid > 0 && fromMiddle < best.distanceFromMiddle_s))) {
            best = {&p, vehiclesInGrid, fromMiddle};
        }
    }
    if (ours) {
        score.ours = ours->results();
        score.cv = cv->results();
        const bool withLf = options.laneFollowing != nullptr;
        if (withLf) {
            score.lf = lf->results();
        }
        for (std::size_t m = 0; m < COMPUTED_MODES; ++m) {
            if (samplesByMode[m] > 0) {
                score.byMode.push_back({static_cast<RuntimeMode>(m), oursByMode[m].results(), cvByMode[m].results(),
                                        withLf ? lfByMode[m].results() : std::vector<HorizonErrors>{}});
            }
        }
        for (std::size_t c = 0; c < MOTION_CLASS_COUNT; ++c) {
            if (samplesByClass[c] > 0) {
                score.byClass.push_back({static_cast<MotionClass>(c), oursByClass[c].results(), cvByClass[c].results(),
                                         withLf ? lfByClass[c].results() : std::vector<HorizonErrors>{}});
            }
        }
    }
    score.occupancyThreshold = options.occupancyThreshold;

    if (best.prediction == nullptr) {
        return;
    }
    // The snapshot: the last frame of the chosen prediction, with the paths of its scored vehicles.
    const RecordedPrediction& p = *best.prediction;
    BenchSnapshot snapshot;
    snapshot.grid = std::make_shared<OccupancyGrid>();
    restoreGrid(p.grid, *snapshot.grid);
    snapshot.frame = p.grid.frameCount - 1;
    snapshot.mode = p.mode;
    snapshot.t_s = scenarioTime_s(log, p.sourceStamp_ns);
    snapshot.horizon_s = static_cast<double>(p.grid.frameCount) * p.grid.frameInterval_s;
    std::size_t step0 = 0;
    (void)stepOfTime(log, snapshot.t_s, step0);
    if (const ObjectList* sent = listOfStep(log, step0)) {
        snapshot.paths.push_back({PathKind::Ego, log.egoId, 0, 1.0, {{sent->ego.x_m, sent->ego.y_m}}});
    }
    for (const VehiclePrediction& v : p.vehicles) {
        const std::uint32_t trueId =
            roadUserOfTrack(scenario, log, tracksOfCycle, p.cycle, v.trackId, step0, options.identityGate_m);
        if (trueId == 0 || trueId == log.egoId) {
            continue;
        }
        SnapshotPath truthPath{PathKind::Truth, trueId, 0, 1.0, {}};
        for (std::size_t k = 1; k <= p.horizonSteps; ++k) {
            Point2 point;
            if (!truthPositionAt(scenario, trueId, snapshot.t_s + static_cast<double>(k) * p.step_s, point)) {
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
        if (const PerceivedObject* m = perceivedOfRoadUser(emulator, log, step0, trueId, options.cvLookbackSteps, measuredStep)) {
            const double lag_s = snapshot.t_s - static_cast<double>(measuredStep) * log.step_s;
            const Point2 atT0{m->x_m + lag_s * m->speed_mps * std::cos(static_cast<double>(m->heading_rad)),
                              m->y_m + lag_s * m->speed_mps * std::sin(static_cast<double>(m->heading_rad))};
            SnapshotPath path{PathKind::ConstantVelocity, trueId, 0, 1.0, std::vector<Point2>(p.horizonSteps)};
            predictConstantVelocity(atT0, m->heading_rad, m->speed_mps, p.step_s, path.points);
            snapshot.paths.push_back(std::move(path));
            if (options.laneFollowing != nullptr) {
                std::vector<LaneFollowingMode> modes;
                options.laneFollowing->predict(atT0, m->heading_rad, m->speed_mps, p.step_s, p.horizonSteps, modes);
                for (std::size_t c = 0; c < modes.size(); ++c) {
                    snapshot.paths.push_back({PathKind::LaneFollowing, trueId, static_cast<std::uint32_t>(c),
                                              modes[c].probability, std::move(modes[c].points)});
                }
            }
        }
    }
    score.snapshot = std::move(snapshot);
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
