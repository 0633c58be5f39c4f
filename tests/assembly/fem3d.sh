# The FEM on tetrahedra, hexahedra, prisms and pyramids (meshgen boxes on the unit cube), through
# solve:
#  (a) Patch test: u = 1 + 2x - 3y + 0.5z (f = 0) with u given on xmin, Neumann fluxes (the
#      normal derivatives 2, 0.5, -0.5, 3) on xmax, zmax, zmin and ymin, and Robin h = 1,
#      u_inf = u - 3 on ymax: the linear u is in every cell's space and the face integrals are
#      exact for linear data, so it is reproduced to 1e-10 (the solver's tolerance) on hexahedra,
#      tetrahedra, prisms, pyramids (a rational basis that still holds the linear functions), and
#      hexahedra and pyramids with their interior nodes moved by up to h/10 per coordinate (not
#      affine: the pyramids' bases no longer planar; every corner Jacobian stays positive), and with u
#      given on the whole boundary.  Fluxes or face areas off by any factor would show at O(1).
#  (b) Manufactured u = sin(pi x) sin(pi y) sin(pi z), f = 3 pi^2 u, u = 0 on the boundary, at
#      n = 5, 9, 17 nodes per side: the discrete L2 error falls as h^2, observed rates
#      log2(e(h) / e(h/2)) printed and within [1.8, 2.3] for each cell type (pyramids too); the nodal max error
#      too, its last rate (n = 9 to 17) within 2.0 +- 0.15; at n = 9 CG + AMG gives the solution
#      CG + Jacobi gives (the same error_max to 1e-8 relative: both are solved to 1e-12).
#  (c) A solution in x only, u = x^2 (f = -2): u = 0 on xmin, on xmax the flux du/dn = 2 (Neumann)
#      or Robin h = 2, u_inf = 2 (2 (2 - 1) = 2).  On hexahedra (quadrangle faces) the trilinear
#      system of a function of x alone is the 1D linear system times the y and z mass sums, and 1D
#      linear elements are exact at the nodes: the nodal error is at the solver's tolerance.  The
#      same for u = z^2 on prisms (zmin/zmax are triangles; a prism's basis is the triangle's
#      times the line's in z).
#  (d) Rank invariance: --reproducible --precond jacobi on a prism box (source, Dirichlet, Neumann
#      and Robin data; only the digits are compared, the data need not fit the exact solution)
#      gives the same iteration count, error_max, error_l2 and nodal values (--dump-solution),
#      digit for digit, for np = 1, 2, 3, 4 and 8.
#  (e) The mixed fixture (hexahedra, prisms and tetrahedra in one conforming mesh,
#      tests/common/meshes3d/mixed_41.msh) and Gmsh's pyramid fixture (hexahedra joined to
#      tetrahedra by pyramids, pyramid_41.msh): u = x + 2y + 3z (f = 0, u given on the boundary)
#      to 1e-10 with Jacobi and with AMG, at np 1 and 3.
. "$PMESH_TESTS/common/work.sh"
json() { sed -n "s/.*\"$1\": \([^,]*\),.*/\1/p" "$2"; }
# in_range X LO HI
in_range() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
below() { awk -v x="$1" -v b="$2" 'BEGIN { exit !(x < b) }'; }
box() { # n flag [perturbation]
  "$MESHGEN" box "$1" "$1" "$1" 1 1 1 $2 -o m.msh > /dev/null || fail "meshgen box $*"
  if [ -n "${3:-}" ]; then
    awk -v a="$3" -v h="$(awk -v n="$1" 'BEGIN { print 1 / (n - 1) }')" -f "$PMESH_TESTS/assembly/perturb.awk" m.msh > d.msh
    mv d.msh m.msh
  fi
  "$PARTITION" m.msh "${NP:-2}" -o p --quiet || fail "partition $*"
}
run() { "$MPIEXEC" -n "${NP:-2}" "$SOLVE" -p p --no-output --summary s.json "$@" > out.txt 2>&1 || { cat out.txt; fail "solve $*"; }; }

# (a)
U='1+2*x-3*y+0.5*z'
for c in hex: tet:--tet prism:--prism pyramid:--pyramid distorted:"" distorted_pyramid:--pyramid; do
  name=${c%%:*}; flag=${c#*:}; pert=""
  case $name in distorted*) pert=0.1 ;; esac
  box 6 "$flag" $pert
  run --rtol 1e-13 --source 0 --dirichlet xmin="$U" --neumann xmax=2 --neumann zmax=0.5 --neumann zmin=-0.5 \
    --neumann ymin=3 --robin ymax="1,$U-3" --exact "$U"
  e=$(json error_max s.json); echo "(a) $name, fluxes and Robin: max error $e"
  below "$e" 1e-10 || fail "(a) $name: the linear solution with fluxes is off by $e"
  run --rtol 1e-13 --source 0 --dirichlet boundary="$U" --exact "$U"
  e=$(json error_max s.json); echo "(a) $name, Dirichlet: max error $e"
  below "$e" 1e-10 || fail "(a) $name: the linear solution is off by $e"
