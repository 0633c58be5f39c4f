# solve --fine-operator matrix-free (pm_fine_op.c: the finest level applied from the level
# below, no fine matrix) against --fine-operator assembled, the same problem on the same refined
# mesh:
#  (a) a manufactured solution on a meshgen box of tetrahedra (the unit cube), K = 1 and 2, np 2
#      (jacobi and mg) and 3 (mg): the same iterations within 1, the same nodal solution to
#      1e-6 (both solved to 1e-12; the matrix-free weights are single precision, 6e-8 each) and
#      the same error norms to 1e-4 relative; and the matrix-free errors fall about 4x
#      from K = 1 to K = 2 (second order, from the exact solution, not from the assembled run);
#  (b) the Gmsh tet_hole mesh with two Dirichlet groups, a source and a conductivity per volume
#      group, mg, K = 1: the same iterations within 1 and the same solution;
#  (e) the same as (a) on meshgen boxes of hexahedra and of prisms (their children's matrices
#      kept, pm_fine_cells.h), np 2, mg: iterations, solutions, error norms and the rate;
#  (c) refusals naming the option and the reason: quadrangles (a 2D mesh), pyramids, a conductivity in x,
#      a transient run, --precond amg, no --refine, Neumann conditions, --initial.
. "$PMESH_TESTS/common/work.sh"
json() { sed -n "s/.*\"$1\": \([^,]*\),.*/\1/p" "$2"; }
# The largest difference of u between two --dump-solution prefixes (joined by global id).
maxdiff() { cat "$1".* | sort -n > a.txt; cat "$2".* | sort -n > b.txt
  paste a.txt b.txt | awk '{ if ($1 != $6) { print "mismatch"; exit } d = $5 - $10; if (d < 0) d = -d; if (d > m) m = d } END { printf "%.3e\n", m + 0 }'; }
run() { # np partition tag options...
  np=$1 part=$2 tag=$3; shift 3
  rm -f "$tag.u".*
  # shellcheck disable=SC2086
  "$MPIEXEC" -n "$np" "$SOLVE" -p "$part" ${RESULT:---no-output} --summary "$tag.json" --dump-solution "$tag.u" "$@" > "$tag.out" 2>&1 ||
    { cat "$tag.out"; fail "solve $*"; }
}
same() { # tagA tagB what
  ia=$(json iterations "$1.json"); ib=$(json iterations "$2.json"); d=$(maxdiff "$1.u" "$2.u")
  echo "$3: iterations $ia (assembled) $ib (matrix-free), solutions differ by $d"
  [ "$d" != mismatch ] || fail "$3: the two runs have different nodes"
  awk -v a="$ia" -v b="$ib" 'BEGIN { d = a - b; exit !(d <= 1 && d >= -1) }' || fail "$3: iterations $ia and $ib"
  awk -v d="$d" 'BEGIN { exit !(d <= 1e-6) }' || fail "$3: the solutions differ by $d"
}

S='sin(pi*x)*sin(pi*y)*sin(pi*z)'
"$MESHGEN" box 9 9 9 1 1 1 --tet -o box.msh > /dev/null || fail meshgen
for np in 2 3; do "$PARTITION" box.msh $np -o p$np --quiet || fail "partition $np"; done
for np in 2 3; do
  for K in 1 2; do
    for pc in jacobi mg; do
      [ $np = 3 ] && [ $pc = jacobi ] && continue # np 3: mg only (time)
      for fo in assembled matrix-free; do
        # np 3, K 2, mg also writes the result files that (d) compares.
        RESULT=; [ $np = 3 ] && [ $K = 2 ] && [ $pc = mg ] && RESULT="-o $fo.h5"
        RESULT=$RESULT run $np p$np $fo --refine $K --precond $pc --rtol 1e-12 --source "3*pi^2*$S" --exact "$S" \
          --fine-operator $fo
      done
      same assembled matrix-free "(a) np $np K $K $pc"
      ea=$(json error_l2 assembled.json); em=$(json error_l2 matrix-free.json)
      awk -v a="$ea" -v b="$em" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-4 * a) }' ||
        fail "(a) np $np K $K $pc: L2 errors $ea (assembled) and $em (matrix-free)"
      [ $pc = mg ] && eval "e$K=$em"
    done
  done
  rate=$(awk -v a="$e1" -v b="$e2" 'BEGIN { printf "%.3f", log(a / b) / log(2) }')
  echo "(a) np $np: matrix-free L2 errors $e1 (K=1) $e2 (K=2), rate $rate"
  awk -v r="$rate" 'BEGIN { exit !(r >= 1.8 && r <= 2.3) }' || fail "(a) np $np: L2 error rate $rate is not 2"
done

