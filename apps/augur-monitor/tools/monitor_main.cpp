// augur-monitor: supervises a running augur-runtime from outside its process, over iceoryx.
//
//   augur-monitor --config FILE [--for DURATION] [--max-misses N] [--max-stage-overruns N]
//                 [--alive-periods K] [--pid PID] [--log FILE] [--log-format csv|json] [--quiet]
//
// Subscribes to the deployment's health topic, supervises it (augur/monitor/supervisor.hpp), publishes
// augur::MonitorAlarm on transport.monitor_alarm, writes the log, and draws the live table on a terminal.
// With --for it runs that long and its exit status is the verdict (docs/monitor.md):
//   0 pass, 1 fail (health missing, runtime gone, stages out of order, misses or stage overruns over the
//   limits), 2 bad command line, 3 init failed (configuration, RouDi), 4 RouDi lost while running.
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <fcntl.h>
#include <unistd.h>

#include "augur/config/loader.hpp"
#include "augur_cli.hpp"
#include "augur/monitor/event_log.hpp"
#include "augur/monitor/supervisor.hpp"
#include "augur/monitor/terminal_view.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/version.hpp"

namespace {

namespace cli = augur::apps::cli;
using augur::Health;
using augur::MonitorAlarm;
using augur::MonitorCondition;
using augur::monitor::Supervisor;

constexpr int EXIT_PASS = 0;
constexpr int EXIT_FAIL = 1;
constexpr int EXIT_INIT_FAILED = 3;
constexpr int EXIT_TRANSPORT_LOST = 4;
constexpr std::int64_t MS = 1'000'000;
constexpr std::int64_t VIEW_EVERY_NS = 1'000'000'000;
constexpr std::int64_t LOG_FLUSH_EVERY_NS = 1'000'000'000;

std::atomic<bool> g_stop{false};
extern "C" void onSignal(int /*signal*/) { g_stop.store(true, std::memory_order_relaxed); }

struct Options {
    std::string config;
    std::string duration;  ///< "" (until a signal) or e.g. 60s, 500ms, 2min
    std::int64_t maxMisses{-1};
    std::int64_t maxStageOverruns{-1};
    std::uint32_t alivePeriods{2};
    double startupTimeout_s{10.0};
    std::int64_t pid{0};
    std::string logPath;
    augur::monitor::LogFormat logFormat{augur::monitor::LogFormat::Csv};
    bool quiet{false};
    std::string name;
};

/// "60s", "500ms", "2min", "1h" or a bare number of seconds, in nanoseconds; -1 when malformed.
std::int64_t parseDuration(const std::string& text) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || !(value > 0.0) || value > 1e7) {
        return -1;
    }
    const std::string unit(end);
    double scale = 0.0;
    if (unit.empty() || unit == "s") {
        scale = 1e9;
    } else if (unit == "ms") {
        scale = 1e6;
    } else if (unit == "min") {
        scale = 60e9;
    } else if (unit == "h") {
        scale = 3600e9;
    } else {
        return -1;
    }
    return static_cast<std::int64_t>(value * scale);
}

/// Whether process `pid` still exists (a zombie counts as gone). Allocation-free: one open, read, close.
bool processExists(std::int64_t pid) noexcept {
    char path[64];
    std::snprintf(path, sizeof(path), "/proc/%lld/stat", static_cast<long long>(pid));
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);  // not fopen: that allocates its FILE
    if (fd < 0) {
        return false;
    }
    char text[256];
    const ssize_t n = ::read(fd, text, sizeof(text) - 1);
    ::close(fd);
    text[n > 0 ? n : 0] = '\0';
    const char* paren = std::strrchr(text, ')');  // the state follows the command name in parentheses
    return paren == nullptr || paren[1] == '\0' || paren[2] != 'Z';
}

/// CPU time of this process (user + system), nanoseconds.
std::int64_t processCpu_ns() noexcept {
    timespec t{};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return static_cast<std::int64_t>(t.tv_sec) * 1'000'000'000 + t.tv_nsec;
}

