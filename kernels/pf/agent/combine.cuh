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
    /// Block blockIdx.x of a grid of cdfTiles + channels − 1 blocks of COMBINE_BLOCK threads.
    static __device__ __forceinline__ void combine(CombineArgs a);
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
    // A channel block c ≥ 1 loads its row of partial sums and that of Σe (channel 0) with the
    // maxima, before the max is known.
    constexpr std::uint32_t HELD = 4;  // partial blocks a thread holds in registers (the rest: reloaded)
    const std::uint32_t c = blockIdx.x - a.cdfTiles + 1;  // a channel block's channel (one per block)
    const double* row = scanBlock ? nullptr : a.sums + static_cast<std::size_t>(c) * a.blocks;
    const double* weightRow = a.sums;
    float heldMax[HELD];
    double heldSum[HELD];
    double heldWeight[HELD];
    float localMax = -INFINITY;
#pragma unroll
    for (std::uint32_t h = 0; h < HELD; ++h) {
        const std::uint32_t b = threadIdx.x + h * blockDim.x;
        heldMax[h] = b < a.blocks ? a.maxima[b] : -INFINITY;
        heldSum[h] = !scanBlock && b < a.blocks ? row[b] : 0.0;
        heldWeight[h] = !scanBlock && b < a.blocks ? weightRow[b] : 0.0;
    }
#pragma unroll
    for (std::uint32_t h = 0; h < HELD; ++h) {
        localMax = detail::maxLog(localMax, heldMax[h]);
    }
    for (std::uint32_t b = threadIdx.x + HELD * blockDim.x; b < a.blocks; b += blockDim.x) {
        localMax = detail::maxLog(localMax, a.maxima[b]);
    }
    [[maybe_unused]] FilterControl ctl{};
    if (!scanBlock && c == 1 && threadIdx.x == 0) {
        ctl = *a.control;  // nothing in this kernel writes it before this block
    }
    localMax = warpMax(localMax);
    if (lane == 0) {
        warpMaxima[warp] = localMax;
    }
    __syncthreads();
    float globalMax = warpMaxima[0];
    for (std::uint32_t w = 1; w < COMBINE_WARPS; ++w) {
        globalMax = detail::maxLog(globalMax, warpMaxima[w]);
    }
    if (scanBlock) {
        internal::scanQuantizedTile(tile, a.particles, globalMax, a.cdf, a.cdfState);
        return;
    }
    // Thread t sums partial blocks t, t + 256, … in order, each scaled by exp(max_b − max) as a float;
    // Σe the same way in every block (the same bits).
    double total = 0.0;
    double weights = 0.0;
    auto add = [&](float blockMax, double sum, double weight) {
        const auto f = static_cast<double>(static_cast<float>(detail::weightTerm(blockMax, globalMax)));
        total += sum * (c == 1 ? f * f : f);
        weights += weight * f;
    };
#pragma unroll
    for (std::uint32_t h = 0; h < HELD; ++h) {
        if (threadIdx.x + h * blockDim.x < a.blocks) {
            add(heldMax[h], heldSum[h], heldWeight[h]);
        }
    }
    for (std::uint32_t b = threadIdx.x + HELD * blockDim.x; b < a.blocks; b += blockDim.x) {
        add(a.maxima[b], row[b], weightRow[b]);
    }
    total = warpAllSum(total);
    weights = warpAllSum(weights);
    if (lane == 0) {
        warpTotals[0][warp] = total;
        warpTotals[1][warp] = weights;
    }
    __syncthreads();
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
    const double sumSquares = channelSum;
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

}  // namespace augur::kernels::pf::cuda::agent
