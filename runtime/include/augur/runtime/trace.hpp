// A fixed-capacity ring of stage timings (CPU and GPU) written on demand as Chrome / Perfetto trace
// JSON, so a person can open a cycle timeline in chrome://tracing or ui.perfetto.dev.
//
// record() is run-phase safe (noexcept, allocation-free, O(1)); the oldest events are overwritten once
// the ring is full. writeChromeTrace() allocates and does file I/O: call it outside the cycle (on
// demand from a low-priority thread or at shutdown). Not thread-safe: one writer.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "augur/core/messages.hpp"
#include "augur/core/result.hpp"

namespace augur::runtime {

enum class TraceTrack : std::uint8_t { Cpu = 0, Gpu = 1 };

struct TraceEvent {
    std::uint64_t cycle{0};
    std::int64_t begin_ns{0};  ///< CLOCK_MONOTONIC (GPU events are placed on it by the caller)
    std::int64_t end_ns{0};
    Stage stage{Stage::Ingest};
    TraceTrack track{TraceTrack::Cpu};
};

class TraceRing {
public:
    explicit TraceRing(std::size_t capacity);

    void record(const TraceEvent& event) noexcept;

    [[nodiscard]] std::size_t size() const noexcept { return m_size; }
    /// Event `i` in chronological order of recording (0 = oldest kept).
    [[nodiscard]] const TraceEvent& at(std::size_t i) const noexcept;

    /// Writes the kept events as {"traceEvents": [...]} complete events ("ph": "X"), one thread per
    /// track, times in microseconds. Returns an error message on I/O failure.
    [[nodiscard]] Result<void, std::string> writeChromeTrace(const std::string& path) const;

private:
    std::size_t m_capacity;
    std::unique_ptr<TraceEvent[]> m_events;
    std::size_t m_next{0};
    std::size_t m_size{0};
};

}  // namespace augur::runtime
