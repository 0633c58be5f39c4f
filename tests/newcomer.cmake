# The tools' user-facing behaviour (issue 29 and the defaults of issue 28): every refusal is one
# error line before any work, with nothing written; a two-material result file tells its whole
# problem and each element's group; --rtol 0 runs --maxit iterations and succeeds; the defaults
# --precond auto and --order auto.  Included from tests/CMakeLists.txt.
foreach(np 1 4)
  pmesh_script(newcomer_refusals_np${np} newcomer/refusals.sh ARGS ${np} LABELS "solve;partition;bad" TIMEOUT 300)
endforeach()
pmesh_script(newcomer_two_materials newcomer/two_materials.sh LABELS "solve;h5" TIMEOUT 120)
pmesh_script(newcomer_defaults newcomer/defaults.sh LABELS "solve;partition" TIMEOUT 300)
