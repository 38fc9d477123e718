// What the host is, for result files and reports that must say where a figure was measured.
#pragma once

#include <string>

namespace augur::platform {

/// The CPU's model name from /proc/cpuinfo ("unknown CPU" where it cannot be read). Init phase: reads
/// a file, allocates.
[[nodiscard]] std::string cpuModel();

}  // namespace augur::platform
