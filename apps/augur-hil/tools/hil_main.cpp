// augur-hil — the hardware-in-the-loop bench.
//
//   augur-hil run  [options]   replay into an augur-runtime that is already running (RouDi up), record, score
//   augur-hil demo [options]   everything end to end: start RouDi and augur-runtime, replay, stop them, score,
//                              write the report and print its summary
//   augur-hil suite [options]  scenarios generated from seeds with SUMO, one demo each (in parallel, each in
//                              its own IPC and mount namespace), one table, figure and JUnit file
//                              (apps/augur-hil/tools/hil_suite.py, docs/hil-bench.md)
//
// The scenario's object lists (perception emulation, perception_emulator.hpp) go to the runtime through
// iceoryx on absolute monotonic deadlines (replay.hpp); every output message is recorded and scored
// against the ground truth afterwards (bench_scoring.hpp); the run files (docs/hil-run-format.md) go to
// --out and apps/augur-hil/report/hil_report.py turns them into OUT/report/summary.md and PNG figures.
// Exit status: 0 the acceptance thresholds held, 1 a threshold did not hold, 2 bad command line,
// 3 setup failed (scenario, configuration, RouDi, runtime did not come up), 4 the runtime or the report
// writer failed during the run.
#include <unistd.h>

#include <memory>

#include <atomic>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "augur/config/loader.hpp"
#include "augur/hil/bench_scoring.hpp"
#include "augur/hil/child_process.hpp"
#include "augur/hil/lane_following.hpp"
#include "augur/hil/perception_emulator.hpp"
#include "augur/hil/replay.hpp"
#include "augur/hil/run_record.hpp"
#include "augur/hil/scenario.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/host_info.hpp"
#include "augur/platform/gpu_info.hpp"
#include "augur/platform/roudi.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "augur_version.hpp"

namespace {

namespace fs = std::filesystem;
using namespace augur;
using namespace augur::hil;

constexpr int EXIT_HELD = 0;
constexpr int EXIT_NOT_HELD = 1;
constexpr int EXIT_USAGE = 2;
constexpr int EXIT_SETUP = 3;
constexpr int EXIT_RUN_FAILED = 4;

constexpr std::int64_t NS_PER_MS = 1'000'000;
constexpr std::int64_t NS_PER_S = 1'000'000'000;
constexpr const char* APP_NAME = "augur-hil";
constexpr std::int64_t CONNECT_TIMEOUT_MS = 10'000;
constexpr std::int64_t RUNTIME_STOP_WAIT_MS = 10'000;
constexpr std::int64_t ROUDI_STOP_WAIT_MS = 5'000;

constexpr const char* USAGE = R"(usage: augur-hil run|demo [options]
       augur-hil suite [suite options]   (augur-hil suite --help)

