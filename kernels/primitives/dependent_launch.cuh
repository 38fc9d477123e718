// Programmatic dependent launch (compute capability 9.0 and later): a kernel launched with
// `early` set may be scheduled while the kernel before it in the stream is still running, as soon as
// every block of that kernel has called allowDependentLaunch() (or exited). It must call
// waitForPrerequisiteGrid() before it touches memory the kernel before it writes, or writes memory
// that kernel reads: the wait returns once that kernel has completed and its writes are visible.
// Before the wait it may only do work that depends on neither — the launch itself and such a
// prologue then overlap the end of the kernel before it. Nor may it read what that kernel writes
// through the read-only data path (__ldg, or a const __restrict__ pointer the compiler turns into
// ld.global.nc), even after the wait: that path assumes the data is constant for the reading kernel's
// whole lifetime, which now overlaps the writes (H100: a graph replay's vehicle kernel, its inputs
// behind a const __restrict__ pointer, stepped with the previous step's inputs). In a captured graph
// the edge becomes a programmatic dependency. On older devices (and when `early` is false) the launch
// is an ordinary one and both device calls do nothing. Device code and a host launch helper, private
// to kernels/.
#pragma once

#include <cuda_runtime.h>

#include <utility>

namespace augur::kernels::primitives {

/// Blocks until the kernel this one may have been launched early behind has completed and its memory
/// is visible; returns at once for an ordinary launch.
__device__ __forceinline__ void waitForPrerequisiteGrid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

/// This block no longer holds back the launch of a kernel queued behind it with `early` set (its
/// blocks start when resources allow and wait in waitForPrerequisiteGrid()).
__device__ __forceinline__ void allowDependentLaunch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// Whether the current device runs programmatic dependent launches (compute capability ≥ 9.0).
/// Init phase.
inline bool dependentLaunchSupported() noexcept {
    int device = 0;
    int major = 0;
    return cudaGetDevice(&device) == cudaSuccess &&
           cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess && major >= 9;
}

/// kernel<<<grid, block, 0, stream>>>(args…), launched early (programmatic stream serialisation) when
/// `early` is set.
template <typename... Params, typename... Args>
cudaError_t launchKernel(bool early, void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream,
                         Args&&... args) {
    cudaLaunchAttribute attribute{};
    attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attribute.val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t config{};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = 0;
    config.stream = stream;
    config.attrs = early ? &attribute : nullptr;
    config.numAttrs = early ? 1U : 0U;
    return cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...);
}

}  // namespace augur::kernels::primitives
