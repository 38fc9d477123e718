#include "augur/platform/cuda_check.hpp"

#if AUGUR_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace augur::platform {

GpuStatus checkCuda(int code, const char* expression, const char* file, int line) noexcept {
    if (code == 0) [[likely]] {
        return {};
    }
    return fail(GpuError{code, expression, file, line});
}

int lastLaunchError() noexcept {
#if AUGUR_HAVE_CUDA
    cudaError_t err = cudaGetLastError();
#if defined(AUGUR_CUDA_SYNC_AFTER_LAUNCH) && AUGUR_CUDA_SYNC_AFTER_LAUNCH
    if (err == cudaSuccess) {
        err = cudaDeviceSynchronize();
    }
#endif
    return static_cast<int>(err);
#else
    return 0;
#endif
}

std::string describe(const GpuError& error) {
    std::string text;
#if AUGUR_HAVE_CUDA
    const auto code = static_cast<cudaError_t>(error.code);
    text = std::string(cudaGetErrorName(code)) + " (" + cudaGetErrorString(code) + ")";
#else
    text = "CUDA error " + std::to_string(error.code) + " (built without CUDA)";
#endif
    return text + " in " + error.expression + " at " + error.file + ":" + std::to_string(error.line);
}

}  // namespace augur::platform
