// Resident propagation of the Markov chain (Hortelano et al. 2023, Sec. 3.4 Eq. (2), Sec. 4.3.1): the
// whole horizon of every corridor in one launch, p(t) in shared memory for all H steps.
//
// Work per step. The mass of a corridor starts in one position cell and moves forward by at most
// maxShift cells a step, so p(t) is zero outside rows [s0, s0 + t·maxShift] and step t touches only rows
// [s0, s0 + (t+1)·maxShift]: the kernel walks that window (one bound, computed, no flags), and the
// marginals of the rows outside it are written as zeros once, up front.
//   phase A (thread ↔ row type (i_v, j), rows strided over the block's thread groups, two rows at a
//            time): q = Υ(τ)·p into shared memory from the row type's stencil slots kept in registers,
//            and the interval occupancy Υ([0, τ])·p reduced per warp;
//   phase B (warp ↔ position row, lane ↔ speed cell): λ from the per-(i_v, j) terms in registers
//            (priorityAt), Γ = diag(λ)·ψ column-renormalised applied to q with ψ_sub at compile-time
//            offsets of the kernel parameters: p(t_{k+1}) = Γ·q in place of p, never writing Γ; the
//            position and interval marginals per row, the speed marginal from per-warp partials.
// Two barriers a step; all reductions in a fixed order (deterministic, bit-identical under graph replay).
//
// Clusters (sm_90). With fewer corridors than SMs, one corridor is spread over a cluster of 2, 4 or 8
// blocks: position rows are dealt to the blocks in chunks of chunkRows rows, round-robin, so that the
// window holding mass stays spread over all of them. A row's sources lie at most maxShift ≤ chunkRows
// rows behind it, so a block reads only its own rows and the last maxShift rows of the chunk before
// each of its chunks (the halo), owned by the previous block of the cluster. After phase B, each block
// writes the halo rows of p(t_{k+1}) into the next block's shared memory (distributed shared memory),
// alternating between two places so that the writes of step t never meet the reads of step t − 1 there:
// at even steps into the receiver's p array, at odd steps into its q array (both at the rows' own
// offsets, which the receiver otherwise never uses: they are another block's rows). One cluster barrier
// a step orders the writes before the next phase A. The speed marginal is then a partial sum per block,
// added in a fixed order by the summary kernel.
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <algorithm>

#include "../primitives/warp_scan.cuh"
#include "augur/platform/sm_partition.hpp"
#include "resident.hpp"
#include "tuning.hpp"

namespace augur::kernels::markov::resident {
namespace {

namespace cg = cooperative_groups;
using primitives::detail::warpAllSum;

constexpr int THREADS = tuning::RESIDENT_THREADS;
constexpr int WARPS = THREADS / 32;
constexpr int MAX_ENTRIES = tuning::MAX_RESIDENT_ENTRIES;

/// Row types (n_v·n_a) rounded up to whole warps: phase A's threads per position row.
int rowThreadsOf(const ChainConfig& c) { return (c.speedCells * c.inputCells + 31) / 32 * 32; }

// --- device functions ------------------------------------------------------------------------------

/// This block's place in its cluster (1 block, rank 0 without clusters or before sm_90).
struct ClusterPlace {
    int blocks;
    int rank;
};

__device__ __forceinline__ ClusterPlace clusterPlace() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    const cg::cluster_group cluster = cg::this_cluster();
    return {static_cast<int>(cluster.num_blocks()), static_cast<int>(cluster.block_rank())};
#else
    return {1, 0};
#endif
}

/// Barrier over the cluster (over the block when the cluster is one block). Orders the distributed
/// shared-memory writes made before it with the reads after it (release / acquire).
__device__ __forceinline__ void clusterBarrier(int blocks) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if (blocks > 1) {
        cg::this_cluster().sync();
        return;
    }
#endif
    (void)blocks;
    __syncthreads();
}

/// `local` (this block's shared memory) as seen in block `rank` of the cluster.
__device__ __forceinline__ float* peerShared(float* local, int rank) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    return cg::this_cluster().map_shared_rank(local, static_cast<unsigned>(rank));
#else
    (void)rank;
    return local;
#endif
}