augur::platform::ServiceName serviceOf(const augur::config::Channel& channel) {
    return {channel.service, channel.instance, channel.event};
}

void printSummary(const Supervisor& sut, const Options& options, bool pass, double cpuShare) {
    const auto& c = sut.counters();
    const auto& cycle = sut.cycleHistogram();
    char active[256];
    char ever[256];
    std::printf("augur-monitor: %s: %llu health messages, %llu deadline misses (limit %s), %llu stage overruns "
                "(limit %s), %llu order violations, %llu missing health, %llu alive losses, %llu watchdog alarms, "
                "%llu restarts, cycle p50 %.2f ms p99 %.2f ms max %.2f ms, monitor cpu %.3f %% of a core; active: %s; "
                "ever raised: %s\n",
                pass ? "PASS" : "FAIL", static_cast<unsigned long long>(c.healthMessages),
                static_cast<unsigned long long>(c.deadlineMisses),
                options.maxMisses < 0 ? "none" : std::to_string(options.maxMisses).c_str(),
                static_cast<unsigned long long>(c.stageOverruns),
                options.maxStageOverruns < 0 ? "none" : std::to_string(options.maxStageOverruns).c_str(),
                static_cast<unsigned long long>(c.orderViolations), static_cast<unsigned long long>(c.missingHealth),
                static_cast<unsigned long long>(c.aliveLosses), static_cast<unsigned long long>(c.watchdogAlarms),
                static_cast<unsigned long long>(c.restarts), static_cast<double>(cycle.quantile_us(0.5)) * 1e-3,
                static_cast<double>(cycle.quantile_us(0.99)) * 1e-3, static_cast<double>(cycle.max_us()) * 1e-3,
                cpuShare * 100.0,
                sut.active() == 0 ? "none" : augur::monitor::formatConditions(sut.active(), active, sizeof(active)),
                sut.everRaised() == 0 ? "none"
                                      : augur::monitor::formatConditions(sut.everRaised(), ever, sizeof(ever)));
    std::fflush(stdout);
}

/// The verdict: no alive loss, no vanished runtime, no lost RouDi, stages in order, misses and stage
/// overruns within their limits.
bool verdict(const Supervisor& sut, const Options& options) {
    constexpr std::uint32_t FATAL = augur::bit(MonitorCondition::HealthMissing) |
                                    augur::bit(MonitorCondition::RuntimeGone) | augur::bit(MonitorCondition::RouDiLost);
    const auto& c = sut.counters();
    return (sut.everRaised() & FATAL) == 0 && c.orderViolations == 0 && c.healthMessages > 0 &&
           (options.maxMisses < 0 || c.deadlineMisses <= static_cast<std::uint64_t>(options.maxMisses)) &&
           (options.maxStageOverruns < 0 || c.stageOverruns <= static_cast<std::uint64_t>(options.maxStageOverruns));
}

/// The supervisor's settings: the deployment's period, deadline, budgets and input age, the options'
/// alive periods and start-up timeout.
augur::monitor::SupervisorSettings settingsOf(const augur::config::Deployment& d, const Options& options) {
    augur::monitor::SupervisorSettings settings;
    settings.period_ns = static_cast<std::int64_t>(d.runtime.cyclePeriod_ms) * MS;
    settings.deadline_ns = static_cast<std::int64_t>(d.runtime.deadline_ms) * MS;
    for (std::size_t i = 0; i < augur::STAGE_COUNT; ++i) {
        settings.stageBudget_ns[i] = static_cast<std::int64_t>(d.runtime.stageBudget_ms[i] * 1e6);
    }
    settings.maxInputAge_ns = static_cast<std::int64_t>(d.runtime.maxInputAge_ms) * MS;
    settings.alivePeriods = options.alivePeriods;
    settings.startupTimeout_ns = static_cast<std::int64_t>(options.startupTimeout_s * 1e9);
    return settings;
}

