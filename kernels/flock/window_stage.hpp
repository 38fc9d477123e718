// Intersection stage (seeds/002 §3.1 second step, §4.3): for every window I_j of a batch, the maximal
// sets with ≥ μ members of the intersections of one set from each of F_j … F_{j+δ-1}.
//
// The operation G ⊗ H = maximal_μ{a ∩ b : a ∈ G, b ∈ H} is associative on maximal families, so the
// per-step families are reused between consecutive windows as in a sliding-window aggregate: windows
// are grouped in blocks of δ; for a block starting at b the suffixes S_j = F_j ⊗ … ⊗ F_{b+δ-1} are built
// once, the prefixes P_k = F_{b+δ} ⊗ … ⊗ F_k are extended one step per window, and M_j = S_j ⊗ P_{j+δ-1}.
// That is about three ⊗ per window instead of the δ - 1 of intersecting each window from scratch.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "family.hpp"

namespace augur::kernels::flock::detail {

/// Per-worker scratch, sized at init.
struct WindowScratch {
    WindowScratch(int maxEntities, int windowSteps, int workSets, std::int64_t workMembers, std::int64_t maxFlocks,
                  std::int64_t maxFlockMembers);

    std::vector<FamilyBuffer> suffix;  ///< δ families
    FamilyBuffer prefix[2];
    FamilyBuffer result;
    CombineScratch combine;
    FamilyBuffer flocks;                         ///< this worker's output sets…
    std::unique_ptr<std::int32_t[]> flockWindow;  ///< … and their window starts
};

struct WindowResult {
    Capacity overflow{Capacity::None};
    std::int64_t needed{0};
};

/// Computes M_j for the windows j ∈ [blockBegin·δ, min(blockEnd·δ, windowCount)) of a batch whose step 0 is
/// global step `batchStart`, appending them (window order, then lexicographic) to scratch.flocks.
/// noexcept, allocation-free.
[[nodiscard]] WindowResult flocksOfBlocks(const BatchFamilies& families, int batchStart, int windowCount, int blockBegin,
                                          int blockEnd, int minEntities, int windowSteps, WindowScratch& scratch) noexcept;

}  // namespace augur::kernels::flock::detail
