# The operator interface of the solvers (pmesh/pm_op.h) and the halo built from plain lists:
# a shell operator against the assembled one under CG, the refusals of AMG, multigrid and
# Jacobi, a user's preconditioner set up from an operator; the lists' halo through every
# back-end.  At 1 to 4 ranks.
pmesh_unit(test_halo_lists test_halo_lists.c NP 1 2 3 4 LABELS "halo;operator" TIMEOUT 180)
pmesh_unit(test_op test_op.c NP 1 2 3 4 LABELS "solve;operator" TIMEOUT 300)
