# solve --precond amg:
#  (a) a refinement family (5-point grids 65^2, 129^2, 257^2, P1 triangles 65^2, 129^2, 257^2) at
#      np = 2: at most 30 iterations each, growing by at most 4 from the coarsest to the finest
#      (Jacobi's grow with 1/h: a broken smoother or prolongator shows here);
#  (b) the same solution as Jacobi (numdiff, 1e-7 relative at rtol 1e-10) on the L-shape at
#      np = 3, and the hierarchy in the summary (text and JSON); with --amg-rows-per-rank 30 the
#      ranks per level shrink as designed (a level of R rows whose parent is on S ranks goes onto
#      max(1, R / 30) of them when R < 30 S) and the solution is still Jacobi's;
#  (c) transient: one set-up serves every step (cycles = iterations + steps: one apply per
#      iteration and one per step's start), and the last step equals Jacobi's;
#  (d) a pure-Neumann transient operator (M/dt + K) works: an insulated body heated by f = 1
#      has u^n = n dt at every node; a steady pure-Neumann problem is still refused;
#  (e) bad options fail with a message naming them.
. "$PMESH_TESTS/common/work.sh"
its() { sed -n 's/.*converged after \([0-9]*\) iterations.*/\1/p' "$1"; }

for kind in fdm5 p1; do
  first=""
  for n in 65 129 257; do
    if [ $kind = fdm5 ]; then
      "$MESHGEN" grid $n $n 1 1 -o g.msh > /dev/null
      "$PARTITION" g.msh 2 --halo edge -o g.2 --quiet
      [ $n = 257 ] && cp -r g.2 g257.2 # for (f)
      s=fdm5
    else
      "$MESHGEN" grid $n $n 1 1 --tri -o g.msh > /dev/null
      "$PARTITION" g.msh 2 -o g.2 --quiet
      s=fem
    fi
    "$MPIEXEC" -n 2 "$SOLVE" --no-output -p g.2 --scheme $s --precond amg --source '1+x*y' > a.out ||
      fail "(a) $kind $n: solve failed"
    it=$(its a.out)
    [ -n "$it" ] || fail "(a) $kind $n: no iteration count"
    echo "(a) $kind ${n}x$n: $it AMG iterations"
    [ "$it" -le 30 ] || fail "(a) $kind $n: $it iterations > 30"
    [ -n "$first" ] || first=$it
  done
  [ $((it - first)) -le 4 ] || fail "(a) $kind: iterations grew from $first to $it"
done

"$PARTITION" "$PMESH_MESHES/lshape.msh" 3 -o l.3 --quiet
for pc in jacobi amg; do
  "$MPIEXEC" -n 3 "$SOLVE" --no-output -p l.3 --conductivity '1+10*x*x' --source '1+y' --precond $pc --rtol 1e-10 \
    --dump-solution u.$pc --summary s.$pc.json > out.$pc || fail "(b) $pc failed"
  cat u.$pc.[0-9]* | sort -n > sol.$pc
done
"$MPIEXEC" -n 3 "$SOLVE" --no-output -p l.3 --conductivity '1+10*x*x' --source '1+y' --precond amg --rtol 1e-10 \
  --amg-coarse 20 --amg-rows-per-rank 30 --dump-solution u.agg --summary s.agg.json > out.agg || fail "(b) agglomerated"
