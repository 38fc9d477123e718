// Markov-chain motion prediction of many corridors over the horizon (Hortelano et al. 2023, Sec. 3.4
// Eq. (2), Sec. 4.3): per corridor p(t_{k+1}) = Γ(t_k)·Υ(τ)·p(t_k) and p([t_k, t_{k+1}]) = Υ([0, τ])·p(t_k),
// with Γ = diag(λ)·ψ fused into the propagation (never written to memory), the marginals over s and v,
// the mean / std of s projected onto the corridor's centreline, and the interval occupancy splatted,
// weighted by the corridor's probability, into an ego-centred occupancy grid.
//
// The outputs map onto core/messages.hpp: `points` are MotionPrediction's CorridorPoint per step,
// `grid` is OccupancyGrid::cells (probability · 65535, row-major, one frame per group of steps).
//
// Two backends behind one signature: cpu::predict (the reference) and cuda::predict (one launch for the
// whole horizon of all corridors with p in shared memory where the chain fits, a corridor on one block
// or on a thread-block cluster, else one batched launch per horizon step; plus three small launches
// for the summary, the splat and the grid). Both are run-phase calls:
// noexcept, no allocation, caller-provided scratch sized by the matching ...ScratchBytes query.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "augur/core/messages.hpp"
#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/priority.hpp"
#include "augur/platform/memory.hpp"

