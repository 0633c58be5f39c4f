# MSH 2.2 writes an element that is in two physical groups twice, with the same tag: pmesh keeps
# one element with both memberships (a doubled element would double its stiffness).
. "$PMESH_TESTS/common/work.sh"
"$PARTITION" "$PMESH_TESTS/mesh/copies22.msh" 1 -o p --summary s.json --quiet
grep -q '"elements": 2,' s.json || fail "copies were not merged: $(grep '"elements"' s.json | head -n 1)"
# groups a and b: 4 nodes, 0 faces, 2 elements each
grep -qx 'a 2 4 0 2' p/local.0 || fail "group a"
grep -qx 'b 2 4 0 2' p/local.0 || fail "group b"
grep -qx 'edge 1 2 1 0' p/local.0 || fail "group edge"
