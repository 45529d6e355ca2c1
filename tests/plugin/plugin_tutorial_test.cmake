# The plugin tutorial (docs/plugins.md) end to end, as a user would run it:
#   1. install attend from a build tree into a fresh prefix;
#   2. write the files the tutorial shows into an empty folder (they must equal
#      apps/plugins/gated_gat/, so the tutorial and the example cannot drift apart);
#   3. build the plugin out of tree with find_package(attend) and attend_add_plugin;
#   4. `attend --plugin` lists the layer with its origin, trains node-classify on Cora with a
#      model JSON that uses it (5 epochs) and saves a checkpoint;
#   5. predicting from the checkpoint without the plugin fails naming the missing layer;
#      with the plugin (from ATTEND_PLUGIN_PATH) it writes one prediction per node.
# Run by ctest as
#   cmake -DBUILD_DIR=<build> -DSOURCE_DIR=<src> -DWORK_DIR=<tmp> [-DGENERATOR=<gen>]
#         [-DPLUGIN_CXX_FLAGS=<flags>] -P plugin_tutorial_test.cmake
cmake_minimum_required(VERSION 3.19)
foreach(var BUILD_DIR SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "plugin_tutorial_test.cmake: -D${var}=... is required")
  endif()
endforeach()

set(prefix ${WORK_DIR}/prefix)
set(plugin_src ${WORK_DIR}/gated_gat)
set(plugin_build ${plugin_src}/build)
set(cora ${SOURCE_DIR}/data/graphs/cora)
file(REMOVE_RECURSE ${WORK_DIR})
file(MAKE_DIRECTORY ${plugin_src})

# Run a command; stop with its output unless it exits with `expect` (0 for "step").
function(run_expect expect name)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL expect)
    message(FATAL_ERROR "plugin tutorial test: ${name} exited with ${rc}, expected ${expect}:\n${out}${err}")
  endif()
  set(step_output "${out}" PARENT_SCOPE)
  set(step_error "${err}" PARENT_SCOPE)
endfunction()
macro(step name)
  run_expect(0 "${name}" ${ARGN})
endmacro()

step("cmake --install" ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})
foreach(file include/attend/plugin_abi.h include/attend/version.h include/attend/core/plugin.hpp
             lib/cmake/attend/AttendPlugin.cmake)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "plugin tutorial test: ${prefix}/${file} was not installed")
  endif()
endforeach()

# Every "<!-- file: NAME -->" line of the tutorial is followed by a fenced block: its text is NAME.
file(READ ${SOURCE_DIR}/docs/plugins.md doc)
set(marker "<!-- file: ")
set(written "")
string(FIND "${doc}" "${marker}" at)
while(at GREATER -1)
  string(SUBSTRING "${doc}" ${at} -1 doc)
  string(LENGTH "${marker}" skip)
  string(SUBSTRING "${doc}" ${skip} -1 doc)
  string(FIND "${doc}" " -->" end)
  string(SUBSTRING "${doc}" 0 ${end} name)
  string(FIND "${doc}" "```" fence)                      # the opening fence
  string(SUBSTRING "${doc}" ${fence} -1 doc)
  string(FIND "${doc}" "\n" eol)
  math(EXPR eol "${eol} + 1")
  string(SUBSTRING "${doc}" ${eol} -1 doc)
  string(FIND "${doc}" "\n```" close)                    # the closing fence
  math(EXPR close "${close} + 1")
  string(SUBSTRING "${doc}" 0 ${close} text)
  string(SUBSTRING "${doc}" ${close} -1 doc)
  file(WRITE ${plugin_src}/${name} "${text}")
  list(APPEND written ${name})
  string(FIND "${doc}" "${marker}" at)
endwhile()
foreach(name CMakeLists.txt gated_gat.cpp cora_model.json)
  if(NOT name IN_LIST written)
    message(FATAL_ERROR "plugin tutorial test: docs/plugins.md shows no file ${name} (it shows: ${written})")
  endif()
  file(READ ${plugin_src}/${name} from_doc)
  file(READ ${SOURCE_DIR}/apps/plugins/gated_gat/${name} from_example)
  if(NOT from_doc STREQUAL from_example)
    message(FATAL_ERROR "plugin tutorial test: ${name} in docs/plugins.md differs from apps/plugins/gated_gat/${name}")
  endif()
endforeach()

set(generator_args)
if(GENERATOR)
  set(generator_args -G ${GENERATOR})
endif()
step("configure the plugin" ${CMAKE_COMMAND} -S ${plugin_src} -B ${plugin_build} ${generator_args}
     -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix} "-DCMAKE_CXX_FLAGS=${PLUGIN_CXX_FLAGS}")
file(STRINGS ${plugin_build}/CMakeCache.txt attend_dir REGEX "^attend_DIR:")
string(REGEX REPLACE "^attend_DIR:[A-Z]*=" "" attend_dir "${attend_dir}")
if(NOT attend_dir STREQUAL "${prefix}/lib/cmake/attend")
  message(FATAL_ERROR "plugin tutorial test: the plugin found attend in '${attend_dir}'")
endif()
step("build the plugin" ${CMAKE_COMMAND} --build ${plugin_build})

set(attend ${prefix}/bin/attend)
set(plugin ${plugin_build}/gated_gat.so)
step("attend --plugin layers" ${attend} --plugin ${plugin} layers)
file(REAL_PATH ${plugin} plugin_real)
if(NOT step_output MATCHES "\ngated_gat +${plugin_real}\n")
  message(FATAL_ERROR "plugin tutorial test: 'attend layers' does not list gated_gat from ${plugin_real}:\n${step_output}")
endif()

set(ckpt ${WORK_DIR}/model.h5)
set(preds ${WORK_DIR}/predictions.tsv)
step("train on Cora" ${attend} --threads 2 --plugin ${plugin} node-classify train --data ${cora}
     --model ${plugin_src}/cora_model.json --epochs 5 --quiet --save ${ckpt})
if(NOT step_output MATCHES "test accuracy" OR NOT EXISTS ${ckpt})
  message(FATAL_ERROR "plugin tutorial test: training printed\n${step_output}")
endif()

run_expect(2 "predict without the plugin" ${attend} node-classify predict --data ${cora} --checkpoint ${ckpt}
           --out ${preds})
if(NOT step_error MATCHES "unknown layer 'gated_gat'")
  message(FATAL_ERROR "plugin tutorial test: predicting without the plugin said '${step_error}'")
endif()

step("predict with the plugin" ${CMAKE_COMMAND} -E env ATTEND_PLUGIN_PATH=${plugin_build}
     ${attend} --threads 2 node-classify predict --data ${cora} --checkpoint ${ckpt} --out ${preds})
file(STRINGS ${preds} rows)
list(LENGTH rows n_rows)
if(NOT n_rows EQUAL 2709)
  message(FATAL_ERROR "plugin tutorial test: ${n_rows} lines for a header and Cora's 2708 nodes")
endif()

file(REMOVE_RECURSE ${WORK_DIR})
message(STATUS "plugin tutorial test: installed, built the tutorial plugin, trained, saved, reloaded, predicted")
