# Toolchain file: NVIDIA DRIVE AGX Orin (GPU sm_87) with a DRIVE OS Linux SDK (the SDK's docker image
# or host install).
#   cmake --preset drive-orin      with AUGUR_TARGET_SYSROOT, AUGUR_CUDA_TOOLKIT_ROOT and
#                                  AUGUR_CROSS_PREFIX (the SDK's GCC cross toolchain) set
# What the SDK must provide: docs/cross-compilation.md, "DRIVE Orin".
set(AUGUR_SDK_NAME "DRIVE Orin")
set(AUGUR_SDK_CUDA_ARCHITECTURES 87)
set(AUGUR_SDK_MIN_NVCC 12.0)   # augur's CUDA code is C++20: nvcc gained it in CUDA 12.0
set(AUGUR_SDK_MAX_NVCC 99.0)
set(AUGUR_SDK_NVCC_NOTE "Check the CUDA version of your DRIVE OS release: an SDK with CUDA 11.x cannot build augur's C++20 device code.")
set(AUGUR_SDK_TEGRA_LIB_DIRS usr/lib usr/lib/aarch64-linux-gnu/tegra usr/lib/aarch64-linux-gnu/nvidia)
include("${CMAKE_CURRENT_LIST_DIR}/nvidia-sdk-aarch64.cmake")
