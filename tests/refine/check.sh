# refine/check.sh MESH METHOD [NPS [KS]]: the mesh partitioned at np = 1, 2, 3, 4, 8, every local mesh
# refined K = 1, 2 times in parallel by `solve --refine K --dump-local DIR` (which then solves on
# it, with the geometric multigrid over the levels): each refined partition passes
# `partition --check` (one owner per node, mutual tables, element owners, mesh fingerprint),
# its global counts are the independent ones (counts.awk: V + E + Q nodes in 2D, V + E + FQ + H
# in 3D, 2^(dim K) times the elements), and its refined nodes (tag, index, coordinates,
# owner-independent) are the same for every np.  MESH box:NX:NY:NZ[:--tet|--prism|--pyramid] is a
# meshgen box; its refined nodes (but a box of pyramids') are also exactly those of the meshgen
# box with 2^K times the cells.
# Optional NPS ("1 2 3 4 8") and KS ("1 2"): the rank counts and levels.  A count above 4 (more
# ranks than the machine's cores: slow) runs the largest K only, whose first level is K = 1's
# refinement at that count.
. "$PMESH_TESTS/common/work.sh"
mesh=$1
method=$2
case $mesh in
  grid:*) spec=${mesh#grid:}; "$MESHGEN" grid ${spec%x*} ${spec#*x} -o grid.msh > /dev/null; mesh=$PWD/grid.msh ;;
  box:*)
    IFS=: read -r _ bx by bz btype << EOF
$mesh
EOF
    "$MESHGEN" box $bx $by $bz $btype -o box.msh > /dev/null
    mesh=$PWD/box.msh ;;
esac
nps=${3:-1 2 3 4 8}
ks=${4:-1 2}
# The coordinates of an MSH 4.1 ASCII file's nodes, one "x y z" line each, rounded, sorted.
msh_xyz() {
  awk '$1 == "$Nodes" { getline; nb = $1; for (b = 0; b < nb; b++) { getline; n = $4
         for (i = 0; i < n; i++) getline; for (i = 0; i < n; i++) { getline; printf "%.9f %.9f %.9f\n", $1, $2, $3 } } }' "$1" |
    sort
}
# Independent counts from the MSH file itself (awk): nodes V, unique edges E, lines L, triangles
# T, quadrangles Q of the top dimension.  Refining: V' = V + E + Q (2D) or V + L (1D);
# E' = 2E + 3T + 4Q; T' = 4T; Q' = 4Q; L' = 2L.
counts=$(awk -f "$PMESH_TESTS/refine/counts.awk" "$mesh") || fail "counts.awk $mesh"
for np in $nps; do
  "$PARTITION" "$mesh" $np --method "$method" -o p.$np --quiet
  for K in $ks; do
    [ $np -le 4 ] || [ $K = "${ks##* }" ] || continue
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
    first=${nps%% *}
    cmp -s nodes.$first.$K nodes.$np.$K || fail "$mesh K $K: the refined nodes at np $np differ from np $first"
    if [ -n "${bx:-}" ] && [ "${btype:-}" != --pyramid ] && [ $np = $first ]; then
      f=$((1 << K))
      "$MESHGEN" box $(((bx - 1) * f + 1)) $(((by - 1) * f + 1)) $(((bz - 1) * f + 1)) $((bx - 1)) $((by - 1)) \
        $((bz - 1)) -o fine.msh > /dev/null
      msh_xyz fine.msh > fine.xyz
      awk '{ printf "%.9f %.9f %.9f\n", $3, $4, $5 }' nodes.$np.$K | sort > got.xyz
      cmp -s fine.xyz got.xyz || fail "box $bx $by $bz $btype K $K: the refined nodes are not the fine box's"
    fi
  done
done
echo "$mesh: refined partitions checked at np $nps, K $ks ($counts)"
