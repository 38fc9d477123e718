// augur-bench-flock: maximal flocks f(δ, μ, ε) on synthetic trajectories — the seed's shape (about 145
// entities over 66,096 steps, sweeping ε, μ, δ as seeds/002 Figure 3 does) and at scale (2,000 and
// 20,000 entities over 1,000 steps). Times are end to end (host wall clock around find(), which blocks:
// input copies, kernels, downloads and the merge into the output list included); the CPU reference runs
// on all hardware threads. CUDA is measured with host input (find, direct and graph) and with the input
// already in device memory (findOnDevice, graph), as the runtime has it. The potential/intersection
// split is the CPU's wall time and, for CUDA, device time (resident, graph). Each CUDA result is
// compared with the CPU reference's (column "same").
//
// --sweep: afterwards, the launch shapes (FlockOptions: threads per block, blocks per SM, threads per
// block of the intersection kernels) swept on the seed-shaped run (ε = 50) and at 2,000 entities, with
// resident input and graphs; the figures behind kernels/flock/tuning.hpp.
// --grid: afterwards, the grid's cells per step (FlockCapacities::gridCellsPerStep, which both backends
// use) swept at 2,000 and 20,000 entities, CPU reference and CUDA (resident input, graphs) side by side.
// --step-sweep: afterwards, the per-step kernel's threads per block and blocks per SM (its shared memory
// per block) at 2,000 entities and on the seed shape (ε = 50), resident input, graphs.
// --profile: only the 2,000-entity run on CUDA, resident input, direct launches, until the capacities
// fit and then once more — for a kernel profiler (apps/benchmarks/flock/profile-kernels.sh takes the
// kernels of that last call).
//
// --stream: instead, the runtime's platoon search: the last δ = 10 of a stream of steps searched every
// 5th step, as FlockFinder on the whole window (CPU, one worker) and as FlockStream (each step's
// potential flocks found once, when it is pushed), side by side on the same traffic scenes of 32 to 256
// tracks at one density; each search's flocks compared (column "same"). Result family platoons
// (docs/results/platoons.json).
//
// --json FILE: the main table's figures as a result file (family flocks, docs/results/flocks.json).
//
//   augur-bench-flock [--quick] [--cpu-only] [--sweep] [--step-sweep] [--grid] [--profile] [--stream] [--json FILE]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "augur/bench/bench.hpp"
#include "augur/bench/bench_cli.hpp"
#include "augur/kernels/flock/flock_finder.hpp"
#include "augur/kernels/flock/flock_stream.hpp"
#include "augur/kernels/flock/synthetic.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"

