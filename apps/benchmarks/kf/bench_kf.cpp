// augur-bench-kf — Kalman bank and RTS smoother timings, printed as Markdown tables.
//
//   augur-bench-kf [--quick] [--json FILE]
//
// Bank: one cycle (predict + Joseph update, all targets measured) at N = 10^3 … 10^6 and at the sizes of
// Tager's Table 2.4 (CA model), float and double: GPU time per cycle (CUDA events, median), bytes moved
// per cycle over time against the measured device-to-device copy bandwidth, and the Eigen CPU reference
// split over all cores. Smoother: CV, double, smoothed means and covariances, T = 2^20 for one target and
// 4096 targets × 1024 steps: the parallel GPU scan, the sequential GPU baseline (one thread per target),
// the sequential CPU RTS (one core) and the CPU scan (one core), with the largest norm-wise difference of
// the GPU scan from the CPU sequential result. Without a GPU only the CPU columns are filled. --json FILE
// writes the figures as a result file (family kalman, docs/results/kalman.json).
#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "augur/bench/bench.hpp"
#include "augur/bench/bench_cli.hpp"
#include "augur/kernels/kf/kalman_bank.hpp"
#include "augur/kernels/kf/smoother.hpp"
#include "augur/platform/gpu_info.hpp"
#include "augur/platform/memory.hpp"