/// The position rows of one block: chunks of 2^chunkLog2 rows dealt round-robin to the cluster's
/// 2^blocksLog2 blocks (one block: a single chunk of at least n_s rows). Own row i (counted from 0) is
/// rowOf(i). Powers of two, so that the per-row index arithmetic is shifts and masks.
struct RowShare {
    int chunkLog2;
    int blocksLog2;
    int rank;

    [[nodiscard]] __device__ __forceinline__ int chunk() const { return 1 << chunkLog2; }
    /// Position of `row` inside its chunk.
    [[nodiscard]] __device__ __forceinline__ int inChunk(int row) const { return row & (chunk() - 1); }
    /// How many of this block's rows lie below `row`.
    [[nodiscard]] __device__ __forceinline__ int ownBelow(int row) const {
        const int periodLog2 = chunkLog2 + blocksLog2;
        const int inPeriod = (row & ((1 << periodLog2) - 1)) - (rank << chunkLog2);
        return ((row >> periodLog2) << chunkLog2) + min(max(inPeriod, 0), chunk());
    }
    [[nodiscard]] __device__ __forceinline__ int rowOf(int i) const {
        return ((((i >> chunkLog2) << blocksLog2) + rank) << chunkLog2) | inChunk(i);
    }
    [[nodiscard]] __device__ __forceinline__ bool owns(int row) const {
        return ((row >> chunkLog2) & ((1 << blocksLog2) - 1)) == rank;
    }
};

/// log2 of a power of two.
__device__ __forceinline__ int log2Of(int powerOfTwo) { return 31 - __clz(powerOfTwo); }

/// The stencil slots of one row type, in registers for the whole horizon.
struct RowStencil {
    int offset[MAX_ENTRIES];  // source − target state index
    int shift[MAX_ENTRIES];
    float stepW[MAX_ENTRIES];
    float intervalW[MAX_ENTRIES];
};

/// (Υ(τ)·p)[r] and (Υ([0, τ])·p)[r] for target state r = is·rowStates + type. Sources in the previous
/// chunk (lr = is mod chunk < shift) are read `haloOffset` floats further on (the halo copy's place);
/// sources below row 0 do not exist; the last row absorbs everything that reaches it or beyond.
__device__ __forceinline__ void gatherRow(const RowStencil& st, int entries, const float* pS, int r, int is, int lr,
                                          int ns, int rowStates, int haloOffset, float& q, float& qi) {
    q = 0.0F;
    qi = 0.0F;
    if (is + 1 < ns) {
#pragma unroll
        for (int e = 0; e < MAX_ENTRIES; ++e) {
            if (e < entries && is >= st.shift[e]) {
                const float v = pS[r + st.offset[e] + (lr < st.shift[e] ? haloOffset : 0)];
                q = fmaf(st.stepW[e], v, q);
                qi = fmaf(st.intervalW[e], v, qi);
            }
        }
    } else {
#pragma unroll
        for (int e = 0; e < MAX_ENTRIES; ++e) {
            if (e < entries) {
                const int lowest = is - st.shift[e];
                for (int src = lowest < 0 ? 0 : lowest; src <= is; ++src) {
                    const float v = pS[r + st.offset[e] + (src - lowest) * rowStates + (src < is - lr ? haloOffset : 0)];
                    q = fmaf(st.stepW[e], v, q);
                    qi = fmaf(st.intervalW[e], v, qi);
                }
            }
        }
    }
}

/// NA consecutive floats from shared memory (8-byte loads where NA is even; `from` is then 8-byte aligned).
template <int NA>
__device__ __forceinline__ void loadCell(const float* from, float (&to)[NA]) {
    if constexpr (NA % 2 == 0) {
#pragma unroll
        for (int j = 0; j < NA; j += 2) {
            const float2 pair = *reinterpret_cast<const float2*>(from + j);
            to[j] = pair.x;
            to[j + 1] = pair.y;
        }
    } else {
#pragma unroll
        for (int j = 0; j < NA; ++j) {
            to[j] = from[j];
        }
    }
}

