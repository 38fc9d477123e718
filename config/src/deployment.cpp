#include "augur/config/deployment.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace augur::config {
namespace {

template <typename E, std::size_t N>
std::string_view nameOf(E value, const std::array<std::string_view, N>& names) noexcept {
    const auto index = static_cast<std::size_t>(value);
    return index < N ? names[index] : std::string_view("invalid");
}

std::uint32_t roundedRatio(double numerator, double denominator) noexcept {
    if (!(denominator > 0.0) || !(numerator > 0.0)) {
        return 0;
    }
    const double ratio = std::round(numerator / denominator);
    constexpr double LARGEST = 4'294'967'295.0;
    return ratio >= LARGEST ? static_cast<std::uint32_t>(LARGEST) : static_cast<std::uint32_t>(ratio);
}

}  // namespace

std::string_view toString(Trigger value) noexcept { return nameOf(value, TRIGGER_NAMES); }
std::string_view toString(Backend value) noexcept { return nameOf(value, BACKEND_NAMES); }
std::string_view toString(RtSetupFailurePolicy value) noexcept { return nameOf(value, RT_SETUP_FAILURE_POLICY_NAMES); }
std::string_view toString(MapFormat value) noexcept { return nameOf(value, MAP_FORMAT_NAMES); }
std::string_view toString(MotionModel value) noexcept { return nameOf(value, MOTION_MODEL_NAMES); }
std::string_view toString(Resampling value) noexcept { return nameOf(value, RESAMPLING_NAMES); }
std::string_view toString(LogLevel value) noexcept { return nameOf(value, LOG_LEVEL_NAMES); }
std::string_view toString(LogSink value) noexcept { return nameOf(value, LOG_SINK_NAMES); }
std::string_view toString(BridgeRole value) noexcept { return nameOf(value, BRIDGE_ROLE_NAMES); }
std::string_view toString(DdsReliability value) noexcept { return nameOf(value, DDS_RELIABILITY_NAMES); }
std::string_view toString(WireClock value) noexcept { return nameOf(value, WIRE_CLOCK_NAMES); }

std::uint32_t horizonSteps(const MotionConfig& motion) noexcept { return roundedRatio(motion.horizon_s, motion.step_s); }

std::uint32_t gridFrames(const GridConfig& grid, const MotionConfig& motion) noexcept {
    return grid.enabled ? roundedRatio(motion.horizon_s, grid.frameInterval_s) : 0U;
}

CpuChainCells cpuChainCells(const MotionConfig& motion) noexcept {
    CpuChainCells cells;
    cells.fullPosition = std::min(motion.cpu.fullPositionCells, motion.positionCells);
    cells.fullSpeed = std::min(motion.cpu.fullSpeedCells, motion.speedCells);
    cells.coarsePosition = std::min(motion.cpu.positionCells, cells.fullPosition);
    cells.coarseSpeed = std::min(motion.cpu.speedCells, cells.fullSpeed);
    return cells;
}

double stageBudgetSum_ms(const RuntimeConfig& runtime) noexcept {
    return std::accumulate(runtime.stageBudget_ms.begin(), runtime.stageBudget_ms.end(), 0.0);
}

}  // namespace augur::config
