// The input transition Γ(t_k) = diag(λ)·ψ of the Markov chain (Hortelano et al. 2023, Sec. 4.3.1,
// Eqs. (3)-(4)): the priority vector λ built from the road and the other vehicles, the intrinsic input
// dynamics ψ_sub, and the seed's memory-aligned combination Γ_i = λ_⌊i/n_a⌋ · ψ_sub[i mod n_a²].
//
// λ's rules and units are written down in docs/design/motion-prediction.md. In short, for a cell
// represented by its far corner (the largest position s (m) and speed v (m/s) in it, so a rule that
// holds there holds for the whole cell) at time t (s), input j with acceleration a_j:
// the state one step τ later under a_j is (s', v') (Eq. (1)), and
//   speed limit  : λ = 0 when u_j ≥ 0 and max(v, v') > speedLimit;
//   expected stop: λ ×= (1 − P_stop) when s < d_stop and s' + v'² / (2·comfortDecel) > d_stop;
//   gap ahead    : λ = 0 when s' + minGap + headway·v' + v'²/(2·comfortDecel)
//                  > leadGap + leadSpeed·(t + τ) + leadSpeed²/(2·a_max);
// and λ = 1 otherwise. The strongest braking input (j = 0) always keeps λ = 1.
// Column renormalisation: Γ_c[u, u'] = λ_u ψ[u, u'] / Σ_w λ_w ψ[w, u'], and where that sum is 0 the
// column becomes "brake" (all mass to j = 0), so every column of Γ sums to 1.
#pragma once

#include <cstdint>
#include <limits>
#include <span>

#include "augur/kernels/markov/chain.hpp"
#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::markov {

/// ψ_sub, the n_a × n_a input dynamics shared by every (s, v) cell; row-major, column-stochastic:
/// psi[u·n_a + u'] = P(next input u | input u'). Only the first n_a² entries are used.
struct InputDynamics {
    float psi[MAX_INPUT_CELLS * MAX_INPUT_CELLS]{};
};

/// ψ_sub = identity (inputs never change).
[[nodiscard]] InputDynamics identityInputDynamics(int inputCells) noexcept;
/// ψ_sub that keeps the input with probability `stay` and moves to each neighbouring input with
/// equal share of the rest (the band a driver's pedal moves in one step); column-stochastic.
[[nodiscard]] InputDynamics bandedInputDynamics(int inputCells, float stay) noexcept;

/// ψ_sub that keeps the input with probability `stay` and reaches every other input with an equal
/// share of the rest (full support: a renormalised λ can move mass to any input); column-stochastic.
[[nodiscard]] InputDynamics mixingInputDynamics(int inputCells, float stay) noexcept;

/// Parameters of the λ rules common to all vehicles.
struct PriorityRules {
    float comfortDecel_mps2{3.0F};  ///< deceleration a driver plans a stop with
    float minGap_m{2.0F};           ///< standstill distance kept to the vehicle ahead
    float headway_s{0.5F};          ///< reaction time before braking for the vehicle ahead
};

inline constexpr float NO_LIMIT = std::numeric_limits<float>::infinity();

/// What the road and the other vehicles impose on one vehicle along one corridor. Distances are arc
/// length along the corridor from the vehicle's position at t0 (s = 0).
struct CorridorConstraints {
    float speedLimit_mps{NO_LIMIT};
    float stopProbability{0.0F};     ///< P(the vehicle stops at stopDistance), from the intention filter
    float stopDistance_m{NO_LIMIT};  ///< stop line / stop point
    float leadGap_m{NO_LIMIT};       ///< rear of the vehicle ahead (same or conflicting corridor) at t0
    float leadSpeed_mps{0.0F};       ///< its speed along this corridor, assumed constant
};

