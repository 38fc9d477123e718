// The last check before anything leaves the runtime: no non-finite number is ever published.
//
// Each function removes, in place and keeping the order of the rest, every entry (track, vehicle)
// with a NaN or infinity in a field the message defines, and returns how many it removed. The
// publish stage runs them on every output; a removal is counted and raised as a fault in health.
// Run-phase safe: noexcept, allocation-free, linear in the message's used size.
#pragma once

#include <cstdint>

#include "augur/core/messages.hpp"

namespace augur::runtime {

[[nodiscard]] std::uint32_t dropNonFinite(TrackList& list) noexcept;
[[nodiscard]] std::uint32_t dropNonFinite(IntentionList& list) noexcept;
/// Checks the vehicles' corridors over `horizonSteps` points (clamped to MAX_HORIZON_STEPS); a
/// non-finite step_s removes every vehicle.
[[nodiscard]] std::uint32_t dropNonFinite(MotionPrediction& prediction) noexcept;

}  // namespace augur::runtime
