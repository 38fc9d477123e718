#include "augur/platform/gpu_info.hpp"

#include <cstdio>
#include <initializer_list>

#if AUGUR_HAVE_CUDA
#include <cuda_runtime_api.h>
#endif

namespace augur::platform {

bool cudaCompiledIn() noexcept { return AUGUR_HAVE_CUDA != 0; }

int gpuCount() noexcept {
#if AUGUR_HAVE_CUDA
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) {
        (void)cudaGetLastError();  // clear the sticky "no device" / "no driver" error
        return 0;
    }
    return count;
#else
    return 0;
#endif
}

Result<ComputeCapability, GpuError> currentComputeCapability() noexcept {
#if AUGUR_HAVE_CUDA
    int device = 0;
    ComputeCapability capability;
    for (const auto& status : {AUGUR_CUDA_CHECK(cudaGetDevice(&device)),
                               AUGUR_CUDA_CHECK(cudaDeviceGetAttribute(&capability.major, cudaDevAttrComputeCapabilityMajor, device)),
                               AUGUR_CUDA_CHECK(cudaDeviceGetAttribute(&capability.minor, cudaDevAttrComputeCapabilityMinor, device))}) {
        if (!status) {
            return fail(status.error());
        }
    }
    return capability;
#else
    return fail(GpuError{100 /* cudaErrorNoDevice */, "currentComputeCapability", __FILE__, __LINE__});
#endif
}

Result<GpuInfo, GpuError> queryGpu(int device) noexcept {
#if AUGUR_HAVE_CUDA
    cudaDeviceProp prop{};
    if (auto status = AUGUR_CUDA_CHECK(cudaGetDeviceProperties(&prop, device)); !status) {
        return fail(status.error());
    }
    GpuInfo info;
    info.device = device;
    std::snprintf(info.name, sizeof(info.name), "%s", prop.name);
    info.computeMajor = prop.major;
    info.computeMinor = prop.minor;
    info.multiprocessors = prop.multiProcessorCount;
    info.integrated = prop.integrated != 0;
    info.globalMemory_bytes = prop.totalGlobalMem;
    int busWidth = 0;
    (void)cudaDeviceGetAttribute(&busWidth, cudaDevAttrGlobalMemoryBusWidth, device);
    info.memoryBusWidth_bits = busWidth;
    return info;
#else
    (void)device;
    return fail(GpuError{100 /* cudaErrorNoDevice */, "queryGpu", __FILE__, __LINE__});
#endif
}

}  // namespace augur::platform
