// Maximal flocks f(δ, μ, ε): parameters, input view, capacities, output list and errors.
//
// After Fort, Sellarès, Valladares, "Reporting flock patterns on the GPU" (seeds/002), Definitions 1–2:
// a flock in the window I_j = [t_j, t_{j+δ-1}] is a set of at least μ entities such that at every step of
// the window some disk of RADIUS ε contains them all; a maximal flock is one not contained in another
// flock of the same window. These are plain structs shared by the CPU reference and the CUDA path.
#pragma once

#include <cstddef>
#include <cstring>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "augur/core/result.hpp"
#include "augur/platform/cuda_check.hpp"
#include "augur/platform/memory.hpp"

namespace augur::kernels::flock {

/// The pattern being searched for.
struct FlockParams {
    int minEntities{2};    ///< μ ≥ 2: entities in a flock
    int windowSteps{1};    ///< δ ≥ 1: consecutive time steps of a window
    double radius_m{1.0};  ///< ε > 0: the disk RADIUS (not its diameter), in the input's length unit
};

/// Relative slack on ε that absorbs rounding: a point counts as inside a disk of radius ε when its
/// distance to the centre is ≤ ε·(1 + RADIUS_TOLERANCE). Far below any physical resolution.
inline constexpr double RADIUS_TOLERANCE = 1e-9;

/// Synchronously sampled trajectories, step-major: sample (step t, entity i) is at index t·entityCount + i.
/// Entities are dense indices 0 … entityCount-1 (the CSV tool maps ids to them).
/// A missing sample (present[k] == 0) means the entity is in no disk at that step, so it belongs to no
/// flock whose window contains that step. `present == nullptr` means every sample is present.
struct TrajectoryView {
    const double* x_m{nullptr};
    const double* y_m{nullptr};
    const std::uint8_t* present{nullptr};
    int entityCount{0};
    int stepCount{0};
};

/// Largest maxEntities × maxBatchSteps the finder accepts (indices of a batch's samples and sets stay
/// within int32 with room for sums).
inline constexpr std::int64_t MAX_BATCH_SAMPLES = 0x7FFFFFFF / 2;

/// Sizes fixed at init. Exceeding one is reported (FlockError::CapacityExceeded with the capacity and
/// the size that was needed), never a crash and never a silent truncation.
struct FlockCapacities {
    int maxEntities{0};                                  ///< entities per call
    int maxBatchSteps{1024};                             ///< steps whose potential flocks are held at once (≥ δ)
    int gridCellsPerStep{4096};                          ///< cells of one step's grid (side = ⌊√·⌋)
    std::int64_t maxDisksPerStep{1 << 16};               ///< point pairs at distance ≤ 2ε in one step
    std::int64_t maxCandidateMembersPerStep{1 << 20};    ///< Σ |disk| over disks with ≥ μ points, one step
    std::int64_t maxFamilySetsPerBatch{1 << 18};         ///< maximal potential flocks, summed over a batch
    std::int64_t maxFamilyMembersPerBatch{1 << 22};      ///< … and their members
    int maxWorkSets{1 << 14};                            ///< CPU: sets in one intersection family (per worker)
    std::int64_t maxWorkMembers{1 << 20};                ///< CPU: members of one intersection family (per worker)
    std::int64_t maxIntersectSetsPerBatch{1 << 18};      ///< CUDA: intersections a ∩ b with ≥ μ members of one
                                                         ///< level (W_j ⊗ F_{j+L}), summed over a batch's windows
    std::int64_t maxIntersectMembersPerBatch{1 << 22};   ///< CUDA: … and their members
    std::int64_t maxFlocksPerBatch{1 << 18};             ///< flocks reported for one batch's windows (CPU: per worker)
    std::int64_t maxFlockMembersPerBatch{1 << 22};       ///< … and their members
    int workerThreads{0};                                ///< CPU worker threads; 0: all hardware threads
};

/// Which capacity ran out (FlockError::CapacityExceeded).
enum class Capacity {
    None,
    Entities,
    DisksPerStep,
    CandidateMembersPerStep,
    FamilySetsPerBatch,
    FamilyMembersPerBatch,
    WorkSets,
    WorkMembers,
    IntersectSetsPerBatch,
    IntersectMembersPerBatch,
    FlocksPerBatch,
    FlockMembersPerBatch,
    OutputFlocks,
    OutputMembers,
};

enum class FlockError {
    InvalidParams,     ///< μ < 2, δ < 1, ε not positive and finite, or capacities inconsistent
    InvalidInput,      ///< null coordinates, non-finite present coordinates, sizes out of range
    CapacityExceeded,  ///< see FlockFailure::capacity and ::needed
    BackendUnavailable,
    Gpu,               ///< see FlockFailure::gpu
    Resources,         ///< init could not allocate or start its workers
};

struct FlockFailure {
    FlockError error{FlockError::InvalidParams};
    Capacity capacity{Capacity::None};
    std::int64_t needed{0};  ///< the size that was needed (a lower bound where counting stopped early)
    platform::GpuError gpu{};
};

[[nodiscard]] const char* toString(FlockError error) noexcept;
[[nodiscard]] const char* toString(Capacity capacity) noexcept;

/// One reported maximal flock: window [windowStart, windowStart + δ - 1] and its members, which are
/// FlockList::members()[memberOffset … memberOffset + memberCount), sorted ascending.
struct Flock {
    std::int32_t windowStart{0};
    std::int32_t memberOffset{0};
    std::int32_t memberCount{0};
};

/// Output of a detection, in a deterministic order: by window start, then lexicographically by the
/// sorted member list. Storage is reserved by create() or createPinned(); the run phase only appends
/// within capacity. Move-only.
class FlockList {
public:
    FlockList() = default;
    FlockList(FlockList&& other) noexcept { *this = std::move(other); }
    FlockList& operator=(FlockList&& other) noexcept {
        if (this != &other) {
            m_flockVector = std::move(other.m_flockVector);
            m_memberVector = std::move(other.m_memberVector);
            m_pinned = std::move(other.m_pinned);
            m_flockData = std::exchange(other.m_flockData, nullptr);
            m_memberData = std::exchange(other.m_memberData, nullptr);
            m_flockCapacity = std::exchange(other.m_flockCapacity, 0);
            m_memberCapacity = std::exchange(other.m_memberCapacity, 0);
            m_flockCount = std::exchange(other.m_flockCount, 0);
            m_memberCount = std::exchange(other.m_memberCount, 0);
        }
        return *this;
    }
    FlockList(const FlockList&) = delete;
    FlockList& operator=(const FlockList&) = delete;
    ~FlockList() = default;

