// The state-space models the particle filter engine runs: a particle is `vehicles` slots of
// SLOT_FLOATS floats; a model says how a particle is initialised, predicted and weighted, and which
// per-vehicle quantities the output reduction averages.
//
// Model concept (all functions static, AUGUR_HD, noexcept, allocation-free, O(vehicles) per particle):
//   SLOT_FLOATS, OUTPUTS_PER_VEHICLE, CONTINUOUS_FLOATS (leading floats of a slot that differential
//   evolution may mutate), MAX_VEHICLES, Params, VehicleInput (one vehicle's inputs for one step),
//   initialize(p, vehicles, params, inputs, seed)
//   predict(p, vehicles, params, inputs, seed, step)     — draws keyed by (seed, step, particle, vehicle)
//   logLikelihood(p, vehicles, params, inputs) → float   — log p(z | particle) up to a constant
//   output(slot, channel) → float                         — the value the weighted mean is taken of
//   validInput(input, vehicles) → bool (host only)         — whether one vehicle's input is one the model
//                                                            can step with (setInputs rejects the rest)
//
// Scalar models (UNGM, Cao et al. 2018's model, linear-Gaussian) have one vehicle of one float: ScalarModel.
#pragma once

#include <cmath>
#include <cstdint>

#include "augur/kernels/pf/host_device.hpp"
#include "augur/kernels/pf/particles.hpp"
#include "augur/kernels/pf/philox.hpp"

namespace augur::kernels::pf {

/// RNG counter word reserved for initialisation draws (steps count from 0).
inline constexpr std::uint32_t INIT_STEP = 0xFFFFFFFFU;

/// What the scalar models share: one vehicle of one float, which is also their one output and the
/// one float differential evolution mutates.
struct ScalarModel {
    static constexpr int SLOT_FLOATS = 1;
    static constexpr int OUTPUTS_PER_VEHICLE = 1;
    static constexpr int CONTINUOUS_FLOATS = 1;
    static constexpr std::uint32_t MAX_VEHICLES = 1;
    AUGUR_HD static float output(const float (&slot)[SLOT_FLOATS], std::uint32_t) noexcept { return slot[0]; }
};

// ---------------------------------------------------------------------------------------------------
/// Univariate non-stationary growth model (UNGM; Gordon, Salmond, Smith 1993; Kitagawa 1996):
///   x_k = 0.5·x_{k−1} + 25·x_{k−1}/(1 + x_{k−1}²) + 8·cos(1.2·k) + v,  v ~ N(0, Q)
///   z_k = x_k²/20 + w,  w ~ N(0, R);   x_0 ~ N(0, P0).   Defaults Q = 10, R = 1, P0 = 5.
struct UngmModel : ScalarModel {
    struct Params {
        float processVariance{10.0F};
        float measurementVariance{1.0F};
        float initialVariance{5.0F};
    };
    struct VehicleInput {
        float z{0.0F};     ///< measurement z_k
        float time{0.0F};  ///< k, the index of the state being predicted
    };
    static bool validInput(const VehicleInput& in, std::uint32_t) noexcept {
        return std::isfinite(in.z) && std::isfinite(in.time);
    }

    AUGUR_HD static void initialize(const ParticleRef& p, std::uint32_t, const Params& params, const VehicleInput*,
                                    std::uint64_t seed) noexcept {
        const float n = RandomStream(seed, INIT_STEP, p.particle, 0).normal();
        p.set(0, std::sqrt(params.initialVariance) * n);
    }
    AUGUR_HD static void predict(const ParticleRef& p, std::uint32_t, const Params& params, const VehicleInput* in,
                                 std::uint64_t seed, std::uint32_t step) noexcept {
        const float n = RandomStream(seed, step, p.particle, 0).normal();
        const float x = p.get(0);
        const float drift = 0.5F * x + 25.0F * x / (1.0F + x * x) + 8.0F * std::cos(1.2F * in[0].time);
        p.set(0, drift + std::sqrt(params.processVariance) * n);
    }
    AUGUR_HD static float logLikelihood(const ParticleRef& p, std::uint32_t, const Params& params,
                                        const VehicleInput* in) noexcept {
        const float x = p.get(0);
        const float residual = in[0].z - x * x / 20.0F;
        return -0.5F * residual * residual / params.measurementVariance;
    }
};

// ---------------------------------------------------------------------------------------------------
/// The test model of Cao et al. 2018 (section 4, eq. 14):
///   x_k = 1 + sin(0.04·π·k) + 0.5·x_{k−1} + u,  u ~ Γ(shape 3, scale 2)
///   y_k = 0.2·x_k² + v for k ≤ 30, else 0.5·x_k − 2 + v,  v ~ N(0, R).
/// Named for what it models: Gamma-distributed process noise and a measurement that switches from
/// quadratic to linear. The paper does not state R or x_0; Params default to R = 1e-5 and x_0 ~ N(1, 1) and can be changed.
/// Γ(3, 2) with integer shape is drawn exactly as −2·ln(u1·u2·u3).
struct GammaNoiseSwitchingModel : ScalarModel {
    struct Params {
        float measurementVariance{1e-5F};
        float initialMean{1.0F};
        float initialVariance{1.0F};
        float gammaScale{2.0F};
        int switchTime{30};  ///< last k of the quadratic measurement
    };
    struct VehicleInput {
        float y{0.0F};
        float time{0.0F};  ///< k
    };
    static bool validInput(const VehicleInput& in, std::uint32_t) noexcept {
        return std::isfinite(in.y) && std::isfinite(in.time);
    }

