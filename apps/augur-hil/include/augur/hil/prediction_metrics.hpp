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
// With one candidate (the constant-velocity baseline) all three variants coincide.
//
// Brier score of the corridor taken (Brier, Monthly Weather Review 78(1), 1950): which candidates the
// vehicle followed is decided from its true positions p_1..p_h against each candidate's points taken as a
// polyline whose first and last pieces extend on as rays (so a prediction that lags or leads along its
// path still covers the truth): a candidate's distance is the largest distance of a true position from
// it; the candidates within TIE_M of the smallest distance are the set T taken, when that smallest
// distance is at most CORRIDOR_GATE_M (half a 3.5 m lane), else no candidate was taken. Candidates that
// share their geometry up to the horizon (branches of a fork not reached yet) are thus taken together.
// With probabilities w_i normalised to sum 1, over the outcomes {T, each other candidate, none}:
//   BS = (Σ_{i∈T} w_i − 1)² + Σ_{i∉T} w_i²            (T non-empty)
//   BS = Σ_i w_i² + 1                                  (none taken: the outcome "none" had probability 0)
// 0 is a certain, right forecast; 2 the worst. Offline code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "augur/hil/assignment.hpp"

namespace augur::hil {

inline constexpr double MISS_THRESHOLD_M = 2.0;
/// A candidate farther than this from the truth (largest distance over the horizon) was not taken.
inline constexpr double CORRIDOR_GATE_M = 1.75;
/// Candidates within this of the nearest one are taken together with it.
inline constexpr double TIE_M = 0.5;
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

/// Distance of `q` from the polyline through `points` with both end pieces extended as rays (a single
/// point, or coincident points: the distance to it). Precondition: points non-empty.
double distanceToExtendedPolyline(Point2 q, std::span<const Point2> points) noexcept;

/// Marks in `taken` (resized to candidates.size()) the candidates the truth followed over the first
/// `steps` points (rule above); returns false when none was. Preconditions as minOverCandidates.
bool candidatesTaken(std::span<const Point2> truth, std::span<const std::span<const Point2>> candidates,
                     std::size_t steps, std::vector<bool>& taken);

/// The Brier score of `probabilities` (normalised here) against `taken` (rule above).
double brierScore(std::span<const double> probabilities, const std::vector<bool>& taken);

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
    double brier{0.0};     ///< mean Brier score of the candidate taken
};

/// What a road user did over the scored horizon, from its ground truth (the bench's breakdown):
///   Standing    true speed at t0 below STANDING_SPEED_MPS;
///   Turning     |heading change over the horizon| above TURNING_RAD;
///   LaneChange  otherwise, when its end point lies more than LANE_CHANGE_M to the side of where a
///               constant-curvature arc with the same heading change would end: the chord of such an arc
///               leaves the start heading at half the heading change, so the sideways residual is
///               cross(start heading, chord) − |chord|·sin(Δθ/2), which a bend leaves near zero and a
///               lane change (a lateral shift with the heading restored) does not;
///   Straight    the rest.
enum class MotionClass : std::uint8_t { Standing = 0, Straight, Turning, LaneChange };
inline constexpr std::size_t MOTION_CLASS_COUNT = 4;
inline constexpr double STANDING_SPEED_MPS = 0.5;
inline constexpr double TURNING_RAD = 0.3;
inline constexpr double LANE_CHANGE_M = 1.5;

[[nodiscard]] const char* toString(MotionClass motion) noexcept;

/// Classifies a road user at `start` with `heading0_rad` and `speed0_mps` at t0 that ends at `end`
/// with heading `heading1_rad` (rule above). noexcept.
MotionClass classifyMotion(Point2 start, double heading0_rad, double speed0_mps, Point2 end, double heading1_rad) noexcept;

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
        double brier{0.0};
    };
    double m_step_s;
    std::vector<double> m_horizons_s;
    std::vector<Sums> m_sums;
    std::vector<Point2> m_weightedMean;  // scratch
    std::vector<bool> m_taken;           // scratch
};

}  // namespace augur::hil
