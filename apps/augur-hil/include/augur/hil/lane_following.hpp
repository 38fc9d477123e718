// The map-based lane-following baseline: the method of Autoware's `map_based_prediction`
// (autoware.universe, perception/autoware_map_based_prediction), without its lane-change detection.
//
// From one perceived state (position, heading, speed) at t0, with no history:
//   1. lanes: every lane the vehicle lies on (the runtime's LaneLocator: within half the lane width plus
//      `lateralMargin_m` of the centreline, heading within `maxHeading_rad` of the lane direction;
//      Autoware: dist_threshold_for_searching_lanelet, delta_yaw_threshold_for_searching_lanelet = 45°);
//   2. paths: every lane sequence reachable from those lanes by successors within the distance the
//      vehicle travels over the horizon (the runtime's corridor search, scene/corridors.hpp, with lane
//      changes off), one mode per sequence;
//   3. probabilities: each mode gets the local likelihood of its starting lane,
//        d = x^T P^-1 x, x = (lateral offset, heading error), P = diag(σ_d², σ_yaw²),
//        likelihood = 1 / max(d, 1e-6)                   (Autoware's calculateLocalLikelihood;
//      Houenou et al., IROS 2013, eq. 8), normalised over all modes: branches of one lane share its
//      likelihood equally;
//   4. motion: constant speed along the centreline, clamped at each point to `speedLimitFactor` times
//      the speed limit of the lane there; the lateral offset from the centreline decays to zero over
//      `lateralHorizon_s` on a quintic with zero lateral speed and acceleration at both ends (Werling et
//      al., ICRA 2010, the lateral part of Autoware's path generator);
//   5. fallback: a vehicle slower than `minSpeed_mps` (Autoware: min_velocity_for_map_based_prediction)
//      or on no lane gets one straight constant-velocity mode, as in Autoware.
// Offline code (the bench's scoring): predict() allocates its output.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "augur/hil/assignment.hpp"

namespace augur::runtime::scene {
class RoadMap;
class LaneLocator;
}  // namespace augur::runtime::scene

namespace augur::hil {

struct LaneFollowingParams {
    double sigmaLateral_m{0.5};        ///< Autoware sigma_lateral_offset
    double sigmaYaw_rad{0.0872665};    ///< Autoware sigma_yaw_angle_deg = 5°
    double minSpeed_mps{1.39};         ///< below: straight constant velocity (min_velocity_for_map_based_prediction)
    double lateralHorizon_s{5.0};      ///< lateral offset gone after this (lateral_control_time_horizon)
    double maxHeading_rad{0.785398};   ///< lane candidate gate, 45°
    double lateralMargin_m{1.0};       ///< lane candidate gate beyond half the lane width
    double speedLimitFactor{1.0};      ///< speed clamp: this times the lane's speed limit
    std::size_t maxModes{16};          ///< lane sequences kept (the search's capacity)
};

/// One predicted path: positions at t0 + k·step_s, k = 1..K (points[k − 1]).
struct LaneFollowingMode {
    std::vector<Point2> points;
    double probability{0.0};
    bool onMap{true};  ///< false for the constant-velocity fallback
};

class LaneFollowingPredictor {
public:
    /// Takes the map (the scenario's network, read with the runtime's map readers) and builds its
    /// lane index. Init: allocates.
    LaneFollowingPredictor(std::shared_ptr<const runtime::scene::RoadMap> map, LaneFollowingParams params = {});
    ~LaneFollowingPredictor();
    LaneFollowingPredictor(LaneFollowingPredictor&&) noexcept;
    LaneFollowingPredictor& operator=(LaneFollowingPredictor&&) noexcept;

    /// Writes the modes of a vehicle at `position` with `heading_rad` and `speed_mps` for `steps` steps
    /// of `step_s` into `out` (cleared first): at least one mode, probabilities summing to 1.
    void predict(Point2 position, double heading_rad, double speed_mps, double step_s, std::size_t steps,
                 std::vector<LaneFollowingMode>& out) const;

    [[nodiscard]] const LaneFollowingParams& params() const noexcept { return m_params; }

private:
    std::shared_ptr<const runtime::scene::RoadMap> m_map;
    std::unique_ptr<runtime::scene::LaneLocator> m_locator;
    LaneFollowingParams m_params;
};

/// The quintic lateral decay factor at t: 1 at t = 0, 0 from t = horizon_s on, with zero first and
/// second derivatives at both ends (1 − 10τ³ + 15τ⁴ − 6τ⁵, τ = t / horizon). noexcept.
double lateralDecay(double t_s, double horizon_s) noexcept;

}  // namespace augur::hil
