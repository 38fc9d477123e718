// augur-bench-pf — particle filter stages and whole step (CUDA and the CPU reference), the seed
// papers' baselines (Thrust permutation-iterator copy, atomicAdd output reduction), the scan and
// reduction variants, and the K = 10⁶ step against its bytes-over-bandwidth floor.
//
//   augur-bench-pf [--quick] [--profile] [--only SECTION] [--json FILE]
// Prints Markdown tables (docs/results/particle-filter.json keeps the current figures with device, date,
// commit and command; scripts/bench-tables puts them into docs/benchmarks.md). --profile runs a few
// plain (not captured) steps of the seed-scale and K = 10⁶ filters and nothing else, for a profiler
// (ncu) to time each kernel. --only runs one section: baselines, stages, nodes (the step's graph node
// by node, and two filters with their outputs' copies), floor, scan (the scan variants and the
// single-pass tile shapes), reduce or ungm. --json FILE writes every figure of the tables as a result
// file (family particle-filter; metrics named "TABLE; KEY COLUMNS: COLUMN", bench.hpp), and with them the
// headline figures under the names, digits, units and targets of docs/results/particle-filter.json, so
// that scripts/bench-tables --compare pairs a new file with the committed one.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <functional>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "augur/bench/bench.hpp"
#include "augur/bench/bench_cli.hpp"
#include "augur/kernels/backend.hpp"
#include "augur/kernels/pf/filter.hpp"
#include "augur/kernels/primitives/reduce.hpp"
#include "augur/kernels/primitives/scan.hpp"
#include "augur/platform/gpu_info.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"
#if AUGUR_HAVE_CUDA
#include "augur/kernels/pf/testing/filter_probe.hpp"
#include "augur/kernels/pf/testing/gather_baseline.hpp"
#include "baselines.hpp"
#endif

namespace {

using namespace augur;
using kernels::pf::FilterConfig;
using kernels::pf::SceneModel;
using kernels::pf::SceneVehicleInput;
using kernels::pf::StateLayout;
using platform::StreamHandle;

bool g_quick = false;

/// A scene that stays consistent under repeated steps with the same inputs (the timing loops replay one
/// step many times): vehicles standing at their measured positions, speed limits of zero. A moving
/// model against a fixed measurement would degenerate the weights, and one source particle would
/// then write most copy indices (see docs/benchmarks.md, first run).
std::vector<SceneVehicleInput> sceneInputs(std::uint32_t vehicles) {
    std::vector<SceneVehicleInput> in(vehicles);
    for (std::uint32_t n = 0; n < vehicles; ++n) {
        auto& v = in[n];
        v.x_m = 12.0F * static_cast<float>(n);
        v.y_m = 3.5F * static_cast<float>(n % 4);
        v.v_mps = 0.0F;
        v.corridorCount = 2;
        v.corridors[0].goSpeed_mps = 0.0F;
        v.corridors[1].goSpeed_mps = 0.0F;
        v.corridors[1].heading_rad = 0.3F;
        v.corridors[1].distanceToStop_m = 35.0F;
        v.corridors[1].mustGiveWay = 1;
        v.corridors[1].giveWayTo = static_cast<std::int32_t>((n + 1) % vehicles);
    }
    return in;
}

FilterConfig sceneConfig(std::uint32_t particles, std::uint32_t vehicles, StateLayout layout) {
    FilterConfig c;
    c.particles = particles;
    c.vehicles = vehicles;
    c.seed = 2023;
    c.layout = layout;
    c.resampleThreshold = 2.0F;  // resample every step: the worst case
    return c;
}

const char* layoutName(StateLayout layout) { return layout == StateLayout::ArrayOfStructs ? "AoS" : "SoA"; }

/// The CPU reference's whole step; threads as FilterConfig::cpuThreads (0: every hardware thread).
double cpuStep_us(std::uint32_t particles, std::uint32_t vehicles, StateLayout layout, std::uint32_t threads = 1) {
    auto config = sceneConfig(particles, vehicles, layout);
    config.cpuThreads = threads;
    auto filter = kernels::pf::cpu::ParticleFilter<SceneModel>::create(config, {});
    if (!filter) {
        return -1.0;
    }
    const auto in = sceneInputs(vehicles);
    (void)filter->initialize(in);
    const int reps = particles * vehicles >= 100'000 ? 3 : 10;
    return bench::hostMedian_us([&] { filter->step(); }, 1, reps);
}

#if AUGUR_HAVE_CUDA

/// The seed's scale, where the headline step figures are taken: K = 20,000 particles, 20 vehicles.
constexpr std::uint32_t SEED_PARTICLES = 20'000;
constexpr std::uint32_t SEED_VEHICLES = 20;

bool isSeedScale(std::uint32_t particles, std::uint32_t vehicles) {
    return particles == SEED_PARTICLES && vehicles == SEED_VEHICLES;
}

/// The targets of docs/results/particle-filter.json, in its words.
constexpr const char* SEED_STEP_TARGET = "<= 25 us";
constexpr const char* RESAMPLING_COPY_TARGET = ">= 24x";
constexpr const char* OUTPUT_REDUCTION_TARGET = ">= 8x";
constexpr const char* SCAN_AGAINST_CUB_TARGET = "<= 1.10";
constexpr const char* STEP_AGAINST_FLOOR_TARGET = "<= 1.5";
constexpr const char* CPU_AGAINST_GRAPH_TARGET = ">= 5x";

/// A headline time as the committed file writes it (µs, two decimals); a failed timing (negative) adds
/// nothing, as its table cell is no measurement either.
void addTime(bench::ResultFile& results, const std::string& metric, double us, const std::string& target = {}) {
    if (us > 0.0) {
        results.add(metric, us, 2, "us", target);
    }
}

/// A headline ratio `numerator / denominator` ("x", `digits` decimals); nothing when either timing failed.
void addRatio(bench::ResultFile& results, const std::string& metric, double numerator, double denominator, int digits,
              const std::string& target = {}) {
    if (numerator > 0.0 && denominator > 0.0) {
        results.add(metric, numerator / denominator, digits, "x", target);
    }
}

/// "1 vehicle", "20 vehicles": how the headline metrics name a vehicle count.
std::string vehicleCount(std::uint32_t vehicles) {
    return std::to_string(vehicles) + (vehicles == 1 ? " vehicle" : " vehicles");
}

using Enqueue = std::function<platform::GpuStatus(StreamHandle)>;

/// One replay of the graph captured from `enqueue` (µs, median; −1: the capture failed), timed from an
/// idle device — so it includes the host's submission of the graph, as every graph replay in
/// docs/benchmarks.md — and queued behind a memset (bench::queuedDeviceMedian_us): the device time alone.
struct ReplayTimes {
    double idle, queued;
};

ReplayTimes graphReplay_us(StreamHandle stream, const platform::DeviceMemory& busy, const Enqueue& enqueue) {
    auto graph = platform::Graph::capture(stream, enqueue);
    if (!graph) {
        return {-1.0, -1.0};
    }
    const auto replay = [&](StreamHandle s) { (void)graph->launch(s); };
    return {bench::deviceMedian_us(stream, replay), bench::queuedDeviceMedian_us(stream, busy, replay)};
}

/// graph: the step's graph replay from an idle device; queued: queued behind a memset (graphReplay_us).
struct StageTimes {
    double upload, advance, combine, reduce, step, graph, queued;
};

StageTimes gpuStages(std::uint32_t particles, std::uint32_t vehicles, StateLayout layout, StreamHandle stream,
                     const platform::DeviceMemory& busy) {
    StageTimes t{};
    auto created = kernels::pf::cuda::ParticleFilter<SceneModel>::create(sceneConfig(particles, vehicles, layout), {});
    if (!created) {
        return StageTimes{-1, -1, -1, -1, -1, -1, -1};
    }
    auto& f = *created;
    const auto in = sceneInputs(vehicles);
    (void)f.initialize(in, stream);
    (void)f.setInputs(in);
    (void)f.step(stream);  // a resampling is pending: advance draws the copy indices and reads through them
    kernels::pf::testing::FilterProbe stages(f);
    t.upload = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)stages.uploadInputs(s); });
    t.advance = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)stages.advance(s); });
    t.combine = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)stages.combine(s); });
    t.reduce = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)stages.reduce(s); });
    t.step = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)f.step(s); });
    const ReplayTimes replay = graphReplay_us(stream, busy, [&f](StreamHandle s) { return f.step(s); });
    t.graph = replay.idle;
    t.queued = replay.queued;
    return t;
}

