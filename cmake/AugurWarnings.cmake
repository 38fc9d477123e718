# augur::warnings — strict warnings for our own targets (never for third-party code).
add_library(augur_warnings INTERFACE)
add_library(augur::warnings ALIAS augur_warnings)
set(_augur_cxx_warnings
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Woverloaded-virtual -Wnull-dereference
  -Wimplicit-fallthrough -Wformat=2 -Wmisleading-indentation -Wcast-qual -Wundef)
# GCC 12 at -O3 reports -Wrestrict on plain std::string concatenation (GCC bug 105329, fixed in 13).
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  list(APPEND _augur_cxx_warnings -Wno-restrict)
endif()
target_compile_options(augur_warnings INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:${_augur_cxx_warnings}>
  $<$<AND:$<COMPILE_LANGUAGE:CXX>,$<BOOL:${AUGUR_WERROR}>>:-Werror>)
if(AUGUR_HAVE_CUDA)
  target_compile_options(augur_warnings INTERFACE
    $<$<COMPILE_LANGUAGE:CUDA>:-Xcompiler=-Wall,-Wextra --expt-relaxed-constexpr>
    $<$<AND:$<COMPILE_LANGUAGE:CUDA>,$<BOOL:${AUGUR_WERROR}>>:-Werror=all-warnings>)
endif()
