// The constant-velocity baseline every prediction is compared with.
//
// From a state (position, heading, speed) at t0 the baseline predicts straight-line motion at constant
// speed: p̂_k = p_0 + k·step_s·v·(cos θ, sin θ), k = 1..K (Schöller et al., "What the constant velocity
// model can teach us about pedestrian motion prediction", RA-L 2020, use the same model as a baseline).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "augur/hil/assignment.hpp"
#include "augur/hil/prediction_metrics.hpp"
#include "augur/hil/scenario.hpp"

namespace augur::hil {

/// Writes out.size() constant-velocity positions at step_s spacing. noexcept, allocation-free, O(K).
void predictConstantVelocity(Point2 start, double heading_rad, double speed_mps, double step_s,
                             std::span<Point2> out) noexcept;

/// Scores the baseline on a scenario's ground truth: every `sampleEverySteps`-th step, every road user
/// whose future is known over a horizon is predicted from its true state and scored (ADE/FDE/miss) per
/// horizon. A road user that leaves the scenario before a horizon is not scored at that horizon; one
/// slower than `minSpeed_mps` at t0 is not scored at all (0 scores everyone, queues included).
/// Preconditions: sampleEverySteps >= 1, each horizon >= the scenario's step.
std::vector<HorizonErrors> evaluateConstantVelocityBaseline(const Scenario& scenario, std::span<const double> horizons_s,
                                                            std::size_t sampleEverySteps, double minSpeed_mps = 0.0);

}  // namespace augur::hil
