// augur-bench-markov: the Markov-chain motion prediction (docs/benchmarks.md).
//
//   1. Init: building Υ(τ) and Υ([0, τ]) on the CPU at the seed's size (target ≤ 1 s).
//   2. The combination Γ = diag(λ)·ψ (Sec. 4.3.1, Eq. (4)) against cuSPARSE SpGEMM computing the same
//      product (the seed's baseline was csrgemm, Fig. 18: 108.6×), at n_s = 200, n_v = 20, n_a = 6.
//   3. One propagation step: the fused kernel against λ + SpGEMM + three SpMV (Υ(τ)·p, Γ·(Υp), Υ([0,τ])·p).
//   4. The whole horizon (4 s at τ = 0.1 s) with grid splat for 1, 16, 64, 132, 256 corridors: direct
//      launches and a replayed CUDA graph, the resident path on every cluster size and the tiled path;
//      the CPU reference on all cores.
// Options: --quick (fewer repetitions); --profile (no tables: each GPU case enqueued a few times, for a
// profiler such as Nsight Compute to time kernel by kernel); --json FILE (every figure of the tables as a
// result file, family markov; metrics named "TABLE; KEY COLUMNS: COLUMN", bench.hpp; with them the headline
// figures under the names, digits, units and targets of docs/results/markov.json, so that
// scripts/bench-tables --compare pairs a new file with the committed one).
#include <algorithm>
#include <barrier>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "augur/bench/bench.hpp"
#include "augur/bench/bench_cli.hpp"
#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/prediction.hpp"
#include "augur/kernels/markov/priority.hpp"
#include "augur/platform/clock.hpp"
#include "augur/platform/gpu_info.hpp"
#include "augur/platform/memory.hpp"
#include "augur/platform/stream.hpp"

#if defined(AUGUR_HAVE_CUDA) && AUGUR_HAVE_CUDA
#include <cuda_runtime.h>
#include <cusparse.h>
#define MARKOV_BENCH_CUDA 1
#else
#define MARKOV_BENCH_CUDA 0
#endif

namespace augur::kernels::markov {
namespace {

using bench::fmt;
using bench::Table;

constexpr float LANE_SPACING_M = 3.5F;

/// Corridors fanning out from the ego's surroundings, with every λ rule in use somewhere.
struct Scenario {
    PredictionConfig config;
    std::vector<CorridorInput> corridors;
    std::vector<float> x, y, s;
    GridPlacement placement{-32.0F, -32.0F};

