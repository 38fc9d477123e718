# Third-party dependencies, all from Debian packages (scripts/install-deps installs them).
find_package(Threads REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(yaml-cpp REQUIRED)
find_package(OpenSSL REQUIRED COMPONENTS Crypto)  # SHA-256 of deployment files (libssl-dev)
find_package(iceoryx_posh CONFIG REQUIRED)
find_package(iceoryx_hoofs CONFIG REQUIRED)
find_package(pugixml 1.11 CONFIG REQUIRED)  # the map readers' XML parser (libpugixml-dev)
# Geodesy for map projections (libgeographiclib-dev): Debian ships no CMake package configuration, so
# the library is found directly and wrapped in an imported target.
find_path(AUGUR_GEOGRAPHICLIB_INCLUDE_DIR GeographicLib/UTMUPS.hpp)
find_library(AUGUR_GEOGRAPHICLIB_LIBRARY NAMES GeographicLib)
if(NOT AUGUR_GEOGRAPHICLIB_INCLUDE_DIR OR NOT AUGUR_GEOGRAPHICLIB_LIBRARY)
  message(FATAL_ERROR "GeographicLib not found: install libgeographiclib-dev (scripts/install-deps; for "
                      "scripts/cross-build it is in the sysroot's package list).")
endif()
add_library(augur_geographiclib INTERFACE IMPORTED GLOBAL)
add_library(augur::geographiclib ALIAS augur_geographiclib)
target_include_directories(augur_geographiclib INTERFACE ${AUGUR_GEOGRAPHICLIB_INCLUDE_DIR})
target_link_libraries(augur_geographiclib INTERFACE ${AUGUR_GEOGRAPHICLIB_LIBRARY})
# Header-only command-line parser of the offline tools (apps/cli). Its CMake package is architecture
# independent (/usr/share/cmake/CLI11), so the aarch64 sysroot and multiarch builds find it the same way.
find_package(CLI11 2.1 CONFIG)
if(NOT CLI11_FOUND)
  message(FATAL_ERROR "CLI11 not found: install libcli11-dev (scripts/install-deps; for scripts/cross-build it is "
                      "in the sysroot's package list; for scripts/gpu-check add its .deb to AUGUR_DEPS).")
endif()
if(AUGUR_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
# systemd's service notification (sd_notify: READY, WATCHDOG) for the runtime under systemd
# (libsystemd-dev). Optional: without it platform/service_notify.hpp compiles to no-ops. Linked by name
# so that the exported package (find_package(augur)) asks the consumer's linker for the same library.
find_path(AUGUR_LIBSYSTEMD_INCLUDE_DIR systemd/sd-daemon.h)
find_library(AUGUR_LIBSYSTEMD_LIBRARY systemd)
if(AUGUR_LIBSYSTEMD_INCLUDE_DIR AND AUGUR_LIBSYSTEMD_LIBRARY)
  set(AUGUR_HAVE_LIBSYSTEMD ON)
else()
  set(AUGUR_HAVE_LIBSYSTEMD OFF)
  message(STATUS "libsystemd not found (libsystemd-dev): sd_notify is a no-op in this build")
endif()
