#include "augur/runtime/version.hpp"

#include "augur/platform/gpu_info.hpp"

namespace augur::runtime {

const char* backendsCompiledIn() noexcept {
    return platform::cudaCompiledIn() ? "CUDA backend compiled in" : "CPU backend only";
}

}  // namespace augur::runtime
