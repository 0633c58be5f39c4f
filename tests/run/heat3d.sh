# The transient heat equation in 3D (solve --dt --steps, backward Euler) against the decaying mode
# u = exp(-3 pi^2 t) sin(pi x) sin(pi y) sin(pi z) on the unit box, u = 0 on its boundary, f = 0:
#  (a) on hexahedra, tetrahedra and prisms, consistent and lumped mass: the max error at t = 0.02
#      is below 0.04 (the mode is 0.55 there; a mass or stiffness off by a factor would be off by
#      far more) at n = 9 nodes per side and dt = 0.002, and falls 4x (ratio in [3.2, 4.8]) at
#      n = 17, dt = 0.0005 (h^2 and dt halve and quarter: second order in h, first in dt);
#  (b) on a uniform hexahedral box the nodal sin sin sin is an eigenvector of both K and M:
#      K = Kx My Mz + Mx Ky Mz + Mx My Kz and M = Mx My Mz (consistent) or h^3 I (lumped), with the
#      1D eigenvalues k = (2 - 2 cos(pi h)) / h and m = h (4 + 2 cos(pi h)) / 6, so lambda_h =
#      3 k m^2 / m^3 or 3 k m^2 / h^3, computed here: after N steps u_max = (1 + dt lambda_h)^-N
#      exactly (the centre node, where u^0 = 1), to 1e-9.
. "$PMESH_TESTS/common/work.sh"
json() { sed -n "s/.*\"$1\": \([^,}]*\).*/\1/p" "$2" | head -1; }
S='sin(pi*x)*sin(pi*y)*sin(pi*z)'
run() { # np dt steps mass
  "$MPIEXEC" -n 2 "$SOLVE" -p p --no-output --rtol 1e-12 --source 0 --initial-value "$S" --dt "$1" --steps "$2" \
    --mass "$3" --exact "exp(-3*pi^2*t)*$S" --summary s.json > out.txt 2>&1 || { cat out.txt; fail "solve $*"; }
}
box() { "$MESHGEN" box "$1" "$1" "$1" 1 1 1 $2 -o m.msh > /dev/null && "$PARTITION" m.msh 2 -o p --quiet || fail "box $*"; }

for c in hex: tet:--tet prism:--prism; do
  name=${c%%:*}; flag=${c#*:}
  box 9 "$flag"
  run 0.002 10 consistent; ec9=$(json error_max s.json)
  run 0.002 10 lumped; el9=$(json error_max s.json)
  box 17 "$flag"
  run 0.0005 40 consistent; ec17=$(json error_max s.json)
  run 0.0005 40 lumped; el17=$(json error_max s.json)
  echo "(a) $name: consistent $ec9 -> $ec17, lumped $el9 -> $el17"
  awk -v a="$ec9" -v b="$ec17" -v c="$el9" -v d="$el17" 'BEGIN {
    exit !(a < 0.04 && c < 0.04 && a / b >= 3.2 && a / b <= 4.8 && c / d >= 3.2 && c / d <= 4.8) }' ||
    fail "(a) $name: errors $ec9 -> $ec17 (consistent), $el9 -> $el17 (lumped) are not small and falling 4x"
done

box 9 ""
for mass in consistent lumped; do
  run 0.01 5 $mass
  got=$(json u_max s.json)
  want=$(awk -v m=$mass 'BEGIN { pi = atan2(0, -1); h = 1 / 8; c = cos(pi * h);
    k = (2 - 2 * c) / h; mc = h * (4 + 2 * c) / 6; mm = (m == "lumped") ? h : mc;
    printf "%.17g", (1 + 0.01 * 3 * k * mc * mc / (mm * mm * mm)) ^ -5 }')
  echo "(b) $mass: u_max $got, expected $want"
  awk -v a="$got" -v b="$want" 'BEGIN { d = a - b; exit !(d * d < 1e-18 * b * b) }' ||
    fail "(b) $mass: u_max $got after 5 steps, expected (1 + dt lambda_h)^-5 = $want"
done
echo "heat3d: all checks passed"
