#include "augur/monitor/terminal_view.hpp"

#include <cstdarg>
#include <cstdio>

#include "augur/monitor/event_log.hpp"

namespace augur::monitor {

namespace {

/// Appends to a fixed buffer; output past the end is dropped.
class Writer {
public:
    Writer(char* out, std::size_t size) noexcept : m_out(out), m_size(size) { m_out[0] = '\0'; }
    __attribute__((format(printf, 2, 3))) void add(const char* format, ...) noexcept {
        if (m_used + 1 >= m_size) {
            return;
        }
        va_list args;
        va_start(args, format);
        const int n = std::vsnprintf(m_out + m_used, m_size - m_used, format, args);
        va_end(args);
        if (n > 0) {
            const auto written = static_cast<std::size_t>(n);
            m_used = written < m_size - m_used ? m_used + written : m_size - 1;
        }
    }
    [[nodiscard]] std::size_t used() const noexcept { return m_used; }

private:
    char* m_out;
    std::size_t m_size;
    std::size_t m_used{0};
};

double ms(float us) noexcept { return static_cast<double>(us) * 1e-3; }

}  // namespace

std::size_t renderView(const Supervisor& supervisor, std::int64_t now_ns, bool ansi, char* out,
                       std::size_t size) noexcept {
    Writer w(out, size);
    if (ansi) {
        w.add("\033[H\033[2J");
    }
    const Health& h = supervisor.lastHealth();
    const SupervisorCounters& c = supervisor.counters();
    const SupervisorSettings& s = supervisor.settings();
    const std::int64_t age = supervisor.lastHealthAge_ns(now_ns);
    w.add("augur-monitor  cycle %llu  mode %s  ", static_cast<unsigned long long>(h.cycle), toString(h.mode));
    if (age < 0) {
        w.add("no health yet");
    } else {
        w.add("last health %.0f ms ago", static_cast<double>(age) * 1e-6);
    }
    if (supervisor.inputAge_ns() >= 0) {
        w.add("  input age %.0f ms", static_cast<double>(supervisor.inputAge_ns()) * 1e-6);
    }
    w.add("  %s\n", supervisor.active() == 0 ? "OK" : "ALARM");
    w.add("%-10s %10s %9s %9s %9s %12s\n", "stage", "budget ms", "p50 ms", "p99 ms", "max ms", "over budget");
    for (std::size_t i = 0; i < STAGE_COUNT; ++i) {
        const LatencyHistogram& hist = supervisor.stageHistogram(static_cast<Stage>(i));
        w.add("%-10s %10.1f %9.2f %9.2f %9.2f %12llu\n", toString(static_cast<Stage>(i)),
              static_cast<double>(s.stageBudget_ns[i]) * 1e-6, ms(hist.quantile_us(0.5)), ms(hist.quantile_us(0.99)),
              ms(hist.max_us()), static_cast<unsigned long long>(c.stageOverrunsByStage[i]));
    }
    const LatencyHistogram& cycle = supervisor.cycleHistogram();
    w.add("%-10s %10.1f %9.2f %9.2f %9.2f   misses %llu\n", "cycle", static_cast<double>(s.deadline_ns) * 1e-6,
          ms(cycle.quantile_us(0.5)), ms(cycle.quantile_us(0.99)), ms(cycle.max_us()),
          static_cast<unsigned long long>(c.deadlineMisses));
    w.add("counters: health %llu, watchdog alarms %llu, missing %llu, alive losses %llu, order violations %llu, "
          "restarts %llu, rejected %llu, loan failures %llu, mode changes %llu\n",
          static_cast<unsigned long long>(c.healthMessages), static_cast<unsigned long long>(c.watchdogAlarms),
          static_cast<unsigned long long>(c.missingHealth), static_cast<unsigned long long>(c.aliveLosses),
          static_cast<unsigned long long>(c.orderViolations), static_cast<unsigned long long>(c.restarts),
          static_cast<unsigned long long>(c.rejections), static_cast<unsigned long long>(c.loanFailures),
          static_cast<unsigned long long>(c.modeChanges));
    char active[256];
    w.add("active: %s\n", supervisor.active() == 0 ? "none" : formatConditions(supervisor.active(), active, sizeof(active)));
    return w.used();
}

}  // namespace augur::monitor
