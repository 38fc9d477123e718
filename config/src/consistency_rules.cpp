// Rules between keys: values that are each in range but contradict each other or a compiled limit.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "augur/config/schema.hpp"
#include "augur/core/messages.hpp"
#include "augur/core/transport_name.hpp"
#include "text.hpp"

namespace augur::config {
namespace {

using detail::formatNumber;
using Check = std::optional<RuleViolation>;

/// Relative tolerance when deciding whether a ratio of two decimal values is a whole number.
constexpr double WHOLE_RATIO_TOLERANCE = 1e-6;

/// True when `ratio` is within tolerance of a whole number ≥ 1.
bool isWholeRatio(double ratio) {
    const double nearest = std::round(ratio);
    return nearest >= 1.0 && std::fabs(ratio - nearest) <= WHOLE_RATIO_TOLERANCE * nearest;
}

/// The first of `candidates` the file set explicitly (the place a reader will look), else the first.
std::string reportAt(const ExplicitKeys& explicitKeys, std::initializer_list<std::string_view> candidates) {
    for (const std::string_view candidate : candidates) {
        if (explicitKeys.contains(candidate)) {
            return std::string(candidate);
        }
    }
    return std::string(*candidates.begin());
}

Check deadlineWithinPeriod(const Deployment& d, const ExplicitKeys& keys) {
    if (d.runtime.deadline_ms <= d.runtime.cyclePeriod_ms) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"runtime.deadline_ms", "runtime.cycle_period_ms"}),
                         "runtime.deadline_ms = " + std::to_string(d.runtime.deadline_ms) +
                             " ms is over runtime.cycle_period_ms = " + std::to_string(d.runtime.cyclePeriod_ms) +
                             " ms; a cycle must finish before the next one starts"};
}

Check budgetsWithinDeadline(const Deployment& d, const ExplicitKeys& /*keys*/) {
    const double sum_ms = stageBudgetSum_ms(d.runtime);
    if (sum_ms <= static_cast<double>(d.runtime.deadline_ms)) {
        return std::nullopt;
    }
    return RuleViolation{"runtime.stage_budgets_ms", "the stage budgets sum to " + formatNumber(sum_ms) +
                                                         " ms, over runtime.deadline_ms = " +
                                                         std::to_string(d.runtime.deadline_ms) + " ms"};
}

Check affinityWithoutDuplicates(const Deployment& d, const ExplicitKeys& /*keys*/) {
    std::vector<std::int32_t> cores = d.runtime.cpuAffinity;
    std::sort(cores.begin(), cores.end());
    const auto duplicate = std::adjacent_find(cores.begin(), cores.end());
    if (duplicate == cores.end()) {
        return std::nullopt;
    }
    return RuleViolation{"runtime.cpu_affinity", "core " + std::to_string(*duplicate) + " is listed twice"};
}

Check predictedWithinTracks(const Deployment& d, const ExplicitKeys& keys) {
    if (d.capacities.maxPredictedVehicles <= d.capacities.maxTracks) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"capacities.max_predicted_vehicles", "capacities.max_tracks"}),
                         "capacities.max_predicted_vehicles = " + std::to_string(d.capacities.maxPredictedVehicles) +
                             " is over capacities.max_tracks = " + std::to_string(d.capacities.maxTracks) +
                             "; only tracked vehicles can be predicted"};
}

Check inputLossStepsDown(const Deployment& d, const ExplicitKeys& keys) {
    const std::uint32_t holdLast = d.input.lossHoldLastCycles;
    const std::uint32_t none = d.input.lossNoPredictionCycles;
    if (holdLast == 0 || none == 0 || none >= holdLast) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"input.loss.no_prediction_after_cycles", "input.loss.hold_last_after_cycles"}),
                         "input.loss.no_prediction_after_cycles = " + std::to_string(none) +
                             " is below input.loss.hold_last_after_cycles = " + std::to_string(holdLast) +
                             "; input loss steps down to hold_last first"};
}

Check reducedParticlesWithinNominal(const Deployment& d, const ExplicitKeys& keys) {
    if (d.intention.particlesReduced <= d.capacities.particles) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"intention.particles_reduced", "capacities.particles"}),
                         "intention.particles_reduced = " + std::to_string(d.intention.particlesReduced) +
                             " is over capacities.particles = " + std::to_string(d.capacities.particles) +
                             "; the degraded mode must use fewer particles, not more"};
}

