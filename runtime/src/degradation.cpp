#include "augur/runtime/degradation.hpp"

namespace augur::runtime {
namespace {

constexpr auto LOWEST = static_cast<std::uint8_t>(RuntimeMode::NoPrediction);

}  // namespace

std::optional<ModeTransition> DegradationLadder::set(RuntimeMode rung, RuntimeMode floor) noexcept {
    const RuntimeMode before = mode();
    m_rung = rung;
    m_floor = floor;
    const RuntimeMode after = mode();
    if (after == before) {
        return std::nullopt;
    }
    ++m_transitions;
    return ModeTransition{before, after};
}

std::optional<ModeTransition> DegradationLadder::onCycle(bool deadlineMissed, RuntimeMode floor) noexcept {
    const auto rung = static_cast<std::uint8_t>(m_rung);
    if (deadlineMissed) {
        ++m_consecutiveMisses;
        m_goodCycles = 0;
        const std::uint32_t every = m_policy.missesToStepDown > 0 ? m_policy.missesToStepDown : 1;
        const bool step = m_consecutiveMisses % every == 0;
        return set(step ? static_cast<RuntimeMode>(rung < LOWEST ? rung + 1 : LOWEST) : m_rung, floor);
    }
    m_consecutiveMisses = 0;
    if (m_rung == RuntimeMode::Nominal || ++m_goodCycles < m_policy.goodCyclesToStepUp) {
        return set(m_rung, floor);
    }
    m_goodCycles = 0;
    return set(static_cast<RuntimeMode>(rung - 1), floor);
}

std::optional<ModeTransition> DegradationLadder::forceAtLeast(RuntimeMode mode) noexcept {
    if (static_cast<std::uint8_t>(mode) <= static_cast<std::uint8_t>(m_rung)) {
        return std::nullopt;
    }
    m_goodCycles = 0;
    return set(mode, m_floor);
}

}  // namespace augur::runtime
