// Track management (track_table.hpp): open-addressing id → slot map with a free-slot stack.
#include "augur/kernels/kf/track_table.hpp"

#include <bit>

namespace augur::kernels::kf {

const char* toString(TrackTableError error) noexcept {
    switch (error) {
        case TrackTableError::ZeroCapacity: return "track table capacity is zero";
        case TrackTableError::CapacityTooLarge: return "track table capacity exceeds 2^30";
    }
    return "invalid";
}

Result<TrackTable, TrackTableError> TrackTable::create(const TrackTableConfig& config) {
    constexpr std::size_t MAX_CAPACITY = std::size_t{1} << 30U;
    if (config.capacity == 0) {
        return fail(TrackTableError::ZeroCapacity);
    }
    if (config.capacity > MAX_CAPACITY) {
        return fail(TrackTableError::CapacityTooLarge);
    }
    TrackTable table;
    table.m_maxMissed = config.maxMissedCycles;
    table.m_ids.assign(config.capacity, 0);
    table.m_missed.assign(config.capacity, 0);
    table.m_liveFlag.assign(config.capacity, 0);
    table.m_seen.assign(config.capacity, 0);
    table.m_freeSlots.resize(config.capacity);
    for (std::size_t i = 0; i < config.capacity; ++i) {
        // Lowest slot on top of the stack: slots fill 0, 1, 2, …
        table.m_freeSlots[i] = static_cast<std::uint32_t>(config.capacity - 1 - i);
    }
    table.m_freeCount = config.capacity;
    const std::size_t buckets = std::bit_ceil(2 * config.capacity);
    table.m_hash.assign(buckets, 0);
    table.m_hashMask = buckets - 1;
    return Result<TrackTable, TrackTableError>(std::move(table));
}

std::size_t TrackTable::home(std::uint32_t id) const noexcept {
    // Fibonacci hashing of the 32-bit id.
    return static_cast<std::size_t>((static_cast<std::uint64_t>(id) * 0x9E3779B97F4A7C15ULL) >> 20U) & m_hashMask;
}

std::uint32_t TrackTable::find(std::uint32_t id) const noexcept {
    for (std::size_t b = home(id);; b = (b + 1) & m_hashMask) {
        const std::uint32_t entry = m_hash[b];
        if (entry == 0) {
            return NO_SLOT;
        }
        if (m_ids[entry - 1] == id) {
            return entry - 1;
        }
    }
}

void TrackTable::beginCycle() noexcept {
    for (auto& seen : m_seen) {
        seen = 0;
    }
}

Sighting TrackTable::observe(std::uint32_t id) noexcept {
    std::size_t b = home(id);
    for (;; b = (b + 1) & m_hashMask) {
        const std::uint32_t entry = m_hash[b];
        if (entry == 0) {
            break;
        }
        if (m_ids[entry - 1] == id) {
            m_seen[entry - 1] = 1;
            return Sighting{entry - 1, false};
        }
    }
    if (m_freeCount == 0) {
        ++m_overflow;
        return Sighting{NO_SLOT, false};
    }
    const std::uint32_t slot = m_freeSlots[--m_freeCount];
    m_hash[b] = slot + 1;
    m_ids[slot] = id;
    m_missed[slot] = 0;
    m_liveFlag[slot] = 1;
    m_seen[slot] = 1;
    ++m_live;
    return Sighting{slot, true};
}

void TrackTable::erase(std::uint32_t id) noexcept {
    std::size_t hole = home(id);
    while (m_ids[m_hash[hole] - 1] != id) {
        hole = (hole + 1) & m_hashMask;
    }
    // Backward-shift deletion keeps every probe chain unbroken without tombstones.
    m_hash[hole] = 0;
    for (std::size_t b = (hole + 1) & m_hashMask; m_hash[b] != 0; b = (b + 1) & m_hashMask) {
        const std::size_t want = home(m_ids[m_hash[b] - 1]);
        // Move the entry into the hole if the hole lies on its probe path (cyclically in [want, b)).
        const bool holeOnPath = ((b - want) & m_hashMask) >= ((b - hole) & m_hashMask);
        if (holeOnPath) {
            m_hash[hole] = m_hash[b];
            m_hash[b] = 0;
            hole = b;
        }
    }
}

void TrackTable::remove(std::uint32_t slot) noexcept {
    if (!isLive(slot)) {
        return;
    }
    erase(m_ids[slot]);
    m_liveFlag[slot] = 0;
    m_seen[slot] = 0;
    m_freeSlots[m_freeCount++] = slot;
    --m_live;
}

std::size_t TrackTable::endCycle(std::span<std::uint32_t> deleted) noexcept {
    std::size_t removed = 0;
    for (std::uint32_t slot = 0; slot < m_ids.size(); ++slot) {
        if (m_liveFlag[slot] == 0) {
            continue;
        }
        if (m_seen[slot] != 0) {
            m_missed[slot] = 0;
            continue;
        }
        if (++m_missed[slot] <= m_maxMissed) {
            continue;
        }
        remove(slot);
        if (removed < deleted.size()) {
            deleted[removed] = slot;
        }
        ++removed;
    }
    return removed;
}

}  // namespace augur::kernels::kf
