// Which CUDA device is present and what it is.
#pragma once

#include <cstddef>

#include "augur/platform/cuda_check.hpp"

namespace augur::platform {

/// True when this build has the CUDA backend compiled in.
[[nodiscard]] bool cudaCompiledIn() noexcept;

/// Number of usable CUDA devices; 0 in a CPU-only build, without a driver or without a device.
/// Never fails and never prints: absence of a GPU is a normal condition. Init phase.
[[nodiscard]] int gpuCount() noexcept;

struct GpuInfo {
    int device{0};
    char name[256]{};
    int computeMajor{0};
    int computeMinor{0};
    int multiprocessors{0};
    bool integrated{false};  ///< shares memory with the CPU (Jetson / Drive): use mapped pinned memory
    std::size_t globalMemory_bytes{0};
    int memoryBusWidth_bits{0};
};

struct ComputeCapability {
    int major{0};
    int minor{0};
};

/// The compute capability of the calling thread's current CUDA device (two attribute queries, no
/// property scan). Init phase.
[[nodiscard]] Result<ComputeCapability, GpuError> currentComputeCapability() noexcept;

/// Properties of `device`. Init phase (cudaGetDeviceProperties is slow).
[[nodiscard]] Result<GpuInfo, GpuError> queryGpu(int device = 0) noexcept;

}  // namespace augur::platform