namespace {

using namespace augur;
using namespace augur::kernels::flock;
using bench::fmt;
using bench::withThousands;

struct Scenario {
    std::string name;
    SyntheticSpec spec;
    FlockParams params;
};

SyntheticSpec seedShape(int steps) {
    SyntheticSpec s;
    s.entities = 145;
    s.steps = steps;
    s.groups = 12;
    s.groupSize = 8;
    s.area_m = 20000.0;
    s.groupSpread_m = 60.0;
    s.stepLength_m = 30.0;
    s.leaveProbability = 0.01;
    s.missingProbability = 0.001;
    s.seed = 2;
    return s;
}

SyntheticSpec atScale(int entities, int steps) {
    SyntheticSpec s;
    s.entities = entities;
    s.steps = steps;
    s.groups = entities / 20;  // 40 % of the entities in groups of 8
    s.groupSize = 8;
    s.area_m = 20000.0 * std::sqrt(static_cast<double>(entities) / 145.0);
    s.groupSpread_m = 60.0;
    s.stepLength_m = 30.0;
    s.leaveProbability = 0.01;
    s.missingProbability = 0.001;
    s.seed = 3;
    return s;
}

FlockCapacities capacitiesFor(const SyntheticSpec& spec, const FlockParams& params, int batchSteps) {
    FlockCapacities c;
    c.maxEntities = spec.entities;
    c.maxBatchSteps = std::max(params.windowSteps, std::min(spec.steps, batchSteps));
    // Two cells per entity: the fastest of 1, 2, 4 and 8 for CUDA at 2,000 and 20,000 entities, and within the
    // CPU reference's run-to-run noise of its best (--grid, docs/benchmarks.md).
    c.gridCellsPerStep = std::max(4096, std::min(2 * spec.entities, (1 << 28) / c.maxBatchSteps));
    // Start small and let growCapacity() find what the data needs: the CUDA path's prefix sums and grid-stride
    // loops run over capacity-sized index spaces, so oversized pools cost time.
    // Per-step pools are also the CUDA path's global workspaces (one per SM) for steps that do not fit in
    // shared memory: start them small too.
    c.maxDisksPerStep = 1 << 14;
    c.maxCandidateMembersPerStep = 1 << 17;
    c.maxFamilySetsPerBatch = 1 << 16;
    c.maxFamilyMembersPerBatch = 1 << 20;
    c.maxWorkSets = 1 << 15;
    c.maxWorkMembers = 1 << 21;
    c.maxIntersectSetsPerBatch = 1 << 16;
    c.maxIntersectMembersPerBatch = 1 << 20;
    c.maxFlocksPerBatch = 1 << 16;
    c.maxFlockMembersPerBatch = 1 << 20;
    return c;
}


struct Measured {
    bool ok{false};
    std::string error;
    FlockStats stats;
    double total_ms{0.0};
    std::vector<std::int32_t> signature;  ///< flattened output for the equality check
    FlockCapacities capacities;           ///< as grown to fit
};

/// `deviceView`: when not null, findOnDevice on it (CUDA, input resident in device memory).
Measured measure(const SyntheticTrajectories& t, const FlockParams& params, FlockCapacities capacities, kernels::Backend backend,
                 bool graph, int repetitions, platform::StreamHandle stream, const TrajectoryView* deviceView = nullptr,
                 FlockOptions options = {}) {
    options.useGraph = graph;
    Measured m;
    std::size_t listFlocks = 1 << 18;
    std::size_t listMembers = 1 << 22;
    for (int attempt = 0; attempt < 30; ++attempt) {
        auto finder = FlockFinder::create(params, capacities, backend, options);
        if (!finder) {
            m.error = std::string("init: ") + toString(finder.error().error);
            return m;
        }
        // CUDA downloads straight into a pinned list; the CPU reference fills a pageable one.
        auto made = backend == kernels::Backend::Cuda ? FlockList::createPinned(listFlocks, listMembers)
                                                      : Result<FlockList, platform::GpuError>(FlockList::create(listFlocks, listMembers));
        if (!made) {
            m.error = "pinned output list: " + platform::describe(made.error());
            return m;
        }
        FlockList& list = *made;
        const auto run = [&] { return deviceView != nullptr ? finder->findOnDevice(*deviceView, list, stream) : finder->find(t.view(), list, stream); };
        auto first = run();  // warm-up, and capacity discovery
        if (!first) {
            if (first.error().error == FlockError::CapacityExceeded && growCapacity(capacities, listFlocks, listMembers, first.error())) {
                continue;
            }
            m.error = std::string(toString(first.error().error)) + " " + toString(first.error().capacity);
            return m;
        }
        std::vector<double> potential;
        std::vector<double> intersect;
        m.total_ms = 1e-3 * bench::hostMedian_us(
                                [&] {
                                    auto r = run();
                                    if (r) {
                                        potential.push_back(r->potential_us);
                                        intersect.push_back(r->intersect_us);
                                        m.stats = *r;
                                    }
                                },
                                0, repetitions);
        m.stats.potential_us = bench::median(potential);
        m.stats.intersect_us = bench::median(intersect);
        for (const Flock& flock : list.flocks()) {
            m.signature.push_back(-1 - flock.windowStart);
            const auto members = list.members(flock);
            m.signature.insert(m.signature.end(), members.begin(), members.end());
        }
        m.capacities = capacities;
        m.ok = true;
        return m;
    }
    m.error = "capacities kept growing";
    return m;
}

/// Device copy of a trajectory set, viewed as findOnDevice expects.
struct DeviceTrajectories {
    platform::DeviceBuffer<double> x;
    platform::DeviceBuffer<double> y;
    platform::DeviceBuffer<std::uint8_t> present;
    TrajectoryView view{};

