# refine/solve.sh CASE: solve --refine K runs on the refined mesh (the partition refined in
# parallel after loading), checked against expectations from outside the code:
#   invariance  the result of --refine 2 (mesh datasets byte for byte, u to 1e-10) is the same
#               file for np = 1, 2, 3, 8; it has the independently counted refined mesh and
#               the mesh fingerprint of the refined partition's metadata (--dump-local)
#   mms         a manufactured solution on the bundled mixed mesh over K = 0..3: the L2 error
#               falls by 4 per refinement (order 2 +- 0.1) with --precond amg and with --precond
#               mg; mg and amg give the same solution; MG's iterations stay <= 15 and within 2
#               of each other across K (a broken transfer takes many more)
#   bar         the lecture's 1D bar refined: the exact quadratic at every node, np 1..4, K 1, 3
#   coarse      --mg-coarse rediscretize (the default) and galerkin give the same solution (to
#               1e-9 of max |u|) on the bundled triangle and mixed meshes at np 1 and in parallel
#               (square at 4: interfaces with cross points; mixed at 3: uneven parts), K = 2, with a
#               variable conductivity and nonzero Dirichlet values, steady and transient, in at most
#               15 iterations to 1e-8 and within 1 of each other; the JSON summary names the coarse
#               operators and has peak memory per stage that grows stage by stage, sum >= max
#   order       a large refined run of a partition in its file's node order notes --order hilbert
#               once on stderr; a Hilbert-ordered one, a small one and one from a refined
#               partition print nothing there
#   restart     a transient refined run of 20 steps equals 10 steps plus a restart of 10 from
#               the written series at other rank counts; a steady refined result restarts at
#               another np in 0 or 1 iterations; a result of another K is refused
. "$PMESH_TESTS/common/work.sh"
PY=python3
$PY -c 'import h5py' 2>/dev/null || PY=/usr/bin/python3
case $1 in
invariance)
  mesh="$PMESH_MESHES/mixed.msh"
  want=$(awk -f "$PMESH_TESTS/refine/counts.awk" "$mesh" | sed -n 3p) # nodes, elements after 2 refinements (counts.awk)
  for np in 1 2 3 8; do
    "$PARTITION" "$mesh" $np -o p.$np --quiet
    "$MPIEXEC" -n $np "$SOLVE" -p p.$np --refine 2 --precond mg --source '1+x*y' --rtol 1e-12 -o r.$np.h5 \
      --dump-solution d.$np --dump-local l.$np > out.$np || fail "np $np: $(cat out.$np)"
    same=""
    [ $np -gt 1 ] && same="--same-as r.1.h5"
    $PY "$PMESH_TESTS/common/check_result.py" r.$np.h5 d.$np $np $same || fail "refined result at np $np"
    fp=$(sed -n 's/^mesh_fingerprint //p' l.$np/partition.meta)
    $PY - r.$np.h5 "$fp" "$want" << 'EOF' || fail "refined result at np $np: counts or fingerprint"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
nodes, elems = (int(v) for v in sys.argv[3].split())
got = (f["mesh/coordinates"].shape[0], int(f.attrs["global_elems"]), int(f.attrs["refine"]))
if got != (nodes, elems, 2):
    sys.exit(f"nodes, elements, refine {got}: expected {(nodes, elems, 2)}")
if int(f.attrs["mesh_fingerprint"]) != int(sys.argv[2], 16):
    sys.exit(f"mesh fingerprint {int(f.attrs['mesh_fingerprint']):016x}, partition.meta {sys.argv[2]}")
EOF
  done
  echo "mixed.msh --refine 2: the same result at np 1 2 3 8 ($want nodes, elements)"
  ;;
