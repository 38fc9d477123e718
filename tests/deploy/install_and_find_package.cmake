# Installs the build in BUILD_DIR staged under WORK_DIR/root (DESTDIR: the configured prefix, /usr, and
# /etc/augur inside it), then configures, builds and runs the project in CONSUMER_DIR against it with
# find_package(augur); the program prints the version it was built with. BRIDGE (ON where augur-bridge is
# built) also expects augur-bridge, its unit and docs/dds.md among the installed files.
#   cmake -DBUILD_DIR=... -DWORK_DIR=... -DCONSUMER_DIR=... -DGENERATOR=... -DPREFIX=/usr -DSYSCONFDIR=/etc
#         -DLIBDIR=lib[/<multiarch>] [-DCUDA_COMPILER=...] -DVERSION=... [-DBRIDGE=ON]
#         -P install_and_find_package.cmake
file(REMOVE_RECURSE ${WORK_DIR})
set(root ${WORK_DIR}/root)
set(prefix ${root}${PREFIX})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE status OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT status EQUAL 0)
    message(FATAL_ERROR "${ARGN}: status ${status}\n${out}\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()
run(${CMAKE_COMMAND} -E env DESTDIR=${root} ${CMAKE_COMMAND} --install ${BUILD_DIR})
set(installed bin/augur-runtime bin/augur-monitor ${LIBDIR}/cmake/augur/augurConfig.cmake
              include/augur/runtime/runtime.hpp lib/systemd/system/augur-roudi.service
              lib/systemd/system/augur-runtime.service lib/systemd/system/augur-monitor.service
              share/doc/augur/LICENSE)
if(BRIDGE)
  list(APPEND installed bin/augur-bridge lib/systemd/system/augur-bridge.service share/doc/augur/dds.md)
endif()
foreach(f IN LISTS installed)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
if(NOT EXISTS ${root}${SYSCONFDIR}/augur/roudi.toml)
  message(FATAL_ERROR "not installed: ${SYSCONFDIR}/augur/roudi.toml")
endif()
set(cuda)
if(CUDA_COMPILER)
  set(cuda -DCMAKE_CUDA_COMPILER=${CUDA_COMPILER})
endif()
run(${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${WORK_DIR}/consumer -G ${GENERATOR} -DCMAKE_BUILD_TYPE=Release
    -DCMAKE_PREFIX_PATH=${prefix} ${cuda})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/consumer)
run(${WORK_DIR}/consumer/augur-consumer)
if(NOT out MATCHES "^augur ${VERSION} \\(commit [0-9a-f]+")
  message(FATAL_ERROR "unexpected output of the consumer: ${out}")
endif()
message("consumer: ${out}")