template <int NA>
__device__ __forceinline__ void storeCell(float* to, const float (&from)[NA]) {
    if constexpr (NA % 2 == 0) {
#pragma unroll
        for (int j = 0; j < NA; j += 2) {
            *reinterpret_cast<float2*>(to + j) = make_float2(from[j], from[j + 1]);
        }
    } else {
#pragma unroll
        for (int j = 0; j < NA; ++j) {
            to[j] = from[j];
        }
    }
}

/// p(t_{k+1}) of one (s, v) cell from its q: Γ = diag(λ)·ψ with each column u' divided by
/// Σ_w λ_w ψ[w, u'], or "brake" (all of q_u' to u = 0) where that sum is 0, and the cell's press π taking
/// π·q_u' of every input that does not accelerate to the gentlest accelerating one (inputTransitionBlock).
template <int NA>
__device__ __forceinline__ void applyInputTransition(const float (&q)[NA], const float (&lambda)[NA], const InputDynamics& psi,
                                                     float press, float (&next)[NA]) {
    constexpr int PROBE = gentlestAcceleration(NA);
    float scaled[NA];
    float brake = 0.0F;
    float pressed = 0.0F;
#pragma unroll
    for (int up = 0; up < NA; ++up) {
        float sum = 0.0F;
#pragma unroll
        for (int w = 0; w < NA; ++w) {
            sum = fmaf(lambda[w], psi.psi[w * NA + up], sum);
        }
        const float kept = up < PROBE && sum > 0.0F ? press * q[up] : 0.0F;  // pressed off this input
        pressed += kept;
        // The correctly rounded reciprocal: the same value as 1.0F / sum.
        scaled[up] = sum > 0.0F ? (q[up] - kept) * __frcp_rn(sum) : 0.0F;
        brake += sum > 0.0F ? 0.0F : q[up];
    }
#pragma unroll
    for (int u = 0; u < NA; ++u) {
        float value = 0.0F;
#pragma unroll
        for (int up = 0; up < NA; ++up) {
            value = fmaf(psi.psi[u * NA + up], scaled[up], value);
        }
        next[u] = value * lambda[u] + (u == 0 ? brake : 0.0F) + (u == PROBE ? pressed : 0.0F);
    }
}

// --- __global__ entry ------------------------------------------------------------------------------

