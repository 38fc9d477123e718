// Motion-prediction accuracy: ADE, FDE, minADE, minFDE and miss rate at fixed horizons.
//
// A prediction made at t0 is a trajectory of positions at t0 + k·step_s, k = 1..K (point k−1 of the
// span). At horizon H = h·step_s, against the true positions p_k (Alahi et al., "Social LSTM", CVPR
// 2016, for ADE/FDE; Chang et al., "Argoverse", CVPR 2019, for minADE/minFDE and miss rate):
//   ADE_H = (1/h) Σ_{k=1..h} ‖p̂_k − p_k‖,   FDE_H = ‖p̂_h − p_h‖,
//   minADE_H / minFDE_H = the smallest ADE_H / FDE_H over the candidate trajectories (each minimised
//   on its own), miss at H: minFDE_H > MISS_THRESHOLD_M.
// "ADE"/"FDE" score the most likely candidate. "weighted ADE/FDE" score the probability-weighted mean
// of the candidates, p̄_k = Σ_i w_i p̂_{i,k} / Σ_i w_i — the definition the seed paper uses (Hortelano et
// al., Electronics 12(18) 3751, 2023, Section 5.7: "the weighted average position of the predictions").
// With one candidate (the constant-velocity baseline) all three variants coincide. Offline code.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "augur/hil/assignment.hpp"

namespace augur::hil {

inline constexpr double MISS_THRESHOLD_M = 2.0;
/// The horizons the bench reports, seconds.
inline constexpr double REPORT_HORIZONS_S[] = {1.0, 2.0, 3.0, 4.0};

struct DisplacementErrors {
    double ade_m{0.0};
    double fde_m{0.0};
};

/// ADE and FDE over the first `steps` points. Preconditions: 1 <= steps <= both sizes.
DisplacementErrors displacementErrors(std::span<const Point2> truth, std::span<const Point2> predicted, std::size_t steps);

struct CandidateErrors {
    double minAde_m{0.0};
    double minFde_m{0.0};
};

/// minADE and minFDE over `candidates` (at least one, each with >= `steps` points).
CandidateErrors minOverCandidates(std::span<const Point2> truth, std::span<const std::span<const Point2>> candidates,
                                  std::size_t steps);

/// Means over all samples at one horizon.
struct HorizonErrors {
    double horizon_s{0.0};
    std::size_t samples{0};
    double ade_m{0.0};
    double fde_m{0.0};
    double minAde_m{0.0};
    double minFde_m{0.0};
    double weightedAde_m{0.0};
    double weightedFde_m{0.0};
    double missRate{0.0};  ///< fraction of samples with minFDE > MISS_THRESHOLD_M
};

class PredictionAccumulator {
public:
    /// `step_s` is the spacing of predicted and true points; each horizon is rounded to whole steps.
    /// Preconditions: step_s > 0, every horizon >= step_s.
    PredictionAccumulator(double step_s, std::span<const double> horizons_s);

    /// Adds one prediction sample. `truthFuture` holds the true positions at t0 + k·step_s for as many k
    /// as are known: a horizon longer than it (or than a candidate) is skipped for this sample.
    /// `probabilities` weighs `candidates` (same size, non-empty, each >= 0, sum > 0); the largest marks
    /// the most likely candidate (the first on ties).
    void add(std::span<const Point2> truthFuture, std::span<const std::span<const Point2>> candidates,
             std::span<const double> probabilities);

    [[nodiscard]] std::vector<HorizonErrors> results() const;

private:
    struct Sums {
        std::size_t steps{0};
        std::size_t samples{0};
        double ade{0.0};
        double fde{0.0};
        double minAde{0.0};
        double minFde{0.0};
        double weightedAde{0.0};
        double weightedFde{0.0};
        std::size_t misses{0};
    };
    double m_step_s;
    std::vector<double> m_horizons_s;
    std::vector<Sums> m_sums;
    std::vector<Point2> m_weightedMean;  // scratch
};

}  // namespace augur::hil
