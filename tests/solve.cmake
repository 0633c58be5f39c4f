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
