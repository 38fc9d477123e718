// The agent of the combine kernel: the block partials into the outputs, N_eff and the resample
// decision, beside the CDF scan of systematic resampling. Private to kernels/pf (filter_cuda.cu).
#pragma once

#include <cmath>
#include <cstdint>

#include "common.cuh"

namespace augur::kernels::pf::cuda::agent {

struct CombineArgs {
    const double* sums;
    const float* maxima;
    std::uint32_t blocks;
    float* outputs;
    FilterControl* control;
    std::uint32_t particles;
    float threshold;
    std::uint64_t seed;
    std::uint32_t deEnabled;
    std::uint32_t commit;  ///< 1: the advance kernel wrote the other buffer; make it the committed one
    // Systematic resampling: blocks 0 … cdfTiles − 1 also scan the CDF of the quantised weights
    // (cdfTiles = 0: they do not).
    const float* logWeights;
    std::uint64_t* cdf;
    internal::CdfLookbackState cdfState;
    std::uint32_t cdfTiles;
};

/// Blocks 0 … cdfTiles − 1 scan the CDF, the rest combine the channels; every block first finds the
/// global max over the partial maxima (a max is exact in any order).
/// Scan blocks (systematic resampling): block b scans CDF tile b of the quantised weights, which need
/// only the global max — the scan is ready when the device decides to resample, one launch fewer,
/// and it runs beside the channel sums instead of before them (tile order = block order, so the
/// look-back waits only on blocks that started earlier).
/// Channel blocks: one per channel c ≥ 1 (Σe², then the outputs): each partial block's scale
/// exp(max_b − max); thread t sums partial blocks t, t + 256, … of channel c and of Σe (channel 0)
/// in order and a fixed tree combines the threads, so every block has the same Σe, bit for bit,
/// and needs no other block's sum. Its rows are loaded with the maxima, before the max is known.
/// An output block writes its output normalised by Σe; the Σe² block writes the control block:
/// N_eff, the resample decision, u, the buffer commit, the step, and a systematic resampling as
/// pending, which the next advance draws the copy indices of from the CDF (stream order). Without a
/// commit (the reduce stage) only N_eff, Σw and the max: a pending resampling keeps its u for the
/// next advance. (A completion counter, the last block to finish normalising the outputs, would put a
/// fence, an atomic and a reload on the step's path: the seed-scale step measured about 1 µs slower
/// with it, H100, augur-bench-pf.)
/// SEGMENTS: those of a CDF tile (internal::cdfSegments).
/// Shared storage: the warps' maxima and totals, declared in combine(), and the scan's own.
template <std::uint32_t SEGMENTS>
struct CombineAgent {
    static constexpr std::uint32_t HELD = 4;  // partial blocks a thread holds in registers (the rest: reloaded)

    /// The thread's first HELD partial blocks (t, t + blockDim.x, …): their maxima, Σe's (channel 0)
    /// and channel c's sums. Σe's come before channel c's, and loadHeld fills them in place: returned,
    /// or in the other order, they are numbered differently and the compiled kernel changes.
    struct HeldPartials {
        float maxima[HELD];
        double weights[HELD];
        double sums[HELD];
    };

    /// The thread's sums of its partial blocks: channel c's and Σe's.
    struct ThreadSums {
        double total;
        double weights;
    };

    /// Block blockIdx.x of a grid of cdfTiles + channels − 1 blocks of COMBINE_BLOCK threads.
    static __device__ __forceinline__ void combine(CombineArgs a);

    /// The thread's held partial blocks: a channel block c ≥ 1 loads its row of partial sums and that
    /// of Σe (channel 0) with the maxima, before the max is known (a scan block only the maxima).
    static __device__ __forceinline__ void loadHeld(const CombineArgs& a, const double* row, bool scanBlock,
                                                    HeldPartials& held) {
#pragma unroll
        for (std::uint32_t h = 0; h < HELD; ++h) {
            const std::uint32_t b = threadIdx.x + h * blockDim.x;
            held.maxima[h] = b < a.blocks ? a.maxima[b] : -INFINITY;
            held.sums[h] = !scanBlock && b < a.blocks ? row[b] : 0.0;
            held.weights[h] = !scanBlock && b < a.blocks ? a.sums[b] : 0.0;
        }
    }

    /// The max of the thread's partial maxima: the held ones, then the rest reloaded.
    static __device__ __forceinline__ float localMaxOf(const CombineArgs& a, const HeldPartials& held) {
        float localMax = -INFINITY;
#pragma unroll
        for (std::uint32_t h = 0; h < HELD; ++h) {
            localMax = detail::maxLog(localMax, held.maxima[h]);
        }
        for (std::uint32_t b = threadIdx.x + HELD * blockDim.x; b < a.blocks; b += blockDim.x) {
            localMax = detail::maxLog(localMax, a.maxima[b]);
        }
        return localMax;
    }

    /// The global max: the threads' maxima over the warp, then the warps' in order.
    static __device__ __forceinline__ float globalMaxOf(float (&warpMaxima)[COMBINE_WARPS], float localMax,
                                                        std::uint32_t lane, std::uint32_t warp) {
        localMax = warpMax(localMax);
        if (lane == 0) {
            warpMaxima[warp] = localMax;
        }
        __syncthreads();
        float globalMax = warpMaxima[0];
        for (std::uint32_t w = 1; w < COMBINE_WARPS; ++w) {
            globalMax = detail::maxLog(globalMax, warpMaxima[w]);
        }
        return globalMax;
    }