mms)
  # u = sin(3x) cos(2y): order 2.05, 2.02, 2.01 on mixed.msh.
  "$PARTITION" "$PMESH_MESHES/mixed.msh" 3 -o p --quiet
  u='sin(3*x)*cos(2*y)'
  for K in 0 1 2 3; do
    for pc in amg mg; do
      [ $K = 0 ] && [ $pc = mg ] && continue
      "$MPIEXEC" -n 3 "$SOLVE" -p p --refine $K --precond $pc --source "13*$u" --dirichlet "boundary=$u" \
        --exact "$u" --rtol 1e-12 --monitor 1 --no-output --dump-solution u.$pc.$K > o.$pc.$K ||
        fail "K $K $pc: $(cat o.$pc.$K)"
      sed -n 's/^error against .* L2 //p' o.$pc.$K > e.$pc.$K
      cat u.$pc.$K.* | sort -n > s.$pc.$K
    done
    if [ $K -gt 0 ]; then
      "$NUMDIFF" 0 1e-9 s.amg.$K s.mg.$K || fail "K $K: --precond mg and amg give different solutions"
      # MG's iterations to 1e-8 (the issue's bound), from the residual history.
      awk '/^cg: iteration/ && $NF <= 1e-8 { print $3; exit }' o.mg.$K > n.$K
      [ -s n.$K ] || fail "K $K: mg did not reach 1e-8: $(grep '^cg: [^i]' o.mg.$K)"
    fi
  done
  for pc in amg mg; do
    first=0
    [ $pc = mg ] && first=1
    cat $(seq -f "e.$pc.%g" $first 3) | awk -v pc=$pc '{ e[NR] = $1 }
      END { if (NR < 3) { print pc ": " NR " errors"; exit 1 }
            for (i = 2; i <= NR; i++) { p = log(e[i - 1] / e[i]) / log(2); printf "%s: order %.3f\n", pc, p
              if (p < 1.9 || p > 2.1) bad = 1 }
            exit bad }' || fail "--precond $pc: the error does not fall as h^2"
  done
  its=$(cat n.1 n.2 n.3 | tr '\n' ' ')
  echo "mg iterations to 1e-8 for K = 1 2 3: $its"
  echo "$its" | awk '{ mn = $1; mx = $1; for (i = 1; i <= NF; i++) { mn = $i < mn ? $i : mn; mx = $i > mx ? $i : mx }
    exit !(NF == 3 && mx <= 15 && mx - mn <= 2) }' || fail "mg iterations $its: not <= 15 and within 2"
  ;;
bar)
  # The lecture's bar: NE = 15 of length 1, T(x) = -x^2/2 + 15 x, exact at the nodes of P1.
  "$MESHGEN" line 15 1.0 -o bar.msh > /dev/null
  for np in 1 2 3 4; do
    "$PARTITION" bar.msh $np --method rcb -o p.$np --quiet
    for run in 1:amg 3:mg; do
      K=${run%:*} pc=${run#*:}
      "$MPIEXEC" -n $np "$SOLVE" --no-output -p p.$np --refine $K --precond $pc --dirichlet xmin=0 --source 1 \
        --rtol 1e-12 --dump-solution u.$np > out.txt || fail "np $np K $K $pc: $(cat out.txt)"
      cat u.$np.* | awk -v n=$((15 * (1 << K) + 1)) '{ x = $2; T = -x * x / 2 + 15 * x; d = $4 - T
          if (d < 0) d = -d; if (d > 1e-10 * (T > 1 ? T : 1)) { print "node " $1 " x=" x ": " $4 " != " T; bad = 1 }
          m++ }
        END { if (m != n) { print m " nodes, expected " n; bad = 1 } exit bad }' || fail "np $np K $K $pc"
    done
  done
  echo "the lecture's bar refined once (amg) and 3 times (mg): exact at every node, np 1..4"
  ;;