  run    replay into an augur-runtime that is already running, record its outputs, score, report
  demo   start RouDi and augur-runtime, then do what `run` does, then stop both
  suite  generate scenarios from seeds (SUMO), run demo on each, one table, figure and JUnit file

options (defaults in brackets):
  --config FILE             the runtime's deployment: channels, deadline [config/default.yaml]
  --scenario DIR            scenario directory [data/scenarios/intersection-4way]
  --out DIR                 run directory for the run files and report/ [hil-run]
  --start-s S               replay from scenario time S [0]
  --duration-s D            replay D seconds of the scenario [all]
  --warm-up-s W             score nothing made in the replay's first W seconds (tracks settle) [0]
  --speed F                 replay speed relative to real time, > 0 [1]
  --ego-id N                the ego vehicle's scenario id [the road user present longest]
  --range-m R               sensor range [80]
  --std-position-m S        position noise per axis [0.3]
  --std-heading-rad S       heading noise [0.05]
  --std-speed-mps S         speed noise [0.3]
  --dropout P               dropout probability per object and list [0.05]
  --false-id P              id-switch probability per object and list (1: every id, every list) [0.01]
  --new-id-on-reappearance  an object back after a gap (dropout, range) gets a fresh id
  --id-shuffle P            probability per list that its ids are permuted among its objects [0]
  --no-ids                  a fresh, meaningless id for every object of every list
  --clutter-rate R          mean false objects per list (Poisson, uniform in range) [0]
  --perception-seed N       perception noise seed [1]
  --occupancy-threshold P   occupancy hit threshold [0.01]
  --max-deadline-misses N   acceptance: at most N deadline misses [0]
  --max-ade-4s M            acceptance: our ADE at 4 s at most M metres [not checked]
  --no-acceptance           check no threshold
  --wait-runtime-s S        how long to wait for the runtime's first cycle [30]
  --no-report               write the run files only (no python3 report)
  --no-lane-following       do not score the lane-following baseline (it reads the scenario's map)
  --quiet                   no progress line during the replay
  --python PATH             interpreter for the report writer (needs matplotlib) [Debian's python3]
demo only:
  --runtime PATH            the augur-runtime program [next to this program's build folder]
  --roudi iox-roudi|embedded
                            RouDi as the iox-roudi daemon (-c config/roudi.toml) or inside augur-hil
                            [iox-roudi when it is on PATH, else embedded]
  --roudi-wait-s S          wait this long for another RouDi on this machine to end [120]
  --runtime-log FILE        the runtime's stderr [OUT/runtime.log]
  --trace FILE              the runtime records its trace to FILE (augur-runtime --trace): Chrome
                            trace-event JSON for ui.perfetto.dev [none, or output.trace_path]
)";

std::atomic<bool> g_stop{false};
extern "C" void onSignal(int /*signal*/) { g_stop.store(true, std::memory_order_relaxed); }

/// The iox-roudi daemon of `demo`. It is stopped at exit, by a handler registered before this process
/// connects to it: handlers run in reverse order of registration, so iceoryx's runtime singleton (made
/// at connection) deregisters first and RouDi then shuts down at once instead of waiting for it.
ChildProcess g_roudi;
extern "C" void stopRouDiAtExit() {
    if (g_roudi.pid() > 0) {
        const int status = g_roudi.stop(SIGINT, ROUDI_STOP_WAIT_MS);
        std::fprintf(stderr, "augur-hil: iox-roudi stopped (status %d)\n", status);
    }
}

struct Options {
    bool demo{false};
    std::string config{std::string(AUGUR_HIL_SOURCE_DIR) + "/config/default.yaml"};
    std::string scenario{std::string(AUGUR_HIL_SOURCE_DIR) + "/data/scenarios/intersection-4way"};
    std::string out{"hil-run"};
    double start_s{0.0};
    std::optional<double> duration_s;
    double warmUp_s{0.0};
    bool laneFollowing{true};
    bool quiet{false};
    double speed{1.0};
    std::optional<std::uint32_t> egoId;
    PerceptionConfig perception{};
    double occupancyThreshold{0.01};
    Acceptance acceptance{std::uint64_t{0}, std::nullopt};
    double waitRuntime_s{30.0};
    bool report{true};
    std::string python{AUGUR_HIL_PYTHON3};
    std::string runtime;
    std::string roudi;
    double roudiWait_s{120.0};
    std::string runtimeLog;
    std::string trace;  ///< demo: passed to augur-runtime as --trace
    std::string commandLine;
};

bool parseDouble(const char* text, double& out) {
    char* end = nullptr;
    out = std::strtod(text, &end);
    return end != text && *end == '\0' && std::isfinite(out);
}

bool parseUnsigned(const char* text, std::uint64_t& out) {
    char* end = nullptr;
    if (*text == '-') return false;
    out = std::strtoull(text, &end, 10);
    return end != text && *end == '\0';
}

// long-function: one branch per command-line option, read as a table
std::optional<Options> parse(int argc, char** argv) {
    Options o;
    for (int i = 0; i < argc; ++i) {
        o.commandLine += (i ? " " : "") + std::string(argv[i]);
    }
    if (argc < 2) return std::nullopt;
    const std::string_view mode = argv[1];
    if (mode == "demo") {
        o.demo = true;
    } else if (mode != "run") {
        return std::nullopt;
    }
    for (int i = 2; i < argc; ++i) {
        const std::string_view arg = argv[i];
        const bool hasValue = i + 1 < argc;
        const char* value = hasValue ? argv[i + 1] : "";
        double d = 0.0;
        std::uint64_t u = 0;
        auto number = [&](double& target, double min) {
            if (!hasValue || !parseDouble(value, d) || d < min) return false;
            target = d;
            ++i;
            return true;
        };
        auto probability = [&](float& target) {
            if (!hasValue || !parseDouble(value, d) || d < 0.0 || d > 1.0) return false;
            target = static_cast<float>(d);
            ++i;
            return true;
        };
        auto nonNegativeFloat = [&](float& target) {
            if (!hasValue || !parseDouble(value, d) || d < 0.0) return false;
            target = static_cast<float>(d);
            ++i;
            return true;
        };
        auto text = [&](std::string& target) {
            if (!hasValue) return false;
            target = value;
            ++i;
            return true;
        };
        bool ok = true;
        if (arg == "--config") ok = text(o.config);
        else if (arg == "--scenario") ok = text(o.scenario);
        else if (arg == "--out") ok = text(o.out);
        else if (arg == "--start-s") ok = number(o.start_s, 0.0);
        else if (arg == "--duration-s") { double v = 0; ok = number(v, 0.0) && v > 0.0; o.duration_s = v; }
        else if (arg == "--warm-up-s") ok = number(o.warmUp_s, 0.0);
        else if (arg == "--no-lane-following") o.laneFollowing = false;
        else if (arg == "--quiet") o.quiet = true;
        else if (arg == "--speed") { ok = number(o.speed, 0.0) && o.speed > 0.0; }
        else if (arg == "--ego-id") { ok = hasValue && parseUnsigned(value, u) && u > 0 && u <= UINT32_MAX; o.egoId = static_cast<std::uint32_t>(u); ++i; }
        else if (arg == "--range-m") { ok = nonNegativeFloat(o.perception.range_m) && o.perception.range_m > 0.0F; }
        else if (arg == "--std-position-m") ok = nonNegativeFloat(o.perception.stdPosition_m);
        else if (arg == "--std-heading-rad") ok = nonNegativeFloat(o.perception.stdHeading_rad);
        else if (arg == "--std-speed-mps") ok = nonNegativeFloat(o.perception.stdSpeed_mps);
        else if (arg == "--dropout") ok = probability(o.perception.dropoutProbability);
        else if (arg == "--false-id") ok = probability(o.perception.falseIdProbability);
        else if (arg == "--new-id-on-reappearance") o.perception.newIdOnReappearance = true;
        else if (arg == "--id-shuffle") ok = probability(o.perception.idShuffleProbability);
        else if (arg == "--no-ids") o.perception.noIds = true;
        else if (arg == "--clutter-rate") ok = nonNegativeFloat(o.perception.clutterRate) && o.perception.clutterRate <= 128.0F;
        else if (arg == "--perception-seed") { ok = hasValue && parseUnsigned(value, u); o.perception.seed = u; ++i; }
        else if (arg == "--occupancy-threshold") { ok = number(o.occupancyThreshold, 0.0) && o.occupancyThreshold <= 1.0; }
        else if (arg == "--max-deadline-misses") { ok = hasValue && parseUnsigned(value, u); o.acceptance.maxDeadlineMisses = u; ++i; }
        else if (arg == "--max-ade-4s") { double v = 0; ok = number(v, 0.0); o.acceptance.maxAde4s_m = v; }
        else if (arg == "--no-acceptance") o.acceptance = Acceptance{};
        else if (arg == "--wait-runtime-s") ok = number(o.waitRuntime_s, 0.0);
        else if (arg == "--no-report") o.report = false;
        else if (arg == "--python") ok = text(o.python);
        else if (o.demo && arg == "--runtime") ok = text(o.runtime);
        else if (o.demo && arg == "--roudi") { ok = text(o.roudi) && (o.roudi == "iox-roudi" || o.roudi == "embedded"); }
        else if (o.demo && arg == "--roudi-wait-s") ok = number(o.roudiWait_s, 0.0);
        else if (o.demo && arg == "--runtime-log") ok = text(o.runtimeLog);
        else if (o.demo && arg == "--trace") ok = text(o.trace) && !o.trace.empty();
        else ok = false;
        if (!ok) {
            std::fprintf(stderr, "augur-hil: bad or incomplete option %s\n", argv[i]);
            return std::nullopt;
        }
    }
    return o;
}

platform::ServiceName serviceOf(const config::Channel& c) { return {c.service, c.instance, c.event}; }

/// The road user present in the most steps of [first, end) (lowest id on ties).
std::uint32_t longestPresent(const Scenario& scenario, std::size_t first, std::size_t end) {
    std::vector<std::size_t> steps;
    for (std::size_t s = first; s < end; ++s) {
        for (const auto& state : scenario.frame(s)) {
            if (state.id >= steps.size()) steps.resize(state.id + 1, 0);
            ++steps[state.id];
        }
    }
    std::uint32_t best = 0;
    for (std::size_t id = 1; id < steps.size(); ++id) {
        if (steps[id] > steps[best]) best = static_cast<std::uint32_t>(id);
    }
    return best;
}

std::string utcNow() {
    const std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    char buffer[32];
    std::strftime(buffer, sizeof buffer, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buffer;
}

std::string cpuModel() {
    return platform::cpuModel() + ", " + std::to_string(std::thread::hardware_concurrency()) + " cores";
}

std::string gpuName() {
    const auto gpu = platform::queryGpu(0);
    return gpu ? std::string(gpu.value().name) : std::string("CUDA device");
}

fs::path selfDirectory() {
    std::error_code error;
    const fs::path self = fs::read_symlink("/proc/self/exe", error);
    return error ? fs::current_path() : self.parent_path();
}

/// Waits until no RouDi listens on this machine (another bench or a test suite's), up to `wait_s`.
bool waitForNoRouDi(double wait_s) {
    const std::int64_t end = platform::monotonicNow_ns() + static_cast<std::int64_t>(wait_s * 1e9);
    bool announced = false;
    while (platform::rouDiListening()) {
        if (g_stop.load() || platform::monotonicNow_ns() >= end) return false;
        if (!announced) {
            std::fprintf(stderr, "augur-hil: another RouDi runs on this machine; waiting up to %.0f s for it to end\n", wait_s);
            announced = true;
        }
        platform::sleepUntil_ns(platform::monotonicNow_ns() + 200 * NS_PER_MS);
    }
    return true;
}

/// Starts iox-roudi as a child and waits until it is the RouDi listening on this machine (or in this
/// IPC and mount namespace). iceoryx 2.0 allows one RouDi: another one started between our check and
/// our start (a test suite's, another bench's) makes ours abort (status 134), so a RouDi that exits
/// before it is up, or within ROUDI_SETTLE_MS of coming up, is waited out and started again until
/// `wait_s` has passed. This process connects only once its own RouDi has settled.
bool startRouDi(const std::string& toml, double wait_s) {
    constexpr std::int64_t ROUDI_SETTLE_MS = 300;
    const std::int64_t end = platform::monotonicNow_ns() + static_cast<std::int64_t>(wait_s * 1e9);
    for (int attempt = 1;; ++attempt) {
        const double left_s = static_cast<double>(end - platform::monotonicNow_ns()) / 1e9;
        if (!waitForNoRouDi(std::max(0.0, left_s))) {
            std::fprintf(stderr, "augur-hil: another RouDi still runs on this machine after %.0f s\n", wait_s);
            return false;
        }
        auto started = ChildProcess::spawn({"iox-roudi", "-c", toml});
        if (!started) {
            std::fprintf(stderr, "augur-hil: %s\n", started.error().c_str());
            return false;
        }
        g_roudi = std::move(started).value();
        if (attempt == 1) std::atexit(stopRouDiAtExit);
        std::fprintf(stderr, "augur-hil: started iox-roudi -c %s (pid %d)\n", toml.c_str(), g_roudi.pid());
        bool up = false;
        const std::int64_t upBy = platform::monotonicNow_ns() + CONNECT_TIMEOUT_MS * NS_PER_MS;
        while (g_roudi.running() && !g_stop.load() && platform::monotonicNow_ns() < upBy) {
            if (platform::rouDiListening()) {
                platform::sleepUntil_ns(platform::monotonicNow_ns() + ROUDI_SETTLE_MS * NS_PER_MS);
                up = g_roudi.running();
                break;
            }
            platform::sleepUntil_ns(platform::monotonicNow_ns() + 20 * NS_PER_MS);
        }
        if (up) return true;
        if (g_stop.load()) return false;
        if (g_roudi.running()) {
            std::fprintf(stderr, "augur-hil: iox-roudi did not come up within %lld ms\n",
                         static_cast<long long>(CONNECT_TIMEOUT_MS));
            return false;
        }
        std::fprintf(stderr, "augur-hil: iox-roudi exited (status %d): another RouDi took this machine; retrying\n",
                     g_roudi.exitStatus().value_or(-1));
        g_roudi = ChildProcess{};
        if (platform::monotonicNow_ns() >= end) return false;
        platform::sleepUntil_ns(platform::monotonicNow_ns() + 250 * NS_PER_MS * attempt);
    }
}

/// At 4 s, ours against the lane-following (LF) and constant-velocity (CV) baselines on the same samples,
/// split by the runtime mode the predictions were made in: weighted FDE (the probability-weighted path),
/// minFDE over the published modes, miss rate.
void printByMode(const BenchScore& score) {
    constexpr std::size_t AT_4S = 3;
    const auto value = [](const std::vector<HorizonErrors>& rows, double HorizonErrors::*field) {
        return rows.size() > AT_4S ? rows[AT_4S].*field : std::nan("");
    };
    std::printf("\nAt 4 s by runtime mode (ours | lane following | constant velocity, on the same samples):\n\n"
                "| mode | samples | weighted FDE (m) | minFDE (m) | miss rate |\n| --- | ---: | --- | --- | --- |\n");
    for (const ModeHorizonErrors& m : score.byMode) {
        if (m.ours.size() > AT_4S && m.ours[AT_4S].samples > 0) {
            std::printf("| %s | %zu | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f | %.2f / %.2f / %.2f |\n",
                        augur::toString(m.mode), m.ours[AT_4S].samples, value(m.ours, &HorizonErrors::weightedFde_m),
                        value(m.lf, &HorizonErrors::weightedFde_m), value(m.cv, &HorizonErrors::weightedFde_m),
                        value(m.ours, &HorizonErrors::minFde_m), value(m.lf, &HorizonErrors::minFde_m),
                        value(m.cv, &HorizonErrors::minFde_m), value(m.ours, &HorizonErrors::missRate),
                        value(m.lf, &HorizonErrors::missRate), value(m.cv, &HorizonErrors::missRate));
        }
    }
    std::printf("\n");
}

/// Waits up to --wait-runtime-s for the runtime's first cycle; in demo mode, fails when the runtime
/// child exits first. Returns 0 once a cycle was seen, else the exit status.
int waitForRuntimeCycle(const Options& o, const config::TransportConfig& t, BenchIo& io, ChildProcess* runtime) {
    std::fprintf(stderr, "augur-hil: waiting for the runtime (service %s/%s/%s)\n", t.objects.service.c_str(),
                 t.objects.instance.c_str(), t.objects.event.c_str());
    const std::int64_t waitEnd = platform::monotonicNow_ns() + static_cast<std::int64_t>(o.waitRuntime_s * 1e9);
    bool up = false;
    while (!up && !g_stop.load() && platform::monotonicNow_ns() < waitEnd) {
        if (runtime != nullptr && !runtime->running()) {
            std::fprintf(stderr, "augur-hil: augur-runtime exited with status %d before its first cycle\n",
                         runtime->exitStatus().value_or(-1));
            return EXIT_SETUP;
        }
        up = waitForRuntime(io, 250 * NS_PER_MS, g_stop);
    }
    if (!up) {
        std::fprintf(stderr, "augur-hil: no runtime cycle seen within %.0f s (is augur-runtime running with %s?)\n",
                     o.waitRuntime_s, o.config.c_str());
        return EXIT_SETUP;
    }
    return 0;
}

/// Demo mode: stops the runtime child after the replay, so that its own summary covers the recorded
/// cycles only. Returns 0 when it ran to the end and stopped cleanly, else the exit status.
int stopRuntime(ChildProcess* runtime) {
    if (runtime != nullptr) {
        if (!runtime->running()) {
            std::fprintf(stderr, "augur-hil: augur-runtime exited during the replay (status %d)\n",
                         runtime->exitStatus().value_or(-1));
            return EXIT_RUN_FAILED;
        }
        const int status = runtime->stop(SIGINT, RUNTIME_STOP_WAIT_MS);
        std::fprintf(stderr, "augur-hil: augur-runtime stopped (status %d)\n", status);
        if (status != 0) {
            return EXIT_RUN_FAILED;
        }
    }
    return 0;
}

/// What run.json records: the scenario, the device, the command, the acceptance thresholds, the
/// replay window and the perception emulation's settings.
RunInfo runInfoOf(const Options& o, const Scenario& scenario, const PerceptionConfig& perception,
                  const BenchScore& score, const Verdict& verdict, const ScoringOptions& scoring, std::size_t first,
                  std::size_t end) {
    RunInfo info;
    info.scenario = scenario.name();
    info.scenarioDir = fs::absolute(o.scenario).lexically_normal().string();
    info.mapPath = scenario.mapPath();
    info.backend = score.backendIsCuda ? "cuda" : "cpu";
    info.device = score.backendIsCuda ? gpuName() : cpuModel();
    info.date = utcNow();
    info.command = o.commandLine;
    info.deadline_us = scoring.deadline_us;
    info.speedFactor = o.speed;
    info.maxDeadlineMisses = o.acceptance.maxDeadlineMisses;
    info.maxAde4s_m = o.acceptance.maxAde4s_m;
    const auto& p = perception;
    info.extra = {{"ego_id", std::to_string(p.egoId)},
                  {"replay_start_s", std::to_string(o.start_s)},
                  {"replay_duration_s", std::to_string(static_cast<double>(end - first) * scenario.step_s())},
                  {"warm_up_s", std::to_string(o.warmUp_s)},
                  {"lane_following",
                   scoring.laneFollowing != nullptr ? std::string("scored") : std::string("not scored")},
                  {"perception_seed", std::to_string(p.seed)},
                  {"perception_range_m", std::to_string(p.range_m)},
                  {"perception_std_position_m", std::to_string(p.stdPosition_m)},
                  {"perception_std_heading_rad", std::to_string(p.stdHeading_rad)},
                  {"perception_std_speed_mps", std::to_string(p.stdSpeed_mps)},
                  {"perception_dropout", std::to_string(p.dropoutProbability)},
                  {"perception_false_id", std::to_string(p.falseIdProbability)},
                  {"perception_new_id_on_reappearance", p.newIdOnReappearance ? "1" : "0"},
                  {"perception_id_shuffle", std::to_string(p.idShuffleProbability)},
                  {"perception_no_ids", p.noIds ? "1" : "0"},
                  {"perception_clutter_rate", std::to_string(p.clutterRate)},
                  {"config", fs::absolute(o.config).lexically_normal().string()},
                  {"verdict", verdict.held ? std::string("held") : std::string("not held")}};
    if (score.snapshot) {
        info.extra.emplace_back("snapshot_mode", augur::toString(score.snapshot->mode));
    }
    return info;
}

/// The run's files in --out; false (after saying why) when one could not be written.
bool writeRunFiles(const Options& o, const RunInfo& info, const BenchScore& score, const ReplayLog& log,
                   const Recording& recording) {
    const std::vector<MetricRecord> metrics = benchMetrics(score, log, recording);
    std::vector<Result<void, RunWriteError>> writes;
    writes.push_back(writeRunInfo(o.out, info));
    writes.push_back(writeCycles(o.out, score.cycles));
    writes.push_back(writeHorizonErrors(o.out, score.ours, score.cv, score.lf));
    writes.push_back(writeHorizonErrorsByMode(o.out, score.byMode));
    writes.push_back(writeHorizonErrorsByClass(o.out, score.byClass));
    writes.push_back(writeMetrics(o.out, metrics));
    writes.push_back(writePredictionSamples(o.out, score.samples));
    if (score.snapshot) {
        const BenchSnapshot& s = *score.snapshot;
        writes.push_back(writeSnapshot(o.out, *s.grid, s.frame, s.t_s, s.horizon_s, s.paths));
    }
    for (const auto& w : writes) {
        if (!w) {
            std::fprintf(stderr, "augur-hil: %s\n", w.error().detail.c_str());
            return false;
        }
    }
    return true;
}

/// The report (hil_report.py) unless --no-report. Returns 0, or the exit status when the writer failed.
int writeReport(const Options& o) {
    if (o.report) {
        auto writer = ChildProcess::spawn({o.python, std::string(AUGUR_HIL_SOURCE_DIR) + "/apps/augur-hil/report/hil_report.py", o.out});
        const std::optional<int> status = writer ? writer.value().wait(120'000) : std::nullopt;
        if (!status || *status != 0) {
            std::fprintf(stderr, "augur-hil: the report writer failed (%s)\n",
                         writer ? "see above" : writer.error().c_str());
            return EXIT_RUN_FAILED;
        }
        std::fflush(stdout);
        std::printf("\nfigures: %s/report/ (summary.md, latency.png, errors_vs_horizon.png, occupancy_snapshot.png)\n",
                    fs::absolute(o.out).lexically_normal().c_str());
    }
    return 0;
}

/// The lane-following baseline on the scenario's map; false (after saying why) when the map cannot be read.
bool loadLaneFollowing(const Scenario& scenario, std::optional<LaneFollowingPredictor>& laneFollowing) {
    auto map = runtime::scene::readMap(scenario.mapPath(), runtime::scene::Lanelet2Options{});
    if (!map) {
        std::fprintf(stderr, "augur-hil: lane-following baseline: cannot read %s (--no-lane-following skips it)\n",
                     scenario.mapPath().c_str());
        return false;
    }
    laneFollowing.emplace(std::make_shared<const runtime::scene::RoadMap>(std::move(map).value()));
    return true;
}

/// The replay's progress: one line per 10 s of scenario on a log, rewritten in place (every second)
/// on a terminal.
std::function<void(std::size_t, std::size_t, const Recording&)> progressReporter(const Scenario& scenario,
                                                                                  bool terminal) {
    const auto everySteps = static_cast<std::size_t>(std::llround((terminal ? 1.0 : 10.0) / scenario.step_s()));
    return [everySteps, terminal, &scenario](std::size_t done, std::size_t total, const Recording& r) {
        if (done % std::max<std::size_t>(everySteps, 1) != 0 || done == 0) return;
        std::fprintf(stderr, "%saugur-hil: replay %.0f / %.0f s, %zu cycles, %zu predictions recorded%s",
                     terminal ? "\r" : "", static_cast<double>(done) * scenario.step_s(),
                     static_cast<double>(total) * scenario.step_s(), r.health.size(), r.predictions.size(),
                     terminal ? "" : "\n");
    };
}

/// How the run is scored: the deployment's deadline, the sensor range, the options' thresholds and the
/// lane-following baseline (nullptr: not scored).
ScoringOptions scoringOf(const Options& o, const config::Deployment& deployment, const PerceptionConfig& perception,
                         const LaneFollowingPredictor* laneFollowing) {
    ScoringOptions scoring;
    scoring.deadline_us = static_cast<double>(deployment.runtime.deadline_ms) * 1e3;
    scoring.sensorRange_m = perception.range_m;
    scoring.occupancyThreshold = o.occupancyThreshold;
    scoring.warmUp_s = o.warmUp_s;
    scoring.laneFollowing = laneFollowing;
    return scoring;
}

/// Prints whether the acceptance thresholds held (and which did not); returns the exit status.
int printVerdict(const Verdict& verdict) {
    if (verdict.held) {
        std::printf("augur-hil: acceptance thresholds held\n");
        return EXIT_HELD;
    }
    for (const auto& f : verdict.failures) {
        std::printf("augur-hil: NOT HELD: %s\n", f.c_str());
    }
    return EXIT_NOT_HELD;
}

/// The bench proper: everything after RouDi (and, in demo mode, the runtime) is up.
/// `runtime` is the child to watch in demo mode (nullptr in run mode).
int bench(const Options& o, const config::Deployment& deployment, ChildProcess* runtime) {
    auto loaded = Scenario::load(o.scenario);
    if (!loaded) {
        std::fprintf(stderr, "augur-hil: scenario: %s (%s)\n", loaded.error().detail.c_str(), toString(loaded.error().code));
        return EXIT_SETUP;
    }
    const Scenario& scenario = loaded.value();
    const auto first = static_cast<std::size_t>(std::llround(o.start_s / scenario.step_s()));
    if (first >= scenario.stepCount()) {
        std::fprintf(stderr, "augur-hil: --start-s %.1f is past the scenario's end (%.1f s)\n", o.start_s,
                     static_cast<double>(scenario.stepCount()) * scenario.step_s());
        return EXIT_USAGE;
    }
    ReplayOptions replayOptions;
    replayOptions.firstStep = first;
    if (o.duration_s) replayOptions.stepCount = static_cast<std::size_t>(std::llround(*o.duration_s / scenario.step_s()));
    replayOptions.speedFactor = o.speed;
    // After the last list: three periods and half a second, for the cycles that take it and overrun.
    replayOptions.tail_ns = 3 * static_cast<std::int64_t>(deployment.runtime.cyclePeriod_ms) * NS_PER_MS + NS_PER_S / 2;
    const std::size_t end = first + std::min(replayOptions.stepCount, scenario.stepCount() - first);

    PerceptionConfig perception = o.perception;
    perception.egoId = o.egoId ? *o.egoId : longestPresent(scenario, first, end);
    auto emulator = PerceptionEmulator::create(scenario, perception);
    if (!emulator) {
        std::fprintf(stderr, "augur-hil: perception emulation: %s\n", toString(emulator.error()));
        return EXIT_SETUP;
    }
    const config::TransportConfig& t = deployment.transport;
    auto io = BenchIo::create({serviceOf(t.objects), serviceOf(t.tracks), serviceOf(t.intentions), serviceOf(t.prediction),
                               serviceOf(t.health), serviceOf(t.platoons)});
    if (!io) {
        std::fprintf(stderr, "augur-hil: iceoryx: %s\n", platform::toString(io.error()));
        return EXIT_SETUP;
    }
    if (const int status = waitForRuntimeCycle(o, t, io.value(), runtime); status != 0) {
        return status;
    }
    std::fprintf(stderr, "augur-hil: replaying %s steps %zu..%zu (%.1f s) at speed %.2f, ego %u\n", scenario.name().c_str(),
                 first, end - 1, static_cast<double>(end - first) * scenario.step_s(), o.speed, perception.egoId);
    // The lane-following baseline reads the scenario's map now, so that a bad map fails before the replay.
    std::optional<LaneFollowingPredictor> laneFollowing;
    if (o.laneFollowing && !loadLaneFollowing(scenario, laneFollowing)) {
        return EXIT_SETUP;
    }
    const bool terminal = ::isatty(STDERR_FILENO) == 1;
    if (!o.quiet) {
        replayOptions.progress = progressReporter(scenario, terminal);
    }
    Recording recording;
    const ReplayLog log = replay(scenario, emulator.value(), io.value(), recording, replayOptions, g_stop);
    if (!o.quiet && terminal) std::fprintf(stderr, "\n");
    if (const int status = stopRuntime(runtime); status != 0) {
        return status;
    }
    std::fprintf(stderr, "augur-hil: sent %llu lists (%llu late, max %.0f us after the deadline); recorded %zu cycles\n",
                 static_cast<unsigned long long>(log.published), static_cast<unsigned long long>(log.lateSends),
                 log.maxLateness_us, recording.health.size());

    const ScoringOptions scoring = scoringOf(o, deployment, perception, laneFollowing ? &*laneFollowing : nullptr);
    const BenchScore score = scoreRun(scenario, emulator.value(), log, recording, scoring);
    const Verdict verdict = judge(score, o.acceptance);

    std::error_code error;
    fs::create_directories(o.out, error);
    const RunInfo info = runInfoOf(o, scenario, perception, score, verdict, scoring, first, end);
    if (!writeRunFiles(o, info, score, log, recording)) {
        return EXIT_RUN_FAILED;
    }
    std::fprintf(stderr, "augur-hil: run files in %s\n", o.out.c_str());
    if (const int status = writeReport(o); status != 0) {
        return status;
    }
    printByMode(score);
    return printVerdict(verdict);
}

int runMode(const Options& o, const config::Deployment& deployment) {
    auto connected = platform::connectToRouDi(APP_NAME, CONNECT_TIMEOUT_MS);
    if (!connected) {
        std::fprintf(stderr, "augur-hil: %s (start it with: iox-roudi -c config/roudi.toml)\n",
                     platform::toString(connected.error()));
        return EXIT_SETUP;
    }
    return bench(o, deployment, nullptr);
}

int demoMode(Options o, const config::Deployment& deployment) {
    if (o.runtime.empty()) {
        o.runtime = (selfDirectory().parent_path() / "augur-runtime" / "augur-runtime").string();
    }
    if (::access(o.runtime.c_str(), X_OK) != 0) {
        std::fprintf(stderr, "augur-hil: no augur-runtime program at %s (build it, or name it with --runtime)\n",
                     o.runtime.c_str());
        return EXIT_SETUP;
    }
    if (o.roudi.empty()) {
        o.roudi = std::system("command -v iox-roudi >/dev/null 2>&1") == 0 ? "iox-roudi" : "embedded";
    }
    std::error_code error;
    fs::create_directories(o.out, error);
    if (o.runtimeLog.empty()) {
        o.runtimeLog = (fs::path(o.out) / "runtime.log").string();
    }
    std::unique_ptr<platform::EmbeddedRouDi> embedded;
    if (o.roudi == "embedded") {
        if (!waitForNoRouDi(o.roudiWait_s)) {
            std::fprintf(stderr, "augur-hil: another RouDi still runs on this machine after %.0f s\n", o.roudiWait_s);
            return EXIT_SETUP;
        }
        auto started = platform::EmbeddedRouDi::start(APP_NAME, platform::augurMempools(),
                                                      static_cast<std::int64_t>(o.roudiWait_s * 1e3));
        if (!started) {
            std::fprintf(stderr, "augur-hil: embedded RouDi: %s\n", platform::toString(started.error()));
            return EXIT_SETUP;
        }
        embedded = std::move(started).value();
        std::fprintf(stderr, "augur-hil: RouDi runs inside augur-hil\n");
    } else {
        const std::string toml = std::string(AUGUR_HIL_SOURCE_DIR) + "/config/roudi.toml";
        if (!startRouDi(toml, o.roudiWait_s)) {
            return EXIT_SETUP;
        }
        auto connected = platform::connectToRouDi(APP_NAME, CONNECT_TIMEOUT_MS);
        if (!connected) {
            std::fprintf(stderr, "augur-hil: %s\n", platform::toString(connected.error()));
            return EXIT_SETUP;
        }
    }
    // The runtime, its stderr to the log file (a shell redirect keeps ChildProcess simple).
    const std::string traceOption = o.trace.empty() ? std::string() : " --trace \"" + o.trace + "\"";
    const std::string runtimeCommand =
        "exec \"" + o.runtime + "\" --config \"" + o.config + "\"" + traceOption + " 2>\"" + o.runtimeLog + "\"";
    auto runtime = ChildProcess::spawn({"/bin/sh", "-c", runtimeCommand});
    if (!runtime) {
        std::fprintf(stderr, "augur-hil: %s\n", runtime.error().c_str());
        return EXIT_SETUP;
    }
    std::fprintf(stderr, "augur-hil: started %s --config %s%s (pid %d, log %s)\n", o.runtime.c_str(), o.config.c_str(),
                 traceOption.c_str(), runtime.value().pid(), o.runtimeLog.c_str());
    const int status = bench(o, deployment, &runtime.value());
    if (runtime.value().running()) {  // bench() returned before the replay
        std::fprintf(stderr, "augur-hil: augur-runtime stopped (status %d)\n", runtime.value().stop(SIGINT, RUNTIME_STOP_WAIT_MS));
    }
    embedded.reset();
    return status;  // an iox-roudi child stops at exit (stopRouDiAtExit)
}

}  // namespace

/// `augur-hil suite ...`: the suite runner (Python: SUMO, scheduling, tables) with this program and the
/// augur-runtime next to it.
int suiteMode(int argc, char** argv) {
    const std::string script = std::string(AUGUR_HIL_SOURCE_DIR) + "/apps/augur-hil/tools/hil_suite.py";
    const fs::path self = selfDirectory() / "augur-hil";
    const fs::path runtime = selfDirectory().parent_path() / "augur-runtime" / "augur-runtime";
    std::vector<std::string> args{AUGUR_HIL_PYTHON3, script, "--hil", self.string(), "--runtime", runtime.string()};
    for (int i = 2; i < argc; ++i) args.emplace_back(argv[i]);
    std::vector<char*> raw;
    for (auto& a : args) raw.push_back(a.data());
    raw.push_back(nullptr);
    ::execv(raw[0], raw.data());
    std::fprintf(stderr, "augur-hil: cannot run %s: %s\n", raw[0], std::strerror(errno));
    return EXIT_SETUP;
}

int main(int argc, char** argv) {
    if (argc >= 2 && std::string_view(argv[1]) == "suite") {
        return suiteMode(argc, argv);
    }
    // --help anywhere in `run` / `demo` (and alone) prints the usage on stdout with exit status 0.
    for (int i = 1; i < argc; ++i) {
        if (std::string_view(argv[i]) == "--help" || std::string_view(argv[i]) == "-h") {
            std::fputs(USAGE, stdout);
            return 0;
        }
    }
    if (argc == 2 && std::string_view(argv[1]) == "--version") {
        std::puts(augur::apps::cli::versionLine().c_str());
        return 0;
    }
    const std::optional<Options> options = parse(argc, argv);
    if (!options) {
        std::fputs(USAGE, stderr);
        return EXIT_USAGE;
    }
    auto deployment = config::loadDeployment(options->config);
    if (!deployment) {
        std::fprintf(stderr, "%s\n", config::format(deployment.error()).c_str());
        return EXIT_SETUP;
    }
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
    return options->demo ? demoMode(*options, deployment.value()) : runMode(*options, deployment.value());
}
