// augur-bench-runtime: the whole runtime pipeline (ingest → track → relations → intention → motion →
// platoons → publish) through an in-process RouDi, fed a synthetic scene on the shipped four-way
// intersection (docs/benchmarks.md).
//
//   augur-bench-runtime [--vehicles N] [--particles K] [--horizon-s H] [--cycles C] [--latency-samples S]
//                       [--position-cells n_s] [--speed-cells n_v] [--workers W] [--backend cpu|cuda|auto]
//                       [--cpu-position-cells n_s] [--cpu-speed-cells n_v] [--full-chain-vehicles N]
//                       [--sms N] [--policy sm72|sm87|sm90] [--json FILE]
//
// --sms N: all GPU work in an SM partition of N SMs (a CUDA green context, RuntimeOptions::gpuMultiprocessors;
// 16 is Orin AGX's SM count, 8 Orin NX's); --policy: the kernel families' launch-time tuning of that
// architecture instead of the device's (docs/gpu.md, "Orin-sized proxy"). Both need --backend cuda; a
// device that cannot make the partition ends the benchmark with exit status 3 and the reason. With the
// CUDA backend a probe kernel first records the SMs a stream made as the runtime's are reaches (direct
// and graph replay); more than N with --sms N ends the benchmark with exit status 5.
//
// Defaults: 64 vehicles, 20,000 particles, 4 s, the shipped config/default.yaml's chain and CPU sizing
// (motion.cpu: the --full-chain-vehicles nearest the ego with the CPU's full chain, the others with the
// --cpu-position-cells x --cpu-speed-cells chain whenever the CPU propagates; the same cells as the full
// chain turn it off), W = 0 (the runtime's automatic count: one CPU worker per hardware thread).
//
// Part 1, cycle latency: C cycles back to back, one fresh object list before each; p50 / p99 / max of
// the cycle latency over all C cycles and the deadline misses against the configured 200 ms. Exit status 6
// when a cycle ran in another mode than nominal (its figures are not the whole pipeline's).
// Part 2, input-to-output latency: the runtime runs its own loop (trigger on_input); an object list is
// published every 2 periods and the time until the motion prediction based on it is received is measured.
// --json FILE: both parts' figures as a result file (family runtime, docs/results/runtime.json).
#include <algorithm>
#include <atomic>
#include <optional>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "augur/bench/bench.hpp"
#include "augur/bench/bench_cli.hpp"
#include "augur/config/loader.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/roudi.hpp"
#include "augur/platform/sm_partition.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/runtime.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "../../../tests/runtime/support/synthetic_scene.hpp"
#if defined(AUGUR_BENCH_SM_PROBE)
#include "sm_probe.hpp"
#endif

