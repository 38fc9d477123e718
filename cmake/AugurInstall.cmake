# Install rules, the exported CMake package and the Debian package.
#
#   cmake --install build/default                      programs, libraries, headers, configuration, units
#                                                       (prefix /usr by default; DESTDIR=<dir> to stage)
#   find_package(augur CONFIG REQUIRED)                 augur::core, augur::config, augur::platform,
#                                                       augur::kernels, augur::runtime, augur::monitor
#   cpack --config build/default/CPackConfig.cmake -G DEB   augur_<version>_<arch>.deb (docs/deployment.md)
#
# The libraries are static; their private dependencies (yaml-cpp, OpenSSL, iceoryx, Eigen, CUDA, libsystemd)
# are found again by augurConfig.cmake.
include(CMakePackageConfigHelpers)

set_target_properties(augur_core PROPERTIES EXPORT_NAME core)
set_target_properties(augur_config PROPERTIES EXPORT_NAME config)
set_target_properties(augur_platform PROPERTIES EXPORT_NAME platform)
set_target_properties(augur_kernels PROPERTIES EXPORT_NAME kernels)
set_target_properties(augur_runtime PROPERTIES EXPORT_NAME runtime)
set_target_properties(augur_monitor PROPERTIES EXPORT_NAME monitor)
set_target_properties(augur_warnings PROPERTIES EXPORT_NAME warnings)

set(AUGUR_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/augur)
install(TARGETS augur_core augur_config augur_platform augur_kernels augur_runtime augur_monitor augur_warnings
        EXPORT augurTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT development
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY core/include/ config/include/ platform/include/ kernels/include/ runtime/include/
                  apps/augur-monitor/include/
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} COMPONENT development)
install(EXPORT augurTargets NAMESPACE augur:: DESTINATION ${AUGUR_INSTALL_CMAKEDIR} COMPONENT development)
configure_package_config_file(cmake/augurConfig.cmake.in ${CMAKE_CURRENT_BINARY_DIR}/augurConfig.cmake
                              INSTALL_DESTINATION ${AUGUR_INSTALL_CMAKEDIR})
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/augurConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/augurConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/augurConfigVersion.cmake
        DESTINATION ${AUGUR_INSTALL_CMAKEDIR} COMPONENT development)

# Programs; augur-bridge (and its unit, deploy/) where it is built (AUGUR_BUILD_BRIDGE).
set(augur_programs augur-runtime augur-monitor augur-hil augur-hil-baseline augur-map augur-smooth augur-flock)
if(TARGET augur-bridge)
  list(APPEND augur_programs augur-bridge)
endif()
install(TARGETS ${augur_programs} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT runtime)

# Configuration: RouDi's pools (what augur-roudi.service reads) and the example deployments.
# /etc/augur for the prefix /usr (GNUInstallDirs); an absolute path, so a staging install uses DESTDIR.
install(FILES config/roudi.toml DESTINATION ${CMAKE_INSTALL_FULL_SYSCONFDIR}/augur COMPONENT runtime)
install(FILES config/default.yaml config/jetson-orin.yaml DESTINATION ${CMAKE_INSTALL_DATADIR}/augur/config
        COMPONENT runtime)
set(augur_docs LICENSE README.md docs/configuration.md docs/deployment.md docs/monitor.md)
if(TARGET augur-bridge)
  list(APPEND augur_docs docs/dds.md)  # augur-bridge.service's Documentation=
endif()
install(FILES ${augur_docs} DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT runtime)

# Debian package: one package with everything above. The architecture is the target's (arm64 from the
# aarch64 cross build, scripts/cross-build).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME augur)
set(CPACK_PACKAGE_VENDOR "augur")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "augur maintainers")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION misc)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(aarch64|arm64)$")
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE arm64)
else()
  set(CPACK_DEBIAN_PACKAGE_ARCHITECTURE amd64)
endif()
# The packages of Debian 12 (bookworm) that hold the shared libraries the programs need (scripts/cross-build
# checks the arm64 package's against them), and RouDi. The CUDA runtime is linked statically
# (CUDA::cudart_static): a CUDA build needs only the NVIDIA driver on the target.
set(CPACK_DEBIAN_PACKAGE_DEPENDS
    "iceoryx, libiceoryx-posh-roudi2, libiceoryx-posh2, libiceoryx-hoofs2, libyaml-cpp0.7, libssl3, libpugixml1v5, libgeographiclib23, libsystemd0, libstdc++6, libgcc-s1, libc6")
if(TARGET augur-bridge)
  string(APPEND CPACK_DEBIAN_PACKAGE_DEPENDS ", libddsc0debian")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "systemd")
include(CPack)
