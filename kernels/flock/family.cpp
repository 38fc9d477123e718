// Families of entity sets: storage, maximal-set reduction and pairwise intersection (seeds/002 §3.1).
#include "family.hpp"

#include <algorithm>

namespace augur::kernels::flock::detail {

FamilyBuffer::FamilyBuffer(int maxSets, std::int64_t maxMembers)
    : m_offsets(std::make_unique_for_overwrite<std::int64_t[]>(static_cast<std::size_t>(maxSets) + 1)),
      m_members(std::make_unique_for_overwrite<std::int32_t[]>(static_cast<std::size_t>(std::max<std::int64_t>(maxMembers, 1)))),
      m_maxSets(maxSets),
      m_maxMembers(maxMembers) {
    m_offsets[0] = 0;
}

bool FamilyBuffer::push(std::span<const std::int32_t> set) noexcept {
    std::int32_t* dst = beginSet(static_cast<std::int64_t>(set.size()));
    if (dst == nullptr) {
        return false;
    }
    std::copy(set.begin(), set.end(), dst);
    finishSet(static_cast<std::int64_t>(set.size()));
    return true;
}

std::int32_t* FamilyBuffer::beginSet(std::int64_t maxSize) noexcept {
    if (m_count >= m_maxSets || m_offsets[m_count] + maxSize > m_maxMembers) {
        return nullptr;
    }
    return m_members.get() + m_offsets[m_count];
}

void FamilyBuffer::finishSet(std::int64_t size) noexcept {
    m_offsets[m_count + 1] = m_offsets[m_count] + size;
    ++m_count;
}

MaximalScratch::MaximalScratch(int maxSets)
    : m_order(std::make_unique_for_overwrite<std::int32_t[]>(static_cast<std::size_t>(maxSets) + 1)),
      m_kept(std::make_unique_for_overwrite<std::int32_t[]>(static_cast<std::size_t>(maxSets) + 1)),
      m_signature(std::make_unique_for_overwrite<std::uint64_t[]>(static_cast<std::size_t>(maxSets) + 1)),
      m_capacity(maxSets) {}

std::uint64_t setSignature(std::span<const std::int32_t> set) noexcept {
    std::uint64_t signature = 0;
    for (const std::int32_t id : set) {
        const auto h = static_cast<std::uint32_t>(id) * 0x9E3779B1U;
        signature |= std::uint64_t{1} << (h >> 26U);
    }
    return signature;
}

bool isSubset(std::span<const std::int32_t> a, std::span<const std::int32_t> b) noexcept {
    if (a.size() > b.size()) {
        return false;
    }
    std::size_t j = 0;
    for (const std::int32_t v : a) {
        while (j < b.size() && b[j] < v) {
            ++j;
        }
        if (j == b.size() || b[j] != v) {
            return false;
        }
        ++j;
    }
    return true;
}

bool lexLess(std::span<const std::int32_t> a, std::span<const std::int32_t> b) noexcept {
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end());
}

bool maximalSets(FamilyView in, int minSize, MaximalScratch& scratch, FamilyBuffer& out, Capacity* overflow) noexcept {
    out.clear();
    if (in.count > scratch.capacity()) {
        *overflow = Capacity::WorkSets;
        return false;
    }
    std::int32_t* order = scratch.order();
    int candidates = 0;
    for (int i = 0; i < in.count; ++i) {
        if (in.setSize(i) >= minSize) {
            order[candidates++] = i;
        }
    }
    // Larger sets first, so a set can only be contained in one already kept; equal sets are adjacent.
    std::sort(order, order + candidates, [&in](std::int32_t a, std::int32_t b) {
        const int sa = in.setSize(a);
        const int sb = in.setSize(b);
        return sa != sb ? sa > sb : lexLess(in.set(a), in.set(b));
    });
    std::int32_t* kept = scratch.kept();
    std::uint64_t* signature = scratch.signature();
    int keptCount = 0;
    for (int k = 0; k < candidates; ++k) {
        const auto set = in.set(order[k]);
        if (k > 0) {
            const auto previous = in.set(order[k - 1]);
            if (std::equal(set.begin(), set.end(), previous.begin(), previous.end())) {
                continue;
            }
        }
        const std::uint64_t sig = setSignature(set);
        bool contained = false;
        for (int m = 0; m < keptCount && !contained; ++m) {
            contained = (sig & ~signature[m]) == 0 && isSubset(set, in.set(kept[m]));
        }
        if (!contained) {
            signature[keptCount] = sig;
            kept[keptCount++] = order[k];
        }
    }
    std::sort(kept, kept + keptCount, [&in](std::int32_t a, std::int32_t b) { return lexLess(in.set(a), in.set(b)); });
    for (int m = 0; m < keptCount; ++m) {
        if (!out.push(in.set(kept[m]))) {
            *overflow = out.count() >= out.setCapacity() ? Capacity::WorkSets : Capacity::WorkMembers;
            return false;
        }
    }
    return true;
}

