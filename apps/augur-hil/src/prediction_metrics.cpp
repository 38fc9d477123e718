#include "augur/hil/prediction_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "augur/core/panic.hpp"

namespace augur::hil {

DisplacementErrors displacementErrors(std::span<const Point2> truth, std::span<const Point2> predicted, std::size_t steps) {
    AUGUR_ASSERT(steps >= 1 && steps <= truth.size() && steps <= predicted.size(), "displacementErrors: bad step count");
    double sum = 0.0;
    for (std::size_t k = 0; k < steps; ++k) {
        sum += distance(truth[k], predicted[k]);
    }
    return DisplacementErrors{sum / static_cast<double>(steps), distance(truth[steps - 1], predicted[steps - 1])};
}

CandidateErrors minOverCandidates(std::span<const Point2> truth, std::span<const std::span<const Point2>> candidates,
                                  std::size_t steps) {
    AUGUR_ASSERT(!candidates.empty(), "minOverCandidates: no candidate");
    CandidateErrors best{std::numeric_limits<double>::infinity(), std::numeric_limits<double>::infinity()};
    for (const auto& c : candidates) {
        const DisplacementErrors e = displacementErrors(truth, c, steps);
        best.minAde_m = std::min(best.minAde_m, e.ade_m);
        best.minFde_m = std::min(best.minFde_m, e.fde_m);
    }
    return best;
}

double distanceToExtendedPolyline(Point2 q, std::span<const Point2> points) noexcept {
    constexpr double DEGENERATE_M2 = 1e-12;
    const auto length2 = [&](std::size_t i) {
        const double dx = points[i + 1].x_m - points[i].x_m;
        const double dy = points[i + 1].y_m - points[i].y_m;
        return dx * dx + dy * dy;
    };
    std::size_t firstPiece = points.size();
    std::size_t lastPiece = 0;
    for (std::size_t i = 0; i + 1 < points.size(); ++i) {
        if (length2(i) >= DEGENERATE_M2) {
            firstPiece = std::min(firstPiece, i);
            lastPiece = i;
        }
    }
    if (firstPiece == points.size()) {
        return distance(q, points.front());  // one point, or all coincide
    }
    double best = std::numeric_limits<double>::infinity();
    for (std::size_t i = firstPiece; i <= lastPiece; ++i) {
        const double len2 = length2(i);
        if (len2 < DEGENERATE_M2) {
            continue;
        }
        const Point2 a = points[i];
        const double dx = points[i + 1].x_m - a.x_m;
        const double dy = points[i + 1].y_m - a.y_m;
        double t = ((q.x_m - a.x_m) * dx + (q.y_m - a.y_m) * dy) / len2;
        if (i != firstPiece) t = std::max(t, 0.0);  // the first piece extends backwards,
        if (i != lastPiece) t = std::min(t, 1.0);   // the last forwards, without bound
        best = std::min(best, distance(q, Point2{a.x_m + t * dx, a.y_m + t * dy}));
    }
    return best;
}

bool candidatesTaken(std::span<const Point2> truth, std::span<const std::span<const Point2>> candidates,
                     std::size_t steps, std::vector<bool>& taken) {
    AUGUR_ASSERT(!candidates.empty() && steps >= 1 && steps <= truth.size(), "candidatesTaken: bad input");
    taken.assign(candidates.size(), false);
    std::vector<double> far(candidates.size(), 0.0);
    double nearest = std::numeric_limits<double>::infinity();
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        AUGUR_ASSERT(candidates[c].size() >= steps, "candidatesTaken: candidate shorter than the horizon");
        const std::span<const Point2> points = candidates[c].first(steps);
        for (std::size_t k = 0; k < steps; ++k) {
            far[c] = std::max(far[c], distanceToExtendedPolyline(truth[k], points));
        }
        nearest = std::min(nearest, far[c]);
    }
    if (nearest > CORRIDOR_GATE_M) {
        return false;
    }
    for (std::size_t c = 0; c < candidates.size(); ++c) {
        taken[c] = far[c] <= nearest + TIE_M;
    }
    return true;
}

double brierScore(std::span<const double> probabilities, const std::vector<bool>& taken) {
    AUGUR_ASSERT(probabilities.size() == taken.size() && !probabilities.empty(), "brierScore: one flag per probability");
    double total = 0.0;
    for (double p : probabilities) {
        total += p;
    }
    AUGUR_ASSERT(total > 0.0, "brierScore: probabilities sum to zero");
    double takenMass = 0.0;
    double score = 0.0;
    bool anyTaken = false;
    for (std::size_t c = 0; c < probabilities.size(); ++c) {
        const double w = probabilities[c] / total;
        if (taken[c]) {
            takenMass += w;
            anyTaken = true;
        } else {
            score += w * w;
        }
    }
    return score + (anyTaken ? (takenMass - 1.0) * (takenMass - 1.0) : 1.0);
}

