# refine/ties.sh: a tetrahedron's inner diagonal must not depend on the last bits of its
# coordinates.  Gmsh writes ASCII coordinates with 16 digits, so the ASCII and binary files of one
# mesh can differ by an ulp; on a structured mesh the three diagonals tie, and an ulp then decided
# which one the refinement took (issue 31's encodings: results 1e-5 apart).  Two regular
# tetrahedra (every diagonal a tie, to rounding) and two copies with nonzero coordinates moved one
# ulp (one in three up and one in three down, in two patterns): refined once and twice at np 2
# (--dump-local), the three fine meshes have the same elements, node for node, and the same
# solution to the printed digits.
. "$PMESH_TESTS/common/work.sh"
PY=python3
# Two regular tetrahedra on a shared face (a triangular bipyramid): all three diagonals tie.
$PY - <<'PYEOF' || fail "writing the bipyramid"
import math
s3 = math.sqrt(3.0)
x = [(1, 0, 0), (-0.5, s3 / 2, 0), (-0.5, -s3 / 2, 0), (0, 0, math.sqrt(8.0 / 3.0)), (0, 0, -math.sqrt(8.0 / 3.0))]
nodes = '\n'.join('%d' % (k + 1) for k in range(5)) + '\n' + '\n'.join('%r %r %r' % p for p in x)
open('a.msh', 'w').write('$MeshFormat\n4.1 0 8\n$EndMeshFormat\n$Entities\n0 0 0 1\n1 -2 -2 -2 2 2 2 0 0\n'
                         '$EndEntities\n$Nodes\n1 5 1 5\n3 1 0 5\n' + nodes + '\n$EndNodes\n'
                         '$Elements\n1 2 1 2\n3 1 4 2\n1 1 2 3 4\n2 1 3 2 5\n$EndElements\n')
PYEOF
$PY - a.msh <<'PYEOF' || fail "writing the perturbed copies"
import math, sys
lines = open(sys.argv[1]).read().split('\n')
i = lines.index('$Nodes')
h = lines[i + 1].split()
def moved(c, k, shift):  # coordinate number k: one ulp up, down or kept, by (k + shift) mod 3
    to = (math.inf, -math.inf, None)[(k + shift) % 3]
    return repr(math.nextafter(float(c), to)) if to is not None and float(c) != 0 else c
for name, shift in (('up.msh', 0), ('down.msh', 1)):
    out, j, k = lines[:i + 2], i + 2, 0
    for b in range(int(h[0])):
        n = int(lines[j].split()[3])
        out += lines[j:j + 1 + n]
        for l in lines[j + 1 + n:j + 1 + 2 * n]:
            out.append(' '.join(moved(c, k + d, shift) for d, c in enumerate(l.split())))
            k += 3
        j += 1 + 2 * n
    open(name, 'w').write('\n'.join(out + lines[j:]))
PYEOF
elements() { for r in 0 1; do sed -n '/^#ELEMENT/,/^#GROUP/p' "$1/local.$r"; done; }
for m in a up down; do
  "$PARTITION" $m.msh 2 -o p_$m --quiet || fail "partition $m"
  for K in 1 2; do
    "$MPIEXEC" -n 2 "$SOLVE" -p p_$m --refine $K --precond mg --dirichlet boundary=0 --source 1 \
      --no-output --dump-local d_${m}_$K > s_${m}_$K.out 2>&1 || { cat s_${m}_$K.out; fail "solve $m K $K"; }
    elements d_${m}_$K > e_${m}_$K.txt
    grep '^u:' s_${m}_$K.out > u_${m}_$K.txt
  done
done
for m in up down; do
  for K in 1 2; do
    cmp -s e_a_$K.txt e_${m}_$K.txt || fail "K $K: the coordinates moved an ulp ($m) refine into other elements"
    cmp -s u_a_$K.txt u_${m}_$K.txt || fail "K $K: $(cat u_a_$K.txt) against $(cat u_${m}_$K.txt) ($m)"
  done
done
echo "ties: the same fine elements and $(cat u_a_2.txt) at K 2, coordinates as written or an ulp up or down"
