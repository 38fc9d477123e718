// Launch parameters of the Markov family's CUDA kernels (one value per architecture where they differ).
#pragma once

namespace augur::kernels::markov::tuning {

/// Tiled path (a chain too large for one block's shared memory): corridors one thread propagates
/// together: the Υ entries it loads are reused for each of them, which divides the transition traffic
/// by this factor. Not swept.
inline constexpr int CORRIDORS_PER_THREAD = 4;

/// Tiled path: threads per block of every kernel. A step block holds as many whole position rows
/// (n_v·n_a states) as fit (2 at the seed's size: 240 of 256 threads busy). Not swept.
inline constexpr int BLOCK_THREADS = 256;

/// Resident path: threads of the block that propagates one corridor over the whole horizon with p in
/// shared memory (16 warps; one block per SM at the seed's size, 193 KB of shared memory). Chosen so
/// that a thread keeps its row's stencil (MAX_RESIDENT_ENTRIES slots) and the λ terms of its speed cell
/// in registers without spilling (126 registers at n_a = 6, no spills, sm_90). Not swept; H200 figures
/// in docs/benchmarks.md.
inline constexpr int RESIDENT_THREADS = 512;

/// Resident path: most stencil slots per row kept in registers (6 at the seed's size).
inline constexpr int MAX_RESIDENT_ENTRIES = 12;

/// Auto propagation: the resident path from this many corridors per call, the tiled one below. The
/// resident time is flat up to one corridor per SM (one block each: 1.10 ms for 1, 1.11 ms for 16,
/// 1.12 ms for 64 corridors on an H200), the tiled one grows with the corridors (0.46, 0.90, 2.79 ms):
/// they cross near 21 corridors (docs/benchmarks.md).
inline constexpr int RESIDENT_MIN_CORRIDORS = 24;

/// Threads per block of the combination kernel (one thread per (s, v) cell: 32 blocks at the seed's size).
inline constexpr int COMBINE_THREADS = 128;

}  // namespace augur::kernels::markov::tuning
