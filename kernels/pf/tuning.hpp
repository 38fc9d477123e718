// Launch parameters of the particle filter kernels. One place, each value with where and at what
// size it was measured (docs/benchmarks-pf.md has the tables). Private to kernels/pf.
//
// Status: none of these values has been swept yet. The only measurements so far (H100 80GB HBM3,
// sm_90, 2026-11-21, augur-bench-pf) were taken with the values below; they show the reduction's
// single final block as a bottleneck (see REDUCE_MAX_BLOCKS) — the next tuning step.
#pragma once

#include <cstdint>

namespace augur::kernels::pf::tuning {

/// Threads per block of the per-particle kernels (predict, update, copy index, DE generation).
/// Not swept; 256 is the usual choice for register-heavy per-thread work on sm_87/sm_90.
inline constexpr std::uint32_t PARTICLE_BLOCK = 256;

/// Threads per block of the weight/output reduction; its grid is at most REDUCE_MAX_BLOCKS blocks
/// (fixed for a given K, so the summation order — and the result — is the same run after run).
/// Measured on the H100 (single-vehicle scene): the reduce stage takes 12.6 µs at K = 10³, 32 µs at
/// 10⁴, 215 µs at 10⁵ (391 partial blocks), 297 µs at 10⁶ (489 blocks): the final block combines the
/// partials with one serial loop per channel, so its time grows with the number of partial blocks.
/// A smaller cap (and a parallel final combine) is expected to help; not yet measured.
inline constexpr std::uint32_t REDUCE_BLOCK = 256;
inline constexpr std::uint32_t REDUCE_MAX_BLOCKS = 528;  ///< 4 per SM on an H100 SXM (132 SMs)

/// Threads per block and largest grid of the grid-stride particle gather. Measured on the H100 at
/// K = 20,000: 6.3 µs (48-byte particles), 12.1 µs (960-byte particles, AoS). Not swept.
inline constexpr std::uint32_t GATHER_BLOCK = 256;
inline constexpr std::uint32_t GATHER_MAX_BLOCKS = 1056;  ///< 8 per SM on an H100 SXM

}  // namespace augur::kernels::pf::tuning
