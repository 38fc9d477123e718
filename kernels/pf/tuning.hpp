// Launch parameters of the particle filter kernels. One place, each value with where and at what
// size it was measured (docs/benchmarks.md has the tables). Private to kernels/pf.
//
// Measured on an H100 80GB HBM3 (sm_90) with augur-bench-pf: a first run (2026-11-21 08:29 UTC, serial
// final reduction block, per-source copy indices) and a second (08:59 UTC) with the values and shapes
// below; docs/benchmarks.md has both. None of the values has been swept.
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
/// predict+update kernel. Measured on the H100 (single-vehicle scene, reduce stage = partials + final):
/// 11–12 µs at K = 10³ … 2·10⁴, 16 µs at 10⁵, 56 µs at 10⁶ (3,907 partial blocks; ~3× its bytes).
inline constexpr std::uint32_t REDUCE_BLOCK = PARTICLE_BLOCK;

/// Fewest vehicles for which the step runs a vehicle-parallel model one thread per (particle, vehicle)
/// (block: 32 particles × vehicles). Measured only at 20 vehicles (H100, K = 20,000, SoA: whole step
/// 123 µs graph replay vs 238 µs before, ≈ 81 µs of it this kernel + final combine, by subtraction);
/// one vehicle runs the per-particle kernel. The threshold itself is not swept.
inline constexpr std::uint32_t VEHICLE_PARALLEL_MIN = 4;

/// Threads of the single final-combine block: warp w combines channels w, w + 32, … over all partial
/// blocks (lanes stride over blocks, fixed shuffle tree). The first run's final block looped over the
/// partial blocks serially per channel; H100 reduce stage, first → second run: 297 → 56 µs at K = 10⁶,
/// 215 → 16 µs at 10⁵, 50 → 12 µs at K = 20,000 (single vehicle), 72 → 37 µs at 20,000 × 20 vehicles.
inline constexpr std::uint32_t REDUCE_FINAL_BLOCK = 1024;

/// Partial blocks of the differential-evolution spread reduction (its final combine is serial).
inline constexpr std::uint32_t SPREAD_MAX_BLOCKS = 528;  ///< 4 per SM on an H100 SXM (132 SMs)

/// Threads per block and largest grid of the grid-stride array-of-structs gather (32-bit index
/// arithmetic). Measured on the H100 at K = 20,000: 5.8 µs (48-byte particles), 11.4 µs (960-byte
/// particles); first run, 64-bit index arithmetic: 6.3 / 12.1 µs.
inline constexpr std::uint32_t GATHER_BLOCK = 256;
inline constexpr std::uint32_t GATHER_MAX_BLOCKS = 1056;  ///< 8 per SM on an H100 SXM

/// Fields per thread of the structure-of-arrays gather (grid: ⌈K/256⌉ × ⌈stride/8⌉), replacing a 1-D
/// grid-stride loop with a 64-bit division per element. H100, K = 20,000 × 20 vehicles, whole SoA
/// resample (scan + copy index + gather): 35.5 µs before, 36.5 µs after — no measurable change there.
inline constexpr std::uint32_t GATHER_SOA_FIELDS = 8;

}  // namespace augur::kernels::pf::tuning
