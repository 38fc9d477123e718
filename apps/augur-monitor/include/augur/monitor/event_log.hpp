// augur-monitor's log: one line per health message taken and one per condition raised or cleared, as
// CSV (a header line first) or JSON Lines (one object per line), with the same fields:
//
//   t_ns        the monitor's monotonic clock (CLOCK_MONOTONIC) when the line was written
//   event       health | alarm (a watchdog overrun alarm) | raise | clear | summary
//   condition   raise / clear: the MonitorCondition's name (e.g. health_missing); else empty
//   cycle       the newest health message's cycle
//   mode        its mode (nominal, reduced_particles, ...)
//   cycle_us    its cycle latency (last cycle), microseconds
//   age_ms      time since the newest health message arrived, milliseconds (-1: none yet)
//   input_age_ms  input age at the newest health message, milliseconds (-1: unknown)
//   misses, stage_overruns, order_violations, missing_health   the monitor's counters
//   active      the conditions holding, names joined by '|'
//
// Run phase: write* are noexcept and allocation-free (formatted into a fixed buffer; stdio buffers the
// file, allocated at open).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "augur/core/result.hpp"
#include "augur/monitor/supervisor.hpp"

namespace augur::monitor {

enum class LogFormat : std::uint8_t { Csv = 0, Json };

/// The names of the bits in `conditions`, joined by '|', into `out` (capacity `size`, NUL-terminated,
/// cut short if it does not fit). Returns `out`.
const char* formatConditions(std::uint32_t conditions, char* out, std::size_t size) noexcept;

class EventLog {
public:
    EventLog() = default;
    EventLog(const EventLog&) = delete;
    EventLog& operator=(const EventLog&) = delete;
    ~EventLog();

    /// Opens (truncates) `path` and writes the CSV header. Init phase. Error: the reason.
    [[nodiscard]] Result<void, std::string> open(const std::string& path, LogFormat format);
    [[nodiscard]] bool isOpen() const noexcept { return m_file != nullptr; }

    /// A line for `event` (see the banner) with the supervisor's state at `now_ns`; `condition` only for
    /// raise and clear (else nullptr). No effect when not open.
    void write(const char* event, const char* condition, const Supervisor& supervisor, std::int64_t now_ns) noexcept;
    /// Lines for the bits raised and cleared between `before` and `after`.
    void writeChanges(std::uint32_t before, std::uint32_t after, const Supervisor& supervisor,
                      std::int64_t now_ns) noexcept;
    /// Writes buffered lines to the file (e.g. once a second, and at exit).
    void flush() noexcept;

private:
    std::FILE* m_file{nullptr};
    LogFormat m_format{LogFormat::Csv};
};

}  // namespace augur::monitor