namespace {

using namespace augur;
using namespace augur::kernels::kf;
using bench::fmt;

bool g_gpu = false;

template <typename Real>
struct HostBank {
    std::size_t n;
    int dim;
    std::vector<Real> mean, cov, dt, z, r, nis;
    std::vector<std::uint8_t> present;
    HostBank(MotionModel model, std::size_t count) : n(count), dim(stateDim(model)) {
        mean.assign(static_cast<std::size_t>(dim) * n, Real(0));
        cov.assign(static_cast<std::size_t>(packedSize(dim)) * n, Real(0));
        dt.assign(n, Real(0.1));
        z.resize(2 * n);
        r.assign(2 * n, Real(0.25));
        nis.assign(n, Real(0));
        present.assign(n, 1);
        std::mt19937_64 rng(7);
        std::normal_distribution<double> normal(0.0, 10.0);
        for (auto& v : z) {
            v = static_cast<Real>(normal(rng));
        }
        for (std::size_t t = 0; t < n; ++t) {
            cpu::initializeTarget<Real>(model, {mean.data(), cov.data(), n, n}, t, z[t], z[n + t], Real(1), Real(9),
                                        Real(1));
        }
    }
    BankState<Real> state() { return {mean.data(), cov.data(), n, n}; }
    CycleInput<Real> input() { return {dt.data(), z.data(), r.data(), present.data(), nis.data()}; }
};

/// Jetson AGX Orin's LPDDR5 bandwidth: the bank's bytes over it are its floor there (next to the measured time).
constexpr double ORIN_BANDWIDTH_GBPS = 205.0;

/// A target count as the result files name it: "10^6" for powers of ten from 10^3, else the digits.
std::string targetCount(std::size_t n) {
    int exponent = 0;
    std::size_t rest = n;
    while (rest >= 10 && rest % 10 == 0) {
        rest /= 10;
        ++exponent;
    }
    return rest == 1 && exponent >= 3 ? "10^" + std::to_string(exponent) : std::to_string(n);
}

/// Bytes one bank cycle moves per target: state and covariance read and written, dt, z, R, flag, NIS.
std::size_t bankBytesPerTarget(MotionModel model, std::size_t realBytes) {
    const auto dim = static_cast<std::size_t>(stateDim(model));
    const auto np = static_cast<std::size_t>(packedSize(stateDim(model)));
    return (2 * (dim + np) + 1 + 2 + 2 + 1) * realBytes + 1;
}

template <typename Real>
double cpuBankAllCores_us(MotionModel model, HostBank<Real>& bank, int repetitions) {
    const ModelParams<Real> params{model, Real(0.5)};
    const unsigned workers = std::max(1U, std::thread::hardware_concurrency());
    return bench::hostMedian_us(
        [&] {
            std::vector<std::thread> threads;
            const std::size_t per = (bank.n + workers - 1) / workers;
            for (unsigned w = 0; w < workers; ++w) {
                const std::size_t begin = std::min(bank.n, w * per);
                const std::size_t end = std::min(bank.n, begin + per);
                if (begin == end) {
                    break;
                }
                threads.emplace_back([&, begin, end] {
                    // A sub-range of a structure-of-arrays bank: same stride, pointers offset by `begin`.
                    BankState<Real> s{bank.mean.data() + begin, bank.cov.data() + begin, end - begin, bank.n};
                    CycleInput<Real> in{bank.dt.data() + begin, bank.z.data() + begin, bank.r.data() + begin,
                                        bank.present.data() + begin, bank.nis.data() + begin};
                    cpu::step<Real>(params, s, in);
                });
            }
            for (auto& t : threads) {
                t.join();
            }
        },
        1, repetitions);
}

template <typename T>
platform::DeviceBuffer<T> upload(const std::vector<T>& host, platform::StreamHandle stream) {
    auto buffer = platform::DeviceBuffer<T>::create(host.size());
    if (!buffer || !buffer->upload(std::span<const T>(host), stream)) {
        std::fprintf(stderr, "device allocation/upload failed\n");
        std::exit(1);
    }
    return std::move(buffer).value();
}

template <typename Real>
void benchBank(const bench::Table& table, bench::ResultFile& results, MotionModel model, std::size_t n,
               double copy_GBps, platform::StreamHandle stream) {
    HostBank<Real> bank(model, n);
    const char* precision = sizeof(Real) == 4 ? "float" : "double";
    const char* modelName = model == MotionModel::ConstantVelocity ? "CV" : "CA";
    const double bytes = static_cast<double>(bankBytesPerTarget(model, sizeof(Real)) * n);
    std::string gpuUs = "-";
    std::string gbps = "-";
    std::string ofCopy = "-";
    double gpu_us = -1.0;
    if (g_gpu) {
        auto mean = upload(bank.mean, stream);
        auto cov = upload(bank.cov, stream);
        auto dt = upload(bank.dt, stream);
        auto z = upload(bank.z, stream);
        auto r = upload(bank.r, stream);
        auto present = upload(bank.present, stream);
        auto nis = upload(bank.nis, stream);
        const ModelParams<Real> params{model, Real(0.5)};
        const BankState<Real> s{mean.data(), cov.data(), n, n};
        const CycleInput<Real> in{dt.data(), z.data(), r.data(), present.data(), nis.data()};
        gpu_us = bench::deviceMedian_us(stream, [&](platform::StreamHandle st) {
            static_cast<void>(cuda::step<Real>(params, s, in, st));
        });
        gpuUs = fmt(gpu_us, 2);
        const double rate = bytes / (gpu_us * 1e-6) / 1e9;
        gbps = fmt(rate, 0);
        ofCopy = copy_GBps > 0 ? fmt(100.0 * rate / copy_GBps, 0) + " %" : "-";
    }
    const int reps = n >= 100'000 ? 5 : 20;
    const double cpu_us = cpuBankAllCores_us<Real>(model, bank, reps);
    table.row({modelName, precision, std::to_string(n), gpuUs,
               fmt(bytes / 1e6, 1) + " / " + fmt(bytes / (ORIN_BANDWIDTH_GBPS * 1e3), 2), gbps, ofCopy, fmt(cpu_us, 1),
               gpu_us > 0 ? fmt(cpu_us / gpu_us, 1) + "x" : "-"});
    const std::string metric = std::string("bank, ") + modelName + ", " + precision + ", " + targetCount(n) + " targets";
    if (gpu_us > 0) {
        results.add(metric, gpu_us, 2, "us");
        if (copy_GBps > 0) {
            results.add(metric + ", of copy bandwidth", 100.0 * bytes / (gpu_us * 1e-6) / 1e9 / copy_GBps, 0, "%",
                        n == 1'000'000 ? ">= 70 %" : "");
        }
    }
    results.add(metric + ", CPU all cores", cpu_us, 1, "us");
}

/// Filtered CV histories (double) of `targets` targets over `steps` steps from the CPU bank.
struct History {
    std::vector<double> mean, cov, dt;
};

History makeHistory(std::size_t steps, std::size_t targets) {
    const MotionModel model = MotionModel::ConstantVelocity;
    History h;
    h.mean.assign(steps * targets * 4, 0.0);
    h.cov.assign(steps * targets * 10, 0.0);
    h.dt.resize(steps * targets);
    std::mt19937_64 rng(11);
    std::uniform_real_distribution<double> dtDist(0.05, 0.15);
    std::normal_distribution<double> noise(0.0, 0.5);
    std::uniform_real_distribution<double> uniform(0.0, 1.0);
    for (auto& v : h.dt) {
        v = dtDist(rng);
    }
    std::vector<double> z(2 * targets), r(2 * targets, 0.25), nis(targets);
    std::vector<std::uint8_t> present(targets);
    std::vector<double> pos(2 * targets, 0.0), vel(2 * targets, 1.0);
    const ModelParams<double> params{model, 0.5};
    for (std::size_t b = 0; b < targets; ++b) {
        cpu::initializeTarget<double>(model, {h.mean.data(), h.cov.data(), targets, targets}, b, 0.0, 0.0, 0.25, 9.0,
                                      0.0);
    }
    for (std::size_t k = 1; k < steps; ++k) {
        double* mean = h.mean.data() + k * targets * 4;
        double* cov = h.cov.data() + k * targets * 10;
        std::memcpy(mean, mean - targets * 4, targets * 4 * sizeof(double));
        std::memcpy(cov, cov - targets * 10, targets * 10 * sizeof(double));
        for (std::size_t b = 0; b < targets; ++b) {
            for (std::size_t a = 0; a < 2; ++a) {
                pos[a * targets + b] += vel[a * targets + b] * h.dt[(k - 1) * targets + b];
                z[a * targets + b] = pos[a * targets + b] + noise(rng);
            }
            present[b] = uniform(rng) < 0.9 ? 1 : 0;
        }
        cpu::step<double>(params, {mean, cov, targets, targets},
                          {h.dt.data() + (k - 1) * targets, z.data(), r.data(), present.data(), nis.data()});
    }
    return h;
}

double normwiseDifference(const std::vector<double>& a, const std::vector<double>& b, std::size_t components,
                          std::size_t targets) {
    double worst = 0.0;
    const std::size_t steps = b.size() / (components * targets);
    for (std::size_t k = 0; k < steps; ++k) {
        for (std::size_t t = 0; t < targets; ++t) {
            double diff = 0.0;
            double scale = 0.0;
            for (std::size_t c = 0; c < components; ++c) {
                const std::size_t i = (k * components + c) * targets + t;
                diff = std::max(diff, std::abs(a[i] - b[i]));
                scale = std::max(scale, std::abs(b[i]));
            }
            worst = std::max(worst, scale > 0 ? diff / scale : diff);
        }
    }
    return worst;
}

void benchSmoother(const bench::Table& table, bench::ResultFile& results, std::size_t steps, std::size_t targets,
                   platform::StreamHandle stream, bool quick) {
    const MotionModel model = MotionModel::ConstantVelocity;
    const ModelParams<double> params{model, 0.5};
    const History h = makeHistory(steps, targets);
    const FilteredHistory<double> hostHistory{h.mean.data(), h.cov.data(), h.dt.data(), steps, targets};
    std::vector<double> seqMean(h.mean.size()), seqCov(h.cov.size());
    std::vector<double> scanMean(h.mean.size()), scanCov(h.cov.size());
    std::vector<double> scratch(cpu::smootherScratchCount(model, steps, targets));
    const int cpuReps = quick ? 1 : 3;
    const double cpuSeq_us = bench::hostMedian_us(
        [&] { cpu::smoothSequential<double>(params, hostHistory, {seqMean.data(), seqCov.data()}); }, 0, cpuReps);
    const double cpuScan_us = bench::hostMedian_us(
        [&] { cpu::smoothParallel<double>(params, hostHistory, {scanMean.data(), scanCov.data()}, scratch.data()); }, 0,
        1);
    std::string gpuPar = "-", gpuSeq = "-", vsCpu = "-", vsGpuSeq = "-", diff = "-";
    const std::string metric = targets == 1 ? "smoother, T = 2^" + std::to_string(std::bit_width(steps) - 1) + ", one target"
                                            : "smoother, " + std::to_string(targets) + " targets x " + std::to_string(steps) + " steps";
    if (g_gpu) {
        auto mean = upload(h.mean, stream);
        auto cov = upload(h.cov, stream);
        auto dt = upload(h.dt, stream);
        auto outMean = upload(std::vector<double>(h.mean.size()), stream);
        auto outCov = upload(std::vector<double>(h.cov.size()), stream);
        const std::size_t scratchBytes = cuda::smootherScratchBytes(model, steps, targets, sizeof(double));
        auto dScratch = platform::DeviceMemory::allocate(std::max<std::size_t>(scratchBytes, 1));
        if (!dScratch) {
            std::fprintf(stderr, "scratch allocation failed\n");
            return;
        }
        const FilteredHistory<double> dh{mean.data(), cov.data(), dt.data(), steps, targets};
        const SmoothedHistory<double> out{outMean.data(), outCov.data()};
        const double par_us = bench::deviceMedian_us(stream, [&](platform::StreamHandle s) {
            static_cast<void>(cuda::smoothParallel<double>(params, dh, out, dScratch->get(), scratchBytes, s));
        });
        std::vector<double> gotMean(h.mean.size()), gotCov(h.cov.size());
        static_cast<void>(outMean.download(std::span<double>(gotMean), stream));
        static_cast<void>(outCov.download(std::span<double>(gotCov), stream));
        const double seq_us = bench::deviceMedian_us(
            stream, [&](platform::StreamHandle s) { static_cast<void>(cuda::smoothSequential<double>(params, dh, out, s)); },
            1, quick ? 1 : 3);
        gpuPar = fmt(par_us / 1e3, 3);
        gpuSeq = fmt(seq_us / 1e3, 2);
        vsCpu = fmt(cpuSeq_us / par_us, 1) + "x";
        vsGpuSeq = fmt(seq_us / par_us, 1) + "x";
        diff = fmt(std::max(normwiseDifference(gotMean, seqMean, 4, targets), normwiseDifference(gotCov, seqCov, 10, targets)) * 1e12, 2) + "e-12";
        results.add(metric, par_us / 1e3, 3, "ms", targets == 1 ? "<= 5 ms" : "");
        results.add(metric + ", against the sequential CPU smoother", cpuSeq_us / par_us, 1, "x",
                    targets == 1 ? ">= 20x" : "");
    }
    results.add(metric + ", sequential CPU smoother (1 core)", cpuSeq_us / 1e3, 1, "ms");
    table.row({std::to_string(targets) + " x " + std::to_string(steps), gpuPar, gpuSeq, fmt(cpuSeq_us / 1e3, 1),
               fmt(cpuScan_us / 1e3, 1), vsCpu, vsGpuSeq, diff});
}

}  // namespace