    Scenario(const ChainConfig& chain, int count) {
        config.horizonSteps = 40;
        config.maxCorridors = count;
        config.maxPolylinePoints = 32;
        config.gridWidthCells = 128;
        config.gridHeightCells = 128;
        config.gridResolution_m = 0.5F;
        config.gridFrames = 8;
        config.splatSamplesPerCell = 4;
        corridors.resize(static_cast<std::size_t>(count));
        const auto points = static_cast<std::size_t>(count) * static_cast<std::size_t>(config.maxPolylinePoints);
        x.resize(points);
        y.resize(points);
        s.resize(points);
        for (int k = 0; k < count; ++k) {
            const float heading = 0.3F * static_cast<float>(k % 8) - 1.0F;
            const float startX = -20.0F + 5.0F * static_cast<float>(k % 5);
            const float startY = LANE_SPACING_M * static_cast<float>((k / 5) % 6) - 10.0F;
            for (int i = 0; i < config.maxPolylinePoints; ++i) {
                const auto at = static_cast<std::size_t>(k * config.maxPolylinePoints + i);
                const float arc = chain.positionMax_m * static_cast<float>(i) / static_cast<float>(config.maxPolylinePoints - 1);
                const float bend = 0.002F * static_cast<float>(k % 3) * arc;  // gently curving
                s[at] = arc;
                x[at] = startX + arc * std::cos(heading + bend);
                y[at] = startY + arc * std::sin(heading + bend);
            }
            CorridorInput& in = corridors[static_cast<std::size_t>(k)];
            in.probability = 1.0F / static_cast<float>(1 + k % 3);
            in.initialSpeed_mps = 4.0F + static_cast<float>(k % 11);
            in.initialSpeedStd_mps = 0.5F + 0.1F * static_cast<float>(k % 4);
            for (int j = 0; j < chain.inputCells; ++j) {
                in.initialInput[j] = 1.0F;
            }
            if (k % 2 == 0) {
                in.constraints.speedLimit_mps = 13.9F;
            }
            if (k % 3 == 0) {
                in.constraints.stopProbability = 0.6F;
                in.constraints.stopDistance_m = 40.0F + static_cast<float>(k % 7) * 5.0F;
            }
            if (k % 4 == 1) {
                in.constraints.leadGap_m = 25.0F;
                in.constraints.leadSpeed_mps = 6.0F;
            }
            in.polylinePoints = config.maxPolylinePoints;
        }
    }
};

/// The init table; at the seed's sampling (ChainConfig's default S = T) the build time is also a headline
/// figure.
void benchInit(bool quick, bench::ResultFile& results) {
    const ChainConfig seed{};
    Table table("Init: Υ(τ) and Υ([0, τ]) by sampling, CPU, one thread",
                {"n_s×n_v×n_a", "S (speed samples)", "T (time samples)", "entries/row Υ(τ)", "entries/row Υ([0,τ])",
                 "build ms (median)", "target ≤ 1000 ms"},
                3);
    for (const int samples : {8, 16}) {
        ChainConfig c;
        c.samplesPerAxis = samples;
        c.intervalSamples = samples;
        int stepEntries = 0;
        int intervalEntries = 0;
        const double us = bench::hostMedian_us(
            [&] {
                const auto chain = MarkovChain::build(c);
                stepEntries = chain->stepTransition().entriesPerRow;
                intervalEntries = chain->intervalTransition().entriesPerRow;
            },
            1, quick ? 3 : 7);
        table.row({"200×20×6", std::to_string(samples), std::to_string(samples), std::to_string(stepEntries),
                   std::to_string(intervalEntries), fmt(us * 1e-3, 1), us <= 1e6 ? "met" : "NOT met"});
        if (samples == seed.samplesPerAxis && samples == seed.intervalSamples) {
            results.add("transition tables built at the seed's size (S = T = " + std::to_string(samples) +
                            "), CPU, one thread",
                        us * 1e-3, 1, "ms", "<= 1000 ms");
        }
    }
}

/// CPU reference over all cores: corridors split evenly, one thread and one scratch per share.
void benchCpu(const MarkovChain& chain, bool quick) {
    const unsigned threads = std::max(1U, std::thread::hardware_concurrency());
    Table table("Whole horizon (4 s, τ = 0.1 s) incl. grid splat, CPU reference",
                {"corridors", "threads", "ms (median)"}, 2);
    const InputDynamics psi = bandedInputDynamics(chain.config().inputCells, 0.7F);
    for (const int count : {1, 16, 64}) {
        Scenario scenario(chain.config(), count);
        const int used = static_cast<int>(std::min<unsigned>(threads, static_cast<unsigned>(count)));
        struct Share {
            int begin, count;
            std::vector<float> pos, speed;
            std::vector<CorridorPoint> points;
            std::vector<std::uint16_t> grid;
            std::vector<std::byte> scratch;
        };
        std::vector<Share> shares(static_cast<std::size_t>(used));
        const ChainConfig& c = chain.config();
        const auto H = static_cast<std::size_t>(scenario.config.horizonSteps);
        for (int t = 0; t < used; ++t) {
            Share& sh = shares[static_cast<std::size_t>(t)];
            sh.begin = count * t / used;
            sh.count = count * (t + 1) / used - sh.begin;
            sh.pos.resize(static_cast<std::size_t>(count) * H * static_cast<std::size_t>(c.positionCells));
            sh.speed.resize(static_cast<std::size_t>(count) * H * static_cast<std::size_t>(c.speedCells));
            sh.points.resize(static_cast<std::size_t>(count) * H);
            sh.grid.resize(static_cast<std::size_t>(scenario.config.gridFrames) * 128 * 128);
            sh.scratch.resize(cpu::predictScratchBytes(c, scenario.config) + 64);
        }
        // The per-thread grids merge into one (saturating sum of the fixed-point cells, each thread a
        // slice of the cells after all have splatted).
        const std::size_t gridCells = static_cast<std::size_t>(scenario.config.gridFrames) * 128 * 128;
        std::vector<std::uint16_t> merged(gridCells);
        auto runAll = [&] {
            std::vector<std::thread> pool;
            std::barrier splatted(used);
            for (int t = 0; t < used; ++t) {
                pool.emplace_back([&, t] {
                    Share& sh = shares[static_cast<std::size_t>(t)];
                    const std::size_t line = static_cast<std::size_t>(sh.begin) * scenario.config.maxPolylinePoints;
                    const Polylines lines{scenario.x.data() + line, scenario.y.data() + line, scenario.s.data() + line};
                    auto address = reinterpret_cast<std::uintptr_t>(sh.scratch.data());
                    void* aligned = reinterpret_cast<void*>((address + 63U) & ~std::uintptr_t{63U});
                    const PredictionOutputs out{sh.pos.data(), sh.speed.data(), sh.points.data(), sh.grid.data(), 128 * 128};
                    cpu::predict(chain, scenario.config, psi, scenario.corridors.data() + sh.begin, sh.count, lines,
                                 scenario.placement, out, aligned, sh.scratch.size() - 64);
                    splatted.arrive_and_wait();
                    const std::size_t first = gridCells * static_cast<std::size_t>(t) / static_cast<std::size_t>(used);
                    const std::size_t last = gridCells * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(used);
                    for (std::size_t i = first; i < last; ++i) {
                        unsigned sum = 0;
                        for (const Share& other : shares) {
                            sum += other.grid[i];
                        }
                        merged[i] = static_cast<std::uint16_t>(std::min(sum, 65535U));
                    }
                });
            }
            for (auto& th : pool) {
                th.join();
            }
        };
        const double us = bench::hostMedian_us(runAll, 1, quick ? 2 : 5);
        table.row({std::to_string(count), std::to_string(used), fmt(us * 1e-3, 2)});
    }
    std::printf("\n(each thread splats its share into its own grid; the per-thread grids are then merged into one, "
                "in parallel slices, and that merge is included)\n");
}

#if MARKOV_BENCH_CUDA

/// The combination's target: the seed's speed-up over cuSPARSE csrgemm (Fig. 18).
constexpr double SEED_SPGEMM_SPEEDUP = 108.6;
/// The horizon's target: 64 corridors within 1000 µs.
constexpr int HORIZON_TARGET_CORRIDORS = 64;
constexpr double HORIZON_TARGET_US = 1000.0;

/// A headline time as docs/results/markov.json writes it (µs, two decimals); a failed timing (negative)
/// adds nothing, as its table cell is no measurement either.
void addTime(bench::ResultFile& results, const std::string& metric, double us, const std::string& target = {}) {
    if (us > 0.0) {
        results.add(metric, us, 2, "us", target);
    }
}

/// A headline speed-up `baseline / ours` ("x", one decimal); nothing when either timing failed.
void addSpeedUp(bench::ResultFile& results, const std::string& metric, double baseline, double ours,
                const std::string& target = {}) {
    if (baseline > 0.0 && ours > 0.0) {
        results.add(metric, baseline / ours, 1, "x", target);
    }
}

#define BENCH_SPARSE(call)                                                                          \
    do {                                                                                            \
        const cusparseStatus_t status_ = (call);                                                    \
        if (status_ != CUSPARSE_STATUS_SUCCESS) {                                                   \
            std::printf("cuSPARSE failed: %s (%d) at %s:%d\n", #call, static_cast<int>(status_), __FILE__, __LINE__); \
            return false;                                                                           \
        }                                                                                           \
    } while (false)
#define BENCH_CUDA(call)                                                                            \
    do {                                                                                            \
        const cudaError_t status_ = (call);                                                         \
        if (status_ != cudaSuccess) {                                                               \
            std::printf("CUDA failed: %s (%s) at %s:%d\n", #call, cudaGetErrorString(status_), __FILE__, __LINE__); \
            return false;                                                                           \
        }                                                                                           \
    } while (false)

/// A device CSR matrix that frees itself.
struct DeviceCsr {
    int rows{0}, cols{0}, nnz{0};
    int* offsets{nullptr};
    int* columns{nullptr};
    float* values{nullptr};
    cusparseSpMatDescr_t descr{nullptr};
    DeviceCsr() = default;
    DeviceCsr(const DeviceCsr&) = delete;
    DeviceCsr& operator=(const DeviceCsr&) = delete;
    ~DeviceCsr() {
        if (descr != nullptr) {
            cusparseDestroySpMat(descr);
        }
        cudaFree(offsets);
        cudaFree(columns);
        cudaFree(values);
    }
    bool upload(int r, int c, const std::vector<int>& o, const std::vector<int>& col, const std::vector<float>& val) {
        rows = r;
        cols = c;
        nnz = static_cast<int>(val.size());
        BENCH_CUDA(cudaMalloc(&offsets, o.size() * sizeof(int)));
        BENCH_CUDA(cudaMalloc(&columns, std::max<std::size_t>(1, col.size()) * sizeof(int)));
        BENCH_CUDA(cudaMalloc(&values, std::max<std::size_t>(1, val.size()) * sizeof(float)));
        BENCH_CUDA(cudaMemcpy(offsets, o.data(), o.size() * sizeof(int), cudaMemcpyHostToDevice));
        BENCH_CUDA(cudaMemcpy(columns, col.data(), col.size() * sizeof(int), cudaMemcpyHostToDevice));
        BENCH_CUDA(cudaMemcpy(values, val.data(), val.size() * sizeof(float), cudaMemcpyHostToDevice));
        BENCH_SPARSE(cusparseCreateCsr(&descr, rows, cols, nnz, offsets, columns, values, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
        return true;
    }
};

/// ELL (slot-major, zero padding) → CSR.
void ellToCsr(const SparseTransition& m, std::vector<int>& offsets, std::vector<int>& columns, std::vector<float>& values) {
    offsets.assign(static_cast<std::size_t>(m.rows) + 1, 0);
    columns.clear();
    values.clear();
    for (int r = 0; r < m.rows; ++r) {
        for (int k = 0; k < m.entriesPerRow; ++k) {
            const std::size_t slot = static_cast<std::size_t>(k) * m.rows + r;
            if (m.value[slot] != 0.0F) {
                columns.push_back(m.column[slot]);
                values.push_back(m.value[slot]);
            }
        }
        offsets[static_cast<std::size_t>(r) + 1] = static_cast<int>(values.size());
    }
}

/// SpGEMM of diag(λ) (CSR, n non-zeros) and Ψ = blockdiag(ψ_sub) (CSR, n·n_a non-zeros).
struct SpGemmBaseline {
    cusparseHandle_t handle{nullptr};
    DeviceCsr lambda, psi;
    cusparseSpMatDescr_t gamma{nullptr};
    int* gammaOffsets{nullptr};
    int* gammaColumns{nullptr};
    float* gammaValues{nullptr};
    void* buffer1{nullptr};
    void* buffer2{nullptr};
    std::size_t size1{0}, size2{0};
    cusparseSpGEMMDescr_t reuse{nullptr};
    void* reuseBuffers[5]{};
    int n{0};

    ~SpGemmBaseline() {
        if (reuse != nullptr) {
            cusparseSpGEMM_destroyDescr(reuse);
        }
        if (gamma != nullptr) {
            cusparseDestroySpMat(gamma);
        }
        for (void* b : reuseBuffers) {
            cudaFree(b);
        }
        cudaFree(buffer1);
        cudaFree(buffer2);
        cudaFree(gammaOffsets);
        cudaFree(gammaColumns);
        cudaFree(gammaValues);
        if (handle != nullptr) {
            cusparseDestroy(handle);
        }
    }

    bool setUp(const ChainConfig& c, const InputDynamics& dynamics, const float* lambdaHost, cudaStream_t stream) {
        const int na = c.inputCells;
        n = c.positionCells * c.speedCells * na;
        BENCH_SPARSE(cusparseCreate(&handle));
        BENCH_SPARSE(cusparseSetStream(handle, stream));
        std::vector<int> o(static_cast<std::size_t>(n) + 1), col;
        std::vector<float> val;
        for (int r = 0; r <= n; ++r) {
            o[static_cast<std::size_t>(r)] = r;
        }
        for (int r = 0; r < n; ++r) {
            col.push_back(r);
            val.push_back(lambdaHost[r]);
        }
        if (!lambda.upload(n, n, o, col, val)) {
            return false;
        }
        col.clear();
        val.clear();
        for (int r = 0; r < n; ++r) {
            o[static_cast<std::size_t>(r)] = r * na;
            for (int up = 0; up < na; ++up) {
                col.push_back((r / na) * na + up);
                val.push_back(dynamics.psi[(r % na) * na + up]);
            }
        }
        o[static_cast<std::size_t>(n)] = n * na;
        if (!psi.upload(n, n, o, col, val)) {
            return false;
        }
        BENCH_CUDA(cudaMalloc(&gammaOffsets, (static_cast<std::size_t>(n) + 1) * sizeof(int)));
        BENCH_SPARSE(cusparseCreateCsr(&gamma, n, n, 0, gammaOffsets, nullptr, nullptr, CUSPARSE_INDEX_32I,
                                       CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
        // First full product: sizes the buffers and the output.
        cusparseSpGEMMDescr_t d{};
        BENCH_SPARSE(cusparseSpGEMM_createDescr(&d));
        const float one = 1.0F;
        const float zero = 0.0F;
        const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
        BENCH_SPARSE(cusparseSpGEMM_workEstimation(handle, op, op, &one, lambda.descr, psi.descr, &zero, gamma, CUDA_R_32F,
                                                   CUSPARSE_SPGEMM_DEFAULT, d, &size1, nullptr));
        BENCH_CUDA(cudaMalloc(&buffer1, size1));
        BENCH_SPARSE(cusparseSpGEMM_workEstimation(handle, op, op, &one, lambda.descr, psi.descr, &zero, gamma, CUDA_R_32F,
                                                   CUSPARSE_SPGEMM_DEFAULT, d, &size1, buffer1));
        BENCH_SPARSE(cusparseSpGEMM_compute(handle, op, op, &one, lambda.descr, psi.descr, &zero, gamma, CUDA_R_32F,
                                            CUSPARSE_SPGEMM_DEFAULT, d, &size2, nullptr));
        BENCH_CUDA(cudaMalloc(&buffer2, size2));
        BENCH_SPARSE(cusparseSpGEMM_compute(handle, op, op, &one, lambda.descr, psi.descr, &zero, gamma, CUDA_R_32F,
                                            CUSPARSE_SPGEMM_DEFAULT, d, &size2, buffer2));
        int64_t rows = 0, cols = 0, nnz = 0;
        BENCH_SPARSE(cusparseSpMatGetSize(gamma, &rows, &cols, &nnz));
        BENCH_CUDA(cudaMalloc(&gammaColumns, static_cast<std::size_t>(nnz) * sizeof(int)));
        BENCH_CUDA(cudaMalloc(&gammaValues, static_cast<std::size_t>(nnz) * sizeof(float)));
        BENCH_SPARSE(cusparseCsrSetPointers(gamma, gammaOffsets, gammaColumns, gammaValues));
        BENCH_SPARSE(cusparseSpGEMM_copy(handle, op, op, &one, lambda.descr, psi.descr, &zero, gamma, CUDA_R_32F,
                                         CUSPARSE_SPGEMM_DEFAULT, d));
        BENCH_SPARSE(cusparseSpGEMM_destroyDescr(d));
        BENCH_CUDA(cudaStreamSynchronize(stream));
        return true;
    }

    /// The seed's baseline: a complete sparse product (structure and values) per call, buffers reused.
    bool full() {
        cusparseSpGEMMDescr_t d{};
        BENCH_SPARSE(cusparseSpGEMM_createDescr(&d));
        const float one = 1.0F;
        const float zero = 0.0F;
        const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
        BENCH_SPARSE(cusparseSpGEMM_workEstimation(handle, op, op, &one, lambda.descr, psi.descr, &zero, gamma, CUDA_R_32F,
                                                   CUSPARSE_SPGEMM_DEFAULT, d, &size1, buffer1));
        BENCH_SPARSE(cusparseSpGEMM_compute(handle, op, op, &one, lambda.descr, psi.descr, &zero, gamma, CUDA_R_32F,
                                            CUSPARSE_SPGEMM_DEFAULT, d, &size2, buffer2));
        BENCH_SPARSE(cusparseSpGEMM_copy(handle, op, op, &one, lambda.descr, psi.descr, &zero, gamma, CUDA_R_32F,
                                         CUSPARSE_SPGEMM_DEFAULT, d));
        BENCH_SPARSE(cusparseSpGEMM_destroyDescr(d));
        return true;
    }

    /// The strongest cuSPARSE variant: structure analysed once (SpGEMMreuse), numeric product per call.
    bool prepareReuse() {
        const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
        std::size_t sizes[5]{};
        BENCH_SPARSE(cusparseSpGEMM_createDescr(&reuse));
        BENCH_SPARSE(cusparseSpGEMMreuse_workEstimation(handle, op, op, lambda.descr, psi.descr, gamma,
                                                        CUSPARSE_SPGEMM_DEFAULT, reuse, &sizes[0], nullptr));
        BENCH_CUDA(cudaMalloc(&reuseBuffers[0], sizes[0]));
        BENCH_SPARSE(cusparseSpGEMMreuse_workEstimation(handle, op, op, lambda.descr, psi.descr, gamma,
                                                        CUSPARSE_SPGEMM_DEFAULT, reuse, &sizes[0], reuseBuffers[0]));
        BENCH_SPARSE(cusparseSpGEMMreuse_nnz(handle, op, op, lambda.descr, psi.descr, gamma, CUSPARSE_SPGEMM_DEFAULT, reuse,
                                             &sizes[1], nullptr, &sizes[2], nullptr, &sizes[3], nullptr));
        BENCH_CUDA(cudaMalloc(&reuseBuffers[1], sizes[1]));
        BENCH_CUDA(cudaMalloc(&reuseBuffers[2], sizes[2]));
        BENCH_CUDA(cudaMalloc(&reuseBuffers[3], sizes[3]));
        BENCH_SPARSE(cusparseSpGEMMreuse_nnz(handle, op, op, lambda.descr, psi.descr, gamma, CUSPARSE_SPGEMM_DEFAULT, reuse,
                                             &sizes[1], reuseBuffers[1], &sizes[2], reuseBuffers[2], &sizes[3],
                                             reuseBuffers[3]));
        BENCH_SPARSE(cusparseSpGEMMreuse_copy(handle, op, op, lambda.descr, psi.descr, gamma, CUSPARSE_SPGEMM_DEFAULT, reuse,
                                              &sizes[4], nullptr));
        BENCH_CUDA(cudaMalloc(&reuseBuffers[4], sizes[4]));
        BENCH_SPARSE(cusparseSpGEMMreuse_copy(handle, op, op, lambda.descr, psi.descr, gamma, CUSPARSE_SPGEMM_DEFAULT, reuse,
                                              &sizes[4], reuseBuffers[4]));
        return true;
    }

    bool numeric() {
        const float one = 1.0F;
        const float zero = 0.0F;
        const auto op = CUSPARSE_OPERATION_NON_TRANSPOSE;
        BENCH_SPARSE(cusparseSpGEMMreuse_compute(handle, op, op, &one, lambda.descr, psi.descr, &zero, gamma, CUDA_R_32F,
                                                 CUSPARSE_SPGEMM_DEFAULT, reuse));
        return true;
    }
};

/// y = A·x with cuSPARSE SpMV (buffer sized once).
struct SpMv {
    cusparseDnVecDescr_t x{nullptr}, y{nullptr};
    void* buffer{nullptr};
    ~SpMv() {
        if (x != nullptr) {
            cusparseDestroyDnVec(x);
        }
        if (y != nullptr) {
            cusparseDestroyDnVec(y);
        }
        cudaFree(buffer);
    }
    bool setUp(cusparseHandle_t handle, cusparseSpMatDescr_t a, float* xData, float* yData, int n) {
        BENCH_SPARSE(cusparseCreateDnVec(&x, n, xData, CUDA_R_32F));
        BENCH_SPARSE(cusparseCreateDnVec(&y, n, yData, CUDA_R_32F));
        const float one = 1.0F;
        const float zero = 0.0F;
        std::size_t size = 0;
        BENCH_SPARSE(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, x, &zero, y, CUDA_R_32F,
                                             CUSPARSE_SPMV_ALG_DEFAULT, &size));
        BENCH_CUDA(cudaMalloc(&buffer, std::max<std::size_t>(size, 16)));
        return true;
    }
    bool run(cusparseHandle_t handle, cusparseSpMatDescr_t a) {
        const float one = 1.0F;
        const float zero = 0.0F;
        BENCH_SPARSE(cusparseSpMV(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, a, x, &zero, y, CUDA_R_32F,
                                  CUSPARSE_SPMV_ALG_DEFAULT, buffer));
        return true;
    }
};

/// Device copies of a scenario and the outputs.
struct DeviceScenario {
    platform::DeviceBuffer<CorridorInput> corridors;
    platform::DeviceBuffer<float> x, y, s, pos, speed;
    platform::DeviceBuffer<CorridorPoint> points;
    platform::DeviceBuffer<std::uint16_t> grid;
    platform::DeviceMemory scratch;

    bool create(const ChainConfig& c, Scenario& sc) {
        const auto count = sc.corridors.size();
        const auto H = static_cast<std::size_t>(sc.config.horizonSteps);
        auto a = platform::DeviceBuffer<CorridorInput>::create(count);
        auto bx = platform::DeviceBuffer<float>::create(sc.x.size());
        auto by = platform::DeviceBuffer<float>::create(sc.y.size());
        auto bs = platform::DeviceBuffer<float>::create(sc.s.size());
        auto bp = platform::DeviceBuffer<float>::create(count * H * static_cast<std::size_t>(c.positionCells));
        auto bv = platform::DeviceBuffer<float>::create(count * H * static_cast<std::size_t>(c.speedCells));
        auto bpt = platform::DeviceBuffer<CorridorPoint>::create(count * H);
        auto bg = platform::DeviceBuffer<std::uint16_t>::create(static_cast<std::size_t>(sc.config.gridFrames) * 128 * 128);
        auto m = platform::DeviceMemory::allocate(cuda::predictScratchBytes(c, sc.config));
        if (!a || !bx || !by || !bs || !bp || !bv || !bpt || !bg || !m) {
            std::printf("device allocation failed\n");
            return false;
        }
        corridors = std::move(a).value();
        x = std::move(bx).value();
        y = std::move(by).value();
        s = std::move(bs).value();
        pos = std::move(bp).value();
        speed = std::move(bv).value();
        points = std::move(bpt).value();
        grid = std::move(bg).value();
        scratch = std::move(m).value();
        return corridors.upload(sc.corridors).hasValue() && x.upload(sc.x).hasValue() && y.upload(sc.y).hasValue() &&
               s.upload(sc.s).hasValue() && cudaDeviceSynchronize() == cudaSuccess;
    }

    platform::GpuStatus enqueue(const cuda::DeviceChain& chain, const Scenario& sc, const InputDynamics& psi,
                                platform::StreamHandle stream) const {
        const PredictionOutputs out{pos.data(), speed.data(), points.data(), grid.data(), 128 * 128};
        return cuda::predict(chain, sc.config, psi, corridors.data(), static_cast<int>(sc.corridors.size()),
                             Polylines{x.data(), y.data(), s.data()}, sc.placement, out, scratch.get(), scratch.bytes(),
                             stream);
    }
};

/// Jetson AGX Orin's LPDDR5 bandwidth, GB/s: a call's bytes over it are its floor there.
constexpr double ORIN_BANDWIDTH_GBPS = 205.0;

/// Bytes a whole-horizon call must move with the distribution resident in shared memory: its outputs
/// written once (position and speed marginals, corridor points, the splat grid), its inputs read once
/// (corridor inputs, polylines) and the stencil read once per corridor. Intermediate traffic of the
/// tiled path (the distribution in global memory every step) is not counted.
double horizonBytes(const ChainConfig& c, const Scenario& sc, const MarkovChain& chain) {
    const auto count = static_cast<double>(sc.corridors.size());
    const auto steps = static_cast<double>(sc.config.horizonSteps);
    const double outputs = count * steps * (4.0 * (c.positionCells + c.speedCells) + sizeof(CorridorPoint)) +
                           static_cast<double>(sc.config.gridFrames) * 128.0 * 128.0 * sizeof(std::uint16_t);
    const double inputs = count * sizeof(CorridorInput) + 4.0 * static_cast<double>(sc.x.size() + sc.y.size() + sc.s.size());
    const double stencil = count * static_cast<double>(chain.stencil().shift.size()) * sizeof(cuda::StencilSlot);
    return outputs + inputs + stencil;
}

/// What benchGpu's measurements share: the chain, the repetitions, a stream, the input dynamics ψ, a
/// corridor's constraints and λ (with Γ's buffer), the memory a queued call waits behind, the
/// cuSPARSE baseline, and the result file the headline figures go to.
struct GpuBench {
    const MarkovChain& chain;
    bool quick;
    int warmup;
    int reps;
    const ChainConfig& c;
    int na;
    int n;
    int cells;
    platform::Stream& stream;
    const InputDynamics& psi;
    const CorridorConstraints& constraints;
    platform::DeviceBuffer<float>& lambda;
    platform::DeviceBuffer<float>& gamma;
    const platform::DeviceMemory& busy;
    SpGemmBaseline& spgemm;
    bench::ResultFile& results;
};

/// The combination's timings (µs): Γ = diag(λ)·ψ, with renormalisation, one cell (the floor), and the
/// cuSPARSE baselines; single calls, back to back, graph-replayed, queued behind a memset, host enqueue.
struct CombinationTimes {
    double combineOne{0.0};
    double combineMany{0.0};
    double combineGraph{0.0};
    double normOne{0.0};
    double normMany{0.0};
    double normGraph{0.0};
    double floorOne{0.0};
    double floorMany{0.0};
    double floorGraph{0.0};
    double fullOne{0.0};
    double fullMany{0.0};
    double numericOne{0.0};
    double numericMany{0.0};
    double combineQueued{0.0};
    double normQueued{0.0};
    double floorQueued{0.0};
    double fullQueued{0.0};
    double numericQueued{0.0};
    double combineHost{0.0};
    double fullHost{0.0};
};

/// Measures the combination and its baselines; false when a call failed.
bool measureCombination(GpuBench& g, CombinationTimes& t) {
    const int warmup = g.warmup;
    const int reps = g.reps;
    platform::Stream& stream = g.stream;
    SpGemmBaseline& spgemm = g.spgemm;
    constexpr int BATCH = 20;
    bool ok = true;
    auto combineCells = [&](bool renormalise, int count) {
        return [&, renormalise, count](platform::StreamHandle s) {
            ok = cuda::combineInputTransition(g.lambda.data(), g.psi, g.na, count, g.gamma.data(), renormalise, s)
                     .hasValue() &&
                 ok;
        };
    };
    auto combine = [&](bool renormalise) { return combineCells(renormalise, g.cells); };
    auto full = [&](platform::StreamHandle) { ok = spgemm.full() && ok; };
    auto numeric = [&](platform::StreamHandle) { ok = spgemm.numeric() && ok; };
    auto single = [&](auto fn) { return bench::deviceMedian_us(stream.get(), fn, warmup, reps); };
    auto batched = [&](auto fn) {
        return bench::deviceMedian_us(
                   stream.get(),
                   [&](platform::StreamHandle s) {
                       for (int i = 0; i < BATCH; ++i) {
                           fn(s);
                       }
                   },
                   warmup / 2 + 1, reps / 2 + 1) /
               BATCH;
    };
    // BATCH calls captured into one graph, the replay timed (our kernels only: cuSPARSE's SpGEMM
    // creates descriptors and sizes buffers on the host between its phases).
    auto graphed = [&](auto fn) {
        auto graph = platform::Graph::capture(stream.get(), [&](platform::StreamHandle s) -> platform::GpuStatus {
            for (int i = 0; i < BATCH; ++i) {
                fn(s);
            }
            return {};
        });
        if (!graph) {
            ok = false;
            return -1.0;
        }
        return bench::deviceMedian_us(
                   stream.get(), [&](platform::StreamHandle s) { ok = graph->launch(s).hasValue() && ok; },
                   warmup / 2 + 1, reps / 2 + 1) /
               BATCH;
    };
    t.combineOne = single(combine(false));
    t.combineMany = batched(combine(false));
    t.combineGraph = graphed(combine(false));
    t.normOne = single(combine(true));
    t.normMany = batched(combine(true));
    t.normGraph = graphed(combine(true));
    t.floorOne = single(combineCells(false, 1));
    t.floorMany = batched(combineCells(false, 1));
    t.floorGraph = graphed(combineCells(false, 1));
    t.fullOne = single(full);
    t.fullMany = batched(full);
    t.numericOne = single(numeric);
    t.numericMany = batched(numeric);
    // One call queued behind other work (the device busy with a memset when the call's launches
    // arrive): the device time of a single call without the host's submission latency.
    auto queued = [&](auto fn) {
        return bench::queuedDeviceMedian_us(stream.get(), g.busy, fn, warmup, reps);
    };
    t.combineQueued = queued(combine(false));
    t.normQueued = queued(combine(true));
    t.floorQueued = queued(combineCells(false, 1));
    t.fullQueued = queued(full);
    t.numericQueued = queued(numeric);
    // Host time to enqueue one call (what a caller's thread pays per launch).
    auto enqueueCost = [&](auto fn) {
        const double us = bench::hostMedian_us([&] { fn(stream.get()); }, warmup, reps);
        ok = stream.synchronize().hasValue() && ok;
        return us;
    };
    t.combineHost = enqueueCost(combine(false));
    t.fullHost = enqueueCost(full);
    return ok;
}

/// The combination's table and the H100 target's verdicts.
void printCombination(const CombinationTimes& t) {
    Table table("Combination Γ = diag(λ)·ψ, n_s = 200, n_v = 20, n_a = 6 (24,000 × 24,000, 144,000 non-zeros)",
                {"method", "µs per call, single call (median)", "speed-up of the combination",
                 "µs per call, 20 back-to-back (median)", "speed-up of the combination",
                 "µs per call, 20 in one CUDA graph (median)", "speed-up vs SpGEMM back-to-back",
                 "µs, single call queued behind a memset (median)", "speed-up of the combination",
                 "host µs to enqueue one call (median)"});
    table.row({"combination (Eq. 4), this work", fmt(t.combineOne), "1.0×", fmt(t.combineMany), "1.0×", fmt(t.combineGraph),
               fmt(t.fullMany / t.combineGraph, 1) + "×", fmt(t.combineQueued), "1.0×", fmt(t.combineHost)});
    table.row({"combination + column renormalisation, this work", fmt(t.normOne), fmt(t.combineOne / t.normOne, 2) + "×",
               fmt(t.normMany), fmt(t.combineMany / t.normMany, 2) + "×", fmt(t.normGraph), fmt(t.fullMany / t.normGraph, 1) + "×",
               fmt(t.normQueued), fmt(t.combineQueued / t.normQueued, 2) + "×", ""});
    table.row({"same kernel, one (s, v) cell (launch and timing floor)", fmt(t.floorOne), "", fmt(t.floorMany), "",
               fmt(t.floorGraph), "", fmt(t.floorQueued), "", ""});
    table.row({"cuSPARSE SpGEMM, full product per call (seed's baseline)", fmt(t.fullOne), fmt(t.fullOne / t.combineOne, 1) + "×",
               fmt(t.fullMany), fmt(t.fullMany / t.combineMany, 1) + "×", "not capturable", "", fmt(t.fullQueued),
               fmt(t.fullQueued / t.combineQueued, 1) + "×", fmt(t.fullHost)});
    table.row({"cuSPARSE SpGEMMreuse_compute (structure analysed once)", fmt(t.numericOne),
               fmt(t.numericOne / t.combineOne, 1) + "×", fmt(t.numericMany), fmt(t.numericMany / t.combineMany, 1) + "×", "", "",
               fmt(t.numericQueued), fmt(t.numericQueued / t.combineQueued, 1) + "×", ""});
    auto verdict = [](double ratio) { return ratio >= SEED_SPGEMM_SPEEDUP ? "MET" : "NOT met"; };
    std::printf("\nTarget (H100): combination ≥ 108.6× faster than the SpGEMM baseline (full product): "
                "single call %s (%.1f×), back-to-back %s (%.1f×), graph-replayed combination vs SpGEMM back-to-back "
                "%s (%.1f×), single call queued behind other work %s (%.1f×)\n",
                verdict(t.fullOne / t.combineOne), t.fullOne / t.combineOne, verdict(t.fullMany / t.combineMany),
                t.fullMany / t.combineMany, verdict(t.fullMany / t.combineGraph), t.fullMany / t.combineGraph,
                verdict(t.fullQueued / t.combineQueued), t.fullQueued / t.combineQueued);
}

/// The combination's headline figures: the graph-replayed call, and the seed's full SpGEMM against the
/// combination graph-replayed (the target's ratio), back to back and per single call.
void addCombinationResults(const CombinationTimes& t, bench::ResultFile& results) {
    addTime(results, "combination, 20 calls in one CUDA graph, per call", t.combineGraph);
    addSpeedUp(results, "combination in a graph against cuSPARSE SpGEMM back-to-back", t.fullMany, t.combineGraph,
               ">= " + fmt(SEED_SPGEMM_SPEEDUP, 1) + "x");
    addSpeedUp(results, "combination back-to-back against SpGEMM back-to-back", t.fullMany, t.combineMany);
    addSpeedUp(results, "combination single call against SpGEMM single call", t.fullOne, t.combineOne);
}

/// The combination Γ = diag(λ)·ψ against cuSPARSE SpGEMM.
bool benchCombination(GpuBench& g) {
    CombinationTimes t;
    if (!measureCombination(g, t)) {
        std::printf("combination benchmark failed\n");
        return false;
    }
    printCombination(t);
    addCombinationResults(t, g.results);
    return true;
}

/// The one-corridor table (µs); `blocks` names the fused path's cluster.
void printStep(const std::string& blocks, double fusedStep, double baseFull, double baseReuse, double fusedHorizon,
               double baseHorizon) {
    Table table("One corridor: fused propagation vs λ + SpGEMM + SpMV (Υ(τ)·p, Γ·(Υp), Υ([0,τ])·p)",
                {"method", "µs (median)", "speed-up of the fused path"});
    table.row({"fused, 1 step (whole predict call: p0, step, marginals, splat, grid; " + blocks + ")", fmt(fusedStep),
               "1.0×"});
    table.row({"λ kernel + SpGEMM full + 3 SpMV, 1 step", fmt(baseFull), fmt(baseFull / fusedStep, 1) + "×"});
    table.row({"λ kernel + SpGEMMreuse_compute + 3 SpMV, 1 step", fmt(baseReuse), fmt(baseReuse / fusedStep, 1) + "×"});
    table.row({"fused, 40 steps incl. marginals and splat (" + blocks + ")", fmt(fusedHorizon), "1.0×"});
    table.row({"λ + SpGEMMreuse_compute + 3 SpMV, 40 steps (no marginals, no splat)", fmt(baseHorizon),
               fmt(baseHorizon / fusedHorizon, 1) + "×"});
}

/// One propagation step for one corridor: fused kernel vs λ + SpGEMM + SpMV.
bool benchStep(GpuBench& g) {
    const int warmup = g.warmup;
    const int reps = g.reps;
    const ChainConfig& c = g.c;
    const int n = g.n;
    platform::Stream& stream = g.stream;
    const InputDynamics& psi = g.psi;
    const CorridorConstraints& constraints = g.constraints;
    SpGemmBaseline& spgemm = g.spgemm;
    std::vector<int> o, col;
    std::vector<float> val;
    DeviceCsr upsilon, upsilonInterval;
    ellToCsr(g.chain.stepTransition(), o, col, val);
    if (!upsilon.upload(n, n, o, col, val)) {
        return false;
    }
    ellToCsr(g.chain.intervalTransition(), o, col, val);
    if (!upsilonInterval.upload(n, n, o, col, val)) {
        return false;
    }
    auto p = platform::DeviceBuffer<float>::create(static_cast<std::size_t>(n)).value();
    auto q = platform::DeviceBuffer<float>::create(static_cast<std::size_t>(n)).value();
    auto next = platform::DeviceBuffer<float>::create(static_cast<std::size_t>(n)).value();
    auto interval = platform::DeviceBuffer<float>::create(static_cast<std::size_t>(n)).value();
    std::vector<float> p0(static_cast<std::size_t>(n));
    Scenario one(c, 1);
    initialDistribution(c, one.corridors[0], p0.data());
    if (!p.upload(p0).hasValue()) {
        return false;
    }
    SpMv stepMv, gammaMv, intervalMv;
    if (!stepMv.setUp(spgemm.handle, upsilon.descr, p.data(), q.data(), n) ||
        !gammaMv.setUp(spgemm.handle, spgemm.gamma, q.data(), next.data(), n) ||
        !intervalMv.setUp(spgemm.handle, upsilonInterval.descr, p.data(), interval.data(), n)) {
        return false;
    }
    bool ok = true;
    auto baselineStep = [&](platform::StreamHandle s, bool fullProduct) {
        ok = cuda::priorityVector(c, constraints, PriorityRules{}, 1.0F, spgemm.lambda.values, s).hasValue() && ok;
        ok = (fullProduct ? spgemm.full() : spgemm.numeric()) && ok;
        ok = stepMv.run(spgemm.handle, upsilon.descr) && gammaMv.run(spgemm.handle, spgemm.gamma) &&
             intervalMv.run(spgemm.handle, upsilonInterval.descr) && ok;
    };
    const double baseFull = bench::deviceMedian_us(stream.get(), [&](platform::StreamHandle s) { baselineStep(s, true); }, warmup, reps);
    const double baseReuse = bench::deviceMedian_us(stream.get(), [&](platform::StreamHandle s) { baselineStep(s, false); }, warmup, reps);

    Scenario step1(c, 1);
    step1.config.horizonSteps = 1;
    step1.config.gridFrames = 1;
    DeviceScenario d1;
    Scenario horizon1(c, 1);
    DeviceScenario dh;
    if (!d1.create(c, step1) || !dh.create(c, horizon1)) {
        return false;
    }
    auto deviceChain = cuda::DeviceChain::create(g.chain, cuda::Propagation::Resident);
    if (!deviceChain) {
        return false;
    }
    const double fusedStep = bench::deviceMedian_us(
        stream.get(), [&](platform::StreamHandle s) { ok = d1.enqueue(*deviceChain, step1, psi, s).hasValue() && ok; }, warmup, reps);
    const double fusedHorizon = bench::deviceMedian_us(
        stream.get(), [&](platform::StreamHandle s) { ok = dh.enqueue(*deviceChain, horizon1, psi, s).hasValue() && ok; }, warmup, reps);
    const double baseHorizon = bench::deviceMedian_us(
        stream.get(),
        [&](platform::StreamHandle s) {
            for (int t = 0; t < 40; ++t) {
                baselineStep(s, false);
            }
        },
        g.quick ? 1 : 3, g.quick ? 5 : 20);
    if (!ok) {
        std::printf("step benchmark failed\n");
        return false;
    }
    printStep(std::to_string(deviceChain->residentClusterBlocks(1)) + "-block cluster", fusedStep, baseFull, baseReuse,
              fusedHorizon, baseHorizon);
    return true;
}

/// The resident path's device chains with a fixed cluster size of 1, 2, 4 and 8 blocks, those the device
/// can make; their sizes in `blocks`.
std::vector<cuda::DeviceChain> fixedClusterChains(const MarkovChain& chain, std::vector<int>& blocks) {
    std::vector<cuda::DeviceChain> fixed;
    for (const int b : {1, 2, 4, 8}) {
        auto dc = cuda::DeviceChain::create(chain, cuda::Propagation::Resident, b);
        if (dc) {
            fixed.push_back(std::move(dc).value());
            blocks.push_back(b);
        }
    }
    return fixed;
}

/// The horizon's headline figures at `count` corridors, the resident path with the cluster chosen per
/// call: the target's corridors replayed (with the target) and launched directly; one corridor replayed.
void addHorizonResults(bench::ResultFile& results, int count, double direct_us, double replay_us) {
    const std::string metric = "horizon, " + std::to_string(count) + (count == 1 ? " corridor" : " corridors");
    if (count == HORIZON_TARGET_CORRIDORS) {
        addTime(results, metric + ", CUDA graph replay", replay_us, "<= " + fmt(HORIZON_TARGET_US, 0) + " us");
        addTime(results, metric + ", direct launches", direct_us);
    } else if (count == 1) {
        addTime(results, metric + ", CUDA graph replay", replay_us);
    }
}

/// The whole horizon for many corridors: the resident path with the cluster size chosen per call
/// (direct launches and graph replay), with each fixed cluster size, and the tiled path (the
/// one-launch-per-step design, kept for chains that do not fit one block).
bool benchHorizon(GpuBench& g) {
    const MarkovChain& chain = g.chain;
    const int warmup = g.warmup;
    const int reps = g.reps;
    const ChainConfig& c = g.c;
    platform::Stream& stream = g.stream;
    const InputDynamics& psi = g.psi;
    auto automatic = cuda::DeviceChain::create(chain, cuda::Propagation::Resident);
    auto tiled = cuda::DeviceChain::create(chain, cuda::Propagation::Tiled);
    if (!automatic || !tiled) {
        std::printf("device chain creation failed\n");
        return false;
    }
    std::vector<int> fixedBlocks;
    const std::vector<cuda::DeviceChain> fixed = fixedClusterChains(chain, fixedBlocks);
    std::printf("\nResident block: %zu bytes of shared memory; corridors resident at once:", automatic->residentSharedBytes());
    for (const int blocks : {1, 2, 4, 8}) {
        std::printf(" %d on %d-block clusters;", automatic->maxActiveResidentCorridors(blocks), blocks);
    }
    std::printf("\n");
    std::vector<std::string> columns{"corridors", "resident, cluster chosen per call: blocks", "direct launches µs (median)",
                                     "CUDA graph replay µs (median)"};
    for (const int blocks : fixedBlocks) {
        columns.push_back("resident, " + std::to_string(blocks) + "-block clusters: graph µs");
    }
    columns.push_back("tiled: graph µs");
    columns.push_back("MB moved / 205 GB/s (Orin) µs");
    columns.push_back("target ≤ 1000 µs (64)");
    Table table("Whole horizon (4 s, τ = 0.1 s, 40 steps) incl. marginals, corridor points and grid splat (128×128, 8 frames)",
                columns);
    for (const int count : {1, 16, 64, 132, 256}) {
        Scenario sc(c, count);
        DeviceScenario d;
        if (!d.create(c, sc)) {
            return false;
        }
        bool ok = true;
        auto direct = [&](const cuda::DeviceChain& dc) {
            return bench::deviceMedian_us(
                stream.get(), [&](platform::StreamHandle s) { ok = d.enqueue(dc, sc, psi, s).hasValue() && ok; }, warmup, reps);
        };
        auto replay = [&](const cuda::DeviceChain& dc) {
            auto graph = platform::Graph::capture(stream.get(), [&](platform::StreamHandle s) { return d.enqueue(dc, sc, psi, s); });
            if (!graph) {
                return -1.0;
            }
            return bench::deviceMedian_us(
                stream.get(), [&](platform::StreamHandle s) { ok = graph->launch(s).hasValue() && ok; }, warmup, reps);
        };
        auto shown = [](double us) { return us > 0 ? fmt(us) : std::string("capture failed"); };
        const double autoDirect = direct(*automatic);
        const double autoReplay = replay(*automatic);
        std::vector<std::string> row{std::to_string(count), std::to_string(automatic->residentClusterBlocks(count)),
                                     fmt(autoDirect), shown(autoReplay)};
        for (const cuda::DeviceChain& dc : fixed) {
            row.push_back(shown(replay(dc)));
        }
        row.push_back(shown(replay(*tiled)));
        const double bytes = horizonBytes(c, sc, chain);
        row.push_back(fmt(bytes / 1e6, 2) + " / " + fmt(bytes / (ORIN_BANDWIDTH_GBPS * 1e3), 1));
        if (!ok) {
            std::printf("horizon benchmark failed at %d corridors\n", count);
            return false;
        }
        std::string verdict;
        if (count == HORIZON_TARGET_CORRIDORS) {
            const double best = autoReplay > 0 ? std::min(autoDirect, autoReplay) : autoDirect;
            verdict = best <= HORIZON_TARGET_US ? "MET" : "NOT met";
        }
        row.push_back(verdict);
        table.row(row);
        addHorizonResults(g.results, count, autoDirect, autoReplay);
    }
    return true;
}

bool benchGpu(const MarkovChain& chain, bool quick, bench::ResultFile& results) {
    const int warmup = quick ? 3 : 10;
    const int reps = quick ? 20 : 100;
    const ChainConfig& c = chain.config();
    const int na = c.inputCells;
    const int n = chain.stateCount();
    const int cells = chain.cellCount();
    auto streamResult = platform::Stream::create();
    if (!streamResult) {
        return false;
    }
    platform::Stream stream = std::move(streamResult).value();
    auto* cs = reinterpret_cast<cudaStream_t>(stream.get());
    const InputDynamics psi = bandedInputDynamics(na, 0.7F);

    // λ for a corridor with every rule active, on the device and on the host.
    CorridorConstraints constraints{};
    constraints.speedLimit_mps = 13.9F;
    constraints.stopProbability = 0.6F;
    constraints.stopDistance_m = 60.0F;
    constraints.leadGap_m = 30.0F;
    constraints.leadSpeed_mps = 5.0F;
    std::vector<float> lambdaHost(static_cast<std::size_t>(n));
    cpu::priorityVector(c, constraints, PriorityRules{}, 1.0F, lambdaHost);
    auto lambda = platform::DeviceBuffer<float>::create(static_cast<std::size_t>(n)).value();
    auto gamma = platform::DeviceBuffer<float>::create(static_cast<std::size_t>(cells) * na * na).value();
    if (!lambda.upload(lambdaHost).hasValue()) {
        return false;
    }

    auto busyMemory = platform::DeviceMemory::allocate(bench::QUEUE_BEHIND_BYTES);
    if (!busyMemory) {
        return false;
    }
    const platform::DeviceMemory busy = std::move(busyMemory).value();

    SpGemmBaseline spgemm;
    if (!spgemm.setUp(c, psi, lambdaHost.data(), cs) || !spgemm.prepareReuse()) {
        return false;
    }
    GpuBench g{chain, quick, warmup, reps, c, na, n, cells, stream, psi, constraints, lambda, gamma, busy, spgemm,
               results};
    return benchCombination(g) && benchStep(g) && benchHorizon(g);
}

/// --profile: each GPU case enqueued a few times and nothing timed, so that a profiler run over this
/// program (Nsight Compute: `ncu --clock-control none -k regex:. augur-bench-markov --profile`) sees every
/// kernel of the cases the tables time.
bool profileGpu(const MarkovChain& chain) {
    constexpr int CALLS = 3;
    const ChainConfig& c = chain.config();
    auto streamResult = platform::Stream::create();
    if (!streamResult) {
        return false;
    }
    platform::Stream stream = std::move(streamResult).value();
    const InputDynamics psi = bandedInputDynamics(c.inputCells, 0.7F);
    std::vector<float> lambdaHost(static_cast<std::size_t>(chain.stateCount()));
    CorridorConstraints constraints{};
    constraints.speedLimit_mps = 13.9F;
    constraints.stopProbability = 0.6F;
    constraints.stopDistance_m = 60.0F;
    cpu::priorityVector(c, constraints, PriorityRules{}, 1.0F, lambdaHost);
    auto lambda = platform::DeviceBuffer<float>::create(lambdaHost.size());
    auto gamma = platform::DeviceBuffer<float>::create(static_cast<std::size_t>(chain.cellCount()) * c.inputCells * c.inputCells);
    if (!lambda || !gamma || !lambda->upload(lambdaHost).hasValue()) {
        return false;
    }
    bool ok = true;
    for (int i = 0; i < CALLS; ++i) {
        ok = cuda::combineInputTransition(lambda->data(), psi, c.inputCells, chain.cellCount(), gamma->data(), false,
                                          stream.get())
                 .hasValue() &&
             ok;
        ok = cuda::combineInputTransition(lambda->data(), psi, c.inputCells, chain.cellCount(), gamma->data(), true,
                                          stream.get())
                 .hasValue() &&
             ok;
    }
    auto automatic = cuda::DeviceChain::create(chain, cuda::Propagation::Resident);
    auto oneBlock = cuda::DeviceChain::create(chain, cuda::Propagation::Resident, 1);
    if (!automatic || !oneBlock) {
        return false;
    }
    for (const int count : {1, 64}) {
        Scenario sc(c, count);
        DeviceScenario d;
        if (!d.create(c, sc)) {
            return false;
        }
        for (int i = 0; i < CALLS; ++i) {
            ok = d.enqueue(*automatic, sc, psi, stream.get()).hasValue() && ok;
            ok = d.enqueue(*oneBlock, sc, psi, stream.get()).hasValue() && ok;
        }
        ok = stream.synchronize().hasValue() && ok;
    }
    std::printf("profile cases enqueued: %s\n", ok ? "ok" : "FAILED");
    return ok;
}

#endif  // MARKOV_BENCH_CUDA

}  // namespace
}  // namespace augur::kernels::markov

int main(int argc, char** argv) {
    using namespace augur::kernels::markov;
    namespace bench = augur::bench;
    bool quick = false;
    bool profile = false;
    std::string json;
    CLI::App app{"augur-bench-markov: Markov-chain prediction against cuSPARSE SpGEMM / SpMV, horizon scaling, CPU reference.",
                 "augur-bench-markov"};
    augur::apps::cli::useConventions(app);
    app.add_flag("--quick", quick, "fewer repetitions");
    app.add_flag("--profile", profile, "no tables: each GPU case enqueued a few times, for a kernel profiler");
    bench::addJsonOption(app, json);
    if (const auto exit = bench::parseArguments(app, argc, argv)) {
        return *exit;
    }
    bench::ResultFile results("markov", "Markov-chain motion prediction", 30);
    results.setDevice(bench::describeDevice(MARKOV_BENCH_CUDA && augur::platform::gpuCount() > 0));
    results.setCommand(bench::commandLine(argc, argv));
    bench::recordTablesInto(&results);
    if (profile) {
#if MARKOV_BENCH_CUDA
        const auto seedChain = MarkovChain::build(ChainConfig{});
        return seedChain && augur::platform::gpuCount() > 0 && profileGpu(*seedChain) ? 0 : 1;
#else
        std::printf("--profile needs the CUDA build\n");
        return 1;
#endif
    }
    benchInit(quick, results);
    const auto chain = MarkovChain::build(ChainConfig{});
    if (!chain) {
        std::printf("chain build failed: %s\n", toString(chain.error()));
        return 1;
    }
    benchCpu(*chain, quick);
#if MARKOV_BENCH_CUDA
    if (augur::platform::gpuCount() > 0) {
        auto info = augur::platform::queryGpu(0);
        if (info) {
            std::printf("\nDevice: %s (sm_%d%d, %d SMs)\n", info->name, info->computeMajor, info->computeMinor,
                        info->multiprocessors);
        }
        if (!benchGpu(*chain, quick, results)) {
            std::printf("GPU benchmarks FAILED\n");
            return 1;
        }
    } else {
        std::printf("\nno CUDA device: GPU benchmarks skipped\n");
    }
#endif
    return bench::writeResults(results, json) ? 0 : augur::apps::cli::EXIT_INPUT;
}
