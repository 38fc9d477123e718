// The input transition Γ(t_k) = diag(λ)·ψ of the Markov chain (Hortelano et al. 2023, Sec. 4.3.1,
// Eqs. (3)-(4)): the priority vector λ built from the road and the other vehicles, the intrinsic input
// dynamics ψ_sub, and the seed's memory-aligned combination Γ_i = λ_⌊i/n_a⌋ · ψ_sub[i mod n_a²].
//
// λ's rules and units are written down in docs/design/motion-prediction.md. In short, for a cell
// represented by its far corner (the largest position s (m) and speed v (m/s) in it, so a rule that
// holds there holds for the whole cell; with RuleSpeed::Typical the cell moves at its representative
// speed and keeps the distances of its slowest) at time t (s), input j with acceleration a_j:
// the state one step τ later under a_j is (s', v') (Eq. (1)), and
//   speed limit  : λ = 0 when u_j > 0 and max(v, v') > the limit at s (holding the speed stays allowed);
//   lower limit ahead, from d_i on: λ = 0 when s < d_i, v' > L_i and s' + (v'² − L_i²)/(2·comfortDecel) > d_i
//                  (a driver slows comfortably for a slower stretch, e.g. a turn through a junction);
//   expected stop: λ ×= (1 − P_stop) when s < d_stop and s' + v'² / (2·comfortDecel) > d_stop;
//   gap ahead    : λ = 0 when s' + minGap + headway·v' + v'²/(2·comfortDecel)
//                  > leadGap + leadSpeed·(t + τ) + leadSpeed²/(2·leadDecel)  (leadDecel 0: a_max);
// and λ = 1 otherwise. The strongest braking input (j = 0) always keeps λ = 1 under these rules.
//   free road    : a driver below the desired speed v0(s) = f·L(s) tends to it as the Intelligent Driver
//                  Model's free-road term says (Treiber, Hennecke and Helbing 2000), f the vehicle's speed
//                  over the limit that binds it at t0 (CorridorConstraints::desiredSpeedFactor: drivers keep
//                  their chosen fraction of the limit, so a limit that rises ahead, after a turn or onto a
//                  faster road, is a reason to speed up; a driver cruising below the limit is not pulled up
//                  to it). The urge
//                      w = 1 − (v/v0)^δ − (s*(v, v − v_lead) / gap_lead)² − P_stop·(s*(v, v) / gap_stop)²,
//                  s*(v, Δv) = minGap + v·T + v·Δv / (2·√(a·comfortDecel)), gaps from the cell (s) to the rear
//                  of the vehicle ahead at t and to the stop point (a red light or a stop is a standing
//                  vehicle there, weighted by P_stop; no minGap), T the desired headway, a the gentlest
//                  accelerating input; every input that does not accelerate, j = 0 included, gets
//                  λ ×= 1 − λ_probe·w⁺, λ_probe the λ of the gentlest accelerating input in the same cell (0
//                  where a rule above forbids speeding up). The urge is judged at the cell's far corner, and
//                  only where v0 is above the vehicle's speed at t0 (a vehicle at its desired speed is spread
//                  over the two speed cells around it; pushing the slower one up would make it creep). Moving
//                  cells of vehicles that move at t0 only (CorridorConstraints::standing); δ = 0 turns the
//                  rule off.
//   press        : the driver acts on the urge: from every input that does not accelerate, a share
//                  π = λ_probe·(1 − exp(−w⁺·τ/pressReaction_s)) of the mass goes to the gentlest accelerating
//                  input each step, on top of ψ_sub (which leaves cruise only every few tens of seconds). This
//                  is a per-cell change of the input dynamics, not a weight: λ only re-weights the inputs ψ_sub
//                  proposes. pressReaction_s = 0 turns it off.
// Column renormalisation: Γ_c[u, u'] = λ_u ψ[u, u'] / Σ_w λ_w ψ[w, u'], and where that sum is 0 the
// column becomes "brake" (all mass to j = 0), so every column of Γ sums to 1. With the press, the columns of
// the inputs that do not accelerate are (1 − π)·Γ_c[·, u'] + π·e_probe, still stochastic.
#pragma once

