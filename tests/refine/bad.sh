# refine/bad.sh: bad refinement levels are refused cleanly, with the figures, on every rank
# (no hang): negative; so many that 32-bit local indices overflow; an edge-halo partition of
# quadrangles (auxiliary nodes) is refused with a message naming the cause (3D: solve3d.sh bad).
. "$PMESH_TESTS/common/work.sh"
"$PARTITION" "$PMESH_MESHES/square.msh" 2 -o p --quiet
sh "$EXPECT_FAIL" "refinement levels -1: must be 0 or more" 30 "$MPIEXEC" -n 2 "$PMESH_TESTBIN/refine_dump" p -1 r ||
  fail "K = -1"
sh "$EXPECT_FAIL" "more than 32-bit local indices hold" 30 "$MPIEXEC" -n 2 "$PMESH_TESTBIN/refine_dump" p 14 r ||
  fail "K = 14"
[ ! -e r ] || fail "a refused refinement wrote r/"
"$MESHGEN" grid 9 7 -o grid.msh > /dev/null
"$PARTITION" grid.msh 3 --halo edge -o pe --quiet
sh "$EXPECT_FAIL" "supports element-halo partitions only" 30 "$MPIEXEC" -n 3 "$PMESH_TESTBIN/refine_dump" pe 1 re ||
  fail "edge halo"
# Memory: with 1 MB said to be available (PMESH_REFINE_MEMORY), three levels of square are
# refused before anything is allocated, with the figures.
sh "$EXPECT_FAIL" "GB are available" 30 env PMESH_REFINE_MEMORY=1000000 "$MPIEXEC" -n 2 "$PMESH_TESTBIN/refine_dump" p 3 r ||
  fail "memory"
[ ! -e r ] || fail "a refused refinement wrote r/"
# The same through solve --refine: refused before anything is written, with the figures.
sh "$EXPECT_FAIL" "--refine -1: the number of uniform refinements must be 0 (none) or more" 30 \
  "$MPIEXEC" -n 2 "$SOLVE" -p p --refine -1 -o s.h5 || fail "solve --refine -1"
sh "$EXPECT_FAIL" "--refine 65: each refinement doubles (1D), quadruples (2D) or octuples (3D) the mesh: at most 64" 30 \
  "$MPIEXEC" -n 2 "$SOLVE" -p p --refine 65 -o s.h5 || fail "solve --refine 65"
sh "$EXPECT_FAIL" "more than 32-bit local indices hold" 30 "$MPIEXEC" -n 2 "$SOLVE" -p p --refine 14 -o s.h5 \
  --dump-local sr || fail "solve --refine 14"
sh "$EXPECT_FAIL" "GB are available" 30 env PMESH_REFINE_MEMORY=1000000 "$MPIEXEC" -n 2 "$SOLVE" -p p --refine 3 \
  -o s.h5 --dump-local sr || fail "solve --refine 3 in 1 MB"
# The run's own memory counts too: 2 levels of square (~8k nodes) fit the refinement alone in
# 3 MB (2.5) but not an AMG solve on them that keeps the elements for its error norms (3.5).
sh "$EXPECT_FAIL" "refining 2 times and running on the fine mesh needs about" 30 env PMESH_REFINE_MEMORY=3000000 \
  "$MPIEXEC" -n 2 "$SOLVE" -p p --refine 2 --precond amg --exact 0 -o s.h5 ||
  fail "solve --refine 2 --precond amg --exact 0 in 3 MB"
sh "$EXPECT_FAIL" "--precond mg needs --refine K with K >= 1" 30 "$MPIEXEC" -n 2 "$SOLVE" -p p --precond mg -o s.h5 ||
  fail "solve --precond mg without --refine"
sh "$EXPECT_FAIL" "was partitioned with --halo edge" 30 "$MPIEXEC" -n 3 "$SOLVE" -p pe --refine 1 -o s.h5 ||
  fail "solve --refine of an edge-halo partition"
sh "$EXPECT_FAIL" "supports element-halo partitions only" 30 "$MPIEXEC" -n 3 "$SOLVE" -p pe --scheme fdm5 --refine 1 \
  -o s.h5 || fail "solve --scheme fdm5 --refine of an edge-halo partition"
[ ! -e s.h5 ] && [ ! -e sr ] || fail "a refused refinement wrote a result or a dump"
# A dump over the partition being read would replace it.
sh "$EXPECT_FAIL" "is the partition solve reads" 30 "$MPIEXEC" -n 2 "$SOLVE" -p p --refine 1 --dump-local ./p/ ||
  fail "solve --dump-local over its own partition"
"$PARTITION" --check p > /dev/null || fail "the partition was changed by a refused dump"