Check horizonWholeSteps(const Deployment& d, const ExplicitKeys& keys) {
    if (isWholeRatio(d.motion.horizon_s / d.motion.step_s)) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"motion.horizon_s", "motion.step_s"}),
                         "motion.horizon_s = " + formatNumber(d.motion.horizon_s) +
                             " s is not a whole multiple of motion.step_s = " + formatNumber(d.motion.step_s) + " s"};
}

Check horizonWithinCompiledSteps(const Deployment& d, const ExplicitKeys& keys) {
    const double steps = std::round(d.motion.horizon_s / d.motion.step_s);
    if (steps <= static_cast<double>(MAX_HORIZON_STEPS)) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"motion.horizon_s", "motion.step_s"}),
                         "motion.horizon_s / motion.step_s = " + formatNumber(steps) +
                             " steps is over the compiled limit MAX_HORIZON_STEPS = " +
                             std::to_string(MAX_HORIZON_STEPS)};
}

Check positionRangeCoversHorizon(const Deployment& d, const ExplicitKeys& keys) {
    const double reach_m = d.motion.maxSpeed_mps * d.motion.horizon_s;
    if (reach_m <= d.motion.positionRange_m) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"motion.position_range_m", "motion.max_speed_mps", "motion.horizon_s"}),
                         "motion.position_range_m = " + formatNumber(d.motion.positionRange_m) +
                             " m is shorter than motion.max_speed_mps · motion.horizon_s = " + formatNumber(reach_m) +
                             " m; a fast vehicle would leave the chain before the horizon ends"};
}

Check brakingOnsetOrdered(const Deployment& d, const ExplicitKeys& keys) {
    if (d.intention.braking.gentlest_mps2 < d.intention.braking.hardest_mps2) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"intention.braking.gentlest_mps2", "intention.braking.hardest_mps2"}),
                         "intention.braking.gentlest_mps2 = " + formatNumber(d.intention.braking.gentlest_mps2) +
                             " m/s² is not below intention.braking.hardest_mps2 = " +
                             formatNumber(d.intention.braking.hardest_mps2) + " m/s²"};
}

Check gridFramesOnSteps(const Deployment& d, const ExplicitKeys& keys) {
    if (!d.grid.enabled) {
        return std::nullopt;
    }
    const bool onSteps = isWholeRatio(d.grid.frameInterval_s / d.motion.step_s);
    const bool dividesHorizon = isWholeRatio(d.motion.horizon_s / d.grid.frameInterval_s);
    if (onSteps && dividesHorizon) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"grid.frame_interval_s", "motion.step_s", "motion.horizon_s"}),
                         "grid.frame_interval_s = " + formatNumber(d.grid.frameInterval_s) +
                             " s must be a whole multiple of motion.step_s = " + formatNumber(d.motion.step_s) +
                             " s and divide motion.horizon_s = " + formatNumber(d.motion.horizon_s) + " s"};
}

Check gridFramesWithinCompiled(const Deployment& d, const ExplicitKeys& keys) {
    if (!d.grid.enabled) {
        return std::nullopt;
    }
    const double frames = std::round(d.motion.horizon_s / d.grid.frameInterval_s);
    if (frames <= static_cast<double>(MAX_GRID_FRAMES)) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"grid.frame_interval_s", "motion.horizon_s"}),
                         "motion.horizon_s / grid.frame_interval_s = " + formatNumber(frames) +
                             " frames is over the compiled limit MAX_GRID_FRAMES = " + std::to_string(MAX_GRID_FRAMES)};
}

Check flockWindowWithinHistory(const Deployment& d, const ExplicitKeys& keys) {
    if (!d.flocks.enabled || d.flocks.windowCycles <= d.capacities.trackHistoryCycles) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"flocks.window_cycles", "capacities.track_history_cycles"}),
                         "flocks.window_cycles = " + std::to_string(d.flocks.windowCycles) +
                             " is over capacities.track_history_cycles = " +
                             std::to_string(d.capacities.trackHistoryCycles) + "; the window needs that much history"};
}

Check flockMembersWithinTracks(const Deployment& d, const ExplicitKeys& keys) {
    if (!d.flocks.enabled || d.flocks.minMembers <= d.capacities.maxTracks) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"flocks.min_members", "capacities.max_tracks"}),
                         "flocks.min_members = " + std::to_string(d.flocks.minMembers) +
                             " is over capacities.max_tracks = " + std::to_string(d.capacities.maxTracks)};
}

