// FlockStream: per-step potential flocks found once and kept for δ steps; the window's flocks are their
// ⊗ (family.hpp), reported in key order.
#include "augur/kernels/flock/flock_stream.hpp"

#include <algorithm>
#include <cmath>
#include <new>
#include <numeric>
#include <utility>
#include <vector>

#include "augur/core/panic.hpp"
#include "augur/platform/clock.hpp"
#include "cpu_potential.hpp"
#include "family.hpp"
#include "geometry.hpp"

namespace augur::kernels::flock {

using detail::FamilyBuffer;
using detail::FamilyView;

namespace {

FlockFailure failure(FlockError error, Capacity capacity = Capacity::None, std::int64_t needed = 0) noexcept {
    FlockFailure f;
    f.error = error;
    f.capacity = capacity;
    f.needed = needed;
    return f;
}

bool validCapacities(const FlockStreamCapacities& c) noexcept {
    const auto positive = [](std::int64_t v) { return v > 0 && v <= MAX_BATCH_SAMPLES; };
    return positive(c.maxPointsPerStep) && positive(c.gridCellsPerStep) && positive(c.maxDisksPerStep) &&
           positive(c.maxCandidateMembersPerStep) && positive(c.maxStepSets) && positive(c.maxStepMembers) &&
           positive(c.maxWorkSets) && positive(c.maxWorkMembers);
}

/// A live key and the slot it holds.
struct KeySlot {
    std::uint32_t key;
    std::int32_t slot;
};

}  // namespace

struct FlockStream::Impl {
    Impl(const FlockParams& p, const FlockStreamCapacities& c);

    FlockParams params;
    FlockStreamCapacities capacities;
    detail::Limits limits;
    int sideCap{1};
    int slots{0};  ///< δ · maxPointsPerStep: every key of a full window has one

    // Keys of the window, ascending, and per slot the step that last saw it.
    std::vector<KeySlot> keys;
    std::vector<KeySlot> keysNext;
    std::vector<std::int32_t> freeSlots;
    std::vector<std::int64_t> lastSeen;
    std::vector<StreamPoint> sorted;  ///< the pushed step, by key

    // The pushed step as a trajectory of its points in slot order, and the slot of each.
    std::vector<std::int32_t> stepSlots;
    std::vector<std::int32_t> byslot;
    std::vector<double> x;
    std::vector<double> y;
    detail::StepScratch step;

    // The families of the window: step s at s mod δ.
    std::vector<FamilyBuffer> families;
    std::vector<std::int64_t> disks;
    std::int64_t pushed{0};
    int held{0};

    // find(): the running ⊗, the result in ranks, its order, and the rank of each slot.
    detail::CombineScratch combineScratch;
    FamilyBuffer fold[2];
    FamilyBuffer ranked;
    std::vector<std::int32_t> order;
    std::vector<std::int32_t> rankOfSlot;
    std::vector<std::uint32_t> keyOfRank;