    /// Thread t sums partial blocks t, t + 256, … of channel c in order, each scaled by
    /// exp(max_b − max) as a float (Σe² by its square); Σe the same way in every block (the same bits).
    static __device__ __forceinline__ ThreadSums sumPartials(const CombineArgs& a, const HeldPartials& held,
                                                             const double* row, std::uint32_t c, float globalMax) {
        ThreadSums sums{0.0, 0.0};
        auto add = [&](float blockMax, double sum, double weight) {
            const auto f = static_cast<double>(static_cast<float>(detail::weightTerm(blockMax, globalMax)));
            sums.total += sum * (c == 1 ? f * f : f);
            sums.weights += weight * f;
        };
#pragma unroll
        for (std::uint32_t h = 0; h < HELD; ++h) {
            if (threadIdx.x + h * blockDim.x < a.blocks) {
                add(held.maxima[h], held.sums[h], held.weights[h]);
            }
        }
        for (std::uint32_t b = threadIdx.x + HELD * blockDim.x; b < a.blocks; b += blockDim.x) {
            add(a.maxima[b], row[b], a.sums[b]);
        }
        return sums;
    }

    /// The threads' sums over each warp (a fixed shuffle tree) into warpTotals, then a barrier.
    static __device__ __forceinline__ void shareWarpTotals(double (&warpTotals)[2][COMBINE_WARPS], ThreadSums sums,
                                                           std::uint32_t lane, std::uint32_t warp) {
        sums.total = warpAllSum(sums.total);
        sums.weights = warpAllSum(sums.weights);
        if (lane == 0) {
            warpTotals[0][warp] = sums.total;
            warpTotals[1][warp] = sums.weights;
        }
        __syncthreads();
    }

    /// The Σe² block's control block `ctl` (as loaded) updated from Σe = sum and Σe² = sumSquares, and
    /// written. `ctl` by reference: a copy changes the compiled kernel.
    static __device__ __forceinline__ void writeControl(const CombineArgs& a, FilterControl& ctl, double sum,
                                                        double sumSquares, float globalMax) {
        ctl.sumWeights = sum;
        ctl.effectiveSampleSize = static_cast<float>(sum * sum / sumSquares);
        ctl.maxLogWeight = globalMax;
        ctl.current ^= ctl.swap ^ a.commit;
        ctl.swap = 0;
        if (a.commit != 0U) {
            // The step's decision, u and count. A systematic resampling is left to the next advance:
            // its copy indices (with this u) and its gather. The reduce stage leaves them alone.
            ctl.resample = ctl.effectiveSampleSize < a.threshold * static_cast<float>(a.particles) ? 1U : 0U;
            ctl.pending = a.cdfTiles != 0U ? ctl.resample : 0U;
            ctl.uniform = resampleUniform(a.seed, ctl.step);
            ctl.deActive = (ctl.resample != 0 && a.deEnabled != 0) ? 1U : 0U;
            ctl.deParity = 0;
            ctl.generations = 0;
            ctl.step += 1;
        }
        *a.control = ctl;
    }
};

template <std::uint32_t SEGMENTS>
__device__ __forceinline__ void CombineAgent<SEGMENTS>::combine(CombineArgs a) {
    __shared__ float warpMaxima[COMBINE_WARPS];
    __shared__ double warpTotals[2][COMBINE_WARPS];
    const std::uint32_t lane = threadIdx.x % WARP;
    const std::uint32_t warp = threadIdx.x / WARP;
    const bool scanBlock = blockIdx.x < a.cdfTiles;  // block-uniform: CDF tile blockIdx.x, nothing else
    primitives::waitForPrerequisiteGrid();  // may start early: no global access before this

    // A scan block loads its tile's log-weights first, so that their loads overlap the maxima's.
    internal::TileLogWeights<SEGMENTS> tile{};
    if (scanBlock) {
        tile = internal::loadTileLogWeights<true, SEGMENTS>(a.logWeights, a.particles);
    }
    const std::uint32_t c = blockIdx.x - a.cdfTiles + 1;  // a channel block's channel (one per block)
    const double* row = scanBlock ? nullptr : a.sums + static_cast<std::size_t>(c) * a.blocks;
    HeldPartials held;
    loadHeld(a, row, scanBlock, held);
    const float localMax = localMaxOf(a, held);
    [[maybe_unused]] FilterControl ctl{};
    if (!scanBlock && c == 1 && threadIdx.x == 0) {
        ctl = *a.control;  // nothing in this kernel writes it before this block
    }
    const float globalMax = globalMaxOf(warpMaxima, localMax, lane, warp);
    if (scanBlock) {
        internal::scanQuantizedTile(tile, a.particles, globalMax, a.cdf, a.cdfState);
        return;
    }
    shareWarpTotals(warpTotals, sumPartials(a, held, row, c, globalMax), lane, warp);
    if (threadIdx.x != 0) {
        return;
    }
    double channelSum = 0.0;
    double sum = 0.0;
    for (std::uint32_t w = 0; w < COMBINE_WARPS; ++w) {
        channelSum += warpTotals[0][w];
        sum += warpTotals[1][w];
    }
    if (c >= 2) {
        a.outputs[c - 2] = static_cast<float>(channelSum / sum);
        return;
    }
    writeControl(a, ctl, sum, channelSum, globalMax);
}

}  // namespace augur::kernels::pf::cuda::agent
