# Toolchain file: Jetson AGX Xavier / Xavier NX (GPU sm_72).
#   cmake --preset jetson-xavier   with AUGUR_TARGET_SYSROOT and AUGUR_CUDA_TOOLKIT_ROOT set
# Xavier's last SDK is JetPack 5 (CUDA 11.4). CUDA 13 dropped sm_72, and CUDA 11.4's nvcc has no C++20,
# augur's CUDA dialect: the CUDA backend builds only with an x86_64 CUDA 12.x toolkit that has the
# aarch64 cross target. docs/cross-compilation.md, "Jetson Xavier", says what that means for running it.
set(AUGUR_SDK_NAME "Jetson Xavier")
set(AUGUR_SDK_CUDA_ARCHITECTURES 72)
set(AUGUR_SDK_MIN_NVCC 12.0)   # C++20 device code
set(AUGUR_SDK_MAX_NVCC 13.0)   # CUDA 13 no longer compiles for sm_72
set(AUGUR_SDK_NVCC_NOTE "Xavier's JetPack 5 ships CUDA 11.4, which lacks C++20; CUDA 13 dropped sm_72. Use a CUDA 12.x cross toolkit, or build the CPU backend (-DAUGUR_ENABLE_CUDA=OFF with toolchains/aarch64-linux-gnu.cmake).")
set(AUGUR_SDK_TEGRA_LIB_DIRS usr/lib/aarch64-linux-gnu/tegra)
include("${CMAKE_CURRENT_LIST_DIR}/nvidia-sdk-aarch64.cmake")
