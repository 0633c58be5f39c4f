# The 7-point finite differences (--scheme fdm7) on meshgen boxes of hexahedra, each check against
# something outside the code:
#  1. the matrix: every row of a node with six grid neighbours has -k/h^2 towards each, h the
#     spacing L/(N-1) of the axis the neighbour lies along (coordinates from --dump-solution; 0
#     towards a boundary node, whose Dirichlet value moved to the right-hand side), and the
#     diagonal 2k(1/hx^2 + 1/hy^2 + 1/hz^2); the number of such rows is (NX-2)(NY-2)(NZ-2);
#  2. u = x + 2y + 3z (unequal spacings, k = 2.5, 3 ranks) is reproduced to 1e-10;
#  3. an independent 7-point solve (numpy, dense, when /usr/bin/python3 or python3 has numpy)
#     gives the same nodal values to 1e-9;
#  4. u = sin(pi x) sin(pi y) sin(pi z): the max error falls at order 2 (log2 of each ratio in
#     [1.8, 2.2]) on 7^3, 13^3 and 25^3 nodes;
#  5. fdm7 and the trilinear FEM on the same box agree to discretisation order (their nodal
#     difference falls by about 4x per halving of h);
#  6. np 1, 2, 4, 8 with --reproducible --precond jacobi: the same iteration count and bitwise the
#     same --exact errors;
#  7. CG + AMG (its 3D defaults) on a 30^3 box: at most 25 iterations to 1e-8.
. "$PMESH_TESTS/common/work.sh"
box() { # NX NY NZ LX LY LZ NP [--tet|fem]: mesh and partition p (halo edge, or element for fem)
  halo=edge
  [ "${8:-}" = fem ] && halo=element
  "$MESHGEN" box $1 $2 $3 $4 $5 $6 -o b.msh > /dev/null
  rm -rf p
  "$PARTITION" b.msh $7 --halo $halo -o p --quiet
}
field() { sed -n "s/.*\"$1\": \([^,]*\),.*/\1/p" s.json; }

# 1. and 2.: the matrix and the exact linear solution on a box of unequal spacings.
box 6 8 10 1 2 3.5 3
"$MPIEXEC" -n 3 "$SOLVE" --no-output -p p --scheme fdm7 --precond jacobi --rtol 1e-13 --source 0 \
  --conductivity 2.5 --dirichlet 'boundary=x+2*y+3*z' --exact 'x+2*y+3*z' --summary s.json \
  --dump-matrix m --dump-solution u > out.txt
