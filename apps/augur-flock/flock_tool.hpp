// augur-flock's command line and run planning, separate from main() so that tests can drive them:
// options and their ranges, the worker count, capacities sized from the data, and the memory estimate
// that refuses a run before it allocates. Formats: docs/flock-tool.md. Offline tool: allocates freely,
// reports errors as messages.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/kernels/backend.hpp"
#include "augur/kernels/flock/flock_types.hpp"
#include "trajectory_csv.hpp"

namespace augur::apps::flock {

struct Options {
    std::string input;
    std::string output;
    kernels::flock::FlockParams params;
    kernels::Backend backend{kernels::Backend::Cpu};
    bool graph{false};
    int threads{0};       ///< CPU workers; 0: all hardware threads (clamped, see workerCount)
    int batchSteps{0};    ///< 0: automatic
    double maxMemory_gib{DEFAULT_MAX_MEMORY_BYTES / (1024.0 * 1024.0 * 1024.0)};
    bool help{false};
    bool version{false};  ///< --version was given: print the version line and exit 0

    [[nodiscard]] double maxMemoryBytes() const noexcept { return maxMemory_gib * 1024.0 * 1024.0 * 1024.0; }
};

/// Parses the arguments (argv[0] excluded). Errors name the option, the value and the accepted range.
[[nodiscard]] Result<Options, std::string> parseOptions(const std::vector<std::string>& args);

/// The help text.
[[nodiscard]] std::string usage();

/// Worker threads for `--threads requested` on a machine with `hardwareThreads` (0: unknown, taken as 1):
/// 0 means all of them; any count is clamped to [1, hardwareThreads], since the CPU stages are compute
/// bound and more threads than the hardware runs only add memory and switching.
[[nodiscard]] int workerCount(int requested, unsigned hardwareThreads) noexcept;

/// How a run is set up. `notes` are said on standard error (clamped threads, fewer workers to fit).
struct RunPlan {
    kernels::flock::FlockCapacities capacities;
    std::size_t listFlocks{std::size_t{1} << 16U};
    std::size_t listMembers{std::size_t{1} << 20U};
    std::vector<std::string> notes;
};

/// Capacities for `trajectories` (steps held at once: --batch-steps, else min(steps, 4096) but at least δ,
/// and never more than the finder's MAX_BATCH_SAMPLES / entities) and the workers. Errors: --batch-steps
/// shorter than --delta, or a batch of δ steps over MAX_BATCH_SAMPLES.
[[nodiscard]] Result<RunPlan, std::string> planRun(const Options& options, const Trajectories& trajectories,
                                                   unsigned hardwareThreads);

/// Host memory of a run: the trajectory grid, the finder's reservations (FlockFinder::hostMemory) and the
/// output list. When it exceeds the limit the workers are reduced until it fits (with a note); when even
/// one worker does not fit, the error gives the figure and the limit. Call again after growing a capacity.
[[nodiscard]] Result<void, std::string> fitMemory(RunPlan& plan, const Options& options, const Trajectories& trajectories);

}  // namespace augur::apps::flock