#include <cmath>
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

/// ψ_sub of a driver who holds speed unless something makes them change it, and releases a pedal
/// after a while (docs/design/motion-prediction.md, "ψ_sub"), per step:
///   * from the cruise input (the input of smallest |u|; with an even n_a the two middle ones): to each
///     neighbouring input with probability `depart` / (number of neighbours), else stay;
///   * from an input k inputs away from cruise: back to (the nearer) cruise input with probability
///     min(1, k²·`relax`), else stay (a hard input is a brief one: emergency braking lasts a moment, a
///     gentle acceleration seconds);
///   * mixed with weight `surprise` with the uniform ψ (every input reachable from every input, so that
///     a renormalised λ can always move mass to the braking inputs the rules leave allowed).
/// Column-stochastic. Preconditions: depart, relax, surprise in [0, 1].
[[nodiscard]] InputDynamics relaxingInputDynamics(int inputCells, float depart, float relax, float surprise) noexcept;

/// The speed at which the λ rules judge a speed cell (the cell is given by its far corner).
enum class RuleSpeed : std::uint8_t {
    /// The far corner, the cell's fastest speed: a rule that holds there holds for every speed in the cell
    /// (conservative; the reachable-set use of the chain).
    FarCorner,
    /// Typical behaviour, for predicting where a vehicle will be: the cell's mass moves (and meets the speed
    /// limit) at its representative speed (speedCellCentre_mps), and the distances a driver keeps (headway,
    /// comfortable braking distance) are those of the cell's slowest speed. A vehicle's speed is spread over
    /// the two cells around it (initialSpeedProbability), so the faster of the two moves up to a cell width
    /// faster than the vehicle; asking it for the distances of its own speed (let alone of the far corner)
    /// brakes that part of a vehicle that in fact follows its lead at a safe distance, and with 4 m/s cells
    /// the predicted mean falls behind by metres. The cost: mass that does close in brakes later and harder.
    Typical,
};

/// Parameters of the λ rules common to all vehicles.
struct PriorityRules {
    float comfortDecel_mps2{3.0F};  ///< deceleration a driver plans a stop with
    float minGap_m{2.0F};           ///< standstill distance kept to the vehicle ahead
    float headway_s{0.5F};          ///< reaction time before braking for the vehicle ahead
    RuleSpeed speed{RuleSpeed::FarCorner};
    float freeRoadExponent{0.0F};   ///< δ of the free-road rule (IDM: 4); 0: no free-road rule
    float desiredHeadway_s{1.0F};   ///< T of the free-road rule: the time gap a driver closes up to
    /// How soon a driver with the full urge to speed up presses the accelerator (s): the press's rate is
    /// w⁺ / pressReaction_s. 0: no press (the urge only re-weights what ψ_sub proposes).
    float pressReaction_s{0.0F};
};

inline constexpr float NO_LIMIT = std::numeric_limits<float>::infinity();

/// Changes of the speed limit along a corridor after its first stretch (CorridorConstraints).
inline constexpr int MAX_SPEED_LIMIT_CHANGES = 3;

