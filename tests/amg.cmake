# The AMG preconditioner: its pieces (aggregates, P, P^T A P against a gathered product, the
# coarsest solve) and AMG-CG against Jacobi-CG on every bundled mesh, 1D and 2D, FEM and the
# 5-point scheme, at 1, 2, 3, 4 and 8 ranks; solve-level runs (refinement family, transient,
# options, manufactured solutions).
add_executable(test_amg test_amg.c tu_part.c)
target_compile_options(test_amg PRIVATE ${PMESH_WARNINGS})
target_link_libraries(test_amg PRIVATE pmesh_internal m)
add_test(NAME test_amg_grid_setup COMMAND $<TARGET_FILE:meshgen> grid 41 33 1 1 -o amg_grid.msh
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(test_amg_grid_setup PROPERTIES FIXTURES_SETUP amg_grid LABELS "unit;solve;amg")
foreach(mesh IN ITEMS disk_hole mixed bar square lshape)
  foreach(np IN ITEMS 1 2 3 4 8)
    add_test(NAME test_amg_${mesh}_np${np} COMMAND ${PMESH_MPIEXEC} -n ${np} $<TARGET_FILE:test_amg>
             ${PMESH_MESHES}/${mesh}.msh)
    set_tests_properties(test_amg_${mesh}_np${np} PROPERTIES TIMEOUT 120 LABELS "unit;solve;amg")
  endforeach()
endforeach()
foreach(np IN ITEMS 1 2 3 4 8)
  add_test(NAME test_amg_fdm5_np${np} COMMAND ${PMESH_MPIEXEC} -n ${np} $<TARGET_FILE:test_amg>
           amg_grid.msh --halo edge WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(test_amg_fdm5_np${np} PROPERTIES TIMEOUT 120 LABELS "unit;solve;amg" FIXTURES_REQUIRED amg_grid)
endforeach()
pmesh_script(solve_amg solve/amg.sh LABELS "solve;amg" TIMEOUT 900)
foreach(s p1 q1 fdm5)
  pmesh_script(solve_mms_${s}_amg solve/mms.sh ARGS ${s} amg LABELS "solve;amg" TIMEOUT 600)
endforeach()
