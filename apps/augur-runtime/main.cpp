// augur-runtime: the real-time intention and motion prediction runtime.
//
//   augur-runtime --config FILE [--config-sha256 HEX] [--cycles N] [--embedded-roudi] [--trace FILE]
//                                          run (until SIGINT/SIGTERM or N cycles)
//   augur-runtime --check FILE [--config-sha256 HEX]
//                                          validate and describe a deployment, print its files' SHA-256
//
// Exit status: 0 success, 2 invalid configuration (or a configuration file other than the pinned one),
// 3 init failed (map, backend, RouDi, real-time setup, application name in use; the reason on stderr),
// 4 transport lost (the RouDi this process registered with went away while running; iceoryx 2.0
// cannot register again, so the process ends for its supervisor to restart it), 64 bad command
// line. docs/design/runtime.md has the table.
#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "augur_cli.hpp"
#include "augur_version.hpp"

#include "augur/config/deployment_file.hpp"
#include "augur/config/loader.hpp"
#include "augur/config/schema.hpp"
#include "augur/platform/roudi.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/deployment_summary.hpp"
#include "augur/runtime/runtime.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "augur/runtime/version.hpp"

namespace {

constexpr int EXIT_INVALID_CONFIG = 2;
constexpr int EXIT_INIT_FAILED = 3;
constexpr int EXIT_TRANSPORT_LOST = 4;
constexpr int EXIT_USAGE = 64;  // EX_USAGE of sysexits.h

constexpr const char* USAGE =
    "usage: augur-runtime --config FILE [--config-sha256 HEX] [--cycles N] [--embedded-roudi] [--trace FILE]\n"
    "       augur-runtime --check FILE [--config-sha256 HEX]\n"
    "       augur-runtime --print-schema | --version | --help\n";

constexpr const char* FOOTER =
    "--config runs the deployment until SIGINT or SIGTERM (or N cycles): it subscribes to perception object\n"
    "lists and publishes tracks, intentions, motion predictions, platoons and health over iceoryx every\n"
    "cycle. With output.trace_path set (or --trace FILE) it writes a Chrome trace-event JSON trace as it\n"
    "runs (open it in ui.perfetto.dev or chrome://tracing; docs/design/runtime.md, \"The trace\").\n"
    "--check validates without running: it prints the SHA-256 of FILE and of its map (checked against\n"
    "map.sha256 if set) and the deployment FILE describes; the map file is checked but not parsed.\n"
    "\n"
    "Exit status: 0 success, 2 invalid configuration, 3 init failed (map, backend, RouDi absent or not\n"
    "answering within transport.roudi_connect_timeout_ms, application name in use, real-time setup; for\n"
    "--check: the map file refused), 4 transport lost (RouDi went away while running: restart\n"
    "augur-runtime once RouDi runs again), 64 bad command line.";

/// The command line, bound to the options of the CLI11 app.
struct CommandLine {
    std::string configPath;
    std::string checkPath;
    std::string expectedSha256;
    std::uint64_t cycles{0};
    std::string tracePath;  ///< --trace: overrides output.trace_path
    bool embeddedRouDi{false};
    bool printSchema{false};
};

/// Validator of --cycles: a positive integer.
CLI::Validator positiveInteger() {
    return CLI::Validator(
        [](std::string& text) {
            std::uint64_t value = 0;
            const char* end = text.data() + text.size();
            const auto [ptr, ec] = std::from_chars(text.data(), end, value);
            return ec == std::errc() && ptr == end && value > 0 ? std::string()
                                                                : "'" + text + "' is not a positive integer";
        },
        "");
}

/// Validator of --config-sha256: 64 hexadecimal digits.
CLI::Validator sha256Hex() {
    return CLI::Validator(
        [](std::string& text) {
            return augur::config::isSha256Hex(text) ? std::string() : "takes 64 hexadecimal digits";
        },
        "");
}

void describeOptions(CLI::App& app, CommandLine& c) {
    augur::apps::cli::useConventions(app);
    app.set_version_flag("--version", augur::apps::cli::versionLine(augur::runtime::backendsCompiledIn()),
                         "print the version, the commit and the compiled-in backends");
    app.footer(FOOTER);
    app.add_option("--config", c.configPath, "run the deployment FILE (YAML)")->type_name("FILE");
    app.add_option("--cycles", c.cycles, "with --config: stop after N cycles")->type_name("N")->check(positiveInteger());
    app.add_flag("--embedded-roudi", c.embeddedRouDi,
                 "with --config: start RouDi inside this process instead of connecting to iox-roudi");
    app.add_option("--trace", c.tracePath, "with --config: write the trace to FILE (instead of output.trace_path)")
        ->type_name("FILE");
    app.add_option("--config-sha256", c.expectedSha256,
                   "refuse (exit status 2) a configuration file whose SHA-256 is not HEX, as --check prints it")
        ->type_name("HEX")
        ->check(sha256Hex());
    app.add_option("--check", c.checkPath, "validate and describe the deployment FILE, print SHA-256s")
        ->type_name("FILE");
    app.add_flag("--print-schema", c.printSchema, "print every configuration key in Markdown (docs/configuration.md)");
}

/// The options given together that do not belong together, or an empty string.
std::string conflict(const CommandLine& c) {
    const bool runOptions = !c.configPath.empty() || c.cycles > 0 || c.embeddedRouDi || !c.tracePath.empty();
    const int modes = (runOptions ? 1 : 0) + (c.checkPath.empty() ? 0 : 1) + (c.printSchema ? 1 : 0);
    if (modes <= 1) {
        return {};
    }
    if (!c.checkPath.empty() && runOptions) {
        return "--check cannot be combined with --config, --cycles, --embedded-roudi or --trace";
    }
    return "--print-schema stands alone";
}

std::atomic<bool> g_stop{false};

extern "C" void onSignal(int /*signal*/) { g_stop.store(true, std::memory_order_relaxed); }

int usageError(const std::string& problem) {
    std::fprintf(stderr, "augur-runtime: %s\n%s", problem.c_str(), USAGE);
    return EXIT_USAGE;
}

/// The configuration file at `path`, refused unless its SHA-256 is `expectedSha256` (when not empty).
augur::Result<augur::config::LoadedDeployment, augur::config::ConfigError> load(const std::string& path,
                                                                               const std::string& expectedSha256) {
    return augur::config::loadDeploymentWithHash(path, expectedSha256);
}

int describeConfig(const std::string& path, const std::string& expectedSha256) {
    const auto loaded = load(path, expectedSha256);
    if (loaded.hasError()) {
        std::fprintf(stderr, "%s\n", augur::config::format(loaded.error()).c_str());
        return EXIT_INVALID_CONFIG;
    }
    const augur::config::Deployment& deployment = loaded.value().deployment;
    // Hashing the map reads it with the runtime's checks (regular file, map.max_bytes, map.sha256),
    // but does not parse it.
    const auto map = augur::runtime::scene::readMapFile(
        deployment.map.path, augur::runtime::scene::MapFileCheck{deployment.map.maxBytes, deployment.map.sha256});
    if (map.hasError()) {
        std::fprintf(stderr, "augur-runtime: map: %s\n", map.error().describe().c_str());
        return EXIT_INIT_FAILED;
    }
    std::printf("%s: valid\nsha256 %s  %s\nsha256 %s  %s\n%s", path.c_str(), loaded.value().sha256.c_str(),
                path.c_str(), map.value().sha256.c_str(), deployment.map.path.c_str(),
                augur::runtime::describeDeployment(deployment).c_str());
    return 0;
}

/// The fault AUGUR_FAULT_STAGE_DELAY=STAGE:MS injects for tests of the supervision (augur-monitor,
/// docs/monitor.md): every run of STAGE (ingest, track, ..., publish) is delayed by MS milliseconds.
/// Unset or empty: none. Returns false, with the reason on stderr, for a malformed value.
bool injectFaultsFromEnvironment(augur::runtime::Runtime& runtime) {
    const char* value = std::getenv("AUGUR_FAULT_STAGE_DELAY");
    if (value == nullptr || value[0] == '\0') {
        return true;
    }
    const std::string text(value);
    const std::size_t colon = text.find(':');
    char* end = nullptr;
    const long ms = colon == std::string::npos ? -1 : std::strtol(text.c_str() + colon + 1, &end, 10);
    for (std::size_t i = 0; i < augur::STAGE_COUNT && ms >= 0 && end != nullptr && *end == '\0'; ++i) {
        const auto stage = static_cast<augur::Stage>(i);
        if (text.compare(0, colon, augur::toString(stage)) == 0) {
            runtime.injectStageDelay(stage, static_cast<std::int64_t>(ms) * 1'000'000);
            std::fprintf(stderr, "augur-runtime: fault injected: stage %s delayed by %ld ms (AUGUR_FAULT_STAGE_DELAY)\n",
                         augur::toString(stage), ms);
            return true;
        }
    }
    std::fprintf(stderr, "augur-runtime: AUGUR_FAULT_STAGE_DELAY=%s: expected STAGE:MS (e.g. motion:250)\n", value);
    return false;
}

/// Ends the process at once with `status`, stderr and stdout flushed, running no destructors and no
/// atexit handlers: for states in which iceoryx's own clean-up would block or abort (see the callers).
[[noreturn]] void quickExit(int status) {
    std::fflush(nullptr);
    std::_Exit(status);
}

/// The exit status after a run; without destructors where iceoryx's clean-up would wait for a RouDi
/// that is gone.
int exitStatus(augur::runtime::RunOutcome outcome) {
    if (outcome == augur::runtime::RunOutcome::TransportLost) {
        std::fprintf(stderr, "augur-runtime: exit status %d: transport lost; restart augur-runtime once RouDi runs again\n",
                     EXIT_TRANSPORT_LOST);
        // No destructors: iceoryx's runtime would send its termination request to a RouDi that is gone
        // or new, and wait for an answer that may never come.
        quickExit(EXIT_TRANSPORT_LOST);
    }
    if (!augur::platform::registeredRouDiAlive()) {
        // Stopped, and RouDi went away since (a bench that started both was killed): the clean-up would
        // wait for it as above, and the process would outlive its stop.
        quickExit(0);
    }
    return 0;
}

/// How long the clean-up after a run may take. iceoryx's runtime tells RouDi that the process ends and
/// waits for the answer with no time-out; a RouDi that is itself shutting down at that moment (a bench
/// that started both was killed, and both got their stop signal at once) never answers.
constexpr std::chrono::seconds CLEANUP_DEADLINE{3};

/// Ends the process with `status` if the clean-up that follows (destructors, iceoryx's runtime) has not
/// ended it within CLEANUP_DEADLINE, so that no stopped runtime outlives its stop.
void armCleanupDeadline(int status) {
    std::thread([status] {
        std::this_thread::sleep_for(CLEANUP_DEADLINE);
        std::fprintf(stderr,
                     "augur-runtime: clean-up did not end within %lld s (RouDi does not answer); ending without it\n",
                     static_cast<long long>(CLEANUP_DEADLINE.count()));
        quickExit(status);
    }).detach();
}

/// Closes the trace (if one is written) and says where it went.
void closeTrace(augur::runtime::Runtime& runtime, const std::string& path) {
    if (!runtime.tracing()) {
        return;
    }
    const augur::runtime::TraceTotals totals = runtime.closeTrace();
    std::fprintf(stderr, "augur-runtime: trace written to %s: %llu events, %llu records dropped (trace rings full)\n",
                 path.c_str(), static_cast<unsigned long long>(totals.events),
                 static_cast<unsigned long long>(totals.dropped));
}

int run(const CommandLine& c) {
    const std::string& path = c.configPath;
    const auto loaded = load(path, c.expectedSha256);
    if (loaded.hasError()) {
        std::fprintf(stderr, "%s\n", augur::config::format(loaded.error()).c_str());
        return EXIT_INVALID_CONFIG;
    }
    augur::config::Deployment deployment = loaded.value().deployment;
    if (!c.tracePath.empty()) {
        deployment.output.tracePath = c.tracePath;
    }
    const std::uint64_t cycles = c.cycles;
    const bool embeddedRouDi = c.embeddedRouDi;
    std::unique_ptr<augur::platform::EmbeddedRouDi> roudi;
    augur::platform::setTransportLogLevel(static_cast<augur::platform::TransportLogLevel>(deployment.output.logLevel));
    if (embeddedRouDi) {
        auto started = augur::platform::EmbeddedRouDi::start(deployment.transport.applicationName);
        if (!started) {
            std::fprintf(stderr, "augur-runtime: init failed: embedded RouDi: %s\n",
                         augur::platform::toString(started.error()));
            return EXIT_INIT_FAILED;
        }
        roudi = std::move(started).value();
    }
    augur::runtime::RuntimeOptions options{};
    options.connectToRouDi = !embeddedRouDi;
    auto created = augur::runtime::Runtime::create(deployment, options);
    if (!created) {
        std::fprintf(stderr, "augur-runtime: init failed: %s: %s\n", augur::runtime::toString(created.error().kind),
                     created.error().message.c_str());
        if (augur::platform::registrationAbandoned()) {
            // A thread is still blocked in iceoryx's registration with a RouDi that does not answer;
            // iceoryx would abort the process after its own 60 s, and destructors of its static state
            // would run under that thread.
            quickExit(EXIT_INIT_FAILED);
        }
        return EXIT_INIT_FAILED;
    }
    augur::runtime::Runtime& runtime = *created.value();
    if (!injectFaultsFromEnvironment(runtime)) {
        return EXIT_USAGE;
    }
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    std::fprintf(stderr, "augur-runtime: running %s (period %u ms)\n", path.c_str(), deployment.runtime.cyclePeriod_ms);
    const augur::runtime::RunOutcome outcome = runtime.run(g_stop, cycles);

    const auto& executor = runtime.executor();
    const auto latency = executor.cycleLatency();
    const auto& counters = runtime.counters();
    std::uint64_t rejected = 0;
    for (const auto r : counters.rejections) {
        rejected += r;
    }
    std::fprintf(stderr,
                 "augur-runtime: stopped after %llu cycles: %llu deadline misses; over the last %llu cycles "
                 "p50 %.0f us p99 %.0f us max %.0f us; %llu lists accepted, %llu rejected, %llu loan failures, "
                 "mode %s\n",
                 static_cast<unsigned long long>(executor.cycles()),
                 static_cast<unsigned long long>(executor.deadlineMisses()),
                 static_cast<unsigned long long>(
                     std::min<std::uint64_t>(executor.cycles(), deployment.runtime.healthWindowCycles)),
                 static_cast<double>(latency.p50_us), static_cast<double>(latency.p99_us),
                 static_cast<double>(latency.max_us),
                 static_cast<unsigned long long>(counters.accepted), static_cast<unsigned long long>(rejected),
                 static_cast<unsigned long long>(counters.loanFailures), augur::toString(executor.ladder().mode()));
    closeTrace(runtime, deployment.output.tracePath);
    const int status = exitStatus(outcome);
    armCleanupDeadline(status);
    return status;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        return usageError("no option given");
    }
    CLI::App app("augur-runtime: real-time intention and motion prediction.", "augur-runtime");
    CommandLine c;
    describeOptions(app, c);
    const auto parsed = augur::apps::cli::parse(app, argc, argv);
    if (parsed.hasError()) {
        return usageError(parsed.error());
    }
    if (parsed.value() == augur::apps::cli::Parsed::Help) {
        std::fputs(app.help().c_str(), stdout);
        return 0;
    }
    if (const std::string problem = conflict(c); !problem.empty()) {
        return usageError(problem);
    }
    if (parsed.value() == augur::apps::cli::Parsed::Version) {
        std::puts(augur::apps::cli::versionLine(augur::runtime::backendsCompiledIn()).c_str());
        return 0;
    }
    if (c.printSchema) {
        std::fputs(augur::config::renderSchemaMarkdown().c_str(), stdout);
        return 0;
    }
    if (!c.checkPath.empty()) {
        return describeConfig(c.checkPath, c.expectedSha256);
    }
    if (c.configPath.empty()) {
        return usageError("--config FILE is required");
    }
    return run(c);
}