namespace {

using augur::bench::percentile;

struct Options {
    std::uint32_t vehicles{64};
    std::uint32_t particles{20000};
    double horizon_s{4.0};
    std::uint64_t cycles{10000};
    int latencySamples{50};
    std::uint32_t positionCells{0};  ///< 0: the deployment's (200)
    std::uint32_t speedCells{0};     ///< 0: the deployment's
    std::uint32_t cpuPositionCells{0};   ///< motion.cpu.position_cells; 0: the deployment's
    std::uint32_t cpuSpeedCells{0};      ///< motion.cpu.speed_cells; 0: the deployment's
    int fullChainVehicles{-1};           ///< motion.cpu.full_chain_vehicles; < 0: the deployment's
    int workers{0};                  ///< CPU worker threads; 0: the runtime's automatic count
    std::string backend{"cpu"};      ///< runtime.backend
    int sms{0};                      ///< > 0: GPU work in an SM partition of this many SMs
    std::optional<augur::kernels::TuningArch> policy{};  ///< forced tuning policy
    std::string policyName;          ///< --policy as given
    std::string json;                ///< result file; empty: none
};

void defineOptions(CLI::App& app, Options& o) {
    namespace cli = augur::apps::cli;
    cli::useConventions(app);
    app.add_option("--vehicles", o.vehicles, "vehicles in the synthetic scene")->type_name("N")->check(cli::integerIn(1, 100'000))->capture_default_str();
    app.add_option("--particles", o.particles, "particles per intention filter")->type_name("K")->check(cli::integerIn(1, 100'000'000))->capture_default_str();
    app.add_option("--horizon-s", o.horizon_s, "prediction horizon in seconds")->type_name("H")->check(cli::numberIn(0.0, 60.0, true))->capture_default_str();
    app.add_option("--cycles", o.cycles, "cycles of part 1, back to back")->type_name("C")->check(cli::integerIn(1, 1'000'000'000))->capture_default_str();
    app.add_option("--latency-samples", o.latencySamples, "object lists timed in part 2 (0: no part 2)")->type_name("S")->check(cli::integerIn(0, 1'000'000))->capture_default_str();
    app.add_option("--position-cells", o.positionCells, "Markov chain position cells (0: the deployment's)")->type_name("n_s")->check(cli::integerIn(0, 1'000'000))->capture_default_str();
    app.add_option("--speed-cells", o.speedCells, "Markov chain speed cells (0: the deployment's)")->type_name("n_v")->check(cli::integerIn(0, 1'000'000))->capture_default_str();
    app.add_option("--workers", o.workers, "CPU worker threads (0: one per hardware thread)")->type_name("W")->check(cli::integerIn(0, 1024))->capture_default_str();
    app.add_option("--cpu-position-cells", o.cpuPositionCells, "motion.cpu.position_cells (0: the deployment's)")->type_name("n_s")->check(cli::integerIn(0, 1'000'000));
    app.add_option("--cpu-speed-cells", o.cpuSpeedCells, "motion.cpu.speed_cells (0: the deployment's)")->type_name("n_v")->check(cli::integerIn(0, 1'000'000));
    app.add_option("--full-chain-vehicles", o.fullChainVehicles, "motion.cpu.full_chain_vehicles (the deployment's when not given)")->type_name("N")->check(cli::integerIn(0, 100'000));
    app.add_option("--backend", o.backend, "runtime.backend")->check(CLI::IsMember({"cpu", "cuda", "auto"}))->capture_default_str();
    app.add_option("--sms", o.sms, "GPU work in an SM partition of N SMs (a CUDA green context; 16: Orin AGX, 8: Orin NX)")
        ->type_name("N")->check(cli::integerIn(1, 100'000));
    app.add_option("--policy", o.policyName, "the kernels' launch-time tuning of this architecture instead of the device's")
        ->check(CLI::IsMember({"sm72", "sm87", "sm90"}));
    augur::bench::addJsonOption(app, o.json);
}

augur::platform::ServiceName service(const augur::config::Channel& c) { return {c.service, c.instance, c.event}; }

/// The deployment's capacities, motion grid and backend as the options ask.
void applyOptions(const Options& o, augur::config::Deployment& d) {
    d.capacities.maxPredictedVehicles = std::min<std::uint32_t>(o.vehicles, augur::MAX_PREDICTED_VEHICLES);
    d.capacities.particles = o.particles;
    d.motion.horizon_s = o.horizon_s;
    if (o.positionCells > 0) {
        d.motion.positionCells = o.positionCells;
    }
    if (o.speedCells > 0) {
        d.motion.speedCells = o.speedCells;
    }
    if (o.cpuPositionCells > 0) {
        d.motion.cpu.positionCells = o.cpuPositionCells;
    }
    if (o.cpuSpeedCells > 0) {
        d.motion.cpu.speedCells = o.cpuSpeedCells;
    }
    if (o.fullChainVehicles >= 0) {
        d.motion.cpu.fullChainVehicles = static_cast<std::uint32_t>(o.fullChainVehicles);
    }
    if (o.backend == "cuda") {
        d.runtime.backend = augur::config::Backend::Cuda;
    } else if (o.backend == "auto") {
        d.runtime.backend = augur::config::Backend::Auto;
    } else {
        d.runtime.backend = augur::config::Backend::Cpu;
    }
    d.runtime.maxInputAge_ms = 0;
}

/// Measure the whole nominal pipeline: the watchdog would cut a late cycle short (no computing stage
/// starts after the deadline) and the ladder would degrade, so the executor's deadline is lifted and
/// misses are counted against the deployment's deadline instead, which this returns (ms). Logs errors only.
double liftDeadline(augur::config::Deployment& d) {
    const auto deadline_ms = static_cast<double>(d.runtime.deadline_ms);
    d.runtime.deadline_ms = 3'600'000;
    d.runtime.watchdog.missesToDegrade = 1'000'000;
    d.output.logLevel = augur::config::LogLevel::Error;
    return deadline_ms;
}

/// The runtime's options: the embedded RouDi (no connection to another), no log, and the CPU workers,
/// SM partition and tuning policy the options ask.
augur::runtime::RuntimeOptions runtimeOptionsFor(const Options& o) {
    augur::runtime::RuntimeOptions options;
    options.connectToRouDi = false;
    options.log = [](augur::config::LogLevel, const std::string&) {};
    options.cpuWorkers = o.workers;
    options.gpuMultiprocessors = o.sms;
    options.gpuTuningPolicy = o.policy;
    return options;
}

/// Where a stream made as the runtime makes its own runs its kernels (within the partition with --sms):
/// the line the report prints, empty without the probe or the CUDA backend. Returns the exit status: 0,
/// or 5 when the probe fails or the stream reaches more SMs than --sms allows.
int probeStreamSms([[maybe_unused]] const Options& o, [[maybe_unused]] augur::runtime::Runtime& runtime,
                   [[maybe_unused]] std::string& probeLine) {
#if defined(AUGUR_BENCH_SM_PROBE)
    if (runtime.backendIsCuda()) {
        const auto probe = augur::bench::probeStreamSms();
        if (!probe) {
            std::fprintf(stderr, "SM probe: %s\n", probe.error().c_str());
            return 5;
        }
        probeLine = "SM probe (a kernel on a stream made as the runtime's are): " + std::to_string(probe->direct) +
                    " SMs direct, " + std::to_string(probe->graph) + " SMs graph replay\n";
        if (o.sms > 0 && (probe->direct > o.sms || probe->graph > o.sms)) {
            std::fprintf(stderr, "the SM partition is not effective: %s", probeLine.c_str());
            return 5;
        }
    }
#endif
    return 0;
}

/// The run's name in the result file's metrics: its size, chain and backend, ending where the metric's
/// own name follows.
std::string resultRunName(const Options& o, const augur::config::Deployment& d, const augur::runtime::Runtime& runtime) {
    std::string run = std::to_string(o.vehicles) + " vehicles, " + augur::bench::withThousands(o.particles) + " particles, " +
                      augur::apps::cli::formatNumber(o.horizon_s) + " s";
    if (o.positionCells > 0 || o.speedCells > 0) {
        run += ", " + std::to_string(d.motion.positionCells) + " x " + std::to_string(d.motion.speedCells) + " chain";
    }
    run += runtime.backendIsCuda() ? ": " : ", CPU: ";
    return run;
}

/// Part 1's figures: every cycle's latency, the deadline misses and the cycles in another mode than nominal.
struct CycleLatency {
    std::vector<double> latency_ms;
    std::uint64_t misses{0};
    std::uint64_t degraded{0};
};

/// Part 1's cycles. They run back to back; each list is stamped with the runtime's clock and the scene
/// moves by the time that passed since the last one, so the runtime's input checks (stale, future, out
/// of order) accept every list and every cycle computes a prediction. A cycle in another mode than
/// nominal (input lost, a GPU error) computed less than the pipeline and is counted.
CycleLatency runCycles(const Options& o, augur::runtime::Runtime& runtime,
                       augur::platform::Publisher<augur::ObjectList>& publisher, augur::testing::SyntheticScene& scene,
                       double deadline_ms) {
    CycleLatency c;
    c.latency_ms.reserve(o.cycles);
    std::uint64_t sequence = 0;
    std::int64_t last = augur::platform::monotonicNow_ns();
    for (std::uint64_t k = 0; k < o.cycles; ++k) {
        const std::int64_t stamp = augur::platform::monotonicNow_ns();
        scene.advance(static_cast<double>(stamp - last) * 1e-9);
        last = stamp;
        auto loan = publisher.loan();
        if (loan) {
            scene.write(**loan, ++sequence, stamp);
            loan->publish();
        }
        const auto report = runtime.runCycle();
        c.latency_ms.push_back(static_cast<double>(report.latency_ns) * 1e-6);
        c.misses += c.latency_ms.back() > deadline_ms ? 1 : 0;
        c.degraded += report.mode != augur::RuntimeMode::Nominal ? 1 : 0;
    }
    return c;
}

/// The run's header: the scene, the chain, the backend, the CPU sizing, and on the GPU its SMs and tuning policy.
void printRunHeader(const Options& o, const augur::config::Deployment& d, augur::runtime::Runtime& runtime, int workers,
                    const std::string& probeLine, double init_ms) {
    std::printf("# augur-bench-runtime: %u vehicles, %u particles per filter, horizon %.1f s (%u steps), Markov chain "
                "%u x %u x %u cells, %s backend (intention filters and Markov prediction on the %s), %d CPU worker thread(s)\n",
                o.vehicles, o.particles, o.horizon_s, augur::config::horizonSteps(d.motion), d.motion.positionCells,
                d.motion.speedCells, d.motion.inputCells, o.backend.c_str(), runtime.backendIsCuda() ? "GPU" : "CPU",
                workers);
    const augur::config::CpuChainCells cells = augur::config::cpuChainCells(d.motion);
    std::printf("CPU sizing (motion.cpu, applies while the CPU propagates): the %u nearest vehicles %u x %u, the "
                "others %u x %u; vehicles on the coarser chain in the last cycle: %u\n",
                d.motion.cpu.fullChainVehicles, cells.fullPosition, cells.fullSpeed, cells.coarsePosition,
                cells.coarseSpeed, runtime.coarseMotionVehicles());
    std::printf("CUDA graph replays: %llu\n", static_cast<unsigned long long>(runtime.graphReplays()));
    if (runtime.backendIsCuda()) {
        const auto sms = augur::platform::activeMultiprocessors();
        const auto arch = augur::kernels::activeTuningArch();
        std::printf("GPU: %d SMs%s, tuning policy %s%s\n", sms ? sms.value() : 0,
                    augur::platform::smPartitionActive() ? " (SM partition, green context)" : " (whole device)",
                    arch ? augur::kernels::toString(arch.value()) : "unknown", o.policy ? " (forced)" : " (the device's)");
    }
    std::printf("%sinit %.0f ms\n\n", probeLine.c_str(), init_ms);
}

/// Part 1's report: the cycle and stage tables; the cycle figures also go to `results` (metrics named
/// `run` + the figure).
void reportCycleLatency(const Options& o, const augur::config::Deployment& d, augur::runtime::Runtime& runtime,
                        const CycleLatency& c, double deadline_ms, augur::bench::ResultFile& results,
                        const std::string& run) {
    std::printf("| cycles | p50 ms | p99 ms | max ms | misses (> %.0f ms) |\n|---|---|---|---|---|\n", deadline_ms);
    std::printf("| %llu | %.2f | %.2f | %.2f | %llu |\n\n", static_cast<unsigned long long>(o.cycles),
                percentile(c.latency_ms, 0.5), percentile(c.latency_ms, 0.99), percentile(c.latency_ms, 1.0),
                static_cast<unsigned long long>(c.misses));
    std::printf("cycles in another mode than nominal: %llu of %llu\n\n", static_cast<unsigned long long>(c.degraded),
                static_cast<unsigned long long>(o.cycles));
    if (c.degraded > 0) {
        std::fprintf(stderr, "augur-bench-runtime: %llu cycles ran in a degraded mode: the figures are not the whole "
                             "pipeline's (exit status 6)\n", static_cast<unsigned long long>(c.degraded));
    }
    results.add(run + "cycle p50", percentile(c.latency_ms, 0.5), 2, "ms");
    results.add(run + "cycle p99", percentile(c.latency_ms, 0.99), 2, "ms");
    results.add(run + "cycle max", percentile(c.latency_ms, 1.0), 2, "ms");
    results.add(run + "deadline misses in " + augur::bench::withThousands(static_cast<long long>(o.cycles)) + " cycles",
                static_cast<double>(c.misses), 0, "");
    std::printf("stage latency over the last %u cycles (p50 / p99 ms):\n\n| stage | p50 ms | p99 ms |\n|---|---|---|\n",
                d.runtime.healthWindowCycles);
    for (std::size_t s = 0; s < augur::STAGE_COUNT; ++s) {
        const auto stats = runtime.executor().stageLatency(static_cast<augur::Stage>(s));
        std::printf("| %s | %.3f | %.3f |\n", augur::toString(static_cast<augur::Stage>(s)),
                    static_cast<double>(stats.p50_us) * 1e-3, static_cast<double>(stats.p99_us) * 1e-3);
    }
}

/// Part 2's samples: an object list published every 2 periods (the scene moving in real time, as in
/// part 1) and the time until its motion prediction is received; lists not answered within 20 s are
/// left out.
std::vector<double> sampleEndToEnd(const Options& o, const augur::config::Deployment& d,
                                   augur::platform::Publisher<augur::ObjectList>& pub,
                                   augur::platform::Subscriber<augur::MotionPrediction>& sub,
                                   augur::testing::SyntheticScene& scene) {
    std::vector<double> endToEnd_ms;
    const auto period_ns = static_cast<std::int64_t>(d.runtime.cyclePeriod_ms) * 1'000'000;
    constexpr std::int64_t WAIT_NS = 20'000'000'000;  // a slow configuration still gets measured
    std::int64_t lastSent = augur::platform::monotonicNow_ns();
    for (int k = 0; k < o.latencySamples; ++k) {
        const std::int64_t sent = augur::platform::monotonicNow_ns();
        scene.advance(static_cast<double>(sent - lastSent) * 1e-9);  // the scene moves in real time, as in part 1
        lastSent = sent;
        auto loan = pub.loan();
        if (loan) {
            scene.write(**loan, static_cast<std::uint64_t>(k + 1), sent);
            loan->publish();
        }
        bool got = false;
        while (!got && augur::platform::monotonicNow_ns() - sent < WAIT_NS) {
            auto sample = sub.take();
            if (sample && sample.value()->sourceStamp_ns == sent) {
                endToEnd_ms.push_back(static_cast<double>(augur::platform::monotonicNow_ns() - sent) * 1e-6);
                got = true;
            } else if (!sample) {
                augur::platform::sleepUntil_ns(augur::platform::monotonicNow_ns() + 50'000);
            }
        }
        augur::platform::sleepUntil_ns(augur::platform::monotonicNow_ns() + 2 * period_ns);  // the loop is idle again
    }
    return endToEnd_ms;
}

/// Part 2: input-to-output latency through iceoryx, the runtime on its own loop, triggered by input.
/// Replaces the runtime of part 1 (`first`, reset here) by one on another instance; adds the figures
/// to `results`. Returns the exit status (0, or 3 when the second runtime fails to start).
int measureEndToEnd(const Options& o, const augur::config::Deployment& d, const augur::runtime::RuntimeOptions& options,
                    std::unique_ptr<augur::runtime::Runtime>& first, augur::testing::SyntheticScene& scene,
                    augur::bench::ResultFile& results, const std::string& run) {
    augur::config::Deployment d2 = d;
    d2.runtime.trigger = augur::config::Trigger::OnInput;
    augur::testing::useInstance(d2, "latency");
    first.reset();
    auto second = augur::runtime::Runtime::create(d2, options);
    if (!second) {
        std::fprintf(stderr, "init failed: %s\n", second.error().message.c_str());
        return 3;
    }
    auto pub2 = augur::platform::Publisher<augur::ObjectList>::create(service(d2.transport.objects)).value();
    auto sub = augur::platform::Subscriber<augur::MotionPrediction>::create(service(d2.transport.prediction), 16).value();
    std::atomic<bool> stop{false};
    std::thread loop([&] { second.value()->run(stop, 0); });
    const std::vector<double> endToEnd_ms = sampleEndToEnd(o, d, pub2, sub, scene);
    stop = true;
    loop.join();
    std::printf("\ninput-to-output latency (object list published → its motion prediction received), trigger on_input:\n\n");
    std::printf("| samples | received | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|\n");
    std::printf("| %d | %zu | %.2f | %.2f | %.2f |\n", o.latencySamples, endToEnd_ms.size(), percentile(endToEnd_ms, 0.5),
                percentile(endToEnd_ms, 0.99), percentile(endToEnd_ms, 1.0));
    if (!endToEnd_ms.empty()) {
        results.add(run + "input to output p50", percentile(endToEnd_ms, 0.5), 2, "ms");
        results.add(run + "input to output p99", percentile(endToEnd_ms, 0.99), 2, "ms");
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    CLI::App app{"augur-bench-runtime: cycle and input-to-output latency of the whole runtime on a synthetic scene.",
                 "augur-bench-runtime"};
    defineOptions(app, o);
    if (const auto exit = augur::bench::parseArguments(app, argc, argv)) {
        return *exit;
    }
    if (!o.policyName.empty()) {
        o.policy = augur::kernels::parseTuningArch(o.policyName);
    }
    if ((o.sms > 0 || o.policy) && o.backend != "cuda") {
        std::fprintf(stderr, "--sms and --policy need --backend cuda\n");
        return 2;
    }
    const std::string source = AUGUR_SOURCE_DIR;
    auto loaded = augur::config::loadDeployment(source + "/config/default.yaml");
    if (!loaded) {
        std::fprintf(stderr, "cannot load config/default.yaml\n");
        return 2;
    }
    augur::config::Deployment d = loaded.value();
    applyOptions(o, d);
    const double deadline_ms = liftDeadline(d);
    constexpr std::int64_t ROUDI_LOCK_WAIT_MS = 300'000;  // another RouDi on this machine: wait for it to end
    auto roudi = augur::platform::EmbeddedRouDi::start("augur-bench-runtime", augur::platform::augurMempools(), ROUDI_LOCK_WAIT_MS);
    if (!roudi) {
        std::fprintf(stderr, "embedded RouDi: %s\n", augur::platform::toString(roudi.error()));
        return 3;
    }
    auto map = augur::runtime::scene::readSumoNet(d.map.path);
    if (!map) {
        std::fprintf(stderr, "%s\n", map.error().describe().c_str());
        return 3;
    }

    const augur::runtime::RuntimeOptions options = runtimeOptionsFor(o);
    const int workers = o.workers > 0 ? o.workers
                                      : std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1,
                                                   augur::runtime::MAX_AUTO_CPU_WORKERS);
    const std::int64_t initStart = augur::platform::monotonicNow_ns();
    auto created = augur::runtime::Runtime::create(d, options);
    if (!created) {
        std::fprintf(stderr, "init failed: %s\n", created.error().message.c_str());
        return 3;
    }
    const double init_ms = static_cast<double>(augur::platform::monotonicNow_ns() - initStart) * 1e-6;
    auto& runtime = *created.value();
    std::string probeLine;
    if (const int probed = probeStreamSms(o, runtime, probeLine); probed != 0) {
        return probed;
    }
    auto publisher = augur::platform::Publisher<augur::ObjectList>::create(service(d.transport.objects)).value();
    augur::testing::SyntheticScene scene(map.value(), o.vehicles);
    augur::bench::ResultFile results("runtime", "Runtime cycle", 60);
    results.setDevice(augur::bench::describeDevice(runtime.backendIsCuda()));
    results.setCommand(augur::bench::commandLine(argc, argv));
    const std::string run = resultRunName(o, d, runtime);

    // Part 1: cycle latency, the runtime driven cycle by cycle.
    const CycleLatency cycles = runCycles(o, runtime, publisher, scene, deadline_ms);
    printRunHeader(o, d, runtime, workers, probeLine, init_ms);
    reportCycleLatency(o, d, runtime, cycles, deadline_ms, results, run);
    if (o.latencySamples > 0) {
        if (const int status = measureEndToEnd(o, d, options, created.value(), scene, results, run); status != 0) {
            return status;
        }
    }
    if (!augur::bench::writeResults(results, o.json)) {
        return augur::apps::cli::EXIT_INPUT;
    }
    constexpr int EXIT_DEGRADED = 6;
    return cycles.degraded > 0 ? EXIT_DEGRADED : 0;
}
