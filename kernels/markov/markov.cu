// CUDA path of the Markov-chain prediction and of the seed's combination (Sec. 4.3.1).
//
// Layers: host API (cuda::predict, cuda::combineInputTransition) → dispatch (launch shapes from
// tuning.hpp) → thin __global__ entries → the shared __host__ __device__ maths in chain.hpp,
// priority.hpp and prediction.hpp.
//
// One horizon step is one launch for all corridors: a warp owns one position row of
// CORRIDORS_PER_THREAD corridors (lanes over speed cells); each thread gathers Υ(τ)·p and Υ([0, τ])·p
// for its cell's n_a rows, evaluates λ for its cell, and applies Γ = diag(λ)·ψ column-renormalised
// straight from registers: Γ is never written to memory. The position marginals come from a warp
// reduction, the speed marginals from per-block partial sums in a fixed order (deterministic).
#include <cuda_runtime.h>

#include <cstdint>

#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/prediction.hpp"
#include "augur/kernels/markov/priority.hpp"
#include "augur/platform/cuda_check.hpp"
#include "tuning.hpp"

namespace augur::kernels::markov {
namespace {

constexpr int CPT = tuning::CORRIDORS_PER_THREAD;
constexpr int WARPS = tuning::STEP_WARPS;
constexpr int BLOCK = tuning::BLOCK_THREADS;
constexpr std::size_t SCRATCH_ALIGN = 256;

std::size_t alignUp(std::size_t bytes) { return (bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN; }

int stepBlocksX(const ChainConfig& c) { return (c.positionCells + WARPS - 1) / WARPS; }

struct DeviceScratch {
    float* p;                   // [corridor][n]
    float* next;                // [corridor][n]
    float* interval;            // [corridor][step][n_s]
    float* speedPartial;        // [corridor][step][blockX][n_v]
    std::uint32_t* accumulator; // [frame][H·W]
    std::size_t accumulatorBytes;
};

std::size_t layout(const ChainConfig& c, const PredictionConfig& pc, std::byte* base, DeviceScratch* out) {
    const auto corridors = static_cast<std::size_t>(pc.maxCorridors);
    const auto n = static_cast<std::size_t>(c.positionCells) * static_cast<std::size_t>(c.speedCells) *
                   static_cast<std::size_t>(c.inputCells);
    const auto H = static_cast<std::size_t>(pc.horizonSteps);
    const std::size_t sizes[5] = {
        alignUp(corridors * n * sizeof(float)), alignUp(corridors * n * sizeof(float)),
        alignUp(corridors * H * static_cast<std::size_t>(c.positionCells) * sizeof(float)),
        alignUp(corridors * H * static_cast<std::size_t>(stepBlocksX(c)) * static_cast<std::size_t>(c.speedCells) *
                sizeof(float)),
        alignUp(static_cast<std::size_t>(pc.gridFrames) * static_cast<std::size_t>(pc.gridWidthCells) *
                static_cast<std::size_t>(pc.gridHeightCells) * sizeof(std::uint32_t))};
    if (out != nullptr) {
        std::size_t offset = 0;
        out->p = reinterpret_cast<float*>(base + offset);
        offset += sizes[0];
        out->next = reinterpret_cast<float*>(base + offset);
        offset += sizes[1];
        out->interval = reinterpret_cast<float*>(base + offset);
        offset += sizes[2];
        out->speedPartial = reinterpret_cast<float*>(base + offset);
        offset += sizes[3];
        out->accumulator = reinterpret_cast<std::uint32_t*>(base + offset);
        out->accumulatorBytes = sizes[4];
    }
    return sizes[0] + sizes[1] + sizes[2] + sizes[3] + sizes[4];
}

/// The Υ matrices as the kernels read them.
struct EllView {
    const std::int32_t* column;
    const float* value;
    int entries;
};

// --- device functions ------------------------------------------------------------------------------

/// Propagates one cell (is, iv) of up to CPT corridors by one step; returns the cell's new mass and
/// interval mass per corridor through `cellMass` / `intervalMass`.
__device__ __forceinline__ void propagateCell(const ChainConfig& c, const EllView& step, const EllView& interval,
                                              const InputDynamics& psi, const PriorityRules& rules,
                                              const CorridorInput* corridors, int corridorBegin, int corridorCount,
                                              const float* __restrict__ p, float* __restrict__ next, int is, int iv,
                                              float time_s, float (&cellMass)[CPT], float (&intervalMass)[CPT]) {
    const int na = c.inputCells;
    const int n = c.positionCells * c.speedCells * na;
    const int cell = is * c.speedCells + iv;
    float q[CPT][MAX_INPUT_CELLS];
#pragma unroll
    for (int k = 0; k < CPT; ++k) {
        cellMass[k] = 0.0F;
        intervalMass[k] = 0.0F;
#pragma unroll
        for (int u = 0; u < MAX_INPUT_CELLS; ++u) {
            q[k][u] = 0.0F;
        }
    }
    // Υ(τ)·p and Υ([0, τ])·p for the cell's n_a rows; each Υ entry is loaded once for all CPT corridors.
#pragma unroll
    for (int up = 0; up < MAX_INPUT_CELLS; ++up) {
        if (up < na) {
            const int row = cell * na + up;
            for (int e = 0; e < step.entries; ++e) {
                const int slot = e * n + row;
                const int col = __ldg(step.column + slot);
                const float val = __ldg(step.value + slot);
#pragma unroll
                for (int k = 0; k < CPT; ++k) {
                    if (k < corridorCount) {
                        q[k][up] += val * __ldg(p + static_cast<std::size_t>(corridorBegin + k) * n + col);
                    }
                }
            }
            for (int e = 0; e < interval.entries; ++e) {
                const int slot = e * n + row;
                const int col = __ldg(interval.column + slot);
                const float val = __ldg(interval.value + slot);
#pragma unroll
                for (int k = 0; k < CPT; ++k) {
                    if (k < corridorCount) {
                        intervalMass[k] += val * __ldg(p + static_cast<std::size_t>(corridorBegin + k) * n + col);
                    }
                }
            }
        }
    }
    // Γ(t_k) = diag(λ)·ψ with renormalised columns (priority.hpp), fused: Γ[u,u']·q[u'] =
    // λ_u·ψ[u,u']·(q[u'] / Σ_w λ_w ψ[w,u']); an empty column sends q[u'] to the braking input.
    const float sFar = positionCellUpper_m(is, c);
    const float vFar = speedCellUpper_mps(iv, c);
#pragma unroll
    for (int k = 0; k < CPT; ++k) {
        if (k < corridorCount) {
            const CorridorConstraints constraints = corridors[corridorBegin + k].constraints;
            float lambda[MAX_INPUT_CELLS];
#pragma unroll
            for (int u = 0; u < MAX_INPUT_CELLS; ++u) {
                lambda[u] = u < na ? priority(sFar, vFar, u, time_s, constraints, rules, c) : 0.0F;
            }
            float scaled[MAX_INPUT_CELLS];
            float brake = 0.0F;
#pragma unroll
            for (int up = 0; up < MAX_INPUT_CELLS; ++up) {
                scaled[up] = 0.0F;
                if (up < na) {
                    float sum = 0.0F;
#pragma unroll
                    for (int u = 0; u < MAX_INPUT_CELLS; ++u) {
                        if (u < na) {
                            sum += lambda[u] * psi.psi[u * na + up];
                        }
                    }
                    if (sum > 0.0F) {
                        scaled[up] = q[k][up] * (1.0F / sum);
                    } else {
                        brake += q[k][up];
                    }
                }
            }
            float* out = next + static_cast<std::size_t>(corridorBegin + k) * n + static_cast<std::size_t>(cell) * na;
#pragma unroll
            for (int u = 0; u < MAX_INPUT_CELLS; ++u) {
                if (u < na) {
                    float value = 0.0F;
#pragma unroll
                    for (int up = 0; up < MAX_INPUT_CELLS; ++up) {
                        if (up < na) {
                            value += lambda[u] * psi.psi[u * na + up] * scaled[up];
                        }
                    }
                    if (u == 0) {
                        value += brake;
                    }
                    out[u] = value;
                    cellMass[k] += value;
                }
            }
        }
    }
}

__device__ __forceinline__ float warpSum(float value) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) {
        value += __shfl_down_sync(0xFFFFFFFFU, value, offset);
    }
    return value;
}

// --- __global__ entries ----------------------------------------------------------------------------

__global__ void initialKernel(ChainConfig c, const CorridorInput* corridors, float* p, int n) {
    const int r = static_cast<int>(blockIdx.x) * blockDim.x + static_cast<int>(threadIdx.x);
    const int k = static_cast<int>(blockIdx.y);
    if (r < n) {
        p[static_cast<std::size_t>(k) * n + r] = initialStateProbability(c, corridors[k], r);
    }
}

struct StepArgs {
    ChainConfig chain;
    EllView step;
    EllView interval;
    InputDynamics psi;
    PriorityRules rules;
    const CorridorInput* corridors;
    int corridorCount;
    int horizonSteps;
    int t;
    const float* p;
    float* next;
    float* positionMarginal;  // [corridor][step][n_s]
    float* intervalMarginal;  // [corridor][step][n_s]
    float* speedPartial;      // [corridor][step][blockX][n_v]
};

__global__ void __launch_bounds__(32 * WARPS) stepKernel(const StepArgs a) {
    extern __shared__ float speedShared[];  // [WARPS][CPT][n_v]
    const ChainConfig& c = a.chain;
    const int lane = static_cast<int>(threadIdx.x);
    const int warp = static_cast<int>(threadIdx.y);
    const int is = static_cast<int>(blockIdx.x) * WARPS + warp;
    const int corridorBegin = static_cast<int>(blockIdx.y) * CPT;
    const int count = min(CPT, a.corridorCount - corridorBegin);
    const int nv = c.speedCells;
    const float time_s = static_cast<float>(a.t + 1) * c.step_s;

    float rowMass[CPT];
    float rowInterval[CPT];
#pragma unroll
    for (int k = 0; k < CPT; ++k) {
        rowMass[k] = 0.0F;
        rowInterval[k] = 0.0F;
    }
    for (int iv = lane; iv < nv; iv += 32) {
        float cellMass[CPT];
        float intervalMass[CPT];
        if (is < c.positionCells) {
            propagateCell(c, a.step, a.interval, a.psi, a.rules, a.corridors, corridorBegin, count, a.p, a.next, is, iv,
                          time_s, cellMass, intervalMass);
        } else {
#pragma unroll
            for (int k = 0; k < CPT; ++k) {
                cellMass[k] = 0.0F;
                intervalMass[k] = 0.0F;
            }
        }
#pragma unroll
        for (int k = 0; k < CPT; ++k) {
            rowMass[k] += cellMass[k];
            rowInterval[k] += intervalMass[k];
            speedShared[(warp * CPT + k) * nv + iv] = cellMass[k];
        }
    }
#pragma unroll
    for (int k = 0; k < CPT; ++k) {
        const float mass = warpSum(rowMass[k]);
        const float interval = warpSum(rowInterval[k]);
        if (lane == 0 && is < c.positionCells && k < count) {
            const std::size_t at =
                (static_cast<std::size_t>(corridorBegin + k) * a.horizonSteps + a.t) * c.positionCells + is;
            a.positionMarginal[at] = mass;
            a.intervalMarginal[at] = interval;
        }
    }
    __syncthreads();
    // Per-block speed partials, summed over the block's rows in a fixed order.
    const int blocksX = static_cast<int>(gridDim.x);
    for (int i = warp * 32 + lane; i < CPT * nv; i += 32 * WARPS) {
        const int k = i / nv;
        const int iv = i % nv;
        if (k < count) {
            float sum = 0.0F;
            for (int w = 0; w < WARPS; ++w) {
                sum += speedShared[(w * CPT + k) * nv + iv];
            }
            a.speedPartial[((static_cast<std::size_t>(corridorBegin + k) * a.horizonSteps + a.t) * blocksX + blockIdx.x) * nv +
                           iv] = sum;
        }
    }
}

struct SummaryArgs {
    ChainConfig chain;
    int maxPolylinePoints;
    int horizonSteps;
    int corridorCount;
    int blocksX;
    const CorridorInput* corridors;
    Polylines polylines;
    const float* positionMarginal;
    const float* speedPartial;
    float* speedMarginal;
    CorridorPoint* points;
};

__global__ void summaryKernel(const SummaryArgs a) {
    const int i = static_cast<int>(blockIdx.x) * blockDim.x + static_cast<int>(threadIdx.x);
    if (i >= a.corridorCount * a.horizonSteps) {
        return;
    }
    const ChainConfig& c = a.chain;
    const int k = i / a.horizonSteps;
    const float* pos = a.positionMarginal + static_cast<std::size_t>(i) * c.positionCells;
    double mean = 0.0;
    double second = 0.0;
    for (int is = 0; is < c.positionCells; ++is) {
        const double centre = positionCellCentre_m(is, c);
        mean += pos[is] * centre;
        second += pos[is] * centre * centre;
    }
    for (int iv = 0; iv < c.speedCells; ++iv) {
        float sum = 0.0F;
        for (int b = 0; b < a.blocksX; ++b) {
            sum += a.speedPartial[(static_cast<std::size_t>(i) * a.blocksX + b) * c.speedCells + iv];
        }
        a.speedMarginal[static_cast<std::size_t>(i) * c.speedCells + iv] = sum;
    }
    CorridorPoint point;
    point.sMean_m = static_cast<float>(mean);
    const double variance = second - mean * mean;
    point.sStd_m = static_cast<float>(sqrt(variance > 0.0 ? variance : 0.0));
    const std::size_t line = static_cast<std::size_t>(k) * a.maxPolylinePoints;
    projectOnCentreline(a.polylines.x_m + line, a.polylines.y_m + line, a.polylines.s_m + line,
                        a.corridors[k].polylinePoints, point.sMean_m, point.x_m, point.y_m);
    a.points[i] = point;
}

struct SplatArgs {
    ChainConfig chain;
    int maxPolylinePoints;
    int horizonSteps;
    int corridorCount;
    int stepsPerFrame;
    int samplesPerCell;
    int width;
    int height;
    float resolution_m;
    GridPlacement placement;
    const CorridorInput* corridors;
    Polylines polylines;
    const float* intervalMarginal;
    std::uint32_t* accumulator;
};

__global__ void splatKernel(const SplatArgs a) {
    const ChainConfig& c = a.chain;
    const long long total = static_cast<long long>(a.corridorCount) * a.horizonSteps * c.positionCells * a.samplesPerCell;
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= total) {
        return;
    }
    const int m = static_cast<int>(i % a.samplesPerCell);
    const long long cellIndex = i / a.samplesPerCell;  // (corridor·H + step)·n_s + is
    const int is = static_cast<int>(cellIndex % c.positionCells);
    const int t = static_cast<int>((cellIndex / c.positionCells) % a.horizonSteps);
    const int k = static_cast<int>(cellIndex / (static_cast<long long>(c.positionCells) * a.horizonSteps));
    const float weight = a.corridors[k].probability / static_cast<float>(a.samplesPerCell * a.stepsPerFrame);
    const std::uint32_t add = toGridFixed(a.intervalMarginal[cellIndex] * weight);
    if (add == 0U) {
        return;
    }
    const float sq = (static_cast<float>(is) + (static_cast<float>(m) + 0.5F) / static_cast<float>(a.samplesPerCell)) *
                     positionCellSize_m(c);
    const std::size_t line = static_cast<std::size_t>(k) * a.maxPolylinePoints;
    float x = 0.0F;
    float y = 0.0F;
    projectOnCentreline(a.polylines.x_m + line, a.polylines.y_m + line, a.polylines.s_m + line,
                        a.corridors[k].polylinePoints, sq, x, y);
    const float colF = floorf((x - a.placement.originX_m) / a.resolution_m);
    const float rowF = floorf((y - a.placement.originY_m) / a.resolution_m);
    if (colF >= 0.0F && colF < static_cast<float>(a.width) && rowF >= 0.0F && rowF < static_cast<float>(a.height)) {
        const std::size_t frame = static_cast<std::size_t>(t / a.stepsPerFrame) * a.width * a.height;
        // Integer addition is associative: the sum does not depend on the order of arrival.
        atomicAdd(a.accumulator + frame + static_cast<std::size_t>(rowF) * a.width + static_cast<std::size_t>(colF), add);
    }
}