/// λ for input j in a cell represented by (s_m, v_mps) at time time_s (the rules above). In [0, 1].
AUGUR_MARKOV_HD float priority(float s_m, float v_mps, int j, float time_s, const CorridorConstraints& k,
                               const PriorityRules& rules, const ChainConfig& c) {
    if (j == 0) {
        return 1.0F;
    }
    const float u = inputValue(j, c.inputCells);
    const Motion next = integrateMotion(s_m, v_mps, c.accelMax_mps2 * u, c.step_s, c.speedMax_mps);
    float lambda = 1.0F;
    if (u >= 0.0F && (v_mps > k.speedLimit_mps || next.v_mps > k.speedLimit_mps)) {
        lambda = 0.0F;
    }
    if (k.stopProbability > 0.0F && s_m < k.stopDistance_m &&
        next.s_m + next.v_mps * next.v_mps / (2.0F * rules.comfortDecel_mps2) > k.stopDistance_m) {
        lambda *= 1.0F - k.stopProbability;
    }
    // Safe distance (after RSS): the follower reacts within the headway and brakes comfortably, the
    // lead may brake with a_max.
    const float leadAhead_m = k.leadGap_m + k.leadSpeed_mps * (time_s + c.step_s) +
                              k.leadSpeed_mps * k.leadSpeed_mps / (2.0F * c.accelMax_mps2);
    const float followerNeeds_m = rules.minGap_m + rules.headway_s * next.v_mps +
                                  next.v_mps * next.v_mps / (2.0F * rules.comfortDecel_mps2);
    if (next.s_m + followerNeeds_m > leadAhead_m) {
        lambda = 0.0F;
    }
    return lambda;
}

/// Γ's block for one cell: gamma[u·n_a + u'] from lambda[0 … n_a) and ψ_sub, columns renormalised
/// (falls back to "brake" where a column's weight is 0). Allocation-free, O(n_a²).
AUGUR_MARKOV_HD void inputTransitionBlock(const float* lambda, const float* psi, int na, float* gamma) {
    for (int up = 0; up < na; ++up) {
        float sum = 0.0F;
        for (int u = 0; u < na; ++u) {
            sum += lambda[u] * psi[u * na + up];
        }
        if (sum > 0.0F) {
            const float inv = 1.0F / sum;
            for (int u = 0; u < na; ++u) {
                gamma[u * na + up] = lambda[u] * psi[u * na + up] * inv;
            }
        } else {
            for (int u = 0; u < na; ++u) {
                gamma[u * na + up] = u == 0 ? 1.0F : 0.0F;
            }
        }
    }
}

namespace cpu {

/// λ for every state of one corridor at time time_s: lambda[r], r = (i_s·n_v + i_v)·n_a + j, evaluated
/// at the cell's far corner (positionCellUpper_m, speedCellUpper_mps). lambda.size() ≥ n. Run phase: noexcept, allocation-free, O(n).
void priorityVector(const ChainConfig& chain, const CorridorConstraints& constraints, const PriorityRules& rules,
                    float time_s, std::span<float> lambda) noexcept;

/// The seed's combination (Eq. (4)): gamma[i] = lambda[⌊i/n_a⌋]·ψ_sub[i mod n_a²] for i < cells·n_a²,
/// i.e. Γ's non-zeros in block-row-major order (block c, row u, column u'). With `renormalise`, each
/// block column is divided by its sum as in inputTransitionBlock. Run phase: noexcept, allocation-free.
void combineInputTransition(std::span<const float> lambda, const InputDynamics& psi, int inputCells, int cells,
                            std::span<float> gamma, bool renormalise) noexcept;

}  // namespace cpu

namespace cuda {

/// CUDA path of cpu::priorityVector: lambda (device, ≥ n floats) for one corridor. Run phase: one kernel.
[[nodiscard]] platform::GpuStatus priorityVector(const ChainConfig& chain, const CorridorConstraints& constraints,
                                                 const PriorityRules& rules, float time_s, float* lambda,
                                                 platform::StreamHandle stream) noexcept;

/// CUDA path of cpu::combineInputTransition; lambda and gamma are device pointers. One thread per
/// non-zero of Γ writing consecutive addresses, ψ_sub in shared memory. Run phase: enqueues one kernel.
[[nodiscard]] platform::GpuStatus combineInputTransition(const float* lambda, const InputDynamics& psi, int inputCells,
                                                         int cells, float* gamma, bool renormalise,
                                                         platform::StreamHandle stream) noexcept;

}  // namespace cuda

}  // namespace augur::kernels::markov
