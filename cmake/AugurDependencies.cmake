# Third-party dependencies, all from Debian packages (scripts/install-deps installs them).
find_package(Threads REQUIRED)
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(yaml-cpp REQUIRED)
find_package(iceoryx_posh CONFIG REQUIRED)
find_package(iceoryx_hoofs CONFIG REQUIRED)
if(AUGUR_BUILD_TESTS)
  find_package(GTest REQUIRED)
endif()
