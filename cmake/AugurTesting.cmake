# augur_add_test(<name> SOURCES ... [LIBS ...] [GPU] [LABELS ...] [RESOURCE_LOCK <resource>])
# One GoogleTest executable; every test in it becomes a CTest test. GPU suites carry the `gpu` label
# and report themselves as skipped (GTEST_SKIP) on machines without a CUDA device. RESOURCE_LOCK keeps
# tests that share a machine-wide resource (e.g. an iceoryx RouDi) from running concurrently.
# A suite labelled `sanitize` belongs to the sanitizer job (scripts/sanitize): it is added to the target
# augur_sanitize_tests, which builds exactly that subset.
include(GoogleTest)
function(augur_add_test name)
  cmake_parse_arguments(ARG "GPU" "RESOURCE_LOCK" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_LIBS} augur::testing GTest::gtest augur::warnings)
  set(labels ${ARG_LABELS})
  if(ARG_GPU)
    list(APPEND labels gpu)
  else()
    list(APPEND labels cpu)
  endif()
  if("sanitize" IN_LIST labels AND TARGET augur_sanitize_tests)
    add_dependencies(augur_sanitize_tests ${name})
  endif()
  set(lock)
  if(ARG_RESOURCE_LOCK)
    set(lock RESOURCE_LOCK ${ARG_RESOURCE_LOCK})
  endif()
  gtest_discover_tests(${name}
    DISCOVERY_MODE PRE_TEST
    DISCOVERY_TIMEOUT 120
    PROPERTIES SKIP_REGULAR_EXPRESSION "SKIPPED"
               ENVIRONMENT "AUGUR_SOURCE_DIR=${PROJECT_SOURCE_DIR}" ${lock})
  # CMake 3.25's PRE_TEST discovery splits list-valued properties into separate arguments, so a second
  # label would become a property name. The labels are set by a script ctest runs after the discovered
  # tests (listed in ${name}_TESTS) are defined.
  set(label_script "${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake")
  file(WRITE "${label_script}"
       "foreach(t IN LISTS ${name}_TESTS)\n  set_tests_properties(\"\${t}\" PROPERTIES LABELS \"${labels}\")\nendforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${label_script}")
endfunction()
