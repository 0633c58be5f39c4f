# Every refusal of solve and partition at np = $1: exactly one error line (not one per rank),
# naming the option, exit status 1, and nothing written (no result file, no temporaries).
. "$PMESH_TESTS/common/work.sh"
np=$1
"$PARTITION" "$PMESH_MESHES/lshape.msh" $np -o p --quiet
"$MESHGEN" grid 8 8 -o g8.msh > /dev/null
"$PARTITION" g8.msh $np --halo edge -o pe --quiet
"$PARTITION" "$PMESH_TESTS/tools/newcomer/two.msh" $np -o two --quiet
"$MPIEXEC" -n $np "$SOLVE" -p p -o other.h5 > /dev/null || fail "the reference run failed"
"$PARTITION" g8.msh $np -o g --quiet
n=0
# refuse FRAGMENT COMMAND...: one "error:" line containing FRAGMENT, exit 1, no new file.
refuse() {
  frag=$1
  shift
  mkdir -p run && cd run
  ls -A > ../before.txt
  set +e
  "$@" > ../out.txt 2> ../err.txt
  rc=$?
  set -e
  ls -A > ../after.txt
  cd ..
  [ $rc -eq 1 ] || fail "exit $rc, not 1: $*: $(cat err.txt)"
  [ "$(grep -c 'error:' err.txt)" -eq 1 ] || fail "not one error line: $*: $(cat err.txt)"
  grep -q -- "$frag" err.txt || fail "no '$frag' in the message of $*: $(cat err.txt)"
  cmp -s before.txt after.txt || fail "$* left files behind: $(cat after.txt)"
  ! grep -q "error stack" err.txt || fail "MPI-IO's error stack shown: $*"
  ! grep -q "rank [0-9]*\] rank" err.txt || fail "a doubled rank prefix: $*"
  n=$((n + 1))
}
S="$MPIEXEC -n $np $SOLVE"
w=$PWD
refuse "another mesh" $S -p "$w/two" --initial "$w/other.h5"
refuse "no step 3" $S -p "$w/p" --initial "$w/other.h5" --initial-step 3
refuse "-o /nonexist/r.h5: cannot create it" $S -p "$w/p" -o /nonexist/r.h5
if [ $np -gt 1 ]; then # one part has no halo: FEM runs on it
  refuse "--halo edge" $S -p "$w/pe"
fi
refuse "--conductivity -1: the conductivity must be positive" $S -p "$w/p" --conductivity -1
refuse "--conductivity 0: the conductivity must be positive" $S -p "$w/p" --conductivity 0
refuse "--conductivity x-1: the conductivity is -0.5 at the centre" $S -p "$w/g" --conductivity x-1
refuse "--conductivity copper=x-1: the conductivity is" $S -p "$w/two" --conductivity copper=x-1
refuse "--dirichlet boundary=: the value is empty" $S -p "$w/p" --dirichlet boundary=
refuse "--exact: cannot parse" $S -p "$w/p" --exact 'x+'
refuse "--amg-sweeps applies to --precond amg or mg" $S -p "$w/p" --amg-sweeps 3 --precond jacobi
refuse "--mg-coarse applies to --precond mg" $S -p "$w/p" --mg-coarse galerkin --precond amg
refuse "--mass applies to transient runs" $S -p "$w/p" --mass lumped
refuse "--area applies to 1D meshes" $S -p "$w/p" --area 2
refuse "partition $PMESH_MESHES/square.msh $np" $S -p "$PMESH_MESHES/square.msh"
grep -q "then solve -p pmesh.part" err.txt || fail "the hint for -p MESH.msh: $(cat err.txt)"
refuse "gmsh -2" "$PARTITION" "$PMESH_MESHES/square.geo" 2 -o "$w/x"
[ ! -e x ] || fail "partition of a .geo wrote x"
echo "$n refusals at np $np: one error line each, nothing written"
