# Shared part of the toolchain files for NVIDIA's aarch64 SoCs (Jetson Orin / Xavier, DRIVE AGX Orin).
# Included by jetson-orin.cmake, jetson-xavier.cmake and drive-orin.cmake after they set:
#   AUGUR_SDK_NAME                   e.g. "JetPack 6 (Jetson Orin)", for messages
#   AUGUR_SDK_CUDA_ARCHITECTURES     the SoC's GPU architecture (87 Orin, 72 Xavier)
#   AUGUR_SDK_MIN_NVCC / _MAX_NVCC   nvcc versions that can build augur for the SoC (max exclusive)
#   AUGUR_SDK_TEGRA_LIB_DIRS         driver folders of the root file system, relative to it
#
# What the SDK install must provide (docs/cross-compilation.md has the per-SDK paths):
#   AUGUR_TARGET_SYSROOT     the target's root file system (Jetson: Linux_for_Tegra/rootfs after
#                            apply_binaries.sh; DRIVE OS: drive-linux/filesystem/targetfs) with augur's
#                            arm64 -dev packages installed in it (yaml-cpp, iceoryx, GoogleTest, Eigen);
#   AUGUR_CUDA_TOOLKIT_ROOT  an x86_64 CUDA toolkit with the aarch64 cross target: bin/nvcc and
#                            targets/aarch64-linux/{include,lib} (the cuda-cross-aarch64 packages);
#   AUGUR_CROSS_PREFIX       the cross g++ (default aarch64-linux-gnu-, Debian/Ubuntu's; JetPack's
#                            Bootlin toolchain is .../bin/aarch64-buildroot-linux-gnu-).
# Each may be given as -D cache variable or as an environment variable of the same name.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

foreach(_var AUGUR_TARGET_SYSROOT AUGUR_CUDA_TOOLKIT_ROOT AUGUR_CROSS_PREFIX)
  if(NOT DEFINED ${_var} AND DEFINED ENV{${_var}} AND NOT "$ENV{${_var}}" STREQUAL "")
    set(${_var} "$ENV{${_var}}")
  endif()
endforeach()
if(NOT AUGUR_CUDA_TOOLKIT_ROOT)
  set(AUGUR_CUDA_TOOLKIT_ROOT /usr/local/cuda)
endif()
if(NOT AUGUR_CROSS_PREFIX)
  set(AUGUR_CROSS_PREFIX aarch64-linux-gnu-)
endif()
set(AUGUR_TARGET_SYSROOT "${AUGUR_TARGET_SYSROOT}" CACHE PATH "${AUGUR_SDK_NAME}: target root file system")
set(AUGUR_CUDA_TOOLKIT_ROOT "${AUGUR_CUDA_TOOLKIT_ROOT}" CACHE PATH
    "${AUGUR_SDK_NAME}: x86_64 CUDA toolkit with targets/aarch64-linux")
set(AUGUR_CROSS_PREFIX "${AUGUR_CROSS_PREFIX}" CACHE STRING "Prefix of the aarch64 cross compiler's programs")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES AUGUR_TARGET_SYSROOT AUGUR_CUDA_TOOLKIT_ROOT AUGUR_CROSS_PREFIX)

# --- what the SDK must provide ---------------------------------------------------------------------
set(_augur_sdk_doc "see docs/cross-compilation.md, section ${AUGUR_SDK_NAME}")
if(NOT AUGUR_TARGET_SYSROOT OR NOT EXISTS "${AUGUR_TARGET_SYSROOT}/usr/lib/aarch64-linux-gnu")
  message(FATAL_ERROR "${AUGUR_SDK_NAME}: AUGUR_TARGET_SYSROOT ('${AUGUR_TARGET_SYSROOT}') must be the "
                      "target's root file system (with usr/lib/aarch64-linux-gnu); ${_augur_sdk_doc}")
endif()
set(_augur_cuda_target "${AUGUR_CUDA_TOOLKIT_ROOT}/targets/aarch64-linux")
if(NOT EXISTS "${AUGUR_CUDA_TOOLKIT_ROOT}/bin/nvcc" OR NOT EXISTS "${_augur_cuda_target}/include/cuda_runtime.h")
  message(FATAL_ERROR "${AUGUR_SDK_NAME}: AUGUR_CUDA_TOOLKIT_ROOT ('${AUGUR_CUDA_TOOLKIT_ROOT}') needs "
                      "bin/nvcc and the aarch64 cross target targets/aarch64-linux (the SDK's "
                      "cuda-cross-aarch64 packages); ${_augur_sdk_doc}")