/// Every health message queued since the last poll, into the supervisor and the log.
void drainHealth(augur::platform::Subscriber<Health>& health, Supervisor& sut, augur::monitor::EventLog& log,
                 std::int64_t now) {
    for (;;) {
        auto sample = health.take();
        if (!sample) {
            break;  // NoData, or a payload of another type (released unread)
        }
        const std::uint32_t prior = sut.active();
        sut.onHealth(*sample.value(), now);
        log.write(sample.value()->overrunAlarm != 0 ? "alarm" : "health", nullptr, sut, now);
        log.writeChanges(prior, sut.active(), sut, now);
    }
}

/// One alarm message with the supervisor's state and the conditions raised since the last one; the
/// sequence counts the messages published.
void publishAlarm(augur::platform::Publisher<MonitorAlarm>& alarms, const Supervisor& sut, std::uint32_t raised,
                  std::uint64_t& sequence, std::int64_t now) {
    auto loan = alarms.loan();
    if (loan) {
        loan.value()->header.sequence = ++sequence;
        sut.fillAlarm(*loan.value().get(), raised, now);
        loan.value().publish();
    }
}

/// When the polling loop wakes next: a poll from `now`, the end of the run, or just after the alive due
/// time where that comes first, so that health_missing rises on time rather than up to a poll late.
std::int64_t nextWake(const Supervisor& sut, std::int64_t now, std::int64_t poll_ns, std::int64_t end) {
    const std::int64_t wake = std::min(now + poll_ns, end);
    const std::int64_t due = sut.aliveDue_ns() + 1;
    return due > now && due < wake ? due : wake;
}

/// The run phase: polls the health until --for ends, a signal, or RouDi is gone; publishes the alarms,
/// logs, shows the view; then the summary. The run phase: no allocation from here on. Returns the
/// exit status.
int supervise(const Options& options, const augur::monitor::SupervisorSettings& settings,
              augur::platform::Subscriber<Health>& health, augur::platform::Publisher<MonitorAlarm>& alarms,
              augur::monitor::EventLog& log, bool view, std::int64_t duration_ns) {
    const std::int64_t start = augur::platform::monotonicNow_ns();
    const std::int64_t cpuStart = processCpu_ns();
    const std::int64_t end = duration_ns > 0 ? start + duration_ns : INT64_MAX;
    // Polling: a tenth of a period, at most 10 ms, bounds the delay of every other condition.
    const std::int64_t poll_ns = std::min<std::int64_t>(settings.period_ns / 10, 10 * MS);
    Supervisor sut(settings, start);
    std::uint64_t alarmSequence = 0;
    std::int64_t nextAlarm = start;
    std::int64_t nextView = start;
    std::int64_t nextFlush = start + LOG_FLUSH_EVERY_NS;
    std::int64_t nextPidCheck = start;
    std::int64_t nextRouDiProbe = start + settings.period_ns;
    char screen[4096];
    bool rouDiLost = false;
    std::int64_t now = start;
    while (!g_stop.load(std::memory_order_relaxed) && now < end && !rouDiLost) {
        const std::uint32_t before = sut.active();
        now = augur::platform::monotonicNow_ns();
        drainHealth(health, sut, log, now);
        const std::uint32_t afterHealth = sut.active();
        sut.onTick(now);
        if (options.pid > 0 && now >= nextPidCheck) {
            sut.setRuntimeGone(!processExists(options.pid));
            nextPidCheck = now + settings.period_ns;
        }
        if (now >= nextRouDiProbe) {
            nextRouDiProbe = now + settings.period_ns;
            if (!augur::platform::registeredRouDiAlive()) {
                sut.setRouDiLost();
                rouDiLost = true;
            }
        }
        log.writeChanges(afterHealth, sut.active(), sut, now);
        const std::uint32_t raised = sut.takeRaised();
        if (!rouDiLost && (raised != 0 || sut.active() != before || now >= nextAlarm)) {
            publishAlarm(alarms, sut, raised, alarmSequence, now);
            nextAlarm = now + settings.period_ns;
        }
        if (raised != 0 && !view) {
            char names[256];
            std::fprintf(stderr, "augur-monitor: raised %s (cycle %llu, last health %.0f ms ago)\n",
                         augur::monitor::formatConditions(raised, names, sizeof(names)),
                         static_cast<unsigned long long>(sut.lastHealth().cycle),
                         static_cast<double>(sut.lastHealthAge_ns(now)) * 1e-6);
        }
        if (view && now >= nextView) {
            const std::size_t n = augur::monitor::renderView(sut, now, true, screen, sizeof(screen));
            std::fwrite(screen, 1, n, stdout);
            std::fflush(stdout);
            nextView = now + VIEW_EVERY_NS;
        }
        if (now >= nextFlush) {
            log.flush();
            nextFlush = now + LOG_FLUSH_EVERY_NS;
        }
        if (!rouDiLost) {
            augur::platform::sleepUntil_ns(nextWake(sut, now, poll_ns, end));
            now = augur::platform::monotonicNow_ns();
        }
    }
    const double cpuShare = static_cast<double>(processCpu_ns() - cpuStart) /
                            static_cast<double>(std::max<std::int64_t>(now - start, 1));
    const bool pass = verdict(sut, options);
    log.write("summary", nullptr, sut, now);
    log.flush();
    printSummary(sut, options, pass, cpuShare);
    if (rouDiLost) {
        std::fprintf(stderr, "augur-monitor: exit status %d: RouDi (the iceoryx daemon) is gone; the runtime's health "
                             "can no longer be seen\n", EXIT_TRANSPORT_LOST);
        std::fflush(nullptr);
        std::_Exit(EXIT_TRANSPORT_LOST);  // iceoryx's clean-up would wait for the gone RouDi
    }
    return pass ? EXIT_PASS : EXIT_FAIL;
}

