// augur-bench-pf — particle filter stages and whole step (CUDA and the CPU reference), the seed
// papers' baselines (Thrust permutation-iterator copy, atomicAdd output reduction), the scan and
// reduction variants, and the K = 10⁶ step against its bytes-over-bandwidth floor.
//
//   augur-bench-pf [--quick]
// Prints Markdown tables (docs/benchmarks.md records them with device and date).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "augur/bench/bench.hpp"
#include "augur/kernels/backend.hpp"
#include "augur/kernels/pf/filter.hpp"
#include "augur/kernels/primitives/reduce.hpp"
#include "augur/kernels/primitives/scan.hpp"
#include "augur/platform/gpu_info.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"
#if AUGUR_HAVE_CUDA
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
        v.corridors[0].speedLimit_mps = 0.0F;
        v.corridors[1].speedLimit_mps = 0.0F;
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

struct StageTimes {
    double upload, predict, update, predictUpdate, reduce, resample, step, graph;
};

StageTimes gpuStages(std::uint32_t particles, std::uint32_t vehicles, StateLayout layout, StreamHandle stream) {
    StageTimes t{};
    auto created = kernels::pf::cuda::ParticleFilter<SceneModel>::create(sceneConfig(particles, vehicles, layout), {});
    if (!created) {
        return StageTimes{-1, -1, -1, -1, -1, -1, -1, -1};
    }
    auto& f = *created;
    const auto in = sceneInputs(vehicles);
    (void)f.initialize(in, stream);
    (void)f.setInputs(in);
    t.upload = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)f.uploadInputs(s); });
    t.predict = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)f.predict(s); });
    t.update = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)f.update(s); });
    t.predictUpdate = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)f.predictUpdate(s); });
    t.reduce = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)f.reduce(s); });
    t.resample = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)f.resample(s); });
    t.step = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)f.step(s); });
    auto graph = platform::Graph::capture(stream, [&f](StreamHandle s) { return f.step(s); });
    t.graph = graph ? bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)graph->launch(s); }) : -1.0;
    return t;
}

void stageTable(StreamHandle stream) {
    bench::Table table("Scene model: stages and whole step, resampling every step (µs, device time, median)",
                       {"K", "vehicles", "layout", "upload", "predict", "update", "predict+update", "reduce",
                        "resample", "step (stream)", "step (graph replay)", "CPU step, 1 core", "CPU 1 core / graph",
                        "CPU step, all " + std::to_string(std::thread::hardware_concurrency()) + " threads",
                        "CPU all threads / graph"});
    struct Case {
        std::uint32_t k;
        std::uint32_t vehicles;
    };
    std::vector<Case> cases = {{1000, 1}, {10'000, 1}, {100'000, 1}, {1'000'000, 1}, {20'000, 20}};
    for (const auto& c : cases) {
        for (const StateLayout layout : {StateLayout::ArrayOfStructs, StateLayout::StructOfArrays}) {
            const auto t = gpuStages(c.k, c.vehicles, layout, stream);
            const bool runCpu = !g_quick || c.k * c.vehicles <= 100'000;
            const double cpu = runCpu ? cpuStep_us(c.k, c.vehicles, layout) : -1.0;
            const double cpuAll = runCpu ? cpuStep_us(c.k, c.vehicles, layout, 0) : -1.0;
            table.row({std::to_string(c.k), std::to_string(c.vehicles), layoutName(layout), bench::fmt(t.upload),
                       bench::fmt(t.predict), bench::fmt(t.update), bench::fmt(t.predictUpdate), bench::fmt(t.reduce),
                       bench::fmt(t.resample), bench::fmt(t.step), bench::fmt(t.graph), bench::fmt(cpu, 0),
                       cpu > 0 ? bench::fmt(cpu / t.graph, 1) + "x" : "-", bench::fmt(cpuAll, 0),
                       cpuAll > 0 ? bench::fmt(cpuAll / t.graph, 1) + "x" : "-"});
        }
    }
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

void baselineTables(StreamHandle stream) {
    constexpr std::uint32_t K = 20'000;
    bench::Table copy("Resampling copy vs Thrust permutation-iterator copy (seed 000 §5.5: 24.2x), K = 20,000, AoS",
                      {"vehicles", "bytes/particle", "Thrust copy (µs)", "our gather (µs)", "speed-up",
                       "whole resample: scan+copy index+gather (µs)", "speed-up of whole resample"});
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
            (void)kernels::pf::cuda::gatherParticlesThrust(src->data(), dst->data(), idx->data(), K, stride, s);
        });
        const double ours = bench::deviceMedian_us(stream, [&](StreamHandle s) {
            (void)kernels::pf::cuda::gatherParticles(src->data(), dst->data(), idx->data(), K, stride,
                                                     StateLayout::ArrayOfStructs, nullptr, s);
        });
        auto filter = kernels::pf::cuda::ParticleFilter<SceneModel>::create(
            sceneConfig(K, vehicles, StateLayout::ArrayOfStructs), {});
        const auto in = sceneInputs(vehicles);
        (void)filter->initialize(in, stream);
        (void)filter->setInputs(in);
        (void)filter->step(stream);
        (void)filter->predictUpdate(stream);
        (void)filter->reduce(stream);
        const double whole = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)filter->resample(s); });
        copy.row({std::to_string(vehicles), std::to_string(stride * 4), bench::fmt(thrust), bench::fmt(ours),
                  bench::fmt(thrust / ours, 1) + "x", bench::fmt(whole), bench::fmt(thrust / whole, 1) + "x"});

        const double atomic = bench::deviceMedian_us(stream, [&](StreamHandle s) {
            (void)bench::sceneOutputsAtomicAdd(src->data(), lw->data(), K, vehicles, StateLayout::ArrayOfStructs,
                                               out->data(), s);
        });
        const double deterministic = bench::deviceMedian_us(stream, [&](StreamHandle s) { (void)filter->reduce(s); });
        reduceRows.push_back({std::to_string(vehicles),
                              std::to_string(1 + vehicles * SceneModel::OUTPUTS_PER_VEHICLE), bench::fmt(atomic),
                              bench::fmt(deterministic), bench::fmt(atomic / deterministic, 1) + "x"});
    }
    bench::Table reduce("Output reduction vs atomicAdd baseline (seed 000 §5.5: 4.56x), K = 20,000, AoS",
                        {"vehicles", "channels", "atomicAdd (µs)", "ours: partials + final, with N_eff (µs)",
                         "speed-up"});
    for (const auto& row : reduceRows) {
        reduce.row(row);
    }
}