coarse)
  for mesh_nps in square:"1 4" mixed:"1 3"; do
    mesh=${mesh_nps%%:*}
    for np in ${mesh_nps#*:}; do
      "$PARTITION" "$PMESH_MESHES/$mesh.msh" $np -o p.$np --quiet
      for c in rediscretize galerkin; do
        for kind in steady transient; do
          extra=""
          [ $kind = transient ] && extra="--dt 0.05 --steps 2"
          "$MPIEXEC" -n $np "$SOLVE" -p p.$np --refine 2 --precond mg --mg-coarse $c --conductivity '1+x*x' \
            --source '1+x*y' --dirichlet 'boundary=x-y' --rtol 1e-12 --monitor 1 --no-output $extra \
            --dump-solution u.$c.$kind --summary s.$c.$kind.json > o.$c.$kind ||
            fail "$mesh np $np $c $kind: $(cat o.$c.$kind)"
          cat u.$c.$kind.* | sort -n > all.$c.$kind
          rm -f u.$c.$kind.*
          awk '/^cg: iteration/ && $NF <= 1e-8 { print $3; exit }' o.$c.$kind > n.$c.$kind
          [ -s n.$c.$kind ] || fail "$mesh np $np $c $kind: did not reach 1e-8"
        done
      done
      for kind in steady transient; do
        tol=$(awk '{ a = $4 < 0 ? -$4 : $4; m = a > m ? a : m } END { print 1e-9 * m }' all.galerkin.$kind)
        "$NUMDIFF" 0 "$tol" all.galerkin.$kind all.rediscretize.$kind > /dev/null ||
          fail "$mesh np $np $kind: rediscretised and Galerkin coarse operators give different solutions"
        r=$(cat n.rediscretize.$kind) g=$(cat n.galerkin.$kind)
        [ "$r" -le 15 ] && [ "$g" -le 15 ] && [ $((r - g)) -le 1 ] && [ $((g - r)) -le 1 ] ||
          fail "$mesh np $np $kind: iterations to 1e-8: rediscretised $r, Galerkin $g"
        echo "$mesh np $np $kind: iterations to 1e-8 rediscretised $r, Galerkin $g; same solution"
      done
      $PY - s.rediscretize.steady.json s.galerkin.steady.json s.rediscretize.transient.json << 'EOF' ||
import json, sys
stages = ["load", "refine", "mesh_output", "assembly", "setup", "solve", "output"]
for path, want in zip(sys.argv[1:], ["rediscretized", "galerkin", "rediscretized"]):
    s = json.load(open(path))
    got = s["mg"]["coarse_operators"]
    if got != want:
        sys.exit(f"{path}: coarse_operators {got}, expected {want}")
    mx, sm = s["peak_rss_bytes_max"], s["peak_rss_bytes_sum"]
    if list(mx) != stages or list(sm) != stages:
        sys.exit(f"{path}: peak_rss stages {list(mx)} {list(sm)}")
    prev = 0
    for k in stages:
        if not (prev <= mx[k] <= sm[k] <= s["ranks"] * mx[k] and mx[k] > 1 << 20):
            sys.exit(f"{path}: peak_rss {k}: max {mx[k]}, sum {sm[k]} (previous stage {prev})")
        prev = mx[k]
    per = s["peak_rss_bytes_per_unknown"]
    if abs(per - sm["output"] / s["unknowns"]) > 0.1:
        sys.exit(f"{path}: {per} bytes per unknown, not the last sum over the unknowns")
EOF
        fail "$mesh np $np: the JSON summary"
    done
  done
  ;;
restart)
  CHECK="$PMESH_TESTS/common/check_transient.py"
  "$MESHGEN" grid 9 9 1 1 -o plate.msh > /dev/null
  for np in 2 3 4; do "$PARTITION" plate.msh $np -o p.$np --quiet; done
  run() { # np output.h5 steps [options]
    np=$1; out=$2; steps=$3; shift 3
    "$MPIEXEC" -n $np "$SOLVE" -p p.$np --refine 1 --precond mg -o $out --source '1+x' --dt 0.01 --steps $steps \
      --rtol 1e-12 "$@" > $out.out || fail "$out: $(cat $out.out)"
  }
  run 3 full.h5 20 --every 5
  $PY "$CHECK" series full.h5 20 0.01 5 || fail "the refined transient series"
  run 4 half.h5 10 --every 5
  run 2 rest.h5 10 --initial half.h5
  $PY "$CHECK" compare rest.h5 full.h5 1e-10 || fail "4 -> 2 refined restart differs from the uninterrupted run"
  if $PY "$CHECK" compare half.h5 full.h5 1e-3 > /dev/null; then fail "10 and 20 steps agree"; fi
  # Steady: a refined result read back at another np as the initial guess.
  "$MPIEXEC" -n 3 "$SOLVE" -p p.3 --refine 2 --precond mg --source '1+x' --rtol 1e-10 -o steady.h5 > s1.out ||
    fail "steady: $(cat s1.out)"
  "$MPIEXEC" -n 2 "$SOLVE" -p p.2 --refine 2 --precond mg --source '1+x' --rtol 1e-10 --initial steady.h5 \
    -o again.h5 > s2.out || fail "steady restart: $(cat s2.out)"
  grep -Eq "converged after [01] iterations" s2.out || fail "steady restart: $(grep '^cg' s2.out)"
  $PY "$CHECK" compare again.h5 steady.h5 1e-9 || fail "steady restart changed the solution"
  # Another refinement is another mesh.
  sh "$EXPECT_FAIL" "written for another mesh" 30 "$MPIEXEC" -n 2 "$SOLVE" -p p.2 --refine 1 --initial steady.h5 \
    -o o.h5 || fail "a result of --refine 2 read at --refine 1"
  echo "refined transient, restart 4 -> 2 ranks, steady restart 3 -> 2, other K refused"
  ;;