int run(const Options& options) {
    const auto loaded = augur::config::loadDeployment(options.config);
    if (loaded.hasError()) {
        std::fprintf(stderr, "%s\n", augur::config::format(loaded.error()).c_str());
        return EXIT_INIT_FAILED;
    }
    const augur::config::Deployment& d = loaded.value();
    const std::int64_t duration_ns = options.duration.empty() ? 0 : parseDuration(options.duration);
    const augur::monitor::SupervisorSettings settings = settingsOf(d, options);

    augur::monitor::EventLog log;
    if (!options.logPath.empty()) {
        auto opened = log.open(options.logPath, options.logFormat);
        if (!opened) {
            std::fprintf(stderr, "augur-monitor: init failed: log %s\n", opened.error().c_str());
            return EXIT_INIT_FAILED;
        }
    }
    static_assert(static_cast<int>(augur::config::LogLevel::Debug) ==
                  static_cast<int>(augur::platform::TransportLogLevel::Debug));
    augur::platform::setTransportLogLevel(static_cast<augur::platform::TransportLogLevel>(d.output.logLevel));
    const std::string name = options.name.empty() ? d.transport.applicationName + "-monitor" : options.name;
    if (auto connected = augur::platform::connectToRouDi(name, d.transport.roudiConnectTimeout_ms); !connected) {
        std::fprintf(stderr, "augur-monitor: init failed: transport: %s (RouDi: iox-roudi -c config/roudi.toml)\n",
                     augur::platform::toString(connected.error()));
        std::fflush(nullptr);
        std::_Exit(EXIT_INIT_FAILED);  // iceoryx may hold a registration thread: no destructors
    }
    // Queue: a few periods of health (and alarms) between two polls at most.
    auto health = augur::platform::Subscriber<Health>::create(serviceOf(d.transport.health), 16, 0);
    auto alarms = augur::platform::Publisher<MonitorAlarm>::create(serviceOf(d.transport.monitorAlarm), 1);
    if (!health || !alarms) {
        std::fprintf(stderr, "augur-monitor: init failed: transport: %s\n",
                     augur::platform::toString(!health ? health.error() : alarms.error()));
        return EXIT_INIT_FAILED;
    }
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    const bool view = !options.quiet && isatty(STDOUT_FILENO) != 0;
    static char stdoutBuffer[8192];  // the view's buffer, given now rather than allocated at the first draw
    std::setvbuf(stdout, stdoutBuffer, _IOFBF, sizeof(stdoutBuffer));
    std::fprintf(stderr, "augur-monitor: supervising %s/%s/%s (period %u ms, deadline %u ms, alive %u periods)%s\n",
                 d.transport.health.service.c_str(), d.transport.health.instance.c_str(),
                 d.transport.health.event.c_str(), d.runtime.cyclePeriod_ms, d.runtime.deadline_ms,
                 options.alivePeriods, duration_ns > 0 ? "" : "; until SIGINT/SIGTERM");
    return supervise(options, settings, health.value(), alarms.value(), log, view, duration_ns);
}

}  // namespace

