# heat_explicit.sh EXE: explicit heat steps to the steady state on disk_hole.msh (triangles,
# a hole) at 1 and 3 ranks: max |u - (x + y)| <= 1e-9 (FEM reproduces linear fields exactly),
# the same number of steps, and the written fields u agree between the two runs to 1e-12.
. "$PMESH_TESTS/common/work.sh"
exe=$1
for np in 1 3; do
  "$PARTITION" "$PMESH_MESHES/disk_hole.msh" $np -o p$np --quiet
  "$MPIEXEC" -n $np "$exe" p$np r$np.h5 > out.$np || fail "np=$np: exit status $?"
  cat out.$np
  awk '/max \|u - \(x \+ y\)\|/ { ok = $NF + 0 <= 1e-9 } END { exit !ok }' out.$np || fail "np=$np: error too large"
  [ -s r$np.h5 ] && [ -s r$np.xmf ] || fail "np=$np: no result files"
done
[ "$(sed 's/ of dt.*//' out.1)" = "$(sed 's/ of dt.*//' out.3)" ] || fail "np 1 and 3 took different step counts"
if command -v h5diff > /dev/null; then
  h5diff -d 1e-12 r1.h5 r3.h5 /fields/u /fields/u || fail "u differs between np 1 and 3"
  h5diff -d 1e-12 r1.h5 r3.h5 /fields/err /fields/err || fail "err differs between np 1 and 3"
fi
