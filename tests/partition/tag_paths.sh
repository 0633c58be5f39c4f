# The node-tag fast path (tags 1..n in file order) and the general ones give the same partition:
# square.msh and lshape.msh with every node tag t rewritten as 2t (dense: tag table) and 1000t
# (sparse: binary search) must give the same local files, apart from the tags in #GLOBALID and
# the fingerprint in #PARTITION.  The local files of big meshes use the fast path; this keeps the
# other paths checked against it.
. "$PMESH_TESTS/common/work.sh"
scale_msh() { # scale_msh M IN OUT: MSH 4.1 ASCII with node tags multiplied by M
  awk -v M="$1" '
    function f(t) { return M * t }
    /^\$Nodes/ { sec = "N"; st = 0; print; next }
    /^\$Elements/ { sec = "E"; st = 0; print; next }
    /^\$End/ { sec = ""; print; next }
    sec == "N" && st == 0 { $3 = f($3); $4 = f($4); st = 1; print; next }
    sec == "N" && st == 1 { cnt = $4; k = 0; st = cnt > 0 ? 2 : 1; print; next }
    sec == "N" && st == 2 { print f($1); if (++k == cnt) { st = 3; k = 0 }; next }
    sec == "N" && st == 3 { print; if (++k == cnt) st = 1; next }
    sec == "E" && st == 0 { st = 1; print; next }
    sec == "E" && st == 1 { cnt = $4; st = cnt > 0 ? 2 : 1; k = 0; print; next }
    sec == "E" && st == 2 { s = $1; for (i = 2; i <= NF; i++) s = s " " f($i); print s; if (++k == cnt) st = 1; next }
    { print }' "$2" > "$3"
}
unscale_local() { # unscale_local M IN: a local file with #GLOBALID tags multiplied by M, no fingerprint
  awk -v M="$1" '
    /^#/ { sec = $0; n = 0; print; next }
    sec == "#GLOBALID" && n++ > 0 { print M * $1, $2; next }
    sec == "#PARTITION" { next }
    { print }' "$2"
}
n=0
for mesh in square lshape; do
  "$PARTITION" "$PMESH_MESHES/$mesh.msh" 3 -o "p.$mesh.1" --quiet
  for m in 2 1000; do
    scale_msh $m "$PMESH_MESHES/$mesh.msh" "$mesh.$m.msh"
    "$PARTITION" "$mesh.$m.msh" 3 -o "p.$mesh.$m" --quiet
    for r in 0 1 2; do
      unscale_local $m "p.$mesh.1/local.$r" > want
      unscale_local 1 "p.$mesh.$m/local.$r" > got
      cmp -s want got || fail "$mesh, tags x$m, local.$r differs: $(diff want got | head -n 5)"
      n=$((n + 1))
    done
    "$PARTITION" --check "p.$mesh.$m" > /dev/null || fail "$mesh, tags x$m: --check"
  done
done
[ "$(grep -c . "p.square.1/local.0")" -gt 100 ] || fail "square.msh: local.0 is unexpectedly small"
echo "$n local files compared"
