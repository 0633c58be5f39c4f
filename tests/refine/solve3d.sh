# refine/solve3d.sh CASE: solve --refine K on 3D meshes, checked against expectations from
# outside the code:
#   invariance  the result of --refine 1 (mesh datasets byte for byte, u to 1e-10) of the mixed
#               fixture (tetrahedra, hexahedra, prisms), of the pyramid fixture (np 1, 3) and of
#               --refine 2 of a box of tetrahedra is the same file for np = 1, 2, 3, 8 (the box:
#               1, 4), with the independently counted
#               refined mesh (counts.awk) and the refined partition's mesh fingerprint; with
#               --reproducible the files are the same bytes; a refined transient run restarts at
#               another np as the uninterrupted run
#   mms         u = sin(pi x) sin(pi y) sin(pi z) on [0,1]^3, boxes of 4^3 cells of tetrahedra,
#               hexahedra, prisms and pyramids refined K = 0..3: the nodal max error falls by 4
#               per level (ratio 3.5..4.6; amg at K = 0, mg at K = 1..3; pyramids: the L2 error
#               by 3.5..5.5, the max error by at least 2.2 and more each level); mg and amg give the same
#               solution (1e-8) and max error at K = 1, 2; MG's iterations to 1e-8 are at most 15
#               and grow by at most 3 from K=1 to K=3 (a broken transfer takes many more)
#   quality     a sheared box of tetrahedra refined twice: every tetrahedron's inner diagonal
#               is a shortest one (brute force), the worst radius ratio stays within 2x of the
#               coarse mesh's, where a fixed diagonal would break it (tet_quality.py)
#   bad         what 3D refinement refuses (auxiliary nodes of a --halo edge partition, sizes
#               past 32-bit local indices or the memory) is refused on every rank with a clear
#               message, before anything is written
. "$PMESH_TESTS/common/work.sh"
PY=python3
$PY -c 'import h5py' 2>/dev/null || PY=/usr/bin/python3
M3="$PMESH_TESTS/common/meshes3d"
case $1 in
invariance)
  "$MESHGEN" box 4 4 4 --tet -o tet.msh > /dev/null
  for spec in "$M3/mixed_41.msh:1:1 2 3 8" "$PWD/tet.msh:2:1 4" "$M3/pyramid_41.msh:1:1 3"; do
    IFS=: read -r mesh K nps << EOF
$spec
EOF
    want=$(awk -f "$PMESH_TESTS/refine/counts.awk" "$mesh" | sed -n "$((K + 1))p")
    for np in $nps; do
      "$PARTITION" "$mesh" $np -o p.$np --quiet
      "$MPIEXEC" -n $np "$SOLVE" -p p.$np --refine $K --precond mg --source '1+x*y' --rtol 1e-12 -o r.$np.h5 \
        --dump-solution d.$np --dump-local l.$np > out.$np || fail "np $np: $(cat out.$np)"
      same=""
      [ $np -gt 1 ] && same="--same-as r.1.h5"
      $PY "$PMESH_TESTS/common/check_result.py" r.$np.h5 d.$np $np $same || fail "$mesh: refined result at np $np"
      fp=$(sed -n 's/^mesh_fingerprint //p' l.$np/partition.meta)
      $PY - r.$np.h5 "$fp" "$want" $K << 'EOF' || fail "$mesh: refined result at np $np: counts or fingerprint"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
nodes, elems = (int(v) for v in sys.argv[3].split())
K = int(sys.argv[4])
got = (f["mesh/coordinates"].shape[0], int(f.attrs["global_elems"]), int(f.attrs["refine"]))
if got != (nodes, elems, K):
    sys.exit(f"nodes, elements, refine {got}: expected {(nodes, elems, K)}")
if int(f.attrs["mesh_fingerprint"]) != int(sys.argv[2], 16):
    sys.exit(f"mesh fingerprint {int(f.attrs['mesh_fingerprint']):016x}, partition.meta {sys.argv[2]}")
