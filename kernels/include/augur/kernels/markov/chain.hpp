// The Markov-chain abstraction of a vehicle's longitudinal motion along one corridor: the (s, v, u)
// cell grid, the dynamics it abstracts and the two transition matrices Υ(τ) and Υ([0, τ]) built once
// at init by sampling (Hortelano et al. 2023, Sec. 3.4, Eqs. (1)-(2); after Althoff's Markov-chain
// abstraction of reachable sets).
//
// Cells. Position s ∈ [0, s_max] in n_s equal cells of Δs = s_max / n_s (the last cell also holds
// everything beyond s_max: the corridor's end absorbs). Speed v ∈ [0, v_max] in n_v cells: cell 0 is
// standstill (v = 0 exactly), cells 1 … n_v−1 split (0, v_max] into equal intervals of
// Δv = v_max / (n_v − 1) (cell i = ((i−1)·Δv, i·Δv]). Input u ∈ [−1, 1] in n_a values
// u_j = −1 + 2j / (n_a − 1) (u = 0 when n_a = 1), acceleration a_max·u_j.
// State index r = (i_s·n_v + i_v)·n_a + j, so ⌊r / n_a⌋ is the (s, v) cell, as in Eq. (4).
//
// Dynamics (Eq. (1)): ṡ = v, v̇ = a_max·u, except that v̇ = 0 once v reaches a bound it is pushed
// against (v = 0 with u < 0, v = v_max with u > 0). A stopped vehicle stays stopped unless u > 0.
#pragma once

#include <cstdint>
#include <vector>

#include "augur/core/result.hpp"

#if defined(__CUDACC__)
#define AUGUR_MARKOV_HD __host__ __device__ __forceinline__
#else
#define AUGUR_MARKOV_HD inline
#endif

namespace augur::kernels::markov {

/// Compiled limit on n_a (the seed: "the input space is usually small (< 10)"); sizes ψ_sub in fast
/// memory and the per-thread accumulators of the CUDA path.
inline constexpr int MAX_INPUT_CELLS = 8;

/// The cell grid and time step of the chain. Defaults are the seed's size (Sec. 5.5: n_s = 200,
/// n_v = 20, n_a = 6, τ = 0.1 s).
struct ChainConfig {
    int positionCells{200};       ///< n_s
    float positionMax_m{200.0F};  ///< s_max
    int speedCells{20};           ///< n_v (≥ 2: standstill plus at least one moving cell)
    float speedMax_mps{19.0F};    ///< v_max
    int inputCells{6};            ///< n_a, 1 … MAX_INPUT_CELLS
    float accelMax_mps2{5.0F};    ///< a_max
    float step_s{0.1F};           ///< τ
    int samplesPerAxis{8};        ///< S: speed samples per cell (position is integrated exactly)
    int intervalSamples{8};       ///< time samples inside [0, τ] for Υ([0, τ])
};

enum class MarkovError {
    InvalidGrid,          ///< a cell count, extent, a_max or τ out of range
    InvalidSampling,      ///< samplesPerAxis or intervalSamples < 1
    InvalidPrediction,    ///< horizon, corridor, polyline or grid sizes out of range (prediction.hpp)
    DeviceFailure,        ///< a CUDA call failed while uploading the chain
};

[[nodiscard]] const char* toString(MarkovError error) noexcept;

/// A transition matrix stored row-wise in ELL form, fixed at init: every row r has exactly
/// `entriesPerRow` slots; slot k of row r is at k·rows + r (slot-major, so consecutive rows are
/// consecutive in memory). Unused slots hold column r and value 0. Column sums are 1 (to float
/// rounding): the matrix maps a probability vector to a probability vector.
struct SparseTransition {
    int rows{0};
    int entriesPerRow{0};
    std::vector<std::int32_t> column;
    std::vector<float> value;
};

/// Υ(τ) and Υ([0, τ]) in their translation-invariant gather form. Along s the dynamics do not depend on
/// the position, so every row of both matrices is a shift of one row per (i_v, j): target state
/// (i_s, i_v, j) takes, for each slot e of its (i_v, j), the mass of the source (i_s − shift, sourceSpeed,
/// j) with weight stepWeight (Υ(τ)) and intervalWeight (Υ([0, τ])); sources with i_s − shift < 0 do not
/// exist. The last position cell absorbs: target (n_s − 1, i_v, j) takes every source i_s' ≥
/// n_s − 1 − shift of the slot. Slot e of (i_v, j) is at index (i_v·n_a + j)·entriesPerRow + e; unused
/// slots hold shift 0, the row's own speed cell and weights 0. Equals the ELL matrices up to the float
/// rounding of merged entries (tested); the CUDA path propagates with it.
struct ShiftStencil {
    int entriesPerRow{0};
    int maxShift{0};   ///< largest shift, position cells
    int minShift{0};   ///< smallest shift (≥ 0: mass never moves backwards)
    std::vector<std::int32_t> shift;
    std::vector<std::int32_t> sourceSpeed;
    std::vector<float> stepWeight;
    std::vector<float> intervalWeight;
};

/// Υ(τ) and Υ([0, τ]) for one ChainConfig.
class MarkovChain {
public:
    /// Builds both matrices by sampling each (s, v) cell for every input: S speed midpoints (one, v = 0,
    /// for standstill), each integrated with Eq. (1) over τ (Υ(τ): where the cell lands at τ) and to
    /// `intervalSamples` midpoints of [0, τ] (Υ([0, τ]): the fraction of the step spent in each cell).
    /// Along s the dynamics do not depend on the position inside the cell, so the uniform position is
    /// integrated exactly (the displaced cell split over the two cells it overlaps) rather than sampled.
    /// Init phase: allocates; O(n_s·n_v·n_a·S·T).
    /// Measured ≤ 1 s at the default size (docs/benchmarks.md).
    [[nodiscard]] static Result<MarkovChain, MarkovError> build(const ChainConfig& config);

