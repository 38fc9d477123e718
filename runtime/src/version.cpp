#include "augur/runtime/version.hpp"

#include "augur/platform/gpu_info.hpp"

namespace augur::runtime {

const char* versionString() noexcept {
    return platform::cudaCompiledIn() ? "augur " AUGUR_VERSION_STRING " (CUDA backend compiled in)"
                                      : "augur " AUGUR_VERSION_STRING " (CPU backend only)";
}

}  // namespace augur::runtime
