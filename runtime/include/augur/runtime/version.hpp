// Build identification for --version: which backends this build of the runtime carries.
#pragma once

namespace augur::runtime {

/// "CUDA backend compiled in" or "CPU backend only".
[[nodiscard]] const char* backendsCompiledIn() noexcept;

}  // namespace augur::runtime