__global__ void gridKernel(const std::uint32_t* accumulator, std::uint16_t* grid, int cellsPerFrame, int frames,
                           std::size_t frameStride) {
    const int i = static_cast<int>(blockIdx.x) * blockDim.x + static_cast<int>(threadIdx.x);
    if (i >= cellsPerFrame * frames) {
        return;
    }
    const int f = i / cellsPerFrame;
    const int cell = i % cellsPerFrame;
    grid[static_cast<std::size_t>(f) * frameStride + cell] = gridCellValue(accumulator[i]);
}

__global__ void combineKernel(const float* __restrict__ lambda, const InputDynamics psi, int na, long long count,
                              float* __restrict__ gamma, bool renormalise) {
    const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
    if (i >= count) {
        return;
    }
    // Eq. (4): Γ_i = λ_⌊i/n_a⌋ · ψ_sub[i mod n_a²]; consecutive threads write consecutive Γ_i.
    const int blockSize = na * na;
    const int within = static_cast<int>(i % blockSize);
    float value = __ldg(lambda + i / na) * psi.psi[within];
    if (renormalise) {
        const long long cellBase = (i / blockSize) * na;
        const int up = within % na;
        float sum = 0.0F;
        for (int w = 0; w < na; ++w) {
            sum += __ldg(lambda + cellBase + w) * psi.psi[w * na + up];
        }
        value = sum > 0.0F ? value / sum : (within / na == 0 ? 1.0F : 0.0F);
    }
    gamma[i] = value;
}