void primitiveTables(StreamHandle stream) {
    using kernels::primitives::ALL_REDUCE_VARIANTS;
    using kernels::primitives::ALL_SCAN_VARIANTS;
    using kernels::primitives::ReduceVariant;
    using kernels::primitives::ScanVariant;
    const std::vector<std::uint32_t> sizes = {20'000, 1U << 20U, 1U << 26U};
    const auto input = randomFloats(sizes.back(), 0.0F, 1.0F, 9);
    auto in = platform::DeviceBuffer<float>::create(sizes.back());
    auto out = platform::DeviceBuffer<float>::create(sizes.back());
    if (!in || !out) {
        return;
    }
    (void)in->upload(input, stream);
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
        }
        row.push_back(bench::fmt(best / cub, 2));
        scan.row(row);
    }
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

void floorTable(StreamHandle stream) {
    constexpr std::uint32_t K = 1'000'000;
    const double bandwidth = bench::measureCopyBandwidth_GBps(stream);
    // Bytes per particle our kernels must move in a resampling step, single vehicle (48-byte slot):
    // predict+update r/w state 96 + log-w r/w 8; reduce: state 48 + log-w 4; scan: log-w 4 + CDF 8
    // (+ CUB's own ≈ 8); copy index: CDF 8 + ρ 4; gather: ρ 4 + state r/w 96; log-w reset 4.
    constexpr double BYTES_PER_PARTICLE = 96 + 8 + 48 + 4 + 4 + 8 + 8 + 8 + 4 + 4 + 96 + 4;
    // The irreducible part: the state read and written by predict and by the gather (192 B).
    constexpr double ESSENTIAL_BYTES_PER_PARTICLE = 192;
    bench::Table table("K = 10^6 single-vehicle step against the bytes-over-bandwidth floor",
                       {"layout", "measured copy bandwidth (GB/s)", "bytes/particle moved", "floor (µs)",
                        "essential 192 B/particle floor (µs)", "step, graph replay (µs)", "step / floor",
                        "step / essential floor"});
    for (const StateLayout layout : {StateLayout::ArrayOfStructs, StateLayout::StructOfArrays}) {
        const auto t = gpuStages(K, 1, layout, stream);
        const double floor_us = BYTES_PER_PARTICLE * K / (bandwidth * 1e3);
        const double essential_us = ESSENTIAL_BYTES_PER_PARTICLE * K / (bandwidth * 1e3);
        table.row({layoutName(layout), bench::fmt(bandwidth, 0), bench::fmt(BYTES_PER_PARTICLE, 0), bench::fmt(floor_us),
                   bench::fmt(essential_us), bench::fmt(t.graph), bench::fmt(t.graph / floor_us, 2),
                   bench::fmt(t.graph / essential_us, 2)});
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
    bench::Table table("Scene model CPU reference step, 1 core (µs, median)", {"K", "vehicles", "layout", "step"});
    for (const auto& [k, vehicles] : std::vector<std::pair<std::uint32_t, std::uint32_t>>{{1000, 1}, {20'000, 20}}) {
        for (const StateLayout layout : {StateLayout::ArrayOfStructs, StateLayout::StructOfArrays}) {
            table.row({std::to_string(k), std::to_string(vehicles), layoutName(layout),
                       bench::fmt(cpuStep_us(k, vehicles, layout), 0)});
        }
    }
}

}  // namespace

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i) {
        g_quick = g_quick || std::strcmp(argv[i], "--quick") == 0;
    }
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::printf("augur-bench-pf, %s\n", date);
    if (!kernels::available(kernels::Backend::Cuda)) {
        std::printf("no CUDA device: CPU reference only\n");
        cpuOnlyTable();
        return 0;
    }
#if AUGUR_HAVE_CUDA
    if (auto gpu = platform::queryGpu(0)) {
        std::printf("device: %s (sm_%d%d, %d SMs)\n", gpu->name, gpu->computeMajor, gpu->computeMinor,
                    gpu->multiprocessors);
    }
    auto stream = platform::Stream::create(platform::StreamPriority::High);
    if (!stream) {
        std::printf("stream creation failed\n");
        return 1;
    }
    baselineTables(stream->get());
    stageTable(stream->get());
    floorTable(stream->get());
    primitiveTables(stream->get());
    ungmTable(stream->get());
#endif
    return 0;
}
