// The input contract: which perception object lists, and which objects of them, the runtime accepts.
//
// An ObjectListGate sits at the runtime's input (the ingest stage calls admit() on every list it takes).
// It checks each list against the message format, the deployment's capacities, the clock (no stamp too
// old or too far in the future) and physical plausibility, and keeps the state that spans lists
// (sequence and stamp of the last accepted list) so that no single list can lock input out:
//   - a list stamped beyond the future tolerance is rejected and never becomes the reference;
//   - a list whose sequence goes back while its stamp moves forward is a restarted publisher: the
//     gate resynchronises to it at once (counted);
//   - after `resyncAfterRejections` lists in a row that are fresh and valid but out of order (say,
//     behind a list that came from a clock running ahead), the gate resynchronises as well.
// Bad objects are dropped from a list whose other objects are good; the list is rejected only when
// nothing of it is left. Every rejection is returned with its reason for the caller to count.
#pragma once

#include <array>
#include <cstdint>

#include "augur/core/messages.hpp"

namespace augur {

/// Physically plausible ranges of finite values (ranges in the configuration; defaults from vehicle
/// physics and float precision). A value outside is RejectReason::Implausible.
struct PlausibilityLimits {
    float maxAbsPosition_m{100'000.0F};  ///< |x|, |y| of objects and ego in the map frame (float keeps 1 cm there)
    float maxSpeed_mps{100.0F};          ///< 360 km/h: above any road user's speed
    float maxLength_m{60.0F};            ///< road trains and oversize transports
    float maxWidth_m{10.0F};
    float maxStdPosition_m{100.0F};      ///< beyond this the measurement carries no position
    float maxStdSpeed_mps{50.0F};
};

/// Bounds no deployment changes: a heading outside [-2π, 2π] is no angle convention in use, and a
/// standard deviation below these floors squares to a variance the filters cannot invert in float.
inline constexpr float MAX_ABS_HEADING_RAD = 6.2831855F;
inline constexpr float MIN_STD_POSITION_M = 1e-3F;
inline constexpr float MIN_STD_SPEED_MPS = 1e-3F;
inline constexpr float MIN_STD_HEADING_RAD = 1e-4F;
inline constexpr float MAX_STD_HEADING_RAD = 6.2831855F;

/// Limits from the deployment's configuration.
struct ObjectListLimits {
    std::uint32_t maxObjects{static_cast<std::uint32_t>(MAX_OBJECTS)};  ///< ≤ MAX_OBJECTS
    std::int64_t maxAge_ns{0};      ///< older lists are Stale; 0 disables the staleness check
    std::int64_t maxFuture_ns{100'000'000};  ///< lists stamped further ahead of now are FutureStamp (≥ 0)
    std::uint32_t resyncAfterRejections{3};  ///< fresh, valid, out-of-order lists in a row before resynchronising (≥ 1)
    PlausibilityLimits plausibility{};
};

/// What the gate remembers of the lists it took.
struct IngestHistory {
    bool hasAccepted{false};
    std::uint64_t lastSequence{0};
    std::int64_t lastStamp_ns{0};
    std::uint32_t outOfOrderInARow{0};  ///< fresh, valid lists rejected for their order since the last accepted
};

/// The verdict on one list.
struct Admission {
    RejectReason reason{RejectReason::None};  ///< None: accepted, `out` holds the objects kept
    bool resynchronised{false};  ///< accepted as the first list of a restarted (or re-timed) publisher
    std::uint32_t droppedObjects{0};  ///< objects removed from an accepted list (their reasons in objectReasons)
    std::array<std::uint16_t, REJECT_REASON_COUNT> objectReasons{};  ///< per reason, objects dropped
};

class ObjectListGate {
public:
    explicit ObjectListGate(const ObjectListLimits& limits) noexcept : m_limits(limits) {}

    /// Checks `list`, taken at `now_ns` (the clock of header.stamp_ns), and on acceptance writes the
    /// objects kept into `out` (header and ego copied) and records the list; on rejection `out` holds
    /// scratch. `out` may not alias `list`. Checks in this order: schema, capacity, ego (non-finite,
    /// implausible), stamp (future, stale), objects (non-finite, invalid field, implausible, duplicate
    /// id: each dropped alone), order (sequence, stamp). Run-phase safe: noexcept, allocation-free, O(n log n) in objectCount;
    /// safe for any bit pattern in `list` (no overflow, no read past objectCount ≤ MAX_OBJECTS).
    [[nodiscard]] Admission admit(const ObjectList& list, std::int64_t now_ns, ObjectList& out) noexcept;

    [[nodiscard]] const IngestHistory& history() const noexcept { return m_history; }
    [[nodiscard]] const ObjectListLimits& limits() const noexcept { return m_limits; }

private:
    ObjectListLimits m_limits;
    IngestHistory m_history;
};

/// The reason a single object is dropped (None: kept), ignoring duplicate ids. Pure, noexcept.
[[nodiscard]] RejectReason checkObject(const PerceivedObject& object, const PlausibilityLimits& limits) noexcept;

}  // namespace augur
