// Which architecture's tuning policy the kernel families use. Each family keeps its launch parameters
// as a chain of policies in kernels/<family>/tuning.hpp, after CUB's policy chain: PolicySm72 (Xavier)
// holds every value, PolicySm87 (Orin) inherits it and overrides what differs, PolicySm90 (H100, H200)
// inherits sm_87's. A family's create() picks one with activeTuningArch(): the nearest policy at or
// below the device's compute capability, or the one forced at init (forceTuningArch).
//
// Values compiled into a kernel (launch bounds, shared-memory arrays, template arguments) are the same
// in every policy of a chain (each tuning.hpp asserts it): one binary holds one instantiation per
// kernel. Only the launch-time values (grid caps, block counts per SM, thresholds, cluster sizes)
// differ between the policies, and only those follow a forced policy.
#pragma once

#include <optional>
#include <string_view>

#include "augur/core/result.hpp"
#include "augur/platform/cuda_check.hpp"

namespace augur::kernels {

/// The architectures with a tuning policy, oldest first.
enum class TuningArch {
    Sm72,  ///< Jetson AGX / NX Xavier (Volta, compute capability 7.2)
    Sm87,  ///< Jetson AGX / NX Orin, DRIVE AGX Orin (Ampere, 8.7)
    Sm90,  ///< H100, H200 (Hopper, 9.0)
};

/// The policy for a device of compute capability major.minor: the nearest policy at or below it (8.0 and
/// 8.6 get sm_72's, 10.0 and 12.0 get sm_90's); below 7.2, sm_72's, the oldest. Pure, constexpr.
[[nodiscard]] constexpr TuningArch tuningArchFor(int major, int minor) noexcept {
    const int capability = major * 10 + minor;
    if (capability >= 90) {
        return TuningArch::Sm90;
    }
    if (capability >= 87) {
        return TuningArch::Sm87;
    }
    return TuningArch::Sm72;
}

/// "sm_72", "sm_87", "sm_90".
[[nodiscard]] const char* toString(TuningArch arch) noexcept;

/// Parses "sm72" / "sm_72" / "72" (likewise 87, 90); nullopt for anything else.
[[nodiscard]] std::optional<TuningArch> parseTuningArch(std::string_view text) noexcept;

/// Makes every later create() of a kernel family use `arch`'s launch-time values whatever the device
/// (nullopt: the device's policy again). Process-wide; init phase (not synchronised with a create()
/// running on another thread). For measurements: an H200 run with Orin's shapes (augur-bench-runtime
/// --policy sm87).
void forceTuningArch(std::optional<TuningArch> arch) noexcept;

/// The policy forced by forceTuningArch, if any.
[[nodiscard]] std::optional<TuningArch> forcedTuningArch() noexcept;

/// The policy a create() uses now: the forced one, else tuningArchFor(the current CUDA device's compute
/// capability). Fails where no device can be queried (a CPU-only build, no driver). Init phase.
[[nodiscard]] Result<TuningArch, platform::GpuError> activeTuningArch() noexcept;

}  // namespace augur::kernels
