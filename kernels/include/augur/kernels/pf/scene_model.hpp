// The scene model of Hortelano et al. 2023 (sections 3.3 and 4.2): a particle is a whole scene. For each of up to
// MAX_VEHICLES vehicles it holds the estimated pose and speed, the corridor the vehicle follows, the
// longitudinal expectation/intention (go, stop) and the lateral expectation/intention (stay, change).
//
// Per step and vehicle the caller supplies the measurement with its standard deviations and, for
// each candidate corridor, a summary of the road ahead (SceneCorridor). The runtime fills these from
// the map; here they are plain data.
//
// Predict (DBN of Hortelano et al. 2023 eq. 1, per vehicle n):
//   E_t ~ P(E | road, other vehicles at t−1)       expectation from the corridor's rules and, for a
//                                                   give-way, the other vehicle's intention in the
//                                                   same particle (interaction)
//   I_t = I_{t−1} with probability `persistence`, else E_t   (persistent Markov transition)
//   corridor drawn afresh from the candidates' prior weights when the lateral intention is `change`
//   (a draw from the prior, which may land on the same corridor: the prior is the move's stationary law)
//   a = −v²/(2·d_stop) when intending to stop before a stop point at distance d_stop, else
//       a = gain·(v_go − v), clamped to [−maxDecel, maxAccel], v_go the speed the corridor's go
//       intention tends to (the paper's speed limit; SceneCorridor::goSpeed_mps); unicycle
//       kinematics with the heading pulled towards the corridor heading (+ curvature·v), plus
//       Gaussian noise.
// Update (Hortelano et al. 2023 section 4.2.2): log w = Σ_n Σ_{s∈{x,y,θ,v}} −½((s − z_s)/σ_s)², a sum of log terms
// so 20 vehicles × 4 Gaussians never underflow (the engine normalises with a max-shifted log-sum-exp).
#pragma once

#include <cmath>
#include <cstdint>

#include "augur/kernels/pf/fast_math.hpp"
#include "augur/kernels/pf/host_device.hpp"
#include "augur/kernels/pf/particles.hpp"
#include "augur/kernels/pf/philox.hpp"

