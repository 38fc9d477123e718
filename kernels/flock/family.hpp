// Families of entity sets with capacities fixed at init, and the two set operations of seeds/002 §3.1:
// reducing a family to its maximal sets and intersecting two families.
//
// A set is a sorted, duplicate-free run of entity indices. A family is a list of sets stored as offsets
// into one member array (CSR). Nothing here allocates after construction; a full buffer reports
// overflow to the caller instead of growing.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "augur/core/panic.hpp"
#include "augur/kernels/flock/flock_types.hpp"

namespace augur::kernels::flock::detail {

/// Read-only view of a family.
struct FamilyView {
    const std::int64_t* offsets{nullptr};  ///< count + 1 entries; set i is members[offsets[i] … offsets[i+1])
    const std::int32_t* members{nullptr};
    int count{0};

    [[nodiscard]] std::span<const std::int32_t> set(int i) const noexcept {
        return {members + offsets[i], static_cast<std::size_t>(offsets[i + 1] - offsets[i])};
    }
    [[nodiscard]] int setSize(int i) const noexcept { return static_cast<int>(offsets[i + 1] - offsets[i]); }
};

/// A family with fixed capacities (sets, members).
class FamilyBuffer {
public:
    FamilyBuffer() = default;
    /// Reserves the storage (uninitialised pages: untouched memory costs nothing). Init phase.
    FamilyBuffer(int maxSets, std::int64_t maxMembers);

    void clear() noexcept {
        m_count = 0;
        m_offsets[0] = 0;
    }
    /// Drops the sets from index `count` on (count ≤ count()).
    void truncate(int count) noexcept { m_count = count; }
    /// Appends a sorted set; false when a capacity would be exceeded (nothing changes).
    [[nodiscard]] bool push(std::span<const std::int32_t> set) noexcept;
    /// Appends an empty set and returns where its members go (room for `maxSize`); commit with finish().
    [[nodiscard]] std::int32_t* beginSet(std::int64_t maxSize) noexcept;
    void finishSet(std::int64_t size) noexcept;

    /// Raw storage for producers that fill offsets and members themselves, then call assign(count).
    [[nodiscard]] std::int64_t* offsetData() noexcept { return m_offsets.get(); }
    [[nodiscard]] std::int32_t* memberData() noexcept { return m_members.get(); }
    void assign(int count) noexcept { m_count = count; }

    [[nodiscard]] FamilyView view() const noexcept { return {m_offsets.get(), m_members.get(), m_count}; }
    [[nodiscard]] int count() const noexcept { return m_count; }
    [[nodiscard]] std::int64_t memberCount() const noexcept { return m_offsets[m_count]; }
    [[nodiscard]] int setCapacity() const noexcept { return m_maxSets; }
    [[nodiscard]] std::int64_t memberCapacity() const noexcept { return m_maxMembers; }

private:
    std::unique_ptr<std::int64_t[]> m_offsets;
    std::unique_ptr<std::int32_t[]> m_members;
    int m_count{0};
    int m_maxSets{0};
    std::int64_t m_maxMembers{0};
};

/// Potential-flock families F_t of the consecutive steps of one batch: step t's family is the sets
/// stepBegin[t] … stepBegin[t+1] of `sets`.
struct BatchFamilies {
    FamilyBuffer sets;
    std::unique_ptr<std::int32_t[]> stepBegin;  ///< maxBatchSteps + 1 entries
    int steps{0};

