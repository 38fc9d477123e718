// Validation of an incoming perception object list, as a pure function.
//
// The runtime's ingest stage calls validateObjectList on every list it takes; anything but
// RejectReason::None is counted by reason and never reaches the kernels.
#pragma once

#include <cstdint>

#include "augur/core/messages.hpp"

namespace augur {

/// Limits from the deployment's configuration.
struct ObjectListLimits {
    std::uint32_t maxObjects{static_cast<std::uint32_t>(MAX_OBJECTS)};  ///< ≤ MAX_OBJECTS
    std::int64_t maxAge_ns{0};  ///< 0 disables the staleness check
};

/// What the ingest stage remembers of the last accepted list.
struct IngestHistory {
    bool hasAccepted{false};
    std::uint64_t lastSequence{0};
    std::int64_t lastStamp_ns{0};
};

/// Returns RejectReason::None when `list` may be processed, else the first reason (in the order of
/// the enum: schema, capacity, non-finite, invalid field, duplicate id, sequence, timestamp, stale).
/// `now_ns` is the taking process's time on the same clock as header.stamp_ns.
/// Pure, noexcept, allocation-free; O(n log n) in objectCount.
[[nodiscard]] RejectReason validateObjectList(const ObjectList& list, const ObjectListLimits& limits,
                                              const IngestHistory& history, std::int64_t now_ns) noexcept;

/// Records an accepted list in `history` (call only after validateObjectList returned None).
void recordAccepted(IngestHistory& history, const ObjectList& list) noexcept;

}  // namespace augur
