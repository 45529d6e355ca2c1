# catch_discover_tests splits a test name at ';' (CMake's list separator) into entries that
# match no test and "pass" without running anything. This check fails on any such name.
file(GLOB_RECURSE sources "${TESTS_DIR}/*.cpp")
set(bad "")
foreach(source IN LISTS sources)
  file(STRINGS "${source}" lines REGEX "TEST_CASE\\(\"[^\"]*;")
  foreach(line IN LISTS lines)
    string(APPEND bad "\n  ${source}: ${line}")
  endforeach()
endforeach()
if(bad)
  message(FATAL_ERROR "test names with ';' never run under ctest (rename them):${bad}")
endif()