    /// Step t's family; t < steps (stepBegin holds steps + 1 valid entries).
    [[nodiscard]] FamilyView step(int t) const noexcept {
        AUGUR_ASSERT(t >= 0 && t < steps, "BatchFamilies::step past the batch");
        const FamilyView all = sets.view();
        return {all.offsets + stepBegin[t], all.members, stepBegin[t + 1] - stepBegin[t]};
    }
};

/// Scratch for maximalSets: index and signature arrays of one family's capacity.
class MaximalScratch {
public:
    MaximalScratch() = default;
    explicit MaximalScratch(int maxSets);
    std::int32_t* order() noexcept { return m_order.get(); }
    std::int32_t* kept() noexcept { return m_kept.get(); }
    std::uint64_t* signature() noexcept { return m_signature.get(); }
    [[nodiscard]] int capacity() const noexcept { return m_capacity; }

private:
    std::unique_ptr<std::int32_t[]> m_order;
    std::unique_ptr<std::int32_t[]> m_kept;
    std::unique_ptr<std::uint64_t[]> m_signature;
    int m_capacity{0};
};

/// 64-bit membership signature (a one-hash Bloom filter): a ⊆ b implies sig(a) & ~sig(b) == 0.
[[nodiscard]] std::uint64_t setSignature(std::span<const std::int32_t> set) noexcept;

/// True when sorted `a` ⊆ sorted `b`. O(|a| + |b|).
[[nodiscard]] bool isSubset(std::span<const std::int32_t> a, std::span<const std::int32_t> b) noexcept;

/// Lexicographic order of sorted sets (a proper prefix sorts first).
[[nodiscard]] bool lexLess(std::span<const std::int32_t> a, std::span<const std::int32_t> b) noexcept;

/// Writes into `out` the maximal sets (w.r.t. inclusion, duplicates merged) of `in` that have at least
/// `minSize` members, in lexicographic order. O(k² · s) worst case for k sets of size s (signatures
/// skip most comparisons). Returns false on overflow of `out` (Capacity in *overflow).
[[nodiscard]] bool maximalSets(FamilyView in, int minSize, MaximalScratch& scratch, FamilyBuffer& out,
                               Capacity* overflow) noexcept;

/// Scratch for pairwiseIntersections: an inverted index entity → sets of the second family (linked
/// lists threaded through its member slots) and a per-set stamp, so only overlapping pairs are visited.
class IntersectScratch {
public:
    IntersectScratch() = default;
    IntersectScratch(int maxEntities, int maxSets, std::int64_t maxMembers);

private:
    friend bool pairwiseIntersections(FamilyView, FamilyView, int, IntersectScratch&, FamilyBuffer&, Capacity*) noexcept;
    std::unique_ptr<std::int64_t[]> m_head;     ///< per entity: last member slot holding it, -1 if none (kept all -1)
    std::unique_ptr<std::int64_t[]> m_next;     ///< per member slot: previous slot with the same entity
    std::unique_ptr<std::int32_t[]> m_setOf;    ///< per member slot: its set
    std::unique_ptr<std::uint64_t[]> m_stamp;   ///< per set: last first-family set it was intersected with
    std::uint64_t m_clock{0};
    int m_maxEntities{0};
    int m_maxSets{0};
    std::int64_t m_maxMembers{0};
};

/// Writes into `out` the candidates of first ⊗ second: every a ∩ b (a ∈ first, b ∈ second) with at least
/// `minSize` members (not yet reduced to maximal sets) — except that when some b contains a, a alone
/// stands for its row (every other a ∩ b is a subset or a duplicate of it, and so is anything such
/// an a ∩ b would make non-maximal: the maximal sets are the same). Pairs that share no entity are
/// never visited. Entity indices must be below the scratch's maxEntities. O(|first|·overlaps·s +
/// members). Returns false on overflow.
[[nodiscard]] bool pairwiseIntersections(FamilyView first, FamilyView second, int minSize, IntersectScratch& scratch,
                                         FamilyBuffer& out, Capacity* overflow) noexcept;

/// Scratch of combine(): the candidates a ∩ b and the scratch of the two operations it chains.
struct CombineScratch {
    CombineScratch(int maxEntities, int workSets, std::int64_t workMembers);

    FamilyBuffer candidates;
    MaximalScratch maximal;
    IntersectScratch intersect;
};

/// G ⊗ H = maximal_μ{a ∩ b : a ∈ G, b ∈ H} into `out` (lexicographic order): pairwiseIntersections, then
/// maximalSets. Associative on maximal families, so a window's flocks are the ⊗ of its steps' families
/// in any grouping. Returns false on overflow.
[[nodiscard]] bool combine(FamilyView g, FamilyView h, int minSize, CombineScratch& scratch, FamilyBuffer& out,
                           Capacity* overflow) noexcept;

}  // namespace augur::kernels::flock::detail
