// The degradation ladder: how the runtime steps down after deadline misses and back up after a run
// of good cycles.
//
//   Nominal → ReducedParticles → ConstantVelocity → HoldLast → NoPrediction
//
// `missesToStepDown` consecutive missed cycles step down one rung (and again after as many more);
// `goodCyclesToStepUp` consecutive good cycles step up one rung (and the count restarts). Every transition is returned to the caller, which logs it and
// reports it in health. Run-phase safe: noexcept, allocation-free, O(1).
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

    [[nodiscard]] RuntimeMode mode() const noexcept { return m_mode; }
    [[nodiscard]] std::uint32_t consecutiveMisses() const noexcept { return m_consecutiveMisses; }
    [[nodiscard]] std::uint64_t transitions() const noexcept { return m_transitions; }

    /// Reports one finished cycle; returns the mode change it caused, if any.
    std::optional<ModeTransition> onCycle(bool deadlineMissed) noexcept;

    /// Forces a mode (e.g. ConstantVelocity after a GPU error falls back to the CPU backend).
    std::optional<ModeTransition> forceAtLeast(RuntimeMode mode) noexcept;

private:
    std::optional<ModeTransition> moveTo(RuntimeMode mode) noexcept;

    LadderPolicy m_policy;
    RuntimeMode m_mode{RuntimeMode::Nominal};
    std::uint32_t m_consecutiveMisses{0};
    std::uint32_t m_goodCycles{0};
    std::uint64_t m_transitions{0};
};

}  // namespace augur::runtime
