// Launch parameters of the Markov family's CUDA kernels, as the per-architecture chain PolicySm72 →
// PolicySm87 → PolicySm90 (tuning_policy.hpp), each value with a one-line provenance. The launch-time
// values are chosen at DeviceChain::create(); the values compiled into the kernels are the same in every
// policy (one per binary) and used through the names after the chain, which describe them.
#pragma once

#include "augur/kernels/tuning_policy.hpp"

namespace augur::kernels::markov::tuning {

// ---- Per-architecture policies ----------------------------------------------------------------------

/// Xavier (sm_72): the root of the chain.
struct PolicySm72 {
    // Compiled into the kernels (the same in every policy, asserted below).
    static constexpr int CORRIDORS_PER_THREAD = 4;   ///< not measured
    static constexpr int BLOCK_THREADS = 256;        ///< not measured
    static constexpr int RESIDENT_THREADS = 512;     ///< not measured (sm_87: 8 bytes of stack at n_a = 8, ptxas)
    static constexpr int MAX_RESIDENT_ENTRIES = 12;  ///< sized for config/jetson-orin.yaml's chain (10 slots); not measured
    static constexpr int COMBINE_THREADS = 128;      ///< not measured
    // Chosen at create().
    /// Resident path on a thread-block cluster: position rows are dealt to the cluster's blocks in
    /// chunks of this many rows, round-robin, so that the rows holding mass (a window that grows from
    /// the start cell) stay spread over all blocks; each chunk's last maxShift rows are copied to the
    /// next block's shared memory every step. A power of two, doubled until it is at least the chain's
    /// largest shift.
    static constexpr int RESIDENT_CHUNK_ROWS = 4;  ///< not measured (unused without clusters)
    /// Resident path: largest cluster one corridor is spread over. Auto takes the largest cluster size
    /// up to this for which all corridors of the call are resident at once (cudaOccupancyMaxActiveClusters
    /// at init), else one block per corridor.
    static constexpr int RESIDENT_MAX_CLUSTER_BLOCKS = 1;  ///< no thread-block clusters before sm_90: one block per corridor
    /// Auto propagation: the resident path from this many corridors per call, the tiled one below.
    static constexpr int RESIDENT_MIN_CORRIDORS = 1;  ///< not measured (sm_90's value)
    /// Resident path: the most shared memory one block may opt in to (a chain needing more takes the tiled
    /// path). The architecture's, so that a forced policy runs the path the architecture would.
    static constexpr int MAX_SHARED_BYTES_PER_BLOCK = 96 * 1024;  ///< compute capability 7.2 (CUDA programming guide)
    /// Resident path: the threads and shared memory of one SM, and what the system keeps of the latter
    /// per block: how many resident blocks an SM of this architecture holds, whatever device the policy
    /// is forced on (the device's occupancy query still bounds it: registers, the same 64 K per SM).
    static constexpr int MAX_THREADS_PER_SM = 2048;              ///< compute capability 7.2 (CUDA programming guide)
    static constexpr int MAX_SHARED_BYTES_PER_SM = 96 * 1024;    ///< compute capability 7.2 (CUDA programming guide)
    static constexpr int SHARED_BYTES_RESERVED_PER_BLOCK = 0;    ///< compute capability 7.x (CUDA programming guide)
};

/// Orin (sm_87, 16 SMs; 163 KB of shared memory per block). With 16 SMs the tiled launches, which
/// spread a step over many blocks, have fewer SMs to spread over, so the resident path should gain
/// there too: sm_90's threshold is kept.
struct PolicySm87 : PolicySm72 {
    static constexpr int RESIDENT_MIN_CORRIDORS = 1;  ///< not measured (sm_90's value)
    static constexpr int MAX_SHARED_BYTES_PER_BLOCK = 163 * 1024;  ///< compute capability 8.7 (CUDA programming guide)
    static constexpr int MAX_THREADS_PER_SM = 1536;                ///< compute capability 8.7 (CUDA programming guide)
    static constexpr int MAX_SHARED_BYTES_PER_SM = 164 * 1024;     ///< compute capability 8.7 (CUDA programming guide)
    static constexpr int SHARED_BYTES_RESERVED_PER_BLOCK = 1024;   ///< compute capability 8.x and 9.0 (CUDA programming guide)
};

/// H100 / H200 (sm_90).
struct PolicySm90 : PolicySm87 {
    static constexpr int CORRIDORS_PER_THREAD = 4;   ///< not swept
    static constexpr int BLOCK_THREADS = 256;        ///< not swept (seed's size: 240 of 256 threads busy)
    static constexpr int RESIDENT_THREADS = 512;     ///< not swept (≤ 128 registers, no spills for n_a ≤ 7, ptxas sm_90)
    static constexpr int MAX_RESIDENT_ENTRIES = 12;  ///< sized for the shipped chains (6 and 10 slots); not swept
    static constexpr int COMBINE_THREADS = 128;      ///< not swept (one thread per 16 bytes of Γ)
    static constexpr int RESIDENT_CHUNK_ROWS = 4;  ///< not swept
    static constexpr int RESIDENT_MAX_CLUSTER_BLOCKS = 8;  ///< CUDA's portable cluster size; not swept
    /// H100, seed's chain, 4 s, graph replay (augur-bench-markov): the resident path faster at every
    /// count, also without clusters: 1 corridor 388 against 465 µs tiled, 16: 393 against 902, 64: 405
    /// against 2,800 (clusters: 148, 187, 279).
    static constexpr int RESIDENT_MIN_CORRIDORS = 1;  ///< H100, 64 corridors: resident 405 µs, tiled 2,800 µs
    static constexpr int MAX_SHARED_BYTES_PER_BLOCK = 227 * 1024;  ///< compute capability 9.0 (CUDA programming guide)
    static constexpr int MAX_THREADS_PER_SM = 2048;                ///< compute capability 9.0 (CUDA programming guide)
    static constexpr int MAX_SHARED_BYTES_PER_SM = 228 * 1024;     ///< compute capability 9.0 (CUDA programming guide)
};

/// Whether `Policy` has the values the kernels are compiled with.
template <typename Policy>
constexpr bool compiledValuesOf() noexcept {
    return Policy::CORRIDORS_PER_THREAD == PolicySm90::CORRIDORS_PER_THREAD && Policy::BLOCK_THREADS == PolicySm90::BLOCK_THREADS && Policy::RESIDENT_THREADS == PolicySm90::RESIDENT_THREADS && Policy::MAX_RESIDENT_ENTRIES == PolicySm90::MAX_RESIDENT_ENTRIES && Policy::COMBINE_THREADS == PolicySm90::COMBINE_THREADS;
}
static_assert(compiledValuesOf<PolicySm72>() && compiledValuesOf<PolicySm87>(),
              "compiled into the kernels: one value for every architecture");

/// The launch-time values of one policy, as DeviceChain keeps them.
struct LaunchPolicy {
    int residentChunkRows;
    int residentMaxClusterBlocks;
    int residentMinCorridors;
    int maxSharedBytesPerBlock;
    int maxThreadsPerSm;
    int maxSharedBytesPerSm;
    int sharedBytesReservedPerBlock;

