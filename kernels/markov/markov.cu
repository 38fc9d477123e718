// CUDA path of the Markov-chain prediction and of the seed's combination (Sec. 4.3.1).
//
// Layers: host API (cuda::predict, cuda::combineInputTransition) → dispatch (launch shapes from
// tuning.hpp) → thin __global__ entries → the shared __host__ __device__ maths in chain.hpp,
// priority.hpp and prediction.hpp.
//
// Resident path (the chain fits one block's shared memory; the seed's size does on sm_90):
// resident_cuda.cu, one launch for the whole horizon of all corridors, p(t) in shared memory, one block
// or one thread-block cluster per corridor; Γ is never written to memory, p never leaves the chip.
//
// Tiled path (larger chains): one launch per horizon step for all corridors: a block owns whole
// position rows of CORRIDORS_PER_THREAD corridors, a thread one state row (coalesced ELL loads and
// stores), Γ applied from shared memory.
//
// Both end with the summary (moments, centreline points, speed marginals from partial sums), the splat
// into fixed-point grid accumulators, and their conversion into the grid.
#include <cuda_runtime.h>

#include <cstdint>
#include <vector>

#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/prediction.hpp"
#include "augur/kernels/markov/priority.hpp"
#include "augur/platform/cuda_check.hpp"
#include "../primitives/warp_scan.cuh"
#include "resident.hpp"
#include "tuning.hpp"

