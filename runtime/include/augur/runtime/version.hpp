// Build identification for --version and health.
#pragma once

namespace augur::runtime {

/// "augur 0.1.0 (commit 0123456789ab, CUDA backend compiled in)" or "... CPU backend only)". Not
/// thread-safe on its first call (init phase).
[[nodiscard]] const char* versionString() noexcept;

}  // namespace augur::runtime
