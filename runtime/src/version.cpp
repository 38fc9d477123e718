#include "augur/runtime/version.hpp"

#include <cstdio>

#include "augur/core/version.hpp"
#include "augur/platform/gpu_info.hpp"

namespace augur::runtime {

const char* versionString() noexcept {
    static char text[160];
    if (text[0] == '\0') {
        std::snprintf(text, sizeof(text), "augur %s (commit %s, %s)", AUGUR_VERSION_STRING, buildCommit(),
                      backendsCompiledIn());
    }
    return text;
}

const char* backendsCompiledIn() noexcept {
    return platform::cudaCompiledIn() ? "CUDA backend compiled in" : "CPU backend only";
}

}  // namespace augur::runtime
