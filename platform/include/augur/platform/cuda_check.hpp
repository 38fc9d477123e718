// The one way CUDA calls are checked.
//
//   AUGUR_CUDA_CHECK(cudaMemcpyAsync(...))  → GpuStatus (a Result the caller must use)
//   AUGUR_CUDA_CHECK_LAUNCH()               → after a kernel launch: the launch error, and with
//                                             -DAUGUR_CUDA_SYNC_AFTER_LAUNCH=ON a device
//                                             synchronise so asynchronous faults surface at the launch
//   AUGUR_CUDA_TRY(expr)                    → evaluates a GpuStatus-returning expression and returns
//                                             its error from the enclosing function
//   AUGUR_CU_CHECK(cuCall(...))             → GpuStatus of a driver API call (CUresult), for the few
//                                             driver calls platform/ makes (SM partitions)
//
// Usable from host code compiled by g++ (the error code travels as int) and from .cu files.
#pragma once

#include <string>

#include "augur/core/result.hpp"

namespace augur::platform {

/// Which CUDA API an error code belongs to (their codes overlap but do not agree everywhere).
enum class GpuApi { Runtime, Driver };

/// A failed CUDA call: the cudaError_t (or CUresult) value and where it happened.
struct GpuError {
    int code{0};                 ///< cudaError_t value (CUresult for GpuApi::Driver); 0 never appears in an error
    const char* expression{""};  ///< the call as written
    const char* file{""};
    int line{0};
    GpuApi api{GpuApi::Runtime};
};

using GpuStatus = Result<void, GpuError>;

/// Converts a cudaError_t (as int) into a GpuStatus. On an error, clears the thread's last error, so a
/// reported failure does not fail a later AUGUR_CUDA_CHECK_LAUNCH (a sticky error stays: every later
/// call reports it). noexcept, allocation-free.
[[nodiscard]] GpuStatus checkCuda(int code, const char* expression, const char* file, int line) noexcept;

/// Converts a CUresult (as int) of a driver API call into a GpuStatus. noexcept, allocation-free.
[[nodiscard]] GpuStatus checkCudaDriver(int code, const char* expression, const char* file, int line) noexcept;

/// cudaGetLastError() after a launch (and a device synchronise in launch-debug builds).
[[nodiscard]] int lastLaunchError() noexcept;

/// The CUDA runtime's (or driver's) name and description of `error.code`, with its location. Allocates: for logs
/// and init-phase error messages only.
[[nodiscard]] std::string describe(const GpuError& error);

}  // namespace augur::platform

#define AUGUR_CUDA_CHECK(expr) ::augur::platform::checkCuda(static_cast<int>(expr), #expr, __FILE__, __LINE__)

#define AUGUR_CU_CHECK(expr) ::augur::platform::checkCudaDriver(static_cast<int>(expr), #expr, __FILE__, __LINE__)

#define AUGUR_CUDA_CHECK_LAUNCH() \
    ::augur::platform::checkCuda(::augur::platform::lastLaunchError(), "<kernel launch>", __FILE__, __LINE__)

#define AUGUR_CUDA_TRY(expr)                    \
    do {                                        \
        auto augurStatus_ = (expr);             \
        if (!augurStatus_) [[unlikely]] {       \
            return ::augur::fail(augurStatus_.error()); \
        }                                       \
    } while (false)
