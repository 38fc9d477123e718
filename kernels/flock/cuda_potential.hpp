// CUDA path of the potential-flock stage (seeds/002 §4.1–4.2) for a batch of consecutive steps: the
// multi-grid by counting (atomics) + prefix sum + placement, Lemma-3 disks by a counting pass + prefix
// sum + emission, points per disk, potential flocks, their maximal sets, and compaction into the batch
// families. Every size comes from a counting pass and is checked against the pools reserved at init.
// Host-only interface: no CUDA types. Compiled only with the CUDA backend.
#pragma once

#include <cstdint>
#include <memory>

#include "augur/core/result.hpp"
#include "augur/kernels/flock/flock_types.hpp"
#include "augur/platform/stream.hpp"
#include "family.hpp"
#include "geometry.hpp"

namespace augur::kernels::flock::detail {

struct BatchResult {
    std::int64_t disks{0};
    Capacity overflow{Capacity::None};
    std::int64_t needed{0};
};

class CudaPotentialStage {
public:
    CudaPotentialStage(const CudaPotentialStage&) = delete;
    CudaPotentialStage& operator=(const CudaPotentialStage&) = delete;
    ~CudaPotentialStage();

    /// Reserves the device pools, pinned staging and scan scratch; with `useGraph` captures the per-batch
    /// sequence (upload, kernels, size header download) as a CUDA graph. Init phase.
    [[nodiscard]] static Result<std::unique_ptr<CudaPotentialStage>, FlockFailure> create(const FlockParams& params, const Limits& limits,
                                                                                          const FlockCapacities& capacities,
                                                                                          bool useGraph);

    /// F_t for the steps [firstStep, firstStep + steps) of `view` into `out` (steps ≤ maxBatchSteps,
    /// entityCount ≤ maxEntities). Blocks until the families are on the host. noexcept, allocation-free.
    [[nodiscard]] Result<BatchResult, platform::GpuError> run(const TrajectoryView& view, int firstStep, int steps,
                                                              BatchFamilies& out, platform::StreamHandle stream) noexcept;

    struct State;

private:
    explicit CudaPotentialStage(std::unique_ptr<State> state) noexcept;
    std::unique_ptr<State> m_state;
};

}  // namespace augur::kernels::flock::detail