/// The stage table; at seed scale in the default layout (SoA) also the headline step and the CPU
/// reference on every hardware thread against it.
void stageTable(StreamHandle stream, const platform::DeviceMemory& busy, bench::ResultFile& results) {
    const std::string hostThreads = std::to_string(std::thread::hardware_concurrency());
    bench::Table table("Scene model: stages and whole step, resampling every step (µs, device time, median)",
                       {"K", "vehicles", "layout", "upload",
                        "advance (copy indices + gather + predict + update + partials)", "combine (+ CDF scan)",
                        "reduce alone (partials + combine)",
                        "step (stream)", "step (graph replay)", "step (graph replay queued behind a memset)",
                        "CPU step, 1 core", "CPU 1 core / graph",
                        "CPU step, all " + hostThreads + " threads",
                        "CPU all threads / graph"}, 3);
    struct Case {
        std::uint32_t k;
        std::uint32_t vehicles;
    };
    std::vector<Case> cases = {{1000, 1}, {10'000, 1}, {100'000, 1}, {1'000'000, 1}, {20'000, 20}};
    for (const auto& c : cases) {
        for (const StateLayout layout : {StateLayout::ArrayOfStructs, StateLayout::StructOfArrays}) {
            const auto t = gpuStages(c.k, c.vehicles, layout, stream, busy);
            const bool runCpu = !g_quick || c.k * c.vehicles <= 100'000;
            const double cpu = runCpu ? cpuStep_us(c.k, c.vehicles, layout) : -1.0;
            const double cpuAll = runCpu ? cpuStep_us(c.k, c.vehicles, layout, 0) : -1.0;
            table.row({std::to_string(c.k), std::to_string(c.vehicles), layoutName(layout), bench::fmt(t.upload),
                       bench::fmt(t.advance), bench::fmt(t.combine), bench::fmt(t.reduce),
                       bench::fmt(t.step), bench::fmt(t.graph), bench::fmt(t.queued), bench::fmt(cpu, 0),
                       cpu > 0 ? bench::fmt(cpu / t.graph, 1) + "x" : "-", bench::fmt(cpuAll, 0),
                       cpuAll > 0 ? bench::fmt(cpuAll / t.graph, 1) + "x" : "-"});
            if (isSeedScale(c.k, c.vehicles) && layout == StateLayout::StructOfArrays) {
                addTime(results, "seed-scale step, graph replay (stage table)", t.graph, SEED_STEP_TARGET);
                addRatio(results, "CPU reference (" + hostThreads + " threads) / CUDA graph replay, seed scale", cpuAll,
                         t.graph, 0, CPU_AGAINST_GRAPH_TARGET);
            }
        }
    }
}

/// The step's graph node by node: replays of graphs holding its first n nodes (upload, advance,
/// combine), the step without its upload, and the same shape with no work (the upload, then two
/// empty kernels), so the difference between two columns is what a node adds to the replay, its
/// launch and ramp included. Each timed from an idle device (the host's submission
/// included) and queued behind a memset (the device time alone). Every graph resamples every step. At
/// seed scale the whole step's replay from idle is also the headline step.
void nodeTable(StreamHandle stream, const platform::DeviceMemory& busy, bench::ResultFile& results) {
    bench::Table table("The step's graph node by node (SoA, graph replay, µs, device time, median)",
                       {"K", "vehicles", "timed", "upload", "+ advance (with the copy indices)",
                        "+ combine (the step)", "the step without upload", "upload + 2 empty kernels"}, 3);
    struct Case {
        std::uint32_t k;
        std::uint32_t vehicles;
    };
    for (const Case c : {Case{1000, 1}, Case{1'000'000, 1}, Case{20'000, 20}}) {
        auto f = kernels::pf::cuda::ParticleFilter<SceneModel>::create(
            sceneConfig(c.k, c.vehicles, StateLayout::StructOfArrays), {});
        if (!f) {
            continue;
        }
        const auto in = sceneInputs(c.vehicles);
        (void)f->initialize(in, stream);
        (void)f->setInputs(in);
        (void)f->step(stream);
        kernels::pf::testing::FilterProbe stages(*f);
        constexpr std::size_t WHOLE_STEP = 2;  // graphs[WHOLE_STEP]: the step, all three nodes
        const std::vector<Enqueue> graphs = {
            [&](StreamHandle s) { return stages.uploadInputs(s); },
            [&](StreamHandle s) -> platform::GpuStatus {
                AUGUR_CUDA_TRY(stages.uploadInputs(s));
                return stages.advance(s);
            },
            [&](StreamHandle s) { return f->step(s); },
            [&](StreamHandle s) -> platform::GpuStatus {
                AUGUR_CUDA_TRY(stages.advance(s));
                return stages.combine(s);
            },
            [&](StreamHandle s) -> platform::GpuStatus {
                AUGUR_CUDA_TRY(stages.uploadInputs(s));
                for (int i = 0; i < 2; ++i) {
                    AUGUR_CUDA_TRY(bench::emptyKernel(s));
                }
                return {};
            },
        };
        std::vector<std::string> idle = {std::to_string(c.k), std::to_string(c.vehicles), "from idle"};
        std::vector<std::string> queued = {std::to_string(c.k), std::to_string(c.vehicles), "queued behind a memset"};
        for (std::size_t g = 0; g < graphs.size(); ++g) {
            const ReplayTimes t = graphReplay_us(stream, busy, graphs[g]);
            idle.push_back(bench::fmt(t.idle));
            queued.push_back(bench::fmt(t.queued));
            if (g == WHOLE_STEP && isSeedScale(c.k, c.vehicles)) {
                addTime(results, "seed-scale step, graph replay (node table)", t.idle, SEED_STEP_TARGET);
            }
        }
        table.row(idle);
        table.row(queued);
    }
}

/// Two filters of the runtime's default shape (64 vehicles: two filters of 32, 20,000 particles) in
/// one graph, as the runtime's intention stage captures them: the filters write their outputs into
/// mapped page-locked memory, no copy nodes. For comparison, the earlier designs: a copy node per
/// filter (an outputs-sized device buffer to page-locked memory) after each step — a kernel behind
/// each copy — or after both steps.
void outputCopyTable(StreamHandle stream, const platform::DeviceMemory& busy) {
    constexpr std::uint32_t K = 20'000;
    constexpr std::uint32_t VEHICLES = 32;
    bench::Table table("Two 32-vehicle filters (K = 20,000) and their outputs' copies in one graph (SoA, µs)",
                       {"order", "graph replay", "graph replay queued behind a memset"});
    std::vector<kernels::pf::cuda::ParticleFilter<SceneModel>> filters;
    for (std::uint32_t f = 0; f < 2; ++f) {
        auto config = sceneConfig(K, VEHICLES, StateLayout::StructOfArrays);
        config.seed += f;
        auto created = kernels::pf::cuda::ParticleFilter<SceneModel>::create(config, {});
        if (!created) {
            return;
        }
        filters.push_back(std::move(created).value());
    }
    const auto in = sceneInputs(VEHICLES);
    const std::size_t outputs = kernels::pf::outputCount<SceneModel>(VEHICLES);
    auto host = platform::PinnedMemory::allocate(2 * outputs * sizeof(float), false);
    auto device = platform::DeviceBuffer<float>::create(2 * outputs);
    if (!host || !device) {
        return;
    }
    auto* out = static_cast<float*>(host->get());
    for (auto& f : filters) {
        (void)f.initialize(in, stream);
        (void)f.setInputs(in);
        (void)f.step(stream);
    }
    const auto copy = [&](std::size_t f, StreamHandle s) {
        return platform::copyToHost(out + f * outputs, device->data() + f * outputs, outputs * sizeof(float), s);
    };
    enum class Copies { AfterEach, AfterAll, None };
    for (const Copies copies : {Copies::AfterEach, Copies::AfterAll, Copies::None}) {
        const ReplayTimes t = graphReplay_us(stream, busy, [&](StreamHandle s) -> platform::GpuStatus {
            for (std::size_t f = 0; f < filters.size(); ++f) {
                AUGUR_CUDA_TRY(filters[f].step(s));
                if (copies == Copies::AfterEach) {
                    AUGUR_CUDA_TRY(copy(f, s));
                }
            }
            for (std::size_t f = 0; copies == Copies::AfterAll && f < filters.size(); ++f) {
                AUGUR_CUDA_TRY(copy(f, s));
            }
            return {};
        });
        const char* order = copies == Copies::AfterEach  ? "each step, then a copy node"
                            : copies == Copies::AfterAll ? "both steps, then two copy nodes"
                                                         : "both steps, outputs in mapped memory (the runtime)";
        table.row({order, bench::fmt(t.idle), bench::fmt(t.queued)});
    }
}

/// The advance kernel with and without a pending resampling (threshold 2: every step resamples;
/// threshold 0: none does): the difference is what drawing the copy indices and the gather fused
/// into predict cost (advance() alone: the search does not overlap an upload, as in the step).
double advance_us(std::uint32_t particles, std::uint32_t vehicles, StateLayout layout, float threshold,
                  StreamHandle stream) {
    auto config = sceneConfig(particles, vehicles, layout);
    config.resampleThreshold = threshold;
    auto f = kernels::pf::cuda::ParticleFilter<SceneModel>::create(config, {});
    if (!f) {
        return -1.0;
    }
    const auto in = sceneInputs(vehicles);
    (void)f->initialize(in, stream);
    (void)f->setInputs(in);
    (void)f->step(stream);
    kernels::pf::testing::FilterProbe stages(*f);
    return bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)stages.advance(s); });
}

std::vector<float> randomFloats(std::size_t n, float lo, float hi, std::uint32_t seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> u(lo, hi);
    std::vector<float> v(n);
    for (auto& x : v) {
        x = u(gen);
    }
    return v;
}

/// The baselines' headline speed-ups at `vehicles` (K = SEED_PARTICLES): Thrust's permutation-iterator
/// copy against the resampling copy as the step does it, fused into the advance (`fused`: the cost of the
/// fused copy indices and gather; 0 below the timer's resolution, which gives no ratio), and atomicAdd
/// against the output reduction.
void addBaselineResults(bench::ResultFile& results, std::uint32_t vehicles, double thrust, double fused, double atomic,
                        double deterministic) {
    addRatio(results, "resampling copy against Thrust permutation-iterator copy, " + vehicleCount(vehicles), thrust,
             fused, 1, RESAMPLING_COPY_TARGET);
    addRatio(results,
             "output reduction against atomicAdd, K = " + bench::withThousands(SEED_PARTICLES) + ", " +
                 vehicleCount(vehicles),
             atomic, deterministic, 1, OUTPUT_REDUCTION_TARGET);
}

/// The seed papers' baselines; their speed-ups are also headline figures, per vehicle count.
void baselineTables(StreamHandle stream, bench::ResultFile& results) {
    constexpr std::uint32_t K = SEED_PARTICLES;
    bench::Table copy("Resampling copy vs Thrust permutation-iterator copy (Hortelano et al. 2023 §5.5: 24.2x), K = 20,000",
                      {"vehicles", "bytes/particle", "Thrust copy, AoS (µs)", "standalone gather, AoS (µs)",
                       "speed-up", "advance, resampled (µs)", "advance, not resampled (µs)",
                       "fused copy indices + gather: the difference (µs)", "Thrust / fused"}, 2);
    std::vector<std::vector<std::string>> reduceRows;
    for (const std::uint32_t vehicles : {1U, 20U}) {
        const std::uint32_t stride = vehicles * SceneModel::SLOT_FLOATS;
        const auto states = randomFloats(static_cast<std::size_t>(K) * stride, 0.0F, 3.0F, 1);
        const auto logWeights = randomFloats(K, -6.0F, 0.0F, 2);
        std::vector<std::uint32_t> copyIndex(K);
        std::mt19937 gen(3);
        std::uniform_int_distribution<std::uint32_t> pick(0, K - 1);
        for (auto& j : copyIndex) {
            j = pick(gen);
        }
        std::sort(copyIndex.begin(), copyIndex.end());
        auto src = platform::DeviceBuffer<float>::create(states.size());
        auto dst = platform::DeviceBuffer<float>::create(states.size());
        auto idx = platform::DeviceBuffer<std::uint32_t>::create(K);
        auto lw = platform::DeviceBuffer<float>::create(K);
        auto out = platform::DeviceBuffer<float>::create(1 + vehicles * SceneModel::OUTPUTS_PER_VEHICLE);
        if (!src || !dst || !idx || !lw || !out) {
            std::printf("allocation failed\n");
            return;
        }
        (void)src->upload(states, stream);
        (void)idx->upload(copyIndex, stream);
        (void)lw->upload(logWeights, stream);
        const double thrust = bench::deviceMedian_us(stream, [&](StreamHandle s) {
            (void)kernels::pf::cuda::testing::gatherParticlesThrust(src->data(), dst->data(), idx->data(), K, stride, s);
        });
        const double ours = bench::deviceMedian_us(stream, [&](StreamHandle s) {
            (void)kernels::pf::cuda::gatherParticles(src->data(), dst->data(), idx->data(), K, stride,
                                                     StateLayout::ArrayOfStructs, nullptr, s);
        });
        const StateLayout layout = StateLayout::StructOfArrays;  // the default layout
        const double resampled = advance_us(K, vehicles, layout, 2.0F, stream);
        const double kept = advance_us(K, vehicles, layout, 0.0F, stream);
        const double fused = resampled - kept;
        // A difference below the event timer's resolution (about 0.5 µs, cudaEventElapsedTime) is no
        // cost at all; a ratio over it would be noise (0.08 µs gave "1502.6x").
        constexpr double EVENT_RESOLUTION_US = 0.5;
        copy.row({std::to_string(vehicles), std::to_string(stride * 4), bench::fmt(thrust), bench::fmt(ours),
                  bench::fmt(thrust / ours, 1) + "x", bench::fmt(resampled), bench::fmt(kept), bench::fmt(fused),
                  fused >= EVENT_RESOLUTION_US ? bench::fmt(thrust / fused, 1) + "x" : "(no measurable cost)"});
        const auto in = sceneInputs(vehicles);

        // Over the weights a step left, with no resampling pending (the reduce stage would first draw
        // its copy indices, which the atomicAdd baseline does not do).
        auto reduceConfig = sceneConfig(K, vehicles, StateLayout::ArrayOfStructs);
        reduceConfig.resampleThreshold = 0.0F;
        auto aos = kernels::pf::cuda::ParticleFilter<SceneModel>::create(reduceConfig, {});
        (void)aos->initialize(in, stream);
        (void)aos->setInputs(in);
        (void)aos->step(stream);
        const double atomic = bench::deviceMedian_us(stream, [&](StreamHandle s) {
            (void)bench::sceneOutputsAtomicAdd(src->data(), lw->data(), K, vehicles, StateLayout::ArrayOfStructs,
                                               out->data(), s);
        });
        kernels::pf::testing::FilterProbe stages(*aos);
        const double deterministic = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)stages.reduce(s); });
        reduceRows.push_back({std::to_string(vehicles),
                              std::to_string(1 + vehicles * SceneModel::OUTPUTS_PER_VEHICLE), bench::fmt(atomic),
                              bench::fmt(deterministic), bench::fmt(atomic / deterministic, 1) + "x"});
        addBaselineResults(results, vehicles, thrust, fused >= EVENT_RESOLUTION_US ? fused : 0.0, atomic,
                           deterministic);
    }
    bench::Table reduce("Output reduction vs atomicAdd baseline (Hortelano et al. 2023 §5.5: 4.56x), K = 20,000, AoS",
                        {"vehicles", "channels", "atomicAdd (µs)", "ours: partials + combine, with N_eff (µs)",
                         "speed-up"}, 2);
    for (const auto& row : reduceRows) {
        reduce.row(row);
    }
}

