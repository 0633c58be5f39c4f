# Tests of the halo exchange (pm_halo).  Included from tests/CMakeLists.txt.
#  - test_halo --random: every back-end on random neighbour graphs at 1, 2, 3, 4 and 8 ranks;
#  - halo_<mesh>_np<N>: every back-end on partitions of generated and bundled meshes;
#  - halo_lecture: the lecture's test.lst reproduced by every back-end;
#  - halo_bad_*: partitions that do not fit the job fail cleanly on every rank.
# bench_halo (bench/bench_halo.c) is built here but not run by ctest (see bench/bench_halo.sh).
pmesh_unit(test_halo test_halo.c NP 1 2 3 4 ARGS --random 8 LABELS halo TIMEOUT 300)
# 8 ranks: fewer graphs (an oversubscribed 8-rank job is slow on a small machine).
add_test(NAME test_halo_np8 COMMAND ${PMESH_MPIEXEC} -n 8 $<TARGET_FILE:test_halo> --random 4
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(test_halo_np8 PROPERTIES TIMEOUT 300 LABELS "unit;halo")

foreach(np IN ITEMS 1 2 3 4 8)
  pmesh_script(halo_grid_np${np} halo/run.sh ARGS ${np} grid LABELS halo TIMEOUT 300)
  pmesh_script(halo_line_np${np} halo/run.sh ARGS ${np} line --method rcb LABELS halo TIMEOUT 300)
  foreach(mesh IN ITEMS disk_hole mixed)
    foreach(halo IN ITEMS element edge)
      pmesh_script(halo_${mesh}_${halo}_np${np} halo/run.sh ARGS ${np} ${PMESH_MESHES}/${mesh}.msh --halo ${halo}
                   LABELS halo TIMEOUT 300)
    endforeach()
  endforeach()
endforeach()
pmesh_script(halo_lecture halo/lecture.sh LABELS "halo;lecture" TIMEOUT 300)
foreach(case IN ITEMS ranks ranks5 nonmutual counts)
  pmesh_script(halo_bad_${case} halo/bad.sh ARGS ${case} LABELS "halo;bad" TIMEOUT 60)
endforeach()

if(PMESH_SANITIZE)
  # MPICH 4.0 (ch4:ucx) leaks 1016 bytes in 9 allocations from a module it unloads, in a bare
  # MPI_Init + MPI_Finalize: LeakSanitizer cannot suppress it by name, so leak checking is off
  # for these MPI runs (AddressSanitizer's other checks and UBSan stay on).
  foreach(t IN ITEMS test_halo_np1 test_halo_np2 test_halo_np3 test_halo_np4 test_halo_np8)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
  endforeach()
  get_property(pmesh_tests_ DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS pmesh_tests_)
    if(t MATCHES "^halo_")
      set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
    endif()
  endforeach()
endif()

add_executable(bench_halo ${CMAKE_CURRENT_SOURCE_DIR}/../bench/bench_halo.c)
target_compile_options(bench_halo PRIVATE ${PMESH_WARNINGS})
target_link_libraries(bench_halo PRIVATE pmesh::pmesh)
set_target_properties(bench_halo PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR})