namespace augur::kernels::pf {

/// Road summary for one candidate corridor of one vehicle, at the vehicle's measured position.
struct SceneCorridor {
    float heading_rad{0.0F};           ///< corridor direction at the vehicle
    float curvature_1pm{0.0F};         ///< signed curvature at the vehicle
    float distanceToStop_m{1e9F};      ///< distance to the next stop/yield point; ≥ 1e8 means none
    /// The speed the go intention tends to. Hortelano et al. take the speed limit; a driver who holds
    /// a speed below it is then a misfit whose particles run ahead of every measurement.
    float goSpeed_mps{13.9F};
    std::int32_t mustGiveWay{0};       ///< 1: the vehicle must stop or yield at that point
    std::int32_t giveWayTo{-1};        ///< index of the vehicle it yields to (−1: none / a stop sign)
    /// Prior weight of this candidate (≥ 0, relative to the vehicle's others): a fresh slot takes it, and a
    /// change of corridor lands on it, in proportion. Equal weights: every candidate alike.
    float prior{1.0F};
};

/// One vehicle's inputs for one step.
struct SceneVehicleInput {
    static constexpr int MAX_CORRIDORS = 4;
    float x_m{0.0F};
    float y_m{0.0F};
    float theta_rad{0.0F};
    float v_mps{0.0F};
    float sigmaX_m{1.0F};
    float sigmaY_m{1.0F};
    float sigmaTheta_rad{0.1F};
    float sigmaV_mps{0.5F};
    std::int32_t corridorCount{1};  ///< 1 … MAX_CORRIDORS
    std::int32_t present{1};        ///< 0: not measured this step (predicted, not weighted)
    /// 1: a new road user took this slot — this step draws the slot of every particle from this
    /// measurement (as initialize() does) instead of predicting it, and does not weight it (the draw
    /// already comes from the measurement). The other slots and the weights are kept.
    std::int32_t redraw{0};
    /// The time this step advances the vehicle (s): from the measurement of the step before to this
    /// one's, which the sensor's stamps give; > 0. Hortelano et al. step at a fixed 5 Hz.
    float dt_s{0.2F};
    SceneCorridor corridors[MAX_CORRIDORS]{};
};

struct SceneModel {
    static constexpr std::uint32_t MAX_VEHICLES = 32;
    /// Hortelano et al. 2023 section 4.2.1: 12 floats (48 bytes, a multiple of 8 and of 16) per vehicle.
    static constexpr int SLOT_FLOATS = 12;
    static constexpr int CONTINUOUS_FLOATS = 4;  ///< x, y, θ, v
    enum Field : std::uint32_t {
        X = 0,
        Y = 1,
        THETA = 2,
        V = 3,
        CORRIDOR = 4,
        EXPECT_STOP = 5,
        INTENT_STOP = 6,
        EXPECT_CHANGE = 7,
        INTENT_CHANGE = 8,
        ACCEL = 9,  ///< last commanded acceleration (m/s²), for diagnostics
        // 10, 11: padding to 48 bytes
    };
    /// Fields a step reads and writes (the padding stays zero; the structure-of-arrays path skips it).
    static constexpr int USED_FLOATS = ACCEL + 1;
    /// The fields advanceSlot and output() read (bit f: field f). The others are written only: the
    /// expectations are drawn afresh every step and ACCEL is a diagnostic, so the structure-of-arrays
    /// step does not load them (12 of the 40 bytes a vehicle's slot is read with).
    static constexpr std::uint32_t READ_FIELDS = (1U << X) | (1U << Y) | (1U << THETA) | (1U << V) |
                                                 (1U << CORRIDOR) | (1U << INTENT_STOP) | (1U << INTENT_CHANGE);
    /// Output channels per vehicle: x, y, cos θ, sin θ, v, P(stop), P(change), P(corridor c) for c < 4.
    enum Output : std::uint32_t {
        OUT_X = 0,
        OUT_Y,
        OUT_COS,
        OUT_SIN,
        OUT_V,
        OUT_P_STOP,
        OUT_P_CHANGE,
        OUT_P_CORRIDOR0,
    };
    static constexpr int OUTPUTS_PER_VEHICLE = OUT_P_CORRIDOR0 + SceneVehicleInput::MAX_CORRIDORS;

    struct Params {
        float persistence{0.9F};            ///< P(I_t = I_{t−1})
        float pStopGiveWayConflict{0.95F};  ///< E_s = stop when yielding to a vehicle that intends to go
        float pStopGiveWayClear{0.3F};      ///< … to a vehicle that intends to stop
        float pStopSign{0.9F};              ///< must give way, to nobody in particular (stop sign)
        float pStopPriority{0.05F};         ///< stop point ahead but the vehicle has priority
        float pStopFree{0.02F};             ///< no stop point ahead
        float pChangeMulti{0.05F};          ///< E_c = change when there are ≥ 2 corridors
        float speedGain_1ps{0.5F};
        float maxAccel_mps2{2.0F};
        float maxDecel_mps2{8.0F};
        float headingGain{0.5F};            ///< fraction of the heading error to the corridor closed per step
        float noiseAccel_mps2{0.5F};
        float noiseHeading_rad{0.02F};
        float noisePosition_m{0.1F};
    };
    using VehicleInput = SceneVehicleInput;