namespace augur::kernels::markov {

/// Sizes fixed at init for the run phase.
struct PredictionConfig {
    int horizonSteps{40};          ///< H steps of τ (4 s at τ = 0.1 s); ≤ MAX_HORIZON_STEPS
    int maxCorridors{64};          ///< corridors per call (all vehicles together)
    int maxPolylinePoints{64};     ///< centreline points per corridor
    int gridWidthCells{128};       ///< ≤ MAX_GRID_SIDE_CELLS
    int gridHeightCells{128};      ///< ≤ MAX_GRID_SIDE_CELLS
    float gridResolution_m{0.5F};  ///< cell edge
    int gridFrames{8};             ///< ≤ MAX_GRID_FRAMES; must divide horizonSteps
    int splatSamplesPerCell{4};    ///< points per position cell projected into the grid
    PriorityRules rules{};
};

/// Checks `prediction` against the compiled limits and the chain. Init phase.
[[nodiscard]] Result<void, MarkovError> validate(const ChainConfig& chain, const PredictionConfig& prediction) noexcept;

/// One vehicle on one of its corridors, for one prediction.
struct CorridorInput {
    float probability{0.0F};          ///< P(corridor) from the intention filter; weights the grid splat
    float initialPosition_m{0.0F};    ///< s at t0 (0: the vehicle's own position)
    float initialSpeed_mps{0.0F};     ///< mean speed at t0
    float initialSpeedStd_mps{0.0F};  ///< its standard deviation (0: one speed cell)
    float initialInput[MAX_INPUT_CELLS]{};  ///< P(u_j) at t0 (e.g. inputDistribution); all zero → uniform
    CorridorConstraints constraints{};
    std::int32_t polylinePoints{0};   ///< centreline points used (2 … maxPolylinePoints)
    std::int32_t reserved{0};
};

/// Corridor centrelines in the map frame: corridor k's point i at index k·maxPolylinePoints + i;
/// s_m is the cumulative arc length (non-decreasing, s = 0 at the vehicle's position at t0).
struct Polylines {
    const float* x_m{nullptr};
    const float* y_m{nullptr};
    const float* s_m{nullptr};
};

/// Where the ego-centred grid lies this cycle (map frame, the corner of cell (0, 0)).
struct GridPlacement {
    float originX_m{0.0F};
    float originY_m{0.0F};
};

/// Where the results go (host pointers for cpu::, device pointers for cuda::).
struct PredictionOutputs {
    float* positionMarginal{nullptr};  ///< [corridor][step][n_s]: P(s cell) at t_{k+1}
    float* speedMarginal{nullptr};     ///< [corridor][step][n_v]: P(v cell) at t_{k+1}
    CorridorPoint* points{nullptr};    ///< [corridor][step]: sMean, sStd and the centreline point at sMean
    std::uint16_t* grid{nullptr};      ///< [frame][row·width + col]: P(occupied)·65535
    std::size_t gridFrameStride_cells{0};  ///< distance between frames (MAX_GRID_SIDE_CELLS² for OccupancyGrid)
};

/// G(x) = E[(X − x)⁺] for X ~ N(mean, sd²) (sd = 0: (mean − x)⁺), in double.
AUGUR_MARKOV_HD double gaussianExcess(double x, double mean, double sd) {
    const double d = mean - x;
    if (!(sd > 0.0)) {
        return d > 0.0 ? d : 0.0;
    }
    const double z = d / sd;
    constexpr double INV_SQRT_2PI = 0.3989422804014327;
    return sd * INV_SQRT_2PI * exp(-0.5 * z * z) + d * 0.5 * erfc(-z * 0.7071067811865476);
}

/// E[h(X)], X ~ N(mean, sd²), for the piecewise-linear "hat" h of the grid node `centre`: 0 at and beyond
/// its neighbours `lower` and `upper`, 1 at the node, linear in between; the first node (hasLower
/// false) is 1 everywhere below it, the last (hasUpper false) everywhere above it. The hats of a grid's
/// nodes sum to 1 at every x and Σ h_i(x)·node_i = x between the first and the last node, so these
/// weights put the expected node value at the mean (linear interpolation between nodes, blurred by the
/// Gaussian): a value between two cells' representatives is split between both instead of snapped to
/// one. O(1), double.
AUGUR_MARKOV_HD double hatExpectation(double lower, double centre, double upper, bool hasLower, bool hasUpper,
                                      double mean, double sd) {
    const double gCentre = gaussianExcess(centre, mean, sd);
    const double rise = hasLower ? (gaussianExcess(lower, mean, sd) - gCentre) / (centre - lower) : 1.0;
    const double fall = hasUpper ? (gCentre - gaussianExcess(upper, mean, sd)) / (upper - centre) : 0.0;
    const double w = rise - fall;
    return w > 0.0 ? w : 0.0;
}

/// P(speed cell i_v) at t0 for a speed estimate N(v0, σ²): the hat weights (hatExpectation) of the
/// cells' representative speeds (speedCellCentre_mps: 0 for standstill, interval centres above), so
/// that the speed the chain propagates with is v0 on average, not the centre of v0's cell (with 4 m/s
/// cells that snapping alone moved the mean by up to 2 m/s, 8 m at 4 s). O(1).
AUGUR_MARKOV_HD float initialSpeedProbability(const ChainConfig& c, int iv, float v0_mps, float sd_mps) {
    const int nv = c.speedCells;
    const double centre = speedCellCentre_mps(iv, c);
    const double lower = iv > 0 ? static_cast<double>(speedCellCentre_mps(iv - 1, c)) : 0.0;
    const double upper = iv + 1 < nv ? static_cast<double>(speedCellCentre_mps(iv + 1, c)) : 0.0;
    return static_cast<float>(hatExpectation(lower, centre, upper, iv > 0, iv + 1 < nv, static_cast<double>(v0_mps),
                                             sd_mps > 0.0F ? static_cast<double>(sd_mps) : 0.0));
}

/// p(t0) of state r (= (i_s·n_v + i_v)·n_a + j) of one corridor: all mass in the position cell of s0,
/// the speed spread by initialSpeedProbability (N(v0, σ) over the cells' representative speeds), the
/// input `initialInput` normalised (uniform when all zero). O(n_a); shared by both backends.
AUGUR_MARKOV_HD float initialStateProbability(const ChainConfig& c, const CorridorInput& corridor, int r) {
    const int na = c.inputCells;
    const int nv = c.speedCells;
    const int j = r % na;
    const int iv = (r / na) % nv;
    const int is = r / (na * nv);
    if (is != positionCellOf(corridor.initialPosition_m, c)) {
        return 0.0F;
    }
    float inputSum = 0.0F;
    for (int u = 0; u < na; ++u) {
        inputSum += corridor.initialInput[u] > 0.0F ? corridor.initialInput[u] : 0.0F;
    }
    const float own = corridor.initialInput[j] > 0.0F ? corridor.initialInput[j] : 0.0F;
    const float pu = inputSum > 0.0F ? own / inputSum : 1.0F / static_cast<float>(na);
    return initialSpeedProbability(c, iv, corridor.initialSpeed_mps, corridor.initialSpeedStd_mps) * pu;
}

/// The part of a tracked acceleration a (m/s², standard deviation σ) that is evidence of a pressed pedal:
/// a·(1 − σ²/a²)⁺, the non-negative garrote. An estimate within its standard deviation of zero is the
/// tracker's noise and gives 0 (a wrong initial input is held for seconds by ψ_sub); one several deviations
/// from zero keeps nearly all its value (a car pulling away at 2.6 ± 0.8 m/s²: 2.35). σ ≤ 0: a itself.
inline float evidentAcceleration(float accel_mps2, float std_mps2) noexcept {
    const float a2 = accel_mps2 * accel_mps2;
    const float s2 = std_mps2 > 0.0F ? std_mps2 * std_mps2 : 0.0F;
    return a2 > s2 ? accel_mps2 * (1.0F - s2 / a2) : 0.0F;
}

/// P(u_j) at t0 for an acceleration estimate N(a0, σ²) along the corridor: the hat weights
/// (hatExpectation) of the inputs' accelerations a_max·u_j, so that the expected input is a0 (clamped to
/// [−a_max, a_max]). Writes p[0 … n_a), summing to 1: a CorridorInput::initialInput. O(n_a).
void inputDistribution(const ChainConfig& chain, float a0_mps2, float sd_mps2, float* p) noexcept;

/// p(t0) of one corridor (initialStateProbability for every state). p has ≥ n entries. Run phase,
/// allocation-free, O(n·n_a).
void initialDistribution(const ChainConfig& chain, const CorridorInput& corridor, float* p) noexcept;

/// Centreline point at arc length s (linear interpolation, clamped to the polyline's ends).
AUGUR_MARKOV_HD void projectOnCentreline(const float* x, const float* y, const float* s, int count, float sq,
                                         float& outX, float& outY) {
    if (count <= 0) {
        outX = 0.0F;
        outY = 0.0F;
        return;
    }
    if (count == 1 || sq <= s[0]) {
        outX = x[0];
        outY = y[0];
        return;
    }
    if (sq >= s[count - 1]) {
        outX = x[count - 1];
        outY = y[count - 1];
        return;
    }
    int lo = 0;
    int hi = count - 1;  // s[lo] < sq < s[hi]
    while (hi - lo > 1) {
        const int mid = (lo + hi) / 2;
        if (s[mid] <= sq) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    const float span = s[hi] - s[lo];
    const float w = span > 0.0F ? (sq - s[lo]) / span : 0.0F;
    outX = x[lo] + w * (x[hi] - x[lo]);
    outY = y[lo] + w * (y[hi] - y[lo]);
}

/// Fixed-point scale of the grid accumulators: one unit of probability = 2^20. Integer sums make the
/// splat deterministic regardless of the order the contributions arrive in.
inline constexpr std::uint32_t GRID_FIXED_ONE = 1U << 20;

AUGUR_MARKOV_HD std::uint32_t toGridFixed(float probability) {
    return static_cast<std::uint32_t>(probability * static_cast<float>(GRID_FIXED_ONE) + 0.5F);
}
AUGUR_MARKOV_HD std::uint16_t gridCellValue(std::uint32_t accumulated) {
    const std::uint64_t scaled = (static_cast<std::uint64_t>(accumulated) * 65535U + GRID_FIXED_ONE / 2) / GRID_FIXED_ONE;
    return static_cast<std::uint16_t>(scaled > 65535U ? 65535U : scaled);
}

namespace cpu {

/// Scratch bytes cpu::predict needs (host memory, 16-byte aligned).
[[nodiscard]] std::size_t predictScratchBytes(const ChainConfig& chain, const PredictionConfig& prediction) noexcept;

/// Predicts corridors[0 … corridorCount) over the horizon and fills `out` (all four outputs).
/// Preconditions (asserted): corridorCount ≤ maxCorridors, scratchBytes ≥ predictScratchBytes.
/// Run phase: noexcept, allocation-free; O(corridors·H·(nnz(Υ(τ)) + nnz(Υ([0,τ])) + n·n_a)).
void predict(const MarkovChain& chain, const PredictionConfig& prediction, const InputDynamics& psi,
             const CorridorInput* corridors, int corridorCount, const Polylines& polylines, const GridPlacement& placement,
             const PredictionOutputs& out, void* scratch, std::size_t scratchBytes) noexcept;

}  // namespace cpu

namespace cuda {

/// Cluster sizes the resident path can give a corridor: 1, 2, 4, 8 blocks.
inline constexpr int RESIDENT_CLUSTER_SIZES = 4;

/// How cuda::predict propagates the corridors.
enum class Propagation {
    Auto,      ///< both paths kept; each call picks Resident from the tuning policy's RESIDENT_MIN_CORRIDORS
               ///< corridors (1: the resident path was faster at every count measured), Tiled below
    Resident,  ///< one launch for the whole horizon with p(t) in shared memory, each corridor on one
               ///< block or spread over a thread-block cluster of 2, 4 or 8 blocks (sm_90)
    Tiled,     ///< one launch per step for all corridors, p(t) in device memory, Υ as ELL
};

/// One slot of the stencil as the resident kernel reads it (ShiftStencil, in state offsets).
struct StencilSlot {
    std::int32_t stateOffset{0};  ///< source − target state index for a target below the last position cell
    std::int32_t shift{0};        ///< position cells the mass moves forward
    float stepWeight{0.0F};       ///< Υ(τ)
    float intervalWeight{0.0F};   ///< Υ([0, τ])
};

/// Υ(τ) and Υ([0, τ]) in device memory (uploaded once at init; read by every corridor of every call).
class DeviceChain {
public:
    /// Uploads `chain` for the requested propagation. Resident needs 2·n + O(n_s) floats of shared
    /// memory in one block (n ≤ ≈ 28,000 states on sm_90, 227 KB; the seed's 24,000 do not fit sm_87's
    /// 163 KB), n_v ≤ 32, a row stencil of at most tuning::MAX_RESIDENT_ENTRIES slots and n_v·n_a ≤ 512;
    /// Tiled needs a position row of at most 614 states (n_v·n_a; the step block's shared memory).
    /// `clusterBlocks`: 0 lets each call spread a corridor over the largest thread-block cluster (up to the
    /// tuning policy's RESIDENT_MAX_CLUSTER_BLOCKS: 8 on sm_90, 1 before) with which all its corridors run at once; 1, 2, 4 or 8 fixes
    /// the cluster size (a resident path that cannot run clusters of that size on this device does not
    /// fit). Auto keeps every path that fits (propagation() says which: Auto when both do). Init phase:
    /// allocates device memory, synchronous. Fails with InvalidGrid when the requested path (for Auto:
    /// both) does not fit or clusterBlocks is not 0, 1, 2, 4 or 8, DeviceFailure when a CUDA call fails.
    [[nodiscard]] static Result<DeviceChain, MarkovError> create(const MarkovChain& chain,
                                                                 Propagation propagation = Propagation::Auto,
                                                                 int clusterBlocks = 0) noexcept;

    [[nodiscard]] const ChainConfig& config() const noexcept { return m_config; }
    /// The paths this chain can take: Resident, Tiled, or Auto (both; chosen per call).
    [[nodiscard]] Propagation propagation() const noexcept { return m_propagation; }
    /// Whether cuda::predict propagates `corridorCount` corridors on the resident path.
    [[nodiscard]] bool residentFor(int corridorCount) const noexcept;
    /// Blocks (one thread-block cluster) the resident path gives each of `corridorCount` corridors:
    /// 1, 2, 4 or 8. Run phase: noexcept, O(1).
    [[nodiscard]] int residentClusterBlocks(int corridorCount) const noexcept;
    /// How many corridors on clusters of `clusterBlocks` blocks the device runs at once (0: none, or
    /// not a resident chain), from the occupancy queries at init.
    [[nodiscard]] int maxActiveResidentCorridors(int clusterBlocks) const noexcept;
    [[nodiscard]] int stepEntriesPerRow() const noexcept { return m_stepEntries; }
    [[nodiscard]] int intervalEntriesPerRow() const noexcept { return m_intervalEntries; }
    [[nodiscard]] const std::int32_t* stepColumn() const noexcept { return m_stepColumn.data(); }
    [[nodiscard]] const float* stepValue() const noexcept { return m_stepValue.data(); }
    [[nodiscard]] const std::int32_t* intervalColumn() const noexcept { return m_intervalColumn.data(); }
    [[nodiscard]] const float* intervalValue() const noexcept { return m_intervalValue.data(); }
    [[nodiscard]] const StencilSlot* stencil() const noexcept { return m_stencil.data(); }
    [[nodiscard]] int stencilEntriesPerRow() const noexcept { return m_stencilEntries; }
    [[nodiscard]] int stencilMaxShift() const noexcept { return m_stencilMaxShift; }
    /// Position rows per chunk when a corridor is spread over a cluster (a power of two ≥ stencilMaxShift()).
    [[nodiscard]] int residentChunkRows() const noexcept { return m_chunkRows; }
    /// Dynamic shared memory of a resident block, bytes (0 when Tiled).
    [[nodiscard]] std::size_t residentSharedBytes() const noexcept { return m_residentSharedBytes; }

private:
    ChainConfig m_config{};
    Propagation m_propagation{Propagation::Tiled};
    int m_clusterBlocks{0};            // 0: chosen per call
    int m_maxClusterBlocks{1};         // the tuning policy's largest cluster (chosen per call up to it)
    int m_residentMinCorridors{1};     // the tuning policy's Auto threshold
    int m_maxActiveClusters[RESIDENT_CLUSTER_SIZES]{};  // corridors at once on clusters of 1, 2, 4, 8 blocks
    int m_stepEntries{0};
    int m_intervalEntries{0};
    int m_stencilEntries{0};
    int m_stencilMaxShift{0};
    int m_chunkRows{0};
    std::size_t m_residentSharedBytes{0};
    platform::DeviceBuffer<std::int32_t> m_stepColumn;
    platform::DeviceBuffer<float> m_stepValue;
    platform::DeviceBuffer<std::int32_t> m_intervalColumn;
    platform::DeviceBuffer<float> m_intervalValue;
    platform::DeviceBuffer<StencilSlot> m_stencil;
};

/// Device scratch bytes cuda::predict needs (256-byte aligned sub-buffers).
[[nodiscard]] std::size_t predictScratchBytes(const ChainConfig& chain, const PredictionConfig& prediction) noexcept;

/// CUDA path of cpu::predict. `corridors`, the polylines, `out` and `scratch` are device memory.
/// Enqueues one memset and 4 kernels (resident: the whole horizon in one launch, one block or cluster
/// per corridor) or H + 4 kernels (tiled) on `stream` (DeviceChain::residentFor and
/// residentClusterBlocks say which); capturable into a CUDA graph. Deterministic: fixed reduction
/// orders, integer grid accumulation; the same outputs for every cluster size up to float rounding.
/// Run phase: noexcept, allocation-free, asynchronous.
[[nodiscard]] platform::GpuStatus predict(const DeviceChain& chain, const PredictionConfig& prediction,
                                          const InputDynamics& psi, const CorridorInput* corridors, int corridorCount,
                                          const Polylines& polylines, const GridPlacement& placement,
                                          const PredictionOutputs& out, void* scratch, std::size_t scratchBytes,
                                          platform::StreamHandle stream) noexcept;

}  // namespace cuda

}  // namespace augur::kernels::markov
