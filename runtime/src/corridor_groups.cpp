#include "augur/runtime/corridor_groups.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>

namespace augur::runtime {
namespace {

constexpr std::uint32_t ROUTE_ENDED = 0xFFFF'FFFFU;  ///< branch key of a route with no lane at that depth

using Members = std::array<std::uint32_t, MAX_CORRIDORS_PER_VEHICLE>;

std::uint32_t laneAt(const FrameCorridor& c, std::size_t depth) noexcept {
    return depth < c.routeLanes ? c.route[depth] : ROUTE_ENDED;
}

/// Same group: both start on the same lane, both with or both without a lane change. A lane change's
/// route starts on the neighbour it changes to, so the first lane and the flag identify the manoeuvre.
bool sameGroup(const FrameCorridor& a, const FrameCorridor& b) noexcept {
    return a.laneChange == b.laneChange && laneAt(a, 0) == laneAt(b, 0);
}

/// Gives the `count` corridors `members` the share `weight` of their subtree at `depth`: equal parts
/// to each distinct lane at that depth, recursively. Corridors whose kept routes are identical split
/// equally.
void splitSubtree(const FrameVehicle& vehicle, const std::uint32_t* members, std::uint32_t count, std::size_t depth,
                  float weight, std::span<float> share) noexcept {
    if (count == 1 || depth >= FRAME_ROUTE_LANES) {
        for (std::uint32_t i = 0; i < count; ++i) {
            share[members[i]] = weight / static_cast<float>(count);
        }
        return;
    }
    // Order the members by their lane at `depth`, then walk the runs of equal lanes.
    // Insertion sort: at most MAX_CORRIDORS_PER_VEHICLE members.
    Members sorted{};
    for (std::uint32_t i = 0; i < count; ++i) {
        const std::uint32_t member = members[i];
        const std::uint32_t lane = laneAt(vehicle.corridors[member], depth);
        std::uint32_t at = i;
        for (; at > 0 && laneAt(vehicle.corridors[sorted[at - 1]], depth) > lane; --at) {
            sorted[at] = sorted[at - 1];
        }
        sorted[at] = member;
    }
    std::uint32_t branches = 0;
    for (std::uint32_t i = 0; i < count; ++i) {
        branches += i == 0 || laneAt(vehicle.corridors[sorted[i]], depth) != laneAt(vehicle.corridors[sorted[i - 1]], depth);
    }
    const float perBranch = weight / static_cast<float>(branches);
    for (std::uint32_t begin = 0; begin < count;) {
        const std::uint32_t lane = laneAt(vehicle.corridors[sorted[begin]], depth);
        std::uint32_t end = begin + 1;
        while (end < count && laneAt(vehicle.corridors[sorted[end]], depth) == lane) {
            ++end;
        }
        if (lane == ROUTE_ENDED) {
            // Routes that end here (no further lane kept) are indistinguishable: equal parts.
            for (std::uint32_t i = begin; i < end; ++i) {
                share[sorted[i]] = perBranch / static_cast<float>(end - begin);
            }
        } else {
            splitSubtree(vehicle, sorted.data() + begin, end - begin, depth + 1, perBranch, share);
        }
        begin = end;
    }
}

}  // namespace

void groupsOf(const FrameVehicle& vehicle, std::span<std::uint8_t> group) noexcept {
    const std::uint32_t n = std::min<std::uint32_t>(vehicle.corridorCount, static_cast<std::uint32_t>(group.size()));
    for (std::uint32_t k = 0; k < n; ++k) {
        std::uint32_t first = 0;
        while (!sameGroup(vehicle.corridors[first], vehicle.corridors[k])) {
            ++first;  // stops at k at the latest
        }
        group[k] = static_cast<std::uint8_t>(first);
    }
}

void groupPriorShares(const FrameVehicle& vehicle, std::span<float> share) noexcept {
    const std::uint32_t n = std::min<std::uint32_t>(vehicle.corridorCount, static_cast<std::uint32_t>(share.size()));
    std::array<bool, MAX_CORRIDORS_PER_VEHICLE> done{};
    for (std::uint32_t k = 0; k < n; ++k) {
        if (done[k]) {
            continue;
        }
        Members members{};
        std::uint32_t count = 0;
        for (std::uint32_t j = k; j < n; ++j) {
            if (!done[j] && sameGroup(vehicle.corridors[k], vehicle.corridors[j])) {
                members[count++] = j;
                done[j] = true;
            }
        }
        splitSubtree(vehicle, members.data(), count, 1, 1.0F, share);
    }
}

void corridorPriors(const FrameVehicle& vehicle, float laneChangePrior, std::span<float> prior) noexcept {
    const std::uint32_t n = std::min<std::uint32_t>(vehicle.corridorCount, static_cast<std::uint32_t>(prior.size()));
    groupPriorShares(vehicle, prior.first(n));
    // Each group's shares sum to 1, so the shares of a kind add up to its number of groups.
    float groups[2] = {0.0F, 0.0F};  // [keeps the lane, changes lane]
    for (std::uint32_t k = 0; k < n; ++k) {
        groups[vehicle.corridors[k].laneChange ? 1 : 0] += prior[k];
    }
    const float change = groups[0] < 0.5F ? 1.0F : (groups[1] < 0.5F ? 0.0F : laneChangePrior);
    const float kind[2] = {groups[0] < 0.5F ? 0.0F : (1.0F - change) / std::round(groups[0]),
                           groups[1] < 0.5F ? 0.0F : change / std::round(groups[1])};
    for (std::uint32_t k = 0; k < n; ++k) {
        prior[k] *= kind[vehicle.corridors[k].laneChange ? 1 : 0];
    }
}

void slowingLikelihoods(const FrameVehicle& vehicle, const SlowingEvidence& evidence, const SlowingModel& model,
                        std::span<float> likelihood) noexcept {
    const std::uint32_t n = std::min<std::uint32_t>(vehicle.corridorCount, static_cast<std::uint32_t>(likelihood.size()));
    std::fill(likelihood.begin(), likelihood.begin() + n, 1.0F);
    const double v = std::max(static_cast<double>(evidence.speed_mps), 0.0);
    const double a = evidence.accel_mps2;
    const double sigma = std::hypot(static_cast<double>(evidence.accelStd_mps2), static_cast<double>(model.noise_mps2));
    const double onsetRange = static_cast<double>(model.hardest_mps2) - model.gentlest_mps2;
    if (!(sigma > 0.0) || !std::isfinite(sigma) || !std::isfinite(a) || !std::isfinite(v) || !(onsetRange > 0.0)) {
        return;
    }
    constexpr double INV_SQRT_2PI = 0.3989422804014327;
    const auto normal = [sigma](double x) { return INV_SQRT_2PI / sigma * std::exp(-0.5 * (x / sigma) * (x / sigma)); };
    const auto below = [sigma](double x) { return 0.5 * std::erfc(-x / (sigma * std::numbers::sqrt2)); };  // Φ(x/σ)
    // The deceleration that slowing from v to `slower` over `distance` asks for (0 when not slower).
    const auto needed = [v](double slower, double distance) {
        return slower < v ? (v * v - slower * slower) / (2.0 * std::max(distance, 0.5)) : 0.0;
    };
    const double holding = normal(a);
    // The density of the tracked acceleration when the corridor asks for a deceleration of `required`.
    const auto slowingFor = [&](double required) {
        const double firmest = std::max(required, static_cast<double>(model.maxDecel_mps2));
        // a = −b + noise, b uniform over [required, firmest].
        const double braking = firmest - required < 1e-3 ? normal(a + required)
                                                         : (below(a + firmest) - below(a + required)) / (firmest - required);
        const double onset = std::clamp((required - model.gentlest_mps2) / onsetRange, 0.0, 1.0);
        const double brakes = model.unexplained + (1.0 - model.unexplained) * onset;
        return (1.0 - brakes) * holding + brakes * braking;
    };
    const double ready = std::clamp(static_cast<double>(model.readyToYield), 0.0, 1.0);
    std::array<double, MAX_CORRIDORS_PER_VEHICLE> density{};
    for (std::uint32_t k = 0; k < n; ++k) {
        const FrameCorridor& corridor = vehicle.corridors[k];
        const kernels::markov::CorridorConstraints& limits = corridor.limits;
        double required = 0.0;
        for (int i = 0; i < kernels::markov::MAX_SPEED_LIMIT_CHANGES; ++i) {
            if (limits.limitFrom_m[i] < kernels::markov::NO_LIMIT) {
                required = std::max(required, needed(limits.limitAfter_mps[i], limits.limitFrom_m[i]));
            }
        }
        if (limits.leadGap_m < kernels::markov::NO_LIMIT) {
            required = std::max(required, needed(std::max(limits.leadSpeed_mps, 0.0F),
                                                 static_cast<double>(limits.leadGap_m) - model.minGap_m));
        }
        density[k] = slowingFor(required);
        if (corridor.yield_m < kernels::markov::NO_LIMIT && ready > 0.0) {
            const double yielding = std::max(required, needed(0.0, static_cast<double>(corridor.yield_m) - model.minGap_m));
            density[k] = (1.0 - ready) * density[k] + ready * slowingFor(yielding);
        }
    }
    // Relative to the most likely corridor of each group.
    std::array<std::uint8_t, MAX_CORRIDORS_PER_VEHICLE> group{};
    groupsOf(vehicle, std::span<std::uint8_t>(group.data(), n));
    std::array<double, MAX_CORRIDORS_PER_VEHICLE> best{};
    for (std::uint32_t k = 0; k < n; ++k) {
        best[group[k]] = std::max(best[group[k]], density[k]);
    }
    const double stop = std::clamp(static_cast<double>(evidence.stopProbability), 0.0, 1.0);
    for (std::uint32_t k = 0; k < n; ++k) {
        const double top = best[group[k]];
        if (top > 0.0 && std::isfinite(top)) {
            likelihood[k] = static_cast<float>(stop + (1.0 - stop) * density[k] / top);
        }
    }
}

void splitWithinGroups(const FrameVehicle& vehicle, std::span<const float> likelihood,
                       std::span<float> probability) noexcept {
    const std::uint32_t n = std::min<std::uint32_t>(
        vehicle.corridorCount, static_cast<std::uint32_t>(std::min(probability.size(), likelihood.size())));
    std::array<float, MAX_CORRIDORS_PER_VEHICLE> share{};
    groupPriorShares(vehicle, std::span<float>(share.data(), n));
    std::array<bool, MAX_CORRIDORS_PER_VEHICLE> done{};
    for (std::uint32_t k = 0; k < n; ++k) {
        if (done[k]) {
            continue;
        }
        float total = 0.0F;
        float weighted = 0.0F;
        for (std::uint32_t j = k; j < n; ++j) {
            if (sameGroup(vehicle.corridors[k], vehicle.corridors[j])) {
                total += probability[j];
                weighted += share[j] * likelihood[j];
            }
        }
        for (std::uint32_t j = k; j < n; ++j) {
            if (!done[j] && sameGroup(vehicle.corridors[k], vehicle.corridors[j])) {
                // The group's most likely member has likelihood 1 (slowingLikelihoods), so weighted > 0
                // unless the caller's likelihoods are all 0: then the prior shares.
                probability[j] = total * (weighted > 0.0F ? share[j] * likelihood[j] / weighted : share[j]);
                done[j] = true;
            }
        }
    }
}

bool continuesRoute(const std::uint32_t* before, std::uint32_t beforeLanes, const std::uint32_t* now,
                    std::uint32_t nowLanes) noexcept {
    if (nowLanes == 0 || beforeLanes == 0) {
        return nowLanes == beforeLanes;
    }
    for (std::uint32_t i = 0; i < beforeLanes; ++i) {
        if (before[i] != now[0]) {
            continue;
        }
        for (std::uint32_t m = 1; i + m < beforeLanes && m < nowLanes; ++m) {
            if (before[i + m] != now[m]) {
                return false;
            }
        }
        return true;
    }
    return false;
}

void carryOver(const PreviousCorridors& before, const FrameVehicle& vehicle, std::span<const float> prior,
               std::span<float> carried) noexcept {
    std::fill(carried.begin(), carried.end(), 0.0F);
    const std::size_t count = std::min({carried.size(), prior.size(), static_cast<std::size_t>(vehicle.corridorCount)});
    const std::uint32_t old = std::min<std::uint32_t>(before.count, MAX_CORRIDORS_PER_VEHICLE);
    // continued[j]: bit k set when new corridor j continues old corridor k.
    std::array<std::uint32_t, MAX_CORRIDORS_PER_VEHICLE> continued{};
    std::array<float, MAX_CORRIDORS_PER_VEHICLE> continuingPrior{};  // per old corridor: its continuations' priors
    for (std::size_t j = 0; j < count; ++j) {
        const FrameCorridor& now = vehicle.corridors[j];
        for (std::uint32_t k = 0; k < old; ++k) {
            if (continuesRoute(before.routes[k], before.routeLanes[k], now.route, now.routeLanes)) {
                continued[j] |= 1U << k;
                continuingPrior[k] += prior[j];
            }
        }
    }
    float mass = 0.0F;
    float orphanPrior = 0.0F;
    float priorTotal = 0.0F;
    for (std::size_t j = 0; j < count; ++j) {
        for (std::uint32_t k = 0; k < old; ++k) {
            if ((continued[j] >> k & 1U) != 0 && continuingPrior[k] > 0.0F && before.published[k] > 0.0F) {
                carried[j] += before.published[k] * prior[j] / continuingPrior[k];
            }
        }
        mass += carried[j];
        orphanPrior += continued[j] == 0 ? prior[j] : 0.0F;
        priorTotal += prior[j];
    }
    if (!(mass > 0.0F) || !(priorTotal > 0.0F) || !std::isfinite(mass)) {
        std::fill(carried.begin(), carried.end(), 0.0F);
        return;
    }
    const float orphanShare = orphanPrior / priorTotal;
    for (std::size_t j = 0; j < count; ++j) {
        carried[j] = continued[j] != 0 ? (1.0F - orphanShare) * carried[j] / mass : prior[j] / priorTotal;
    }
}

}  // namespace augur::runtime