int main(int argc, char** argv) {
    bool quick = false;
    std::string json;
    CLI::App app{"augur-bench-kf: Kalman bank per cycle and RTS smoothers, GPU against the CPU reference.", "augur-bench-kf"};
    apps::cli::useConventions(app);
    app.add_flag("--quick", quick, "fewer sizes and repetitions");
    bench::addJsonOption(app, json);
    if (const auto exit = bench::parseArguments(app, argc, argv)) {
        return *exit;
    }
    g_gpu = platform::cudaCompiledIn() && platform::gpuCount() > 0;
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", std::gmtime(&now));
    std::string device = "no GPU";
    platform::Stream stream;
    double copy_GBps = -1.0;
    if (g_gpu) {
        if (auto info = platform::queryGpu(0)) {
            device = info->name;
        }
        auto created = platform::Stream::create();
        if (!created) {
            std::fprintf(stderr, "stream creation failed\n");
            return 1;
        }
        stream = std::move(created).value();
        copy_GBps = bench::measureCopyBandwidth_GBps(stream.get(), std::size_t{1} << 30U);  // 1 GiB
    }
    std::printf("augur-bench-kf — %s — %s — CPU threads: %u\n", device.c_str(), date,
                std::thread::hardware_concurrency());
    std::printf("Measured device-to-device copy bandwidth (1 GiB, read + write): %s GB/s\n",
                copy_GBps > 0 ? fmt(copy_GBps, 0).c_str() : "-");
    bench::ResultFile results("kalman", "Kalman bank and RTS smoother", 20);
    results.setDevice(bench::describeDevice(g_gpu));
    results.setCommand(bench::commandLine(argc, argv));
    if (copy_GBps > 0) {
        results.add("device-to-device copy bandwidth", copy_GBps, 0, "GB/s");
    }

    {
        bench::Table table("Kalman bank, one cycle (predict + Joseph update, every target measured)",
                           {"model", "precision", "N", "GPU µs", "MB moved / 205 GB/s (Orin) µs", "GB/s", "of copy BW",
                            "CPU all cores µs", "CPU / GPU"});
        std::vector<std::size_t> sizes{1'000, 10'000, 100'000, 1'000'000};
        if (quick) {
            sizes = {1'000, 100'000};
        }
        for (const MotionModel model : {MotionModel::ConstantVelocity, MotionModel::ConstantAcceleration}) {
            for (const std::size_t n : sizes) {
                benchBank<float>(table, results, model, n, copy_GBps, stream.get());
                benchBank<double>(table, results, model, n, copy_GBps, stream.get());
            }
        }
    }
    {
        // Tager 2013, Table 2.4: 64 … 262144 targets, 6 states (CA) in 2-D, float.
        bench::Table table("Kalman bank at Tager's sizes (CA, float; thesis Table 2.4 for context)",
                           {"model", "precision", "N", "GPU µs", "MB moved / 205 GB/s (Orin) µs", "GB/s", "of copy BW",
                            "CPU all cores µs", "CPU / GPU"});
        for (const std::size_t n : {64U, 4'096U, 65'536U, 262'144U}) {
            benchBank<float>(table, results, MotionModel::ConstantAcceleration, n, copy_GBps, stream.get());
        }
    }
    {
        bench::Table table("RTS smoother, CV, double, means and covariances (ms)",
                           {"targets x steps", "GPU scan", "GPU sequential", "CPU sequential (1 core)",
                            "CPU scan (1 core)", "GPU scan vs CPU seq", "GPU scan vs GPU seq",
                            "max diff GPU scan vs CPU seq (norm-wise)"});
        benchSmoother(table, results, std::size_t{1} << 20U, 1, stream.get(), quick);
        benchSmoother(table, results, 1024, 4096, stream.get(), quick);
    }
    return bench::writeResults(results, json) ? 0 : apps::cli::EXIT_INPUT;
}