done

# (b)
S='sin(pi*x)*sin(pi*y)*sin(pi*z)'
for c in hex: tet:--tet prism:--prism pyramid:--pyramid; do
  name=${c%%:*}; flag=${c#*:}; prev=""
  for n in 5 9 17; do
    box $n "$flag"
    run --rtol 1e-12 --source "3*pi^2*$S" --exact "$S"
    e=$(json error_l2 s.json); m=$(json error_max s.json)
    if [ -n "$prev" ]; then
      rate=$(awk -v a="$prev" -v b="$e" 'BEGIN { printf "%.3f", log(a / b) / log(2) }')
      mrate=$(awk -v a="$prevm" -v b="$m" 'BEGIN { printf "%.3f", log(a / b) / log(2) }')
      echo "(b) $name n=$n: L2 error $e, rate $rate; max error $m, rate $mrate"
      in_range "$rate" 1.8 2.3 || fail "(b) $name: L2 error rate $rate at n = $n is not 2"
      if [ $n = 17 ]; then lo=1.85 hi=2.15; else lo=1.6 hi=2.4; fi
      in_range "$mrate" $lo $hi || fail "(b) $name: max error rate $mrate at n = $n is not 2"
    else
      echo "(b) $name n=$n: L2 error $e, max error $m"
    fi
    if [ $n = 9 ]; then
      run --rtol 1e-12 --precond amg --source "3*pi^2*$S" --exact "$S"
      a=$(json error_max s.json)
      awk -v a="$a" -v j="$m" 'BEGIN { d = a - j; if (d < 0) d = -d; exit !(d <= 1e-8 * j) }' ||
        fail "(b) $name n=9: AMG's max error $a, Jacobi's $m"
    fi
    prev=$e; prevm=$m
  done
done

# (c)
box 9 ""
for bc in "--neumann xmax=2" "--robin xmax=2,2"; do
  run --rtol 1e-13 --source -2 --dirichlet xmin=0 $bc --exact 'x^2'
  e=$(json error_max s.json); echo "(c) hexahedra, u = x^2, $bc: max nodal error $e"
  below "$e" 1e-9 || fail "(c) hexahedra $bc: nodal error $e"
done
box 9 --prism
for bc in "--neumann zmax=2" "--robin zmax=2,2"; do
  run --rtol 1e-13 --source -2 --dirichlet zmin=0 $bc --exact 'z^2'
  e=$(json error_max s.json); echo "(c) prisms, u = z^2, $bc: max nodal error $e"
  below "$e" 1e-9 || fail "(c) prisms $bc: nodal error $e"
done

# (d)
"$MESHGEN" box 7 6 5 1 1 1 --prism -o r.msh > /dev/null
ref=""
for np in 1 2 3 4 8; do
  "$PARTITION" r.msh $np -o p --quiet || fail "partition np $np"
  NP=$np run --reproducible --precond jacobi --source "3*pi^2*$S" --neumann xmax=1 --robin zmax="2,x" \
    --dirichlet xmin=0 --exact "$S" --dump-solution u
  cat u.* | sort -n > u_np$np.txt
  rm -f u.*
  cmp -s u_np$np.txt u_np1.txt || fail "(d) np $np: the nodal values differ from np 1's"
  got="$(json iterations s.json) $(json error_max s.json) $(json error_l2 s.json)"
  echo "(d) np $np: iterations, error_max, error_l2 = $got"
  [ -n "$ref" ] || ref=$got
  [ "$got" = "$ref" ] || fail "(d) np $np gives '$got', np 1 gave '$ref'"
done
echo "fem3d: all checks passed"

# (e)
for fixture in mixed pyramid; do
  for np in 1 3; do
    "$PARTITION" "$PMESH_TESTS/common/meshes3d/${fixture}_41.msh" $np -o p --quiet || fail "partition $fixture np $np"
    for pc in jacobi amg; do
      NP=$np run --rtol 1e-13 --precond $pc --source 0 --dirichlet boundary='x+2*y+3*z' --exact 'x+2*y+3*z'
      e=$(json error_max s.json); echo "(e) $fixture np $np $pc: max error $e"
      below "$e" 1e-10 || fail "(e) $fixture mesh, np $np, $pc: the linear solution is off by $e"
    done
  done
done