    /// Blocks of `threads` threads and `bytes` of shared memory one SM of the policy's architecture
    /// holds at once, as far as threads and shared memory go.
    [[nodiscard]] constexpr int blocksPerSm(int threads, int bytes) const noexcept {
        const int byThreads = maxThreadsPerSm / threads;
        const int byShared = maxSharedBytesPerSm / (bytes + sharedBytesReservedPerBlock);
        return byThreads < byShared ? byThreads : byShared;
    }
};

template <typename Policy>
constexpr LaunchPolicy launchPolicyOf() noexcept {
    return LaunchPolicy{Policy::RESIDENT_CHUNK_ROWS, Policy::RESIDENT_MAX_CLUSTER_BLOCKS, Policy::RESIDENT_MIN_CORRIDORS,
                        Policy::MAX_SHARED_BYTES_PER_BLOCK, Policy::MAX_THREADS_PER_SM, Policy::MAX_SHARED_BYTES_PER_SM,
                        Policy::SHARED_BYTES_RESERVED_PER_BLOCK};
}

constexpr LaunchPolicy launchPolicy(TuningArch arch) noexcept {
    switch (arch) {
        case TuningArch::Sm72: return launchPolicyOf<PolicySm72>();
        case TuningArch::Sm87: return launchPolicyOf<PolicySm87>();
        case TuningArch::Sm90: break;
    }
    return launchPolicyOf<PolicySm90>();
}

/// The largest cluster of any policy: scratch is sized for it, whichever policy a chain runs with.
inline constexpr int MAX_CLUSTER_BLOCKS = PolicySm90::RESIDENT_MAX_CLUSTER_BLOCKS;
static_assert(MAX_CLUSTER_BLOCKS >= PolicySm87::RESIDENT_MAX_CLUSTER_BLOCKS &&
              MAX_CLUSTER_BLOCKS >= PolicySm72::RESIDENT_MAX_CLUSTER_BLOCKS);

// ---- The values the kernels are compiled with ------------------------------------------------------

/// Tiled path (a chain too large for one block's shared memory): corridors one thread propagates
/// together: the Υ entries it loads are reused for each of them, which divides the transition traffic
/// by this factor. Not swept.
inline constexpr int CORRIDORS_PER_THREAD = PolicySm90::CORRIDORS_PER_THREAD;

/// Tiled path: threads per block of every kernel. A step block holds as many whole position rows
/// (n_v·n_a states) as fit (2 at the seed's size: 240 of 256 threads busy). Not swept.
inline constexpr int BLOCK_THREADS = PolicySm90::BLOCK_THREADS;

/// Resident path: threads of a block that propagates (a share of) one corridor over the whole horizon
/// with p in shared memory (16 warps; one block per SM at the seed's size). Chosen so that a thread
/// keeps its row's stencil (MAX_RESIDENT_ENTRIES slots) and the λ terms of its speed cell in registers
/// (≤ 128 registers; no spills for n_a ≤ 7, 40 bytes of stack at n_a = 8 on sm_90, 8 on sm_87). Not
/// swept.
inline constexpr int RESIDENT_THREADS = PolicySm90::RESIDENT_THREADS;

/// Resident path: most stencil slots per row kept in registers (6 at the seed's size and for a 100 × 10
/// chain, 10 for the shipped deployments' 200 × 20 chain at 40 m/s).
inline constexpr int MAX_RESIDENT_ENTRIES = PolicySm90::MAX_RESIDENT_ENTRIES;

/// Threads per block of the combination kernel (one thread per 16 bytes of Γ).
inline constexpr int COMBINE_THREADS = PolicySm90::COMBINE_THREADS;

}  // namespace augur::kernels::markov::tuning