order)
  # The disk (4k nodes, 2D) keeps its file's order by default; refined 5 times (~1M unknowns) the
  # run says so and names the option, once; after --order hilbert, refined to fewer unknowns, or
  # from a refined partition (--dump-local), it says nothing.
  mesh="$PMESH_MESHES/disk_hole.msh"
  "$PARTITION" "$mesh" 2 -o file.2 --quiet
  "$PARTITION" "$mesh" 2 -o hilbert.2 --order hilbert --quiet
  for d in file hilbert; do
    "$MPIEXEC" -n 2 "$SOLVE" -p $d.2 --refine 5 --precond jacobi --maxit 3 --rtol 0 --no-output \
      > $d.out 2> $d.err || fail "$d: $(cat $d.err)"
  done
  [ "$(grep -c 'note: .*partition with --order hilbert' file.err)" = 1 ] || fail "no single order note: $(cat file.err)"
  [ ! -s hilbert.err ] || fail "a note after --order hilbert: $(cat hilbert.err)"
  "$MPIEXEC" -n 2 "$SOLVE" -p file.2 --refine 2 --precond jacobi --maxit 3 --rtol 0 --no-output > small.out 2> small.err ||
    fail "refine 2: $(cat small.err)"
  [ ! -s small.err ] || fail "a note on a small refined run: $(cat small.err)"
  # A refined partition's own numbering (as fast as Hilbert's) is not taken for the file's.  The note
  # comes before the sizes are checked, so a run refused for memory (PMESH_REFINE_MEMORY) shows it
  # without refining 3.9M unknowns: the file's order does (the control), the refined partition not.
  "$MPIEXEC" -n 2 "$SOLVE" -p file.2 --refine 3 --precond jacobi --maxit 1 --rtol 0 --no-output --dump-local dumped \
    > dump.out 2> dump.err || fail "dump: $(cat dump.err)"
  for d in file.2 dumped; do
    K=3; [ $d = file.2 ] && K=5
    if PMESH_REFINE_MEMORY=1000000 "$MPIEXEC" -n 2 "$SOLVE" -p $d --refine $K --precond jacobi --no-output \
      > small.$d.out 2> small.$d.err; then fail "$d: a 1 MB memory limit did not refuse --refine $K"; fi
    grep -q "GB are available" small.$d.err || fail "$d: not refused for memory: $(cat small.$d.err)"
  done
  [ "$(grep -c 'note: .*partition with --order hilbert' small.file.2.err)" = 1 ] ||
    fail "no note before the memory refusal: $(cat small.file.2.err)"
  ! grep -q "note:" small.dumped.err || fail "a note on a refined partition: $(cat small.dumped.err)"
  echo "order note: file order at ~1M unknowns noted once (also before a refusal); Hilbert order, a small run, a refined partition not"
  ;;
*) fail "unknown case '$1'" ;;
esac
