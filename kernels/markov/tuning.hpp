// Launch parameters of the Markov family's CUDA kernels (one value per architecture where they differ).
#pragma once

namespace augur::kernels::markov::tuning {

/// Warps per block of the propagation step; each warp owns one position row (lanes over speed cells),
/// so a block covers STEP_WARPS rows. 8 warps = 256 threads; the value is a starting point, not tuned:
/// the H100 figures in docs/benchmarks-markov.md were measured with it (sm_90, n_s = 200, n_v = 20, n_a = 6).
inline constexpr int STEP_WARPS = 8;

/// Corridors one thread propagates together: the Υ entries it loads are reused for each of them, which
/// divides the transition traffic by this factor. 4 keeps the accumulators (4 × n_a) in registers for
/// n_a ≤ MAX_INPUT_CELLS; used for the H100 figures in docs/benchmarks-markov.md, not swept.
inline constexpr int CORRIDORS_PER_THREAD = 4;

/// Threads per block of the element-wise kernels (initial distribution, combination, splat, grid).
inline constexpr int BLOCK_THREADS = 256;

}  // namespace augur::kernels::markov::tuning