/// What the road and the other vehicles impose on one vehicle along one corridor. Distances are arc
/// length along the corridor from the vehicle's position at t0 (s = 0).
struct CorridorConstraints {
    float speedLimit_mps{NO_LIMIT};
    float stopProbability{0.0F};     ///< P(the vehicle stops at stopDistance), from the intention filter
    float stopDistance_m{NO_LIMIT};  ///< stop line / stop point
    float leadGap_m{NO_LIMIT};       ///< rear of the vehicle ahead (same or conflicting corridor) at t0
    float leadSpeed_mps{0.0F};       ///< its speed along this corridor at t0
    /// Its acceleration (m/s²), kept until it stands or reaches the fastest limit on the corridor (leadAt);
    /// 0: it keeps its speed.
    float leadAccel_mps2{0.0F};
    /// Deceleration the vehicle ahead is assumed to stop with (m/s², > 0); 0: a_max (the worst case).
    /// Predicting typical behaviour, the caller gives the follower's own comfortable deceleration: a
    /// follower at the lead's speed then keeps minGap + headway·v, as car-following models do.
    float leadDecel_mps2{0.0F};
    /// Where the speed limit changes: from limitFrom_m[i] on it is limitAfter_mps[i] (speedLimit_mps
    /// before the first change). Ascending; unused entries NO_LIMIT.
    float limitFrom_m[MAX_SPEED_LIMIT_CHANGES]{NO_LIMIT, NO_LIMIT, NO_LIMIT};
    float limitAfter_mps[MAX_SPEED_LIMIT_CHANGES]{NO_LIMIT, NO_LIMIT, NO_LIMIT};
    /// The vehicle stands at t0 and is not starting: the free-road rule does not apply to it (it starts
    /// when its intention or its tracked acceleration says so; the rare unexplained departures of ψ_sub
    /// from standstill are not pushed on).
    bool standing{false};
    /// The vehicle's speed at t0: the free-road rule pushes only where its desired speed is above it.
    float startSpeed_mps{0.0F};
    /// The free-road rule's f: the vehicle's speed over the limit that binds it at t0 (bindingLimit_mps; its
    /// driver's chosen fraction of the limit), so that its desired speed at s is f · (the limit at s).
    float desiredSpeedFactor{1.0F};
    /// The hardest the vehicle's class speeds up (m/s², > 0; a bus or a truck): from startSpeed_mps it is no
    /// faster at t than startSpeed_mps + topAccel_mps2·t (StepBounds). 0: no bound, the inputs' (a car).
    float topAccel_mps2{0.0F};
};

/// The fastest speed at s = 0 from which a driver can still slow comfortably (comfortDecel_mps2) to every
/// limit ahead: min(v_lim(0), min_i √(L_i² + 2·comfortDecel·d_i)). A driver approaching a turn drives no faster
/// than this whatever speed they wish for (the lower-limit-ahead rule), so it is the limit their speed now
/// is a fraction of.
AUGUR_MARKOV_HD float bindingLimit_mps(const CorridorConstraints& k, float comfortDecel_mps2) {
    float binding = k.speedLimit_mps;
    for (int i = 0; i < MAX_SPEED_LIMIT_CHANGES; ++i) {
        const float reach_mps2 = 2.0F * comfortDecel_mps2 * (k.limitFrom_m[i] > 0.0F ? k.limitFrom_m[i] : 0.0F);
        const float slowing = sqrtf(k.limitAfter_mps[i] * k.limitAfter_mps[i] + reach_mps2);
        binding = slowing < binding ? slowing : binding;
    }
    return binding;
}

/// The parts of λ that depend on the cell's speed and the input only (not on s, not on t, not on the
/// corridor): computed once per (i_v, j), then combined with each cell's position and the corridor's
/// constraints by priorityAt.
struct PriorityTerms {
    bool exempt{true};            ///< j = 0, the strongest braking input: λ = 1 always
    bool accelerates{false};      ///< u_j > 0: the speed limit rule applies
    float fastest_mps{0.0F};      ///< max(v, v') the speed limit is judged by
    float nextSpeed_mps{0.0F};    ///< v' the distances are judged by
    float displacement_m{0.0F};   ///< s' − s over τ under a_j (Eq. (1))
    float stopReach_m{0.0F};      ///< v'² / (2·comfortDecel): a comfortable stop from v' ends this far beyond s'
    float followerNeeds_m{0.0F};  ///< minGap + headway·v' + v'² / (2·comfortDecel)
};

