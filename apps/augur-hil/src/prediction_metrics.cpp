#include "augur/hil/prediction_metrics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

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
    }
    return out;
}

}  // namespace augur::hil
