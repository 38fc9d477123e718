#include "augur/kernels/tuning_policy.hpp"

#include <atomic>

#include "augur/platform/gpu_info.hpp"

namespace augur::kernels {
namespace {

constexpr int NOT_FORCED = -1;
std::atomic<int> g_forced{NOT_FORCED};  // a TuningArch value, or NOT_FORCED

}  // namespace

const char* toString(TuningArch arch) noexcept {
    switch (arch) {
        case TuningArch::Sm72: return "sm_72";
        case TuningArch::Sm87: return "sm_87";
        case TuningArch::Sm90: return "sm_90";
    }
    return "unknown";
}

std::optional<TuningArch> parseTuningArch(std::string_view text) noexcept {
    if (text.starts_with("sm")) {
        text.remove_prefix(2);
        if (text.starts_with("_")) {
            text.remove_prefix(1);
        }
    }
    if (text == "72") {
        return TuningArch::Sm72;
    }
    if (text == "87") {
        return TuningArch::Sm87;
    }
    if (text == "90") {
        return TuningArch::Sm90;
    }
    return std::nullopt;
}

void forceTuningArch(std::optional<TuningArch> arch) noexcept {
    g_forced.store(arch ? static_cast<int>(*arch) : NOT_FORCED, std::memory_order_relaxed);
}

std::optional<TuningArch> forcedTuningArch() noexcept {
    const int forced = g_forced.load(std::memory_order_relaxed);
    if (forced == NOT_FORCED) {
        return std::nullopt;
    }
    return static_cast<TuningArch>(forced);
}

Result<TuningArch, platform::GpuError> activeTuningArch() noexcept {
    if (const auto forced = forcedTuningArch()) {
        return *forced;
    }
    const auto capability = platform::currentComputeCapability();
    if (!capability) {
        return fail(capability.error());
    }
    return tuningArchFor(capability.value().major, capability.value().minor);
}

}  // namespace augur::kernels
