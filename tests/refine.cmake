# Tests of pm_refine: refined partitions pass partition --check at several rank counts and
# levels, the numbering is the same for any rank count, sizes and measures as computed
# independently, gmsh -refine's nodes, bad levels refused.
add_executable(refine_dump refine_dump.c)
target_compile_options(refine_dump PRIVATE ${PMESH_WARNINGS})
target_link_libraries(refine_dump PRIVATE pmesh::pmesh)
add_executable(refine_compare refine_compare.c)
target_compile_options(refine_compare PRIVATE ${PMESH_WARNINGS})
target_link_libraries(refine_compare PRIVATE pmesh::pmesh m)
add_executable(refine_counts refine_counts.c)
target_compile_options(refine_counts PRIVATE ${PMESH_WARNINGS})
target_link_libraries(refine_counts PRIVATE pmesh::pmesh)

# Every mesh type: 1D (rcb, as the issue asks), triangles, a meshgen quadrangle grid, mixed.
pmesh_script(refine_check_bar refine/check.sh ARGS ${PMESH_MESHES}/bar.msh rcb LABELS refine TIMEOUT 300)
pmesh_script(refine_check_square refine/check.sh ARGS ${PMESH_MESHES}/square.msh metis LABELS refine TIMEOUT 300)
pmesh_script(refine_check_grid refine/check.sh ARGS grid:13x9 metis LABELS refine TIMEOUT 300)
pmesh_script(refine_check_mixed refine/check.sh ARGS ${PMESH_MESHES}/mixed.msh metis LABELS refine TIMEOUT 300)
pmesh_script(refine_gmsh refine/gmsh.sh LABELS refine TIMEOUT 300)
pmesh_script(refine_bad refine/bad.sh LABELS "refine;bad" TIMEOUT 120)
pmesh_unit(test_refine test_refine.c NP 1 2 3 4 8 LABELS refine TIMEOUT 120
           ARGS bar.msh rcb square.msh metis mixed.msh metis lshape.msh metis)
# solve --refine K: the refined result the same for any np, second-order errors with mg and amg
# and bounded MG iterations, the lecture's bar exact, refined transient runs and restarts.
foreach(case invariance mms bar restart coarse)
  pmesh_script(refine_solve_${case} refine/solve.sh ARGS ${case} LABELS "refine;solve;mg" TIMEOUT 300)
endforeach()
# The library calls behind solve --refine (pm_run.h): pm_partition_refine, pm_partition_create_mg,
# pm_partition_dump on square.msh partitioned by `partition`, 1 to 4 ranks.
add_executable(test_run_refine test_run_refine.c)
target_compile_options(test_run_refine PRIVATE ${PMESH_WARNINGS})
target_link_libraries(test_run_refine PRIVATE pmesh::pmesh m)
foreach(np 1 2 3 4)
  add_test(NAME test_run_refine_setup_np${np} COMMAND $<TARGET_FILE:partition> ${PMESH_MESHES}/square.msh ${np}
           -o trr.${np} --quiet WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(test_run_refine_setup_np${np} PROPERTIES FIXTURES_SETUP trr${np} LABELS "unit;refine")
  add_test(NAME test_run_refine_np${np} COMMAND ${PMESH_MPIEXEC} -n ${np} $<TARGET_FILE:test_run_refine> trr.${np}
           trr.${np}.dump WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(test_run_refine_np${np} PROPERTIES FIXTURES_REQUIRED trr${np} TIMEOUT 120
                       LABELS "unit;refine;run;mg")
endforeach()
