#include "augur/runtime/output_guard.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace augur::runtime {
namespace {

bool finite(std::initializer_list<float> values) noexcept {
    return std::all_of(values.begin(), values.end(), [](float v) { return std::isfinite(v); });
}

bool finite(const Track& t) noexcept {
    return finite({t.x_m, t.y_m, t.vx_mps, t.vy_mps, t.ax_mps2, t.ay_mps2, t.covXX_m2, t.covXY_m2, t.covYY_m2,
                   t.covVxVx_m2ps2, t.covVyVy_m2ps2});
}

bool finite(const IntentionEstimate& e) noexcept {
    const std::uint32_t n = std::min<std::uint32_t>(e.corridorCount, MAX_CORRIDORS_PER_VEHICLE);
    return finite({e.stopProbability, e.laneChangeProbability}) &&
           std::all_of(e.corridorProbability, e.corridorProbability + n, [](float p) { return std::isfinite(p); });
}

bool finite(const VehiclePrediction& v, std::uint32_t steps) noexcept {
    const std::uint32_t n = std::min<std::uint32_t>(v.corridorCount, MAX_CORRIDORS_PER_VEHICLE);
    return std::all_of(v.corridors, v.corridors + n, [steps](const CorridorPrediction& c) {
        return std::isfinite(c.probability) && std::all_of(c.points, c.points + steps, [](const CorridorPoint& p) {
                   return finite({p.sMean_m, p.sStd_m, p.x_m, p.y_m});
               });
    });
}

/// Keeps the entries of `items[0, count)` that pass `keep`, in order; returns how many were removed
/// (a count above `capacity` is cut to it, and the excess counted as removed).
template <typename T, typename Keep>
std::uint32_t compact(T* items, std::uint32_t& count, std::uint32_t capacity, Keep keep) noexcept {
    const std::uint32_t n = std::min(count, capacity);
    // remove_if moves in place and keeps the order (stable_partition could allocate a buffer).
    const auto kept =
        static_cast<std::uint32_t>(std::remove_if(items, items + n, [&keep](const T& item) { return !keep(item); }) - items);
    const std::uint32_t removed = count - kept;
    count = kept;
    return removed;
}

}  // namespace

std::uint32_t dropNonFinite(TrackList& list) noexcept {
    return compact(list.tracks, list.trackCount, static_cast<std::uint32_t>(MAX_TRACKS),
                   [](const Track& t) { return finite(t); });
}

std::uint32_t dropNonFinite(IntentionList& list) noexcept {
    return compact(list.vehicles, list.vehicleCount, static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES),
                   [](const IntentionEstimate& e) { return finite(e); });
}

std::uint32_t dropNonFinite(MotionPrediction& prediction) noexcept {
    if (!std::isfinite(prediction.step_s)) {
        const std::uint32_t removed = prediction.vehicleCount;
        prediction.step_s = 0.0F;
        prediction.vehicleCount = 0;
        return removed;
    }
    const std::uint32_t steps = std::min<std::uint32_t>(prediction.horizonSteps, MAX_HORIZON_STEPS);
    return compact(prediction.vehicles, prediction.vehicleCount, static_cast<std::uint32_t>(MAX_PREDICTED_VEHICLES),
                   [steps](const VehiclePrediction& v) { return finite(v, steps); });
}

}  // namespace augur::runtime