EOF
      rm -rf l.$np d.$np.*
    done
    echo "$mesh --refine $K: the same result at np $nps ($want nodes, elements)"
  done
  # --reproducible (CG with Jacobi: MG is not reproducible across rank counts): the same bytes at np 2 and 3.
  "$PARTITION" tet.msh 3 -o p.3 --quiet
  "$PARTITION" tet.msh 2 -o p.2 --quiet
  for np in 2 3; do
    "$MPIEXEC" -n $np "$SOLVE" -p p.$np --refine 2 --reproducible -o rep.$np.h5 > rep.$np.out ||
      fail "--reproducible at np $np: $(cat rep.$np.out)"
  done
  cmp -s rep.2.h5 rep.3.h5 || fail "--reproducible --refine 2: the files of np 2 and 3 differ"
  # A refined transient run restarts at another np.
  CHECK="$PMESH_TESTS/common/check_transient.py"
  run() { # np output.h5 steps [options]
    np=$1; out=$2; steps=$3; shift 3
    "$MPIEXEC" -n $np "$SOLVE" -p p.$np --refine 1 --precond mg -o $out --source '1+x' --dt 0.01 --steps $steps \
      --rtol 1e-12 "$@" > $out.out || fail "$out: $(cat $out.out)"
  }
  "$PARTITION" "$M3/mixed_41.msh" 3 -o p.3 --quiet
  "$PARTITION" "$M3/mixed_41.msh" 2 -o p.2 --quiet
  "$PARTITION" "$M3/mixed_41.msh" 4 -o p.4 --quiet
  run 3 full.h5 10 --every 5
  run 2 half.h5 5 --every 5
  run 4 rest.h5 5 --initial half.h5
  $PY "$CHECK" compare rest.h5 full.h5 1e-10 || fail "2 -> 4 refined 3D restart differs from the uninterrupted run"
  echo "--reproducible --refine 2 the same bytes at np 2 and 3; refined 3D restart 2 -> 4 ranks"
  ;;
mms)
  u='sin(pi*x)*sin(pi*y)*sin(pi*z)'
  for type in hex --tet --prism --pyramid; do
    t=${type#--}
    opt=$type
    [ $t = hex ] && opt=
    "$MESHGEN" box 5 5 5 1 1 1 $opt -o $t.msh > /dev/null
    "$PARTITION" $t.msh 2 -o p.$t --quiet
    : > e.$t
    : > l.$t
    : > n.$t
    for K in 0 1 2 3; do
      for pc in amg mg; do
        [ $K = 0 ] && [ $pc = mg ] && continue
        [ $K = 3 ] && [ $pc = amg ] && continue
        "$MPIEXEC" -n 2 "$SOLVE" -p p.$t --refine $K --precond $pc --source "3*pi*pi*$u" --exact "$u" --rtol 1e-12 \
          --monitor 1 --no-output --dump-solution u.$t.$pc.$K > o.$t.$pc.$K || fail "$t K $K $pc: $(cat o.$t.$pc.$K)"
        cat u.$t.$pc.$K.* | sort -n > s.$t.$pc.$K
      done
      pc=mg
      [ $K = 0 ] && pc=amg
      sed -n 's/^error against .*: max \([^,]*\),.*/\1/p' o.$t.$pc.$K >> e.$t
      sed -n 's/^error against .*, L2 \(.*\)$/\1/p' o.$t.$pc.$K >> l.$t
      if [ $K = 1 ] || [ $K = 2 ]; then
        sed -n 's/^error against .*: max \([^,]*\),.*/\1/p' o.$t.amg.$K > ea
        awk -v a="$(sed -n "$((K + 1))p" e.$t)" '{ exit !($1 <= 1.01 * a && $1 >= 0.99 * a) }' ea ||
          fail "$t K $K: amg's max error $(cat ea), mg's $(sed -n "$((K + 1))p" e.$t)"
        "$NUMDIFF" 0 1e-8 s.$t.amg.$K s.$t.mg.$K || fail "$t K $K: --precond mg and amg give different solutions"
      fi
      if [ $K -gt 0 ]; then
        its=$(awk '/^cg: iteration/ && $NF <= 1e-8 { print $3; exit }' o.$t.mg.$K)
        [ -n "$its" ] || fail "$t K $K: mg did not reach 1e-8: $(grep '^cg: [^i]' o.$t.mg.$K)"
        echo $its >> n.$t
      fi
    done
    if [ $t = pyramid ]; then
      # The refined pyramids (6 pyramids and 4 tetrahedra each) approach the asymptotic rate more
      # slowly: the L2 error falls by 4.6-4.8 per level, the nodal max error by 2.4, 3.1, 3.3
      # (3.6 from K = 3 to 4).
      paste l.$t e.$t | awk '{ l[NR] = $1; e[NR] = $2 } END { if (NR != 4) { print "pyramid: " NR " errors"; exit 1 }
        for (i = 2; i <= NR; i++) { r = l[i - 1] / l[i]; q = e[i - 1] / e[i]
          printf "pyramid: L2 error %.3e -> %.3e, ratio %.2f; max error ratio %.2f\n", l[i - 1], l[i], r, q
          if (r < 3.5 || r > 5.5 || q < 2.2 || q < p) bad = 1; p = q }
        exit bad }' || fail "pyramid: the L2 error does not fall by 4 per level, or the max error's ratio not towards 4"
    else
      awk -v t=$t '{ e[NR] = $1 } END { if (NR != 4) { print t ": " NR " errors"; exit 1 }
        for (i = 2; i <= NR; i++) { r = e[i - 1] / e[i]; printf "%s: max error %.3e -> %.3e, ratio %.2f\n", t, e[i - 1], e[i], r
          if (r < 3.5 || r > 4.6) bad = 1 }
        exit bad }' e.$t || fail "$t: the nodal max error does not fall by 4 per level"
    fi
    its=$(tr '\n' ' ' < n.$t)
    echo "$t: mg iterations to 1e-8 for K = 1 2 3: $its"
    echo "$its" | awk '{ mx = 0; for (i = 1; i <= NF; i++) mx = $i > mx ? $i : mx
      exit !(NF == 3 && mx <= 15 && $3 - $1 <= 3) }' || fail "$t: mg iterations $its: not <= 15 and within +3"
  done
  ;;