    /// Whether `z` is an input the model can step with: a finite measurement, finite standard
    /// deviations and step above zero, 1 … MAX_CORRIDORS corridors, and for each of them a finite heading,
    /// curvature and go speed (≥ 0), a distance to the stop point that is not NaN (+∞: none), and
    /// a vehicle to give way to that is −1 or one of the filter's `vehicles`, and finite prior weights
    /// (≥ 0) that are not all 0. Anything else would index past the corridors or turn every weight into
    /// NaN; setInputs rejects it.
    static bool validInput(const VehicleInput& z, std::uint32_t vehicles) noexcept {
        const auto finite = [](float f) { return std::isfinite(f); };
        const auto deviation = [](float f) { return std::isfinite(f) && f > 0.0F; };
        if (!finite(z.x_m) || !finite(z.y_m) || !finite(z.theta_rad) || !finite(z.v_mps) || !deviation(z.sigmaX_m) ||
            !deviation(z.sigmaY_m) || !deviation(z.sigmaTheta_rad) || !deviation(z.sigmaV_mps) || !deviation(z.dt_s) ||
            z.corridorCount < 1 || z.corridorCount > VehicleInput::MAX_CORRIDORS) {
            return false;
        }
        float priors = 0.0F;
        for (std::int32_t k = 0; k < z.corridorCount; ++k) {
            const SceneCorridor& c = z.corridors[k];
            if (!finite(c.heading_rad) || !finite(c.curvature_1pm) || std::isnan(c.distanceToStop_m) ||
                !finite(c.goSpeed_mps) || c.goSpeed_mps < 0.0F || c.giveWayTo < -1 ||
                c.giveWayTo >= static_cast<std::int64_t>(vehicles) || !finite(c.prior) || c.prior < 0.0F) {
                return false;
            }
            priors += c.prior;
        }
        return priors > 0.0F;
    }

    AUGUR_HD_INLINE static float wrapAngle(float a) noexcept {
        constexpr float PI = 3.14159265358979323846F;
        constexpr float TWO_PI = 2.0F * PI;
        constexpr float INV_TWO_PI = 1.0F / TWO_PI;
        return a - TWO_PI * std::floor((a + PI) * INV_TWO_PI);
    }
    /// 1/x, correctly rounded (the device's __frcp_rn: no division's slow path).
    AUGUR_HD_INLINE static float reciprocal(float x) noexcept {
#if defined(__CUDA_ARCH__)
        return __frcp_rn(x);
#else
        return 1.0F / x;
#endif
    }
    AUGUR_HD_INLINE static std::int32_t clampCorridor(float c, std::int32_t count) noexcept {
        const auto i = static_cast<std::int32_t>(c);
        return i < 0 ? 0 : (i >= count ? count - 1 : i);
    }

    /// The candidate that the uniform u ∈ [0, 1) picks in proportion to the prior weights (validInput: not
    /// all 0). A draw from the prior: changes of corridor drawn so leave the prior as it is.
    AUGUR_HD_INLINE static std::int32_t pickCorridor(const VehicleInput& z, std::int32_t count, float u) noexcept {
        float total = 0.0F;
        for (std::int32_t k = 0; k < count; ++k) {
            total += z.corridors[k].prior;
        }
        const float target = u * total;
        float sum = 0.0F;
        std::int32_t picked = 0;
        for (std::int32_t k = 0; k < count; ++k) {
            if (z.corridors[k].prior > 0.0F) {
                picked = k;
                sum += z.corridors[k].prior;
                if (target < sum) {
                    break;
                }
            }
        }
        return picked;
    }

    /// A slot drawn from its measurement z: pose and speed Gaussian around z, the corridor from the
    /// candidates' prior weights, the intentions {stop, change} from their priors (expectation = intention).
    /// Two Philox blocks: four normals, then the three uniforms.
    template <typename Stream>  // BasicRandomStream<…>
    AUGUR_HD_INLINE static void drawSlot(float (&slot)[SLOT_FLOATS], const Params& params, const VehicleInput& z,
                                         Stream& rng) noexcept {
        float n[4];
        rng.normals4(n);
        const Philox4 u = rng.block();
        for (float& field : slot) {
            field = 0.0F;
        }
        slot[X] = z.x_m + z.sigmaX_m * n[0];
        slot[Y] = z.y_m + z.sigmaY_m * n[1];
        slot[THETA] = wrapAngle(z.theta_rad + z.sigmaTheta_rad * n[2]);
        slot[V] = std::fmax(0.0F, z.v_mps + z.sigmaV_mps * n[3]);
        const std::int32_t count = z.corridorCount < 1 ? 1 : z.corridorCount;
        slot[CORRIDOR] = static_cast<float>(pickCorridor(z, count, uniform01(u.v[0])));
        slot[INTENT_STOP] = uniform01(u.v[1]) < 0.5F ? 1.0F : 0.0F;
        slot[EXPECT_STOP] = slot[INTENT_STOP];
        slot[INTENT_CHANGE] = uniform01(u.v[2]) < params.pChangeMulti ? 1.0F : 0.0F;
        slot[EXPECT_CHANGE] = slot[INTENT_CHANGE];
    }

