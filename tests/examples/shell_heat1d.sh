# shell_heat1d.sh EXE: the lecture's 1D bar on the example's own arrays (halo from plain lists,
# matrix-free operator, CG with Jacobi) at 1, 2, 3 and 4 ranks: T(15) = 112.5 (the analytic
# value, to 1e-12) and at most 15 iterations (CG on 15 unknowns); T(40) = 800 likewise.
. "$PMESH_TESTS/common/work.sh"
exe=$1
for np in 1 2 3 4; do
  "$MPIEXEC" -n $np "$exe" > out.$np || fail "np=$np: exit status $?"
  cat out.$np
  awk '/^converged after/ { ok = $3 <= 15 } END { exit !ok }' out.$np || fail "np=$np: not converged in 15 iterations"
  awk '/^T\(15\) = / { d = $3 - 112.5; if (d < 0) d = -d; ok = d <= 1e-12 * 112.5 } END { exit !ok }' out.$np ||
    fail "np=$np: T(15) is not 112.5"
  "$MPIEXEC" -n $np "$exe" 40 > out40.$np || fail "np=$np, NEg = 40: exit status $?"
  awk '/^T\(40\) = / { d = $3 - 800; if (d < 0) d = -d; ok = d <= 1e-11 * 800 } END { exit !ok }' out40.$np ||
    fail "np=$np: T(40) is not 800: $(cat out40.$np)"
done
if "$MPIEXEC" -n 2 "$exe" 1 > bad.out 2> bad.err; then
  fail "NEg = 1 on 2 ranks was accepted"
fi
