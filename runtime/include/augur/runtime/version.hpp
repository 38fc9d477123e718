// Build identification for --version and health.
#pragma once

namespace augur::runtime {

/// "augur 0.1.0 (cuda: sm 87;90)" or "augur 0.1.0 (cpu only)".
[[nodiscard]] const char* versionString() noexcept;

}  // namespace augur::runtime