IntersectScratch::IntersectScratch(int maxEntities, int maxSets, std::int64_t maxMembers)
    : m_head(std::make_unique<std::int64_t[]>(static_cast<std::size_t>(std::max(maxEntities, 1)))),
      m_next(std::make_unique_for_overwrite<std::int64_t[]>(static_cast<std::size_t>(std::max<std::int64_t>(maxMembers, 1)))),
      m_setOf(std::make_unique_for_overwrite<std::int32_t[]>(static_cast<std::size_t>(std::max<std::int64_t>(maxMembers, 1)))),
      m_stamp(std::make_unique<std::uint64_t[]>(static_cast<std::size_t>(std::max(maxSets, 1)))),
      m_maxEntities(maxEntities),
      m_maxSets(maxSets),
      m_maxMembers(maxMembers) {
    std::fill(m_head.get(), m_head.get() + std::max(maxEntities, 1), std::int64_t{-1});
}

bool pairwiseIntersections(FamilyView first, FamilyView second, int minSize, IntersectScratch& s, FamilyBuffer& out,
                           Capacity* overflow) noexcept {
    out.clear();
    const std::int64_t base = second.offsets[0];
    const std::int64_t secondMembers = second.offsets[second.count] - base;
    if (second.count > s.m_maxSets || secondMembers > s.m_maxMembers) {
        *overflow = second.count > s.m_maxSets ? Capacity::WorkSets : Capacity::WorkMembers;
        return false;
    }
    // Inverted index of the second family.
    for (int j = 0; j < second.count; ++j) {
        s.m_stamp[j] = 0;
        for (std::int64_t slot = second.offsets[j] - base; slot < second.offsets[j + 1] - base; ++slot) {
            const std::int32_t entity = second.members[base + slot];
            s.m_setOf[slot] = j;
            s.m_next[slot] = s.m_head[entity];
            s.m_head[entity] = slot;
        }
    }
    bool ok = true;
    for (int i = 0; i < first.count && ok; ++i) {
        const auto a = first.set(i);
        const std::uint64_t stamp = ++s.m_clock;
        const int rowStart = out.count();
        bool contained = false;  // some b ⊇ a: a alone from this row (every other a ∩ b ⊆ a)
        for (auto entity = a.begin(); entity != a.end() && ok && !contained; ++entity) {
            for (std::int64_t slot = s.m_head[*entity]; slot >= 0 && ok && !contained; slot = s.m_next[slot]) {
                const int j = s.m_setOf[slot];
                if (s.m_stamp[j] == stamp) {
                    continue;
                }
                s.m_stamp[j] = stamp;
                const auto b = second.set(j);
                std::int32_t* dst = out.beginSet(static_cast<std::int64_t>(std::min(a.size(), b.size())));
                if (dst == nullptr) {
                    *overflow = out.count() >= out.setCapacity() ? Capacity::WorkSets : Capacity::WorkMembers;
                    ok = false;
                    break;
                }
                const std::int64_t size = std::set_intersection(a.begin(), a.end(), b.begin(), b.end(), dst) - dst;
                if (size == static_cast<std::int64_t>(a.size()) && size >= minSize) {  // dst holds a: the row's only set
                    out.truncate(rowStart);
                    ok = out.push(a);
                    contained = true;
                    if (!ok) {
                        *overflow = out.count() >= out.setCapacity() ? Capacity::WorkSets : Capacity::WorkMembers;
                    }
                } else if (size >= minSize) {
                    out.finishSet(size);
                }
            }
        }
    }
    // Leave the index empty for the next call.
    for (std::int64_t slot = 0; slot < secondMembers; ++slot) {
        s.m_head[second.members[base + slot]] = -1;
    }
    return ok;
}

CombineScratch::CombineScratch(int maxEntities, int workSets, std::int64_t workMembers)
    : candidates(workSets, workMembers), maximal(workSets), intersect(maxEntities, workSets, workMembers) {}

bool combine(FamilyView g, FamilyView h, int minSize, CombineScratch& s, FamilyBuffer& out, Capacity* overflow) noexcept {
    if (g.count == 0 || h.count == 0) {
        out.clear();
        return true;
    }
    return pairwiseIntersections(g, h, minSize, s.intersect, s.candidates, overflow) &&
           maximalSets(s.candidates.view(), minSize, s.maximal, out, overflow);
}

}  // namespace augur::kernels::flock::detail
