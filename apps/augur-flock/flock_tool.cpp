// augur-flock's command line and run planning (flock_tool.hpp).
#include "flock_tool.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <thread>

#include "augur/kernels/flock/flock_finder.hpp"
#include "augur_cli.hpp"

namespace augur::apps::flock {

namespace {

using kernels::flock::Flock;
using kernels::flock::FlockFinder;
using kernels::flock::MAX_BATCH_SAMPLES;

constexpr int INT_MAX_VALUE = std::numeric_limits<int>::max();
constexpr int DEFAULT_BATCH_STEPS = 4096;
constexpr double MAX_RADIUS = 1e15;             ///< ε: any length unit, but its square must stay finite
constexpr double MAX_MEMORY_GIB = 1024.0 * 1024.0;  ///< 1 PiB: a limit, not a claim about any machine

void defineOptions(CLI::App& app, Options& o) {
    app.description(
        "Reports the maximal flocks f(delta, mu, epsilon) of trajectories read from CSV: groups of at least mu\n"
        "entities that stay within one disk of RADIUS epsilon for delta consecutive steps.\n"
        "  input rows:  entity_id,step,x,y   (epsilon is a disk RADIUS in the units of x, y)\n"
        "  output rows: window_start,window_end,size,entity_ids (ids ascending, ';'-separated)\n"
        "Memory: the run's host memory (the dense step x entity grid, the finder's buffers, the output) is\n"
        "estimated from the input's extents first; over --max-memory-gib the CPU workers are reduced until it\n"
        "fits, and a run that does not fit with one worker is refused before it allocates.\n"
        "Exit status: 0 done, 1 unreadable or malformed input, a run over the memory limit, a failed run;\n"
        "2 bad option. Formats: docs/flock-tool.md");
    cli::useConventions(app);
    app.add_option("--input", o.input, "Trajectories CSV")->required();
    app.add_option("--output", o.output, "Flocks CSV (default: standard output)");
    app.add_option("--mu", o.params.minEntities, "Entities in a flock")->required()->check(cli::integerIn(2, INT_MAX_VALUE));
    app.add_option("--delta", o.params.windowSteps, "Consecutive steps of a window")
        ->required()
        ->check(cli::integerIn(1, MAX_BATCH_SAMPLES));
    app.add_option("--epsilon", o.params.radius_m, "Disk RADIUS, in the units of x and y")
        ->required()
        ->check(cli::numberIn(0.0, MAX_RADIUS, true));
    cli::addChoice(app, "--backend", o.backend, {{"cpu", kernels::Backend::Cpu}, {"cuda", kernels::Backend::Cuda}},
                   "Where the search runs");
    app.add_flag("--graph", o.graph, "CUDA: replay each batch's kernels as a CUDA graph");
    app.add_option("--threads", o.threads,
                   "CPU worker threads; 0: all hardware threads. More are clamped to the hardware threads (" +
                       std::to_string(workerCount(0, std::thread::hardware_concurrency())) + " here)")
        ->check(cli::integerIn(0, INT_MAX_VALUE))
        ->capture_default_str();
    app.add_option("--batch-steps", o.batchSteps, "Steps held at once (at least --delta); 0: min(steps, 4096)")
        ->check(cli::integerIn(0, MAX_BATCH_SAMPLES))
        ->capture_default_str();
    app.add_option("--max-memory-gib", o.maxMemory_gib, "Host memory the run may reserve, GiB")
        ->check(cli::numberIn(0.0, MAX_MEMORY_GIB, true))
        ->capture_default_str();
}

std::string plural(std::int64_t count, const char* one, const char* many) {
    return std::to_string(count) + " " + (count == 1 ? one : many);
}

}  // namespace

std::string usage() { return cli::helpOf<Options>("augur-flock", defineOptions); }

Result<Options, std::string> parseOptions(const std::vector<std::string>& args) {
    Options o;
    if (auto parsed = cli::parseInto("augur-flock", args, o, defineOptions); !parsed) {
        return fail(std::move(parsed).error());
    }
    if (!o.help && !o.version && o.batchSteps != 0 && o.batchSteps < o.params.windowSteps) {
        return fail("--batch-steps: " + std::to_string(o.batchSteps) + " is shorter than the window (--delta " +
                    std::to_string(o.params.windowSteps) + "); give at least " + std::to_string(o.params.windowSteps) +
                    " or 0 (automatic)");
    }
    return o;
}

int workerCount(int requested, unsigned hardwareThreads) noexcept {
    const int hardware = static_cast<int>(std::clamp<unsigned>(hardwareThreads, 1U, static_cast<unsigned>(INT_MAX_VALUE)));
    return requested <= 0 ? hardware : std::min(requested, hardware);
}

Result<RunPlan, std::string> planRun(const Options& options, const Trajectories& trajectories, unsigned hardwareThreads) {
    RunPlan plan;
    const auto entities = static_cast<std::int64_t>(std::max<std::size_t>(1, trajectories.entityIds.size()));
    const int delta = options.params.windowSteps;
    if (static_cast<std::int64_t>(delta) * entities > MAX_BATCH_SAMPLES) {
        return fail("--delta " + std::to_string(delta) + " × " + plural(entities, "entity", "entities") +
                    " exceeds the finder's limit of " + std::to_string(MAX_BATCH_SAMPLES) + " samples per batch");
    }
    const auto fitting = static_cast<int>(MAX_BATCH_SAMPLES / entities);  // ≥ δ, checked above
    int batch = options.batchSteps;
    if (batch > 0 && static_cast<std::int64_t>(batch) * entities > MAX_BATCH_SAMPLES) {
        return fail("--batch-steps: " + std::to_string(batch) + " × " + plural(entities, "entity", "entities") +
                    " exceeds the finder's limit of " + std::to_string(MAX_BATCH_SAMPLES) + " samples per batch; give at most " +
                    std::to_string(fitting));
    }
    if (batch == 0) {
        batch = std::min(std::max(delta, std::min(trajectories.stepCount, DEFAULT_BATCH_STEPS)), fitting);
    }
    plan.capacities.maxEntities = static_cast<int>(entities);
    plan.capacities.maxBatchSteps = batch;
    const int workers = workerCount(options.threads, hardwareThreads);
    if (options.threads > workers) {
        plan.notes.push_back("--threads " + std::to_string(options.threads) + " clamped to " + std::to_string(workers) +
                             " (the hardware threads)");
    }
    plan.capacities.workerThreads = workers;
    return plan;
}

Result<void, std::string> fitMemory(RunPlan& plan, const Options& options, const Trajectories& trajectories) {
    const double limit = options.maxMemoryBytes();
    const double grid = gridBytes(static_cast<double>(trajectories.stepCount), static_cast<double>(trajectories.entityIds.size()));
    const double list = static_cast<double>(plan.listFlocks) * sizeof(Flock) + static_cast<double>(plan.listMembers) * sizeof(std::int32_t);
    const auto finder = FlockFinder::hostMemory(options.params, plan.capacities, options.backend);
    const int workers = options.backend == kernels::Backend::Cpu ? plan.capacities.workerThreads : 0;
    const double fixed = grid + list + finder.shared_bytes;
    const double total = fixed + finder.total(workers) - finder.shared_bytes;
    if (total <= limit) {
        return {};
    }
    const double room = limit - fixed;
    const double fits = finder.perWorker_bytes > 0.0 && room > 0.0 ? std::floor(room / finder.perWorker_bytes) : 0.0;
    if (workers > 1 && fits >= 1.0) {
        const int reduced = static_cast<int>(std::min<double>(fits, workers - 1));
        plan.notes.push_back(plural(workers, "CPU worker", "CPU workers") + " would reserve " + formatBytes(total) + ", over the memory limit of " +
                             formatBytes(limit) + " (--max-memory-gib): using " + std::to_string(reduced));
        plan.capacities.workerThreads = reduced;
        return {};
    }
    return fail("the run needs " + formatBytes(options.backend == kernels::Backend::Cpu ? fixed + finder.perWorker_bytes : total) +
                " of host memory (trajectory grid " + formatBytes(grid) + ", flock finder " +
                formatBytes(finder.total(std::min(workers, 1))) + ", output list " + formatBytes(list) +
                "), over the memory limit of " + formatBytes(limit) + " (--max-memory-gib)");
}

}  // namespace augur::apps::flock
