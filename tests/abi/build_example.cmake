# Builds examples/${EXAMPLE} (default hello_kind) out of tree against the SDK installed from this build — the way a
# third-party author would — runs its unit tests, and stages the plugin into
# ${STAGE_DIR} (= <build>/test-plugins/hello_kind/) for integration tests to load into a daemon.
#
#   cmake -DSOURCE_DIR=<coffer source> -DBINARY_DIR=<coffer build> -DWORK_DIR=<scratch>
#         -DSTAGE_DIR=<dir> [-DGENERATOR=Ninja] -P build_example.cmake
if(NOT EXAMPLE)
  set(EXAMPLE hello_kind)
endif()
string(TOUPPER ${EXAMPLE} EXAMPLE_UPPER)
foreach(v SOURCE_DIR BINARY_DIR WORK_DIR STAGE_DIR)
  if(NOT ${v})
    message(FATAL_ERROR "build_example.cmake: ${v} is not set")
  endif()
endforeach()

function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${what} failed (${rc}):\n${out}")
  endif()
  message(STATUS "${what}: ok")
endfunction()

file(REMOVE_RECURSE ${WORK_DIR})
set(prefix ${WORK_DIR}/prefix)
set(build ${WORK_DIR}/build)

# The whole installation (binaries, bundled plugins, the SDK), as a user would get it; the
# example sees only the SDK part of it, and integration tests run the installed binaries.
run("install coffer" ${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${prefix})

set(gen)
if(GENERATOR)
  set(gen -G ${GENERATOR})
endif()
run("configure ${EXAMPLE}" ${CMAKE_COMMAND} -S ${SOURCE_DIR}/examples/${EXAMPLE} -B ${build} ${gen}
    -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF -D${EXAMPLE_UPPER}_TESTS=ON)
# The example must not reach into the Coffer source tree for headers.
file(GLOB_RECURSE flags ${build}/*/flags.make ${build}/build.ninja)
foreach(f ${flags})
  file(READ ${f} text)
  string(FIND "${text}" "${SOURCE_DIR}/sdk" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "${EXAMPLE} was compiled against the source tree's SDK (${f}), not the installed one")
  endif()
endforeach()
run("build ${EXAMPLE}" ${CMAKE_COMMAND} --build ${build})
run("test ${EXAMPLE}" ${CMAKE_CTEST_COMMAND} --test-dir ${build} --output-on-failure)

file(REMOVE_RECURSE ${STAGE_DIR})
file(MAKE_DIRECTORY ${STAGE_DIR})
file(COPY ${build}/lib${EXAMPLE}.so ${build}/${EXAMPLE}.plugin.json DESTINATION ${STAGE_DIR})
message(STATUS "staged ${EXAMPLE} in ${STAGE_DIR}")
