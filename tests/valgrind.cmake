# Memory checks under valgrind (memcheck), only when valgrind is installed: partition of
# square.msh into 3 parts, partition --check of the result and of a broken copy, meshgen,
# local_read on corpus files (good and broken: the error paths must not leak either), and solve
# at np = 2 with every rank under valgrind.  Definite leaks are errors; the only suppressions
# are for MPICH's start-up (tests/valgrind/mpich.supp, each one justified there).  MPICH here
# has no UCX, so no UCX_TLS setting is needed.  `ctest -L valgrind` (about 2 minutes).
# Not in a sanitizer build: valgrind cannot run AddressSanitizer's binaries (both replace malloc).
find_program(PMESH_VALGRIND valgrind)
if(NOT PMESH_VALGRIND OR PMESH_SANITIZE)
  return()
endif()
set(_vg ${PMESH_VALGRIND} -q --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite
        --num-callers=30 --suppressions=${CMAKE_CURRENT_SOURCE_DIR}/valgrind/mpich.supp)
set(_out "${CMAKE_CURRENT_BINARY_DIR}/valgrind_square3")

add_test(NAME valgrind_partition
         COMMAND ${_vg} $<TARGET_FILE:partition> ${PMESH_MESHES}/square.msh 3 -o ${_out} --quiet)
set_tests_properties(valgrind_partition PROPERTIES FIXTURES_SETUP valgrind_square3)
add_test(NAME valgrind_partition_check COMMAND ${_vg} $<TARGET_FILE:partition> --check ${_out})
set_tests_properties(valgrind_partition_check PROPERTIES FIXTURES_REQUIRED valgrind_square3)
add_test(NAME valgrind_partition_check_broken
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/valgrind/check_broken.sh $<TARGET_FILE:partition> ${_out} ${_vg})
set_tests_properties(valgrind_partition_check_broken PROPERTIES FIXTURES_REQUIRED valgrind_square3)
add_test(NAME valgrind_meshgen
         COMMAND ${_vg} $<TARGET_FILE:meshgen> grid 12 9 --tri -o ${CMAKE_CURRENT_BINARY_DIR}/valgrind_grid.msh)
add_test(NAME valgrind_local_read
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/valgrind/local_read.sh $<TARGET_FILE:local_read> ${_vg})
set_tests_properties(valgrind_partition valgrind_partition_check valgrind_partition_check_broken valgrind_meshgen
                     valgrind_local_read
                     PROPERTIES TIMEOUT 300 LABELS "valgrind" ENVIRONMENT "PMESH_TESTS=${CMAKE_CURRENT_SOURCE_DIR}")
# Every rank under valgrind: mpiexec -n 2 valgrind ... solve.
pmesh_script(valgrind_solve_np2 valgrind/solve.sh LABELS valgrind TIMEOUT 300 ARGS ${_vg})
