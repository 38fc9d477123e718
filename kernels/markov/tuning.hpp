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

/// Resident path: threads of a block that propagates (a share of) one corridor over the whole horizon
/// with p in shared memory (16 warps; one block per SM at the seed's size). Chosen so that a thread
/// keeps its row's stencil (MAX_RESIDENT_ENTRIES slots) and the λ terms of its speed cell in registers
/// (≤ 128 registers; no spills for n_a ≤ 7, 40 bytes of stack at n_a = 8 on sm_90, 8 on sm_87). Not
/// swept.
inline constexpr int RESIDENT_THREADS = 512;

/// Resident path: most stencil slots per row kept in registers (6 at the seed's size and for
/// config/default.yaml's 100 × 10 chain, 10 for config/jetson-orin.yaml's 200 × 20 chain at 40 m/s).
inline constexpr int MAX_RESIDENT_ENTRIES = 12;

/// Resident path on a thread-block cluster: position rows are dealt to the cluster's blocks in chunks
/// of this many rows, round-robin, so that the rows holding mass (a window that grows from the start
/// cell) stay spread over all blocks; each chunk's last maxShift rows are copied to the next block's
/// shared memory every step. A power of two, doubled until it is at least the chain's largest shift.
/// Not swept.
inline constexpr int RESIDENT_CHUNK_ROWS = 4;

/// Resident path: largest cluster one corridor is spread over (8 is CUDA's portable cluster size).
/// Auto takes the largest cluster size up to this for which all corridors of the call are resident at
/// once (cudaOccupancyMaxActiveClusters at init), else one block per corridor.
inline constexpr int RESIDENT_MAX_CLUSTER_BLOCKS = 8;

/// Auto propagation: the resident path from this many corridors per call, the tiled one below. On an
/// H100 (seed's chain, 4 s, graph replay, docs/benchmarks.md) the resident path is faster at every
/// count measured, also with one block per corridor (no clusters, as on sm_87): 1 corridor 388 µs
/// against 465 µs tiled, 16: 393 against 902, 64: 405 against 2,800 (clusters: 148, 187, 279). So Auto
/// takes it whenever the chain fits (sm_87 not measured: with 16 SMs the tiled launches, which spread a
/// step over many blocks, have fewer SMs to spread over, so the resident path gains there too); the tiled
/// path remains for chains that do not fit a block.
inline constexpr int RESIDENT_MIN_CORRIDORS = 1;

/// Threads per block of the combination kernel (one thread per 16 bytes of Γ).
inline constexpr int COMBINE_THREADS = 128;

}  // namespace augur::kernels::markov::tuning
