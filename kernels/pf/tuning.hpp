// Launch parameters of the particle filter kernels. One place, each value with where and at what
// size it was measured (docs/benchmarks-pf.md has the tables). Private to kernels/pf.
#pragma once

#include <cstdint>

namespace augur::kernels::pf::tuning {

/// Threads per block of the per-particle kernels (predict, update, copy index, DE generation).
/// Not yet swept: 256 is the usual choice for register-heavy per-thread work on sm_87/sm_90.
inline constexpr std::uint32_t PARTICLE_BLOCK = 256;

/// Threads per block of the weight/output reduction; its grid is at most REDUCE_MAX_BLOCKS blocks
/// (fixed for a given K, so the summation order — and the result — is the same run after run).
inline constexpr std::uint32_t REDUCE_BLOCK = 256;
inline constexpr std::uint32_t REDUCE_MAX_BLOCKS = 528;  ///< 4 per SM on an H100 SXM (132 SMs)

/// Threads per block and blocks per SM-equivalent of the grid-stride particle gather.
inline constexpr std::uint32_t GATHER_BLOCK = 256;
inline constexpr std::uint32_t GATHER_MAX_BLOCKS = 1056;  ///< 8 per SM on an H100 SXM

}  // namespace augur::kernels::pf::tuning