/// The whole horizon of corridor blockIdx.x / (cluster size), this block's share of its rows. NA = n_a.
/// Preconditions (shapeFits, prepare): n_v ≤ 32, n_v·NA ≤ THREADS, entries ≤ MAX_ENTRIES, chunkRows ≥
/// maxShift, shift ≥ 0.
template <int NA>
__global__ void __launch_bounds__(THREADS, 1) residentKernel(const Args a) {
    extern __shared__ float shared[];
    const ChainConfig& c = a.chain;
    const int nv = c.speedCells;
    const int ns = c.positionCells;
    const int rowStates = nv * NA;
    const int n = ns * rowStates;
    const int rowThreads = (rowStates + 31) / 32 * 32;
    const int warpsPerRow = rowThreads / 32;
    const int groups = THREADS / rowThreads;
    const int H = a.horizonSteps;
    float* pS = shared;                                        // p(t), then p(t_{k+1}) in place (own rows)
    float* qS = pS + n;                                        // Υ(τ)·p(t) (own rows)
    float* intervalPartial = qS + n;                           // [n_s][warpsPerRow]
    float* speedPartial = intervalPartial + ns * warpsPerRow;  // [WARPS][n_v]

    const ClusterPlace place = clusterPlace();
    const int k = static_cast<int>(blockIdx.x) / place.blocks;
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid % 32;
    const int warp = tid / 32;
    const CorridorInput& corridor = a.corridors[k];
    const CorridorConstraints constraints = corridor.constraints;
    // One block: one chunk of 2^⌈log2 n_s⌉ rows (a row's sources are then never in another chunk).
    const RowShare rows{place.blocks == 1 ? log2Of(ns) + ((ns & (ns - 1)) != 0 ? 1 : 0) : log2Of(a.chunkRows),
                        log2Of(place.blocks), place.rank};
    const int firstRow = positionCellOf(corridor.initialPosition_m, c);
    const int firstOwn = rows.ownBelow(firstRow);

    // p(t0): the start row (the only one with mass; in every block of a cluster, where it is the halo
    // of the even steps if not an own row); every other entry of p and of q zero.
    for (int r = tid; r < 2 * n; r += THREADS) {
        float value = 0.0F;
        if (r >= firstRow * rowStates && r < (firstRow + 1) * rowStates) {
            value = initialStateProbability(c, corridor, r);
        }
        pS[r] = value;
    }
    // The marginals of this block's rows outside each step's window: zero.
    for (int e = tid; e < H * ns; e += THREADS) {
        const int t = e / ns;
        const int is = e - t * ns;
        const int last = min(ns - 1, firstRow + (t + 1) * a.maxShift);
        if (rows.owns(is) && (is < firstRow || is > last)) {
            const std::size_t at = (static_cast<std::size_t>(k) * H + t) * ns + is;
            a.positionMarginal[at] = 0.0F;
            a.intervalMarginal[at] = 0.0F;
        }
    }

    // Phase A: this thread's row type and its stencil slots, for the whole horizon.
    const int type = tid % rowThreads;
    const int group = tid / rowThreads;
    const bool typeValid = type < rowStates && group < groups;
    RowStencil st;
#pragma unroll
    for (int e = 0; e < MAX_ENTRIES; ++e) {
        st.offset[e] = 0;
        st.shift[e] = 0;
        st.stepW[e] = 0.0F;
        st.intervalW[e] = 0.0F;
        if (typeValid && e < a.entries) {
            const cuda::StencilSlot slot = a.stencil[type * a.entries + e];
            st.offset[e] = slot.stateOffset;
            st.shift[e] = slot.shift;
            st.stepW[e] = slot.stepWeight;
            st.intervalW[e] = slot.intervalWeight;
        }
    }
    // Phase B: this lane's speed cell and its λ terms, for the whole horizon.
    const int iv = lane;
    PriorityTerms terms[NA];
#pragma unroll
    for (int j = 0; j < NA; ++j) {
        terms[j] = priorityTerms(speedCellUpper_mps(iv < nv ? iv : 0, c), j, a.rules, c);
    }
    const float vFar_mps = speedCellUpper_mps(iv < nv ? iv : 0, c);
    const int next = (place.rank + 1) % place.blocks;  // the block whose halo this block's chunk ends are
    // Every block of the cluster has started and zeroed its arrays before any block writes into them.
    clusterBarrier(place.blocks);

    for (int t = 0; t < H; ++t) {
        const int lastRow = min(ns - 1, firstRow + (t + 1) * a.maxShift);
        const int ownEnd = rows.ownBelow(lastRow + 1);
        const int haloOffset = (t & 1) != 0 ? n : 0;

        // --- phase A: q = Υ(τ)·p, interval occupancy per row (warp partials) ----------------------------
        if (group < groups) {
            for (int i = firstOwn + group; i < ownEnd; i += 2 * groups) {
                const bool second = i + groups < ownEnd;  // uniform per warp
                const int is0 = rows.rowOf(i);
                const int is1 = second ? rows.rowOf(i + groups) : is0;
                float q0 = 0.0F;
                float qi0 = 0.0F;
                float q1 = 0.0F;
                float qi1 = 0.0F;
                if (typeValid) {
                    gatherRow(st, a.entries, pS, is0 * rowStates + type, is0, rows.inChunk(is0), ns, rowStates, haloOffset,
                              q0, qi0);
                    if (second) {
                        gatherRow(st, a.entries, pS, is1 * rowStates + type, is1, rows.inChunk(is1), ns, rowStates,
                                  haloOffset, q1, qi1);
                    }
                    qS[is0 * rowStates + type] = q0;
                    if (second) {
                        qS[is1 * rowStates + type] = q1;
                    }
                }
                qi0 = warpAllSum(qi0);
                qi1 = warpAllSum(qi1);
                if (lane == 0) {
                    intervalPartial[is0 * warpsPerRow + type / 32] = qi0;
                    if (second) {
                        intervalPartial[is1 * warpsPerRow + type / 32] = qi1;
                    }
                }
            }
        }
        __syncthreads();

        // --- phase B: p(t_{k+1}) = Γ·q in place, marginals, halo copies ---------------------------------
        // Γ(t_k) acts on the states reached at t_{k+1}: λ is evaluated there (as cpu::predict).
        const float time_s = static_cast<float>(t + 1) * c.step_s;
        const StepBounds bounds = stepBounds(time_s, constraints, c);
        const std::size_t at = static_cast<std::size_t>(k) * H + t;
        float* haloTarget = nullptr;  // where the next block reads this step's halo rows
        if (place.blocks > 1 && t + 1 < H) {
            haloTarget = peerShared(pS + ((t + 1) & 1 ? n : 0), next);
        }
        float speedSum = 0.0F;
        for (int i = firstOwn + warp; i < ownEnd; i += WARPS) {
            const int is = rows.rowOf(i);
            float mass = 0.0F;
            if (iv < nv) {
                const int base = (is * nv + iv) * NA;
                const float sFar = positionCellUpper_m(is, c);
                float q[NA];
                float lambda[NA];
                float value[NA];
                loadCell<NA>(qS + base, q);
#pragma unroll
                for (int j = 0; j < NA; ++j) {
                    lambda[j] = priorityAt(terms[j], sFar, bounds, constraints);
                }
                const float press = applyFreeRoad(lambda, terms, NA, vFar_mps, sFar, bounds, constraints, a.rules, c);
                applyInputTransition<NA>(q, lambda, a.psi, press, value);
                storeCell<NA>(pS + base, value);
                if (haloTarget != nullptr && rows.inChunk(is) >= rows.chunk() - a.maxShift) {
                    storeCell<NA>(haloTarget + base, value);
                }
#pragma unroll
                for (int u = 0; u < NA; ++u) {
                    mass += value[u];
                }
            }
            speedSum += mass;
            const float rowMass = warpAllSum(mass);
            if (lane == 0) {
                float interval = 0.0F;
                for (int w = 0; w < warpsPerRow; ++w) {
                    interval += intervalPartial[is * warpsPerRow + w];
                }
                a.positionMarginal[at * ns + is] = rowMass;
                a.intervalMarginal[at * ns + is] = interval;
            }
        }
        if (iv < nv) {
            speedPartial[warp * nv + iv] = speedSum;
        }
        clusterBarrier(place.blocks);
        // Speed marginal (this block's share): the warps' partials in a fixed order. The next phase A
        // does not touch them, and the next phase B writes them only after the next barrier.
        if (tid < nv) {
            float sum = 0.0F;
            for (int w = 0; w < WARPS; ++w) {
                sum += speedPartial[w * nv + tid];
            }
            if (place.blocks == 1) {
                a.speedMarginal[at * nv + tid] = sum;
            } else {
                a.speedPartial[(at * place.blocks + place.rank) * nv + tid] = sum;
            }
        }
    }
}

