// Launch parameters of the particle filter kernels. One place, each value with where and at what
// size it was measured (docs/benchmarks-pf.md has the tables). Private to kernels/pf.
//
// Measured on an H100 80GB HBM3 (sm_90), augur-bench-pf; the first run (2026-11-21 08:29 UTC) found
// the serial final reduction block and the 64-bit index arithmetic of the gather as bottlenecks; the
// values and shapes below are the ones of the second run (docs/benchmarks-pf.md, "after").
#pragma once

#include <cstdint>

namespace augur::kernels::pf::tuning {

/// Threads per block of the per-particle kernels (predict, update, the fused predict+update+block
/// reduction, copy index, DE generation). Not swept; 256 is the usual choice for register-heavy
/// per-thread work on sm_87/sm_90.
inline constexpr std::uint32_t PARTICLE_BLOCK = 256;

/// Threads per block of the weight/output block reduction: one particle per thread, so the partial
/// blocks are ⌈K / 256⌉ (fixed for a given K: the summation order — and the result — is the same run
/// after run). Equal to PARTICLE_BLOCK because the step fuses the block reduction into the
/// predict+update kernel.
inline constexpr std::uint32_t REDUCE_BLOCK = PARTICLE_BLOCK;

/// Fewest vehicles for which the step runs a vehicle-parallel model one thread per (particle, vehicle)
/// (block: 32 particles × vehicles). Measured only at 1 and 20 vehicles; not swept in between.
inline constexpr std::uint32_t VEHICLE_PARALLEL_MIN = 4;

/// Threads of the single final-combine block: warp w combines channels w, w + 32, … over all partial
/// blocks (lanes stride over blocks, fixed shuffle tree). The first run's final block looped over the
/// partial blocks serially per channel: 12.6 µs (K = 10³) … 297 µs (K = 10⁶, 489 blocks) on the H100.
inline constexpr std::uint32_t REDUCE_FINAL_BLOCK = 1024;

/// Partial blocks of the differential-evolution spread reduction (its final combine is serial).
inline constexpr std::uint32_t SPREAD_MAX_BLOCKS = 528;  ///< 4 per SM on an H100 SXM (132 SMs)

/// Threads per block and largest grid of the grid-stride array-of-structs gather. Measured on the
/// H100 at K = 20,000: 6.3 µs (48-byte particles), 12.1 µs (960-byte particles, AoS), first run.
inline constexpr std::uint32_t GATHER_BLOCK = 256;
inline constexpr std::uint32_t GATHER_MAX_BLOCKS = 1056;  ///< 8 per SM on an H100 SXM

/// Fields per thread of the structure-of-arrays gather (grid: ⌈K/256⌉ × ⌈stride/8⌉). Replaces a 1-D
/// grid-stride loop with a 64-bit division per element (35.5 µs at K = 20,000 × 240 floats on the
/// H100, ≈ 540 GB/s). Not swept.
inline constexpr std::uint32_t GATHER_SOA_FIELDS = 8;

}  // namespace augur::kernels::pf::tuning
