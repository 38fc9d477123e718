// Build identification for --version: which backends this build of the runtime carries.
#pragma once

namespace augur::runtime {

/// "augur 0.1.0 (commit 0123456789ab, CUDA backend compiled in)" or "... CPU backend only)". Not
/// thread-safe on its first call (init phase).
[[nodiscard]] const char* versionString() noexcept;
/// "CUDA backend compiled in" or "CPU backend only".
[[nodiscard]] const char* backendsCompiledIn() noexcept;

}  // namespace augur::runtime