grep -q "^mesh: 3D, cells: hexahedron 315$" out.txt || fail "the report does not say 'mesh: 3D, cells: hexahedron 315'"
grep -q '"dim": 3,' s.json && grep -q '"cells": {"hexahedron": 315},' s.json || fail "the summary lacks dim and cells"
err=$(field error_max)
awk -v e="$err" 'BEGIN { exit !(e < 1e-10) }' || fail "u = x+2y+3z: max error $err"
echo "linear solution: max error $err"
cat u.* > xyz.txt
cat m.* | grep -v '^#' > rows.txt
full=$(awk -v k=2.5 '
  BEGIN { hx = 1 / 5; hy = 2 / 7; hz = 3.5 / 9 }
  NR == FNR { x[$1] = $2; y[$1] = $3; z[$1] = $4; next }
  NF == 9 {
    n++; g = $1; want = 2 * k * (1 / hx^2 + 1 / hy^2 + 1 / hz^2)
    if ((($2 - want) / want)^2 > 1e-24) { print "row " g ": diagonal " $2 ", expected " want > "/dev/stderr"; bad = 1 }
    for (i = 4; i <= 9; i++) {
      split($i, c, ":"); dx = x[c[1]] - x[g]; dy = y[c[1]] - y[g]; dz = z[c[1]] - z[g]
      h = dx^2 > 1e-20 ? hx : dy^2 > 1e-20 ? hy : hz
      if ((dx^2 > 1e-20) + (dy^2 > 1e-20) + (dz^2 > 1e-20) != 1 || ((dx^2 + dy^2 + dz^2) - h^2)^2 > 1e-20 * h^4) {
        print "row " g ": column " c[1] " is no grid neighbour" > "/dev/stderr"; bad = 1 }
      want = -k / h^2
      c1 = c[1]; onb = x[c1]^2 < 1e-20 || y[c1]^2 < 1e-20 || z[c1]^2 < 1e-20 || (x[c1] - 1)^2 < 1e-20 ||
                       (y[c1] - 2)^2 < 1e-20 || (z[c1] - 3.5)^2 < 1e-20
      if (c[2] == 0 && onb) continue # a Dirichlet column, moved to the right-hand side
      if (((c[2] - want) / want)^2 > 1e-24) { print "row " g ": entry " c[2] ", expected " want > "/dev/stderr"; bad = 1 }
    }
  }
  END { if (bad) exit 1; print n + 0 }' xyz.txt rows.txt) || fail "the fdm7 matrix differs from the 7-point stencil"
[ "$full" -eq $((4 * 6 * 8)) ] || fail "$full rows with six neighbours, expected $((4 * 6 * 8))"
echo "matrix: $full rows are the 7-point stencil with spacings 0.2, 2/7, 3.5/9"

# 3. An independent dense 7-point solve of -2.5 lap u = f, u = g on the boundary.
py=""
for c in /usr/bin/python3 python3; do
  if command -v "$c" > /dev/null 2>&1 && "$c" -c "import numpy" 2> /dev/null; then py=$c; break; fi
done
"$MPIEXEC" -n 3 "$SOLVE" --no-output -p p --scheme fdm7 --precond amg --rtol 1e-13 --source 'exp(x)*(1+y*z)' \
  --conductivity 2.5 --dirichlet 'boundary=x*y-z^2' --dump-solution v > out.txt
if [ -n "$py" ]; then
  cat v.* > v.txt
  "$py" - v.txt << 'EOF' || fail "fdm7 differs from an independent 7-point solve"
import sys
import numpy as np
d = np.loadtxt(sys.argv[1])
n = (6, 8, 10); L = (1.0, 2.0, 3.5); h = [L[a] / (n[a] - 1) for a in range(3)]
idx = lambda i, j, k: i + n[0] * (j + n[1] * k)
N = n[0] * n[1] * n[2]
A = np.zeros((N, N)); b = np.zeros(N); X = np.zeros((N, 3))
for k in range(n[2]):
    for j in range(n[1]):
        for i in range(n[0]):
            r = idx(i, j, k); x, y, z = i * h[0], j * h[1], k * h[2]; X[r] = (x, y, z)
            if i in (0, n[0] - 1) or j in (0, n[1] - 1) or k in (0, n[2] - 1):
                A[r, r] = 1; b[r] = x * y - z * z; continue
            b[r] = np.exp(x) * (1 + y * z)
            for a, (di, dj, dk) in enumerate(((1, 0, 0), (0, 1, 0), (0, 0, 1))):
                for s in (1, -1):
                    A[r, idx(i + s * di, j + s * dj, k + s * dk)] -= 2.5 / h[a] ** 2
                    A[r, r] += 2.5 / h[a] ** 2
u = np.linalg.solve(A, b)
worst = 0.0
for gid, x, y, z, v in d:  # match nodes by coordinates, not by the mesh's numbering
    i, j, k = (int(round(c / h[a])) for a, c in enumerate((x, y, z)))
    worst = max(worst, abs(u[idx(i, j, k)] - v))
print("independent 7-point solve: %d nodes, max difference %.3e" % (len(d), worst))
sys.exit(0 if len(d) == N and worst < 1e-9 else 1)
EOF
else
  echo "no numpy: the independent 7-point solve is skipped"
fi

# 4. and 5.: second order on the sin solution; fdm7 against the trilinear FEM.
sol='sin(pi*x)*sin(pi*y)*sin(pi*z)'
prev=""
prevd=""
for n in 7 13 25; do
  box $n $n $n 1 1 1 2
  "$MPIEXEC" -n 2 "$SOLVE" --no-output -p p --scheme fdm7 --precond jacobi --rtol 1e-12 \
    --source "3*pi^2*$sol" --exact "$sol" --summary s.json --dump-solution f > out.txt
  err=$(field error_max)
  [ -n "$err" ] || fail "n=$n: no error_max in the summary"
  if [ -n "$prev" ]; then
    rate=$(awk -v a="$prev" -v b="$err" 'BEGIN { print log(a / b) / log(2) }')
    echo "fdm7 n=$n: max error $err, order $rate"
    awk -v r="$rate" 'BEGIN { exit !(r >= 1.8 && r <= 2.2) }' || fail "fdm7: order $rate is not 2"
  else
    echo "fdm7 n=$n: max error $err"
  fi
  prev=$err
  [ $n -eq 25 ] && break
  box $n $n $n 1 1 1 2 fem
  "$MPIEXEC" -n 2 "$SOLVE" --no-output -p p --precond jacobi --rtol 1e-12 --source "3*pi^2*$sol" --dump-solution e \
    > out.txt
  cat f.* | sort -n > f.txt
  cat e.* | sort -n > e.txt
  diff=$(paste f.txt e.txt | awk '$1 != $6 { print "node mismatch"; exit } { d = $5 - $10; d = d < 0 ? -d : d; if (d > m) m = d }
                                  END { print m + 0 }')
  echo "n=$n: max |fdm7 - fem(hex)| = $diff"
  if [ -n "$prevd" ]; then
    awk -v a="$prevd" -v b="$diff" 'BEGIN { exit !(a / b > 3.2 && a / b < 4.8) }' \
      || fail "fdm7 and the FEM differ by $prevd then $diff: not a second-order difference"
  fi
  prevd=$diff
done

# 6. Rank-count invariance, bitwise.
box 12 11 10 1 1 1 1
mv p p1
for np in 1 2 4 8; do
  [ $np -gt 1 ] && "$PARTITION" b.msh $np --halo edge -o p$np --quiet
  "$MPIEXEC" -n $np "$SOLVE" --no-output -p p$np --scheme fdm7 --precond jacobi --reproducible --rtol 1e-10 \
    --source '1+x*y*z' --dirichlet 'boundary=x-y' --exact 'x-y' --summary s.json > out.txt
  echo "$(field iterations) $(field error_max) $(field error_l2)" > r.$np
  cmp -s r.1 r.$np || fail "np=$np: $(cat r.$np), np=1: $(cat r.1)"
done
echo "np 1, 2, 4, 8: iterations, max and L2 errors bitwise equal: $(cat r.1)"

# 7. AMG with its defaults on a 30^3 box.
box 30 30 30 1 1 1 2
"$MPIEXEC" -n 2 "$SOLVE" --no-output -p p --scheme fdm7 --precond amg --rtol 1e-8 --source "3*pi^2*$sol" \
  --summary s.json > out.txt
it=$(field iterations)
echo "amg on 30^3: $it iterations"
[ "$it" -le 25 ] || fail "amg needs $it iterations on a 30^3 box (at most 25)"