int main(int argc, char** argv) {
    Options options;
    CLI::App app{"augur-monitor: supervises a running augur-runtime from outside its process (alive, deadline, "
                 "stage budgets, stage order, input, mode, rejections, transport), publishes alarms on "
                 "transport.monitor_alarm, logs, and shows a live table. Exit status with --for: 0 pass, 1 fail, "
                 "2 bad command line, 3 init failed, 4 RouDi lost. docs/monitor.md"};
    cli::useConventions(app);
    app.add_option("--config", options.config, "The runtime's deployment file (YAML): topics, period, budgets");
    app.add_option("--for", options.duration, "Run this long, then exit with the verdict (60s, 500ms, 2min, 1h)");
    app.add_option("--max-misses", options.maxMisses, "Fail when more deadline misses are seen (default: no limit)")
        ->check(cli::integerIn(0, INT64_MAX));
    app.add_option("--max-stage-overruns", options.maxStageOverruns,
                   "Fail when more stage runs over budget are seen (default: no limit)")
        ->check(cli::integerIn(0, INT64_MAX));
    app.add_option("--alive-periods", options.alivePeriods,
                   "Cycle periods without a health message before health_missing")
        ->check(cli::integerIn(1, 1000))
        ->capture_default_str();
    app.add_option("--startup-timeout-s", options.startupTimeout_s, "Wait this long for the first health message")
        ->check(cli::numberIn(0.0, 3600.0, true))
        ->capture_default_str();
    app.add_option("--pid", options.pid, "The runtime's process id: runtime_gone once it no longer exists")
        ->check(cli::integerIn(1, INT32_MAX));
    app.add_option("--log", options.logPath, "Write the log (one line per health message and per change) to FILE");
    cli::addChoice(app, "--log-format", options.logFormat,
                   {{"csv", augur::monitor::LogFormat::Csv}, {"json", augur::monitor::LogFormat::Json}},
                   "Log format: CSV, or JSON Lines");
    app.add_flag("--quiet", options.quiet, "No live table (it is drawn only when standard output is a terminal)");
    app.add_option("--name", options.name, "iceoryx application name (default: transport.application_name-monitor)");
    const auto parsed = cli::parse(app, argc, argv);
    if (!parsed) {
        std::fprintf(stderr, "augur-monitor: %s\n", parsed.error().c_str());
        return cli::EXIT_USAGE;
    }
    if (parsed.value() == cli::Parsed::Help) {
        std::fputs(app.help().c_str(), stdout);
        return cli::EXIT_OK;
    }
    if (parsed.value() == cli::Parsed::Version) {
        std::puts(cli::versionLine(augur::runtime::backendsCompiledIn()).c_str());
        return cli::EXIT_OK;
    }
    if (options.config.empty()) {
        std::fprintf(stderr, "augur-monitor: --config is required\n");
        return cli::EXIT_USAGE;
    }
    if (!options.duration.empty() && parseDuration(options.duration) < 0) {
        std::fprintf(stderr, "augur-monitor: --for: '%s' is not a duration (60s, 500ms, 2min, 1h)\n",
                     options.duration.c_str());
        return cli::EXIT_USAGE;
    }
    return run(options);
}
