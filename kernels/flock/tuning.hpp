// Launch parameters of the flock kernels, per architecture. The per-step kernel of the potential stage
// runs one block per step; the other kernels are grid-stride loops with a fixed launch shape
// (graph-capturable, deterministic shape). FlockOptions can override them for experiments
// (augur-bench-flock --sweep, --step-sweep).
//
// Swept on sm_90 (H100 80GB HBM3), augur-bench-flock --sweep: threads per block {128, 256, 512} ×
// blocks per SM {4, 8, 16} × intersection threads per block {64, 128, 256}, input resident, graphs;
// see docs/benchmarks.md. With the warp-per-set intersection kernels:
// 2,000 entities 1.67 ms at 256 × 16 × 128 (the best, tied with 256 × 16 × 64/256) against 1.88 ms at
// the previous default 256 × 8 × 128; seed-shaped run (ε = 50) 12.89 ms against 13.20 ms (best shape
// 12.26 ms, 512 × 8 × 64, which gives 1.70 ms at 2,000 entities). 512 threads per SM (128 × 4) is
// clearly the slowest on both. The grid-stride loops gain from twice as many blocks as fit at once
// (the grid is a launch size, not a residency): the later blocks even out the SMs' tails.
// The per-step kernel (one block per step, the step in shared memory) was swept with
// augur-bench-flock --step-sweep (threads per block {128, 256, 512, 1024} × blocks per SM {1 … 4},
// H100): best 512 × 2 at 2,000 entities (1.27 ms; ≈ 110 KB of shared memory per
// block) and 256 threads on the seed shape (9.50 ms at 4 blocks per SM, the most swept), which
// LARGE_STEP_ENTITIES and the footprint rule below choose.
// sm_87 (Orin) and sm_72 (Xavier) have not been swept. The launch-time values form the chain
// PolicySm72 → PolicySm87 → PolicySm90 below (tuning_policy.hpp), chosen at FlockFinder::create();
// the values compiled into the kernels (launch bounds, the index block) follow it, one per binary.
#pragma once

#include "augur/kernels/tuning_policy.hpp"

