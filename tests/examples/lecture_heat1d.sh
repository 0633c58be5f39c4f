# lecture_heat1d.sh EXE: the lecture's 1D bar (NE = 15, input.dat with NEg = 15) at 1, 2, 3 and
# 4 ranks: 15 iterations and T(15) = 112.5 (the analytic value, to 1e-12) on each; the
# lecture's own input.dat (NEg = 10,000,000) against that mesh fails cleanly on every rank.
. "$PMESH_TESTS/common/work.sh"
exe=$1
"$MESHGEN" line 15 1.0 -o bar.msh
sed '1s/.*/15/' "$PMESH_LECTURE/input.dat" > in15.dat
for np in 1 2 3 4; do
  "$PARTITION" bar.msh $np --method rcb -o bar$np --quiet
  "$MPIEXEC" -n $np "$exe" bar$np in15.dat > out.$np || fail "np=$np: exit status $?"
  cat out.$np
  grep -q "converged after 15 iterations" out.$np || fail "np=$np: not 15 iterations"
  awk '/^T\(15\) = / { d = $3 - 112.5; if (d < 0) d = -d; ok = d <= 1e-12 * 112.5 } END { exit !ok }' out.$np ||
    fail "np=$np: T(15) is not 112.5"
done
if "$MPIEXEC" -n 2 "$exe" bar2 "$PMESH_LECTURE/input.dat" > bad.out 2> bad.err; then
  fail "NEg = 10000000 on a 15-element mesh was accepted"
fi
grep -q "NEg = 10000000" bad.err || fail "no message naming NEg: $(cat bad.err)"
