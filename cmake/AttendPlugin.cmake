# attend_add_plugin(<name> SOURCES <file>... [LIBRARIES <target>...])
#
# Build a layer plugin for attend: a shared library <name>.so, loadable with
# `attend --plugin <name>.so` or from a directory in ATTEND_PLUGIN_PATH. It links attend::core
# and attend::graph (plus LIBRARIES) and must be built by the compiler attend was built with,
# since the loader compares build fingerprints. Installed with attend's package config, so
# `find_package(attend)` makes it available.
function(attend_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "SOURCES;LIBRARIES")
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "attend_add_plugin(${name}): SOURCES is required")
  endif()
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "attend_add_plugin(${name}): unexpected arguments ${ARG_UNPARSED_ARGUMENTS}")
  endif()
  add_library(${name} MODULE ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE attend::core attend::graph ${ARG_LIBRARIES})
  target_compile_features(${name} PRIVATE cxx_std_20)
  # <name>.so rather than lib<name>.so: a plugin is a file named on the command line.
  set_target_properties(${name} PROPERTIES PREFIX "" POSITION_INDEPENDENT_CODE ON)
  if(CMAKE_CXX_COMPILER_ID MATCHES "GNU|Clang" AND NOT APPLE)
    # Fail at link time, not at load time, on a symbol that nothing provides.
    target_link_options(${name} PRIVATE "LINKER:--no-undefined")
  endif()
endfunction()