Check confirmationWithinWindow(const Deployment& d, const ExplicitKeys& keys) {
    const TrackingConfig& t = d.tracking;
    if (t.confirmWindow == 0 || t.confirmAfterHits <= t.confirmWindow) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"tracking.confirm_after_hits", "tracking.confirm_window"}),
                         "tracking.confirm_after_hits = " + std::to_string(t.confirmAfterHits) +
                             " is over tracking.confirm_window = " + std::to_string(t.confirmWindow) +
                             "; no track could ever be confirmed"};
}

Check idBonusWithinGate(const Deployment& d, const ExplicitKeys& keys) {
    const TrackingGates& g = d.tracking.gates;
    if (g.idBonus < g.mahalanobisSq) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"tracking.gates.id_bonus", "tracking.gates.mahalanobis_sq"}),
                         "tracking.gates.id_bonus = " + formatNumber(g.idBonus) +
                             " is not below tracking.gates.mahalanobis_sq = " + formatNumber(g.mahalanobisSq) +
                             "; the id would outweigh the gate"};
}

Check lanelet2Origin(const Deployment& d, const ExplicitKeys& keys) {
    if (d.map.format != MapFormat::Lanelet2) {
        return std::nullopt;
    }
    for (const std::string_view key : {"map.origin_lat_deg", "map.origin_lon_deg"}) {
        if (!keys.contains(key)) {
            return RuleViolation{std::string(key), "required when map.format is lanelet2: expected a number in "
                                                   "degrees (the projection origin of the map)"};
        }
    }
    return std::nullopt;
}

/// True when iceoryx would see the two channels as one topic: it copies each name as a C string into a
/// field of 100 characters, so the names are compared as far as that copy reaches.
bool sameTopic(const Channel& a, const Channel& b) noexcept {
    return transportVisibleName(a.service) == transportVisibleName(b.service) &&
           transportVisibleName(a.instance) == transportVisibleName(b.instance) &&
           transportVisibleName(a.event) == transportVisibleName(b.event);
}

Check distinctChannels(const Deployment& d, const ExplicitKeys& /*keys*/) {
    const std::array<std::pair<std::string_view, const Channel*>, 8> channels{{
        {"transport.objects", &d.transport.objects},
        {"transport.tracks", &d.transport.tracks},
        {"transport.intentions", &d.transport.intentions},
        {"transport.prediction", &d.transport.prediction},
        {"transport.health", &d.transport.health},
        {"transport.platoons", &d.transport.platoons},
        {"transport.monitor_alarm", &d.transport.monitorAlarm},
        {"transport.link_status", &d.transport.linkStatus},
    }};
    for (std::size_t i = 0; i < channels.size(); ++i) {
        for (std::size_t j = i + 1; j < channels.size(); ++j) {
            if (sameTopic(*channels[i].second, *channels[j].second)) {
                return RuleViolation{std::string(channels[j].first),
                                     "same service / instance / event as " + std::string(channels[i].first) +
                                         "; every channel needs its own"};
            }
        }
    }
    return std::nullopt;
}

Check livelinessWithinDeadline(const Deployment& d, const ExplicitKeys& keys) {
    if (d.bridge.deadline_ms == 0 || d.bridge.livelinessLease_ms < d.bridge.deadline_ms) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"bridge.liveliness_lease_ms", "bridge.deadline_ms"}),
                         "bridge.liveliness_lease_ms = " + std::to_string(d.bridge.livelinessLease_ms) +
                             " ms is not below bridge.deadline_ms = " + std::to_string(d.bridge.deadline_ms) +
                             " ms; a lost peer would not be reported within one deadline"};
}

Check bridgeDeadlineAbovePeriod(const Deployment& d, const ExplicitKeys& keys) {
    // Checked where the file sets the DDS deadline: a deployment with a long cycle and no bridge section
    // is not made invalid by the bridge's default.
    if (d.bridge.deadline_ms == 0 || d.bridge.deadline_ms > d.runtime.cyclePeriod_ms ||
        !keys.contains("bridge.deadline_ms")) {
        return std::nullopt;
    }
    return RuleViolation{reportAt(keys, {"bridge.deadline_ms", "runtime.cycle_period_ms"}),
                         "bridge.deadline_ms = " + std::to_string(d.bridge.deadline_ms) +
                             " ms is not above runtime.cycle_period_ms = " + std::to_string(d.runtime.cyclePeriod_ms) +
                             " ms; topics published once per cycle would miss it on every late cycle"};
}