# (d) the result file (of (a)'s last pair of runs, np 3, K 2, mg): the matrix-free run makes its
# fine elements from the level below after the solve; its mesh datasets must be the assembled
# run's byte for byte (check_result.py --same-as), u within 1e-6 (single-precision weights), and
# the mesh fingerprint attribute the same.
PY=python3
$PY -c 'import h5py' 2>/dev/null || PY=/usr/bin/python3
$PY "$PMESH_TESTS/common/check_result.py" matrix-free.h5 matrix-free.u 3 --same-as assembled.h5 --u-tol 1e-6 ||
  fail "(d) the matrix-free result differs from the assembled one"
$PY - << 'PYEOF' || fail "(d) mesh fingerprints or element counts differ"
import h5py
a, b = h5py.File("assembled.h5", "r"), h5py.File("matrix-free.h5", "r")
for k in ("mesh_fingerprint", "global_elems"):
    assert a.attrs[k] == b.attrs[k], (k, a.attrs[k], b.attrs[k])
PYEOF
echo "(d) the matrix-free result file has the assembled one's mesh"

# (e)
for cell in hex prism; do
  opt=; [ $cell = prism ] && opt=--prism
  "$MESHGEN" box 6 6 6 1 1 1 $opt -o $cell.msh > /dev/null || fail "meshgen $cell"
  "$PARTITION" $cell.msh 2 -o pe$cell --quiet || fail "partition $cell"
  for K in 1 2; do
    for fo in assembled matrix-free; do
      run 2 pe$cell $fo --refine $K --precond mg --rtol 1e-12 --source "3*pi^2*$S" --exact "$S" --fine-operator $fo
    done
    same assembled matrix-free "(e) $cell K $K"
    ea=$(json error_l2 assembled.json); em=$(json error_l2 matrix-free.json)
    awk -v a="$ea" -v b="$em" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= 1e-4 * a) }' ||
      fail "(e) $cell K $K: L2 errors $ea (assembled) and $em (matrix-free)"
    eval "e$K=$em"
  done
  rate=$(awk -v a="$e1" -v b="$e2" 'BEGIN { printf "%.3f", log(a / b) / log(2) }')
  echo "(e) $cell: matrix-free L2 errors $e1 (K=1) $e2 (K=2), rate $rate"
  awk -v r="$rate" 'BEGIN { exit !(r >= 1.8 && r <= 2.3) }' || fail "(e) $cell: L2 error rate $rate is not 2"
done

# (b)
"$PARTITION" "$PMESH_TESTS/common/meshes3d/tet_hole_41.msh" 2 -o ph --quiet || fail "partition tet_hole"
for fo in assembled matrix-free; do
  run 2 ph $fo --refine 1 --precond mg --rtol 1e-12 --dirichlet xmin="1+y*z" --dirichlet hole=2 --source "1+x*y" \
    --conductivity 1 --conductivity solid=2.5 --fine-operator $fo
done
same assembled matrix-free "(b) tet_hole"

# (c)
"$MESHGEN" grid 5 5 1 1 -o quad.msh > /dev/null || fail meshgen quad
"$PARTITION" quad.msh 2 -o pquad --quiet || fail "partition quad"
refuse() { # what expected-text np part options...
  what=$1 text=$2 np=$3 part=$4; shift 4
  if "$MPIEXEC" -n "$np" "$SOLVE" -p "$part" --no-output "$@" > r.out 2>&1; then fail "(c) $what: accepted"; fi
  grep -q -- "--fine-operator matrix-free" r.out && grep -q -- "$text" r.out || { cat r.out; fail "(c) $what: message"; }
  grep -q -i "segmentation\|abort" r.out && fail "(c) $what: crashed"
  echo "(c) $what: refused: $(grep -m1 -- "--fine-operator" r.out)"
}
refuse quadrangles "only tetrahedra, hexahedra and prisms" 2 pquad --refine 1 --precond mg --fine-operator matrix-free
"$PARTITION" "$PMESH_TESTS/common/meshes3d/pyramid_41.msh" 2 -o ppyr --quiet || fail "partition pyramid_41"
refuse pyramids "is a pyramid: only tetrahedra" 2 ppyr --refine 1 --precond mg --fine-operator matrix-free
refuse "conductivity in x" "depends on x" 2 p2 --refine 1 --conductivity "1+x" --fine-operator matrix-free
refuse transient "steady" 2 p2 --refine 1 --dt 0.1 --steps 2 --fine-operator matrix-free
refuse amg "precond amg" 2 p2 --refine 1 --precond amg --fine-operator matrix-free
refuse "no refinement" "refine" 2 p2 --fine-operator matrix-free
refuse neumann "neumann" 2 p2 --refine 1 --dirichlet xmin=0 --neumann xmax=1 --fine-operator matrix-free
"$MPIEXEC" -n 2 "$SOLVE" -p p2 --refine 1 -o start.h5 > start.out 2>&1 || fail "(c) solve -o start.h5: $(cat start.out)"
refuse "--initial" "initial" 2 p2 --refine 1 --precond mg --initial start.h5 --fine-operator matrix-free
echo "fine_op: OK"