    static bool upload(const TrajectoryView& host, DeviceTrajectories& out) {
        const auto samples = static_cast<std::size_t>(host.entityCount) * static_cast<std::size_t>(host.stepCount);
        auto dx = platform::DeviceBuffer<double>::create(samples);
        auto dy = platform::DeviceBuffer<double>::create(samples);
        auto dp = platform::DeviceBuffer<std::uint8_t>::create(samples);
        if (!(dx && dy && dp && dx->upload(std::span<const double>(host.x_m, samples)) &&
              dy->upload(std::span<const double>(host.y_m, samples)) && dp->upload(std::span<const std::uint8_t>(host.present, samples)))) {
            return false;
        }
        out.x = std::move(dx).value();
        out.y = std::move(dy).value();
        out.present = std::move(dp).value();
        out.view = TrajectoryView{out.x.data(), out.y.data(), out.present.data(), host.entityCount, host.stepCount};
        return true;
    }
};

/// --profile: one scenario on CUDA, resident input, direct launches; the last find is the one to read.
int profileRun(const SyntheticSpec& spec, const FlockParams& params) {
    const SyntheticTrajectories t = generateTrajectories(spec);
    auto stream = platform::Stream::create();
    DeviceTrajectories device;
    if (!stream || !DeviceTrajectories::upload(t.view(), device)) {
        std::printf("profile: no stream or device memory\n");
        return 1;
    }
    const Measured m = measure(t, params, capacitiesFor(spec, params, 1000), kernels::Backend::Cuda, false, 1, stream->get(), &device.view);
    if (!m.ok) {
        std::printf("profile: %s\n", m.error.c_str());
        return 1;
    }
    std::printf("profile: n %d, τ %d, flocks %lld, total %.3f ms, potential (dev) %.3f ms, intersections (dev + download) %.3f ms, "
                "steps over the shared budget %lld (in place %lld, in global memory %lld)\n",
                spec.entities, spec.steps, static_cast<long long>(m.stats.flocks), m.total_ms, m.stats.potential_us * 1e-3,
                m.stats.intersect_us * 1e-3, static_cast<long long>(m.stats.stepsInWorkspace), static_cast<long long>(m.stats.stepsInPlace),
                static_cast<long long>(m.stats.stepsInGlobal));
    return 0;
}

struct SweepCase {
    const Scenario* scenario;
    FlockCapacities capacities;
};

/// The scenarios of the main table: the seed's shape with ε, μ and δ swept, and two scales.
std::vector<Scenario> tableScenarios(int seedSteps, int scaleSteps) {
    std::vector<Scenario> scenarios;
    const double eps[] = {25.0, 50.0, 75.0, 100.0};
    scenarios.push_back({"scale", atScale(2000, scaleSteps), {5, 10, 50.0}});
    for (const double e : eps) {
        scenarios.push_back({"seed ε sweep", seedShape(seedSteps), {5, 10, e}});
    }
    for (const int mu : {3, 4, 6}) {
        scenarios.push_back({"seed μ sweep", seedShape(seedSteps), {mu, 10, 50.0}});
    }
    for (const int delta : {5, 20}) {
        scenarios.push_back({"seed δ sweep", seedShape(seedSteps), {5, delta, 50.0}});
    }
    scenarios.push_back({"scale", atScale(20000, scaleSteps), {5, 10, 50.0}});
    return scenarios;
}

/// Jetson AGX Orin's LPDDR5 bandwidth, GB/s: a call's bytes over it are its floor there.
constexpr double ORIN_BANDWIDTH_GBPS = 205.0;

/// Bytes a call must move at least: every sample read once (x and y as doubles, the presence byte) and
/// each maximal potential flock written once and read once by the intersection stage with at least μ
/// members of 4 bytes. Disks, grids and the intersection's intermediate families are not counted.
double callBytes(const Scenario& sc, const FlockStats& stats) {
    const double samples = static_cast<double>(sc.spec.entities) * static_cast<double>(sc.spec.steps) * (8.0 + 8.0 + 1.0);
    const double family = 2.0 * static_cast<double>(stats.potentialFlocks) * 4.0 * static_cast<double>(sc.params.minEntities);
    return samples + family;
}

/// The slowest seed-shaped runs of the main table, for the result file's summary (negative: none yet).
struct SlowestSeed {
    double resident_ms{-1.0};
    double hostInput_ms{-1.0};
};

/// One scenario's figures in the result file: the CPU reference's and resident CUDA's times, at scale
/// the speed-ups (`best`: the faster CUDA run from host input, 0 without one); the seed-shaped runs
/// raise `slowest`.
void addScenarioResults(bench::ResultFile& results, const Scenario& s, const Measured& cpu, const Measured& resident,
                        double best, SlowestSeed& slowest) {
    const std::string n = withThousands(s.spec.entities);
    const std::string run = s.name == "scale" ? n + " entities x " + withThousands(s.spec.steps) + " steps"
                                              : "seed-shaped, epsilon " + fmt(s.params.radius_m, 0) + ", mu " +
                                                    std::to_string(s.params.minEntities) + ", delta " +
                                                    std::to_string(s.params.windowSteps);
    if (cpu.ok) {
        results.add(run + ", CPU reference (all cores)", cpu.total_ms, cpu.total_ms < 10.0 ? 2 : 1, "ms");
    }
    if (resident.ok) {
        results.add(run + ", GPU resident", resident.total_ms, resident.total_ms < 10.0 ? 2 : 1, "ms");
    }
    if (s.name == "scale" && cpu.ok && resident.ok) {
        results.add(n + " entities, CPU reference / GPU resident", cpu.total_ms / resident.total_ms, 1, "x");
    }
    if (s.name == "scale" && cpu.ok && best > 0.0) {
        results.add(n + " entities, CPU reference / GPU from host input", cpu.total_ms / best, 1, "x");
    }
    if (s.name != "scale" && resident.ok) {
        slowest.resident_ms = std::max(slowest.resident_ms, resident.total_ms);
        slowest.hostInput_ms = std::max(slowest.hostInput_ms, best);
    }
}

/// The main table: every scenario on the CPU reference and, with a GPU, CUDA from host input, as a
/// graph and from resident input; its figures also go to `results`. Returns the cases the sweeps reuse
/// (the seed's at ε = 50 m, 2,000 entities) with their grown capacities.
std::vector<SweepCase> mainTable(const std::vector<Scenario>& scenarios, bool gpu, platform::StreamHandle stream,
                                 bench::ResultFile& results) {
    std::vector<SweepCase> sweepCases;
    SlowestSeed slowest;
    bench::Table table("Maximal flocks: CUDA vs CPU reference (all cores), end to end, ms (median)",
                       {"scenario", "n", "τ", "ε", "μ", "δ", "disks", "ΣF_t sets", "flocks", "CPU pot.", "CPU ∩", "CPU total",
                        "GPU pot. (dev)", "GPU ∩ (dev)", "GPU total", "GPU graph total", "GPU resident graph total",
                        "MB moved / 205 GB/s (Orin) ms", "speed-up (host input)", "speed-up (resident)", "same"});
    for (const Scenario& s : scenarios) {
        const SyntheticTrajectories t = generateTrajectories(s.spec);
        const int batch = s.spec.entities <= 1000 ? 8192 : 1000;
        const FlockCapacities capacities = capacitiesFor(s.spec, s.params, batch);
        const int cpuReps = s.spec.entities >= 20000 ? 1 : 3;
        const Measured cpu = measure(t, s.params, capacities, kernels::Backend::Cpu, false, cpuReps, nullptr);
        Measured cuda;
        Measured graph;
        Measured resident;
        if (gpu && stream != nullptr) {
            cuda = measure(t, s.params, capacities, kernels::Backend::Cuda, false, 5, stream);
            const FlockCapacities grown = cuda.ok ? cuda.capacities : capacities;
            graph = measure(t, s.params, grown, kernels::Backend::Cuda, true, 5, stream);
            DeviceTrajectories device;
            if (DeviceTrajectories::upload(t.view(), device)) {
                resident = measure(t, s.params, grown, kernels::Backend::Cuda, true, 5, stream, &device.view);
            }
            const bool seed50 = s.spec.entities == 145 && s.params.radius_m == 50.0 && s.params.minEntities == 5 && s.params.windowSteps == 10;
            if (resident.ok && (seed50 || s.spec.entities == 2000)) {
                sweepCases.push_back({&s, resident.capacities});
            }
        }
        const auto ms = [](const Measured& m, double us) { return m.ok ? fmt(us * 1e-3, 2) : std::string(m.error.empty() ? "-" : m.error); };
        const auto total = [](const Measured& m) { return m.ok ? fmt(m.total_ms, m.total_ms < 10.0 ? 2 : 1) : std::string("-"); };
        const bool same = cpu.ok && cuda.ok && graph.ok && resident.ok && cpu.signature == cuda.signature &&
                          cpu.signature == graph.signature && cpu.signature == resident.signature;
        const double best = graph.ok && cuda.ok ? std::min(graph.total_ms, cuda.total_ms) : (cuda.ok ? cuda.total_ms : 0.0);
        const auto speedUp = [&cpu](double gpu_ms) { return gpu_ms > 0.0 && cpu.ok ? fmt(cpu.total_ms / gpu_ms, 1) + "×" : std::string("-"); };
        table.row({s.name, std::to_string(s.spec.entities), std::to_string(s.spec.steps), fmt(s.params.radius_m, 0),
                   std::to_string(s.params.minEntities), std::to_string(s.params.windowSteps), std::to_string(cpu.stats.disks),
                   std::to_string(cpu.stats.potentialFlocks), std::to_string(cpu.stats.flocks), ms(cpu, cpu.stats.potential_us),
                   ms(cpu, cpu.stats.intersect_us), cpu.ok ? fmt(cpu.total_ms, 1) : cpu.error, ms(resident, resident.stats.potential_us),
                   ms(resident, resident.stats.intersect_us), total(cuda), total(graph), total(resident),
                   fmt(callBytes(s, cpu.stats) / 1e6, 1) + " / " + fmt(callBytes(s, cpu.stats) / (ORIN_BANDWIDTH_GBPS * 1e6), 3), speedUp(best),
                   speedUp(resident.ok ? resident.total_ms : 0.0), gpu ? (same ? "yes" : "NO") : "-"});
        addScenarioResults(results, s, cpu, resident, best, slowest);
    }
    if (slowest.resident_ms > 0.0) {
        results.add("seed-shaped, slowest of the sweep, GPU resident", slowest.resident_ms, 1, "ms");
        results.add("seed-shaped, slowest of the sweep, GPU from host input", slowest.hostInput_ms, 1, "ms");
    }
    return sweepCases;
}

/// Runs `run` on each sweep case, generated and copied to the device for that sweep.
template <typename Run>
void forEachResidentCase(const std::vector<SweepCase>& sweepCases, Run&& run) {
    for (const SweepCase& c : sweepCases) {
        const Scenario& s = *c.scenario;
        const SyntheticTrajectories t = generateTrajectories(s.spec);
        DeviceTrajectories resident;
        if (DeviceTrajectories::upload(t.view(), resident)) {
            run(c, s, t, resident.view);
        }
    }
}

/// --sweep: the launch shapes (threads per block, blocks per SM, window kernel threads).
void sweepLaunchShapes(const std::vector<SweepCase>& sweepCases, platform::StreamHandle stream) {
    bench::Table shapes("Launch shapes: CUDA, resident input, graphs, end to end, ms (median of 5)",
                        {"scenario", "n", "τ", "threads/block", "blocks/SM", "∩ threads/block", "GPU pot. (dev)", "GPU ∩ (dev)",
                         "total"});
    forEachResidentCase(sweepCases, [&](const SweepCase& c, const Scenario& s, const SyntheticTrajectories& t, const TrajectoryView& device) {
        for (const int block : {128, 256, 512}) {
            for (const int blocksPerSm : {4, 8, 16}) {
                for (const int windowBlock : {64, 128, 256}) {
                    FlockOptions options;
                    options.blockThreads = block;
                    options.blocksPerMultiprocessor = blocksPerSm;
                    options.windowBlockThreads = windowBlock;
                    const Measured m = measure(t, s.params, c.capacities, kernels::Backend::Cuda, true, 5, stream, &device, options);
                    shapes.row({s.name, std::to_string(s.spec.entities), std::to_string(s.spec.steps), std::to_string(block),
                                std::to_string(blocksPerSm), std::to_string(windowBlock),
                                m.ok ? fmt(m.stats.potential_us * 1e-3, 2) : m.error, m.ok ? fmt(m.stats.intersect_us * 1e-3, 2) : "-",
                                m.ok ? fmt(m.total_ms, 2) : "-"});
                }
            }
        }
    });
}

/// --step-sweep: the per-step kernel's threads per block and blocks per SM.
void sweepStepKernel(const std::vector<SweepCase>& sweepCases, platform::StreamHandle stream) {
    bench::Table shapes("Per-step kernel: CUDA, resident input, graphs, end to end, ms (median of 5)",
                        {"scenario", "n", "τ", "threads/block", "step blocks/SM", "steps over the shared budget", "of them in place", "GPU pot. (dev)",
                         "GPU ∩ (dev)", "total"});
    forEachResidentCase(sweepCases, [&](const SweepCase& c, const Scenario& s, const SyntheticTrajectories& t, const TrajectoryView& device) {
        for (const int block : {128, 256, 512, 1024}) {
            for (const int perSm : {1, 2, 3, 4}) {
                if (block * perSm > 2048) {
                    continue;  // more threads than an SM holds
                }
                FlockOptions options;
                options.blockThreads = block;
                options.stepBlocksPerMultiprocessor = perSm;
                const Measured m = measure(t, s.params, c.capacities, kernels::Backend::Cuda, true, 5, stream, &device, options);
                shapes.row({s.name, std::to_string(s.spec.entities), std::to_string(s.spec.steps), std::to_string(block),
                            std::to_string(perSm), m.ok ? std::to_string(m.stats.stepsInWorkspace) : "-",
                            m.ok ? std::to_string(m.stats.stepsInPlace) : "-", m.ok ? fmt(m.stats.potential_us * 1e-3, 2) : m.error, m.ok ? fmt(m.stats.intersect_us * 1e-3, 2) : "-",
                            m.ok ? fmt(m.total_ms, 2) : "-"});
            }
        }
    });
}

/// --grid: grid cells per step, on the CPU reference and (with a GPU) CUDA from resident input.
void sweepGridCells(int scaleSteps, bool gpu, platform::StreamHandle stream) {
    bench::Table cells("Grid cells per step: CPU reference (all cores) and CUDA (resident input, graphs), end to end, ms (median)",
                       {"n", "τ", "cells per step", "cells per entity", "CPU pot.", "CPU total", "GPU pot. (dev)", "GPU ∩ (dev)",
                        "GPU resident graph total", "speed-up", "same"});
    for (const int entities : {2000, 20000}) {
        const SyntheticSpec spec = atScale(entities, scaleSteps);
        const FlockParams params{5, 10, 50.0};
        const SyntheticTrajectories t = generateTrajectories(spec);
        DeviceTrajectories device;
        const bool onDevice = gpu && stream != nullptr && DeviceTrajectories::upload(t.view(), device);
        for (const int perEntity : {1, 2, 4, 8}) {
            FlockCapacities capacities = capacitiesFor(spec, params, 1000);
            capacities.gridCellsPerStep = perEntity * entities;
            const Measured cpu = measure(t, params, capacities, kernels::Backend::Cpu, false, entities >= 20000 ? 1 : 3, nullptr);
            Measured resident;
            if (onDevice) {
                resident = measure(t, params, capacities, kernels::Backend::Cuda, true, 5, stream, &device.view);
            }
            const auto ms = [](const Measured& m, double v) { return m.ok ? fmt(v, 2) : std::string("-"); };
            cells.row({std::to_string(entities), std::to_string(spec.steps), std::to_string(capacities.gridCellsPerStep),
                       std::to_string(perEntity), ms(cpu, cpu.stats.potential_us * 1e-3), ms(cpu, cpu.total_ms),
                       ms(resident, resident.stats.potential_us * 1e-3), ms(resident, resident.stats.intersect_us * 1e-3),
                       ms(resident, resident.total_ms),
                       cpu.ok && resident.ok ? fmt(cpu.total_ms / resident.total_ms, 1) + "×" : std::string("-"),
                       cpu.ok && resident.ok ? (cpu.signature == resident.signature ? "yes" : "NO") : "-"});
        }
    }
}

/// A road scene's worth of tracks at one density: half of them in platoons of 4 a few metres apart,
/// moving 2.4 m a step (12 m/s at 5 Hz), 64 tracks to a 400 m square (more tracks: a larger square,
/// as a sensor range holds more road, not denser traffic); tracks leave and rejoin, one sample in 100
/// is missing.
SyntheticSpec trafficShape(int entities, int steps) {
    SyntheticSpec s;
    s.entities = entities;
    s.steps = steps;
    s.groups = entities / 8;
    s.groupSize = 4;
    s.area_m = 400.0 * std::sqrt(static_cast<double>(entities) / 64.0);
    s.groupSpread_m = 8.0;
    s.stepLength_m = 2.4;
    s.leaveProbability = 0.02;
    s.missingProbability = 0.01;
    s.seed = 5;
    return s;
}

/// Flocks of one search as sorted entity lists, for the comparison.
std::vector<std::vector<std::int32_t>> entitySets(const FlockList& list, const auto& entityOf) {
    std::vector<std::vector<std::int32_t>> sets;
    for (const Flock& f : list.flocks()) {
        std::vector<std::int32_t> set;
        for (const std::int32_t m : list.members(f)) {
            set.push_back(entityOf(m));
        }
        sets.push_back(set);
    }
    std::sort(sets.begin(), sets.end());
    return sets;
}

double nowMs() { return static_cast<double>(platform::monotonicNow_ns()) * 1e-6; }

struct StreamRun {
    std::vector<double> finder_ms;  ///< per search
    std::vector<double> stream_ms;  ///< per search: the pushes since the last one, and find
    std::int64_t disks{0};
    std::int64_t flocks{0};
    bool same{true};
    bool ok{true};
};

StreamRun compareStream(const SyntheticTrajectories& t, const FlockParams& params, int every) {
    StreamRun run;
    const int n = t.entityCount;
    SyntheticSpec sized;
    sized.entities = n;
    sized.steps = params.windowSteps;
    FlockCapacities capacities = capacitiesFor(sized, params, params.windowSteps);
    capacities.gridCellsPerStep = 1024;  // the platoon stage's grid
    capacities.workerThreads = 1;
    auto finder = FlockFinder::create(params, capacities, kernels::Backend::Cpu);
    FlockStreamCapacities streamCapacities;
    streamCapacities.maxPointsPerStep = n;
    auto stream = FlockStream::create(params, streamCapacities);
    if (!finder || !stream) {
        run.ok = false;
        return run;
    }
    FlockList finderList = FlockList::create(1 << 12, 1 << 16);
    FlockList streamList = FlockList::create(1 << 12, 1 << 16);
    std::vector<StreamPoint> points;
    points.reserve(static_cast<std::size_t>(n));
    double pushed_ms = 0.0;
    for (int step = 0; step < t.stepCount; ++step) {
        points.clear();
        for (int e = 0; e < n; ++e) {
            const std::size_t k = static_cast<std::size_t>(step) * static_cast<std::size_t>(n) + static_cast<std::size_t>(e);
            if (t.present[k] != 0) {
                points.push_back({static_cast<std::uint32_t>(e), t.x_m[k], t.y_m[k]});
            }
        }
        const double t0 = nowMs();
        run.ok = run.ok && stream->push(points).hasValue();
        pushed_ms += nowMs() - t0;
        if (step + 1 < params.windowSteps || (step + 1) % every != 0) {
            continue;
        }
        const std::size_t first = static_cast<std::size_t>(step + 1 - params.windowSteps) * static_cast<std::size_t>(n);
        const TrajectoryView window{t.x_m.data() + first, t.y_m.data() + first, t.present.data() + first, n, params.windowSteps};
        const double t1 = nowMs();
        const auto found = finder->find(window, finderList, nullptr);
        const double t2 = nowMs();
        const auto streamed = stream->find(streamList);
        const double t3 = nowMs();
        run.ok = run.ok && found.hasValue() && streamed.hasValue();
        if (!run.ok) {
            return run;
        }
        run.finder_ms.push_back(t2 - t1);
        run.stream_ms.push_back(pushed_ms + (t3 - t2));
        pushed_ms = 0.0;
        run.disks += found->disks;
        run.flocks += found->flocks;
        const auto& sut = *stream;
        run.same = run.same && entitySets(finderList, [](std::int32_t m) { return m; }) ==
                                   entitySets(streamList, [&sut](std::int32_t m) { return static_cast<std::int32_t>(sut.key(m)); });
    }
    return run;
}

/// --stream: the runtime's platoon search, FlockFinder on the window against FlockStream.
void streamTable(int steps, bench::ResultFile& results) {
    constexpr int EVERY = 5;
    const FlockParams params{3, 10, 10.0};  // config/default.yaml's flocks: μ 3, δ 10, ε 10 m, every 5 cycles
    bench::Table table("Platoon search: the last 10 steps every 5th step, FlockFinder on the window (CPU, 1 worker) vs FlockStream, ms per search",
                       {"tracks", "searches", "disks per search", "flocks per search", "window p50", "window p99", "stream p50",
                        "stream p99", "p50 ratio", "same"});
    for (const int tracks : {32, 64, 128, 256}) {
        const SyntheticTrajectories t = generateTrajectories(trafficShape(tracks, steps));
        const StreamRun run = compareStream(t, params, EVERY);
        if (!run.ok || run.finder_ms.empty()) {
            table.row({std::to_string(tracks), "failed", "-", "-", "-", "-", "-", "-", "-", "-"});
            continue;
        }
        const double searches = static_cast<double>(run.finder_ms.size());
        const double w50 = bench::percentile(run.finder_ms, 0.5);
        const double w99 = bench::percentile(run.finder_ms, 0.99);
        const double s50 = bench::percentile(run.stream_ms, 0.5);
        const double s99 = bench::percentile(run.stream_ms, 0.99);
        table.row({std::to_string(tracks), std::to_string(run.finder_ms.size()), fmt(static_cast<double>(run.disks) / searches, 0),
                   fmt(static_cast<double>(run.flocks) / searches, 1), fmt(w50, 3), fmt(w99, 3), fmt(s50, 3), fmt(s99, 3),
                   fmt(w50 / s50, 2) + "×", run.same ? "yes" : "NO"});
        if (tracks < 64) {
            continue;  // the result file keeps 64, 128 (the track list's capacity) and 256 tracks
        }
        const std::string name = std::to_string(tracks) + " tracks";
        results.add(name + ", FlockFinder on the window, p50 per search", w50, 3, "ms");
        results.add(name + ", FlockFinder on the window, p99 per search", w99, 3, "ms");
        results.add(name + ", FlockStream, p50 per search", s50, 3, "ms");
        results.add(name + ", FlockStream, p99 per search", s99, 3, "ms");
    }
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    bool cpuOnly = false;
    bool sweep = false;
    bool profile = false;
    bool gridSweep = false;
    bool stepSweep = false;
    bool streamOnly = false;
    std::string json;
    CLI::App app{"augur-bench-flock: maximal flocks, CUDA against the CPU reference on all cores.", "augur-bench-flock"};
    apps::cli::useConventions(app);
    app.add_flag("--quick", quick, "4,096 seed-shaped steps instead of 66,096, 200 steps at scale instead of 1,000");
    app.add_flag("--cpu-only", cpuOnly, "the CPU reference only, even where CUDA is available");
    app.add_flag("--sweep", sweep, "afterwards, the launch shapes (CUDA)");
    app.add_flag("--step-sweep", stepSweep, "afterwards, the per-step kernel's threads per block and blocks per SM (CUDA)");
    app.add_flag("--grid", gridSweep, "afterwards, the grid's cells per step, CPU and CUDA");
    app.add_flag("--profile", profile, "only the 2,000-entity run on CUDA, for a kernel profiler");
    app.add_flag("--stream", streamOnly, "only the runtime's platoon search: FlockFinder on the window against FlockStream (CPU)");
    bench::addJsonOption(app, json);
    if (const auto exit = bench::parseArguments(app, argc, argv)) {
        return *exit;
    }
    const bool gpu = !cpuOnly && kernels::available(kernels::Backend::Cuda);
    const int seedSteps = quick ? 4096 : 66096;
    const int scaleSteps = quick ? 200 : 1000;
    std::printf("CPU reference: %u hardware threads; CUDA %s\n", std::thread::hardware_concurrency(), gpu ? "available" : "not used");
    if (profile) {
        if (!gpu) {
            std::printf("--profile needs CUDA\n");
            return 1;
        }
        return profileRun(atScale(2000, scaleSteps), {5, 10, 50.0});
    }

    if (streamOnly) {
        bench::ResultFile results("platoons", "Platoon search (CPU)", 41);
        results.setDevice(bench::describeDevice(false));
        results.setCommand(bench::commandLine(argc, argv));
        streamTable(quick ? 1000 : 5000, results);
        return bench::writeResults(results, json) ? 0 : apps::cli::EXIT_INPUT;
    }
    auto stream = platform::Stream::create();
    const platform::StreamHandle handle = stream ? stream->get() : nullptr;
    bench::ResultFile results("flocks", "Flock patterns", 40);
    results.setDevice(bench::describeDevice(gpu));
    results.setCommand(bench::commandLine(argc, argv));
    const std::vector<Scenario> scenarios = tableScenarios(seedSteps, scaleSteps);  // the sweep cases point into it
    const std::vector<SweepCase> sweepCases = mainTable(scenarios, gpu, handle, results);
    if (sweep && gpu && stream) {
        sweepLaunchShapes(sweepCases, handle);
    }
    if (stepSweep && gpu && stream) {
        sweepStepKernel(sweepCases, handle);
    }
    if (gridSweep) {
        sweepGridCells(scaleSteps, gpu, handle);
    }
    return bench::writeResults(results, json) ? 0 : apps::cli::EXIT_INPUT;
}
