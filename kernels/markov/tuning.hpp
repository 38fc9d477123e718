// Launch parameters of the Markov family's CUDA kernels (one value per architecture where they differ).
#pragma once

namespace augur::kernels::markov::tuning {

/// Corridors one thread propagates together: the Υ entries it loads are reused for each of them, which
/// divides the transition traffic by this factor. Used for the H100 figures in docs/benchmarks-markov.md
/// (sm_90, n_s = 200, n_v = 20, n_a = 6); not swept yet.
inline constexpr int CORRIDORS_PER_THREAD = 4;

/// Threads per block of every kernel. A step block holds as many whole position rows (n_v·n_a states)
/// as fit (2 at the seed's size: 240 of 256 threads busy). Same provenance as above.
inline constexpr int BLOCK_THREADS = 256;

}  // namespace augur::kernels::markov::tuning