    AUGUR_HD static void initialize(const ParticleRef& p, std::uint32_t vehicles, const Params& params,
                                    const VehicleInput* in, std::uint64_t seed) noexcept {
        for (std::uint32_t n = 0; n < vehicles; ++n) {
            RandomStream rng(seed, INIT_STEP, p.particle, n);
            float slot[SLOT_FLOATS];
            drawSlot(slot, params, in[n], rng);
            p.storeSlot(n, slot);
        }
    }

    /// The CUDA step runs this model one thread per (particle, vehicle) and keeps a vehicle's slot in
    /// registers from load to store: predict() is, for every vehicle n, advanceSlot on slot n with
    /// the previous INTENT_STOP of the vehicle it yields to (yieldsTo), and logLikelihood is the
    /// in-order sum of slotLogLikelihood(slot n, measurementOf(z_n)) over the vehicles that weighs() —
    /// so the CPU reference and the device paths compute the same numbers (the kernels take each
    /// vehicle's Measurement once per step).
    static constexpr bool VEHICLE_PARALLEL = true;

    /// The corridor vehicle n follows in slot s (clamped to the candidates of z).
    AUGUR_HD_INLINE static const SceneCorridor& corridorOf(const float (&s)[SLOT_FLOATS], const VehicleInput& z) noexcept {
        const std::int32_t count = z.corridorCount < 1 ? 1 : z.corridorCount;
        return z.corridors[clampCorridor(s[CORRIDOR], count)];
    }

    /// The vehicle of the same particle whose previous intention pass 1 reads for slot s (it must
    /// give way to that vehicle at the stop point ahead), or −1 when there is none.
    AUGUR_HD_INLINE static std::int32_t yieldsTo(const float (&s)[SLOT_FLOATS], const VehicleInput& z,
                                                 std::uint32_t vehicles) noexcept {
        const SceneCorridor& c = corridorOf(s, z);
        const bool yields = c.distanceToStop_m < 1e8F && c.mustGiveWay != 0 && c.giveWayTo >= 0 &&
                            static_cast<std::uint32_t>(c.giveWayTo) < vehicles;
        return yields ? c.giveWayTo : -1;
    }

