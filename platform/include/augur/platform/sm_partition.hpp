// An SM partition of the GPU: a CUDA green context of a fixed number of SMs. While one is active,
// Stream::create makes every stream in it, so all the work the process enqueues on those streams
// (kernels, graph replays) runs on the partition's SMs; memory stays the device's. For measuring the
// compute of a smaller GPU on a large one (docs/gpu.md, "Orin-sized proxy"). Init phase throughout.
#pragma once

#include <string>

#include "augur/core/result.hpp"
#include "augur/platform/cuda_check.hpp"

struct CUgreenCtx_st;
struct CUstream_st;

namespace augur::platform {

enum class SmPartitionFault {
    NoCuda,         ///< a CPU-only build, or no CUDA device
    Unsupported,    ///< the driver or the device has no green contexts (driver for CUDA 12.5 or newer needed)
    BadCount,       ///< the device cannot make a partition of exactly that many SMs
    AlreadyActive,  ///< a process has at most one partition at a time
    Driver,         ///< a CUDA call failed (see `gpu`)
};

struct SmPartitionError {
    SmPartitionFault fault{SmPartitionFault::Driver};
    GpuError gpu{};       ///< the failed call (Unsupported, Driver)
    int requested{0};     ///< SMs asked for
    int granted{0};       ///< SMs the split offered (BadCount), 0 if it did not get that far
    int available{0};     ///< SMs of the device (0 if not queried)
    int minimum{0};       ///< smallest partition the device makes
    int granularity{0};   ///< partitions are multiples of this many SMs
};

/// What went wrong, in a sentence with the counts and the failed call. Allocates: init-phase messages.
[[nodiscard]] std::string describe(const SmPartitionError& error);

class SmPartition {
public:
    SmPartition() = default;
    SmPartition(SmPartition&& other) noexcept;
    SmPartition& operator=(SmPartition&& other) noexcept;
    SmPartition(const SmPartition&) = delete;
    SmPartition& operator=(const SmPartition&) = delete;
    /// Deactivates the partition and destroys its green context. Every stream made while it was active
    /// must be destroyed first (the driver does not destroy them with the context).
    ~SmPartition();

    /// A green context of exactly `multiprocessors` SMs of the current device, made active: from now on
    /// Stream::create makes its streams in it, and activeMultiprocessors() returns `multiprocessors`.
    /// The count must be a multiple of the device's granularity and at least its minimum (sm_90: 8 and
    /// 8; sm_8x: 2 and 4). Driver calls are made through the runtime's driver entry points, so binaries
    /// do not depend on libcuda at load time.
    [[nodiscard]] static Result<SmPartition, SmPartitionError> create(int multiprocessors) noexcept;

    [[nodiscard]] int multiprocessors() const noexcept { return m_multiprocessors; }
    [[nodiscard]] bool active() const noexcept { return m_context != nullptr; }

private:
    void release() noexcept;

    CUgreenCtx_st* m_context{nullptr};
    int m_multiprocessors{0};
};

/// SMs the kernels of this process run on: the active partition's, else the current device's
/// (cudaDevAttrMultiProcessorCount). Kernel families size their grids from it at create(). Init phase.
[[nodiscard]] Result<int, GpuError> activeMultiprocessors() noexcept;

/// True while an SmPartition is active.
[[nodiscard]] bool smPartitionActive() noexcept;

namespace detail {
/// Stream::create's path while a partition is active: a non-blocking stream of `priority` in its green
/// context (cuGreenCtxStreamCreate).
[[nodiscard]] GpuStatus createPartitionStream(CUstream_st** stream, int priority) noexcept;
}  // namespace detail

}  // namespace augur::platform
