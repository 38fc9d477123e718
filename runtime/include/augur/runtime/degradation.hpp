// The degradation ladder: how the runtime steps down after deadline misses and back up after a run
// of good cycles, and how conditions outside the cycle's timing (input lost, outputs blocked) hold it
// down for as long as they last.
//
//   Nominal → ReducedParticles → ConstantVelocity → HoldLast → NoPrediction
//
// The mode is the worse of two rungs:
//   - the timing rung: `missesToStepDown` consecutive missed cycles step it down one rung (and again
//     after as many more); `goodCyclesToStepUp` consecutive good cycles step it up one rung (and the
//     count restarts); a GPU error forces it down (forceAtLeast);
//   - the floor: what the cycle's conditions require (RuntimeMode::Nominal when none), given with each
//     cycle; it applies at once and lifts at once when the condition ends.
// Every change of the mode is returned to the caller, which logs it and reports it in health.
// Run-phase safe: noexcept, allocation-free, O(1).
#pragma once

#include <cstdint>
#include <optional>

#include "augur/core/messages.hpp"

namespace augur::runtime {

struct LadderPolicy {
    std::uint32_t missesToStepDown{1};
    std::uint32_t goodCyclesToStepUp{25};
};

struct ModeTransition {
    RuntimeMode from;
    RuntimeMode to;
};

class DegradationLadder {
public:
    explicit DegradationLadder(LadderPolicy policy) noexcept : m_policy(policy) {}

    /// The mode the next cycle runs in: the worse of the timing rung and the floor.
    [[nodiscard]] RuntimeMode mode() const noexcept { return worse(m_rung, m_floor); }
    /// The timing rung alone (deadline misses and GPU errors).
    [[nodiscard]] RuntimeMode timingRung() const noexcept { return m_rung; }
    [[nodiscard]] std::uint32_t consecutiveMisses() const noexcept { return m_consecutiveMisses; }
    [[nodiscard]] std::uint64_t transitions() const noexcept { return m_transitions; }

    /// Reports one finished cycle and the floor its conditions set for the next one; returns the mode
    /// change it caused, if any.
    std::optional<ModeTransition> onCycle(bool deadlineMissed, RuntimeMode floor = RuntimeMode::Nominal) noexcept;

    /// Forces a mode (e.g. ConstantVelocity after a GPU error falls back to the CPU backend).
    std::optional<ModeTransition> forceAtLeast(RuntimeMode mode) noexcept;

    [[nodiscard]] static constexpr RuntimeMode worse(RuntimeMode a, RuntimeMode b) noexcept { return a < b ? b : a; }

private:
    /// Sets the rung and the floor; returns the change of the mode, if any.
    std::optional<ModeTransition> set(RuntimeMode rung, RuntimeMode floor) noexcept;

    LadderPolicy m_policy;
    RuntimeMode m_rung{RuntimeMode::Nominal};
    RuntimeMode m_floor{RuntimeMode::Nominal};
    std::uint32_t m_consecutiveMisses{0};
    std::uint32_t m_goodCycles{0};
    std::uint64_t m_transitions{0};
};

}  // namespace augur::runtime
