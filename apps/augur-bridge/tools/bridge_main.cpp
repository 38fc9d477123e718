// augur-bridge — iceoryx ↔ Eclipse Cyclone DDS for a deployment (docs/dds.md).
//
//   augur-bridge --config FILE [--role target|bench] [--duration-s S] [--quiet]
//
// The bridge takes the deployment's real-time policy, the runtime's (runtime.rt_priority, lock_memory,
// on_rt_setup_failure), before it creates its DDS participant, so Cyclone DDS's threads inherit it.
//
// Exit status: 0 stopped (SIGINT, SIGTERM or --duration-s), 1 configuration error, 2 usage, 3 init failed
// (also a refused real-time step under runtime.on_rt_setup_failure: fail).
#include <csignal>
#include <cstdio>
#include <string>

#include "augur/bridge/bridge.hpp"
#include "augur/config/loader.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/realtime.hpp"
#include "augur_cli.hpp"

namespace {

volatile std::sig_atomic_t g_stop = 0;

void onSignal(int /*signal*/) { g_stop = 1; }

constexpr int EXIT_INIT = 3;

/// The deployment's SCHED_FIFO priority and memory locking for the calling thread, before any other thread
/// exists: Cyclone DDS starts its threads (recv, recvUC, tev, dq.builtins, dq.user, gc, ...) with the
/// creating thread's policy, so they all take it; a bridge started under chrt keeps chrt's when
/// runtime.rt_priority is 0. Not runtime.cpu_affinity: those cores are the runtime's cycle thread's.
/// False when a step was refused and runtime.on_rt_setup_failure is fail.
bool applyRealtimePolicy(const augur::config::RuntimeConfig& rt) {
    namespace platform = augur::platform;
    platform::RealtimeSetup setup{};
    setup.lockMemory = rt.lockMemory;
    setup.fifoPriority = rt.rtPriority;
    setup.failOnRefusal = rt.onRtSetupFailure == augur::config::RtSetupFailurePolicy::Fail;
    const auto applied = platform::applyRealtimeSetup(setup, [](const platform::RealtimeOutcome& refused) {
        std::fprintf(stderr, "augur-bridge: %s; continuing without it (runtime.on_rt_setup_failure: warn)\n",
                     platform::describe(refused).c_str());
    });
    if (!applied) {
        std::fprintf(stderr, "augur-bridge: %s (runtime.on_rt_setup_failure: fail)\n",
                     platform::describe(applied.error()).c_str());
        return false;
    }
    return true;
}

/// Polls the bridge every bridge.poll_period_us until SIGINT / SIGTERM or `duration_s` (0: no end), with a
/// status line whenever its faults or peer losses change (unless `quiet`).
void pollUntilStopped(augur::bridge::Bridge& bridge, const augur::config::BridgeConfig& cfg, double duration_s,
                      bool quiet) {
    const std::int64_t period_ns = static_cast<std::int64_t>(cfg.pollPeriod_us) * 1000;
    const std::int64_t start_ns = augur::platform::monotonicNow_ns();
    const std::int64_t end_ns = duration_s > 0.0 ? start_ns + static_cast<std::int64_t>(duration_s * 1e9) : 0;
    std::int64_t next_ns = start_ns;
    std::uint32_t reportedFaults = 0;
    std::uint64_t reportedLosses = 0;
    while (g_stop == 0) {
        const std::int64_t now_ns = augur::platform::monotonicNow_ns();
        if (end_ns != 0 && now_ns >= end_ns) {
            break;
        }
        (void)bridge.poll(now_ns);
        const augur::bridge::BridgeStatus& status = bridge.status();
        if (!quiet && (status.faults != reportedFaults || status.peerLosses != reportedLosses)) {
            std::fprintf(stderr, "augur-bridge: faults 0x%x, alive peers %u, peer losses %llu\n", status.faults,
                         status.alivePeers, static_cast<unsigned long long>(status.peerLosses));
        }
        reportedFaults = status.faults;
        reportedLosses = status.peerLosses;
        next_ns += period_ns;
        if (next_ns < now_ns) {
            next_ns = now_ns;  // overran (a large burst): do not try to catch up
        }
        augur::platform::sleepUntil_ns(next_ns);
    }
}

}  // namespace

int main(int argc, char** argv) {
    namespace cli = augur::apps::cli;
    CLI::App app{"augur-bridge: augur's iceoryx channels on Eclipse Cyclone DDS, ROS 2 naming (docs/dds.md)", "augur-bridge"};
    cli::useConventions(app);
    std::string configPath;
    std::string role;
    double duration_s = 0.0;
    bool quiet = false;
    app.add_option("--config", configPath, "deployment file (its bridge and transport sections)")->required();
    app.add_option("--role", role, "target or bench; overrides bridge.role")->check(CLI::IsMember({"target", "bench"}));
    app.add_option("--duration-s", duration_s, "stop after this many seconds (0: run until SIGINT/SIGTERM)")
        ->check(CLI::Range(0.0, 1e7));
    app.add_flag("--quiet", quiet, "no status lines");
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& error) {
        return app.exit(error) == 0 ? cli::EXIT_OK : cli::EXIT_USAGE;
    }

    auto loaded = augur::config::loadDeployment(configPath);
    if (!loaded) {
        std::fprintf(stderr, "%s\n", augur::config::format(loaded.error()).c_str());
        return cli::EXIT_INPUT;
    }
    augur::config::Deployment deployment = std::move(loaded).value();
    if (!role.empty()) {
        deployment.bridge.role = role == "bench" ? augur::config::BridgeRole::Bench : augur::config::BridgeRole::Target;
    }
    if (!applyRealtimePolicy(deployment.runtime)) {
        return EXIT_INIT;
    }
    auto created = augur::bridge::Bridge::create(deployment);
    if (!created) {
        std::fprintf(stderr, "augur-bridge: init failed: %s: %s\n", augur::bridge::toString(created.error().kind),
                     created.error().detail.c_str());
        return EXIT_INIT;
    }
    augur::bridge::Bridge bridge = std::move(created).value();
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);

    const auto& cfg = deployment.bridge;
    const std::string scheduling = deployment.runtime.rtPriority == 0
                                       ? std::string("scheduling unchanged")
                                       : "SCHED_FIFO " + std::to_string(deployment.runtime.rtPriority);
    std::fprintf(stderr, "augur-bridge: %s, domain %u, topics %s/*, poll %u us, %s\n",
                 std::string(augur::config::toString(cfg.role)).c_str(), cfg.domainId, cfg.topicPrefix.c_str(),
                 cfg.pollPeriod_us, scheduling.c_str());
    pollUntilStopped(bridge, cfg, duration_s, quiet);
    const augur::bridge::BridgeStatus& status = bridge.status();
    std::fprintf(stderr,
                 "augur-bridge: stopped: to DDS %llu, to iceoryx %llu, failures %llu, rejected %llu, peer losses %llu\n",
                 static_cast<unsigned long long>(status.forwardedToDds),
                 static_cast<unsigned long long>(status.forwardedToIceoryx),
                 static_cast<unsigned long long>(status.forwardFailures),
                 static_cast<unsigned long long>(status.rejected), static_cast<unsigned long long>(status.peerLosses));
    return cli::EXIT_OK;
}
