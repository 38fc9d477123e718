# Toolchain file: Debian's GNU cross compiler for 64-bit ARM Linux (aarch64), CPU backend.
#
# Two ways to provide the arm64 libraries augur links (yaml-cpp, OpenSSL libcrypto, iceoryx, GoogleTest;
# Eigen is headers):
#   1. a sysroot: -DAUGUR_AARCH64_SYSROOT=<dir> (or the environment variable of the same name). Every
#      header, library and CMake package is then searched in <dir> only. scripts/cross-build makes one
#      by unpacking the arm64 Debian packages into build/cross-cache/sysroot-<suite>; a target board's
#      root file system (mounted or copied) works the same way.
#   2. Debian multiarch on this machine: `dpkg --add-architecture arm64` and the `:arm64` -dev packages
#      (libyaml-cpp-dev:arm64 libssl-dev:arm64 libiceoryx-posh-dev:arm64 libiceoryx-hoofs-dev:arm64
#      libgtest-dev:arm64).
#      Libraries are then searched in the aarch64-linux-gnu multiarch folders; the x86_64 ones are ignored.
#
# Test programs run under user-mode QEMU (qemu-aarch64 from Debian's qemu-user, or qemu-aarch64-static):
# CMAKE_CROSSCOMPILING_EMULATOR makes ctest and gtest_discover_tests start them through it, with the
# sysroot (or /usr/aarch64-linux-gnu) as the emulator's library prefix (-L).
#
# Needs: g++-aarch64-linux-gnu (gcc 12 in Debian bookworm). See docs/cross-compilation.md.
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

set(AUGUR_CROSS_PREFIX "aarch64-linux-gnu-" CACHE STRING "Prefix of the cross compiler's programs")
find_program(_augur_cross_cxx NAMES ${AUGUR_CROSS_PREFIX}g++ NO_CACHE)
find_program(_augur_cross_cc NAMES ${AUGUR_CROSS_PREFIX}gcc NO_CACHE)
if(NOT _augur_cross_cxx OR NOT _augur_cross_cc)
  message(FATAL_ERROR
    "aarch64 cross compiler ${AUGUR_CROSS_PREFIX}g++ not found on PATH. On Debian/Ubuntu: "
    "apt-get install g++-aarch64-linux-gnu (scripts/cross-build --install-only does it).")
endif()
set(CMAKE_C_COMPILER "${_augur_cross_cc}")
set(CMAKE_CXX_COMPILER "${_augur_cross_cxx}")

# The sysroot is a cache variable; try_compile projects re-read this file and get it passed along.
if(NOT DEFINED AUGUR_AARCH64_SYSROOT AND DEFINED ENV{AUGUR_AARCH64_SYSROOT})
  set(AUGUR_AARCH64_SYSROOT "$ENV{AUGUR_AARCH64_SYSROOT}")
endif()
set(AUGUR_AARCH64_SYSROOT "${AUGUR_AARCH64_SYSROOT}" CACHE PATH
    "Root of the arm64 libraries (empty: Debian multiarch packages installed on this machine)")
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES AUGUR_AARCH64_SYSROOT AUGUR_CROSS_PREFIX)

if(AUGUR_AARCH64_SYSROOT)
  if(NOT EXISTS "${AUGUR_AARCH64_SYSROOT}/usr/lib/aarch64-linux-gnu")
    message(FATAL_ERROR "AUGUR_AARCH64_SYSROOT=${AUGUR_AARCH64_SYSROOT} has no usr/lib/aarch64-linux-gnu: "
                        "not an arm64 Debian-layout root file system (scripts/cross-build makes one)")
  endif()
  set(CMAKE_SYSROOT "${AUGUR_AARCH64_SYSROOT}")
  set(CMAKE_FIND_ROOT_PATH "${AUGUR_AARCH64_SYSROOT}")
  set(_augur_emulator_prefix "${AUGUR_AARCH64_SYSROOT}")
else()
  if(NOT EXISTS "/usr/lib/aarch64-linux-gnu/libc.so.6" AND NOT EXISTS "/lib/aarch64-linux-gnu/libc.so.6")
    message(FATAL_ERROR "No arm64 libraries: give a sysroot (-DAUGUR_AARCH64_SYSROOT=<dir>; "
                        "scripts/cross-build makes one) or install the :arm64 multiarch packages "
                        "(docs/cross-compilation.md).")
  endif()
  # Multiarch: arm64 packages share /usr with the host. The cross compiler's own C library lives in
  # /usr/aarch64-linux-gnu; the multiarch folders are searched through CMAKE_LIBRARY_ARCHITECTURE.
  set(CMAKE_FIND_ROOT_PATH "/usr/aarch64-linux-gnu" "/")
  set(_augur_emulator_prefix "/usr/aarch64-linux-gnu")
endif()
# Never pick up an x86_64 library, header or package configuration.
set(CMAKE_IGNORE_PATH
  /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/include/x86_64-linux-gnu
  /usr/lib/x86_64-linux-gnu/cmake /usr/local/cuda /usr/local/cuda/lib64)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)    # build tools run on this machine
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)

# augur's CUDA backend is not built by this toolchain (no aarch64 CUDA toolkit in Debian); use the
# Jetson / Drive toolchain files for that.
set(AUGUR_ENABLE_CUDA OFF CACHE STRING "Build the CUDA backend: AUTO, ON or OFF")

find_program(AUGUR_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static
             DOC "User-mode emulator used to run aarch64 test programs on this machine")
if(AUGUR_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR "${AUGUR_QEMU_AARCH64};-L;${_augur_emulator_prefix}")
endif()
