#include "augur/kernels/backend.hpp"

#include "augur/platform/gpu_info.hpp"

namespace augur::kernels {

const char* toString(Backend backend) noexcept {
    switch (backend) {
        case Backend::Cpu: return "cpu";
        case Backend::Cuda: return "cuda";
    }
    return "invalid";
}

bool available(Backend backend) noexcept {
    switch (backend) {
        case Backend::Cpu: return true;
        case Backend::Cuda: return platform::cudaCompiledIn() && platform::gpuCount() > 0;
    }
    return false;
}

}  // namespace augur::kernels