    AUGUR_HD static void initialize(const ParticleRef& p, std::uint32_t, const Params& params, const VehicleInput*,
                                    std::uint64_t seed) noexcept {
        const float n = RandomStream(seed, INIT_STEP, p.particle, 0).normal();
        p.set(0, params.initialMean + std::sqrt(params.initialVariance) * n);
    }
    AUGUR_HD static void predict(const ParticleRef& p, std::uint32_t, const Params& params, const VehicleInput* in,
                                 std::uint64_t seed, std::uint32_t step) noexcept {
        constexpr float PI = 3.14159265358979323846F;
        RandomStream rng(seed, step, p.particle, 0);
        const Philox4 r = rng.block();
        const float product = uniformOpen0(r.v[0]) * uniformOpen0(r.v[1]) * uniformOpen0(r.v[2]);
        const float gamma = -params.gammaScale * std::log(product);
        const float k = in[0].time;
        p.set(0, 1.0F + std::sin(0.04F * PI * k) + 0.5F * p.get(0) + gamma);
    }
    AUGUR_HD static float logLikelihood(const ParticleRef& p, std::uint32_t, const Params& params,
                                        const VehicleInput* in) noexcept {
        const float x = p.get(0);
        const float predicted = in[0].time <= static_cast<float>(params.switchTime) ? 0.2F * x * x : 0.5F * x - 2.0F;
        const float residual = in[0].y - predicted;
        return -0.5F * residual * residual / params.measurementVariance;
    }
};

// ---------------------------------------------------------------------------------------------------
/// Scalar linear-Gaussian model, whose exact posterior is the Kalman filter's:
///   x_k = a·x_{k−1} + v, v ~ N(0, q);   z_k = h·x_k + w, w ~ N(0, r);   x_0 ~ N(m0, p0).
struct LinearGaussianModel : ScalarModel {
    struct Params {
        float a{0.9F};
        float q{1.0F};
        float h{1.0F};
        float r{1.0F};
        float m0{0.0F};
        float p0{1.0F};
    };
    struct VehicleInput {
        float z{0.0F};
    };
    static bool validInput(const VehicleInput& in, std::uint32_t) noexcept { return std::isfinite(in.z); }

    AUGUR_HD static void initialize(const ParticleRef& p, std::uint32_t, const Params& params, const VehicleInput*,
                                    std::uint64_t seed) noexcept {
        const float n = RandomStream(seed, INIT_STEP, p.particle, 0).normal();
        p.set(0, params.m0 + std::sqrt(params.p0) * n);
    }
    AUGUR_HD static void predict(const ParticleRef& p, std::uint32_t, const Params& params, const VehicleInput*,
                                 std::uint64_t seed, std::uint32_t step) noexcept {
        const float n = RandomStream(seed, step, p.particle, 0).normal();
        p.set(0, params.a * p.get(0) + std::sqrt(params.q) * n);
    }
    AUGUR_HD static float logLikelihood(const ParticleRef& p, std::uint32_t, const Params& params,
                                        const VehicleInput* in) noexcept {
        const float residual = in[0].z - params.h * p.get(0);
        return -0.5F * residual * residual / params.r;
    }
};

}  // namespace augur::kernels::pf

#include "augur/kernels/pf/scene_model.hpp"
