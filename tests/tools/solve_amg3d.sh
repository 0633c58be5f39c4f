# AMG's 3D defaults (docs/solve.md, AMG): on a 3D partition the strength threshold defaults to 0.02,
# on a 2D one it stays 0.08, and --amg-threshold overrides both; CG + AMG with the 3D default
# stays flat as the box grows (20^3 to 30^3 nodes: at most 3 more iterations, at most 25) on
# trilinear hexahedra and linear tetrahedra, the limits the issue sets for the box family.
. "$PMESH_TESTS/common/work.sh"
sol='sin(pi*x)*sin(pi*y)*sin(pi*z)'
field() { sed -n "s/.*\"$1\": \([^,]*\),.*/\1/p" s.json; }
for kind in hex tet; do
  prev=""
  for n in 20 30; do
    opt=""
    [ $kind = tet ] && opt=--tet
    "$MESHGEN" box $n $n $n 1 1 1 $opt -o b.msh > /dev/null
    rm -rf p
    "$PARTITION" b.msh 2 -o p --quiet
    "$MPIEXEC" -n 2 "$SOLVE" --no-output -p p --precond amg --rtol 1e-8 --source "3*pi^2*$sol" --summary s.json \
      > out.txt
    it=$(field iterations)
    grep -q '"threshold": 0.02' s.json || fail "$kind n=$n: the 3D default threshold is not 0.02: $(grep threshold s.json)"
    echo "$kind $n^3: $it iterations"
    [ "$it" -le 25 ] || fail "$kind n=$n: $it iterations (at most 25)"
    [ -z "$prev" ] || [ "$it" -le $((prev + 3)) ] || fail "$kind: $prev then $it iterations: not flat"
    prev=$it
  done
done
"$MPIEXEC" -n 2 "$SOLVE" --no-output -p p --precond amg --amg-threshold 0.08 --summary s.json > out.txt
grep -q '"threshold": 0.08' s.json || fail "--amg-threshold 0.08 is not applied in 3D"
"$MESHGEN" grid 40 40 -o g.msh > /dev/null
"$PARTITION" g.msh 2 -o p2 --quiet
"$MPIEXEC" -n 2 "$SOLVE" --no-output -p p2 --precond amg --summary s.json > out.txt
grep -q '"threshold": 0.08' s.json || fail "the 2D default threshold is not 0.08: $(grep threshold s.json)"
echo "defaults: 0.02 in 3D, 0.08 in 2D"