/// The sizes of the primitive tables and their input (uniform floats in [0, 1)), on the device.
struct PrimitiveInput {
    std::vector<std::uint32_t> sizes = {20'000, 1U << 20U, 1U << 26U};
    platform::DeviceBuffer<float> in;
    platform::DeviceBuffer<float> out;
};

std::optional<PrimitiveInput> primitiveInput(StreamHandle stream) {
    PrimitiveInput p;
    const auto input = randomFloats(p.sizes.back(), 0.0F, 1.0F, 9);
    auto in = platform::DeviceBuffer<float>::create(p.sizes.back());
    auto out = platform::DeviceBuffer<float>::create(p.sizes.back());
    if (!in || !out || !in->upload(input, stream)) {
        return std::nullopt;
    }
    p.in = std::move(*in);
    p.out = std::move(*out);
    return p;
}

/// The single-pass scan's compiled tile shapes against CUB (device time, median): which one
/// SinglePassLookback should use at each size (kernels/primitives/tuning.hpp records the choice).
void shapeTable(StreamHandle stream, PrimitiveInput& p) {
    namespace scan = kernels::primitives::cuda;
    const auto shapes = scan::singlePassShapes();
    std::vector<std::string> columns = {"n"};
    for (const auto& shape : shapes) {
        columns.push_back(std::to_string(shape.block) + "x" + std::to_string(shape.segments) + " (" +
                          std::to_string(shape.block * shape.segments * 4) + ")" +
                          (shape.packed ? " packed" : " flag+values") + (shape.spinWait_ns > 0 ? ", waits" : ""));
    }
    columns.emplace_back("CUB (µs)");
    columns.emplace_back("used (shape)");
    columns.emplace_back("used / CUB");
    columns.emplace_back("fastest / CUB");
    bench::Table table("Single-pass look-back tile shapes (float, device time, median, µs)", columns);
    for (const std::uint32_t n : p.sizes) {
        std::vector<std::string> row = {std::to_string(n)};
        std::vector<double> times;
        for (std::size_t s = 0; s < shapes.size(); ++s) {
            auto scratch = platform::DeviceMemory::allocate(scan::singlePassScratchBytes(s, n));
            const double us = bench::deviceMedian_us(stream, [&](StreamHandle st) {
                (void)scan::singlePassScan(s, p.in.data(), p.out.data(), n, scratch->get(), scratch->bytes(), st);
            });
            times.push_back(us);
            row.push_back(bench::fmt(us));
        }
        const auto variant = kernels::primitives::ScanVariant::Cub;
        auto cubScratch = platform::DeviceMemory::allocate(scan::exclusiveScanScratchBytes(variant, n));
        const double cub = bench::deviceMedian_us(stream, [&](StreamHandle st) {
            (void)scan::exclusiveScan(variant, p.in.data(), p.out.data(), n, cubScratch->get(), cubScratch->bytes(), st);
        });
        const std::size_t used = scan::singlePassDefaultShape();
        row.push_back(bench::fmt(cub));
        row.push_back(std::to_string(used));
        row.push_back(bench::fmt(times[used] / cub, 2));
        row.push_back(bench::fmt(*std::min_element(times.begin(), times.end()) / cub, 2));
        table.row(row);
    }
}

/// The scan variants' table (then the tile shapes'); at 2^26 floats the single-pass look-back scan,
/// CUB and the best hand-written scan against CUB are also headline figures.
void scanTables(StreamHandle stream, PrimitiveInput& p, bench::ResultFile& results) {
    constexpr std::uint32_t HEADLINE_N = 1U << 26U;
    using kernels::primitives::ALL_SCAN_VARIANTS;
    using kernels::primitives::ScanVariant;
    const auto& sizes = p.sizes;
    auto* in = &p.in;
    auto* out = &p.out;
    std::vector<std::string> scanColumns = {"n"};
    for (const auto v : ALL_SCAN_VARIANTS) {
        scanColumns.emplace_back(std::string(kernels::primitives::toString(v)) + " (µs)");
    }
    scanColumns.emplace_back("best hand-written / CUB");
    bench::Table scan("Exclusive scan variants (float, device time, median)", scanColumns);
    for (const std::uint32_t n : sizes) {
        std::vector<std::string> row = {std::to_string(n)};
        double best = 1e30;
        double cub = 0.0;
        double singlePass = 0.0;
        for (const auto v : ALL_SCAN_VARIANTS) {
            auto scratch = platform::DeviceMemory::allocate(kernels::primitives::cuda::exclusiveScanScratchBytes(v, n));
            const double us = bench::deviceMedian_us(stream, [&](StreamHandle s) {
                (void)kernels::primitives::cuda::exclusiveScan(v, in->data(), out->data(), n, scratch->get(),
                                                               scratch->bytes(), s);
            });
            row.push_back(bench::fmt(us));
            if (v == ScanVariant::Cub) {
                cub = us;
            } else {
                best = std::min(best, us);
            }
            if (v == ScanVariant::SinglePassLookback) {
                singlePass = us;
            }
        }
        row.push_back(bench::fmt(best / cub, 2));
        scan.row(row);
        if (n == HEADLINE_N) {
            const std::string metric = "exclusive scan at 2^26 floats, ";
            addTime(results, metric + "single-pass look-back", singlePass);
            addTime(results, metric + "CUB", cub);
            addRatio(results, metric + "ours / CUB", best, cub, 2, SCAN_AGAINST_CUB_TARGET);
        }
    }
    shapeTable(stream, p);
}

void reduceTable(StreamHandle stream, PrimitiveInput& p) {
    using kernels::primitives::ALL_REDUCE_VARIANTS;
    using kernels::primitives::ReduceVariant;
    const auto& sizes = p.sizes;
    auto* in = &p.in;
    auto* out = &p.out;
    std::vector<std::string> reduceColumns = {"n"};
    for (const auto v : ALL_REDUCE_VARIANTS) {
        reduceColumns.emplace_back(std::string(kernels::primitives::toString(v)) + " (µs)");
    }
    bench::Table reduce("Sum reduction variants (float, device time, median)", reduceColumns);
    for (const std::uint32_t n : sizes) {
        std::vector<std::string> row = {std::to_string(n)};
        for (const auto v : ALL_REDUCE_VARIANTS) {
            auto scratch = platform::DeviceMemory::allocate(kernels::primitives::cuda::reduceSumScratchBytes(v, n) + 1);
            const double us = bench::deviceMedian_us(stream, [&](StreamHandle s) {
                (void)kernels::primitives::cuda::reduceSum(v, in->data(), out->data(), n, scratch->get(),
                                                           scratch->bytes(), s);
            });
            row.push_back(bench::fmt(us));
        }
        reduce.row(row);
    }
}

/// The K = 10^6 step against its floor; the copy bandwidth, both layouts' steps and their ratios to
/// their floors are also headline figures.
void floorTable(StreamHandle stream, const platform::DeviceMemory& busy, bench::ResultFile& results) {
    constexpr std::uint32_t K = 1'000'000;
    constexpr double ORIN_BANDWIDTH_GBPS = 205.0;  // Jetson AGX Orin's LPDDR5: the same bytes' floor there
    const double bandwidth = bench::measureCopyBandwidth_GBps(stream, std::size_t{512} << 20U);  // 512 MiB
    // Bytes per particle the step's kernels move, single vehicle (a 48-byte slot, 40 bytes of it used,
    // 28 of them read by the step: SceneModel::READ_FIELDS): advance: its copy indices drawn from
    // the CDF (8) and written to ρ (4), ρ 4 read back + state read (AoS: the 48-byte slot; SoA: the
    // bytes read) + log-w 4, state write (AoS 48, SoA the 40 used) + log-w 4; combine: the CDF scan,
    // log-w 4 + CDF 8, and the block partials (< 0.2 B per particle). Drawing the copy indices in the
    // advance moves the same bytes as a separate copy-index kernel would.
    constexpr double SLOT = 4.0 * SceneModel::SLOT_FLOATS;
    constexpr double USED = 4.0 * SceneModel::USED_FLOATS;
    constexpr double READ = 4.0 * std::popcount(SceneModel::READ_FIELDS);
    constexpr double AOS_BYTES = 4 + SLOT + 4 + SLOT + 4 + 4 + 8 + 8 + 4;
    constexpr double SOA_BYTES = 4 + READ + 4 + USED + 4 + 4 + 8 + 8 + 4;
    // The bytes of a step with a separate gather kernel and copy-index kernel (the column "step /
    // previous 292 B floor" compares the fused step with that design's floor).
    constexpr double PREVIOUS_BYTES = 292;
    // What any resampling step must move: the state it reads and the used state it writes, once each,
    // the log-weights read and written, the copy indices written and read (84 B).
    constexpr double ESSENTIAL_BYTES = READ + USED + 4 + 4 + 4 + 4;
    static_assert(ESSENTIAL_BYTES == 84.0, "the table's header names 84 B");
    bench::Table table("K = 10^6 single-vehicle step against the bytes-over-bandwidth floor",
                       {"layout", "measured copy bandwidth (GB/s)", "bytes/particle the step moves", "floor (µs)",
                        "step, graph replay (µs)", "step / floor", "essential 84 B/particle floor (µs)",
                        "step / essential floor", "step / previous 292 B floor",
                        "step, graph replay queued behind a memset (µs)", "queued step / floor",
                        "bytes / 205 GB/s, Orin LPDDR5 (µs)"});
    if (bandwidth > 0.0) {
        results.add("device-to-device copy bandwidth", bandwidth, 0, "GB/s");
    }
    for (const StateLayout layout : {StateLayout::ArrayOfStructs, StateLayout::StructOfArrays}) {
        const auto t = gpuStages(K, 1, layout, stream, busy);
        const double bytes = layout == StateLayout::ArrayOfStructs ? AOS_BYTES : SOA_BYTES;
        const double floor_us = bytes * K / (bandwidth * 1e3);
        const double essential_us = ESSENTIAL_BYTES * K / (bandwidth * 1e3);
        const double previous_us = PREVIOUS_BYTES * K / (bandwidth * 1e3);
        table.row({layoutName(layout), bench::fmt(bandwidth, 0), bench::fmt(bytes, 0), bench::fmt(floor_us),
                   bench::fmt(t.graph), bench::fmt(t.graph / floor_us, 2), bench::fmt(essential_us),
                   bench::fmt(t.graph / essential_us, 2), bench::fmt(t.graph / previous_us, 2), bench::fmt(t.queued),
                   bench::fmt(t.queued / floor_us, 2), bench::fmt(bytes * K / (ORIN_BANDWIDTH_GBPS * 1e3))});
        // The target is the default layout's (SoA) against its floor; AoS is compared with its own bytes.
        // A failed bandwidth measurement leaves a negative floor, which addTime and addRatio leave out.
        const std::string metric = std::string("K = 10^6 single-vehicle step, ") + layoutName(layout);
        addTime(results, metric, t.graph);
        if (layout == StateLayout::StructOfArrays) {
            addTime(results, metric + ", bytes-over-bandwidth floor", floor_us);
            addRatio(results, metric + " / floor", t.graph, floor_us, 2, STEP_AGAINST_FLOOR_TARGET);
        } else {
            addRatio(results, metric + " / its " + bench::fmt(bytes, 0) + "-byte floor", t.graph, floor_us, 2);
        }
    }
}

/// A few plain steps of each configuration the targets name, for a kernel profiler.
void profileSteps(StreamHandle stream) {
    struct Case {
        std::uint32_t k;
        std::uint32_t vehicles;
        StateLayout layout;
    };
    const Case cases[] = {{20'000, 20, StateLayout::StructOfArrays},
                          {20'000, 20, StateLayout::ArrayOfStructs},
                          {1'000'000, 1, StateLayout::StructOfArrays},
                          {1'000'000, 1, StateLayout::ArrayOfStructs}};
    for (const auto& c : cases) {
        auto f = kernels::pf::cuda::ParticleFilter<SceneModel>::create(sceneConfig(c.k, c.vehicles, c.layout), {});
        if (!f) {
            std::printf("create failed\n");
            return;
        }
        const auto in = sceneInputs(c.vehicles);
        (void)f->initialize(in, stream);
        (void)f->setInputs(in);
        for (int i = 0; i < 4; ++i) {
            (void)f->step(stream);
        }
        (void)kernels::pf::testing::FilterProbe(*f).reduce(stream);
        const auto summary = f->summary(stream);
        std::printf("profiled K = %u, %u vehicles, %s: %s\n", c.k, c.vehicles, layoutName(c.layout),
                    summary ? "ok" : "failed");
    }
}

template <typename Model>
double gpuModelStep_us(const FilterConfig& config, StreamHandle stream, const typename Model::VehicleInput& z) {
    auto f = kernels::pf::cuda::ParticleFilter<Model>::create(config, {});
    if (!f) {
        return -1.0;
    }
    (void)f->initialize({&z, 1}, stream);
    (void)f->setInputs({&z, 1});
    auto graph = platform::Graph::capture(stream, [&f](StreamHandle s) { return f->step(s); });
    return graph ? bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)graph->launch(s); }) : -1.0;
}

