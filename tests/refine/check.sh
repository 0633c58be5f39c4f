# refine/check.sh MESH METHOD: the mesh partitioned at np = 1, 2, 3, 4, 8, every local mesh
# refined K = 1, 2 times in parallel by `solve --refine K --dump-local DIR` (which then solves on
# it, with the geometric multigrid over the levels): each refined partition passes
# `partition --check` (one owner per node, mutual tables, element owners, mesh fingerprint),
# its global counts are the independent ones (V + E + Q nodes, 4^K or 2^K times the elements),
# and its refined nodes (tag, index, coordinates, owner-independent) are the same for every np.
. "$PMESH_TESTS/common/work.sh"
mesh=$1
method=$2
case $mesh in
  grid:*) spec=${mesh#grid:}; "$MESHGEN" grid ${spec%x*} ${spec#*x} -o grid.msh > /dev/null; mesh=$PWD/grid.msh ;;
esac
# Independent counts from the MSH file itself (awk): nodes V, unique edges E, lines L, triangles
# T, quadrangles Q of the top dimension.  Refining: V' = V + E + Q (2D) or V + L (1D);
# E' = 2E + 3T + 4Q; T' = 4T; Q' = 4Q; L' = 2L.
counts=$(awk -f "$PMESH_TESTS/refine/counts.awk" "$mesh") || fail "counts.awk $mesh"
for np in 1 2 3 4 8; do
  "$PARTITION" "$mesh" $np --method "$method" -o p.$np --quiet
  for K in 1 2; do
    "$MPIEXEC" -n $np "$SOLVE" -p p.$np --refine $K --dump-local r.$np.$K --precond mg --no-output > s.out ||
      fail "solve --refine $K --dump-local at np $np: $(cat s.out)"
    out=$("$PARTITION" --check r.$np.$K) || fail "partition --check of $mesh np $np K $K: $out"
    want=$(echo "$counts" | sed -n "$((K + 1))p")
    got=$(echo "$out" | sed -n 's/.*: ok: [0-9]* parts, \([0-9]*\) nodes, \([0-9]*\) elements.*/\1 \2/p')
    [ "$got" = "$want" ] || fail "$mesh np $np K $K: nodes and elements '$got', independently '$want'"
    # The refined nodes, all ranks together in global order: the same bytes for every np.
    for f in r.$np.$K/local.*; do
      awk '/^#GLOBALID/ { g = 1; getline; next } /^#COORD/ { g = 0; c = 1; getline; i = 0; next }
           /^#/ { g = 0; c = 0 } g { tag[++n] = $0 } c && i < nint { print tag[++i], $0 }
           /^#NODE/ { getline; nint = $2 }' "$f"
    done | sort -n -k2 > nodes.$np.$K
    cmp -s nodes.1.$K nodes.$np.$K || fail "$mesh K $K: the refined nodes at np $np differ from np 1"
  done
done
echo "$mesh: refined partitions checked at np 1 2 3 4 8, K 1 2 ($counts)"
