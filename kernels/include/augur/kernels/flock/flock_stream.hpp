// FlockStream: the maximal flocks f(δ, μ, ε) of seeds/002 over the last δ steps of a stream of keyed
// positions, kept up to date one step at a time. A step's potential flocks (the maximal sets of ≥ μ
// entities within one disk of radius ε) depend on that step alone, so push() finds them once, when the
// step arrives, and keeps them while the step is in the window; find() intersects the δ families held.
// A search that runs every n-th step therefore finds n steps' potential flocks instead of δ.
//
// Entities are named by 32-bit keys (the runtime's track ids). Inside, a key holds one slot from its
// first step in the window to its last, and gives it up once that step leaves the window; the slots
// number the entities of the families held. find() reports members as ranks among the window's keys in
// ascending order (key() maps a rank back), the same numbering FlockFinder gets when a window's
// trajectories are given with the entities in ascending key order, and the same flocks.
//
// CPU only: the work per step is one step's grid and disks (FlockFinder's CPU reference, one worker).
// Init phase: create(). Run phase: push(), find(), clear(): noexcept, allocation-free.
#pragma once

#include <cstdint>
#include <memory>
#include <span>

#include "augur/core/result.hpp"
#include "augur/kernels/flock/flock_types.hpp"

namespace augur::kernels::flock {

/// One entity at one step.
struct StreamPoint {
    std::uint32_t key{0};
    double x_m{0.0};
    double y_m{0.0};
};

/// Sizes fixed at init; exceeding one is a counted failure (FlockError::CapacityExceeded), never a crash.
struct FlockStreamCapacities {
    int maxPointsPerStep{0};                            ///< entities in one step (Capacity::Entities)
    int gridCellsPerStep{1024};                         ///< cells of one step's grid (side = ⌊√·⌋)
    std::int64_t maxDisksPerStep{1 << 14};              ///< point pairs at distance ≤ 2ε in one step
    std::int64_t maxCandidateMembersPerStep{1 << 16};   ///< Σ |disk| over disks with ≥ μ points, one step
    int maxStepSets{1 << 12};                           ///< a step's potential flocks (Capacity::FamilySetsPerBatch)
    std::int64_t maxStepMembers{1 << 16};               ///< … and their members (Capacity::FamilyMembersPerBatch)
    int maxWorkSets{1 << 12};                           ///< sets of one intersection of families
    std::int64_t maxWorkMembers{1 << 16};               ///< … and their members
};

class FlockStream {
public:
    FlockStream(FlockStream&&) noexcept;
    FlockStream& operator=(FlockStream&&) noexcept;
    FlockStream(const FlockStream&) = delete;
    FlockStream& operator=(const FlockStream&) = delete;
    ~FlockStream();

    /// Validates the parameters and capacities and reserves every buffer: δ step families and
    /// δ · maxPointsPerStep slots, so no sequence of steps can run out of slots. Init phase.
    /// Errors: InvalidParams, Resources.
    [[nodiscard]] static Result<FlockStream, FlockFailure> create(const FlockParams& params,
                                                                  const FlockStreamCapacities& capacities);

    /// Appends the next step: the entities present at it, in any order, each key at most once. The step
    /// δ back leaves the window. Errors: InvalidInput (a key twice, a position that is not finite),
    /// CapacityExceeded (Entities: more points than maxPointsPerStep; or a per-step capacity). After an
    /// error the window is empty (steps() == 0) and the next δ pushes fill it again.
    /// Run phase: noexcept, no allocation; O(p log p + k + disks · neighbourhood) for p points and the k
    /// keys of the window.
    [[nodiscard]] Result<void, FlockFailure> push(std::span<const StreamPoint> points) noexcept;

    /// Empties the window (keys and families). Run phase.
    void clear() noexcept;

    /// Steps held: min(δ, steps pushed since the last clear or error).
    [[nodiscard]] int steps() const noexcept;

    /// Writes into `out` (cleared first) the maximal flocks of the δ steps held: windowStart 0, members
    /// the ranks of their keys (ascending), flocks in lexicographic order of their members. Nothing while
    /// fewer than δ steps are held. Errors: CapacityExceeded (work families or `out`; `out` then empty).
    /// Run phase: noexcept, no allocation; δ - 1 pairwise family intersections at most, fewer once one
    /// comes out empty.
    [[nodiscard]] Result<FlockStats, FlockFailure> find(FlockList& out) noexcept;

    /// The key of rank `member` of the last find() (valid until the next push() or clear()).
    [[nodiscard]] std::uint32_t key(std::int32_t member) const noexcept;

    [[nodiscard]] const FlockParams& params() const noexcept;

    struct Impl;

private:
    explicit FlockStream(std::unique_ptr<Impl> impl) noexcept;
    std::unique_ptr<Impl> m_impl;
};

}  // namespace augur::kernels::flock