/// The speed at which a cell moves and meets the speed limit (RuleSpeed): its far corner `v_mps`, or with
/// RuleSpeed::Typical its representative speed (the far corner less half a cell). 0 for standstill.
AUGUR_MARKOV_HD float movingSpeed_mps(float v_mps, const PriorityRules& rules, const ChainConfig& c) {
    const float half_mps = 0.5F * speedCellSize_mps(c);
    return rules.speed != RuleSpeed::Typical ? v_mps : (v_mps > half_mps ? v_mps - half_mps : 0.0F);
}

/// The gentlest accelerating input (the free-road rule's probe); inputCells when there is none.
AUGUR_MARKOV_HD constexpr int gentlestAcceleration(int inputCells) { return inputCells < 2 ? inputCells : (inputCells + 1) / 2; }

/// `v_mps` is the cell's far-corner speed (speedCellUpper_mps); see RuleSpeed.
AUGUR_MARKOV_HD PriorityTerms priorityTerms(float v_mps, int j, const PriorityRules& rules, const ChainConfig& c) {
    PriorityTerms terms;
    if (j == 0) {
        return terms;
    }
    terms.exempt = false;
    const float u = inputValue(j, c.inputCells);
    const float accel_mps2 = c.accelMax_mps2 * u;
    // The speeds the rules see (RuleSpeed): the far corner for all; or the representative speed (the far
    // corner less half a cell: how far the cell's mass moves, and the speed limit) and the slowest (less a
    // cell) for the distances a driver keeps (headway, braking distance).
    const bool typical = rules.speed == RuleSpeed::Typical;
    const float cell_mps = speedCellSize_mps(c);
    const float vMoves = movingSpeed_mps(v_mps, rules, c);
    const float vKeeps = !typical ? v_mps : (v_mps > cell_mps ? v_mps - cell_mps : 0.0F);
    const Motion moves = integrateMotion(0.0F, vMoves, accel_mps2, c.step_s, c.speedMax_mps);
    terms.accelerates = u > 0.0F;
    terms.fastest_mps = vMoves > moves.v_mps ? vMoves : moves.v_mps;
    terms.displacement_m = moves.s_m;
    const Motion next = typical ? integrateMotion(0.0F, vKeeps, accel_mps2, c.step_s, c.speedMax_mps) : moves;
    const float brake_m = next.v_mps * next.v_mps / (2.0F * rules.comfortDecel_mps2);
    terms.nextSpeed_mps = next.v_mps;
    terms.stopReach_m = brake_m;
    // Safe distance (after RSS): the follower reacts within the headway and brakes comfortably.
    terms.followerNeeds_m = rules.minGap_m + rules.headway_s * next.v_mps + brake_m;
    return terms;
}

/// Where the vehicle ahead is at time_s: its rear (m along the corridor) and its speed.
struct LeadState {
    float rear_m{NO_LIMIT};
    float speed_mps{0.0F};
};

/// The vehicle ahead at time_s: it keeps its acceleration leadAccel_mps2 until it stands or reaches the
/// fastest limit on the corridor (the most it would speed up to), then holds that speed; without an
/// acceleration it keeps its speed. A lead leaving a turn or a queue speeds up too, and a follower held
/// behind a lead taken to keep its speed falls back by metres within the horizon.
AUGUR_MARKOV_HD LeadState leadAt(float time_s, const CorridorConstraints& k) {
    const float a = k.leadAccel_mps2;
    const float v0 = k.leadSpeed_mps;
    if (!(a > 0.0F) && !(a < 0.0F)) {
        return LeadState{k.leadGap_m + v0 * time_s, v0};
    }
    float top = k.speedLimit_mps;
    for (int i = 0; i < MAX_SPEED_LIMIT_CHANGES; ++i) {
        top = k.limitAfter_mps[i] < NO_LIMIT && k.limitAfter_mps[i] > top ? k.limitAfter_mps[i] : top;
    }
    const float target = a > 0.0F ? (top > v0 ? top : v0) : 0.0F;
    const float reach_s = (target - v0) / a;  // ≥ 0; infinite without a limit
    const float t = time_s < reach_s ? time_s : reach_s;
    const float v = v0 + a * t;
    return LeadState{k.leadGap_m + v0 * t + 0.5F * a * t * t + v * (time_s - t), v};
}

