# Tests of the Gmsh reader (pm_msh_): a unit program over hand-written and Gmsh-written
# fixtures, a corpus of broken files that must fail with a given message, and (with
# -DPMESH_FUZZ=ON and clang) a short libFuzzer run.
set(PMESH_MSH_DIR "${CMAKE_CURRENT_SOURCE_DIR}/msh")

pmesh_unit(test_msh test_msh.c NP 1 LABELS msh ARGS "${PMESH_MSH_DIR}")
# The reference-cell table against facts from outside it.
pmesh_unit(test_cell test_cell.c NP 1 LABELS "mesh;cell")

add_executable(msh_read msh_read.c)
target_compile_options(msh_read PRIVATE ${PMESH_WARNINGS})
target_link_libraries(msh_read PRIVATE pmesh::pmesh)

# tests/bad/msh/EXPECT: "file<TAB>message fragment" per line; one test per line.
set(_bad "${CMAKE_CURRENT_SOURCE_DIR}/bad/msh")
file(STRINGS "${_bad}/EXPECT" _lines REGEX "^[^#]")
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_bad}/EXPECT")
foreach(_line IN LISTS _lines)
  if(NOT _line MATCHES "^([^\t]+)\t+(.+)$")
    message(FATAL_ERROR "tests/bad/msh/EXPECT: cannot parse line '${_line}'")
  endif()
  set(_file "${CMAKE_MATCH_1}")
  set(_frag "${CMAKE_MATCH_2}")
  string(REGEX REPLACE "[^A-Za-z0-9_]" "_" _name "${_file}")
  add_test(NAME msh_bad_${_name}
           COMMAND sh ${PMESH_EXPECT_FAIL} "${_frag}" 20 $<TARGET_FILE:msh_read> "${_bad}/${_file}")
  set_tests_properties(msh_bad_${_name} PROPERTIES TIMEOUT 30 LABELS "msh;bad")
endforeach()

option(PMESH_FUZZ "Build the libFuzzer harness of the MSH reader (needs clang)" OFF)
if(PMESH_FUZZ)
  include(fuzz/fuzz.cmake)
endif()
