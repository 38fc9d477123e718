// CUDA path of FlockFinder for one batch of consecutive steps, kept on the device from the input to
// the ordered flocks: the potential-flock stage (seeds/002 §4.1–4.2, one thread block per step in
// shared memory or, when a step does not fit, in a global-memory workspace: the multi-grid by counting
// + prefix sum + placement, Lemma-3 disks by a counting pass + prefix sum + emission, points per disk,
// potential flocks, their maximal sets; then the batch families in step order), then the
// intersection stage of cuda_window.hpp on those families, then one download of the batch's flocks.
// Every size comes from a counting pass and is checked against the pools reserved at init.
// Host-only interface: no CUDA types. Compiled only with the CUDA backend.
#pragma once

#include <cstdint>
#include <memory>

#include "augur/core/result.hpp"
#include "augur/kernels/flock/flock_types.hpp"
#include "augur/platform/stream.hpp"
#include "cuda_window.hpp"
#include "geometry.hpp"
#include "tuning.hpp"

namespace augur::kernels::flock::detail {

/// Launch shapes of the flock kernels (defaults: tuning.hpp; FlockOptions documents each).
struct LaunchShape {
    int block;                 ///< threads per block of the family copy
    int blocksPerSm;           ///< grid-stride grids: blocks of `block` threads per SM
    int windowBlock;           ///< threads per block of the intersection kernels
    int stepBlock;             ///< > 0: threads per block of the per-step kernels; 0: from maxEntities
    int stepBlocksPerSm;       ///< > 0: per-step kernel's shared memory per block = the SM's / this; 0: from
                               ///< the points and grid of a step of maxEntities
    long long stepSharedBytes; ///< > 0: the per-step kernel's shared memory per block instead
    int workspaceBlocks;       ///< > 0: blocks (global workspaces) for the steps that do not fit; 0: per SM
    bool fallbackInShared;     ///< those steps try the largest shared memory of a block before a workspace
    int inPlaceWaves;          ///< … are worked in place when this many waves of resident blocks follow them
    tuning::LaunchPolicy policy;  ///< the architecture's launch-time values (the rest of the shape's defaults)
};

struct BatchResult {
    std::int64_t disks{0};
    std::int64_t potentialWindows{0};  ///< Σ |F_t| over the steps that start a window of the batch
    std::int64_t potentialAll{0};      ///< Σ |F_t| over all steps of the batch
    Capacity overflow{Capacity::None};
    std::int64_t needed{0};
    std::int64_t stepsInWorkspace{0};  ///< steps that did not fit the per-step kernel's shared memory
    std::int64_t stepsInPlace{0};      ///< … of which the per-step kernel worked in place (global workspace)
    std::int64_t stepsInGlobal{0};     ///< … of which were worked in a global-memory workspace
    bool invalidInput{false};          ///< a present sample was not finite (nothing else is valid then)
    double potential_us{0.0};          ///< device time: input copy and potential-flock kernels
    double intersect_us{0.0};          ///< device time of the intersection kernels, plus the flocks' download into the list
};

class CudaBatchStage {
public:
    CudaBatchStage(const CudaBatchStage&) = delete;
    CudaBatchStage& operator=(const CudaBatchStage&) = delete;
    ~CudaBatchStage();

    /// Reserves the device pools, pinned staging, scan scratch and timing events; with `useGraph`
    /// captures the kernel sequence of each stage as a CUDA graph (the input copy stays outside, so that
    /// device-resident input can be copied from the caller's buffers). Init phase.
    [[nodiscard]] static Result<std::unique_ptr<CudaBatchStage>, FlockFailure> create(const FlockParams& params, const Limits& limits,
                                                                                      const FlockCapacities& capacities, bool useGraph,
                                                                                      const LaunchShape& shape);

    /// Appends to `out` the flocks of every window that starts in [firstStep, firstStep + steps - δ] of
    /// `view` (steps ≤ maxBatchSteps, entityCount ≤ maxEntities), window indices relative to the view.
    /// `onDevice`: the view's arrays are device memory. A pinned list receives the download directly,
    /// another one a copy of the stage's pinned staging. Nothing is appended when the result reports an
    /// overflow (Capacity::OutputFlocks / OutputMembers: the list is full). Blocks until the flocks are
    /// in the list. noexcept, allocation-free.
    [[nodiscard]] Result<BatchResult, platform::GpuError> run(const TrajectoryView& view, bool onDevice, int firstStep, int steps,
                                                              FlockList& out, platform::StreamHandle stream) noexcept;

    struct State;

private:
    explicit CudaBatchStage(std::unique_ptr<State> state) noexcept;
    std::unique_ptr<State> m_state;
};

}  // namespace augur::kernels::flock::detail
