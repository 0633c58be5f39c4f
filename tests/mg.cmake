# Geometric multigrid (pm_mg.h): CG + MG against CG + AMG on partitions refined K = 1, 2, 3
# times, triangles, mixed, a meshgen quadrangle grid and the 1D bar (rcb), at 1 to 4 ranks and 8
# on one: bounded iteration counts across K, equal solutions, second-order error.
add_test(NAME test_mg_grid_setup COMMAND $<TARGET_FILE:meshgen> grid 9 9 1 1 -o mg_grid.msh
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(test_mg_grid_setup PROPERTIES FIXTURES_SETUP mg_grid LABELS "unit;solve;mg")
add_executable(test_mg test_mg.c tu_part.c)
target_compile_options(test_mg PRIVATE ${PMESH_WARNINGS})
target_link_libraries(test_mg PRIVATE pmesh::pmesh m)
function(pmesh_test_mg name mesh method)
  foreach(np IN LISTS ARGN)
    add_test(NAME test_mg_${name}_np${np} COMMAND ${PMESH_MPIEXEC} -n ${np} $<TARGET_FILE:test_mg> ${mesh} ${method}
             WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
    set_tests_properties(test_mg_${name}_np${np} PROPERTIES TIMEOUT 180 LABELS "unit;solve;mg")
    if(name STREQUAL "grid")
      set_tests_properties(test_mg_${name}_np${np} PROPERTIES FIXTURES_REQUIRED mg_grid)
    endif()
  endforeach()
endfunction()
pmesh_test_mg(square ${PMESH_MESHES}/square.msh metis 1 2 3 4 8)
pmesh_test_mg(mixed ${PMESH_MESHES}/mixed.msh metis 1 2 3 4)
pmesh_test_mg(grid mg_grid.msh metis 1 2 3 4)
pmesh_test_mg(bar ${PMESH_MESHES}/bar.msh rcb 1 2 3 4)