Check autowareTopicDistinct(const Deployment& d, const ExplicitKeys& /*keys*/) {
    if (!d.bridge.autoware.enabled || d.bridge.autoware.topic.rfind(d.bridge.topicPrefix + "/", 0) != 0) {
        return std::nullopt;
    }
    return RuleViolation{"bridge.autoware.topic", "bridge.autoware.topic \"" + d.bridge.autoware.topic +
                                                      "\" lies under bridge.topic_prefix, where augur's own topics are"};
}

const ConsistencyRule RULES[] = {
    {ConfigErrorKind::Inconsistent, "`runtime.deadline_ms` ≤ `runtime.cycle_period_ms`.", &deadlineWithinPeriod},
    {ConfigErrorKind::Inconsistent, "The sum of `runtime.stage_budgets_ms.*` ≤ `runtime.deadline_ms`.",
     &budgetsWithinDeadline},
    {ConfigErrorKind::Inconsistent, "`runtime.cpu_affinity` lists each core at most once.", &affinityWithoutDuplicates},
    {ConfigErrorKind::Inconsistent, "`capacities.max_predicted_vehicles` ≤ `capacities.max_tracks`.",
     &predictedWithinTracks},
    {ConfigErrorKind::Inconsistent, "`intention.particles_reduced` ≤ `capacities.particles`.",
     &reducedParticlesWithinNominal},
    {ConfigErrorKind::Inconsistent,
     "With both set, `input.loss.no_prediction_after_cycles` ≥ `input.loss.hold_last_after_cycles`.",
     &inputLossStepsDown},
    {ConfigErrorKind::Inconsistent, "`intention.braking.gentlest_mps2` < `intention.braking.hardest_mps2`.",
     &brakingOnsetOrdered},
    {ConfigErrorKind::Inconsistent, "`motion.horizon_s` is a whole multiple of `motion.step_s`.", &horizonWholeSteps},
    {ConfigErrorKind::OverCompiledLimit, "`motion.horizon_s` / `motion.step_s` ≤ `MAX_HORIZON_STEPS`.",
     &horizonWithinCompiledSteps},
    {ConfigErrorKind::Inconsistent, "`motion.position_range_m` ≥ `motion.max_speed_mps` · `motion.horizon_s`.",
     &positionRangeCoversHorizon},
    {ConfigErrorKind::Inconsistent,
     "With the grid enabled, `grid.frame_interval_s` is a whole multiple of `motion.step_s` and divides "
     "`motion.horizon_s`.",
     &gridFramesOnSteps},
    {ConfigErrorKind::OverCompiledLimit,
     "With the grid enabled, `motion.horizon_s` / `grid.frame_interval_s` ≤ `MAX_GRID_FRAMES`.",
     &gridFramesWithinCompiled},
    {ConfigErrorKind::Inconsistent,
     "With flocks enabled, `flocks.window_cycles` ≤ `capacities.track_history_cycles`.", &flockWindowWithinHistory},
    {ConfigErrorKind::Inconsistent, "With flocks enabled, `flocks.min_members` ≤ `capacities.max_tracks`.",
     &flockMembersWithinTracks},
    {ConfigErrorKind::Inconsistent,
     "With `tracking.confirm_window` set, `tracking.confirm_after_hits` ≤ `tracking.confirm_window`.",
     &confirmationWithinWindow},
    {ConfigErrorKind::Inconsistent, "`tracking.gates.id_bonus` < `tracking.gates.mahalanobis_sq`.", &idBonusWithinGate},
    {ConfigErrorKind::MissingKey,
     "With `map.format: lanelet2`, `map.origin_lat_deg` and `map.origin_lon_deg` are set explicitly.",
     &lanelet2Origin},
    {ConfigErrorKind::Inconsistent,
     "No two `transport` channels share service, instance and event (compared as iceoryx stores them).",
     &distinctChannels},
    {ConfigErrorKind::Inconsistent,
     "With `bridge.deadline_ms` set, `bridge.liveliness_lease_ms` < `bridge.deadline_ms` (a lost peer is "
     "reported within one deadline).",
     &livelinessWithinDeadline},
    {ConfigErrorKind::Inconsistent,
     "With `bridge.deadline_ms` set, `bridge.deadline_ms` > `runtime.cycle_period_ms` (the runtime publishes once "
     "per cycle).",
     &bridgeDeadlineAbovePeriod},
    {ConfigErrorKind::Inconsistent,
     "With `bridge.autoware.enabled`, `bridge.autoware.topic` does not lie under `bridge.topic_prefix`.",
     &autowareTopicDistinct},
};

}  // namespace

std::span<const ConsistencyRule> consistencyRules() noexcept { return RULES; }

}  // namespace augur::config