    /// Reserves room for `maxFlocks` flocks with `maxMembers` members in total. Init phase.
    [[nodiscard]] static FlockList create(std::size_t maxFlocks, std::size_t maxMembers);
    /// The same in page-locked host memory: the CUDA backend then downloads its flocks straight into
    /// the list instead of copying them in on the host. Needs a CUDA device. Init phase.
    [[nodiscard]] static Result<FlockList, platform::GpuError> createPinned(std::size_t maxFlocks, std::size_t maxMembers);

    [[nodiscard]] std::span<const Flock> flocks() const noexcept { return {m_flockData, m_flockCount}; }
    [[nodiscard]] std::span<const std::int32_t> members(const Flock& flock) const noexcept {
        return {m_memberData + flock.memberOffset, static_cast<std::size_t>(flock.memberCount)};
    }
    [[nodiscard]] std::size_t size() const noexcept { return m_flockCount; }
    [[nodiscard]] std::size_t memberCount() const noexcept { return m_memberCount; }
    [[nodiscard]] std::size_t flockCapacity() const noexcept { return m_flockCapacity; }
    [[nodiscard]] std::size_t memberCapacity() const noexcept { return m_memberCapacity; }
    [[nodiscard]] bool pinned() const noexcept { return m_pinned.get() != nullptr; }