__global__ void priorityKernel(ChainConfig c, CorridorConstraints constraints, PriorityRules rules, float time_s,
                               float* lambda, int n) {
    const int r = static_cast<int>(blockIdx.x) * blockDim.x + static_cast<int>(threadIdx.x);
    if (r < n) {
        const int na = c.inputCells;
        const int iv = (r / na) % c.speedCells;
        const int is = r / (na * c.speedCells);
        lambda[r] = priority(positionCellUpper_m(is, c), speedCellUpper_mps(iv, c), r % na, time_s, constraints, rules, c);
    }
}

}  // namespace

// --- host API --------------------------------------------------------------------------------------

namespace cuda {

Result<DeviceChain, MarkovError> DeviceChain::create(const MarkovChain& chain) noexcept {
    DeviceChain d;
    d.m_config = chain.config();
    d.m_stepEntries = chain.stepTransition().entriesPerRow;
    d.m_intervalEntries = chain.intervalTransition().entriesPerRow;
    auto stepColumn = platform::DeviceBuffer<std::int32_t>::create(chain.stepTransition().column.size());
    auto stepValue = platform::DeviceBuffer<float>::create(chain.stepTransition().value.size());
    auto intervalColumn = platform::DeviceBuffer<std::int32_t>::create(chain.intervalTransition().column.size());
    auto intervalValue = platform::DeviceBuffer<float>::create(chain.intervalTransition().value.size());
    if (!stepColumn || !stepValue || !intervalColumn || !intervalValue) {
        return fail(MarkovError::DeviceFailure);
    }
    d.m_stepColumn = std::move(stepColumn).value();
    d.m_stepValue = std::move(stepValue).value();
    d.m_intervalColumn = std::move(intervalColumn).value();
    d.m_intervalValue = std::move(intervalValue).value();
    const bool uploaded = d.m_stepColumn.upload(chain.stepTransition().column).hasValue() &&
                          d.m_stepValue.upload(chain.stepTransition().value).hasValue() &&
                          d.m_intervalColumn.upload(chain.intervalTransition().column).hasValue() &&
                          d.m_intervalValue.upload(chain.intervalTransition().value).hasValue() &&
                          AUGUR_CUDA_CHECK(cudaStreamSynchronize(nullptr)).hasValue();
    if (!uploaded) {
        return fail(MarkovError::DeviceFailure);
    }
    return Result<DeviceChain, MarkovError>(std::move(d));
}

std::size_t predictScratchBytes(const ChainConfig& chain, const PredictionConfig& prediction) noexcept {
    return layout(chain, prediction, nullptr, nullptr);
}

platform::GpuStatus predict(const DeviceChain& chain, const PredictionConfig& pc, const InputDynamics& psi,
                            const CorridorInput* corridors, int corridorCount, const Polylines& polylines,
                            const GridPlacement& placement, const PredictionOutputs& out, void* scratch,
                            std::size_t scratchBytes, platform::StreamHandle stream) noexcept {
    const ChainConfig& c = chain.config();
    AUGUR_ASSERT(corridorCount >= 0 && corridorCount <= pc.maxCorridors, "markov::cuda::predict: too many corridors");
    AUGUR_ASSERT(scratch != nullptr && scratchBytes >= predictScratchBytes(c, pc), "markov::cuda::predict: scratch too small");
    DeviceScratch s{};
    layout(c, pc, static_cast<std::byte*>(scratch), &s);
    const int n = c.positionCells * c.speedCells * c.inputCells;
    const int H = pc.horizonSteps;
    const int blocksX = stepBlocksX(c);

    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cudaMemsetAsync(s.accumulator, 0, s.accumulatorBytes, stream)));
    if (corridorCount > 0) {
        initialKernel<<<dim3(static_cast<unsigned>((n + BLOCK - 1) / BLOCK), static_cast<unsigned>(corridorCount)), BLOCK, 0,
                        stream>>>(c, corridors, s.p, n);
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());

        StepArgs args{};
        args.chain = c;
        args.step = EllView{chain.stepColumn(), chain.stepValue(), chain.stepEntriesPerRow()};
        args.interval = EllView{chain.intervalColumn(), chain.intervalValue(), chain.intervalEntriesPerRow()};
        args.psi = psi;
        args.rules = pc.rules;
        args.corridors = corridors;
        args.corridorCount = corridorCount;
        args.horizonSteps = H;
        args.positionMarginal = out.positionMarginal;
        args.intervalMarginal = s.interval;
        args.speedPartial = s.speedPartial;
        const dim3 grid(static_cast<unsigned>(blocksX), static_cast<unsigned>((corridorCount + CPT - 1) / CPT));
        const dim3 block(32, WARPS);
        const std::size_t shared = static_cast<std::size_t>(WARPS) * CPT * static_cast<std::size_t>(c.speedCells) * sizeof(float);
        float* p = s.p;
        float* next = s.next;
        for (int t = 0; t < H; ++t) {
            args.t = t;
            args.p = p;
            args.next = next;
            stepKernel<<<grid, block, shared, stream>>>(args);
            AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
            float* swap = p;
            p = next;
            next = swap;
        }

        SummaryArgs summary{c,      pc.maxPolylinePoints, H, corridorCount, blocksX, corridors, polylines, out.positionMarginal,
                            s.speedPartial, out.speedMarginal, out.points};
        const int summaries = corridorCount * H;
        summaryKernel<<<static_cast<unsigned>((summaries + BLOCK - 1) / BLOCK), BLOCK, 0, stream>>>(summary);
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());

        SplatArgs splat{c,
                        pc.maxPolylinePoints,
                        H,
                        corridorCount,
                        H / pc.gridFrames,
                        pc.splatSamplesPerCell,
                        pc.gridWidthCells,
                        pc.gridHeightCells,
                        pc.gridResolution_m,
                        placement,
                        corridors,
                        polylines,
                        s.interval,
                        s.accumulator};
        const long long splats = static_cast<long long>(corridorCount) * H * c.positionCells * pc.splatSamplesPerCell;
        splatKernel<<<static_cast<unsigned>((splats + BLOCK - 1) / BLOCK), BLOCK, 0, stream>>>(splat);
        AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
    }
    const int cellsPerFrame = pc.gridWidthCells * pc.gridHeightCells;
    gridKernel<<<static_cast<unsigned>((cellsPerFrame * pc.gridFrames + BLOCK - 1) / BLOCK), BLOCK, 0, stream>>>(
        s.accumulator, out.grid, cellsPerFrame, pc.gridFrames, out.gridFrameStride_cells);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

platform::GpuStatus priorityVector(const ChainConfig& chain, const CorridorConstraints& constraints,
                                   const PriorityRules& rules, float time_s, float* lambda,
                                   platform::StreamHandle stream) noexcept {
    const int n = chain.positionCells * chain.speedCells * chain.inputCells;
    priorityKernel<<<static_cast<unsigned>((n + BLOCK - 1) / BLOCK), BLOCK, 0, stream>>>(chain, constraints, rules, time_s,
                                                                                        lambda, n);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

platform::GpuStatus combineInputTransition(const float* lambda, const InputDynamics& psi, int inputCells, int cells,
                                           float* gamma, bool renormalise, platform::StreamHandle stream) noexcept {
    const long long count = static_cast<long long>(cells) * inputCells * inputCells;
    if (count == 0) {
        return {};
    }
    combineKernel<<<static_cast<unsigned>((count + BLOCK - 1) / BLOCK), BLOCK, 0, stream>>>(lambda, psi, inputCells, count,
                                                                                          gamma, renormalise);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace augur::kernels::markov
