// The positions of the published tracks over the last cycles, for the platoon (flock) search: a ring of
// `cycles` snapshots of at most MAX_TRACKS (id, x, y) each, one snapshot per cycle.
// record() and the accessors are run-phase safe: noexcept, allocation-free, O(tracks).
#pragma once

#include <cstdint>
#include <vector>

#include "augur/core/messages.hpp"

namespace augur::runtime {

class TrackHistory {
public:
    struct Entry {
        std::uint32_t id;
        float x_m;
        float y_m;
    };

    /// Allocates `cycles` snapshots (init phase). cycles ≥ 1.
    explicit TrackHistory(std::uint32_t cycles)
        : m_cycles(cycles == 0 ? 1 : cycles), m_entries(static_cast<std::size_t>(m_cycles) * MAX_TRACKS), m_counts(m_cycles, 0) {}

    /// Appends the tracks of this cycle, overwriting the oldest snapshot once full.
    void record(const TrackList& tracks) noexcept {
        const std::size_t slot = m_next % m_cycles;
        const std::uint32_t count = tracks.trackCount < MAX_TRACKS ? tracks.trackCount : static_cast<std::uint32_t>(MAX_TRACKS);
        for (std::uint32_t i = 0; i < count; ++i) {
            m_entries[slot * MAX_TRACKS + i] = Entry{tracks.tracks[i].id, tracks.tracks[i].x_m, tracks.tracks[i].y_m};
        }
        m_counts[slot] = count;
        ++m_next;
    }

    /// Snapshots held (≤ capacity).
    [[nodiscard]] std::uint32_t size() const noexcept {
        return m_next < m_cycles ? static_cast<std::uint32_t>(m_next) : m_cycles;
    }
    [[nodiscard]] std::uint32_t capacity() const noexcept { return m_cycles; }
    /// Snapshots recorded since construction (the newest is number recorded() - 1).
    [[nodiscard]] std::uint64_t recorded() const noexcept { return m_next; }
    /// Snapshot `age` cycles back from the newest (0 = newest). Precondition: age < size().
    [[nodiscard]] const Entry* snapshot(std::uint32_t age, std::uint32_t& count) const noexcept {
        const std::size_t slot = (m_next - 1 - age) % m_cycles;
        count = m_counts[slot];
        return &m_entries[slot * MAX_TRACKS];
    }

private:
    std::uint32_t m_cycles;
    std::vector<Entry> m_entries;
    std::vector<std::uint32_t> m_counts;
    std::uint64_t m_next{0};
};

}  // namespace augur::runtime
