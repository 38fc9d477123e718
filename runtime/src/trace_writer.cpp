#include "augur/runtime/trace_writer.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <chrono>
#include <cstring>

#include "augur/platform/clock.hpp"
#include "augur/platform/realtime.hpp"

namespace augur::runtime {

namespace {

constexpr std::size_t TEXT_BYTES = 64 * 1024;
constexpr std::size_t MAX_EVENTS_BYTES = 1024;  ///< the longest a record's events can format to

/// Microseconds with three decimals, exactly (no rounding through a double): "1234.567".
struct Micros {
    long long whole;
    long long frac;
};
Micros micros(std::int64_t ns) noexcept {
    const std::int64_t clamped = std::max<std::int64_t>(ns, 0);
    return {static_cast<long long>(clamped / 1000), static_cast<long long>(clamped % 1000)};
}

/// snprintf into [out, out + size), 0 when it does not fit.
__attribute__((format(printf, 3, 4))) std::size_t put(char* out, std::size_t size, const char* format, ...) noexcept {
    va_list args;
    va_start(args, format);
    const int n = std::vsnprintf(out, size, format, args);
    va_end(args);
    return n < 0 || static_cast<std::size_t>(n) >= size ? 0 : static_cast<std::size_t>(n);
}

std::size_t formatSlice(const char* name, const char* category, int pid, int tid, const TraceRecord& r, const char* extraArgs,
                        char* out, std::size_t size) noexcept {
    const Micros ts = micros(r.begin_ns);
    const Micros dur = micros(r.end_ns - r.begin_ns);
    return put(out, size,
               ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%lld.%03lld,"
               "\"dur\":%lld.%03lld,\"args\":{\"cycle\":%llu%s}}",
               name, category, pid, tid, ts.whole, ts.frac, dur.whole, dur.frac,
               static_cast<unsigned long long>(r.cycle), extraArgs);
}

/// A counter event; `value_milli` in thousandths of the counter's unit.
std::size_t formatCounter(const char* name, int pid, std::int64_t ts_ns, std::int64_t value_milli, char* out,
                          std::size_t size) noexcept {
    const Micros ts = micros(ts_ns);
    const Micros value = micros(value_milli);
    return put(out, size, ",\n{\"name\":\"%s\",\"ph\":\"C\",\"pid\":%d,\"ts\":%lld.%03lld,\"args\":{\"value\":%lld.%03lld}}",
               name, pid, ts.whole, ts.frac, value.whole, value.frac);
}

std::size_t formatMetadata(const char* kind, int pid, int tid, const char* name, char* out, std::size_t size) noexcept {
    return put(out, size, ",\n{\"name\":\"%s\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}", kind, pid,
               tid, name);
}

}  // namespace

std::size_t formatTraceEvents(const TraceRecord& r, int pid, char* out, std::size_t size) noexcept {
    const Micros ts = micros(r.begin_ns);
    switch (r.kind) {
        case TraceRecordKind::Cycle: {
            char args[96];
            (void)put(args, sizeof(args), ",\"mode\":\"%s\",\"deadline_missed\":%u", augur::toString(r.from), r.count);
            return formatSlice("cycle", "cycle", pid, TRACE_TID_CYCLE, r, args, out, size);
        }
        case TraceRecordKind::Stage:
            return formatSlice(augur::toString(r.stage), "stage", pid, TRACE_TID_CYCLE, r, "", out, size);
        case TraceRecordKind::Gpu: {
            char name[48];
            (void)put(name, sizeof(name), "%s gpu", augur::toString(r.stage));
            return formatSlice(name, "gpu", pid, TRACE_TID_GPU, r, "", out, size);
        }
        case TraceRecordKind::DeadlineMiss:
            return put(out, size,
                       ",\n{\"name\":\"deadline miss\",\"cat\":\"deadline\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,"
                       "\"ts\":%lld.%03lld,\"args\":{\"cycle\":%llu}}",
                       pid, TRACE_TID_CYCLE, ts.whole, ts.frac, static_cast<unsigned long long>(r.cycle));
        case TraceRecordKind::WatchdogAlarm:
        case TraceRecordKind::StageOverBudget: {
            const bool alarm = r.kind == TraceRecordKind::WatchdogAlarm;
            const Micros elapsed = micros(r.end_ns);
            return put(out, size,
                       ",\n{\"name\":\"%s\",\"cat\":\"watchdog\",\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,"
                       "\"ts\":%lld.%03lld,\"args\":{\"cycle\":%llu,\"stage\":\"%s\",\"elapsed_us\":%lld.%03lld}}",
                       alarm ? "watchdog alarm" : "stage over budget", pid, TRACE_TID_WATCHDOG, ts.whole, ts.frac,
                       static_cast<unsigned long long>(r.cycle),
                       r.stage == Stage::Count ? "none" : augur::toString(r.stage), elapsed.whole, elapsed.frac);
        }
        case TraceRecordKind::ModeChange:
            return put(out, size,
                       ",\n{\"name\":\"mode %s\",\"cat\":\"mode\",\"ph\":\"i\",\"s\":\"p\",\"pid\":%d,\"tid\":%d,"
                       "\"ts\":%lld.%03lld,\"args\":{\"cycle\":%llu,\"from\":\"%s\",\"to\":\"%s\"}}",
                       augur::toString(r.to), pid, TRACE_TID_CYCLE, ts.whole, ts.frac,
                       static_cast<unsigned long long>(r.cycle), augur::toString(r.from), augur::toString(r.to));
        case TraceRecordKind::Counters: {
            std::size_t n = formatCounter("vehicles", pid, r.begin_ns, std::int64_t{r.count} * 1000, out, size);
            const std::size_t particles =
                n == 0 ? 0
                       : formatCounter("particles per vehicle", pid, r.begin_ns, std::int64_t{r.count2} * 1000, out + n, size - n);
            n = particles == 0 ? 0 : n + particles;
            if (n != 0 && r.value >= 0) {
                // ns → ms with three decimals: thousandths of a millisecond are microseconds.
                const std::size_t age = formatCounter("input age ms", pid, r.begin_ns, r.value / 1000, out + n, size - n);
                n = age == 0 ? 0 : n + age;
            }
            return n;
        }
    }
    return 0;
}

Result<std::unique_ptr<TraceWriter>, std::string> TraceWriter::open(const std::string& path,
                                                                   const TraceWriterSettings& settings) {
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (file == nullptr) {
        return fail("cannot open trace file '" + path + "' for writing: " + std::strerror(errno));
    }
    std::unique_ptr<TraceWriter> writer(new TraceWriter(path, file, settings));
    // The array's opening and the metadata: the process and its threads by name (the GPU track is
    // named with its first slice).
    char text[512];
    std::size_t n = static_cast<std::size_t>(std::snprintf(
        text, sizeof(text), "[\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"%s\"}}",
        writer->m_pid, settings.processName.c_str()));
    n = std::min(n, sizeof(text) - 1);
    writer->appendText(text, n);
    n = formatMetadata("thread_name", writer->m_pid, TRACE_TID_CYCLE, "cycle (stages)", text, sizeof(text));
    writer->appendText(text, n);
    n = formatMetadata("thread_name", writer->m_pid, TRACE_TID_WATCHDOG, "watchdog", text, sizeof(text));
    writer->appendText(text, n);
    writer->m_events.store(3, std::memory_order_relaxed);
    if (!writer->flush()) {
        return fail("cannot write trace file '" + path + "'");
    }
    writer->m_thread = std::thread([w = writer.get()] { w->run(); });
    platform::nameThread(writer->m_thread, "augur-trace");
    return writer;
}

TraceWriter::TraceWriter(std::string path, std::FILE* file, const TraceWriterSettings& settings)
    : m_path(std::move(path)),
      m_file(file),
      m_settings(settings),
      m_pid(static_cast<int>(::getpid())),
      m_cycle(settings.bufferRecords),
      m_watchdog(settings.bufferRecords),
      m_text(TEXT_BYTES) {}

TraceWriter::~TraceWriter() { (void)close(); }

void TraceWriter::run() noexcept {
    std::unique_lock lock(m_mutex);
    while (!m_stopRequested) {
        lock.unlock();
        (void)drain();
        lock.lock();
        m_wake.wait_for(lock, std::chrono::nanoseconds(m_settings.poll_ns), [this] { return m_stopRequested; });
    }
}

void TraceWriter::appendText(const char* text, std::size_t length) noexcept {
    if (m_textSize + length > m_text.size()) {
        (void)flush();
    }
    if (length <= m_text.size() - m_textSize) {
        std::memcpy(m_text.data() + m_textSize, text, length);
        m_textSize += length;
    }
}

void TraceWriter::append(const TraceRecord& record) noexcept {
    if (record.kind == TraceRecordKind::Gpu && !m_gpuTrackNamed) {
        char text[160];
        const std::size_t n = formatMetadata("thread_name", m_pid, TRACE_TID_GPU, "gpu", text, sizeof(text));
        appendText(text, n);
        m_gpuTrackNamed = true;
        m_events.fetch_add(1, std::memory_order_relaxed);
    }
    if (m_text.size() - m_textSize < MAX_EVENTS_BYTES) {
        (void)flush();
    }
    const std::size_t n = formatTraceEvents(record, m_pid, m_text.data() + m_textSize, m_text.size() - m_textSize);
    m_textSize += n;
    m_events.fetch_add(record.kind == TraceRecordKind::Counters ? (record.value >= 0 ? 3 : 2) : 1,
                       std::memory_order_relaxed);
}

bool TraceWriter::flush() noexcept {
    if (m_failed || m_file == nullptr) {
        m_textSize = 0;
        return false;
    }
    // One write per flush of whole events: the file ends at an event boundary after each.
    const bool ok = m_textSize == 0 || (std::fwrite(m_text.data(), 1, m_textSize, m_file) == m_textSize &&
                                         std::fflush(m_file) == 0);
    m_textSize = 0;
    m_failed = !ok;
    return ok;
}

bool TraceWriter::drain() noexcept {
    TraceRecord record;
    // The cycle thread's records, then the watchdog's: the viewers order events by time.
    while (m_cycle.pop(record)) {
        append(record);
    }
    while (m_watchdog.pop(record)) {
        append(record);
    }
    const std::uint64_t dropped = this->dropped();
    if (dropped != m_droppedReported) {
        char text[160];
        const std::size_t n = formatCounter("trace records dropped", m_pid, platform::monotonicNow_ns(),
                                            static_cast<std::int64_t>(dropped) * 1000, text, sizeof(text));
        appendText(text, n);
        m_events.fetch_add(1, std::memory_order_relaxed);
        m_droppedReported = dropped;
    }
    return flush();
}

TraceTotals TraceWriter::close() noexcept {
    if (!m_closed) {
        {
            std::lock_guard lock(m_mutex);
            m_stopRequested = true;
        }
        m_wake.notify_one();
        if (m_thread.joinable()) {
            m_thread.join();
        }
        (void)drain();
        appendText("\n]\n", 3);
        (void)flush();
        if (m_file != nullptr) {
            m_failed = std::fclose(m_file) != 0 || m_failed;
            m_file = nullptr;
        }
        m_closed = true;
    }
    return TraceTotals{eventsWritten(), dropped()};
}

}  // namespace augur::runtime
