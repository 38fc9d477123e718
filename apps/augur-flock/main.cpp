// augur-flock: reports the maximal flocks f(δ, μ, ε) of trajectories read from CSV.
//
//   augur-flock --input tracks.csv --mu 5 --delta 10 --epsilon 1200 [--backend cpu|cuda] [--graph]
//               [--output flocks.csv] [--threads N] [--batch-steps N]
//
// ε is the RADIUS of the disk that must hold the flock at every step (seeds/002, Definition 1).
// Capacities start from the built-in defaults and are grown automatically when a run reports that one
// was exceeded (offline use: each retry re-initialises). Formats: docs/flock-tool.md.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <string>

#include "augur/kernels/flock/flock_finder.hpp"
#include "augur/platform/clock.hpp"
#include "trajectory_csv.hpp"

namespace {

using namespace augur;
using namespace augur::kernels::flock;

struct Options {
    std::string input;
    std::string output;
    FlockParams params;
    bool haveMu{false}, haveDelta{false}, haveEpsilon{false};
    kernels::Backend backend{kernels::Backend::Cpu};
    bool graph{false};
    int threads{0};
    int batchSteps{0};
};

void usage() {
    std::fprintf(stderr,
                 "usage: augur-flock --input FILE --mu N --delta N --epsilon R [--backend cpu|cuda] [--graph]\n"
                 "                   [--output FILE] [--threads N] [--batch-steps N]\n"
                 "  input rows:  entity_id,step,x,y   (epsilon is a disk RADIUS in the units of x, y)\n"
                 "  output rows: window_start,window_end,size,entity_ids (ids ascending, ';'-separated)\n");
}

bool parseArgs(int argc, char** argv, Options& o) {
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        const auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
        const char* v = nullptr;
        if (arg == "--graph") {
            o.graph = true;
            continue;
        }
        if (arg == "-h" || arg == "--help" || (v = value()) == nullptr) {
            return false;
        }
        if (arg == "--input") {
            o.input = v;
        } else if (arg == "--output") {
            o.output = v;
        } else if (arg == "--mu") {
            o.params.minEntities = std::atoi(v);
            o.haveMu = true;
        } else if (arg == "--delta") {
            o.params.windowSteps = std::atoi(v);
            o.haveDelta = true;
        } else if (arg == "--epsilon") {
            o.params.radius_m = std::strtod(v, nullptr);
            o.haveEpsilon = true;
        } else if (arg == "--backend") {
            if (std::strcmp(v, "cpu") == 0) {
                o.backend = kernels::Backend::Cpu;
            } else if (std::strcmp(v, "cuda") == 0) {
                o.backend = kernels::Backend::Cuda;
            } else {
                return false;
            }
        } else if (arg == "--threads") {
            o.threads = std::atoi(v);
        } else if (arg == "--batch-steps") {
            o.batchSteps = std::atoi(v);
        } else {
            return false;
        }
    }
    return !o.input.empty() && o.haveMu && o.haveDelta && o.haveEpsilon;
}


}  // namespace

int main(int argc, char** argv) {
    Options options;
    if (!parseArgs(argc, argv, options)) {
        usage();
        return 2;
    }
    std::ifstream in(options.input);
    if (!in) {
        std::fprintf(stderr, "augur-flock: cannot open %s\n", options.input.c_str());
        return 1;
    }
    auto parsed = apps::flock::readTrajectories(in);
    if (!parsed) {
        std::fprintf(stderr, "augur-flock: %s line %zu: %s\n", options.input.c_str(), parsed.error().line, parsed.error().message.c_str());
        return 1;
    }
    const apps::flock::Trajectories& trajectories = *parsed;

    FlockCapacities capacities;
    capacities.maxEntities = std::max<int>(1, static_cast<int>(trajectories.entityIds.size()));
    capacities.maxBatchSteps = options.batchSteps > 0 ? options.batchSteps
                                                      : std::max(options.params.windowSteps, std::min(trajectories.stepCount, 4096));
    capacities.workerThreads = options.threads;
    std::size_t listFlocks = 1 << 16;
    std::size_t listMembers = 1 << 20;
    const std::int64_t start = platform::monotonicNow_ns();
    for (;;) {
        auto finder = FlockFinder::create(options.params, capacities, options.backend, FlockOptions{options.graph});
        if (!finder) {
            std::fprintf(stderr, "augur-flock: init failed: %s\n", toString(finder.error().error));
            return 1;
        }
        // The CUDA backend downloads straight into a list in pinned memory (else it copies on the host).
        FlockList flocks;
        if (options.backend == kernels::Backend::Cuda) {
            if (auto pinned = FlockList::createPinned(listFlocks, listMembers)) {
                flocks = std::move(pinned).value();
            }
        }
        if (!flocks.pinned()) {
            flocks = FlockList::create(listFlocks, listMembers);
        }
        auto stats = finder->find(trajectories.view(), flocks, nullptr);
        if (!stats) {
            const FlockFailure& failure = stats.error();
            if (failure.error == FlockError::CapacityExceeded && growCapacity(capacities, listFlocks, listMembers, failure)) {
                std::fprintf(stderr, "augur-flock: %s exceeded (needed %lld), retrying with more room\n", toString(failure.capacity),
                             static_cast<long long>(failure.needed));
                continue;
            }
            std::fprintf(stderr, "augur-flock: %s (%s, needed %lld)\n", toString(failure.error), toString(failure.capacity),
                         static_cast<long long>(failure.needed));
            return 1;
        }
        if (options.output.empty()) {
            apps::flock::writeFlocks(std::cout, trajectories, flocks, options.params.windowSteps);
        } else {
            std::ofstream out(options.output);
            apps::flock::writeFlocks(out, trajectories, flocks, options.params.windowSteps);
            if (!out) {
                std::fprintf(stderr, "augur-flock: cannot write %s\n", options.output.c_str());
                return 1;
            }
        }
        std::fprintf(stderr,
                     "augur-flock: %zu entities, %d steps, backend %s: %lld maximal flocks (%lld disks, %lld potential flocks), "
                     "potential %.1f ms, intersect %.1f ms, total %.1f ms\n",
                     trajectories.entityIds.size(), trajectories.stepCount, kernels::toString(options.backend),
                     static_cast<long long>(stats->flocks), static_cast<long long>(stats->disks),
                     static_cast<long long>(stats->potentialFlocks), stats->potential_us * 1e-3, stats->intersect_us * 1e-3,
                     static_cast<double>(platform::monotonicNow_ns() - start) * 1e-6);
        return 0;
    }
}
