# Jacobi against no preconditioner on a problem whose diagonal varies 100-fold (k = 1 + 100 r^2):
# both converge to the same solution (Jacobi runs as CG on the symmetrically scaled system, so
# this checks the scaling and the unscaling of x), Jacobi in clearly fewer iterations, at np = 1
# and 3; and the first iterations' residuals do not depend on the rank count.
. "$PMESH_TESTS/common/work.sh"
for np in 1 3; do
  "$PARTITION" "$PMESH_MESHES/disk_hole.msh" $np -o p.$np --quiet
  for pc in none jacobi; do
    "$MPIEXEC" -n $np "$SOLVE" --no-output -p p.$np --conductivity '1+100*(x*x+y*y)' --source '1+x' --precond $pc \
      --rtol 1e-12 --monitor 1 --dump-solution u.$pc.$np > out.$pc.$np || fail "np=$np precond $pc failed"
    sed -n 's/.*converged after \([0-9]*\) iterations.*/\1/p' out.$pc.$np > it.$pc.$np
    [ -s it.$pc.$np ] || fail "np=$np precond $pc: no iteration count"
    cat u.$pc.$np.* | sort -n > s.$pc.$np
    [ -s s.$pc.$np ] || fail "np=$np precond $pc: no solution dumped"
  done
  "$NUMDIFF" 1e-9 1e-12 s.none.$np s.jacobi.$np || fail "np=$np: Jacobi and unpreconditioned solutions differ"
  none=$(cat it.none.$np) jac=$(cat it.jacobi.$np)
  echo "np=$np: $none iterations unpreconditioned, $jac with Jacobi"
  [ $((jac * 10)) -le $((none * 8)) ] || fail "np=$np: Jacobi ($jac iterations) is not clearly faster than none ($none)"
done
# The residual history of the first 20 iterations: the same on 1 and 3 ranks (to rounding).
for pc in none jacobi; do
  grep '^cg: iteration' out.$pc.1 | head -21 > h1
  grep '^cg: iteration' out.$pc.3 | head -21 > h3
  [ "$(wc -l < h1)" -eq 21 ] || fail "precond $pc: fewer than 21 lines of residual history"
  "$NUMDIFF" 1e-6 1e-30 h1 h3 || fail "precond $pc: residual history differs between 1 and 3 ranks"
done
