// Launch parameters of the flock kernels, per architecture. Every kernel is a grid-stride loop over a
// capacity-sized or device-counted index space with a fixed launch shape (graph-capturable,
// deterministic shape). FlockOptions can override them for experiments (augur-bench-flock --sweep).
//
// Swept on sm_90 (H100 80GB HBM3), 2026-11-21, augur-bench-flock --sweep: threads per block
// {128, 256, 512} × blocks per SM {4, 8, 16} × intersection threads per block {64, 128, 256}, input
// resident, graphs; see docs/benchmarks.md. Seed-shaped run (ε = 50): 15.86 ms at best
// (256/4/128), ≤ 16.38 ms for every shape with 1,024–4,096 threads per SM, 17.3 ms at 512 × 16 and
// 18.2–18.5 ms at 128 × 4 (512 threads per SM). 2,000 entities: 5.21–5.39 ms for every shape except
// 128 × 4 (5.64–5.73 ms). The values below are the defaults as measured (15.95 ms and 5.24 ms), within
// 1 % of the best; the intersection stage looks bound by per-thread latency rather than launch shape.
// sm_87 (Orin) has not been swept; it gets the same values (2,048 threads per SM on both).
#pragma once

namespace augur::kernels::flock::tuning {

/// Threads per block of the per-point / per-disk kernels (potential-flock stage).
inline constexpr int BLOCK = 256;

/// Blocks per SM of the grid-stride kernels: 8 × 256 = 2,048 threads, the sm_90 and sm_87 per-SM limit.
inline constexpr int BLOCKS_PER_SM = 8;

/// Threads per block of the intersection-stage kernels: one block per position (count, write,
/// maximal, compact; one warp per set), and the grid-stride rank and output kernels, whose grid keeps
/// BLOCK × BLOCKS_PER_SM threads per SM.
inline constexpr int WINDOW_BLOCK = 256;

/// Threads of the one-block prefix sum over a level's positions (maxBatchSteps + 1 entries).
inline constexpr int SCAN_BLOCK = 1024;

/// A position's family is staged in shared memory when it has at most this many sets and members
/// (about 11 KB per block); larger ones are read from global memory.
inline constexpr int STAGED_SETS = 256;
inline constexpr int STAGED_MEMBERS = 2048;

/// Threads per block of the per-step grid kernel (one block per step: input check, bounding box,
/// counting, cell prefix sum, placement; sizes its shared arrays, a power of two).
inline constexpr int GRID_BLOCK = 256;

}  // namespace augur::kernels::flock::tuning
