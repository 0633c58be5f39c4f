# Restarts (solve --initial FILE.h5): a transient run of 2N steps equals N steps followed by a
# restart of N more from the written series, also when the two halves run at other rank counts
# (4 -> 3, 5 -> 2) and when restarting from a middle step (--initial-step); a file of another
# mesh is refused; a steady solve started from its own converged solution needs 0 or 1
# iterations.
. "$PMESH_TESTS/common/work.sh"
PY=python3
$PY -c 'import h5py' 2>/dev/null || PY=/usr/bin/python3
CHECK="$PMESH_TESTS/common/check_transient.py"
# differs A B RTOL [STEP_A [STEP_B]]: true when the compare fails because the values differ (its
# "differ by" line), not because it could not compare at all.
differs() {
  if $PY "$CHECK" compare "$@" > differs.txt; then return 1; fi
  grep -q "differ by" differs.txt || { cat differs.txt; fail "check_transient.py compare $* failed otherwise"; }
}
"$MESHGEN" grid 11 11 1 1 -o plate.msh
for np in 2 3 4 5; do "$PARTITION" plate.msh $np -o p.$np --quiet; done
# dt 0.01: t = 0.2 after 20 steps, still far from steady (the slowest mode decays as e^{-2 pi^2 t}).
run() { # np output.h5 steps [options]
  np=$1; out=$2; steps=$3; shift 3
  "$MPIEXEC" -n $np "$SOLVE" -p p.$np -o $out --source '1+x' --dt 0.01 --steps $steps --rtol 1e-12 "$@" > $out.out
}
run 3 full.h5 20
run 4 half.h5 10 --every 5
run 3 rest.h5 10 --initial half.h5
$PY "$CHECK" compare rest.h5 full.h5 1e-10 || fail "4 -> 3 restart differs from the uninterrupted run"
differs half.h5 full.h5 1e-3 || fail "10 and 20 steps agree: the test would not see a restart from 0"
run 5 half5.h5 10 --every 10
run 2 rest2.h5 10 --initial half5.h5 --initial-field u
$PY "$CHECK" compare rest2.h5 full.h5 1e-10 || fail "5 -> 2 restart differs from the uninterrupted run"
# From a middle step of a series: step 1 of half.h5 is time step 5; 15 more steps.
run 2 mid.h5 15 --initial half.h5 --initial-step 1
$PY "$CHECK" compare mid.h5 full.h5 1e-10 || fail "restart from --initial-step 1 differs"
# The restarted series starts with the state it read.
$PY "$CHECK" compare rest.h5 half.h5 0 0 || fail "step 0 of the restart is not the last step of its initial file"

# Another mesh: refused with the fingerprint message.
"$MESHGEN" grid 12 11 1 1 -o other.msh
"$PARTITION" other.msh 2 -o o.2 --quiet
sh "$EXPECT_FAIL" "written for another mesh" 30 "$MPIEXEC" -n 2 "$SOLVE" -p o.2 -o o.h5 --dt 0.01 --steps 2 \
  --initial full.h5 || fail "a file of another mesh was accepted"
sh "$EXPECT_FAIL" "written for another mesh" 30 "$MPIEXEC" -n 2 "$SOLVE" -p o.2 -o o.h5 --initial full.h5 ||
  fail "a file of another mesh was accepted (steady)"

# Steady from its converged solution (written at np = 3, read at np = 4): 0 or 1 iterations.
"$MPIEXEC" -n 3 "$SOLVE" -p p.3 -o steady.h5 --source '1+x' > steady.out
"$MPIEXEC" -n 4 "$SOLVE" -p p.4 -o again.h5 --source '1+x' --initial steady.h5 > again.out
cat again.out
it=$(sed -n 's/.*converged after \([0-9]*\) iterations.*/\1/p' again.out)
[ -n "$it" ] && [ "$it" -le 1 ] || fail "steady solve from its converged solution took '$it' iterations"
$PY "$CHECK" compare again.h5 steady.h5 1e-7 || fail "steady restart changed the solution"
# A steady start from the last step of a transient series works as well (fewer iterations than from 0).
"$MPIEXEC" -n 2 "$SOLVE" -p p.2 -o s2.h5 --source '1+x' --initial full.h5 > s2.out
"$MPIEXEC" -n 2 "$SOLVE" -p p.2 -o s0.h5 --source '1+x' > s0.out
i2=$(sed -n 's/.*converged after \([0-9]*\) iterations.*/\1/p' s2.out)
i0=$(sed -n 's/.*converged after \([0-9]*\) iterations.*/\1/p' s0.out)
echo "steady iterations: from 0: $i0, from the transient's last step: $i2"
[ "$i2" -le "$i0" ] || fail "a warm start took more iterations ($i2) than a cold one ($i0)"
echo "restart: 4->3, 5->2, mid-series restarts equal the uninterrupted run; other mesh refused; warm starts ok"
