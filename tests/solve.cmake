# Tests of solve: the lecture's 1D case and exchange, manufactured solutions, invariance,
# regression references, and failures that must end every rank.
add_executable(numdiff numdiff.c)
target_link_libraries(numdiff PRIVATE m)

pmesh_script(solve_lecture1d solve/lecture1d.sh LABELS "solve;lecture")
pmesh_script(solve_exchange_test solve/exchange_test.sh LABELS "solve;lecture;halo")
foreach(s p1 q1 fdm5)
  pmesh_script(solve_mms_${s} solve/mms.sh ARGS ${s} LABELS "solve" TIMEOUT 600)
endforeach()
pmesh_script(solve_invariance solve/invariance.sh LABELS "solve" TIMEOUT 900)
pmesh_script(solve_regression solve/regression.sh LABELS "solve" TIMEOUT 900)
pmesh_script(solve_precond solve/precond.sh LABELS "solve" TIMEOUT 600)
foreach(np 1 4)
  pmesh_script(solve_bad_np${np} solve/bad.sh ARGS ${np} LABELS "solve;bad" TIMEOUT 600)
endforeach()
pmesh_script(solve_output solve/output.sh LABELS "solve;h5" TIMEOUT 900)
# Transient runs (--dt --steps) and restarts (--initial).
pmesh_script(solve_transient solve/transient.sh LABELS "solve;h5;transient" TIMEOUT 600)
pmesh_script(solve_restart solve/restart.sh LABELS "solve;h5;transient" TIMEOUT 600)
pmesh_script(solve_transient_bad solve/transient_bad.sh LABELS "solve;bad;transient" TIMEOUT 300)
# Neumann and Robin conditions by manufactured solutions (order 2), hand-computed Robin rows, two
# materials in series and a per-group source in 1D (exact), data in t (first order in dt), and
# the refusals of --robin.
pmesh_script(solve_bc solve/bc.sh LABELS "solve;transient;bad" TIMEOUT 300)

# CG with each preconditioner (none, Jacobi, a user-written one on the general path): FEM on
# triangles, quads and the 1D bar, the 5-point scheme on a grid; 1 to 8 ranks.
add_executable(test_cg test_cg.c tu_part.c)
target_compile_options(test_cg PRIVATE ${PMESH_WARNINGS})
target_link_libraries(test_cg PRIVATE pmesh::pmesh m)
add_test(NAME test_cg_grid_setup COMMAND $<TARGET_FILE:meshgen> grid 21 17 1 1 -o cg_grid.msh
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(test_cg_grid_setup PROPERTIES FIXTURES_SETUP cg_grid LABELS "unit;solve")
foreach(mesh IN ITEMS disk_hole mixed bar)
  foreach(np IN ITEMS 1 2 3 4 8)
    add_test(NAME test_cg_${mesh}_np${np} COMMAND ${PMESH_MPIEXEC} -n ${np} $<TARGET_FILE:test_cg>
             ${PMESH_MESHES}/${mesh}.msh)
    set_tests_properties(test_cg_${mesh}_np${np} PROPERTIES TIMEOUT 120 LABELS "unit;solve")
  endforeach()
endforeach()
foreach(np IN ITEMS 1 3)
  add_test(NAME test_cg_fdm5_np${np} COMMAND ${PMESH_MPIEXEC} -n ${np} $<TARGET_FILE:test_cg>
           cg_grid.msh --halo edge WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(test_cg_fdm5_np${np} PROPERTIES TIMEOUT 120 LABELS "unit;solve" FIXTURES_REQUIRED cg_grid)
endforeach()

# A run through the library with the problem defined in C (callbacks and strings), 1 to 4 ranks.
pmesh_unit(test_run test_run.c NP 1 2 3 4 LABELS "solve;run" ARGS ${PMESH_MESHES}/square.msh TIMEOUT 120)