using Kernel = void (*)(Args);

Kernel kernelFor(int na) {
    switch (na) {
        case 1: return residentKernel<1>;
        case 2: return residentKernel<2>;
        case 3: return residentKernel<3>;
        case 4: return residentKernel<4>;
        case 5: return residentKernel<5>;
        case 6: return residentKernel<6>;
        case 7: return residentKernel<7>;
        case 8: return residentKernel<8>;
        default: return nullptr;
    }
}

/// The launch configuration of `clusters` clusters of `clusterBlocks` blocks each (a plain grid when
/// clusterBlocks is 1), built once for both the occupancy query and the launch. `config.attrs` points
/// at the member attribute, so the object stays where it was built.
struct ClusterLaunch {
    cudaLaunchAttribute attribute{};
    cudaLaunchConfig_t config{};

    ClusterLaunch(int clusters, int clusterBlocks, std::size_t bytes, cudaStream_t stream) noexcept {
        config.gridDim = dim3(static_cast<unsigned>(clusters * clusterBlocks));
        config.blockDim = dim3(THREADS);
        config.dynamicSmemBytes = bytes;
        config.stream = stream;
        attribute.id = cudaLaunchAttributeClusterDimension;
        attribute.val.clusterDim.x = static_cast<unsigned>(clusterBlocks);
        attribute.val.clusterDim.y = 1;
        attribute.val.clusterDim.z = 1;
        config.attrs = &attribute;
        config.numAttrs = clusterBlocks > 1 ? 1 : 0;
    }
    ClusterLaunch(const ClusterLaunch&) = delete;
    ClusterLaunch& operator=(const ClusterLaunch&) = delete;
};

}  // namespace

