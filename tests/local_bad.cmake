# Bad-input tests of the local-mesh and partition.meta readers (pm_local_): a corpus of broken
# files that must fail with a given message (tests/bad/local/EXPECT), positive controls that
# must read, a solve run at np = 4 with one broken local file, and (with -DPMESH_FUZZ=ON and
# clang) a short libFuzzer run of both readers.
add_executable(local_read local_read.c)
target_compile_options(local_read PRIVATE ${PMESH_WARNINGS})
target_link_libraries(local_read PRIVATE pmesh::pmesh)

# tests/bad/local/EXPECT, one test per line:
#   FILE<TAB>FRAGMENT[<TAB>ARGS]   `local_read FILE ARGS` must fail with FRAGMENT in its message
#   FILE<TAB>ok<TAB>REGEX[<TAB>ARGS]   ... must exit 0 with REGEX (grep -E) in its output
# ARGS is a rank (default 1), or `--meta` to read FILE as a partition.meta.
set(_bad "${CMAKE_CURRENT_SOURCE_DIR}/bad/local")
file(STRINGS "${_bad}/EXPECT" _lines REGEX "^[^#]")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_bad}/EXPECT")
foreach(_line IN LISTS _lines)
  if(_line MATCHES "^([^\t]+)\tok\t([^\t]+)(\t([^\t]+))?$")
    set(_file "${CMAKE_MATCH_1}")
    set(_regex "${CMAKE_MATCH_2}")
    set(_args "${CMAKE_MATCH_4}")
    set(_ok 1)
  elseif(_line MATCHES "^([^\t]+)\t([^\t]+)(\t([^\t]+))?$")
    set(_file "${CMAKE_MATCH_1}")
    set(_frag "${CMAKE_MATCH_2}")
    set(_args "${CMAKE_MATCH_4}")
    set(_ok 0)
  else()
    message(FATAL_ERROR "tests/bad/local/EXPECT: cannot parse line '${_line}'")
  endif()
  if(_args STREQUAL "")
    set(_args 1)
  endif()
  string(REGEX REPLACE "[^A-Za-z0-9_]" "_" _name "${_file}")
  if(_args STREQUAL "--meta")
    set(_cmd $<TARGET_FILE:local_read> --meta "${_bad}/${_file}")
  else()
    set(_cmd $<TARGET_FILE:local_read> "${_bad}/${_file}" ${_args})
  endif()
  if(_ok)
    add_test(NAME local_ok_${_name} COMMAND sh ${PMESH_EXPECT_OK} "${_regex}" 20 ${_cmd})
    set_tests_properties(local_ok_${_name} PROPERTIES TIMEOUT 30 LABELS "local;bad")
  else()
    add_test(NAME local_bad_${_name} COMMAND sh ${PMESH_EXPECT_FAIL} "${_frag}" 20 ${_cmd})
    set_tests_properties(local_bad_${_name} PROPERTIES TIMEOUT 30 LABELS "local;bad")
  endif()
endforeach()

# One broken local file among four: every rank of solve ends promptly, naming rank and file.
pmesh_script(local_bad_solve_np4 bad/local/solve_np4.sh LABELS "local;bad" TIMEOUT 240)

option(PMESH_FUZZ "Build the libFuzzer harnesses of the readers (needs clang)" OFF)
if(PMESH_FUZZ)
  include(fuzz/fuzz_local.cmake)
endif()
