// Intersection stage: maximal flocks of every window from the per-step potential-flock families.
#include "window_stage.hpp"

#include <algorithm>

namespace augur::kernels::flock::detail {

WindowScratch::WindowScratch(int maxEntities, int windowSteps, int workSets, std::int64_t workMembers, std::int64_t maxFlocks,
                             std::int64_t maxFlockMembers)
    : prefix{FamilyBuffer(workSets, workMembers), FamilyBuffer(workSets, workMembers)},
      result(workSets, workMembers),
      combine(maxEntities, workSets, workMembers),
      flocks(static_cast<int>(maxFlocks), maxFlockMembers),
      flockWindow(std::make_unique_for_overwrite<std::int32_t[]>(static_cast<std::size_t>(maxFlocks) + 1)) {
    suffix.reserve(static_cast<std::size_t>(windowSteps));
    for (int i = 0; i < windowSteps; ++i) {
        suffix.emplace_back(workSets, workMembers);
    }
}

namespace {

bool emit(FamilyView family, std::int32_t window, WindowScratch& s, Capacity* overflow) noexcept {
    for (int i = 0; i < family.count; ++i) {
        if (!s.flocks.push(family.set(i))) {
            *overflow = s.flocks.count() >= s.flocks.setCapacity() ? Capacity::FlocksPerBatch : Capacity::FlockMembersPerBatch;
            return false;
        }
        s.flockWindow[s.flocks.count() - 1] = window;
    }
    return true;
}

}  // namespace

WindowResult flocksOfBlocks(const BatchFamilies& families, int batchStart, int windowCount, int blockBegin, int blockEnd,
                            int minEntities, int windowSteps, WindowScratch& s) noexcept {
    WindowResult outcome;
    Capacity* overflow = &outcome.overflow;
    const int delta = windowSteps;
    for (int block = blockBegin; block < blockEnd; ++block) {
        const int b = block * delta;
        const int blockWindows = std::min(delta, windowCount - b);
        // Suffixes S_{b+i}, i = δ-1 … 0; S_{b+δ-1} = F_{b+δ-1} is used in place.
        const auto suffixView = [&](int i) { return i == delta - 1 ? families.step(b + i) : s.suffix[static_cast<std::size_t>(i)].view(); };
        for (int i = delta - 2; i >= 0; --i) {
            if (!combine(families.step(b + i), suffixView(i + 1), minEntities, s.combine, s.suffix[static_cast<std::size_t>(i)], overflow)) {
                return outcome;
            }
        }
        // M_b = S_b; with δ = 1 that is F_b itself, which still needs its lexicographic order.
        if (delta == 1) {
            if (!maximalSets(families.step(b), minEntities, s.combine.maximal, s.result, overflow) ||
                !emit(s.result.view(), batchStart + b, s, overflow)) {
                return outcome;
            }
            continue;
        }
        if (!emit(suffixView(0), batchStart + b, s, overflow)) {
            return outcome;
        }
        // Later windows of the block: M_j = S_j ⊗ P_{j+δ-1}, P extended by one step per window. A block
        // of one window has no step b + δ (a batch may end there), so P is read only when it is used.
        if (blockWindows < 2) {
            continue;
        }
        int current = 0;
        FamilyView prefix = families.step(b + delta);
        for (int i = 1; i < blockWindows; ++i) {
            if (i > 1) {
                FamilyBuffer& next = s.prefix[current];
                if (!combine(prefix, families.step(b + i + delta - 1), minEntities, s.combine, next, overflow)) {
                    return outcome;
                }
                prefix = next.view();
                current ^= 1;
            }
            if (!combine(suffixView(i), prefix, minEntities, s.combine, s.result, overflow) ||
                !emit(s.result.view(), batchStart + b + i, s, overflow)) {
                return outcome;
            }
        }
    }
    return outcome;
}

}  // namespace augur::kernels::flock::detail