void ungmTable(StreamHandle stream) {
    bench::Table table("UNGM step: bootstrap PF vs differential-evolution resampling (G_max = 10), resampling every step",
                       {"K", "bootstrap GPU graph (µs)", "DE GPU graph (µs)", "bootstrap CPU (µs)", "DE CPU (µs)"});
    for (const std::uint32_t k : {100U, 1000U}) {
        FilterConfig config;
        config.particles = k;
        config.resampleThreshold = 2.0F;
        const kernels::pf::UngmModel::VehicleInput z{4.0F, 3.0F};
        const double bootGpu = gpuModelStep_us<kernels::pf::UngmModel>(config, stream, z);
        auto cpuBoot = kernels::pf::cpu::ParticleFilter<kernels::pf::UngmModel>::create(config, {});
        config.resampler = kernels::pf::Resampler::DifferentialEvolution;
        config.de.minSpread = 0.0F;
        const double deGpu = gpuModelStep_us<kernels::pf::UngmModel>(config, stream, z);
        auto cpuDe = kernels::pf::cpu::ParticleFilter<kernels::pf::UngmModel>::create(config, {});
        (void)cpuBoot->initialize({&z, 1});
        (void)cpuDe->initialize({&z, 1});
        const double bootCpu = bench::hostMedian_us([&] { cpuBoot->step(); });
        const double deCpu = bench::hostMedian_us([&] { cpuDe->step(); });
        table.row({std::to_string(k), bench::fmt(bootGpu), bench::fmt(deGpu), bench::fmt(bootCpu), bench::fmt(deCpu)});
    }
}

