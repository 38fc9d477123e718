// The resident propagation of the CUDA Markov path (resident_cuda.cu), as cuda::predict and
// cuda::DeviceChain (markov.cu) use it: one launch propagates every corridor over the whole horizon
// with p(t) in shared memory, each corridor on one block or spread over a thread-block cluster.
// Internal to kernels/markov; host code only (no CUDA types).
#pragma once

#include <cstddef>

#include "augur/kernels/markov/chain.hpp"
#include "augur/kernels/markov/prediction.hpp"
#include "augur/kernels/markov/priority.hpp"
#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"
#include "tuning.hpp"

namespace augur::kernels::markov::resident {

/// Cluster sizes the resident path can take: 1, 2, 4, 8 (index = log2 of the size).
inline constexpr int CLUSTER_SIZES = cuda::RESIDENT_CLUSTER_SIZES;

/// What the resident kernel reads and writes (device pointers).
struct Args {
    ChainConfig chain;
    InputDynamics psi;
    PriorityRules rules;
    const CorridorInput* corridors;
    const cuda::StencilSlot* stencil;  ///< [row type (i_v·n_a + j)][slot]
    int entries;                       ///< slots per row type (≤ tuning::MAX_RESIDENT_ENTRIES)
    int maxShift;                      ///< largest shift of the stencil, position cells
    int chunkRows;                     ///< rows per chunk dealt to a cluster's blocks (power of 2, ≥ maxShift)
    int horizonSteps;
    float* positionMarginal;  ///< [corridor][step][n_s]
    float* speedMarginal;     ///< [corridor][step][n_v]: written directly when a corridor has one block
    float* speedPartial;      ///< [corridor][step][block of the cluster][n_v]: one share per block otherwise
    float* intervalMarginal;  ///< [corridor][step][n_s]: Υ([0, τ])·p summed per position cell
};

/// Dynamic shared memory of one resident block for `chain`, bytes (p, q and the partial sums).
[[nodiscard]] std::size_t sharedBytes(const ChainConfig& chain) noexcept;

/// Whether the chain's shape suits the resident kernel, whatever the device: n_v ≤ 32, n_v·n_a ≤
/// tuning::RESIDENT_THREADS, a row stencil of at most tuning::MAX_RESIDENT_ENTRIES slots, no
/// backward shift.
[[nodiscard]] bool shapeFits(const ChainConfig& chain, const ShiftStencil& stencil) noexcept;

/// Readies the kernel for n_a = chain.inputCells on the current device (raises its shared-memory
/// limit) and fills maxActive[i] with how many corridors on clusters of 2^i blocks the device runs at
/// once (0 where it cannot run one: no cluster launch before sm_90, or too little shared memory).
/// The tuning policy bounds both by its architecture's: a block's shared memory (a chain needing more
/// than `policy.maxSharedBytesPerBlock` is not prepared) and the blocks an SM holds
/// (LaunchPolicy::blocksPerSm), so a policy forced on another device counts the corridors its
/// own architecture would run at once. Returns false when not even one block fits. Init phase:
/// synchronous CUDA calls.
[[nodiscard]] bool prepare(const ChainConfig& chain, const tuning::LaunchPolicy& policy, int (&maxActive)[CLUSTER_SIZES]) noexcept;

/// Enqueues the propagation of corridors [0, corridorCount), `clusterBlocks` blocks (1, 2, 4 or 8)
/// per corridor, on `stream`. Run phase: noexcept, allocation-free, asynchronous, capturable.
[[nodiscard]] platform::GpuStatus launch(const Args& args, int corridorCount, int clusterBlocks,
                                         std::size_t sharedBytes, platform::StreamHandle stream) noexcept;

}  // namespace augur::kernels::markov::resident
