// augur-flock: reports the maximal flocks f(δ, μ, ε) of trajectories read from CSV.
//
//   augur-flock --input tracks.csv --mu 5 --delta 10 --epsilon 1200 [--backend cpu|cuda] [--graph]
//               [--output flocks.csv] [--threads N] [--batch-steps N] [--max-memory-gib G]
//
// ε is the RADIUS of the disk that must hold the flock at every step (seeds/002, Definition 1).
// Capacities start from the built-in defaults and are grown automatically when a run reports that one
// was exceeded (offline use: each retry re-initialises); before each initialisation the run's host
// memory is estimated and held to --max-memory-gib (flock_tool.hpp). Formats: docs/flock-tool.md.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "augur/kernels/flock/flock_finder.hpp"
#include "augur/platform/clock.hpp"
#include "flock_tool.hpp"
#include "trajectory_csv.hpp"
#include "augur_version.hpp"

namespace {

using namespace augur;
using namespace augur::kernels::flock;
using apps::flock::Options;

constexpr int EXIT_INPUT = 1;
constexpr int EXIT_USAGE = 2;

void note(const std::vector<std::string>& notes) {
    for (const std::string& text : notes) {
        std::fprintf(stderr, "augur-flock: %s\n", text.c_str());
    }
}

bool writeOutput(const Options& options, const apps::flock::Trajectories& trajectories, const FlockList& flocks) {
    if (options.output.empty()) {
        apps::flock::writeFlocks(std::cout, trajectories, flocks, options.params.windowSteps);
        return static_cast<bool>(std::cout);
    }
    std::ofstream out(options.output);
    apps::flock::writeFlocks(out, trajectories, flocks, options.params.windowSteps);
    if (!out) {
        std::fprintf(stderr, "augur-flock: cannot write %s\n", options.output.c_str());
        return false;
    }
    return true;
}

int run(const Options& options) {
    std::ifstream in(options.input);
    if (!in) {
        std::fprintf(stderr, "augur-flock: cannot open %s\n", options.input.c_str());
        return EXIT_INPUT;
    }
    auto parsed = apps::flock::readTrajectories(in, options.maxMemoryBytes());
    if (!parsed) {
        const auto& error = parsed.error();
        std::fprintf(stderr, "augur-flock: %s%s%s%s%s\n", options.input.c_str(), error.line == 0 ? ": " : " line ",
                     error.line == 0 ? "" : (std::to_string(error.line) + ": ").c_str(), error.message.c_str(),
                     error.overMemoryLimit ? " (--max-memory-gib)" : "");
        return EXIT_INPUT;
    }
    const apps::flock::Trajectories& trajectories = *parsed;
    if (trajectories.stepCount < options.params.windowSteps) {
        // No window fits: nothing to search (and no buffers to size for a window longer than the data).
        std::fprintf(stderr, "augur-flock: %d steps, shorter than --delta %d: no windows, no flocks\n", trajectories.stepCount,
                     options.params.windowSteps);
        return writeOutput(options, trajectories, FlockList{}) ? 0 : EXIT_INPUT;
    }
    auto plan = apps::flock::planRun(options, trajectories, std::thread::hardware_concurrency());
    if (!plan) {
        std::fprintf(stderr, "augur-flock: %s\n", plan.error().c_str());
        return EXIT_USAGE;
    }
    const std::int64_t start = platform::monotonicNow_ns();
    for (;;) {
        if (auto fits = apps::flock::fitMemory(*plan, options, trajectories); !fits) {
            std::fprintf(stderr, "augur-flock: %s\n", fits.error().c_str());
            return EXIT_INPUT;
        }
        note(plan->notes);
        plan->notes.clear();
        auto finder = FlockFinder::create(options.params, plan->capacities, options.backend, FlockOptions{options.graph});
        if (!finder) {
            std::fprintf(stderr, "augur-flock: init failed: %s\n", toString(finder.error().error));
            return EXIT_INPUT;
        }
        // The CUDA backend downloads straight into a list in pinned memory (else it copies on the host).
        FlockList flocks;
        if (options.backend == kernels::Backend::Cuda) {
            if (auto pinned = FlockList::createPinned(plan->listFlocks, plan->listMembers)) {
                flocks = std::move(pinned).value();
            }
        }
        if (!flocks.pinned()) {
            flocks = FlockList::create(plan->listFlocks, plan->listMembers);
        }
        auto stats = finder->find(trajectories.view(), flocks, nullptr);
        if (!stats) {
            const FlockFailure& failure = stats.error();
            if (failure.error == FlockError::CapacityExceeded &&
                growCapacity(plan->capacities, plan->listFlocks, plan->listMembers, failure)) {
                std::fprintf(stderr, "augur-flock: %s exceeded (needed %lld), retrying with more room\n", toString(failure.capacity),
                             static_cast<long long>(failure.needed));
                continue;
            }
            std::fprintf(stderr, "augur-flock: %s (%s, needed %lld)\n", toString(failure.error), toString(failure.capacity),
                         static_cast<long long>(failure.needed));
            return EXIT_INPUT;
        }
        if (!writeOutput(options, trajectories, flocks)) {
            return EXIT_INPUT;
        }
        std::fprintf(stderr,
                     "augur-flock: %zu entities, %d steps, backend %s, CPU workers %d: %lld maximal flocks (%lld disks, %lld potential "
                     "flocks), potential %.1f ms, intersect %.1f ms, total %.1f ms\n",
                     trajectories.entityIds.size(), trajectories.stepCount, kernels::toString(options.backend),
                     options.backend == kernels::Backend::Cpu ? plan->capacities.workerThreads : 0,
                     static_cast<long long>(stats->flocks), static_cast<long long>(stats->disks),
                     static_cast<long long>(stats->potentialFlocks), stats->potential_us * 1e-3, stats->intersect_us * 1e-3,
                     static_cast<double>(platform::monotonicNow_ns() - start) * 1e-6);
        return 0;
    }
}

}  // namespace

int main(int argc, char** argv) {
    const auto options = apps::flock::parseOptions(std::vector<std::string>(argv + 1, argv + argc));
    if (!options) {
        std::fprintf(stderr, "augur-flock: %s\nRun with --help for the options and their ranges.\n", options.error().c_str());
        return EXIT_USAGE;
    }
    if (options->version) {
        std::puts(augur::apps::cli::versionLine().c_str());
        return 0;
    }
    if (options->help) {
        std::fputs(apps::flock::usage().c_str(), stdout);
        return 0;
    }
    try {
        return run(*options);
    } catch (const std::bad_alloc&) {
        // The estimate refuses what exceeds the limit; this is the machine having less than the limit.
        std::fprintf(stderr, "augur-flock: out of memory: lower --max-memory-gib below what this machine can give\n");
        return EXIT_INPUT;
    }
}
