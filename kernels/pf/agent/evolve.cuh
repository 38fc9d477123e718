// The agents of differential-evolution resampling's spread test: the population's log-likelihood
// spread, which decides whether another generation follows (a generation itself is
// detail::evolveParticle per particle, shared with the CPU reference). Private to kernels/pf.
#pragma once

#include <cmath>
#include <cstdint>

#include "common.cuh"

namespace augur::kernels::pf::cuda::agent {

/// Σ fitness and Σ fitness² per block, for the population spread.
__device__ __forceinline__ void spreadPartials(const float* fitness, std::uint32_t particles, std::uint32_t chunk,
                                               double* partials, const FilterControl* control) {
    constexpr std::uint32_t WARPS = tuning::REDUCE_BLOCK / WARP;
    if (control->deActive == 0U) {
        return;
    }
    __shared__ double warpSums[WARPS][2];
    const std::uint32_t begin = blockIdx.x * chunk;
    const std::uint32_t end = min(begin + chunk, particles);
    double sum = 0.0;
    double sumSquares = 0.0;
    for (std::uint32_t k = begin + threadIdx.x; k < end; k += blockDim.x) {
        const double f = fitness[k];
        sum += f;
        sumSquares += f * f;
    }
    sum = warpAllSum(sum);
    sumSquares = warpAllSum(sumSquares);
    if (threadIdx.x % WARP == 0) {
        warpSums[threadIdx.x / WARP][0] = sum;
        warpSums[threadIdx.x / WARP][1] = sumSquares;
    }
    __syncthreads();
    if (threadIdx.x < 2) {
        double total = 0.0;
        for (std::uint32_t w = 0; w < WARPS; ++w) {
            total += warpSums[w][threadIdx.x];
        }
        partials[2 * blockIdx.x + threadIdx.x] = total;
    }
}

/// The population spread from the partials (one thread): stops the evolution when it falls below
/// minSpread or after maxGenerations; flips the population's buffer parity.
__device__ __forceinline__ void spreadFinal(const double* partials, std::uint32_t blocks, std::uint32_t particles,
                                            const DifferentialEvolutionConfig& de, FilterControl* control) {
    if (control->deActive == 0U || threadIdx.x != 0) {
        return;
    }
    double sum = 0.0;
    double sumSquares = 0.0;
    for (std::uint32_t b = 0; b < blocks; ++b) {
        sum += partials[2 * b];
        sumSquares += partials[2 * b + 1];
    }
    const double n = particles;
    const double variance = fmax(0.0, sumSquares / n - (sum / n) * (sum / n));
    FilterControl ctl = *control;
    if (ctl.generations == 0) {
        ctl.maxLogWeight = 0.0F;
    }
    ctl.deParity ^= 1U;
    ctl.swap = ctl.deParity;
    ctl.generations += 1;
    if (!(sqrt(variance) >= de.minSpread) || ctl.generations >= de.maxGenerations) {
        ctl.deActive = 0;
    }
    *control = ctl;
}

}  // namespace augur::kernels::pf::cuda::agent