namespace augur::kernels::flock::tuning {

// ---- Per-architecture policies ----------------------------------------------------------------------

/// Xavier (sm_72, 8 SMs, 2,048 threads and 96 KB of shared memory per SM): the root of the chain.
struct PolicySm72 {
    // Compiled into the kernels (the same in every policy, asserted below).
    static constexpr int MAX_STEP_BLOCK = 1024;  ///< not measured (sm_90's value)
    static constexpr int MIN_STEP_BLOCKS = 1;    ///< not measured (sm_90's value)
    static constexpr int INDEX_BLOCK = 1024;     ///< not measured (sm_90's value)
    // Chosen at create().
    /// Threads per block of the per-step kernels of the potential stage (and the family copy).
    static constexpr int BLOCK = 256;  ///< not measured (sm_90's value)
    /// Blocks per SM of the grid-stride kernels' grids: twice the SM's resident threads (two waves).
    static constexpr int BLOCKS_PER_SM = 16;  ///< 2 × 2,048 / 256 (sm_90's two-wave rule); not measured
    /// Threads per block of the intersection-stage kernels (one warp per set: count, write, maximal,
    /// compact, rank, output). Their grid has BLOCK × BLOCKS_PER_SM threads per SM, as the others.
    static constexpr int WINDOW_BLOCK = 128;  ///< not measured (sm_90's value)
    /// Per-step kernel: steps of at least this many entities get LARGE_STEP_BLOCK threads per block,
    /// smaller ones BLOCK.
    static constexpr int LARGE_STEP_ENTITIES = 1024;  ///< not measured (sm_90's value)
    static constexpr int LARGE_STEP_BLOCK = 512;      ///< not measured (sm_90's value)
    /// Per-step kernel: blocks that share one SM get the SM's shared memory divided among them (less the
    /// per-block reserve and the static shared memory); as many as leave each block STEP_ROOM_PERCENT of
    /// what the points and the grid of a step of maxEntities take (the rest is for its disks and
    /// members), at most SM_THREADS threads per SM. A step that needs more goes to the global-memory
    /// workspaces.
    static constexpr long long STEP_ROOM_PERCENT = 150;  ///< not measured (sm_90's value)
    static constexpr int SM_THREADS = 2048;  ///< resident threads per SM, compute capability 7.2 (CUDA guide)
    /// Global workspaces (one block each) per SM for the steps that do not fit in shared memory; each
    /// holds maxEntities points, the full grid, maxDisksPerStep disks and maxCandidateMembersPerStep members.
    static constexpr int WORKSPACE_BLOCKS_PER_SM = 2;  ///< not measured (sm_90's value)
    /// A step whose points and grid fit the per-step kernel's shared memory but whose disks do not is
    /// finished in place, its disks in a global workspace, when at least IN_PLACE_WAVES waves of the
    /// kernel's resident blocks follow it; a later one goes to the second kernel.
    static constexpr int IN_PLACE_WAVES = 2;  ///< not measured (sm_90's value)
};

/// Orin (sm_87, 16 SMs on the AGX, 1,536 threads and 164 KB of shared memory per SM).
struct PolicySm87 : PolicySm72 {
    static constexpr int SM_THREADS = 1536;  ///< resident threads per SM, compute capability 8.7 (CUDA guide)
    static constexpr int BLOCKS_PER_SM = 12;  ///< 2 × 1,536 / 256 (sm_90's two-wave rule); not measured
};

/// H100 / H200 (sm_90, 132 SMs, 2,048 threads and 228 KB of shared memory per SM). Swept as the header says.
struct PolicySm90 : PolicySm87 {
    static constexpr int MAX_STEP_BLOCK = 1024;  ///< H100, 2,000 entities, 23 steps: 119 µs at 1,024 threads vs 156 at 512
    static constexpr int MIN_STEP_BLOCKS = 1;    ///< H100: 64 registers at most (86 without the bound, ptxas sm_90)
    static constexpr int INDEX_BLOCK = 1024;     ///< not swept
    static constexpr int BLOCK = 256;  ///< H100, 2,000 entities: 1.67 ms at 256 × 16 × 128 (best, with 64/256)
    static constexpr int BLOCKS_PER_SM = 16;  ///< H100, 2,000 entities: 1.67 ms at 16 against 1.88 ms at 8
    static constexpr int WINDOW_BLOCK = 128;  ///< H100, 2,000 entities: 1.67 ms, tied with 64 and 256
    /// H100, per-step kernel: 2,000 entities 0.65 ms at 512 threads against 0.98 at 256 (one block per
    /// SM); the seed shape's 145 entities 4.68 ms at 256 against 7.53 at 512 (four blocks per SM).
    static constexpr int LARGE_STEP_ENTITIES = 1024;  ///< H100: 0.65 ms at 512 threads vs 4.68 ms at 256 (145 entities)
    static constexpr int LARGE_STEP_BLOCK = 512;      ///< H100, 2,000 entities: 0.65 ms against 0.98 at 256
    static constexpr long long STEP_ROOM_PERCENT = 150;  ///< not swept
    static constexpr int SM_THREADS = 2048;  ///< resident threads per SM, compute capability 9.0 (CUDA guide)
    static constexpr int WORKSPACE_BLOCKS_PER_SM = 2;  ///< not swept
    /// H100, 2,000 entities (17 such steps, the batch's first): per-step + second kernel 271 + 97 µs
    /// with all of them in the second kernel, 281 + 3 µs in place (augur-bench-flock).
    static constexpr int IN_PLACE_WAVES = 2;  ///< H100, 2,000 entities: 284 µs in place vs 368 µs
};

/// Whether `Policy` has the values the kernels are compiled with.
template <typename Policy>
constexpr bool compiledValuesOf() noexcept {
    return Policy::MAX_STEP_BLOCK == PolicySm90::MAX_STEP_BLOCK && Policy::MIN_STEP_BLOCKS == PolicySm90::MIN_STEP_BLOCKS && Policy::INDEX_BLOCK == PolicySm90::INDEX_BLOCK;
}
static_assert(compiledValuesOf<PolicySm72>() && compiledValuesOf<PolicySm87>(),
              "compiled into the kernels: one value for every architecture");

/// The launch-time values of one policy, as create() keeps them (FlockFinderOptions override some).
struct LaunchPolicy {
    int block;
    int blocksPerSm;
    int windowBlock;
    int largeStepEntities;
    int largeStepBlock;
    long long stepRoomPercent;
    int smThreads;
    int workspaceBlocksPerSm;
    int inPlaceWaves;
};

template <typename Policy>
constexpr LaunchPolicy launchPolicyOf() noexcept {
    return LaunchPolicy{Policy::BLOCK,          Policy::BLOCKS_PER_SM,     Policy::WINDOW_BLOCK,
                        Policy::LARGE_STEP_ENTITIES, Policy::LARGE_STEP_BLOCK, Policy::STEP_ROOM_PERCENT,
                        Policy::SM_THREADS,     Policy::WORKSPACE_BLOCKS_PER_SM, Policy::IN_PLACE_WAVES};
}

constexpr LaunchPolicy launchPolicy(TuningArch arch) noexcept {
    switch (arch) {
        case TuningArch::Sm72: return launchPolicyOf<PolicySm72>();
        case TuningArch::Sm87: return launchPolicyOf<PolicySm87>();
        case TuningArch::Sm90: break;
    }
    return launchPolicyOf<PolicySm90>();
}

static_assert(PolicySm72::LARGE_STEP_BLOCK <= PolicySm90::MAX_STEP_BLOCK &&
              PolicySm87::LARGE_STEP_BLOCK <= PolicySm90::MAX_STEP_BLOCK && PolicySm90::LARGE_STEP_BLOCK <= PolicySm90::MAX_STEP_BLOCK);

// ---- The values the kernels are compiled with ------------------------------------------------------

/// Largest block of the per-step kernels, and how many such blocks must fit on one SM by registers
/// (1,024 × 1, as 512 × 2: at most 64 registers per thread; without the bound they took 86 on sm_90,
/// which let only one 512-thread or two 256-thread blocks share an SM).
inline constexpr int MAX_STEP_BLOCK = PolicySm90::MAX_STEP_BLOCK;
inline constexpr int MIN_STEP_BLOCKS = PolicySm90::MIN_STEP_BLOCKS;

/// The kernel that takes again the steps that did not fit the per-step kernel's shared memory (one
/// block per SM: the largest shared memory a block may have, else a global workspace) runs
/// MAX_STEP_BLOCK threads per block: these are the batch's heaviest steps, each alone on an SM while
/// the rest of the GPU waits (H100, 2,000 entities, 23 such steps: 119 µs at 1,024 threads against
/// 156 µs at 512).

/// Threads of the one block that prefix-sums the steps' family sizes.
inline constexpr int INDEX_BLOCK = PolicySm90::INDEX_BLOCK;

}  // namespace augur::kernels::flock::tuning