    void clear() noexcept {
        m_flockCount = 0;
        m_memberCount = 0;
    }
    /// Appends `count` flocks stored back to back: flock i starts window windowBase + windows[i] and has the
    /// sorted members members[offsets[i] … offsets[i+1]) (offsets: count + 1 entries, ascending). All or
    /// nothing: false (nothing changed) when a capacity would be exceeded. noexcept, no allocation;
    /// O(count) plus one copy of the members.
    template <typename Offset>
    [[nodiscard]] bool append(std::int32_t windowBase, const std::int32_t* windows, const Offset* offsets, const std::int32_t* members,
                              std::size_t count) noexcept {
        if (count == 0) {
            return true;
        }
        const auto first = static_cast<std::int64_t>(offsets[0]);
        const auto memberCount = static_cast<std::size_t>(static_cast<std::int64_t>(offsets[count]) - first);
        if (m_flockCount + count > m_flockCapacity || m_memberCount + memberCount > m_memberCapacity) {
            return false;
        }
        Flock* out = m_flockData + m_flockCount;
        const auto base = static_cast<std::int64_t>(m_memberCount) - first;
        for (std::size_t i = 0; i < count; ++i) {
            out[i] = Flock{windowBase + windows[i], static_cast<std::int32_t>(base + static_cast<std::int64_t>(offsets[i])),
                           static_cast<std::int32_t>(offsets[i + 1] - offsets[i])};
        }
        std::memcpy(m_memberData + m_memberCount, members + first, memberCount * sizeof(std::int32_t));
        m_flockCount += count;
        m_memberCount += memberCount;
        return true;
    }

    /// For producers that write flocks in place (the CUDA backend downloads into a pinned list): the room
    /// after the last flock and the last member. Flocks written there index the members from the start of
    /// the list's storage (the first free member is memberCount()); commit() appends them.
    [[nodiscard]] std::span<Flock> flockRoom() noexcept { return {m_flockData + m_flockCount, m_flockCapacity - m_flockCount}; }
    [[nodiscard]] std::span<std::int32_t> memberRoom() noexcept { return {m_memberData + m_memberCount, m_memberCapacity - m_memberCount}; }
    /// Appends the first `flocks` flocks and `members` members written to the room (within it).
    void commit(std::size_t flocks, std::size_t members) noexcept {
        m_flockCount += flocks;
        m_memberCount += members;
    }

private:
    std::vector<Flock> m_flockVector;          ///< create(): the storage
    std::vector<std::int32_t> m_memberVector;
    platform::PinnedMemory m_pinned;           ///< createPinned(): flocks, then members
    Flock* m_flockData{nullptr};
    std::int32_t* m_memberData{nullptr};
    std::size_t m_flockCapacity{0};
    std::size_t m_memberCapacity{0};
    std::size_t m_flockCount{0};
    std::size_t m_memberCount{0};
};

/// What a detection did (for benchmarks and the runtime's health counters).
struct FlockStats {
    std::int64_t disks{0};            ///< Lemma-3 disks (point pairs at distance ≤ 2ε), all steps
    std::int64_t potentialFlocks{0};  ///< maximal potential flocks, all steps (|F_t| summed)
    std::int64_t flocks{0};           ///< maximal flocks reported
    std::int64_t batches{0};
    std::int64_t stepsInWorkspace{0}; ///< CUDA: steps whose potential flocks did not fit the per-step kernel's
                                      ///< shared memory and were found again (same results); CPU: 0
    std::int64_t stepsInPlace{0};     ///< CUDA: of those, the steps the per-step kernel found again itself, in a
                                      ///< global-memory workspace (the others: the second kernel); CPU: 0
    std::int64_t stepsInGlobal{0};    ///< CUDA: of those, the steps found in a global-memory workspace (in place,
                                      ///< or by the second kernel when a block's largest shared memory was too small); CPU: 0
    double potential_us{0.0};         ///< CPU: wall time finding potential flocks; CUDA: device time of the
                                      ///< input copy and the potential-flock kernels
    double intersect_us{0.0};         ///< CPU: wall time intersecting across windows and merging; CUDA: device
                                      ///< time of the intersection kernels plus the download and merge
};

/// For offline tools that size capacities from the data: grows the capacity `failure` reports as
/// exceeded (doubling, and at least 1.25 × what the run needed) — or the output list's flock/member
/// capacity. Returns false when it cannot grow (past 2³⁰ entries, or another failure). Init phase.
[[nodiscard]] bool growCapacity(FlockCapacities& capacities, std::size_t& listFlocks, std::size_t& listMembers,
                                const FlockFailure& failure) noexcept;

}  // namespace augur::kernels::flock
