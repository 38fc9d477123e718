// Which implementation of a kernel family runs: the CUDA kernels or the CPU reference.
#pragma once

namespace augur::kernels {

enum class Backend { Cpu, Cuda };

[[nodiscard]] const char* toString(Backend backend) noexcept;

/// True when `backend` can run in this build on this machine (Cuda needs the backend compiled in and
/// a device present). Init phase.
[[nodiscard]] bool available(Backend backend) noexcept;

}  // namespace augur::kernels
