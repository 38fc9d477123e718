# Decides whether the CUDA backend is built.
#   AUGUR_ENABLE_CUDA = AUTO (default): build it when nvcc is found;
#                       ON: build it or fail configuration with a clear message;
#                       OFF: CPU-only build.
# Result: AUGUR_HAVE_CUDA (ON/OFF), CUDA language enabled, CUDA::cudart etc. available.
set(AUGUR_ENABLE_CUDA AUTO CACHE STRING "Build the CUDA backend: AUTO, ON or OFF")
set_property(CACHE AUGUR_ENABLE_CUDA PROPERTY STRINGS AUTO ON OFF)
string(TOUPPER "${AUGUR_ENABLE_CUDA}" _augur_cuda_mode)
if(NOT _augur_cuda_mode MATCHES "^(AUTO|ON|OFF)$")
  message(FATAL_ERROR "AUGUR_ENABLE_CUDA must be AUTO, ON or OFF (got '${AUGUR_ENABLE_CUDA}')")
endif()

set(AUGUR_HAVE_CUDA OFF)
if(NOT _augur_cuda_mode STREQUAL "OFF")
  # The CUDA Toolkit lives in /usr/local/cuda on our hosts even when it is not on PATH.
  if(NOT DEFINED CMAKE_CUDA_COMPILER AND NOT DEFINED ENV{CUDACXX} AND EXISTS "/usr/local/cuda/bin/nvcc")
    set(CMAKE_CUDA_COMPILER "/usr/local/cuda/bin/nvcc" CACHE FILEPATH "CUDA compiler")
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    # Orin (sm_87) and the H100 used for testing (sm_90). Xavier is 72 (needs a CUDA release before 13).
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES "87;90" CACHE STRING "CUDA architectures to build device code for")
    endif()
    # Fail early and clearly when nvcc cannot target a requested architecture (CMake's own check
    # fails later with a bare "Unsupported gpu architecture").
    execute_process(COMMAND "${CMAKE_CUDA_COMPILER}" --list-gpu-arch
                    OUTPUT_VARIABLE _augur_nvcc_archs RESULT_VARIABLE _augur_nvcc_rc ERROR_QUIET)
    if(_augur_nvcc_rc EQUAL 0)
      string(REGEX MATCHALL "compute_[0-9]+" _augur_nvcc_archs "${_augur_nvcc_archs}")
      string(REPLACE "compute_" "" _augur_nvcc_archs "${_augur_nvcc_archs}")
      set(_augur_bad_archs)
      foreach(_arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
        string(REGEX REPLACE "-(real|virtual)$" "" _arch "${_arch}")
        if(_arch MATCHES "^[0-9]+$" AND NOT _arch IN_LIST _augur_nvcc_archs)
          list(APPEND _augur_bad_archs ${_arch})
        endif()
      endforeach()
      if(_augur_bad_archs)
        string(REPLACE ";" " " _augur_nvcc_archs "${_augur_nvcc_archs}")
        set(_augur_hint "")
        if("72" IN_LIST _augur_bad_archs)
          string(CONCAT _augur_hint " sm_72 is Jetson AGX/NX Xavier (Volta), which CUDA 13 dropped: "
                 "Xavier needs JetPack 5's CUDA 11.4 (toolchains/jetson-xavier.cmake), or a CUDA 12.x "
                 "toolkit for augur's C++20 device code; docs/cross-compilation.md explains.")
        endif()
        message(FATAL_ERROR
          "CMAKE_CUDA_ARCHITECTURES=${CMAKE_CUDA_ARCHITECTURES} asks for ${_augur_bad_archs}, which "
          "${CMAKE_CUDA_COMPILER} cannot compile for (it supports ${_augur_nvcc_archs}).${_augur_hint}")
      endif()
    endif()
    enable_language(CUDA)
    # CMake 3.25 does not know nvcc's C++20 flag (the CUDA20 dialect); tell it.
    if(NOT DEFINED CMAKE_CUDA20_STANDARD_COMPILE_OPTION OR CMAKE_CUDA20_STANDARD_COMPILE_OPTION STREQUAL "")
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
    endif()
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    set(CMAKE_CUDA_EXTENSIONS OFF)
    find_package(CUDAToolkit REQUIRED)
    set(AUGUR_HAVE_CUDA ON)
  elseif(_augur_cuda_mode STREQUAL "ON")
    message(FATAL_ERROR
      "AUGUR_ENABLE_CUDA=ON but no CUDA compiler (nvcc) was found. Install the CUDA Toolkit in "
      "/usr/local/cuda, put nvcc on PATH or set CMAKE_CUDA_COMPILER, or configure with "
      "-DAUGUR_ENABLE_CUDA=OFF (or AUTO) for a CPU-only build.")
  else()
    message(STATUS "augur: no CUDA compiler found, building the CPU backend only")
  endif()
endif()