#endif  // AUGUR_HAVE_CUDA

void cpuOnlyTable() {
    bench::Table table("Scene model CPU reference step, 1 core (µs, median)", {"K", "vehicles", "layout", "step"}, 3);
    for (const auto& [k, vehicles] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1000, 1}, {20'000, 20}}) {
        for (const StateLayout layout : {StateLayout::ArrayOfStructs, StateLayout::StructOfArrays}) {
            table.row({std::to_string(k), std::to_string(vehicles), layoutName(layout),
                       bench::fmt(cpuStep_us(k, vehicles, layout), 0)});
        }
    }
}

#if AUGUR_HAVE_CUDA
/// The CUDA sections (`only`: one of them; empty: all), or with `profile` only a few plain steps. An
/// exit status when the program ends here (profile, or a stream or buffer that could not be made);
/// nullopt when the result file is to be written. The tables' headline figures go to `results`.
std::optional<int> cudaSections(const std::string& only, bool profile, bench::ResultFile& results) {
    auto runs = [&](const char* section) { return only.empty() || only == section; };
    if (auto gpu = platform::queryGpu(0)) {
        std::printf("device: %s (sm_%d%d, %d SMs)\n", gpu->name, gpu->computeMajor, gpu->computeMinor,
                    gpu->multiprocessors);
    }
    auto stream = platform::Stream::create(platform::StreamPriority::High);
    if (!stream) {
        std::printf("stream creation failed\n");
        return 1;
    }
    if (profile) {
        profileSteps(stream->get());
        return 0;
    }
    if (runs("baselines")) {
        baselineTables(stream->get(), results);
    }
    auto busy = platform::DeviceMemory::allocate(bench::QUEUE_BEHIND_BYTES);
    if (!busy) {
        std::printf("device buffer for the queued timings: allocation failed\n");
        return 1;
    }
    if (runs("stages")) {
        stageTable(stream->get(), *busy, results);
    }
    if (runs("nodes")) {
        nodeTable(stream->get(), *busy, results);
        outputCopyTable(stream->get(), *busy);
    }
    if (runs("floor")) {
        floorTable(stream->get(), *busy, results);
    }
    if (runs("scan") || runs("reduce")) {
        auto primitives = primitiveInput(stream->get());
        if (!primitives) {
            std::printf("device buffers for the primitive tables: allocation failed\n");
            return 1;
        }
        if (runs("scan")) {
            scanTables(stream->get(), *primitives, results);
        }
        if (runs("reduce")) {
            reduceTable(stream->get(), *primitives);
        }
    }
    if (runs("ungm")) {
        ungmTable(stream->get());
    }
    return std::nullopt;
}
#endif  // AUGUR_HAVE_CUDA

}  // namespace

