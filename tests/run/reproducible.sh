# solve --reproducible: the result file (solution and attributes), the residual history and so
# the iteration count are bitwise the same for any rank count and partition method: FEM on
# triangles, quadrangles, the mixed mesh, a 1D bar (Neumann flux included) and a tiny box of
# hexahedra (where HDF5's freed metadata space once depended on np), the 5-point
# scheme on a grid, Jacobi and no preconditioning, and one transient run; every mesh type with
# METIS and RCB, np = 1..8 over all of them (few per mesh, and one count above 4 per case: those
# are slow on a 2-core machine).  Every run
# is compared with cmp against the np = 1 run; the np = 1 run is checked against a default
# (non-reproducible) run to 1e-10, so the mode solves the same problem.
. "$PMESH_TESTS/common/work.sh"
"$MESHGEN" grid 13 11 1.2 1 -o quad.msh > /dev/null
"$MESHGEN" grid 15 12 1.4 1.1 -o fd.msh > /dev/null
"$MESHGEN" line 41 0.25 -o line.msh > /dev/null
"$MESHGEN" box 3 3 3 -o box.msh > /dev/null
runs=0
# case NAME MESH HALO "SOLVE OPTIONS" METHOD:NP ...
case_() {
  name=$1 mesh=$2 halo=$3 opts=$4
  shift 4
  "$PARTITION" "$mesh" 1 --halo $halo -o $name.p1 --quiet
  # shellcheck disable=SC2086
  "$MPIEXEC" -n 1 "$SOLVE" -p $name.p1 $opts --rtol 1e-11 --no-output --dump-solution $name.def > /dev/null ||
    fail "$name: the default run failed"
  # shellcheck disable=SC2086
  "$MPIEXEC" -n 1 "$SOLVE" -p $name.p1 $opts --rtol 1e-11 --reproducible -o $name.ref.h5 --history $name.ref.hist \
    --dump-solution $name.rep > /dev/null || fail "$name: the reproducible run at np=1 failed"
  "$NUMDIFF" 1e-10 1e-13 $name.def.0 $name.rep.0 || fail "$name: reproducible and default solutions differ at np=1"
  [ "$(wc -l < $name.ref.hist)" -ge 3 ] || fail "$name: no residual history"
  for mnp in "$@"; do
    method=${mnp%:*} np=${mnp#*:}
    "$PARTITION" "$mesh" $np --method $method --halo $halo -o $name.p --quiet
    # shellcheck disable=SC2086
    "$MPIEXEC" -n $np "$SOLVE" -p $name.p $opts --rtol 1e-11 --reproducible -o $name.$np.h5 --history $name.$np.hist \
      > /dev/null || fail "$name: the reproducible run at np=$np ($method) failed"
    cmp $name.ref.hist $name.$np.hist || fail "$name: residual history at np=$np ($method) differs from np=1"
    cmp $name.ref.h5 $name.$np.h5 || fail "$name: result file at np=$np ($method) differs from np=1"
    runs=$((runs + 1))
  done
  echo "$name: $(($(wc -l < $name.ref.hist) - 1)) iterations, bitwise identical at $*"
}
case_ tri "$PMESH_MESHES/square.msh" element "--source 1+x*y" metis:2 rcb:3 metis:8
case_ tri_none "$PMESH_MESHES/square.msh" element "--precond none --source 1+x*y" metis:5 rcb:4
case_ quad quad.msh element "--source x-y --dirichlet left=1 --dirichlet bottom=0 --neumann right=0.5" \
  metis:3 rcb:8
case_ mixed "$PMESH_MESHES/mixed.msh" element "--source 2 --conductivity 1+x --dirichlet left=0 --neumann top=1" \
  metis:4 rcb:5
case_ bar line.msh element "--precond none --dirichlet xmin=0 --neumann xmax=2 --source 1+x" rcb:2 metis:7
case_ fdm fd.msh edge "--scheme fdm5 --source 1+x*x" metis:4 rcb:8
case_ fdm_none fd.msh edge "--scheme fdm5 --precond none --source 1" rcb:3 metis:6
case_ hex box.msh element "--source 1 --dirichlet xmin=0" rcb:3 metis:7
case_ transient quad.msh element "--dt 0.01 --steps 3 --initial-value x*y --source 1" rcb:3
echo "$runs reproducible runs compared"
# A history file that cannot be written: a clear message and a failed run, every rank ending.
"$PARTITION" fd.msh 3 --halo edge -o fdm.p3 --quiet
sh "$EXPECT_FAIL" "cannot create" 60 "$MPIEXEC" -n 3 "$SOLVE" -p fdm.p3 --scheme fdm5 --no-output \
  --history no-such-dir/hist || fail "--history into a missing directory"