/// What the rules need of one step that depends on its time and the corridor only, not on the cell
/// (stepBounds): computed once per corridor and step, not per cell.
struct StepBounds {
    /// The gap rule's bound, metres: where the rear of the vehicle ahead is at time_s + τ (leadAt) plus its
    /// stopping distance from its speed then under leadDecel (a_max when 0).
    float leadReach_m{NO_LIMIT};
    /// The fastest the vehicle's class can be at time_s + τ (CorridorConstraints::topAccel_mps2): no input
    /// accelerates a cell beyond it. NO_LIMIT without a bound.
    float reachableSpeed_mps{NO_LIMIT};
    /// The vehicle ahead at time_s, for the free-road rule's gap (freeRoadUrge).
    LeadState lead{};
};

/// StepBounds of the step that starts at time_s.
AUGUR_MARKOV_HD StepBounds stepBounds(float time_s, const CorridorConstraints& k, const ChainConfig& c) {
    const float decel = k.leadDecel_mps2 > 0.0F ? k.leadDecel_mps2 : c.accelMax_mps2;
    const float end_s = time_s + c.step_s;
    const LeadState lead = leadAt(end_s, k);
    StepBounds bounds;
    bounds.leadReach_m = lead.rear_m + lead.speed_mps * lead.speed_mps / (2.0F * decel);
    bounds.lead = leadAt(time_s, k);
    if (k.topAccel_mps2 > 0.0F) {
        bounds.reachableSpeed_mps = k.startSpeed_mps + k.topAccel_mps2 * end_s;
    }
    return bounds;
}

/// The speed limit at corridor position s_m.
AUGUR_MARKOV_HD float limitAt_mps(float s_m, const CorridorConstraints& k) {
    float limit = k.speedLimit_mps;
    for (int i = 0; i < MAX_SPEED_LIMIT_CHANGES; ++i) {
        if (s_m >= k.limitFrom_m[i]) {
            limit = k.limitAfter_mps[i];
        }
    }
    return limit;
}

/// λ of a cell whose far corner is at s_m, from its PriorityTerms and the step's StepBounds (every rule but
/// the free-road rule, which needs the probe's λ: freeRoadFactor).
AUGUR_MARKOV_HD float priorityAt(const PriorityTerms& terms, float s_m, const StepBounds& bounds,
                                 const CorridorConstraints& k) {
    if (terms.exempt) {
        return 1.0F;
    }
    const float nextS_m = s_m + terms.displacement_m;
    float lambda = 1.0F;
    // The speed limit where the cell is, and comfortable slowing for a lower limit ahead: from v' to L
    // takes (v'² − L²)/(2·comfortDecel) = stopReach · (1 − (L/v')²).
    float limit = k.speedLimit_mps;
    for (int i = 0; i < MAX_SPEED_LIMIT_CHANGES; ++i) {
        if (s_m >= k.limitFrom_m[i]) {
            limit = k.limitAfter_mps[i];
        } else if (terms.nextSpeed_mps > k.limitAfter_mps[i]) {
            const float ratio = k.limitAfter_mps[i] / terms.nextSpeed_mps;
            if (nextS_m + terms.stopReach_m * (1.0F - ratio * ratio) > k.limitFrom_m[i]) {
                lambda = 0.0F;
            }
        }
    }
    // Neither over the limit nor faster than the class can be by then.
    if (terms.accelerates && (terms.fastest_mps > limit || terms.fastest_mps > bounds.reachableSpeed_mps)) {
        lambda = 0.0F;
    }
    if (k.stopProbability > 0.0F && s_m < k.stopDistance_m && nextS_m + terms.stopReach_m > k.stopDistance_m) {
        lambda *= 1.0F - k.stopProbability;
    }
    if (nextS_m + terms.followerNeeds_m > bounds.leadReach_m) {
        lambda = 0.0F;
    }
    return lambda;
}

