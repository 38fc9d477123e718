# Toolchain file: Jetson AGX Orin / Orin NX / Orin Nano (GPU sm_87) with a JetPack 6 SDK (CUDA 12.x).
#   cmake --preset jetson-orin     with AUGUR_TARGET_SYSROOT and AUGUR_CUDA_TOOLKIT_ROOT set
# What the SDK must provide and how to get it: docs/cross-compilation.md, "Jetson Orin".
set(AUGUR_SDK_NAME "Jetson Orin")
set(AUGUR_SDK_CUDA_ARCHITECTURES 87)
set(AUGUR_SDK_MIN_NVCC 12.0)   # augur's CUDA code is C++20: nvcc gained it in CUDA 12.0
set(AUGUR_SDK_MAX_NVCC 99.0)
set(AUGUR_SDK_NVCC_NOTE "JetPack 6 ships CUDA 12.2 (6.0) or 12.6 (6.1, 6.2); JetPack 5's CUDA 11.4 has no C++20.")
# JetPack 6 keeps libcuda.so in .../nvidia, JetPack 5 in .../tegra.
set(AUGUR_SDK_TEGRA_LIB_DIRS usr/lib/aarch64-linux-gnu/nvidia usr/lib/aarch64-linux-gnu/tegra)
include("${CMAKE_CURRENT_LIST_DIR}/nvidia-sdk-aarch64.cmake")
