// Corridor probabilities where the measurements cannot tell corridors apart.
//
// A vehicle's corridors that start on the same lane the same way (all without a lane change, or all
// with the same change) coincide from the vehicle's position up to their first fork: every measurement
// so far — position, heading, speed relative to the centreline — has the same likelihood under each
// of them. Their exact posterior split is therefore their prior split, whatever the particle filter's
// samples say (a discrete particle variable without process noise collapses onto one of them under
// resampling: sample impoverishment, not evidence). The filter decides between such groups (lanes,
// lane changes); within a group the probability is shared by the route tree's prior: equal shares
// among the distinct next lanes at each fork, recursively (a corridor behind two successive two-way
// forks gets a quarter of its group). Once the vehicle is past a fork its corridors start on
// different lanes, fall into different groups, and the filter's measurements separate them.
//
// Known limit: a vehicle slowing before a turn is evidence for the turn that this split does not use.
// Run-phase safe: noexcept, allocation-free, O(k² · FRAME_ROUTE_LANES) for k ≤ MAX_CORRIDORS_PER_VEHICLE.
#pragma once

#include <span>

#include "augur/runtime/scene_frame.hpp"

namespace augur::runtime {

/// The route tree's prior share of each of `vehicle`'s corridors within its group (sums to 1 over
/// each group). `share` has vehicle.corridorCount entries.
void groupPriorShares(const FrameVehicle& vehicle, std::span<float> share) noexcept;

/// The prior probability of each of `vehicle`'s corridors (sums to 1; `prior` has vehicle.corridorCount
/// entries): the groups that keep a lane share 1 − laneChangePrior equally, the groups that start with a lane
/// change share laneChangePrior equally (either takes all where the other kind is missing), and inside a
/// group the route tree's shares (groupPriorShares). A uniform prior over corridors would make a lane
/// change with three branches ahead three times as likely as keeping a lane with one.
void corridorPriors(const FrameVehicle& vehicle, float laneChangePrior, std::span<float> prior) noexcept;

/// Replaces the split inside each group of `probability` (one entry per corridor of `vehicle`) by the
/// group's prior shares, keeping each group's total. Entries of corridors the filter did not model
/// (probability 0) receive their share of their group's total too.
void spreadOverIndistinguishable(const FrameVehicle& vehicle, std::span<float> probability) noexcept;

}  // namespace augur::runtime
