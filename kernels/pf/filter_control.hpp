// The particle filter's control block: the step's decisions (N_eff, resample or not, the state buffer,
// a pending resampling, the differential-evolution generations). Private to kernels/pf: filter.hpp
// declares it only, the CPU reference (filter_cpu.cpp) holds one on the host, the CUDA path
// (filter_cuda.cu and its agents) one in device memory.
#pragma once

#include <cstdint>

namespace augur::kernels::pf::detail {

/// Device-side control block of one filter: the flags that keep the step's decisions on the device.
struct FilterControl {
    double sumWeights;
    float effectiveSampleSize;
    float maxLogWeight;
    float uniform;               ///< u ∈ (0, 1] of this step's systematic resampling
    std::uint32_t step;          ///< RNG step of the next predict
    std::uint32_t current;       ///< which state buffer holds the particles
    std::uint32_t swap;          ///< 1: the next step reads the other buffer (resampling wrote it)
    std::uint32_t resample;      ///< 1: this step resamples
    std::uint32_t deActive;      ///< differential evolution still running
    std::uint32_t deParity;      ///< buffer parity of the differential-evolution population
    std::uint32_t generations;
    /// CUDA path: 1 when the last step decided a systematic resampling and scanned its CDF but has
    /// not moved the particles — particle k is particle ρ[k] of the committed buffer and every
    /// log-weight (and the max they are relative to) counts as 0. The next step's advance draws ρ
    /// from the CDF and reads through it (the gather is fused into its predict). The CPU reference
    /// gathers at once and keeps 0.
    std::uint32_t pending;
};

}  // namespace augur::kernels::pf::detail
