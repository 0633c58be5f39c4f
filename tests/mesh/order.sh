# partition --order hilbert: the partitions pass --check, and solve gives the same solution at the
# same points as with the file's numbering (1e-10), at np = 1 and 3, on 1D, triangle, mixed and
# L-shaped meshes; np = 1 and 3 of the reordered mesh agree node for node (same ids).
. "$PMESH_TESTS/common/work.sh"
# mesh tag np [partition options]: the solution by coordinates in xyz.tag, by node id in id.tag
solve() {
  mesh=$1; tag=$2; np=$3; shift 3
  "$PARTITION" "$PMESH_MESHES/$mesh.msh" $np -o p.$tag --quiet "$@"
  "$PARTITION" --check p.$tag > /dev/null || fail "$mesh $*: partition --check failed"
  "$MPIEXEC" -n $np "$SOLVE" --no-output -p p.$tag --rtol 1e-12 --source '1+x*y' --dump-solution u.$tag > out.$tag
  cat u.$tag.* | sort -n > id.$tag
  awk '{ print $2, $3, $4 }' id.$tag | sort -g -k1,1 -k2,2 > xyz.$tag
  [ -s xyz.$tag ] || fail "$mesh $*: no solution dumped"
}
for mesh in bar disk_hole mixed lshape; do
  solve $mesh $mesh.file 3
  for np in 1 3; do
    solve $mesh $mesh.h$np $np --order hilbert
    "$NUMDIFF" 1e-10 1e-14 xyz.$mesh.file xyz.$mesh.h$np || fail "$mesh: --order hilbert at np=$np changes the solution"
  done
  "$NUMDIFF" 1e-10 1e-14 id.$mesh.h1 id.$mesh.h3 || fail "$mesh: reordered np=1 and np=3 differ by node id"
  cmp -s id.$mesh.file id.$mesh.h1 && [ $mesh != bar ] && fail "$mesh: --order hilbert left the numbering as it was"
  echo "$mesh: the same solution with --order hilbert at np 1 and 3"
done
