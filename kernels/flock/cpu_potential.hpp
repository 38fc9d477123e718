// CPU reference of the potential-flock stage (seeds/002 §4.1–4.2) for one time step: the step's grid
// built by counting, prefix sum and placement; one Lemma-3 disk per point pair at distance ≤ 2ε; point
// counts per disk through the grid; the potential flocks (disks with ≥ μ points); their maximal sets.
#pragma once

#include <cstdint>
#include <memory>

#include "family.hpp"
#include "geometry.hpp"

namespace augur::kernels::flock::detail {

/// Per-worker scratch for one step, sized at init.
struct StepScratch {
    StepScratch(int maxEntities, int gridCellsPerStep, std::int64_t maxDisks, std::int64_t maxMembers);

    int maxEntities;
    int cellCapacity;
    std::int64_t diskCapacity;
    std::int64_t memberCapacity;
    std::unique_ptr<std::int32_t[]> cellCount;   ///< cells + 1
    std::unique_ptr<std::int32_t[]> cellStart;   ///< cells + 1 (prefix sum of cellCount)
    std::unique_ptr<std::int32_t[]> cellFill;    ///< placement cursor per cell
    std::unique_ptr<std::int32_t[]> pointCell;   ///< per entity: its cell, -1 when absent
    std::unique_ptr<std::int32_t[]> sortedId;    ///< entities in cell order
    std::unique_ptr<double[]> sortedX;
    std::unique_ptr<double[]> sortedY;
    std::unique_ptr<std::int64_t[]> anchorDiskBegin;  ///< per entity + 1: its disks' range
    std::unique_ptr<DiskOffset[]> diskOffset;
    std::unique_ptr<std::int32_t[]> diskAnchor;
    std::unique_ptr<std::int32_t[]> diskSize;          ///< points in the disk when ≥ μ, else 0
    std::unique_ptr<std::int64_t[]> diskMemberStart;
    std::unique_ptr<std::uint64_t[]> diskSignature;
    std::unique_ptr<std::int32_t[]> members;
};

struct StepResult {
    std::int64_t disks{0};
    Capacity overflow{Capacity::None};
    std::int64_t needed{0};
};

/// Appends F_t, the maximal potential flocks of step `step` of `view` (sets of ≥ μ entity indices, in
/// disk order), to `out`. noexcept, allocation-free; a full buffer is reported in the result.
/// Complexity: O(n + Σ_disks neighbourhood) for the counts, O(Σ_disks (nearby disks · s)) for maximality.
[[nodiscard]] StepResult potentialFlocksOfStep(const TrajectoryView& view, int step, int minEntities, const Limits& limits,
                                               int sideCap, StepScratch& scratch, FamilyBuffer& out) noexcept;

}  // namespace augur::kernels::flock::detail