cat u.agg.[0-9]* | sort -n > sol.agg
"$NUMDIFF" 1e-7 1e-10 sol.jacobi sol.amg || fail "(b) AMG and Jacobi solutions differ"
"$NUMDIFF" 1e-7 1e-10 sol.jacobi sol.agg || fail "(b) agglomerated AMG and Jacobi solutions differ"
python3 - s.agg.json <<'EOF' || fail "(b) ranks per level"
import json, sys
a = json.load(open(sys.argv[1]))["amg"]
rows, ranks, S = a["rows"], a["ranks"], 3
print("(b) rows per level %s on ranks %s, coarsest factored on %d" % (rows, ranks, a["coarse_ranks"]))
ok = a["rows_per_rank"] == 30 and len(rows) >= 3
for r, k in zip(rows[1:], ranks[1:]):
    if r < 30 * S:
        S = max(1, r // 30)
        ok = ok and k == S
    else:
        ok = ok and k <= S
sys.exit(0 if ok and a["coarse_ranks"] == S and ranks[-1] < 3 else 1)
EOF
grep -q '^amg: .* on fewer ranks, coarsest level factored (dense Cholesky on [0-9]* rank' out.agg ||
  fail "(b) the summary does not name the agglomeration"
grep -q '^amg: [0-9]* levels, operator complexity' out.amg || fail "(b) no hierarchy line"
grep -q '^  level 1: ' out.amg || fail "(b) no level lines"
grep -q '"amg": {"levels": [0-9]*, "operator_complexity"' s.amg.json || fail "(b) no amg object in the summary"
grep -q '"precond": "amg"' s.amg.json || fail "(b) precond in the summary"
grep -q '"amg"' s.jacobi.json && fail "(b) a Jacobi summary has an amg object"
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' s.amg.json || fail "(b) the summary is not JSON"

"$MESHGEN" grid 41 41 1 1 -o plate.msh > /dev/null
"$PARTITION" plate.msh 4 -o p.4 --quiet
for pc in jacobi amg; do
  "$MPIEXEC" -n 4 "$SOLVE" --no-output -p p.4 --dt 0.01 --steps 12 --precond $pc --rtol 1e-11 \
    --dump-solution dt.$pc --summary t.$pc.json > t.$pc.out || fail "(c) transient $pc failed"
  cat dt.$pc.[0-9]* | sort -n > tsol.$pc
done
"$NUMDIFF" 1e-7 1e-12 tsol.jacobi tsol.amg || fail "(c) transient AMG and Jacobi differ"
python3 - t.amg.json <<'EOF' || fail "(c) the hierarchy was not reused"
import json, sys
s = json.load(open(sys.argv[1]))
cycles, total, steps = s["amg"]["cycles"], s["transient"]["iterations_total"], s["transient"]["steps_done"]
print("(c) %d cycles, %d iterations over %d steps" % (cycles, total, steps))
sys.exit(0 if cycles == total + steps and steps == 12 else 1)
EOF

"$PARTITION" "$PMESH_MESHES/square.msh" 3 -o sq.3 --quiet
"$MPIEXEC" -n 3 "$SOLVE" -p sq.3 --no-output --neumann boundary=0 --dt 0.1 --steps 5 --precond amg --rtol 1e-13 \
  --dump-solution ins > ins.out || fail "(d) insulated transient failed"
cat ins.[0-9]* | awk '{ d = $4 - 0.5; if (d < 0) d = -d; if (d > 1e-10) { print "node " $1 " u = " $4; bad = 1 } }
  END { exit bad }' || fail "(d) insulated: u is not n dt"
"$EXPECT_FAIL" "singular (pure Neumann)" 60 "$MPIEXEC" -n 3 "$SOLVE" -p sq.3 --no-output --neumann boundary=0 \
  --precond amg || fail "(d) a steady pure-Neumann problem"

# (f) Thresholds above the operator's ties (the 5-point grid's coarse levels fall below 0.25)
# still coarsen and converge: rows with only weak ties are aggregated, not left to the smoother.
# g257.2: (a)'s finest 5-point partition.
for t in 0.25 0.5; do
  "$MPIEXEC" -n 2 "$SOLVE" -p g257.2 --scheme fdm5 --no-output --precond amg --amg-threshold $t > th.out ||
    fail "(f) threshold $t did not converge"
  it=$(sed -n 's/.*converged after \([0-9]*\) iterations.*/\1/p' th.out)
  [ -n "$it" ] && [ "$it" -le 25 ] || fail "(f) threshold $t: $it iterations (at most 25 expected)"
  echo "threshold $t: $it iterations"
done

for bad in "--amg-smoother gauss:unknown AMG smoother 'gauss'" "--amg-threshold 1:threshold 1 is out of range" \
  "--amg-threshold -0.5:threshold -0.5 is out of range" "--amg-levels 0:level count 0 out of range" \
  "--amg-sweeps 0:sweeps 0 out of range" "--amg-coarse 0:coarse size 0 out of range" \
  "--amg-rows-per-rank -1:rows per rank -1 out of range" \
  "--amg-precision half:unknown AMG cycle precision 'half'"; do
  opt=${bad%%:*} msg=${bad#*:}
  # shellcheck disable=SC2086
  "$EXPECT_FAIL" "$msg" 60 "$MPIEXEC" -n 2 "$SOLVE" -p g.2 --no-output --precond amg $opt || fail "(e) $opt"
done
echo "amg: refinement family, Jacobi agreement, transient reuse, pure Neumann, bad options ok"