    /// Advances one vehicle's slot `s` (in registers) by one step. `otherIntentStop` is the previous
    /// INTENT_STOP of vehicle yieldsTo(s, z, vehicles) (unused when that is −1); `rng` is the stream
    /// keyed by (seed, step, particle, vehicle), fresh.
    ///   Pass 1: expectations E_s, E_c from the road and, for a give-way, the other vehicle's intention.
    ///   Pass 2: intentions (persistent Markov transition), corridor, kinematics.
    /// Two Philox-4x32-10 blocks, every word used: the decisions (four 24-bit uniforms from the top
    /// bits, the corridor change's two 16-bit uniforms from the low bytes), then four normals. The two
    /// are computed side by side (BasicRandomStream::blocks): the K = 10⁶ one-vehicle step measured
    /// 0.23–0.55 µs faster, the seed-scale step 0.15–0.19 µs (H200, augur-bench-pf).
    /// Headings are kept wrapped to [−π, π), where fastSinCos is accurate.
    template <typename Stream>  // BasicRandomStream<…>
    AUGUR_HD_INLINE static void advanceSlot(float (&s)[SLOT_FLOATS], float otherIntentStop, std::uint32_t vehicles,
                                            const Params& params, const VehicleInput& z, Stream& rng) noexcept {
        const std::int32_t count = z.corridorCount < 1 ? 1 : z.corridorCount;
        if (z.redraw != 0) {
            // A new road user in this slot: its state is this step's measurement, nothing to predict.
            // The draws are keyed by the step, so a slot reused later gets fresh numbers.
            drawSlot(s, params, z, rng);
            return;
        }
        // Words 0, 1 (top bits): pass 1; words 2, 3: pass 2; the low bytes of words 0–3: the corridor change.
        Philox4 decisions{};
        Philox4 gaussian{};
        rng.blocks(decisions, gaussian);
        {
            const SceneCorridor& c = corridorOf(s, z);
            float pStop = params.pStopFree;
            if (c.distanceToStop_m < 1e8F) {
                if (c.mustGiveWay == 0) {
                    pStop = params.pStopPriority;
                } else if (yieldsTo(s, z, vehicles) >= 0) {
                    pStop = otherIntentStop < 0.5F ? params.pStopGiveWayConflict : params.pStopGiveWayClear;
                } else {
                    pStop = params.pStopSign;
                }
            }
            s[EXPECT_STOP] = uniform01(decisions.v[0]) < pStop ? 1.0F : 0.0F;
            const float pChange = count > 1 ? params.pChangeMulti : 0.0F;
            s[EXPECT_CHANGE] = uniform01(decisions.v[1]) < pChange ? 1.0F : 0.0F;
        }
        float n[4];
        normals4(gaussian, n);

        if (uniform01(decisions.v[2]) >= params.persistence) {
            s[INTENT_STOP] = s[EXPECT_STOP];
        }
        if (uniform01(decisions.v[3]) >= params.persistence) {
            s[INTENT_CHANGE] = s[EXPECT_CHANGE];
        }
        std::int32_t corridor = clampCorridor(s[CORRIDOR], count);
        if (s[INTENT_CHANGE] > 0.5F && count > 1 &&
            uniformLowBytes(decisions.v[0], decisions.v[1]) >= params.persistence) {
            corridor = pickCorridor(z, count, uniformLowBytes(decisions.v[2], decisions.v[3]));
        }
        s[CORRIDOR] = static_cast<float>(corridor);
        const SceneCorridor& c = z.corridors[corridor];

        const float v = s[V];
        float accel = params.speedGain_1ps * (c.goSpeed_mps - v);
        if (s[INTENT_STOP] > 0.5F && c.distanceToStop_m < 1e8F) {
            // Distance from this particle (not the measurement) to the stop point along the corridor.
            float sinHeading = 0.0F;
            float cosHeading = 0.0F;
            fastSinCos(wrapAngle(c.heading_rad), sinHeading, cosHeading);
            const float along = (s[X] - z.x_m) * cosHeading + (s[Y] - z.y_m) * sinHeading;
            const float d = std::fmax(c.distanceToStop_m - along, 0.5F);
            // Products with the device's approximate reciprocals (fast_math.hpp), not divisions: no
            // float division's slow path on the device, which the K = 10⁶ benchmark's stopped
            // vehicles (v = 0) took in most warps (51 of 766 instructions per 32 particles).
            accel = -(v * v) * fastReciprocal(2.0F * d);
            if (v < 0.5F) {
                accel = -v * fastReciprocal(z.dt_s);  // stay stopped
            }
        }
        accel = std::fmin(std::fmax(accel, -params.maxDecel_mps2), params.maxAccel_mps2);
        const float dt = z.dt_s;
        const float vNext = std::fmax(0.0F, v + (accel + params.noiseAccel_mps2 * n[0]) * dt);
        const float headingError = wrapAngle(c.heading_rad - s[THETA]);
        const float thetaNext = wrapAngle(s[THETA] + params.headingGain * headingError +
                                          c.curvature_1pm * vNext * dt + params.noiseHeading_rad * n[1]);
        float sinTheta = 0.0F;
        float cosTheta = 0.0F;
        fastSinCos(thetaNext, sinTheta, cosTheta);
        s[X] += vNext * cosTheta * dt + params.noisePosition_m * n[2];
        s[Y] += vNext * sinTheta * dt + params.noisePosition_m * n[3];
        s[THETA] = thetaNext;
        s[V] = vNext;
        s[ACCEL] = accel;
    }

