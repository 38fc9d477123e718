#include "augur/core/message_validation.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace augur {
namespace {

bool allFinite(const PerceivedObject& o) noexcept {
    const float values[] = {o.x_m,     o.y_m,    o.heading_rad, o.speed_mps, o.length_m,      o.width_m,
                            o.stdX_m, o.stdY_m, o.stdHeading_rad, o.stdSpeed_mps};
    return std::all_of(std::begin(values), std::end(values), [](float v) { return std::isfinite(v); });
}

bool egoFinite(const EgoState& e) noexcept {
    return std::isfinite(e.x_m) && std::isfinite(e.y_m) && std::isfinite(e.heading_rad) && std::isfinite(e.speed_mps);
}

bool fieldsInDomain(const PerceivedObject& o) noexcept {
    return o.stdX_m > 0.0F && o.stdY_m > 0.0F && o.stdHeading_rad > 0.0F && o.stdSpeed_mps > 0.0F &&
           o.length_m >= 0.0F && o.width_m >= 0.0F && o.speed_mps >= 0.0F &&
           static_cast<std::uint8_t>(o.objectClass) < static_cast<std::uint8_t>(ObjectClass::Count);
}

}  // namespace

RejectReason validateObjectList(const ObjectList& list, const ObjectListLimits& limits, const IngestHistory& history,
                                std::int64_t now_ns) noexcept {
    if (list.header.schemaVersion != MESSAGE_SCHEMA_VERSION) {
        return RejectReason::UnknownSchemaVersion;
    }
    const std::uint32_t capacity = std::min<std::uint32_t>(limits.maxObjects, static_cast<std::uint32_t>(MAX_OBJECTS));
    if (list.objectCount > capacity) {
        return RejectReason::CountOverCapacity;
    }
    const std::uint32_t n = list.objectCount;
    if (!egoFinite(list.ego) ||
        !std::all_of(list.objects, list.objects + n, [](const PerceivedObject& o) { return allFinite(o); })) {
        return RejectReason::NonFinite;
    }
    if (!std::all_of(list.objects, list.objects + n, [](const PerceivedObject& o) { return fieldsInDomain(o); })) {
        return RejectReason::InvalidField;
    }
    std::array<std::uint32_t, MAX_OBJECTS> ids{};
    std::transform(list.objects, list.objects + n, ids.begin(), [](const PerceivedObject& o) { return o.id; });
    std::sort(ids.begin(), ids.begin() + n);
    if (std::adjacent_find(ids.begin(), ids.begin() + n) != ids.begin() + n) {
        return RejectReason::DuplicateId;
    }
    if (history.hasAccepted) {
        if (list.header.sequence <= history.lastSequence) {
            return RejectReason::SequenceNotIncreasing;
        }
        if (list.header.stamp_ns < history.lastStamp_ns) {
            return RejectReason::TimestampBackwards;
        }
    }
    if (limits.maxAge_ns > 0 && now_ns - list.header.stamp_ns > limits.maxAge_ns) {
        return RejectReason::Stale;
    }
    return RejectReason::None;
}

void recordAccepted(IngestHistory& history, const ObjectList& list) noexcept {
    history.hasAccepted = true;
    history.lastSequence = list.header.sequence;
    history.lastStamp_ns = list.header.stamp_ns;
}

}  // namespace augur
