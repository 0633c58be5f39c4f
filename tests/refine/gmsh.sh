# refine/gmsh.sh: `--refine 1` against gmsh -refine, for every bundled mesh type (only when gmsh
# is installed; otherwise the test reports it is skipped).  Partitioned at np 3, refined once in
# parallel, the refined nodes are gmsh's nodes after mapping by coordinates (gmsh renumbers),
# with the same element count and the same node count in every group.  Refined twice against
# gmsh -refine applied twice, on triangles.
. "$PMESH_TESTS/common/work.sh"
command -v gmsh > /dev/null 2>&1 || { echo "gmsh not installed: skipped"; exit 0; }
"$MESHGEN" grid 13 9 -o grid.msh > /dev/null
for mesh in "$PMESH_MESHES/bar.msh" "$PMESH_MESHES/square.msh" "$PMESH_MESHES/mixed.msh" "$PMESH_MESHES/disk_hole.msh" grid.msh; do
  b=$(basename "$mesh" .msh)
  gmsh "$mesh" -refine -format msh41 -o g.$b.msh > gmsh.log 2>&1 || fail "gmsh -refine $mesh: $(cat gmsh.log)"
  "$PARTITION" "$mesh" 3 --method rcb -o p.$b --quiet
  "$MPIEXEC" -n 3 "$PMESH_TESTBIN/refine_dump" p.$b 1 r.$b || fail "refine_dump $b"
  "$PMESH_TESTBIN/refine_compare" r.$b g.$b.msh || fail "$b: refined nodes differ from gmsh -refine"
done
gmsh g.square.msh -refine -format msh41 -o g2.square.msh > gmsh.log 2>&1 || fail "gmsh -refine twice"
"$MPIEXEC" -n 3 "$PMESH_TESTBIN/refine_dump" p.square 2 r2.square || fail "refine_dump square K 2"
"$PMESH_TESTBIN/refine_compare" r2.square g2.square.msh || fail "square K 2: refined nodes differ from gmsh"
