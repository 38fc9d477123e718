#include "augur/core/message_validation.hpp"

#include <algorithm>
#include <cmath>

namespace augur {
namespace {

bool within(float value, float lo, float hi) noexcept { return value >= lo && value <= hi; }

bool allFinite(const PerceivedObject& o) noexcept {
    const float values[] = {o.x_m,     o.y_m,    o.heading_rad, o.speed_mps, o.length_m,      o.width_m,
                            o.stdX_m, o.stdY_m, o.stdHeading_rad, o.stdSpeed_mps};
    return std::all_of(std::begin(values), std::end(values), [](float v) { return std::isfinite(v); });
}

bool fieldsInDomain(const PerceivedObject& o) noexcept {
    return o.stdX_m > 0.0F && o.stdY_m > 0.0F && o.stdHeading_rad > 0.0F && o.stdSpeed_mps > 0.0F &&
           o.length_m >= 0.0F && o.width_m >= 0.0F && o.speed_mps >= 0.0F &&
           static_cast<std::uint8_t>(o.objectClass) < static_cast<std::uint8_t>(ObjectClass::Count);
}

bool plausible(const PerceivedObject& o, const PlausibilityLimits& p) noexcept {
    return std::fabs(o.x_m) <= p.maxAbsPosition_m && std::fabs(o.y_m) <= p.maxAbsPosition_m &&
           std::fabs(o.heading_rad) <= MAX_ABS_HEADING_RAD && o.speed_mps <= p.maxSpeed_mps &&
           o.length_m <= p.maxLength_m && o.width_m <= p.maxWidth_m &&
           within(o.stdX_m, MIN_STD_POSITION_M, p.maxStdPosition_m) &&
           within(o.stdY_m, MIN_STD_POSITION_M, p.maxStdPosition_m) &&
           within(o.stdSpeed_mps, MIN_STD_SPEED_MPS, p.maxStdSpeed_mps) &&
           within(o.stdHeading_rad, MIN_STD_HEADING_RAD, MAX_STD_HEADING_RAD);
}

RejectReason checkEgo(const EgoState& e, const PlausibilityLimits& p) noexcept {
    if (!std::isfinite(e.x_m) || !std::isfinite(e.y_m) || !std::isfinite(e.heading_rad) || !std::isfinite(e.speed_mps)) {
        return RejectReason::NonFinite;
    }
    if (std::fabs(e.x_m) > p.maxAbsPosition_m || std::fabs(e.y_m) > p.maxAbsPosition_m ||
        std::fabs(e.heading_rad) > MAX_ABS_HEADING_RAD || std::fabs(e.speed_mps) > p.maxSpeed_mps) {
        return RejectReason::Implausible;
    }
    return RejectReason::None;
}

/// Stamp checks without signed overflow for any stamp: `now_ns` is a monotonic clock reading (≥ 0)
/// and the two limits are bounded by the configuration, so neither bound below can overflow.
RejectReason checkStamp(std::int64_t stamp_ns, std::int64_t now_ns, const ObjectListLimits& limits) noexcept {
    if (stamp_ns > now_ns && stamp_ns - now_ns > limits.maxFuture_ns) {
        return RejectReason::FutureStamp;
    }
    if (limits.maxAge_ns > 0 && stamp_ns < now_ns - limits.maxAge_ns) {
        return RejectReason::Stale;
    }
    return RejectReason::None;
}

}  // namespace

RejectReason checkObject(const PerceivedObject& object, const PlausibilityLimits& limits) noexcept {
    if (!allFinite(object)) {
        return RejectReason::NonFinite;
    }
    if (!fieldsInDomain(object)) {
        return RejectReason::InvalidField;
    }
    if (!plausible(object, limits)) {
        return RejectReason::Implausible;
    }
    return RejectReason::None;
}

Admission ObjectListGate::admit(const ObjectList& list, std::int64_t now_ns, ObjectList& out) noexcept {
    Admission admission;
    const auto reject = [&admission](RejectReason reason) noexcept {
        admission.reason = reason;
        admission.droppedObjects = 0;
        admission.objectReasons = {};
        return admission;
    };
    if (list.header.schemaVersion != MESSAGE_SCHEMA_VERSION) {
        return reject(RejectReason::UnknownSchemaVersion);
    }
    const std::uint32_t capacity = std::min<std::uint32_t>(m_limits.maxObjects, static_cast<std::uint32_t>(MAX_OBJECTS));
    if (list.objectCount > capacity) {
        return reject(RejectReason::CountOverCapacity);
    }
    if (const RejectReason ego = checkEgo(list.ego, m_limits.plausibility); ego != RejectReason::None) {
        return reject(ego);
    }
    if (const RejectReason stamp = checkStamp(list.header.stamp_ns, now_ns, m_limits); stamp != RejectReason::None) {
        return reject(stamp);
    }

    // Objects: each bad one is dropped alone; a repeated id keeps its first object.
    const std::uint32_t n = list.objectCount;
    std::array<std::uint32_t, MAX_OBJECTS> keptIds{};  // sorted ids of the objects kept so far
    std::uint32_t kept = 0;
    RejectReason firstDropped = RejectReason::None;
    for (std::uint32_t i = 0; i < n; ++i) {
        const PerceivedObject& o = list.objects[i];
        RejectReason reason = checkObject(o, m_limits.plausibility);
        const auto end = keptIds.begin() + kept;
        const auto at = std::lower_bound(keptIds.begin(), end, o.id);
        if (reason == RejectReason::None && at != end && *at == o.id) {
            reason = RejectReason::DuplicateId;
        }
        if (reason != RejectReason::None) {
            ++admission.objectReasons[static_cast<std::size_t>(reason)];
            ++admission.droppedObjects;
            firstDropped = firstDropped == RejectReason::None ? reason : firstDropped;
            continue;
        }
        std::copy_backward(at, end, end + 1);
        *at = o.id;
        out.objects[kept++] = o;
    }
    if (n > 0 && kept == 0) {
        return reject(firstDropped);  // nothing of the list is left: the list as a whole is bad
    }

    // Order. A list whose sequence goes back while its stamp moves on is a restarted publisher.
    if (m_history.hasAccepted) {
        const bool sequenceBack = list.header.sequence <= m_history.lastSequence;
        const bool stampBack = list.header.stamp_ns < m_history.lastStamp_ns;
        const bool restarted = sequenceBack && list.header.stamp_ns > m_history.lastStamp_ns;
        RejectReason order = RejectReason::None;
        if (sequenceBack && !restarted) {
            order = RejectReason::SequenceNotIncreasing;
        } else if (!sequenceBack && stampBack) {
            order = RejectReason::TimestampBackwards;
        }
        if (order != RejectReason::None) {
            if (++m_history.outOfOrderInARow < std::max<std::uint32_t>(m_limits.resyncAfterRejections, 1)) {
                return reject(order);
            }
            admission.resynchronised = true;  // the reference itself is what is wrong: follow the stream
        } else {
            admission.resynchronised = restarted;
        }
    }

    out.header = list.header;
    out.ego = list.ego;
    out.objectCount = kept;
    out.reserved = 0;
    m_history.hasAccepted = true;
    m_history.lastSequence = list.header.sequence;
    m_history.lastStamp_ns = list.header.stamp_ns;
    m_history.outOfOrderInARow = 0;
    return admission;
}

}  // namespace augur
