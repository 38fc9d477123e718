// Corridor probabilities where the measurements cannot tell corridors apart.
//
// A vehicle's corridors that start on the same lane the same way (all without a lane change, or all
// with the same change) coincide from the vehicle's position up to their first fork: every measurement
// the filter weighs — position, heading, speed relative to the centreline — has the same likelihood
// under each of them. On that evidence their exact posterior split is their prior split, whatever the
// particle filter's samples say (a discrete particle variable without process noise collapses onto one
// of them under resampling: sample impoverishment, not evidence). The filter decides between such groups (lanes,
// lane changes); within a group the probability is shared by the route tree's prior: equal shares
// among the distinct next lanes at each fork, recursively (a corridor behind two successive two-way
// forks gets a quarter of its group). Once the vehicle is past a fork its corridors start on
// different lanes, fall into different groups, and the filter's measurements separate them.
//
// What does tell them apart before the fork is how the vehicle slows: a driver who will turn onto a
// slower lane (a junction's turn, a ramp) has to brake for it, one who goes straight on does not
// (slowingLikelihoods). Inside a group the split is the route tree's shares weighted by how well each
// corridor's braking explains the vehicle's tracked acceleration this cycle.
// Run-phase safe: noexcept, allocation-free, O(k² · FRAME_ROUTE_LANES) for k ≤ MAX_CORRIDORS_PER_VEHICLE.
#pragma once

#include <span>

#include "augur/runtime/scene_frame.hpp"

namespace augur::runtime {

/// The group of each of `vehicle`'s corridors: the index of its group's first corridor (`group` has
/// vehicle.corridorCount entries). Corridors of one group start on the same lane the same way.
void groupsOf(const FrameVehicle& vehicle, std::span<std::uint8_t> group) noexcept;

/// The route tree's prior share of each of `vehicle`'s corridors within its group (sums to 1 over
/// each group). `share` has vehicle.corridorCount entries.
void groupPriorShares(const FrameVehicle& vehicle, std::span<float> share) noexcept;

/// The prior probability of each of `vehicle`'s corridors (sums to 1; `prior` has vehicle.corridorCount
/// entries): the groups that keep a lane share 1 − laneChangePrior equally, the groups that start with a lane
/// change share laneChangePrior equally (either takes all where the other kind is missing), and inside a
/// group the route tree's shares (groupPriorShares). A uniform prior over corridors would make a lane
/// change with three branches ahead three times as likely as keeping a lane with one.
void corridorPriors(const FrameVehicle& vehicle, float laneChangePrior, std::span<float> prior) noexcept;

/// The vehicle's longitudinal state this cycle, as the tracker and the intention filter see it.
struct SlowingEvidence {
    float speed_mps{0.0F};
    float accel_mps2{0.0F};     ///< tracked rate of change of the speed
    float accelStd_mps2{1.0F};  ///< its standard deviation
    /// P(the vehicle stops at the stop point ahead), from the filter: a stop explains any braking before it.
    float stopProbability{0.0F};
};

/// How drivers slow for what lies ahead on their corridor. A driver holds their speed until the next
/// slower stretch (or the speed of the vehicle ahead) asks for a deceleration b₀, which varies between
/// drivers evenly from `gentlest_mps2` (early, gentle) to `hardest_mps2` (late, firm). From then on
/// they brake with at least the deceleration it asks for, and anywhere up to `maxDecel_mps2`: a driver
/// may slow below the limit (to yield inside the junction, or by habit). With probability
/// `unexplained` a driver brakes anyway (up to maxDecel_mps2) for something the map does not show. A
/// driver whose corridor yields at a conflict ahead by the map's right of way (FrameCorridor::yield_m)
/// cannot tell whether it will be clear until they see it: with probability `readyToYield` they slow as
/// for a stop there (minGap short of the conflict point), whoever is around.
struct SlowingModel {
    float gentlest_mps2{1.0F};
    float hardest_mps2{4.5F};
    float maxDecel_mps2{8.0F};
    float unexplained{0.1F};
    float readyToYield{0.5F};
    float noise_mps2{0.8F};  ///< spread of the tracked acceleration about the driver's (1σ, with the track's)
    float minGap_m{kernels::markov::PriorityRules{}.minGap_m};  ///< standstill distance kept to the vehicle ahead
};

/// The likelihood of the vehicle's tracked acceleration under each of its corridors (relative: the
/// most likely of each group is 1; `likelihood` has vehicle.corridorCount entries). Under corridor k
/// the driver needs the deceleration r_k = max((v² − L²) / (2 d)) over the slower limits L at
/// distances d ahead on k and the vehicle ahead (at its speed, minGap short of it). They are braking
/// with probability β_k = q + (1 − q)·clamp((r_k − gentlest) / (hardest − gentlest), 0, 1), q =
/// `unexplained`, with a deceleration uniform over [r_k, max(r_k, maxDecel)], else holding their
/// speed; the tracked acceleration scatters about that by √(σ_track² + noise²). Where k yields ahead by
/// the map, the density is a mixture: with probability readyToYield the same with r_k raised to what a
/// stop at the yield point asks for. A stop explains any
/// braking: P(stop) of every corridor's likelihood is 1. Evidence it cannot weigh (non-finite, or no
/// corridor giving it a density above 0) leaves every likelihood 1.
void slowingLikelihoods(const FrameVehicle& vehicle, const SlowingEvidence& evidence, const SlowingModel& model,
                        std::span<float> likelihood) noexcept;

/// Replaces the split inside each group of `probability` (one entry per corridor of `vehicle`) by the
/// group's prior shares weighted by `likelihood` (slowingLikelihoods; all equal: the prior shares),
/// keeping each group's total. Entries of corridors the filter did not model (probability 0) receive
/// their part of their group's total too.
void splitWithinGroups(const FrameVehicle& vehicle, std::span<const float> likelihood,
                       std::span<float> probability) noexcept;

/// True when route `now` (`nowLanes` map lanes) continues route `before` as the vehicle moves on: its
/// first lane is one of `before`'s and from there on the two agree as far as both are known. Two empty
/// routes continue each other. Counts of at most FRAME_ROUTE_LANES.
bool continuesRoute(const std::uint32_t* before, std::uint32_t beforeLanes, const std::uint32_t* now,
                    std::uint32_t nowLanes) noexcept;

/// A vehicle's corridors of the last cycle: their routes (FrameCorridor::route, routeLanes) and the
/// probabilities published for them.
struct PreviousCorridors {
    std::uint32_t count{0};
    const std::uint32_t (*routes)[FRAME_ROUTE_LANES]{nullptr};
    const std::uint32_t* routeLanes{nullptr};
    const float* published{nullptr};
};

/// The last cycle's published probabilities carried onto the vehicle's corridors, where its corridors
/// changed as it moved on (reordered, a branch dropped, a fork come into view or passed): each old
/// corridor's probability goes to the new corridors that continue its route (continuesRoute), shared
/// by their `prior` (corridorPriors: a fork now in view splits it as the route tree does); an old corridor
/// none continues drops out; new corridors that continue none take their prior's share of the whole.
/// `prior` and `carried` have one entry per new corridor (the first carried.size() of `vehicle`'s). All 0
/// when no new corridor continues an old one that had probability: nothing is known about them.
void carryOver(const PreviousCorridors& before, const FrameVehicle& vehicle, std::span<const float> prior,
               std::span<float> carried) noexcept;

}  // namespace augur::runtime
