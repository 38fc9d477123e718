// augur-bench-runtime: the whole runtime pipeline (ingest → track → relations → intention → motion →
// platoons → publish) through an in-process RouDi, fed a synthetic scene on the shipped four-way
// intersection (docs/benchmarks.md).
//
//   augur-bench-runtime [--vehicles N] [--particles K] [--horizon-s H] [--cycles C] [--latency-samples S]
//                       [--position-cells n_s] [--speed-cells n_v] [--workers W] [--backend cpu|cuda|auto]
//
// Defaults: 64 vehicles, 20,000 particles, 4 s, the shipped config/default.yaml's chain, W = 0 (the
// runtime's automatic count: one CPU worker per hardware thread).
//
// Part 1, cycle latency: C cycles back to back, one fresh object list before each; p50 / p99 / max of
// the cycle latency over all C cycles and the deadline misses against the configured 200 ms.
// Part 2, input-to-output latency: the runtime runs its own loop (trigger on_input); an object list is
// published every 2 periods and the time until the motion prediction based on it is received is measured.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "augur/config/loader.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/roudi.hpp"
#include "augur/platform/transport.hpp"
#include "augur/runtime/runtime.hpp"
#include "augur/runtime/scene/map_readers.hpp"
#include "../../../tests/runtime/support/synthetic_scene.hpp"

namespace {

struct Options {
    std::uint32_t vehicles{64};
    std::uint32_t particles{20000};
    double horizon_s{4.0};
    std::uint64_t cycles{10000};
    int latencySamples{50};
    std::uint32_t positionCells{0};  ///< 0: the deployment's (200)
    std::uint32_t speedCells{0};     ///< 0: the deployment's
    int workers{0};                  ///< CPU worker threads; 0: the runtime's automatic count
    std::string backend{"cpu"};      ///< runtime.backend
};

double percentile(std::vector<double> v, double q) {
    if (v.empty()) {
        return 0.0;
    }
    std::sort(v.begin(), v.end());
    const auto i = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
    return v[std::min(i, v.size() - 1)];
}

augur::platform::ServiceName service(const augur::config::Channel& c) { return {c.service, c.instance, c.event}; }

/// The command line into `o` (option value pairs); false after naming an unknown option.
bool parseOptions(int argc, char** argv, Options& o) {
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string_view a = argv[i];
        const char* v = argv[i + 1];
        if (a == "--vehicles") o.vehicles = static_cast<std::uint32_t>(std::atoi(v));
        else if (a == "--particles") o.particles = static_cast<std::uint32_t>(std::atoi(v));
        else if (a == "--horizon-s") o.horizon_s = std::atof(v);
        else if (a == "--cycles") o.cycles = static_cast<std::uint64_t>(std::atoll(v));
        else if (a == "--latency-samples") o.latencySamples = std::atoi(v);
        else if (a == "--position-cells") o.positionCells = static_cast<std::uint32_t>(std::atoi(v));
        else if (a == "--speed-cells") o.speedCells = static_cast<std::uint32_t>(std::atoi(v));
        else if (a == "--workers") o.workers = std::atoi(v);
        else if (a == "--backend") o.backend = v;
        else {
            std::fprintf(stderr, "unknown option %s\n", argv[i]);
            return false;
        }
    }
    return true;
}

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
    if (o.backend == "cuda") {
        d.runtime.backend = augur::config::Backend::Cuda;
    } else if (o.backend == "auto") {
        d.runtime.backend = augur::config::Backend::Auto;
    } else {
        d.runtime.backend = augur::config::Backend::Cpu;
    }
    d.runtime.maxInputAge_ms = 0;
}

