#include "augur/monitor/event_log.hpp"

#include <cerrno>
#include <cstring>

namespace augur::monitor {

const char* formatConditions(std::uint32_t conditions, char* out, std::size_t size) noexcept {
    std::size_t used = 0;
    out[0] = '\0';
    for (std::size_t i = 0; i < MONITOR_CONDITION_COUNT; ++i) {
        const std::uint32_t b = 1U << i;
        if ((conditions & b) == 0) {
            continue;
        }
        const int n = std::snprintf(out + used, size - used, "%s%s", used == 0 ? "" : "|",
                                    toString(static_cast<MonitorCondition>(b)));
        if (n < 0 || static_cast<std::size_t>(n) >= size - used) {
            break;  // cut short; snprintf left it NUL-terminated
        }
        used += static_cast<std::size_t>(n);
    }
    return out;
}

EventLog::~EventLog() {
    if (m_file != nullptr) {
        std::fclose(m_file);
    }
}

Result<void, std::string> EventLog::open(const std::string& path, LogFormat format) {
    m_file = std::fopen(path.c_str(), "w");
    if (m_file == nullptr) {
        return fail(path + ": " + std::strerror(errno));
    }
    m_format = format;
    if (format == LogFormat::Csv) {
        std::fputs("t_ns,event,condition,cycle,mode,cycle_us,age_ms,input_age_ms,misses,stage_overruns,"
                   "order_violations,missing_health,active\n",
                   m_file);
    }
    return {};
}

void EventLog::write(const char* event, const char* condition, const Supervisor& supervisor,
                     std::int64_t now_ns) noexcept {
    if (m_file == nullptr) {
        return;
    }
    char active[256];
    formatConditions(supervisor.active(), active, sizeof(active));
    const Health& h = supervisor.lastHealth();
    const SupervisorCounters& c = supervisor.counters();
    const std::int64_t age = supervisor.lastHealthAge_ns(now_ns);
    const double age_ms = age < 0 ? -1.0 : static_cast<double>(age) * 1e-6;
    const std::int64_t inputAge = supervisor.inputAge_ns();
    const double inputAge_ms = inputAge < 0 ? -1.0 : static_cast<double>(inputAge) * 1e-6;
    const auto t = static_cast<long long>(now_ns);
    const char* what = condition == nullptr ? "" : condition;
    const auto cycle = static_cast<unsigned long long>(h.cycle);
    const auto cycle_us = static_cast<double>(h.cycleLatency.last_us);
    const auto misses = static_cast<unsigned long long>(c.deadlineMisses);
    const auto overruns = static_cast<unsigned long long>(c.stageOverruns);
    const auto order = static_cast<unsigned long long>(c.orderViolations);
    const auto missing = static_cast<unsigned long long>(c.missingHealth);
    if (m_format == LogFormat::Csv) {
        std::fprintf(m_file, "%lld,%s,%s,%llu,%s,%.0f,%.1f,%.1f,%llu,%llu,%llu,%llu,%s\n", t, event, what, cycle,
                     toString(h.mode), cycle_us, age_ms, inputAge_ms, misses, overruns, order, missing, active);
    } else {
        std::fprintf(m_file,
                     "{\"t_ns\":%lld,\"event\":\"%s\",\"condition\":\"%s\",\"cycle\":%llu,\"mode\":\"%s\","
                     "\"cycle_us\":%.0f,\"age_ms\":%.1f,\"input_age_ms\":%.1f,\"misses\":%llu,"
                     "\"stage_overruns\":%llu,\"order_violations\":%llu,\"missing_health\":%llu,"
                     "\"active\":\"%s\"}\n",
                     t, event, what, cycle, toString(h.mode), cycle_us, age_ms, inputAge_ms, misses, overruns, order,
                     missing, active);
    }
}

void EventLog::writeChanges(std::uint32_t before, std::uint32_t after, const Supervisor& supervisor,
                            std::int64_t now_ns) noexcept {
    for (std::size_t i = 0; i < MONITOR_CONDITION_COUNT; ++i) {
        const std::uint32_t b = 1U << i;
        if ((before & b) != (after & b)) {
            write((after & b) != 0 ? "raise" : "clear", toString(static_cast<MonitorCondition>(b)), supervisor, now_ns);
        }
    }
}

void EventLog::flush() noexcept {
    if (m_file != nullptr) {
        std::fflush(m_file);
    }
}

}  // namespace augur::monitor
