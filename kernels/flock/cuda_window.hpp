// CUDA path of the intersection stage (seeds/002 §3.1 second step, §4.3): for every window I_j of a
// batch, M_j = F_j ⊗ F_{j+1} ⊗ … ⊗ F_{j+δ-1}, where G ⊗ H = maximal_μ{a ∩ b : a ∈ G, b ∈ H}, computed
// for all windows of the batch at once from the per-step families the potential stage left on the
// device, reusing work between overlapping windows by doubling (⌊log₂ δ⌋ levels, plus one when δ is
// not a power of two); then each window's flocks in lexicographic order, ready to download. Every size comes from a counting pass and a prefix sum and is checked against the pools
// reserved at init. Host-only interface: no CUDA types. Compiled only with the CUDA backend.
#pragma once

#include <cstdint>
#include <memory>

#include "augur/core/result.hpp"
#include "augur/kernels/flock/flock_types.hpp"
#include "augur/platform/cuda_check.hpp"
#include "augur/platform/stream.hpp"

namespace augur::kernels::flock::detail {

/// Where the potential stage leaves a batch's families on the device. Fixed at init (graph replays
/// read the batch's sizes through these pointers).
struct DeviceFamilies {
    const long long* offsets{nullptr};  ///< set s is members[offsets[s] … offsets[s+1])
    const int* members{nullptr};        ///< each set sorted ascending
    const int* step{nullptr};           ///< batch-relative step of each set
    const unsigned long long* signature{nullptr};  ///< 64-bit membership signature of each set
    const int* stepBegin{nullptr};      ///< maxBatchSteps + 1 entries: step t's sets are stepBegin[t] … stepBegin[t+1]
    const int* steps{nullptr};          ///< the batch's step count
    const int* upstreamOverflow{nullptr};  ///< non-zero: the families are not valid (the potential stage overflowed)
    const int* windowBase{nullptr};        ///< added to the flocks' batch-relative windows
    const long long* memberBase{nullptr};  ///< added to the flocks' member offsets (where the list's next member goes)
    long long maxSets{0};                  ///< capacity of `offsets` (maxFamilySetsPerBatch)
};

/// A batch's flocks and members, as the header reports them after the stage ran.
struct FlockCounts {
    long long flocks{0};
    long long members{0};
};

struct WindowOutcome {
    Capacity overflow{Capacity::None};
    std::int64_t needed{0};
};

class CudaWindowStage {
public:
    CudaWindowStage(const CudaWindowStage&) = delete;
    CudaWindowStage& operator=(const CudaWindowStage&) = delete;
    ~CudaWindowStage();

    /// Reserves the device pools (the candidates of a level and the two families the levels ping-pong
    /// between, each of maxIntersectSetsPerBatch sets and maxIntersectMembersPerBatch members; the
    /// output holds maxFlocksPerBatch flocks and maxFlockMembersPerBatch members), the pinned download
    /// buffers and the scan scratch; with `useGraph` captures the stage as a CUDA graph.
    /// `gridBlocks` × `blockThreads`: the launch shape of the warp-per-set kernels (blockThreads a
    /// multiple of 32). Init phase.
    [[nodiscard]] static Result<std::unique_ptr<CudaWindowStage>, FlockFailure> create(const FlockParams& params,
                                                                                       const FlockCapacities& capacities,
                                                                                       const DeviceFamilies& families, int gridBlocks,
                                                                                       int blockThreads, bool useGraph);

    /// Enqueues the stage for the batch whose families `create` was given (kernels, scans, header
    /// download). noexcept, allocation-free, graph-capturable.
    [[nodiscard]] platform::GpuStatus enqueue(platform::StreamHandle stream) noexcept;

    /// After `enqueue` completed: the first capacity that ran out, if any (Capacity::None also when the
    /// families were not valid; the potential stage reports that).
    [[nodiscard]] WindowOutcome outcome() const noexcept;

    /// After `enqueue` completed without overflow: the batch's flocks and members.
    [[nodiscard]] FlockCounts counts() const noexcept;

    /// … downloads them (flocks ordered by window, then lexicographically; each with windowBase + its
    /// window and memberBase + its members' offset) to `flocks` and `members` (room for counts(); pinned
    /// memory for an asynchronous copy) and synchronises `stream`.
    [[nodiscard]] platform::GpuStatus download(Flock* flocks, std::int32_t* members, platform::StreamHandle stream) noexcept;

    /// Page-locked staging of the stage's own, with room for a batch's flocks and members (for a list
    /// that is not pinned itself: download here, then copy).
    [[nodiscard]] Flock* stagingFlocks() noexcept;
    [[nodiscard]] std::int32_t* stagingMembers() noexcept;

    struct State;

private:
    explicit CudaWindowStage(std::unique_ptr<State> state) noexcept;
    std::unique_ptr<State> m_state;
};

}  // namespace augur::kernels::flock::detail
