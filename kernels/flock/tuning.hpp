// Launch parameters of the flock kernels, per architecture. Every kernel is a grid-stride loop over a
// capacity-sized or device-counted index space with a fixed launch shape (graph-capturable,
// deterministic shape). FlockOptions can override them for experiments (augur-bench-flock --sweep).
//
// Swept on sm_90 (H100 80GB HBM3), augur-bench-flock --sweep: threads per block {128, 256, 512} ×
// blocks per SM {4, 8, 16} × intersection threads per block {64, 128, 256}, input resident, graphs;
// see docs/benchmarks.md. Last sweep 2026-11-21 13:25 UTC, with the warp-per-set intersection kernels:
// 2,000 entities 1.67 ms at 256 × 16 × 128 (the best, tied with 256 × 16 × 64/256) against 1.88 ms at
// the previous default 256 × 8 × 128; seed-shaped run (ε = 50) 12.89 ms against 13.20 ms (best shape
// 12.26 ms, 512 × 8 × 64, which gives 1.70 ms at 2,000 entities). 512 threads per SM (128 × 4) is
// clearly the slowest on both. The grid-stride loops gain from twice as many blocks as fit at once
// (the grid is a launch size, not a residency): the later blocks even out the SMs' tails.
// sm_87 (Orin) has not been swept; it gets the same values.
#pragma once

namespace augur::kernels::flock::tuning {

/// Threads per block of the per-point / per-disk kernels (potential-flock stage).
inline constexpr int BLOCK = 256;

/// Blocks per SM of the grid-stride kernels' grids: 16 × 256 = 4,096 threads, twice the sm_90 and sm_87
/// per-SM limit of 2,048, so the grid runs in two waves (see the sweep above).
inline constexpr int BLOCKS_PER_SM = 16;

/// Threads per block of the intersection-stage kernels (one warp per set: count, write, maximal,
/// compact, rank, output). Their grid has BLOCK × BLOCKS_PER_SM threads per SM, as the others.
inline constexpr int WINDOW_BLOCK = 128;

/// Threads per block of the per-step bounding-box reduction (one block per step; sizes a shared array).
inline constexpr int REDUCE_BLOCK = 128;

}  // namespace augur::kernels::flock::tuning
