// Track management for the Kalman bank: which bank slot belongs to which perception object id.
//
// A track is born on the first sighting of an id, keeps its slot while it is seen, and is deleted after
// more than `maxMissedCycles` consecutive cycles without a sighting; its slot is then free for a new id.
// The capacity is fixed at init. A sighting that finds no free slot is counted (overflowCount) and
// ignored, never a crash. Lookup is an open-addressing hash (linear probing, backward-shift deletion)
// with a table twice the capacity rounded up to a power of two: O(1) expected per sighting.
//
// Cycle protocol (run phase, noexcept, allocation-free, not thread-safe):
//   beginCycle();  for each object: observe(id) → slot (or NO_SLOT);  endCycle(deleted) → deleted slots.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "augur/core/result.hpp"

namespace augur::kernels::kf {

enum class TrackTableError { ZeroCapacity, CapacityTooLarge };

[[nodiscard]] const char* toString(TrackTableError error) noexcept;

struct TrackTableConfig {
    std::size_t capacity{0};          ///< tracks held at most; 1 … 2³⁰
    std::uint32_t maxMissedCycles{0};  ///< a track survives this many missed cycles, is deleted on the next
};

/// The outcome of one sighting.
struct Sighting {
    std::uint32_t slot{0};  ///< bank slot of the track; NO_SLOT when the table was full
    bool born{false};       ///< true when this sighting created the track (initialise its state)
};

class TrackTable {
public:
    static constexpr std::uint32_t NO_SLOT = 0xFFFF'FFFFU;

    /// Allocates the slot and hash arrays. Init phase.
    [[nodiscard]] static Result<TrackTable, TrackTableError> create(const TrackTableConfig& config);

    /// Starts a cycle: every live track is "not yet seen". O(capacity).
    void beginCycle() noexcept;

    /// Records a sighting of `id`: the slot of its track, created when new. A second sighting of the same
    /// id in one cycle returns the same slot (born false). O(1) expected.
    [[nodiscard]] Sighting observe(std::uint32_t id) noexcept;

    /// Ends the cycle: unseen tracks get one more missed cycle; those past maxMissedCycles are deleted.
    /// Writes the deleted slots into `deleted` (as many as fit) and returns how many were deleted.
    /// O(capacity).
    std::size_t endCycle(std::span<std::uint32_t> deleted) noexcept;

    /// Deletes the live track in `slot` now (e.g. a track whose state went non-finite); its id is free
    /// for a new track. No effect on a free slot. O(1) expected.
    void remove(std::uint32_t slot) noexcept;

    [[nodiscard]] std::size_t size() const noexcept { return m_live; }
    [[nodiscard]] std::size_t capacity() const noexcept { return m_ids.size(); }
    /// Sightings dropped because the table was full, since init.
    [[nodiscard]] std::uint64_t overflowCount() const noexcept { return m_overflow; }
    [[nodiscard]] bool isLive(std::uint32_t slot) const noexcept { return slot < m_liveFlag.size() && m_liveFlag[slot] != 0; }
    /// Object id of a live slot.
    [[nodiscard]] std::uint32_t idOf(std::uint32_t slot) const noexcept { return m_ids[slot]; }
    /// Consecutive cycles without a sighting of a live slot (0 when seen in the last ended cycle).
    [[nodiscard]] std::uint32_t missedCycles(std::uint32_t slot) const noexcept { return m_missed[slot]; }
    /// The slot of `id`, or NO_SLOT. O(1) expected.
    [[nodiscard]] std::uint32_t find(std::uint32_t id) const noexcept;

private:
    TrackTable() = default;
    [[nodiscard]] std::size_t home(std::uint32_t id) const noexcept;
    void erase(std::uint32_t id) noexcept;

    std::uint32_t m_maxMissed{0};
    std::size_t m_live{0};
    std::uint64_t m_overflow{0};
    std::vector<std::uint32_t> m_ids;        // per slot
    std::vector<std::uint32_t> m_missed;     // per slot
    std::vector<std::uint8_t> m_liveFlag;   // per slot
    std::vector<std::uint8_t> m_seen;        // per slot, this cycle
    std::vector<std::uint32_t> m_freeSlots;  // stack of free slots (size fixed: capacity)
    std::size_t m_freeCount{0};
    std::vector<std::uint32_t> m_hash;       // slot + 1 per bucket, 0 = empty
    std::size_t m_hashMask{0};
};

}  // namespace augur::kernels::kf
