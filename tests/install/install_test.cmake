# Install attend from a build tree into a fresh prefix, then build and run the consumer
# project against it through find_package(attend). Run by ctest as
#   cmake -DBUILD_DIR=<build> -DCONSUMER_DIR=<src>/tests/install/consumer -DWORK_DIR=<tmp>
#         -DVERSION=<x.y.z> [-DGENERATOR=<gen>] [-DCONSUMER_CXX_FLAGS=<flags>]
#         [-DPYTHON=<python3> -DPYTHON_DIR=<site dir under the prefix>] -P install_test.cmake
foreach(var BUILD_DIR CONSUMER_DIR WORK_DIR VERSION)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "install_test.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(consumer_build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${WORK_DIR})

# Run a command; stop with its output when it fails. The output is returned in `step_output`.
function(step name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "install test: ${name} failed (${rc}):\n${out}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
endfunction()

step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

foreach(file include/attend/core/tensor.hpp include/attend/core/autodiff.hpp
             lib/cmake/attend/attendConfig.cmake lib/cmake/attend/attendConfigVersion.cmake)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "install test: ${prefix}/${file} was not installed")
  endif()
endforeach()

# The installed program finds its library through its RPATH.
step("installed attend --version" ${prefix}/bin/attend --version)
if(NOT step_output STREQUAL "attend ${VERSION}\n")
  message(FATAL_ERROR "install test: attend --version printed '${step_output}'")
endif()

set(generator_args)
# The Python package, when built (-DPYTHON=<interpreter> -DPYTHON_DIR=<dir under the prefix>),
# imports from the prefix alone and finds the shipped data next to it.
if(PYTHON)
  step("import attend from the prefix" ${CMAKE_COMMAND} -E env --unset=ATTEND_DATA_DIR PYTHONPATH=${prefix}/${PYTHON_DIR}
       ${PYTHON} -c "a = __import__('attend')\nprint(a.__version__, a.data_file('models/contact_evoformer.h5'))")
  if(NOT step_output STREQUAL "${VERSION} ${prefix}/share/attend/models/contact_evoformer.h5\n")
    message(FATAL_ERROR "install test: import attend printed '${step_output}'")
  endif()
endif()

if(GENERATOR)
  set(generator_args -G ${GENERATOR})
endif()
step("configure consumer" ${CMAKE_COMMAND} -S ${CONSUMER_DIR} -B ${consumer_build}
     ${generator_args} -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
     "-DCMAKE_CXX_FLAGS=${CONSUMER_CXX_FLAGS}")
# find_package must have found this prefix, not another attend on the machine.
file(STRINGS ${consumer_build}/CMakeCache.txt attend_dir REGEX "^attend_DIR:")
string(REGEX REPLACE "^attend_DIR:[A-Z]*=" "" attend_dir "${attend_dir}")
if(NOT attend_dir STREQUAL "${prefix}/lib/cmake/attend")
  message(FATAL_ERROR "install test: the consumer found attend in '${attend_dir}'")
endif()
step("build consumer" ${CMAKE_COMMAND} --build ${consumer_build})

step("run consumer" ${consumer_build}/consumer)
file(READ ${CONSUMER_DIR}/expected_output.txt expected)
if(NOT step_output STREQUAL expected)
  message(FATAL_ERROR "install test: the consumer printed\n${step_output}\nexpected\n${expected}")
endif()

file(REMOVE_RECURSE ${WORK_DIR})
message(STATUS "install test: installed, found by find_package, built and ran the consumer")
