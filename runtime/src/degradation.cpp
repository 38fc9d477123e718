#include "augur/runtime/degradation.hpp"

namespace augur::runtime {
namespace {

constexpr auto LOWEST = static_cast<std::uint8_t>(RuntimeMode::NoPrediction);

}  // namespace

std::optional<ModeTransition> DegradationLadder::moveTo(RuntimeMode mode) noexcept {
    if (mode == m_mode) {
        return std::nullopt;
    }
    const ModeTransition transition{m_mode, mode};
    m_mode = mode;
    ++m_transitions;
    return transition;
}

std::optional<ModeTransition> DegradationLadder::onCycle(bool deadlineMissed) noexcept {
    const auto rung = static_cast<std::uint8_t>(m_mode);
    if (deadlineMissed) {
        ++m_consecutiveMisses;
        m_goodCycles = 0;
        const std::uint32_t every = m_policy.missesToStepDown > 0 ? m_policy.missesToStepDown : 1;
        if (m_consecutiveMisses % every != 0) {
            return std::nullopt;
        }
        return moveTo(static_cast<RuntimeMode>(rung < LOWEST ? rung + 1 : LOWEST));
    }
    m_consecutiveMisses = 0;
    if (m_mode == RuntimeMode::Nominal) {
        return std::nullopt;
    }
    if (++m_goodCycles < m_policy.goodCyclesToStepUp) {
        return std::nullopt;
    }
    m_goodCycles = 0;
    return moveTo(static_cast<RuntimeMode>(rung - 1));
}

std::optional<ModeTransition> DegradationLadder::forceAtLeast(RuntimeMode mode) noexcept {
    if (static_cast<std::uint8_t>(mode) <= static_cast<std::uint8_t>(m_mode)) {
        return std::nullopt;
    }
    m_goodCycles = 0;
    return moveTo(mode);
}

}  // namespace augur::runtime
