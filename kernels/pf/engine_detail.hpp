// Per-particle pieces of the particle filter step, shared verbatim by the CPU reference
// (filter_cpu.cpp) and the CUDA agents (agent/). Private to kernels/pf.
#pragma once

#include <cmath>
#include <cstdint>

#include "augur/kernels/pf/fast_math.hpp"
#include "augur/kernels/pf/filter.hpp"
#include "augur/kernels/pf/host_device.hpp"
#include "augur/kernels/pf/particles.hpp"
#include "augur/kernels/pf/philox.hpp"

namespace augur::kernels::pf::detail {

/// RNG "vehicle" word reserved for differential evolution (models use 0 … vehicles−1; systematic
/// resampling's is RESAMPLE_STREAM in resample.hpp).
inline constexpr std::uint32_t DE_STREAM = 0x40000000U;  ///< + generation

/// Whether Model provides the per-vehicle hooks of the vehicle-parallel step (SceneModel does).
template <typename Model>
constexpr bool vehicleParallel() noexcept {
    if constexpr (requires { Model::VEHICLE_PARALLEL; }) {
        return Model::VEHICLE_PARALLEL;
    } else {
        return false;
    }
}

/// exp(log w − max) with the conventions of quantizeWeight: −∞/NaN → 0; max = −∞ → 1 (uniform).
/// The exponential in float (the sums it feeds are in double): a term in (0, 1] needs no more, and
/// on the device the hardware's (fastExp) takes two instructions where expf takes eight. The CPU
/// reference and the kernels agree to float tolerance, not bit for bit (the CDF's quantised weights
/// keep their own exponential, bit-identical on both sides: quantizeWeight).
AUGUR_HD_INLINE double weightTerm(float logWeight, float maxLogWeight) noexcept {
    if (maxLogWeight == -INFINITY) {
        return 1.0;
    }
    if (!(logWeight > -INFINITY)) {
        return 0.0;
    }
    return static_cast<double>(fastExp(logWeight - maxLogWeight));
}

/// NaN-safe maximum (NaN log-weights count as −∞).
AUGUR_HD_INLINE float maxLog(float a, float b) noexcept { return (b > a) ? b : a; }

/// log w ← log w − previous max + log p(z | x); also the fitness differential evolution starts from.
template <typename Model>
AUGUR_HD_INLINE void updateParticle(const ParticleRef& p, std::uint32_t vehicles, const typename Model::Params& params,
                                    const typename Model::VehicleInput* inputs, float previousMax, float* logWeights,
                                    float* fitness) noexcept {
    const float logLikelihood = Model::logLikelihood(p, vehicles, params, inputs);
    logWeights[p.particle] = logWeights[p.particle] - previousMax + logLikelihood;
    if (fitness != nullptr) {
        fitness[p.particle] = logLikelihood;
    }
}

/// One differential-evolution generation for particle i (Cao et al. 2018 section 1.2 d, steps b–c):
/// reads the population `src`, writes the survivor into `dst`, updates fitness[i].
template <typename Model>
AUGUR_HD void evolveParticle(const ParticleRef& target, const ParticleRef& out, std::uint32_t vehicles,
                             const typename Model::Params& params, const typename Model::VehicleInput* inputs,
                             const DifferentialEvolutionConfig& de, std::uint64_t seed, std::uint32_t step,
                             std::uint32_t generation, float* fitness) noexcept {
    constexpr int SLOT = Model::SLOT_FLOATS;
    constexpr int CONTINUOUS = Model::CONTINUOUS_FLOATS;
    const std::uint32_t i = target.particle;
    const std::uint32_t k = target.count;
    RandomStream rng(seed, step, i, DE_STREAM + generation);
    const Philox4 pick = rng.block();
    // r1, r2, r3 ≠ i (r2 = r3 is allowed and makes the mutant x_r1).
    const std::uint32_t others = k - 1;
    const std::uint32_t r1 = (i + 1 + pick.v[0] % others) % k;
    const std::uint32_t r2 = (i + 1 + pick.v[1] % others) % k;
    const std::uint32_t r3 = (i + 1 + pick.v[2] % others) % k;
    const std::uint32_t forced = pick.v[3] % (vehicles * static_cast<std::uint32_t>(CONTINUOUS));
    ParticleRef a = target;
    ParticleRef b = target;
    ParticleRef c = target;
    a.particle = r1;
    b.particle = r2;
    c.particle = r3;
    Philox4 coins{};
    std::uint32_t used = 4;
    for (std::uint32_t n = 0; n < vehicles; ++n) {
        float x[SLOT];
        float xa[SLOT];
        float xb[SLOT];
        float xc[SLOT];
        target.loadSlot(n, x);
        a.loadSlot(n, xa);
        b.loadSlot(n, xb);
        c.loadSlot(n, xc);
        for (int f = 0; f < CONTINUOUS; ++f) {
            if (used == 4) {
                coins = rng.block();
                used = 0;
            }
            const bool take = uniform01(coins.v[used++]) < de.crossover ||
                              n * static_cast<std::uint32_t>(CONTINUOUS) + static_cast<std::uint32_t>(f) == forced;
            if (take) {
                x[f] = xa[f] + de.scale * (xb[f] - xc[f]);
            }
        }
        out.storeSlot(n, x);
    }
    const float trialFitness = Model::logLikelihood(out, vehicles, params, inputs);
    if (trialFitness > fitness[i]) {
        fitness[i] = trialFitness;
    } else {
        for (std::uint32_t n = 0; n < vehicles; ++n) {
            float x[SLOT];
            target.loadSlot(n, x);
            out.storeSlot(n, x);
        }
    }
}

}  // namespace augur::kernels::pf::detail
