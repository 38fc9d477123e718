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
// That sweep was of the previous thread-per-set intersection kernels; the warp-per-set kernels
// (2026-11-21 10:57 UTC, docs/benchmarks.md) run with the same values and have not been swept.
// sm_87 (Orin) has not been swept; it gets the same values (2,048 threads per SM on both).
#pragma once

namespace augur::kernels::flock::tuning {

/// Threads per block of the per-point / per-disk kernels (potential-flock stage).
inline constexpr int BLOCK = 256;

/// Blocks per SM of the grid-stride kernels: 8 × 256 = 2,048 threads, the sm_90 and sm_87 per-SM limit.
inline constexpr int BLOCKS_PER_SM = 8;

/// Threads per block of the intersection-stage kernels (one warp per set: count, write, maximal,
/// compact, rank, output). Their grid keeps BLOCK × BLOCKS_PER_SM threads per SM.
inline constexpr int WINDOW_BLOCK = 128;

/// Threads per block of the per-step bounding-box reduction (one block per step; sizes a shared array).
inline constexpr int REDUCE_BLOCK = 128;

}  // namespace augur::kernels::flock::tuning
