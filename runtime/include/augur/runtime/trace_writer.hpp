// The trace file: a low-priority thread that takes the run phase's TraceRecords from their rings
// (trace.hpp) and writes them as they come, in the Chrome trace-event JSON array format that
// ui.perfetto.dev and chrome://tracing open (docs/design/runtime.md, "The trace").
//
//   [
//   {"name":"process_name","ph":"M",...},
//   {"name":"cycle","ph":"X","tid":1,...},      one line per event, each after ",\n"
//   ...
//   ]                                           written by close(); a killed process leaves it out
//
// The file always ends at an event boundary after each write, so a trace cut short by a crash or a
// kill is valid JSON once "]" is appended (the Trace Event Format makes the closing bracket of the
// array format optional for this case). Tracks: tid 1 the cycle thread (cycle slices
// with their stages nested), tid 2 the GPU work (only once there is some: absent on a CPU backend),
// tid 3 the watchdog thread (its alarms); counters and mode changes belong to the process.
//
// open() allocates, opens the file and starts the thread (init phase). The producers push into
// cycleBuffer() (the cycle thread) and watchdogBuffer() (the watchdog thread) without waiting; the
// writer wakes every `poll_ns`, formats what is there into a preallocated buffer and writes and
// flushes it. close() drains, writes the closing bracket and joins the thread.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/runtime/trace.hpp"

namespace augur::runtime {

/// Thread ids of the trace's tracks (within the process's pid).
inline constexpr int TRACE_TID_CYCLE = 1;
inline constexpr int TRACE_TID_GPU = 2;
inline constexpr int TRACE_TID_WATCHDOG = 3;

struct TraceWriterSettings {
    /// Records each ring holds. At about a dozen records a cycle, 4096 hold more than 300 cycles,
    /// a minute at 5 Hz, against a writer that drains them every `poll_ns`.
    std::size_t bufferRecords{4096};
    std::int64_t poll_ns{10'000'000};
    std::string processName{"augur-runtime"};  ///< the process track's name
};

/// What close() reports.
struct TraceTotals {
    std::uint64_t events{0};   ///< trace events written (metadata included)
    std::uint64_t dropped{0};  ///< records the rings dropped because they were full
};

/// Formats the trace event(s) of `record` for process `pid`, each preceded by ",\n", into `out`.
/// Returns the characters written, 0 when they do not fit in `size` (nothing usable is left in `out`).
/// noexcept, allocation-free.
[[nodiscard]] std::size_t formatTraceEvents(const TraceRecord& record, int pid, char* out, std::size_t size) noexcept;

class TraceWriter {
public:
    /// Creates (truncates) `path`, writes the metadata events and starts the writer thread, at the
    /// scheduling policy and on the cores of the calling thread: call it before the real-time setup.
    /// Returns a message naming the path when the file cannot be written.
    [[nodiscard]] static Result<std::unique_ptr<TraceWriter>, std::string> open(const std::string& path,
                                                                               const TraceWriterSettings& settings);
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;
    ~TraceWriter();

    /// The cycle thread's ring (its only producer).
    [[nodiscard]] TraceBuffer& cycleBuffer() noexcept { return m_cycle; }
    /// The watchdog thread's ring (its only producer).
    [[nodiscard]] TraceBuffer& watchdogBuffer() noexcept { return m_watchdog; }

    /// Writes what the rings hold, closes the JSON array and the file, and stops the thread; the
    /// producers must have stopped. Idempotent. Returns the totals.
    TraceTotals close() noexcept;

    /// Events written so far (any thread).
    [[nodiscard]] std::uint64_t eventsWritten() const noexcept { return m_events.load(std::memory_order_relaxed); }
    /// Records dropped so far, both rings (any thread).
    [[nodiscard]] std::uint64_t dropped() const noexcept { return m_cycle.dropped() + m_watchdog.dropped(); }
    [[nodiscard]] const std::string& path() const noexcept { return m_path; }

private:
    TraceWriter(std::string path, std::FILE* file, const TraceWriterSettings& settings);
    void run() noexcept;
    /// Formats and writes everything the rings hold; returns false once the file fails.
    bool drain() noexcept;
    void append(const TraceRecord& record) noexcept;
    void appendText(const char* text, std::size_t length) noexcept;
    bool flush() noexcept;

    std::string m_path;
    std::FILE* m_file;
    TraceWriterSettings m_settings;
    int m_pid;
    TraceBuffer m_cycle;
    TraceBuffer m_watchdog;
    std::vector<char> m_text;  ///< formatted events not yet written
    std::size_t m_textSize{0};
    bool m_gpuTrackNamed{false};
    std::uint64_t m_droppedReported{0};
    bool m_failed{false};
    std::atomic<std::uint64_t> m_events{0};
    std::mutex m_mutex;
    std::condition_variable m_wake;
    bool m_stopRequested{false};
    bool m_closed{false};
    std::thread m_thread;
};

}  // namespace augur::runtime