/// Part 1: cycle latency, the runtime driven cycle by cycle; prints the cycle and stage tables.
void measureCycleLatency(const Options& o, const augur::config::Deployment& d, augur::runtime::Runtime& runtime,
                         augur::platform::Publisher<augur::ObjectList>& publisher,
                         augur::testing::SyntheticScene& scene,
                         double deadline_ms, double init_ms, int workers) {
    std::uint64_t sequence = 0;
    std::int64_t stamp = 1'000'000'000;
    constexpr std::int64_t STEP_NS = 200'000'000;
    std::vector<double> latency_ms;
    latency_ms.reserve(o.cycles);
    std::uint64_t misses = 0;
    for (std::uint64_t k = 0; k < o.cycles; ++k) {
        auto loan = publisher.loan();
        if (loan) {
            scene.write(**loan, ++sequence, stamp);
            loan->publish();
        }
        stamp += STEP_NS;
        scene.advance(0.2);
        const auto report = runtime.runCycle();
        latency_ms.push_back(static_cast<double>(report.latency_ns) * 1e-6);
        misses += latency_ms.back() > deadline_ms ? 1 : 0;
    }
    std::printf("# augur-bench-runtime: %u vehicles, %u particles per filter, horizon %.1f s (%u steps), Markov chain "
                "%u x %u x %u cells, %s backend (intention filters and Markov prediction on the %s), %d CPU worker thread(s)\n",
                o.vehicles, o.particles, o.horizon_s, augur::config::horizonSteps(d.motion), d.motion.positionCells,
                d.motion.speedCells, d.motion.inputCells, o.backend.c_str(), runtime.backendIsCuda() ? "GPU" : "CPU",
                workers);
    std::printf("CUDA graph replays: %llu\n", static_cast<unsigned long long>(runtime.graphReplays()));
    std::printf("init %.0f ms\n\n", init_ms);
    std::printf("| cycles | p50 ms | p99 ms | max ms | misses (> %.0f ms) |\n|---|---|---|---|---|\n", deadline_ms);
    std::printf("| %llu | %.2f | %.2f | %.2f | %llu |\n\n", static_cast<unsigned long long>(o.cycles),
                percentile(latency_ms, 0.5), percentile(latency_ms, 0.99), percentile(latency_ms, 1.0),
                static_cast<unsigned long long>(misses));
    std::printf("stage latency over the last %u cycles (p50 / p99 ms):\n\n| stage | p50 ms | p99 ms |\n|---|---|---|\n",
                d.runtime.healthWindowCycles);
    for (std::size_t s = 0; s < augur::STAGE_COUNT; ++s) {
        const auto stats = runtime.executor().stageLatency(static_cast<augur::Stage>(s));
        std::printf("| %s | %.3f | %.3f |\n", augur::toString(static_cast<augur::Stage>(s)),
                    static_cast<double>(stats.p50_us) * 1e-3, static_cast<double>(stats.p99_us) * 1e-3);
    }
}

/// Part 2: input-to-output latency through iceoryx, the runtime on its own loop, triggered by input.
/// Replaces the runtime of part 1 (`first`, reset here) by one on another instance. Returns the exit
/// status (0, or 3 when the second runtime fails to start).
int measureEndToEnd(const Options& o, const augur::config::Deployment& d, const augur::runtime::RuntimeOptions& options,
                    std::unique_ptr<augur::runtime::Runtime>& first, augur::testing::SyntheticScene& scene) {
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
    std::vector<double> endToEnd_ms;
    const auto period_ns = static_cast<std::int64_t>(d.runtime.cyclePeriod_ms) * 1'000'000;
    constexpr std::int64_t WAIT_NS = 20'000'000'000;  // a slow configuration still gets measured
    for (int k = 0; k < o.latencySamples; ++k) {
        const std::int64_t sent = augur::platform::monotonicNow_ns();
        auto loan = pub2.loan();
        if (loan) {
            scene.write(**loan, static_cast<std::uint64_t>(k + 1), sent);
            loan->publish();
        }
        scene.advance(0.2);
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
    stop = true;
    loop.join();
    std::printf("\ninput-to-output latency (object list published → its motion prediction received), trigger on_input:\n\n");
    std::printf("| samples | received | p50 ms | p99 ms | max ms |\n|---|---|---|---|---|\n");
    std::printf("| %d | %zu | %.2f | %.2f | %.2f |\n", o.latencySamples, endToEnd_ms.size(), percentile(endToEnd_ms, 0.5),
                percentile(endToEnd_ms, 0.99), percentile(endToEnd_ms, 1.0));
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    if (!parseOptions(argc, argv, o)) {
        return 64;
    }
    const std::string source = AUGUR_SOURCE_DIR;
    auto loaded = augur::config::loadDeployment(source + "/config/default.yaml");
    if (!loaded) {
        std::fprintf(stderr, "cannot load config/default.yaml\n");
        return 2;
    }
    augur::config::Deployment d = loaded.value();
    applyOptions(o, d);
    // Measure the whole nominal pipeline: the watchdog would cut a late cycle short (no computing stage
    // starts after the deadline) and the ladder would degrade, so the executor's deadline is lifted and
    // misses are counted here against the deployment's deadline instead.
    const auto deadline_ms = static_cast<double>(d.runtime.deadline_ms);
    d.runtime.deadline_ms = 3'600'000;
    d.runtime.watchdog.missesToDegrade = 1'000'000;
    d.output.logLevel = augur::config::LogLevel::Error;
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

    augur::runtime::RuntimeOptions options;
    options.connectToRouDi = false;
    options.log = [](augur::config::LogLevel, const std::string&) {};
    options.cpuWorkers = o.workers;
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
    auto publisher = augur::platform::Publisher<augur::ObjectList>::create(service(d.transport.objects)).value();
    augur::testing::SyntheticScene scene(map.value(), o.vehicles);

    measureCycleLatency(o, d, runtime, publisher, scene, deadline_ms, init_ms, workers);
    if (o.latencySamples > 0) {
        return measureEndToEnd(o, d, options, created.value(), scene);
    }
    return 0;
}