/// The free-road rule's urge w⁺ ∈ [0, 1] of a cell whose far corner (its fastest speed) is `v_mps`, at s_m
/// in the step of `bounds` (the rule above). The rule judges the far corner, and only where the desired
/// speed is above the vehicle's speed at t0 (CorridorConstraints::startSpeed_mps): a vehicle at its desired
/// speed is spread over the two speed cells around it (initialSpeedProbability), and pushing the slower of
/// the two up would make it creep; a cell is pushed up when the speed it reaches in the next cell is nearer
/// the desired speed than its own. 0 when the rule does not apply (off, standstill, a standing vehicle) and where a rule forbids
/// speeding up (probeLambda = 0: the λ of the gentlest accelerating input).
AUGUR_MARKOV_HD float freeRoadUrge(float v_mps, float probeLambda, float s_m, const StepBounds& bounds,
                                   const CorridorConstraints& k, const PriorityRules& rules, const ChainConfig& c) {
    const float desired = k.desiredSpeedFactor * limitAt_mps(s_m, k);
    const float v = v_mps;
    if (k.standing || !(rules.freeRoadExponent > 0.0F) || !(v > 0.0F) || !(v < desired) || !(desired > k.startSpeed_mps) ||
        !(desired < NO_LIMIT) || !(probeLambda > 0.0F)) {
        return 0.0F;
    }
    const float accel_mps2 = c.accelMax_mps2 * inputValue(gentlestAcceleration(c.inputCells), c.inputCells);
    const float brakeTerm = v / (2.0F * sqrtf(accel_mps2 * rules.comfortDecel_mps2));
    float urge = 1.0F - powf(v / desired, rules.freeRoadExponent);
    if (k.leadGap_m < NO_LIMIT) {
        const LeadState& lead = bounds.lead;
        const float gap = lead.rear_m - s_m;
        const float wanted = rules.minGap_m + v * rules.desiredHeadway_s + brakeTerm * (v - lead.speed_mps);
        urge = gap > 0.0F ? urge - (wanted > 0.0F ? wanted * wanted / (gap * gap) : 0.0F) : 0.0F;
    }
    if (k.stopProbability > 0.0F && k.stopDistance_m < NO_LIMIT && s_m < k.stopDistance_m) {
        const float gap = k.stopDistance_m - s_m;
        const float wanted = v * rules.desiredHeadway_s + brakeTerm * v;
        urge -= k.stopProbability * wanted * wanted / (gap * gap);
    }
    return urge > 0.0F ? urge : 0.0F;
}

/// The free-road rule's factor for the inputs of a cell that do not accelerate: 1 − λ_probe·w⁺.
AUGUR_MARKOV_HD float freeRoadFactor(float urge, float probeLambda) { return 1.0F - probeLambda * urge; }

/// The press: the share of the mass on each input that does not accelerate that moves to the gentlest
/// accelerating input in one step, π = λ_probe·(1 − exp(−w⁺·τ/pressReaction_s)); 0 without a press.
AUGUR_MARKOV_HD float pressProbability(float urge, float probeLambda, const PriorityRules& rules,
                                       const ChainConfig& c) {
    if (!(rules.pressReaction_s > 0.0F) || !(urge > 0.0F)) {
        return 0.0F;
    }
    return probeLambda * (1.0F - expf(-urge * c.step_s / rules.pressReaction_s));
}