    /// Every vehicle of the particle advanced by advanceSlot; pass 1 of each reads the intentions all
    /// vehicles had before this step, so the result does not depend on the order vehicles are advanced in.
    AUGUR_HD static void predict(const ParticleRef& p, std::uint32_t vehicles, const Params& params,
                                 const VehicleInput* in, std::uint64_t seed, std::uint32_t step) noexcept {
        float previousIntentStop[MAX_VEHICLES];
        for (std::uint32_t n = 0; n < vehicles; ++n) {
            previousIntentStop[n] = p.get(n * SLOT_FLOATS + INTENT_STOP);
        }
        for (std::uint32_t n = 0; n < vehicles; ++n) {
            float s[SLOT_FLOATS];
            p.loadSlot(n, s);
            const std::int32_t other = yieldsTo(s, in[n], vehicles);
            RandomStream rng(seed, step, p.particle, n);
            advanceSlot(s, other >= 0 ? previousIntentStop[other] : 0.0F, vehicles, params, in[n], rng);
            p.storeSlot(n, s);
        }
    }

    /// Whether vehicle n's measurement weights the particles this step.
    AUGUR_HD_INLINE static bool weighs(const VehicleInput& z) noexcept { return z.present != 0 && z.redraw == 0; }

    /// What the update compares vehicle n's slots with: its measurement and the reciprocals of the
    /// standard deviations, computed once per vehicle and step (measurementOf), not per particle.
    struct alignas(16) Measurement {
        float x_m;
        float y_m;
        float theta_rad;
        float v_mps;
        float inverseSigmaX;
        float inverseSigmaY;
        float inverseSigmaTheta;
        float inverseSigmaV;
    };
    /// Correctly rounded reciprocals on both sides: host and device agree.
    AUGUR_HD_INLINE static Measurement measurementOf(const VehicleInput& z) noexcept {
        return Measurement{z.x_m,
                           z.y_m,
                           z.theta_rad,
                           z.v_mps,
                           reciprocal(z.sigmaX_m),
                           reciprocal(z.sigmaY_m),
                           reciprocal(z.sigmaTheta_rad),
                           reciprocal(z.sigmaV_mps)};
    }

    /// Vehicle n's log term −½ Σ_{s∈{x,y,θ,v}} ((s − z_s)/σ_s)² (Hortelano et al. 2023 eq. for w_k, in logs) for its
    /// slot s and m = measurementOf(z); the caller adds it only when weighs(z).
    AUGUR_HD_INLINE static float slotLogLikelihood(const float (&s)[SLOT_FLOATS], const Measurement& m) noexcept {
        const float ex = (s[X] - m.x_m) * m.inverseSigmaX;
        const float ey = (s[Y] - m.y_m) * m.inverseSigmaY;
        const float et = wrapAngle(s[THETA] - m.theta_rad) * m.inverseSigmaTheta;
        const float ev = (s[V] - m.v_mps) * m.inverseSigmaV;
        return -0.5F * (ex * ex + ey * ey + et * et + ev * ev);
    }

    AUGUR_HD static float logLikelihood(const ParticleRef& p, std::uint32_t vehicles, const Params&,
                                        const VehicleInput* in) noexcept {
        float sum = 0.0F;
        for (std::uint32_t n = 0; n < vehicles; ++n) {
            if (weighs(in[n])) {
                float s[SLOT_FLOATS];
                p.loadSlot(n, s);
                sum += slotLogLikelihood(s, measurementOf(in[n]));
            }
        }
        return sum;
    }

    AUGUR_HD static float output(const float (&s)[SLOT_FLOATS], std::uint32_t channel) noexcept {
        switch (channel) {
            case OUT_X: return s[X];
            case OUT_Y: return s[Y];
            case OUT_COS: {
                float sinTheta = 0.0F;
                float cosTheta = 0.0F;
                fastSinCos(s[THETA], sinTheta, cosTheta);
                return cosTheta;
            }
            case OUT_SIN: {
                float sinTheta = 0.0F;
                float cosTheta = 0.0F;
                fastSinCos(s[THETA], sinTheta, cosTheta);
                return sinTheta;
            }
            case OUT_V: return s[V];
            case OUT_P_STOP: return s[INTENT_STOP];
            case OUT_P_CHANGE: return s[INTENT_CHANGE];
            default: return static_cast<float>(channel - OUT_P_CORRIDOR0) == s[CORRIDOR] ? 1.0F : 0.0F;
        }
    }
};

}  // namespace augur::kernels::pf