const char* toString(MotionClass motion) noexcept {
    switch (motion) {
        case MotionClass::Standing: return "standing";
        case MotionClass::Straight: return "straight";
        case MotionClass::Turning: return "turning";
        case MotionClass::LaneChange: return "lane_change";
    }
    return "unknown";
}

MotionClass classifyMotion(Point2 start, double heading0_rad, double speed0_mps, Point2 end, double heading1_rad) noexcept {
    if (speed0_mps < STANDING_SPEED_MPS) {
        return MotionClass::Standing;
    }
    const double turn = std::remainder(heading1_rad - heading0_rad, 2.0 * std::numbers::pi);
    if (std::fabs(turn) > TURNING_RAD) {
        return MotionClass::Turning;
    }
    const double cx = end.x_m - start.x_m;
    const double cy = end.y_m - start.y_m;
    const double sideways = std::cos(heading0_rad) * cy - std::sin(heading0_rad) * cx;
    const double arcSideways = std::hypot(cx, cy) * std::sin(0.5 * turn);
    return std::fabs(sideways - arcSideways) > LANE_CHANGE_M ? MotionClass::LaneChange : MotionClass::Straight;
}

PredictionAccumulator::PredictionAccumulator(double step_s, std::span<const double> horizons_s)
    : m_step_s(step_s), m_horizons_s(horizons_s.begin(), horizons_s.end()), m_sums(horizons_s.size()) {
    AUGUR_ASSERT(step_s > 0.0, "PredictionAccumulator: step_s must be positive");
    for (std::size_t h = 0; h < horizons_s.size(); ++h) {
        const double steps = std::round(horizons_s[h] / step_s);
        AUGUR_ASSERT(steps >= 1.0, "PredictionAccumulator: horizon shorter than one step");
        m_sums[h].steps = static_cast<std::size_t>(steps);
    }
}

void PredictionAccumulator::add(std::span<const Point2> truthFuture, std::span<const std::span<const Point2>> candidates,
                                std::span<const double> probabilities) {
    AUGUR_ASSERT(!candidates.empty() && probabilities.size() == candidates.size(),
                 "PredictionAccumulator::add: one probability per candidate, at least one candidate");
    std::size_t mostLikely = 0;
    double total = 0.0;
    std::size_t shortestCandidate = std::numeric_limits<std::size_t>::max();
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        AUGUR_ASSERT(probabilities[i] >= 0.0, "PredictionAccumulator::add: negative probability");
        total += probabilities[i];
        mostLikely = probabilities[i] > probabilities[mostLikely] ? i : mostLikely;
        shortestCandidate = std::min(shortestCandidate, candidates[i].size());
    }
    AUGUR_ASSERT(total > 0.0, "PredictionAccumulator::add: probabilities sum to zero");
    const std::size_t meanSteps = std::min(shortestCandidate, truthFuture.size());
    m_weightedMean.assign(meanSteps, Point2{});
    for (std::size_t i = 0; i < candidates.size(); ++i) {
        const double w = probabilities[i] / total;
        for (std::size_t k = 0; k < meanSteps; ++k) {
            m_weightedMean[k].x_m += w * candidates[i][k].x_m;
            m_weightedMean[k].y_m += w * candidates[i][k].y_m;
        }
    }
    for (Sums& s : m_sums) {
        if (s.steps > meanSteps) {
            continue;
        }
        const DisplacementErrors e = displacementErrors(truthFuture, candidates[mostLikely], s.steps);
        const CandidateErrors m = minOverCandidates(truthFuture, candidates, s.steps);
        const DisplacementErrors w = displacementErrors(truthFuture, m_weightedMean, s.steps);
        ++s.samples;
        s.ade += e.ade_m;
        s.fde += e.fde_m;
        s.minAde += m.minAde_m;
        s.minFde += m.minFde_m;
        s.weightedAde += w.ade_m;
        s.weightedFde += w.fde_m;
        s.misses += m.minFde_m > MISS_THRESHOLD_M ? 1U : 0U;
        (void)candidatesTaken(truthFuture, candidates, s.steps, m_taken);
        s.brier += brierScore(probabilities, m_taken);
    }
}

std::vector<HorizonErrors> PredictionAccumulator::results() const {
    std::vector<HorizonErrors> out(m_sums.size());
    for (std::size_t h = 0; h < m_sums.size(); ++h) {
        const Sums& s = m_sums[h];
        out[h].horizon_s = static_cast<double>(s.steps) * m_step_s;
        out[h].samples = s.samples;
        if (s.samples == 0) {
            continue;
        }
        const auto n = static_cast<double>(s.samples);
        out[h].ade_m = s.ade / n;
        out[h].fde_m = s.fde / n;
        out[h].minAde_m = s.minAde / n;
        out[h].minFde_m = s.minFde / n;
        out[h].weightedAde_m = s.weightedAde / n;
        out[h].weightedFde_m = s.weightedFde / n;
        out[h].missRate = static_cast<double>(s.misses) / n;
        out[h].brier = s.brier / n;
    }
    return out;
}

}  // namespace augur::hil