quality)
  # x' = x + 0.5 y + 0.3 z, y' = y + 0.3 z, z' = 0.8 z on the box's nodes (MSH 4.1: the coordinate
  # lines are the three-field lines of $Nodes).
  "$MESHGEN" box 3 3 3 --tet -o box.msh > /dev/null
  awk '/^\$Nodes/ { s = 1 } /^\$EndNodes/ { s = 0 }
       s && NF == 3 { printf "%.17g %.17g %.17g\n", $1 + 0.5 * $2 + 0.3 * $3, $2 + 0.3 * $3, 0.8 * $3; next } { print }' \
    box.msh > skew.msh
  "$PARTITION" skew.msh 2 -o p --quiet
  for K in 1 2; do
    "$MPIEXEC" -n 2 "$SOLVE" -p p --refine $K --dump-local r$K --no-output > o$K || fail "K $K: $(cat o$K)"
  done
  got=$($PY "$PMESH_TESTS/refine/tet_quality.py" p r1 r2) || fail "tet_quality.py: $got"
  echo "worst radius ratio: coarse, K = 1, K = 2, K = 2 with a fixed diagonal: $got"
  ;;
bad)
  # A partition of hexahedra with the edge halo has auxiliary nodes: refused on every rank.
  "$MESHGEN" box 5 4 4 -o box.msh > /dev/null
  "$PARTITION" box.msh 3 --halo edge -o pe --quiet
  grep -q '^#AUXNODE' pe/local.0* || fail "no #AUXNODE section"
  [ "$(awk '/^#AUXNODE/ { getline; s += $1 } END { print s + 0 }' pe/local.*)" -gt 0 ] ||
    fail "the edge-halo partition of hexahedra has no auxiliary nodes"
  sh "$EXPECT_FAIL" "supports element-halo partitions only" 30 "$MPIEXEC" -n 3 "$PMESH_TESTBIN/refine_dump" pe 1 re ||
    fail "refinement of an edge-halo partition of hexahedra"
  sh "$EXPECT_FAIL" "supports element-halo partitions only" 30 "$MPIEXEC" -n 3 "$SOLVE" -p pe --scheme fdm7 \
    --refine 1 -o s.h5 || fail "solve --scheme fdm7 --refine 1 of an edge-halo partition"
  sh "$EXPECT_FAIL" "was partitioned with --halo edge" 30 "$MPIEXEC" -n 3 "$SOLVE" -p pe --refine 1 -o s.h5 ||
    fail "solve --refine 1 (FEM) of an edge-halo partition"
  # Sizes: 8^K per level in 3D, checked before anything is allocated.
  "$PARTITION" box.msh 2 -o p --quiet
  sh "$EXPECT_FAIL" "more than 32-bit local indices hold" 30 "$MPIEXEC" -n 2 "$SOLVE" -p p --refine 10 -o s.h5 ||
    fail "solve --refine 10 of a 3D box"
  sh "$EXPECT_FAIL" "GB are available" 30 env PMESH_REFINE_MEMORY=1000000 "$MPIEXEC" -n 2 "$SOLVE" -p p --refine 3 \
    -o s.h5 || fail "solve --refine 3 of a 3D box in 1 MB"
  [ ! -e re ] && [ ! -e s.h5 ] || fail "a refused refinement wrote a dump or a result"
  echo "3D edge-halo partitions and oversized 3D refinements refused on every rank"
  ;;
*) fail "unknown case '$1'" ;;
esac