endif()
execute_process(COMMAND "${AUGUR_CUDA_TOOLKIT_ROOT}/bin/nvcc" --version OUTPUT_VARIABLE _augur_nvcc_text)
string(REGEX MATCH "release ([0-9]+\\.[0-9]+)" _augur_nvcc_release "${_augur_nvcc_text}")
set(_augur_nvcc_version "${CMAKE_MATCH_1}")
if(_augur_nvcc_version VERSION_LESS AUGUR_SDK_MIN_NVCC OR NOT _augur_nvcc_version VERSION_LESS AUGUR_SDK_MAX_NVCC)
  message(FATAL_ERROR "${AUGUR_SDK_NAME}: nvcc ${_augur_nvcc_version} in ${AUGUR_CUDA_TOOLKIT_ROOT} cannot "
                      "build augur for this SoC: it needs ${AUGUR_SDK_MIN_NVCC} <= nvcc < "
                      "${AUGUR_SDK_MAX_NVCC}. ${AUGUR_SDK_NVCC_NOTE} (docs/cross-compilation.md, "
                      "section ${AUGUR_SDK_NAME})")
endif()

# --- compilers -------------------------------------------------------------------------------------
find_program(_augur_cross_cxx NAMES ${AUGUR_CROSS_PREFIX}g++ NO_CACHE)
find_program(_augur_cross_cc NAMES ${AUGUR_CROSS_PREFIX}gcc NO_CACHE)
if(NOT _augur_cross_cxx OR NOT _augur_cross_cc)
  message(FATAL_ERROR "${AUGUR_SDK_NAME}: cross compiler ${AUGUR_CROSS_PREFIX}g++ not found; ${_augur_sdk_doc}")
endif()
set(CMAKE_C_COMPILER "${_augur_cross_cc}")
set(CMAKE_CXX_COMPILER "${_augur_cross_cxx}")
set(CMAKE_SYSROOT "${AUGUR_TARGET_SYSROOT}")
# nvcc compiles host code with the cross g++. This must be set here: CMake ignores a host compiler
# given after the CUDA language is enabled.
set(CMAKE_CUDA_COMPILER "${AUGUR_CUDA_TOOLKIT_ROOT}/bin/nvcc")
set(CMAKE_CUDA_HOST_COMPILER "${_augur_cross_cxx}")
set(CUDAToolkit_ROOT "${AUGUR_CUDA_TOOLKIT_ROOT}")
set(CMAKE_CUDA_ARCHITECTURES "${AUGUR_SDK_CUDA_ARCHITECTURES}" CACHE STRING "CUDA architectures (the SoC's GPU)")
# CMake passes the sysroot to g++ but not to nvcc's host compilation.
set(CMAKE_CUDA_FLAGS_INIT "-Xcompiler=--sysroot=${AUGUR_TARGET_SYSROOT}")
set(AUGUR_ENABLE_CUDA ON CACHE STRING "Build the CUDA backend: AUTO, ON or OFF")

# The CUDA driver (libcuda.so, libnvrm*) lives in the root file system's Tegra folder; the linker
# must find it to resolve libcudart's dependencies.
set(_augur_link_dirs lib/aarch64-linux-gnu usr/lib/aarch64-linux-gnu ${AUGUR_SDK_TEGRA_LIB_DIRS})
set(_augur_rpath_link "")
foreach(_dir IN LISTS _augur_link_dirs)
  string(APPEND _augur_rpath_link " -Wl,-rpath-link,${AUGUR_TARGET_SYSROOT}/${_dir}")
endforeach()
string(APPEND _augur_rpath_link " -Wl,-rpath-link,${_augur_cuda_target}/lib")
set(CMAKE_EXE_LINKER_FLAGS_INIT "${_augur_rpath_link}")
set(CMAKE_SHARED_LINKER_FLAGS_INIT "${_augur_rpath_link}")

# --- search only the target ------------------------------------------------------------------------
# FindCUDAToolkit adds targets/aarch64-linux of the toolkit to the root path itself.
set(CMAKE_FIND_ROOT_PATH "${AUGUR_TARGET_SYSROOT}")
set(CMAKE_IGNORE_PATH /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/include/x86_64-linux-gnu
                      "${AUGUR_CUDA_TOOLKIT_ROOT}/targets/x86_64-linux")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# CPU tests can run here under qemu-aarch64; GPU tests need the SoC (they skip without a device).
find_program(AUGUR_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static
             DOC "User-mode emulator used to run aarch64 test programs on this machine")
if(AUGUR_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${AUGUR_QEMU_AARCH64};-L;${AUGUR_TARGET_SYSROOT}")
endif()