    [[nodiscard]] const ChainConfig& config() const noexcept { return m_config; }
    [[nodiscard]] const SparseTransition& stepTransition() const noexcept { return m_step; }
    [[nodiscard]] const SparseTransition& intervalTransition() const noexcept { return m_interval; }
    /// Both matrices as one shift stencil (see ShiftStencil).
    [[nodiscard]] const ShiftStencil& stencil() const noexcept { return m_stencil; }
    [[nodiscard]] int cellCount() const noexcept { return m_config.positionCells * m_config.speedCells; }
    [[nodiscard]] int stateCount() const noexcept { return cellCount() * m_config.inputCells; }

private:
    ChainConfig m_config{};
    SparseTransition m_step;
    SparseTransition m_interval;
    ShiftStencil m_stencil;
};

/// Validates a ChainConfig (the checks MarkovChain::build makes first).
[[nodiscard]] Result<void, MarkovError> validate(const ChainConfig& config) noexcept;

// --- the cell geometry and the dynamics, shared by the CPU reference and the CUDA kernels ----------

/// Δs in metres.
AUGUR_MARKOV_HD float positionCellSize_m(const ChainConfig& c) { return c.positionMax_m / static_cast<float>(c.positionCells); }
/// Δv in m/s.
AUGUR_MARKOV_HD float speedCellSize_mps(const ChainConfig& c) { return c.speedMax_mps / static_cast<float>(c.speedCells - 1); }

/// u_j ∈ [−1, 1] of input index j.
AUGUR_MARKOV_HD float inputValue(int j, int inputCells) {
    return inputCells == 1 ? 0.0F : -1.0F + 2.0F * static_cast<float>(j) / static_cast<float>(inputCells - 1);
}

/// Centre of position cell i_s, metres.
AUGUR_MARKOV_HD float positionCellCentre_m(int is, const ChainConfig& c) {
    return (static_cast<float>(is) + 0.5F) * positionCellSize_m(c);
}
/// Representative speed of speed cell i_v (0 for standstill, the interval's centre otherwise), m/s.
AUGUR_MARKOV_HD float speedCellCentre_mps(int iv, const ChainConfig& c) {
    return iv == 0 ? 0.0F : (static_cast<float>(iv) - 0.5F) * speedCellSize_mps(c);
}

/// Far (upper) edge of position cell i_s, metres.
AUGUR_MARKOV_HD float positionCellUpper_m(int is, const ChainConfig& c) {
    return static_cast<float>(is + 1) * positionCellSize_m(c);
}
/// Upper edge of speed cell i_v (0 for standstill), m/s.
AUGUR_MARKOV_HD float speedCellUpper_mps(int iv, const ChainConfig& c) {
    return static_cast<float>(iv) * speedCellSize_mps(c);
}

/// Position cell of s (clamped into [0, n_s − 1]).
AUGUR_MARKOV_HD int positionCellOf(float s_m, const ChainConfig& c) {
    const int is = static_cast<int>(s_m / positionCellSize_m(c));
    return is < 0 ? 0 : (is >= c.positionCells ? c.positionCells - 1 : is);
}
/// Speed cell of v: 0 when v ≤ 0, else ⌈v / Δv⌉ clamped into [1, n_v − 1].
AUGUR_MARKOV_HD int speedCellOf(float v_mps, const ChainConfig& c) {
    if (v_mps <= 0.0F) {
        return 0;
    }
    const float x = v_mps / speedCellSize_mps(c);
    int iv = static_cast<int>(x);
    if (static_cast<float>(iv) < x) {
        ++iv;
    }
    return iv < 1 ? 1 : (iv >= c.speedCells ? c.speedCells - 1 : iv);
}

/// Position and speed after time t_s under constant acceleration accel_mps2 with the speed held in
/// [0, v_max] (Eq. (1)). Exact (piecewise quadratic).
struct Motion {
    float s_m;
    float v_mps;
};
AUGUR_MARKOV_HD Motion integrateMotion(float s_m, float v_mps, float accel_mps2, float t_s, float speedMax_mps) {
    float tSaturate_s = t_s;
    float bound_mps = v_mps;
    if (accel_mps2 > 0.0F) {
        tSaturate_s = (speedMax_mps - v_mps) / accel_mps2;
        bound_mps = speedMax_mps;
    } else if (accel_mps2 < 0.0F) {
        tSaturate_s = v_mps / -accel_mps2;
        bound_mps = 0.0F;
    }
    if (tSaturate_s < 0.0F) {
        tSaturate_s = 0.0F;
    }
    if (accel_mps2 == 0.0F || t_s <= tSaturate_s) {
        return {s_m + v_mps * t_s + 0.5F * accel_mps2 * t_s * t_s, v_mps + accel_mps2 * t_s};
    }
    const float sSaturate_m = s_m + v_mps * tSaturate_s + 0.5F * accel_mps2 * tSaturate_s * tSaturate_s;
    return {sSaturate_m + bound_mps * (t_s - tSaturate_s), bound_mps};
}

}  // namespace augur::kernels::markov
