#include "augur/runtime/trace.hpp"

#include <cstdio>

#include "augur/core/panic.hpp"

namespace augur::runtime {

TraceRing::TraceRing(std::size_t capacity) : m_capacity(capacity), m_events(new TraceEvent[capacity]) {
    AUGUR_ASSERT(capacity > 0, "TraceRing needs a capacity of at least one event");
}

void TraceRing::record(const TraceEvent& event) noexcept {
    m_events[m_next] = event;
    m_next = (m_next + 1) % m_capacity;
    if (m_size < m_capacity) {
        ++m_size;
    }
}

const TraceEvent& TraceRing::at(std::size_t i) const noexcept {
    AUGUR_ASSERT(i < m_size, "TraceRing::at out of range");
    const std::size_t oldest = m_size < m_capacity ? 0 : m_next;
    return m_events[(oldest + i) % m_capacity];
}

Result<void, std::string> TraceRing::writeChromeTrace(const std::string& path) const {
    std::FILE* file = std::fopen(path.c_str(), "w");
    if (file == nullptr) {
        return fail("cannot open trace file '" + path + "' for writing");
    }
    std::fputs("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n", file);
    std::fputs("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"cpu stages\"}},\n", file);
    std::fputs("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"gpu work\"}}", file);
    for (std::size_t i = 0; i < m_size; ++i) {
        const TraceEvent& e = at(i);
        std::fprintf(file,
                     ",\n{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,"
                     "\"args\":{\"cycle\":%llu}}",
                     toString(e.stage), e.track == TraceTrack::Gpu ? "gpu" : "cpu", static_cast<int>(e.track),
                     static_cast<double>(e.begin_ns) * 1e-3, static_cast<double>(e.end_ns - e.begin_ns) * 1e-3,
                     static_cast<unsigned long long>(e.cycle));
    }
    std::fputs("\n]}\n", file);
    const bool ok = std::fclose(file) == 0;
    if (!ok) {
        return fail("cannot write trace file '" + path + "'");
    }
    return {};
}

}  // namespace augur::runtime
