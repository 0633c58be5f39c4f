# Tests of pm_h5 (issue 4): parallel HDF5 + XDMF results, restart reads, partition --view.
# The checks use an independent reader (tests/h5/check_h5.py: python3 with h5py and numpy; the
# Debian packages are listed in tests/h5/PACKAGES).
add_executable(test_h5 test_h5.c)
target_compile_options(test_h5 PRIVATE ${PMESH_WARNINGS})
target_link_libraries(test_h5 PRIVATE pmesh::pmesh m)

set(H5T $<TARGET_FILE:test_h5>)
set(H5P $<TARGET_FILE:partition>)

# Unit: write, series and restart read back, self-checking, on mixed.msh at several np.
foreach(np 1 2 3 4)
  add_test(NAME h5_unit_part_np${np} COMMAND ${H5P} ${PMESH_MESHES}/mixed.msh ${np} -o h5_unit_p${np} --quiet
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(h5_unit_part_np${np} PROPERTIES FIXTURES_SETUP h5_unit_p${np} LABELS "h5" TIMEOUT 60)
  add_test(NAME h5_unit_np${np} COMMAND ${PMESH_MPIEXEC} -n ${np} ${H5T} all h5_unit_p${np}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(h5_unit_np${np} PROPERTIES FIXTURES_REQUIRED h5_unit_p${np} LABELS "unit;h5" TIMEOUT 120)
endforeach()

# Invariance across np = 1, 2, 3, 4, 8 on square, mixed, bar and a grid; series; restarts across
# np; partition --view; atomic replacement; an empty-selection case.
pmesh_script(h5_invariance h5/invariance.sh LABELS "h5" TIMEOUT 900)
# Opens the .xmf in ParaView (pvpython) when it is installed; skipped otherwise.
# Rounds of a few rows (PMESH_H5_ROWS) and shuffled local orders write the same files.
pmesh_script(h5_rounds h5/rounds.sh LABELS "h5" TIMEOUT 900)
pmesh_script(h5_paraview h5/paraview.sh LABELS "h5")
set_tests_properties(h5_paraview PROPERTIES SKIP_RETURN_CODE 77)

# Bad input for pm_h5_read_field: every rank exits non-zero with a message saying what is wrong.
add_test(NAME h5_bad_setup COMMAND sh -c
         "${H5P} ${PMESH_MESHES}/mixed.msh 2 -o h5_bad_p2 --quiet && ${H5P} ${PMESH_MESHES}/square.msh 2 -o h5_bad_sq2 --quiet && ${PMESH_MPIEXEC} -n 2 ${H5T} write h5_bad_p2 h5_bad_mixed && ${PMESH_MPIEXEC} -n 2 ${H5T} write h5_bad_sq2 h5_bad_square"
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(h5_bad_setup PROPERTIES FIXTURES_SETUP h5_bad LABELS "h5" TIMEOUT 120)
set(RUN2 ${PMESH_MPIEXEC} -n 2 ${H5T})
pmesh_bad(h5_read_missing "nonexistent.h5: cannot open: No such file" ${RUN2} read h5_bad_p2 nonexistent.h5)
pmesh_bad(h5_read_not_hdf5 "not an HDF5 file" ${RUN2} read h5_bad_p2 ${PMESH_MESHES}/mixed.msh)
pmesh_bad(h5_read_other_mesh "written for another mesh" ${RUN2} read h5_bad_p2 h5_bad_square.h5)
pmesh_bad(h5_read_missing_field "no field 'nope' in /fields" ${RUN2} read h5_bad_p2 h5_bad_mixed.h5 -1 1 nope)
pmesh_bad(h5_read_cell_field "is a cell field" ${RUN2} read h5_bad_p2 h5_bad_mixed.h5 -1 1 cx)
pmesh_bad(h5_read_bad_step "a single result has no step 3" ${RUN2} read h5_bad_p2 h5_bad_mixed.h5 3)
pmesh_bad(h5_write_bad_dir "creating nonexistent_dir/x.h5.tmp" ${RUN2} write h5_bad_p2 nonexistent_dir/x)
# A local mesh handed to pm_h5_write with an element that is no cell, or whose type has another
# number of nodes (test_h5 alters the last rank's first element).
pmesh_bad(h5_write_not_a_cell "element 0 has Gmsh type 15, not a cell of a 2D mesh" ${RUN2} write h5_bad_p2 h5_bad_x
          --corrupt-type)
pmesh_bad(h5_write_wrong_nodes "element 0 has 3 nodes, its type 3 has 4" ${RUN2} write h5_bad_p2 h5_bad_x --corrupt-nodes)
# ... and node positions that are past the end of the global order, or that two nodes share.
pmesh_bad(h5_write_bad_index "rank 1: node position 543 is outside the global range [0, 543)" ${RUN2} write h5_bad_p2
          h5_bad_x --corrupt-index)
pmesh_bad(h5_write_dup_index "is owned by more than one rank" ${RUN2} write h5_bad_p2 h5_bad_x --corrupt-dup)
# A single result takes one write of its fields; solve creates its result before it assembles
# and solves, and ends there when it cannot (this problem, pure Neumann, would fail later).
pmesh_bad(h5_result_twice "is a single result: its fields are written once" ${RUN2} twice h5_bad_p2 h5_bad_twice)
pmesh_bad(h5_solve_bad_dir "-o nonexistent_dir/r.h5: cannot create it" ${PMESH_MPIEXEC} -n 2 $<TARGET_FILE:solve> -p h5_bad_p2
          -o nonexistent_dir/r.h5 --neumann boundary=1)
pmesh_bad(h5_view_bad_dir "nonexistent_dir/v.h5.tmp" ${H5P} ${PMESH_MESHES}/mixed.msh 2 -o h5_bad_view --quiet --view nonexistent_dir/v.h5)
foreach(t h5_read_missing h5_read_not_hdf5 h5_read_other_mesh h5_read_missing_field h5_read_cell_field h5_read_bad_step
          h5_write_bad_dir h5_write_not_a_cell h5_write_wrong_nodes h5_write_bad_index
          h5_write_dup_index h5_result_twice h5_solve_bad_dir)
  set_tests_properties(bad_${t} PROPERTIES FIXTURES_REQUIRED h5_bad LABELS "bad;h5")
endforeach()
set_tests_properties(bad_h5_view_bad_dir PROPERTIES LABELS "bad;h5")

# Faults: a pwrite or pread that fails on one rank (or all), at each call in turn, inside the
# collective HDF5 calls of a result's write and of a restart's read; the XDMF's fsync, and each
# rename that puts a result in place.  The job must end with a
# message naming a rank and the cause, never hang; the previous result stays, no temporary is
# left.  tests/h5/fail_io.c is the LD_PRELOAD library that injects the failures.
add_library(pmesh_fail_io MODULE h5/fail_io.c)
target_compile_options(pmesh_fail_io PRIVATE ${PMESH_WARNINGS} -fno-sanitize=all)
target_link_options(pmesh_fail_io PRIVATE -fno-sanitize=all)
target_link_libraries(pmesh_fail_io PRIVATE ${CMAKE_DL_LIBS})
pmesh_script(h5_faults h5/faults.sh LABELS "h5" TIMEOUT 900 ARGS $<TARGET_FILE:pmesh_fail_io>)