/// The free-road rule on a cell's λ (lambda[0 … n_a), from priorityAt with `terms`): the inputs that do not
/// accelerate are weighted by freeRoadFactor with the probe's λ of the same cell. `v_mps` is the cell's far
/// corner (speedCellUpper_mps; 0: standstill, the rule does not apply). Returns the cell's press
/// (pressProbability) for inputTransitionBlock. Used wherever a whole cell's λ is at hand (the CPU reference,
/// the resident CUDA path); priority() gives the same λ for one input.
AUGUR_MARKOV_HD float applyFreeRoad(float* lambda, const PriorityTerms* terms, int na, float v_mps, float s_m,
                                    const StepBounds& bounds, const CorridorConstraints& k, const PriorityRules& rules,
                                    const ChainConfig& c) {
    const int probe = gentlestAcceleration(na);
    if (!(v_mps > 0.0F) || probe >= na || !(rules.freeRoadExponent > 0.0F)) {
        return 0.0F;
    }
    const float probeLambda = lambda[probe];
    const float urge = freeRoadUrge(v_mps, probeLambda, s_m, bounds, k, rules, c);
    const float free = freeRoadFactor(urge, probeLambda);
    for (int j = 0; j < na; ++j) {
        lambda[j] *= terms[j].accelerates ? 1.0F : free;
    }
    return pressProbability(urge, probeLambda, rules, c);
}

/// λ for input j in a cell represented by (s_m, v_mps) in the step of `bounds` (stepBounds; the rules above,
/// the free-road rule included). In [0, 1]. The state after τ is s' = s + displacement (the dynamics do not
/// depend on s).
AUGUR_MARKOV_HD float priority(float s_m, float v_mps, int j, const StepBounds& bounds, const CorridorConstraints& k,
                               const PriorityRules& rules, const ChainConfig& c) {
    const PriorityTerms terms = priorityTerms(v_mps, j, rules, c);
    float lambda = priorityAt(terms, s_m, bounds, k);
    const int probe = gentlestAcceleration(c.inputCells);
    if (!terms.accelerates && rules.freeRoadExponent > 0.0F && probe < c.inputCells) {
        const float probeLambda = priorityAt(priorityTerms(v_mps, probe, rules, c), s_m, bounds, k);
        lambda *= freeRoadFactor(freeRoadUrge(v_mps, probeLambda, s_m, bounds, k, rules, c), probeLambda);
    }
    return lambda;
}

/// priority() at time time_s (the time of the state Γ acts on).
AUGUR_MARKOV_HD float priority(float s_m, float v_mps, int j, float time_s, const CorridorConstraints& k,
                               const PriorityRules& rules, const ChainConfig& c) {
    return priority(s_m, v_mps, j, stepBounds(time_s, k, c), k, rules, c);
}

/// Γ's block for one cell: gamma[u·n_a + u'] from lambda[0 … n_a) and ψ_sub, columns renormalised
/// (falls back to "brake" where a column's weight is 0), and the cell's press π (applyFreeRoad): the
/// columns of the inputs that do not accelerate become (1 − π)·column + π·e_probe. Allocation-free, O(n_a²).
AUGUR_MARKOV_HD void inputTransitionBlock(const float* lambda, const float* psi, int na, float press, float* gamma) {
    const int probe = gentlestAcceleration(na);
    for (int up = 0; up < na; ++up) {
        const float kept = up < probe ? 1.0F - press : 1.0F;
        float sum = 0.0F;
        for (int u = 0; u < na; ++u) {
            sum += lambda[u] * psi[u * na + up];
        }
        if (sum > 0.0F) {
            const float inv = kept / sum;
            for (int u = 0; u < na; ++u) {
                gamma[u * na + up] = lambda[u] * psi[u * na + up] * inv;
            }
            if (up < probe && probe < na) {
                gamma[probe * na + up] += press;
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

/// CUDA path of cpu::combineInputTransition; lambda and gamma are device pointers, gamma 16-byte
/// aligned. One thread per 16 bytes of Γ (4 consecutive non-zeros, one 16-byte store; one non-zero per
/// thread where n_a is odd), ψ_sub staged in shared memory per block (one kernel per n_a).
/// Run phase: enqueues one kernel.
[[nodiscard]] platform::GpuStatus combineInputTransition(const float* lambda, const InputDynamics& psi, int inputCells,
                                                         int cells, float* gamma, bool renormalise,
                                                         platform::StreamHandle stream) noexcept;

}  // namespace cuda

}  // namespace augur::kernels::markov
