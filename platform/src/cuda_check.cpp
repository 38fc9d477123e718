#include "augur/platform/cuda_check.hpp"

#if AUGUR_HAVE_CUDA
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cudaTypedefs.h>
#endif

namespace augur::platform {

GpuStatus checkCuda(int code, const char* expression, const char* file, int line) noexcept {
    if (code == 0) [[likely]] {
        return {};
    }
#if AUGUR_HAVE_CUDA
    // The runtime also keeps the error as the thread's last error: reported here, it must not come back
    // at the next launch check as that kernel's failure. A sticky error stays, whatever this clears.
    (void)cudaGetLastError();
#endif
    return fail(GpuError{code, expression, file, line});
}

GpuStatus checkCudaDriver(int code, const char* expression, const char* file, int line) noexcept {
    if (code == 0) [[likely]] {
        return {};
    }
    return fail(GpuError{code, expression, file, line, GpuApi::Driver});
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

#if AUGUR_HAVE_CUDA
namespace {

/// The driver's name and description of a CUresult, through the runtime's driver entry points (no
/// link-time dependency on libcuda).
std::string describeDriverCode(int code) {
    void* nameFn = nullptr;
    void* stringFn = nullptr;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    const char* name = nullptr;
    const char* text = nullptr;
    if (cudaGetDriverEntryPointByVersion("cuGetErrorName", &nameFn, 6000, cudaEnableDefault, &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess) {
        (void)reinterpret_cast<PFN_cuGetErrorName_v6000>(nameFn)(static_cast<CUresult>(code), &name);
    }
    if (cudaGetDriverEntryPointByVersion("cuGetErrorString", &stringFn, 6000, cudaEnableDefault, &found) == cudaSuccess &&
        found == cudaDriverEntryPointSuccess) {
        (void)reinterpret_cast<PFN_cuGetErrorString_v6000>(stringFn)(static_cast<CUresult>(code), &text);
    }
    return std::string(name != nullptr ? name : "CUresult " + std::to_string(code)) + " (" +
           (text != nullptr ? text : "no description from the driver") + ")";
}

}  // namespace
#endif

std::string describe(const GpuError& error) {
    std::string text;
#if AUGUR_HAVE_CUDA
    if (error.api == GpuApi::Driver) {
        text = describeDriverCode(error.code);
    } else {
        const auto code = static_cast<cudaError_t>(error.code);
        text = std::string(cudaGetErrorName(code)) + " (" + cudaGetErrorString(code) + ")";
    }
#else
    text = "CUDA error " + std::to_string(error.code) + " (built without CUDA)";
#endif
    return text + " in " + error.expression + " at " + error.file + ":" + std::to_string(error.line);
}

}  // namespace augur::platform
