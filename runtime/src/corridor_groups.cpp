#include "augur/runtime/corridor_groups.hpp"

#include <algorithm>
#include <array>
#include <cmath>

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

void spreadOverIndistinguishable(const FrameVehicle& vehicle, std::span<float> probability) noexcept {
    const std::uint32_t n = std::min<std::uint32_t>(vehicle.corridorCount, static_cast<std::uint32_t>(probability.size()));
    std::array<float, MAX_CORRIDORS_PER_VEHICLE> share{};
    groupPriorShares(vehicle, std::span<float>(share.data(), n));
    std::array<bool, MAX_CORRIDORS_PER_VEHICLE> done{};
    for (std::uint32_t k = 0; k < n; ++k) {
        if (done[k]) {
            continue;
        }
        float total = 0.0F;
        for (std::uint32_t j = k; j < n; ++j) {
            if (sameGroup(vehicle.corridors[k], vehicle.corridors[j])) {
                total += probability[j];
            }
        }
        for (std::uint32_t j = k; j < n; ++j) {
            if (!done[j] && sameGroup(vehicle.corridors[k], vehicle.corridors[j])) {
                probability[j] = total * share[j];
                done[j] = true;
            }
        }
    }
}

}  // namespace augur::runtime
