# Reproducible mode (solve --reproducible): exact sums, and bitwise-identical results for any
# rank count.  Included from tests/CMakeLists.txt.
#  - test_exact: pm_exact's sums against references computed another way (IEEE a + b, exact long
#    double sums, hand-worked cases), permutation invariance, the binned front end, and the MPI
#    reduction against the serial sum for the terms split over 1, 3 and 4 ranks.
pmesh_unit(test_exact test_exact.c NP 1 3 4 LABELS "exact;repro" TIMEOUT 120 INTERNAL)
#  - repro_solve: solve --reproducible, cmp of result files and residual histories against np = 1
#    for np = 2..8 (METIS and RCB) on triangles, quadrangles, mixed, 1D and the 5-point grid.
pmesh_script(repro_solve repro/reproducible.sh LABELS "solve;repro" TIMEOUT 300)