    Result<void, FlockFailure> admit(std::span<const StreamPoint> points) noexcept;
    void assignSlots(std::size_t count) noexcept;
    Capacity reportRanked(FamilyView window, FlockList& out) noexcept;
};

FlockStream::Impl::Impl(const FlockParams& p, const FlockStreamCapacities& c)
    : params(p),
      capacities(c),
      limits(detail::makeLimits(p.radius_m, RADIUS_TOLERANCE)),
      sideCap(std::max(1, static_cast<int>(std::floor(std::sqrt(static_cast<double>(c.gridCellsPerStep)))))),
      slots(p.windowSteps * c.maxPointsPerStep),
      step(c.maxPointsPerStep, c.gridCellsPerStep, c.maxDisksPerStep, c.maxCandidateMembersPerStep),
      combineScratch(slots, c.maxWorkSets, c.maxWorkMembers),
      fold{FamilyBuffer(c.maxWorkSets, c.maxWorkMembers), FamilyBuffer(c.maxWorkSets, c.maxWorkMembers)},
      ranked(c.maxWorkSets, c.maxWorkMembers) {
    const auto n = static_cast<std::size_t>(slots);
    keys.reserve(n);
    keysNext.reserve(n);
    freeSlots.reserve(n);
    lastSeen.assign(n, 0);
    const auto points = static_cast<std::size_t>(c.maxPointsPerStep);
    sorted.resize(points);
    stepSlots.resize(points);
    byslot.resize(points);
    x.resize(points);
    y.resize(points);
    families.reserve(static_cast<std::size_t>(p.windowSteps));
    for (int i = 0; i < p.windowSteps; ++i) {
        families.emplace_back(c.maxStepSets, c.maxStepMembers);
    }
    disks.assign(static_cast<std::size_t>(p.windowSteps), 0);
    order.resize(static_cast<std::size_t>(c.maxWorkSets));
    rankOfSlot.assign(n, 0);
    keyOfRank.assign(n, 0);
    for (int s = slots - 1; s >= 0; --s) {
        freeSlots.push_back(s);
    }
}

FlockStream::FlockStream(std::unique_ptr<Impl> impl) noexcept : m_impl(std::move(impl)) {}
FlockStream::FlockStream(FlockStream&&) noexcept = default;
FlockStream& FlockStream::operator=(FlockStream&&) noexcept = default;
FlockStream::~FlockStream() = default;

Result<FlockStream, FlockFailure> FlockStream::create(const FlockParams& params, const FlockStreamCapacities& capacities) {
    if (params.minEntities < 2 || params.windowSteps < 1 || !(params.radius_m > 0.0) || !std::isfinite(params.radius_m) ||
        !validCapacities(capacities) ||
        static_cast<std::int64_t>(params.windowSteps) * capacities.maxPointsPerStep > MAX_BATCH_SAMPLES) {
        return fail(failure(FlockError::InvalidParams));
    }
    try {
        return Result<FlockStream, FlockFailure>(FlockStream(std::make_unique<Impl>(params, capacities)));
    } catch (const std::bad_alloc&) {
        return fail(failure(FlockError::Resources));
    }
}

const FlockParams& FlockStream::params() const noexcept { return m_impl->params; }
int FlockStream::steps() const noexcept { return m_impl->held; }

std::uint32_t FlockStream::key(std::int32_t member) const noexcept {
    return m_impl->keyOfRank[static_cast<std::size_t>(member)];
}

void FlockStream::clear() noexcept {
    Impl& impl = *m_impl;
    for (const KeySlot& k : impl.keys) {
        impl.freeSlots.push_back(k.slot);
    }
    impl.keys.clear();
    impl.held = 0;
}

/// Checks the step and sorts it by key into `sorted`.
Result<void, FlockFailure> FlockStream::Impl::admit(std::span<const StreamPoint> points) noexcept {
    if (points.size() > static_cast<std::size_t>(capacities.maxPointsPerStep)) {
        return fail(failure(FlockError::CapacityExceeded, Capacity::Entities, static_cast<std::int64_t>(points.size())));
    }
    for (const StreamPoint& p : points) {
        if (!std::isfinite(p.x_m) || !std::isfinite(p.y_m)) {
            return fail(failure(FlockError::InvalidInput));
        }
    }
    const auto end = std::copy(points.begin(), points.end(), sorted.begin());
    std::sort(sorted.begin(), end, [](const StreamPoint& a, const StreamPoint& b) { return a.key < b.key; });
    const auto repeated = std::adjacent_find(sorted.begin(), end, [](const StreamPoint& a, const StreamPoint& b) { return a.key == b.key; });
    if (repeated != end) {
        return fail(failure(FlockError::InvalidInput));
    }
    return {};
}

/// Frees the slots of keys last seen at the step leaving the window, then merges the pushed step's
/// `count` keys (sorted) into the key list: a key seen before keeps its slot, a new key takes a free one.
/// A freed slot appears in no family still held, so it can be taken again at once. Then lays the
/// step's points out in slot order (x, y, stepSlots): the step's potential flocks, found over those
/// indices, keep their members sorted when mapped to slots.
void FlockStream::Impl::assignSlots(std::size_t count) noexcept {
    const std::int64_t oldest = pushed - params.windowSteps + 1;  // first step of the window after this push
    const auto expired = [&](const KeySlot& k) { return lastSeen[static_cast<std::size_t>(k.slot)] < oldest; };
    for (const KeySlot& k : keys) {
        if (expired(k)) {
            freeSlots.push_back(k.slot);
        }
    }
    std::erase_if(keys, expired);
    keysNext.clear();
    auto old = keys.begin();
    for (std::size_t i = 0; i < count; ++i) {
        const StreamPoint& p = sorted[i];
        for (; old != keys.end() && old->key < p.key; ++old) {
            keysNext.push_back(*old);
        }
        std::int32_t slot = 0;
        if (old != keys.end() && old->key == p.key) {
            slot = (old++)->slot;
        } else {
            AUGUR_ASSERT(!freeSlots.empty(), "FlockStream: δ · maxPointsPerStep slots hold every key of a window");
            slot = freeSlots.back();
            freeSlots.pop_back();
        }
        keysNext.push_back({p.key, slot});
        lastSeen[static_cast<std::size_t>(slot)] = pushed;
        stepSlots[i] = slot;
    }
    keysNext.insert(keysNext.end(), old, keys.end());
    std::swap(keys, keysNext);
    const auto first = byslot.begin();
    const auto last = first + static_cast<std::ptrdiff_t>(count);
    std::iota(first, last, 0);
    std::sort(first, last, [this](std::int32_t a, std::int32_t b) { return stepSlots[static_cast<std::size_t>(a)] < stepSlots[static_cast<std::size_t>(b)]; });
    for (std::size_t i = 0; i < count; ++i) {
        const auto from = static_cast<std::size_t>(byslot[i]);
        x[i] = sorted[from].x_m;
        y[i] = sorted[from].y_m;
    }
    for (std::size_t i = 0; i < count; ++i) {
        byslot[i] = stepSlots[static_cast<std::size_t>(byslot[i])];  // index in slot order → slot
    }
}

Result<void, FlockFailure> FlockStream::push(std::span<const StreamPoint> points) noexcept {
    Impl& impl = *m_impl;
    if (auto admitted = impl.admit(points); !admitted) {
        clear();
        return admitted;
    }
    impl.assignSlots(points.size());
    const auto index = static_cast<std::size_t>(impl.pushed % impl.params.windowSteps);
    FamilyBuffer& family = impl.families[index];
    family.clear();
    const TrajectoryView view{impl.x.data(), impl.y.data(), nullptr, static_cast<int>(points.size()), 1};
    const detail::StepResult result =
        detail::potentialFlocksOfStep(view, 0, impl.params.minEntities, impl.limits, impl.sideCap, impl.step, family);
    std::int32_t* members = family.memberData();
    for (std::int64_t m = 0; m < family.memberCount(); ++m) {
        members[m] = impl.byslot[static_cast<std::size_t>(members[m])];
    }
    impl.disks[index] = result.disks;
    ++impl.pushed;
    if (result.overflow != Capacity::None) {
        clear();
        return fail(failure(FlockError::CapacityExceeded, result.overflow, result.needed));
    }
    impl.held = std::min(impl.held + 1, impl.params.windowSteps);
    return {};
}

/// Maps the window's flocks (slots) to ranks of their keys, sorts each set and the sets, and appends
/// them to `out`. Returns the capacity that ran out, if one did.
Capacity FlockStream::Impl::reportRanked(FamilyView window, FlockList& out) noexcept {
    for (std::size_t r = 0; r < keys.size(); ++r) {
        rankOfSlot[static_cast<std::size_t>(keys[r].slot)] = static_cast<std::int32_t>(r);
        keyOfRank[r] = keys[r].key;
    }
    ranked.clear();
    for (int i = 0; i < window.count; ++i) {
        const auto set = window.set(i);
        std::int32_t* members = ranked.beginSet(static_cast<std::int64_t>(set.size()));
        if (members == nullptr) {
            return ranked.count() == ranked.setCapacity() ? Capacity::WorkSets : Capacity::WorkMembers;
        }
        for (std::size_t m = 0; m < set.size(); ++m) {
            members[m] = rankOfSlot[static_cast<std::size_t>(set[m])];
        }
        std::sort(members, members + set.size());
        ranked.finishSet(static_cast<std::int64_t>(set.size()));
    }
    const FamilyView sets = ranked.view();
    const auto first = order.begin();
    const auto last = first + sets.count;
    std::iota(first, last, 0);
    std::sort(first, last, [&sets](std::int32_t a, std::int32_t b) { return detail::lexLess(sets.set(a), sets.set(b)); });
    constexpr std::int32_t WINDOW = 0;
    for (auto it = first; it != last; ++it) {
        if (!out.append(0, &WINDOW, sets.offsets + *it, sets.members, 1)) {
            return out.size() == out.flockCapacity() ? Capacity::OutputFlocks : Capacity::OutputMembers;
        }
    }
    return Capacity::None;
}

Result<FlockStats, FlockFailure> FlockStream::find(FlockList& out) noexcept {
    Impl& impl = *m_impl;
    out.clear();
    FlockStats stats;
    const int delta = impl.params.windowSteps;
    if (impl.held < delta) {
        return Result<FlockStats, FlockFailure>(stats);
    }
    const std::int64_t t0 = platform::monotonicNow_ns();
    const auto familyOf = [&](std::int64_t s) { return impl.families[static_cast<std::size_t>(s % delta)].view(); };
    const std::int64_t newest = impl.pushed - 1;
    for (std::int64_t s = newest - delta + 1; s <= newest; ++s) {
        stats.disks += impl.disks[static_cast<std::size_t>(s % delta)];
        stats.potentialFlocks += familyOf(s).count;
    }
    // Newest to oldest; once the running ⊗ is empty, so is the window's.
    FamilyView window = familyOf(newest);
    Capacity overflow = Capacity::None;
    for (std::int64_t s = newest - 1, k = 0; s > newest - delta && window.count > 0; --s, k ^= 1) {
        FamilyBuffer& next = impl.fold[k];
        if (!detail::combine(familyOf(s), window, impl.params.minEntities, impl.combineScratch, next, &overflow)) {
            return fail(failure(FlockError::CapacityExceeded, overflow, 0));
        }
        window = next.view();
    }
    if (const Capacity full = impl.reportRanked(window, out); full != Capacity::None) {
        out.clear();
        return fail(failure(FlockError::CapacityExceeded, full, 0));
    }
    stats.flocks = static_cast<std::int64_t>(out.size());
    stats.batches = 1;
    stats.intersect_us = static_cast<double>(platform::monotonicNow_ns() - t0) * 1e-3;
    return Result<FlockStats, FlockFailure>(stats);
}

}  // namespace augur::kernels::flock