namespace augur::kernels::markov {
namespace {
using primitives::detail::warpAllSum;

constexpr int CPT = tuning::CORRIDORS_PER_THREAD;
constexpr int COMBINE_THREADS = tuning::COMBINE_THREADS;
constexpr int STEP_SHARED_ARRAYS_BYTES_PER_STATE = 6 * sizeof(float);  // λ, q, brake, press, interval, mass
constexpr int BLOCK = tuning::BLOCK_THREADS;
constexpr std::size_t SCRATCH_ALIGN = 256;
constexpr std::size_t MAX_STEP_SHARED_BYTES = 48 * 1024;  // without opting in to more

std::size_t alignUp(std::size_t bytes) { return (bytes + SCRATCH_ALIGN - 1) / SCRATCH_ALIGN * SCRATCH_ALIGN; }

/// Whole position rows per step block: as many as fit BLOCK threads (at least one).
int positionRowsPerBlock(const ChainConfig& c) {
    const int rowStates = c.speedCells * c.inputCells;
    return rowStates >= BLOCK ? 1 : BLOCK / rowStates;
}
int stepBlocksX(const ChainConfig& c) { return (c.positionCells + positionRowsPerBlock(c) - 1) / positionRowsPerBlock(c); }
std::size_t stepSharedBytes(const ChainConfig& c) {
    return static_cast<std::size_t>(STEP_SHARED_ARRAYS_BYTES_PER_STATE) * CPT *
           static_cast<std::size_t>(positionRowsPerBlock(c) * c.speedCells * c.inputCells);
}

/// Speed-marginal partial sums per (corridor, step): one per tiled step block or per block of a
/// resident cluster.
int speedPartialBlocks(const ChainConfig& c) {
    return stepBlocksX(c) > tuning::MAX_CLUSTER_BLOCKS ? stepBlocksX(c) : tuning::MAX_CLUSTER_BLOCKS;
}

struct DeviceScratch {
    float* p;                   // [corridor][n]
    float* next;                // [corridor][n]
    float* interval;            // [corridor][step][n_s]
    float* speedPartial;        // [corridor][step][block][n_v]
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
        alignUp(corridors * H * static_cast<std::size_t>(speedPartialBlocks(c)) * static_cast<std::size_t>(c.speedCells) *
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
    int positionRowsPerBlock;  // position rows (n_v·n_a states each) per block
    const float* p;
    float* next;
    float* positionMarginal;  // [corridor][step][n_s]
    float* intervalMarginal;  // [corridor][step][n_s]
    float* speedPartial;      // [corridor][step][blockX][n_v]
};

/// One step of Eq. (2) for a tile of whole position rows of CPT corridors. Thread ↔ state row, so the
/// slot-major ELL loads and the writes of p(t_{k+1}) are coalesced.
///   phase 1: q = Υ(τ)·p and Υ([0,τ])·p for the row, λ for the row;
///   phase 2: per column u' of the cell's Γ block, the renormaliser Σ_w λ_w ψ[w,u'] and the press π·q_u';
///   phase 3: p'_(c,u) = λ_u Σ_u' ψ[u,u'] (q_u' − π·q_u')/Σ_u' (+ the empty columns' mass at u = 0, the
///            pressed mass at the gentlest accelerating input);
///   phase 4: position marginals (one warp per (corridor, row)) and speed partial sums, fixed order.
__global__ void __launch_bounds__(BLOCK) stepKernel(const StepArgs a) {
    extern __shared__ float shared[];
    const ChainConfig& c = a.chain;
    const int na = c.inputCells;
    const int nv = c.speedCells;
    const int n = c.positionCells * nv * na;
    const int rowStates = nv * na;
    const int tileRows = a.positionRowsPerBlock * rowStates;
    const int firstRow = static_cast<int>(blockIdx.x) * a.positionRowsPerBlock;
    const int rowsHere = min(a.positionRowsPerBlock, c.positionCells - firstRow);
    const int tileStates = rowsHere * rowStates;
    const int stateBase = firstRow * rowStates;
    const int corridorBegin = static_cast<int>(blockIdx.y) * CPT;
    const int count = min(CPT, a.corridorCount - corridorBegin);
    const float time_s = static_cast<float>(a.t + 1) * c.step_s;
    // What the rules need of this step per corridor (stepBounds), once per block rather than per cell; as
    // plain floats, since a __shared__ variable cannot have a constructor.
    constexpr int BOUND_FLOATS = 4;
    __shared__ float boundsS[CPT][BOUND_FLOATS];
    if (threadIdx.x < static_cast<unsigned>(count)) {
        const int k = static_cast<int>(threadIdx.x);
        const StepBounds b = stepBounds(time_s, a.corridors[corridorBegin + k].constraints, c);
        boundsS[k][0] = b.leadReach_m;
        boundsS[k][1] = b.reachableSpeed_mps;
        boundsS[k][2] = b.lead.rear_m;
        boundsS[k][3] = b.lead.speed_mps;
    }
    __syncthreads();
    const auto boundsOf = [&](int k) {
        StepBounds b;
        b.leadReach_m = boundsS[k][0];
        b.reachableSpeed_mps = boundsS[k][1];
        b.lead = LeadState{boundsS[k][2], boundsS[k][3]};
        return b;
    };
    float* lambdaS = shared;                       // [CPT][tileRows]
    float* qS = lambdaS + CPT * tileRows;          // q, then q / Σ
    float* brakeS = qS + CPT * tileRows;           // q of empty columns
    float* pressS = brakeS + CPT * tileRows;       // π·q pressed off the inputs that do not accelerate
    float* intervalS = pressS + CPT * tileRows;    // (Υ([0,τ])·p) per row
    float* massS = intervalS + CPT * tileRows;     // p(t_{k+1}) per row
    const int tid = static_cast<int>(threadIdx.x);

    for (int local = tid; local < tileStates; local += BLOCK) {
        const int row = stateBase + local;
        float q[CPT];
        float qi[CPT];
#pragma unroll
        for (int k = 0; k < CPT; ++k) {
            q[k] = 0.0F;
            qi[k] = 0.0F;
        }
#pragma unroll 2
        for (int e = 0; e < a.step.entries; ++e) {
            const int slot = e * n + row;
            const int col = __ldg(a.step.column + slot);
            const float val = __ldg(a.step.value + slot);
#pragma unroll
            for (int k = 0; k < CPT; ++k) {
                if (k < count) {
                    q[k] += val * __ldg(a.p + static_cast<std::size_t>(corridorBegin + k) * n + col);
                }
            }
        }
#pragma unroll 2
        for (int e = 0; e < a.interval.entries; ++e) {
            const int slot = e * n + row;
            const int col = __ldg(a.interval.column + slot);
            const float val = __ldg(a.interval.value + slot);
#pragma unroll
            for (int k = 0; k < CPT; ++k) {
                if (k < count) {
                    qi[k] += val * __ldg(a.p + static_cast<std::size_t>(corridorBegin + k) * n + col);
                }
            }
        }
        const int j = row % na;
        const int iv = (row / na) % nv;
        const int is = row / rowStates;
        const float sFar = positionCellUpper_m(is, c);
        const float vFar = speedCellUpper_mps(iv, c);
#pragma unroll
        for (int k = 0; k < CPT; ++k) {
            const float lambda =
                k < count ? priority(sFar, vFar, j, boundsOf(k), a.corridors[corridorBegin + k].constraints, a.rules, c) : 0.0F;
            lambdaS[k * tileRows + local] = lambda;
            qS[k * tileRows + local] = q[k];
            intervalS[k * tileRows + local] = qi[k];
        }
    }
    __syncthreads();
    const int probe = gentlestAcceleration(na);
    for (int local = tid; local < tileStates; local += BLOCK) {
        const int up = local % na;
        const int cellBase = local - up;
        const int cell = (stateBase + local) / na;
        const float sFar = positionCellUpper_m(cell / c.speedCells, c);
        const float vFar = speedCellUpper_mps(cell % c.speedCells, c);
#pragma unroll
        for (int k = 0; k < CPT; ++k) {
            float sum = 0.0F;
            for (int w = 0; w < na; ++w) {
                sum += lambdaS[k * tileRows + cellBase + w] * a.psi.psi[w * na + up];
            }
            float press = 0.0F;
            if (k < count && up < probe && probe < na && sum > 0.0F) {
                const float probeLambda = lambdaS[k * tileRows + cellBase + probe];
                const float urge = freeRoadUrge(vFar, probeLambda, sFar, boundsOf(k),
                                                a.corridors[corridorBegin + k].constraints, a.rules, c);
                press = pressProbability(urge, probeLambda, a.rules, c);
            }
            const float q = qS[k * tileRows + local];
            brakeS[k * tileRows + local] = sum > 0.0F ? 0.0F : q;
            pressS[k * tileRows + local] = press * q;
            qS[k * tileRows + local] = sum > 0.0F ? (q - press * q) * (1.0F / sum) : 0.0F;
        }
    }
    __syncthreads();
    for (int local = tid; local < tileStates; local += BLOCK) {
        const int u = local % na;
        const int cellBase = local - u;
#pragma unroll
        for (int k = 0; k < CPT; ++k) {
            float value = 0.0F;
            for (int up = 0; up < na; ++up) {
                value += a.psi.psi[u * na + up] * qS[k * tileRows + cellBase + up];
            }
            value *= lambdaS[k * tileRows + local];
            if (u == 0) {
                for (int up = 0; up < na; ++up) {
                    value += brakeS[k * tileRows + cellBase + up];
                }
            }
            if (u == probe) {
                for (int up = 0; up < probe; ++up) {
                    value += pressS[k * tileRows + cellBase + up];
                }
            }
            massS[k * tileRows + local] = value;
            if (k < count) {
                a.next[static_cast<std::size_t>(corridorBegin + k) * n + stateBase + local] = value;
            }
        }
    }
    __syncthreads();
    // Position marginals: warp w reduces (corridor, row) pairs w, w + WARPS, … over the row's n_v·n_a states.
    const int lane = tid % 32;
    const int warp = tid / 32;
    constexpr int WARPS_PER_BLOCK = BLOCK / 32;
    for (int pair = warp; pair < count * rowsHere; pair += WARPS_PER_BLOCK) {
        const int k = pair / rowsHere;
        const int r = pair % rowsHere;
        float mass = 0.0F;
        float interval = 0.0F;
        for (int i = lane; i < rowStates; i += 32) {
            mass += massS[k * tileRows + r * rowStates + i];
            interval += intervalS[k * tileRows + r * rowStates + i];
        }
        mass = warpAllSum(mass);
        interval = warpAllSum(interval);
        if (lane == 0) {
            const std::size_t at =
                (static_cast<std::size_t>(corridorBegin + k) * a.horizonSteps + a.t) * c.positionCells + firstRow + r;
            a.positionMarginal[at] = mass;
            a.intervalMarginal[at] = interval;
        }
    }
    // Speed partials of this block: per (corridor, speed cell), over its rows and inputs in a fixed order.
    for (int pair = tid; pair < count * nv; pair += BLOCK) {
        const int k = pair / nv;
        const int iv = pair % nv;
        float sum = 0.0F;
        for (int r = 0; r < rowsHere; ++r) {
            for (int u = 0; u < na; ++u) {
                sum += massS[k * tileRows + r * rowStates + iv * na + u];
            }
        }
        a.speedPartial[((static_cast<std::size_t>(corridorBegin + k) * a.horizonSteps + a.t) * gridDim.x + blockIdx.x) * nv +
                       iv] = sum;
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
    const float* speedPartial;  // tiled: per-block partials to add into speedMarginal; resident: nullptr
    float* speedMarginal;
    CorridorPoint* points;
};

/// One warp per (corridor, step): moments of the position marginal, the speed marginal from the
/// blocks' partials (lane ↔ speed cell, blocks added in order), and the centreline point. Lane-strided
/// sums and shuffles: a fixed order.
__global__ void summaryKernel(const SummaryArgs a) {
    const int i = (static_cast<int>(blockIdx.x) * blockDim.x + static_cast<int>(threadIdx.x)) / 32;
    const int lane = static_cast<int>(threadIdx.x) % 32;
    if (i >= a.corridorCount * a.horizonSteps) {
        return;
    }
    const ChainConfig& c = a.chain;
    const int k = i / a.horizonSteps;
    const float* pos = a.positionMarginal + static_cast<std::size_t>(i) * c.positionCells;
    double mean = 0.0;
    double second = 0.0;
    for (int is = lane; is < c.positionCells; is += 32) {
        const double centre = positionCellCentre_m(is, c);
        mean += pos[is] * centre;
        second += pos[is] * centre * centre;
    }
    mean = warpAllSum(mean);
    second = warpAllSum(second);
    if (a.speedPartial != nullptr) {
        const float* partial = a.speedPartial + static_cast<std::size_t>(i) * a.blocksX * c.speedCells;
        for (int iv = lane; iv < c.speedCells; iv += 32) {
            float sum = 0.0F;
            for (int b = 0; b < a.blocksX; ++b) {
                sum += partial[b * c.speedCells + iv];
            }
            a.speedMarginal[static_cast<std::size_t>(i) * c.speedCells + iv] = sum;
        }
    }
    if (lane == 0) {
        CorridorPoint point;
        point.sMean_m = static_cast<float>(mean);
        const double variance = second - mean * mean;
        point.sStd_m = static_cast<float>(sqrt(variance > 0.0 ? variance : 0.0));
        const std::size_t line = static_cast<std::size_t>(k) * a.maxPolylinePoints;
        projectOnCentreline(a.polylines.x_m + line, a.polylines.y_m + line, a.polylines.s_m + line,
                            a.corridors[k].polylinePoints, point.sMean_m, point.x_m, point.y_m);
        a.points[i] = point;
    }
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

/// One thread per (corridor, step, position cell, sample): the cell's interval occupancy times
/// P(corridor), split over samplesPerCell points along the cell, each projected onto the centreline and
/// added to the grid cell that holds it. (One thread per cell with the samples in a loop measured 23.0
/// against 20.7 µs for 64 corridors on an H100: the samples' projections then run one after another.)
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

/// The seed's combination (Eq. (4)): Γ_i = λ_⌊i/n_a⌋·ψ_sub[i mod n_a²] for i < cells·n_a², written
/// in order, one thread per V consecutive non-zeros: V = 4 (one 16-byte store; consecutive threads
/// store consecutive 16 bytes, so a warp writes 512 contiguous bytes) where n_a² is a multiple of 4,
/// else V = 1. The V entries of a thread lie in one cell (V divides n_a²). ψ_sub (the seed's fast
/// memory) is staged once per block in shared memory, where a thread reads it at the run-time offset
/// i mod n_a²; λ of the cell is read through the read-only cache (the cell's threads share the lines).
/// With RENORMALISE, each block column is divided by its sum as in inputTransitionBlock.
template <int NA, bool RENORMALISE>
__global__ void __launch_bounds__(COMBINE_THREADS) combineKernel(const float* __restrict__ lambda, const InputDynamics psi,
                                                                 int cells, float* __restrict__ gamma) {
    constexpr int NA2 = NA * NA;
    constexpr int V = NA2 % 4 == 0 ? 4 : 1;
    __shared__ float psiS[NA2];
    if (static_cast<int>(threadIdx.x) < NA2) {
        psiS[threadIdx.x] = psi.psi[threadIdx.x];
    }
    __syncthreads();
    const long long first = (static_cast<long long>(blockIdx.x) * COMBINE_THREADS + threadIdx.x) * V;
    if (first >= static_cast<long long>(cells) * NA2) {
        return;
    }
    const long long cell = first / NA2;
    const int offset = static_cast<int>(first - cell * NA2);
    const float* l = lambda + cell * NA;
    float out[V];
    if constexpr (!RENORMALISE) {
#pragma unroll
        for (int m = 0; m < V; ++m) {
            out[m] = __ldg(l + (offset + m) / NA) * psiS[offset + m];
        }
    } else {
        float all[NA];
#pragma unroll
        for (int w = 0; w < NA; ++w) {
            all[w] = __ldg(l + w);
        }
#pragma unroll
        for (int m = 0; m < V; ++m) {
            const int u = (offset + m) / NA;
            const int up = (offset + m) - u * NA;
            float sum = 0.0F;
            float own = 0.0F;
#pragma unroll
            for (int w = 0; w < NA; ++w) {
                sum += all[w] * psiS[w * NA + up];
                own = w == u ? all[w] : own;  // λ_u without a run-time index into registers
            }
            const float value = own * psiS[offset + m];
            // The correctly rounded reciprocal: the same value as 1.0F / sum.
            out[m] = sum > 0.0F ? value * __frcp_rn(sum) : (u == 0 ? 1.0F : 0.0F);
        }
    }
    if constexpr (V == 4) {
        *reinterpret_cast<float4*>(gamma + first) = make_float4(out[0], out[1], out[2], out[3]);
    } else {
        gamma[first] = out[0];
    }
}

using CombineKernel = void (*)(const float*, InputDynamics, int, float*);

template <bool RENORMALISE>
CombineKernel combineKernelFor(int na) {
    switch (na) {
        case 1: return combineKernel<1, RENORMALISE>;
        case 2: return combineKernel<2, RENORMALISE>;
        case 3: return combineKernel<3, RENORMALISE>;
        case 4: return combineKernel<4, RENORMALISE>;
        case 5: return combineKernel<5, RENORMALISE>;
        case 6: return combineKernel<6, RENORMALISE>;
        case 7: return combineKernel<7, RENORMALISE>;
        case 8: return combineKernel<8, RENORMALISE>;
        default: return nullptr;
    }
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

namespace {

/// log2 of a cluster size 1, 2, 4 or 8; -1 for any other value.
int clusterSizeIndex(int blocks) noexcept {
    for (int i = 0; i < resident::CLUSTER_SIZES; ++i) {
        if (blocks == 1 << i) {
            return i;
        }
    }
    return -1;
}

}  // namespace

Result<DeviceChain, MarkovError> DeviceChain::create(const MarkovChain& chain, Propagation propagation,
                                                     int clusterBlocks) noexcept {
    const ChainConfig& c = chain.config();
    const ShiftStencil& st = chain.stencil();
    const int forcedIndex = clusterSizeIndex(clusterBlocks);
    if (clusterBlocks != 0 && forcedIndex < 0) {
        return fail(MarkovError::InvalidGrid);  // not a cluster size the resident path takes
    }
    const auto arch = activeTuningArch();
    if (!arch) {
        return fail(MarkovError::DeviceFailure);
    }
    const tuning::LaunchPolicy policy = tuning::launchPolicy(arch.value());
    DeviceChain d;
    d.m_maxClusterBlocks = policy.residentMaxClusterBlocks;
    d.m_residentMinCorridors = policy.residentMinCorridors;
    bool resident = propagation != Propagation::Tiled && resident::shapeFits(c, st) &&
                    resident::prepare(c, policy, d.m_maxActiveClusters);
    if (resident && forcedIndex >= 0 && d.m_maxActiveClusters[forcedIndex] < 1) {
        resident = false;  // the requested cluster size cannot run on this device
    }
    const bool tiled = propagation != Propagation::Resident && stepSharedBytes(c) <= MAX_STEP_SHARED_BYTES;
    if (!resident && !tiled) {
        return fail(MarkovError::InvalidGrid);  // the requested path does not fit (see the contract)
    }
    d.m_config = c;
    d.m_propagation = resident && tiled ? Propagation::Auto : (resident ? Propagation::Resident : Propagation::Tiled);
    d.m_clusterBlocks = clusterBlocks;
    d.m_stepEntries = chain.stepTransition().entriesPerRow;
    d.m_intervalEntries = chain.intervalTransition().entriesPerRow;
    if (resident) {
        // The stencil in state offsets, read by the resident kernel.
        const int na = c.inputCells;
        const int rowStates = c.speedCells * na;
        std::vector<StencilSlot> slots(st.shift.size());
        for (std::size_t i = 0; i < slots.size(); ++i) {
            const int type = static_cast<int>(i) / st.entriesPerRow;
            const int iv = type / na;
            slots[i].stateOffset = -st.shift[i] * rowStates + (st.sourceSpeed[i] - iv) * na;
            slots[i].shift = st.shift[i];
            slots[i].stepWeight = st.stepWeight[i];
            slots[i].intervalWeight = st.intervalWeight[i];
        }
        auto stencil = platform::DeviceBuffer<StencilSlot>::create(slots.size());
        if (!stencil || !stencil->upload(slots).hasValue()) {
            return fail(MarkovError::DeviceFailure);
        }
        d.m_stencil = std::move(stencil).value();
        d.m_stencilEntries = st.entriesPerRow;
        d.m_stencilMaxShift = st.maxShift;
        d.m_chunkRows = policy.residentChunkRows;  // a power of two, raised to one ≥ the largest shift
        while (d.m_chunkRows < st.maxShift) {
            d.m_chunkRows *= 2;
        }
        d.m_residentSharedBytes = resident::sharedBytes(c);
    } else {
        for (int& active : d.m_maxActiveClusters) {
            active = 0;
        }
    }
    if (tiled) {
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
                              d.m_intervalValue.upload(chain.intervalTransition().value).hasValue();
        if (!uploaded) {
            return fail(MarkovError::DeviceFailure);
        }
    }
    if (!AUGUR_CUDA_CHECK(cudaStreamSynchronize(nullptr)).hasValue()) {
        return fail(MarkovError::DeviceFailure);
    }
    return Result<DeviceChain, MarkovError>(std::move(d));
}

bool DeviceChain::residentFor(int corridorCount) const noexcept {
    switch (m_propagation) {
        case Propagation::Resident: return true;
        case Propagation::Tiled: return false;
        case Propagation::Auto: return corridorCount >= m_residentMinCorridors;
    }
    return false;
}

int DeviceChain::residentClusterBlocks(int corridorCount) const noexcept {
    if (m_clusterBlocks > 0) {
        return m_clusterBlocks;
    }
    for (int i = clusterSizeIndex(m_maxClusterBlocks); i > 0; --i) {
        if (corridorCount <= m_maxActiveClusters[i]) {
            return 1 << i;
        }
    }
    return 1;
}

int DeviceChain::maxActiveResidentCorridors(int clusterBlocks) const noexcept {
    const int index = clusterSizeIndex(clusterBlocks);
    return index < 0 ? 0 : m_maxActiveClusters[index];
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
    const bool resident = chain.residentFor(corridorCount);
    const int clusterBlocks = resident ? chain.residentClusterBlocks(corridorCount) : 1;
    if (corridorCount > 0 && resident) {
        resident::Args args{};
        args.chain = c;
        args.psi = psi;
        args.rules = pc.rules;
        args.corridors = corridors;
        args.stencil = chain.stencil();
        args.entries = chain.stencilEntriesPerRow();
        args.maxShift = chain.stencilMaxShift();
        args.chunkRows = chain.residentChunkRows();
        args.horizonSteps = H;
        args.positionMarginal = out.positionMarginal;
        args.speedMarginal = out.speedMarginal;
        args.speedPartial = s.speedPartial;
        args.intervalMarginal = s.interval;
        AUGUR_CUDA_TRY(resident::launch(args, corridorCount, clusterBlocks, chain.residentSharedBytes(), stream));
    }
    if (corridorCount > 0 && !resident) {
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
        args.positionRowsPerBlock = positionRowsPerBlock(c);
        args.positionMarginal = out.positionMarginal;
        args.intervalMarginal = s.interval;
        args.speedPartial = s.speedPartial;
        const dim3 grid(static_cast<unsigned>(blocksX), static_cast<unsigned>((corridorCount + CPT - 1) / CPT));
        const std::size_t shared = stepSharedBytes(c);
        float* p = s.p;
        float* next = s.next;
        for (int t = 0; t < H; ++t) {
            args.t = t;
            args.p = p;
            args.next = next;
            stepKernel<<<grid, BLOCK, shared, stream>>>(args);
            AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK_LAUNCH());
            float* swap = p;
            p = next;
            next = swap;
        }
    }
    if (corridorCount > 0) {
        // Resident on one block per corridor: the speed marginals are final already (no partials to add).
        const bool partials = !resident || clusterBlocks > 1;
        SummaryArgs summary{c,
                            pc.maxPolylinePoints,
                            H,
                            corridorCount,
                            resident ? clusterBlocks : blocksX,
                            corridors,
                            polylines,
                            out.positionMarginal,
                            partials ? s.speedPartial : nullptr,
                            out.speedMarginal,
                            out.points};
        const int summaryThreads = corridorCount * H * 32;  // one warp each
        summaryKernel<<<static_cast<unsigned>((summaryThreads + BLOCK - 1) / BLOCK), BLOCK, 0, stream>>>(summary);
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
    AUGUR_ASSERT(inputCells >= 1 && inputCells <= MAX_INPUT_CELLS, "markov::cuda::combineInputTransition: n_a out of range");
    if (cells <= 0) {
        return {};
    }
    const CombineKernel kernel = renormalise ? combineKernelFor<true>(inputCells) : combineKernelFor<false>(inputCells);
    const long long entries = static_cast<long long>(cells) * inputCells * inputCells;
    const long long threads = (inputCells * inputCells) % 4 == 0 ? entries / 4 : entries;  // V entries each
    kernel<<<static_cast<unsigned>((threads + COMBINE_THREADS - 1) / COMBINE_THREADS), COMBINE_THREADS, 0, stream>>>(
        lambda, psi, cells, gamma);
    return AUGUR_CUDA_CHECK_LAUNCH();
}

}  // namespace cuda
}  // namespace augur::kernels::markov