int main(int argc, char** argv) {
    bool profile = false;
    std::string only;
    std::string json;
    const std::vector<std::string> sections = {"baselines", "stages", "nodes", "floor", "scan", "reduce", "ungm"};
    CLI::App app{"augur-bench-pf: particle filter stages and step (CUDA and the CPU reference), baselines, scan and reduce.",
                 "augur-bench-pf"};
    apps::cli::useConventions(app);
    app.add_flag("--quick", g_quick, "fewer sizes and repetitions");
    app.add_flag("--profile", profile, "only a few plain steps, for a kernel profiler (CUDA)");
    app.add_option("--only", only, "run one section")->type_name("SECTION")->check(CLI::IsMember(sections));
    bench::addJsonOption(app, json);
    if (const auto exit = bench::parseArguments(app, argc, argv)) {
        return *exit;
    }
    const bool cudaAvailable = kernels::available(kernels::Backend::Cuda);
    bench::ResultFile results("particle-filter", "Particle filter and scan / reduce primitives", 10);
    results.setDevice(bench::describeDevice(cudaAvailable));
    results.setCommand(bench::commandLine(argc, argv));
    bench::recordTablesInto(&results);
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::printf("augur-bench-pf, %s\n", date);
    if (!cudaAvailable) {
        std::printf("no CUDA device: CPU reference only%s\n", profile ? " (--profile needs one)" : "");
        cpuOnlyTable();
        return bench::writeResults(results, json) ? 0 : apps::cli::EXIT_INPUT;
    }
#if AUGUR_HAVE_CUDA
    if (const std::optional<int> exit = cudaSections(only, profile, results)) {
        return *exit;
    }
#endif
    return bench::writeResults(results, json) ? 0 : apps::cli::EXIT_INPUT;
}