// --- host side -------------------------------------------------------------------------------------

std::size_t sharedBytes(const ChainConfig& c) noexcept {
    const std::size_t n = static_cast<std::size_t>(c.positionCells) * static_cast<std::size_t>(c.speedCells * c.inputCells);
    const auto ns = static_cast<std::size_t>(c.positionCells);
    const auto warpsPerRow = static_cast<std::size_t>(rowThreadsOf(c) / 32);
    // p, q, interval partials [n_s][warps per row], speed partials [warps][n_v]
    return sizeof(float) * (2 * n + ns * warpsPerRow + static_cast<std::size_t>(WARPS * c.speedCells));
}

bool shapeFits(const ChainConfig& c, const ShiftStencil& st) noexcept {
    return c.speedCells <= 32 && c.speedCells * c.inputCells <= THREADS && st.entriesPerRow <= MAX_ENTRIES &&
           st.minShift >= 0 && !st.stepWeight.empty() && kernelFor(c.inputCells) != nullptr;
}

bool prepare(const ChainConfig& c, const tuning::LaunchPolicy& policy, int (&maxActive)[CLUSTER_SIZES]) noexcept {
    for (int& m : maxActive) {
        m = 0;
    }
    const Kernel kernel = kernelFor(c.inputCells);
    int device = 0;
    int limit = 0;
    int deviceMultiprocessors = 0;
    int clusterLaunch = 0;
    if (kernel == nullptr || cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&deviceMultiprocessors, cudaDevAttrMultiProcessorCount, device) != cudaSuccess ||
        cudaDeviceGetAttribute(&clusterLaunch, cudaDevAttrClusterLaunch, device) != cudaSuccess) {
        return false;
    }
    // The SMs the kernels run on: the device's, or the active SM partition's.
    const auto active = platform::activeMultiprocessors();
    if (!active || active.value() < 1) {
        return false;
    }
    const int multiprocessors = active.value();
    const std::size_t bytes = sharedBytes(c);
    if (bytes > static_cast<std::size_t>(std::min(limit, policy.maxSharedBytesPerBlock)) ||
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)) != cudaSuccess) {
        return false;
    }
    int perMultiprocessor = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perMultiprocessor, kernel, THREADS, bytes) != cudaSuccess ||
        perMultiprocessor < 1) {
        return false;
    }
    perMultiprocessor = std::min(perMultiprocessor, policy.blocksPerSm(THREADS, static_cast<int>(bytes)));
    if (perMultiprocessor < 1) {
        return false;
    }
    maxActive[0] = perMultiprocessor * multiprocessors;
    for (int i = 1; i < CLUSTER_SIZES && clusterLaunch != 0; ++i) {
        const ClusterLaunch one(1, 1 << i, bytes, nullptr);
        int clusters = 0;
        if (cudaOccupancyMaxActiveClusters(&clusters, kernel, &one.config) != cudaSuccess) {
            (void)cudaGetLastError();  // this size cannot be co-scheduled: leave it at 0
            clusters = 0;
        }
        // The occupancy query counts the whole device; an SM partition runs its share of the clusters.
        maxActive[i] = static_cast<int>(static_cast<long long>(clusters) * multiprocessors / std::max(1, deviceMultiprocessors));
    }
    return true;
}

platform::GpuStatus launch(const Args& args, int corridorCount, int clusterBlocks, std::size_t bytes,
                           platform::StreamHandle stream) noexcept {
    const ClusterLaunch cluster(corridorCount, clusterBlocks, bytes, stream);
    AUGUR_CUDA_TRY(AUGUR_CUDA_CHECK(cudaLaunchKernelEx(&cluster.config, kernelFor(args.chain.inputCells), args)));
    return AUGUR_CUDA_CHECK_LAUNCH();
}

}  // namespace augur::kernels::markov::resident
