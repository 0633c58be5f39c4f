# partition's shape report (pmesh/pm_quality.h) on meshgen's boxes against values worked out
# here, not by pmesh: a box of 1 x 1 x 2 cells cut into the six Kuhn tetrahedra (the paths along
# the axes from one corner to the opposite one, one per order of the three edge lengths), its
# hexahedra (boxes: 1) and its prisms (right prisms on a right isosceles triangle: sin 60 deg /
# sin 45 deg), and 2D grids of squares and right triangles.  The report, --summary and partition --check of the result at np 1 and 3 give the
# same worst and mean.
. "$PMESH_TESTS/common/work.sh"
# Kuhn tetrahedron with edges a, b, c along the path: R = |(a,b,c)| / 2; faces ab/2,
# a sqrt(b^2+c^2)/2, c sqrt(a^2+b^2)/2, bc/2; V = abc/6; ratio R S / (3 V).
expect_tet=$(awk 'function r(a, b, c) {
    return sqrt(a*a + b*b + c*c) / 2 * (a*b + a*sqrt(b*b + c*c) + c*sqrt(a*a + b*b) + b*c) / 2 / (a*b*c / 2) }
  BEGIN { x = 1; y = 1; z = 2
    v[1] = r(x, y, z); v[2] = r(x, z, y); v[3] = r(y, x, z); v[4] = r(y, z, x); v[5] = r(z, x, y); v[6] = r(z, y, x)
    for (i = 1; i <= 6; i++) { s += v[i]; if (v[i] > w) w = v[i] }
    printf "%.6f:%.6f\n", w, s / 6 }')
expect_prism=$(awk 'BEGIN { v = sqrt(3) / 2 / sqrt(0.5); printf "%.6f:%.6f\n", v, v }')
# "worst mean" of a cell type from partition's JSON summary, and from a report's shape line.
from_json() { tr -d '\n ' < "$1" | sed -n "s/.*{\"cell\":\"$2\",[^}]*\"worst\":\([0-9.e+-]*\),\"mean\":\([0-9.e+-]*\)}.*/\1 \2/p" |
  awk '{ printf "%.6f %.6f\n", $1, $2 }'; }
from_report() { sed -n "s/^shape $2 .* worst \([0-9.e+-]*\) mean \([0-9.e+-]*\).*/\1 \2/p" "$1" |
  awk '{ printf "%.4g %.4g\n", $1, $2 }'; }
short() { echo "$1" | awk '{ printf "%.4g %.4g\n", $1, $2 }'; }
for kind in tet:tetrahedron:$expect_tet hex:hexahedron:1:1 prism:prism:$expect_prism; do
  opt=${kind%%:*}; rest=${kind#*:}; cell=${rest%%:*}; want=$(echo "${rest#*:}" | tr : ' ')
  case $opt in hex) o= ;; *) o=--$opt ;; esac
  "$MESHGEN" box 5 4 4 4 3 6 $o -o b.msh > /dev/null
  for np in 1 3; do
    "$PARTITION" b.msh $np -o p.$np --summary s.json > report || fail "$opt: partition $np failed"
    got=$(from_json s.json "$cell")
    [ "$got" = "$(echo $want | awk '{ printf "%.6f %.6f\n", $1, $2 }')" ] ||
      fail "box of $opt np $np: --summary gives worst and mean '$got', expected '$want'"
    got=$(from_report report "$cell")
    [ "$got" = "$(short "$want")" ] || fail "box of $opt np $np: report gives '$got', expected '$(short "$want")'"
    "$PARTITION" --check p.$np > check || fail "$opt: --check p.$np: $(cat check)"
    got=$(from_report check "$cell")
    [ "$got" = "$(short "$want")" ] || fail "box of $opt np $np: --check gives '$got', expected '$(short "$want")'"
    [ "$(grep -c '^shape' check)" = 1 ] || fail "box of $opt: --check reports other cell types: $(cat check)"
  done
done
# 2D: meshgen's grid of unit squares, and cut into right isosceles triangles (1 + sqrt 2).
tri=$(awk 'BEGIN { printf "%.4g %.4g\n", 1 + sqrt(2), 1 + sqrt(2) }')
"$MESHGEN" grid 4 5 --tri -o g.msh > /dev/null
"$PARTITION" g.msh 2 -o pg > report || fail "grid --tri: partition failed"
[ "$(from_report report triangle)" = "$tri" ] || fail "grid --tri: $(grep shape report), expected $tri"
"$MESHGEN" grid 4 5 -o q.msh > /dev/null
"$PARTITION" q.msh 2 -o pq > report || fail "grid: partition failed"
[ "$(from_report report quadrangle)" = "1 1" ] || fail "grid: $(grep shape report), expected 1 1"
echo "shape measures of the tet, hex and prism boxes: tet $expect_tet, hex 1 1, prism $expect_prism, right triangles $tri, squares 1 1"
