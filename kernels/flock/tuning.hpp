// Launch parameters of the flock kernels, per architecture. Every kernel is a grid-stride loop over a
// capacity-sized index space with a fixed launch shape (graph-capturable, deterministic shape).
#pragma once

namespace augur::kernels::flock::tuning {

/// Threads per block of the per-point / per-disk kernels. 256 is the usual occupancy sweet spot for
/// register-heavy double-precision loops on sm_87 and sm_90; not yet swept (see docs/benchmarks-flock.md).
inline constexpr int BLOCK = 256;

/// Blocks per SM of the grid-stride kernels: enough resident warps to hide global-memory latency
/// (not yet swept; 8 × 256 threads = 2048, the sm_90 and sm_87 per-SM thread limit).
inline constexpr int BLOCKS_PER_SM = 8;

/// Threads per block of the intersection-stage kernels (one thread per set: count, write, maximal,
/// rank loops over a window's sets). Not yet swept; 128 keeps more blocks resident for the uneven
/// per-set loops.
inline constexpr int WINDOW_BLOCK = 128;

/// Threads per block of the per-step bounding-box reduction (one block per step).
inline constexpr int REDUCE_BLOCK = 128;

}  // namespace augur::kernels::flock::tuning
