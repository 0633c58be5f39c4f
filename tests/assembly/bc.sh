# Boundary conditions and data checked numerically (solve): manufactured solutions, hand-computed
# matrix rows and exact 1D solutions.
#  (a) Non-zero Neumann fluxes on `right` and `bottom` (Dirichlet on `left`, `top`), u = e^(x+y/2):
#      the discrete L2 error falls about 4x per halving of h for Q1 and P1 (order 2), and so does
#      Q1's max error.  (P1's max error sits at the corner where the two flux edges meet, in a
#      single triangle, and falls as h^2 log(1/h): ratios near 3.0 and 3.2; an independent P1
#      code gave the same corner error, so it is not checked for order here.)
#  (b) Robin k du/dn = h (u_inf - u) on `top` (h = 2 + x) and `right` (h = 3) with
#      u_inf = u + (du/dn)/h, Neumann on `bottom`, Dirichlet on `left`: order 2 as in (a); and
#      Robin on all four sides with no Dirichlet value (a steady problem that is not singular):
#      accepted, order 2 (Q1).
#  (c) Hand-computed rows: a bar of two elements of length 0.5, area 0.5, Robin h = 2,
#      u_inf = 1 at xmax: diagonal k A / L + h A = 2, right-hand side h u_inf A = 1; one Q1 cell
#      with Robin h = 3, u_inf = 2 on `top` and u = 0 on `bottom`: top rows have diagonal
#      2/3 + h/3 = 5/3, coupling -1/6 + h/6 = 1/3, right-hand side h u_inf / 2 = 3, and
#      u = 1.5 there (the linear u = c y with c = 3 (2 - c)).
#  (d) Two materials in series in 1D (k = 1 on [0, 0.5], k = 4 on [0.5, 1], the interface a node):
#      u(0) = 0, u(1) = 1, no source: u piecewise linear with the series flux
#      q = 1 / (0.5/1 + 0.5/4) = 1.6; then a source 2 on the first material only, Robin h = 2,
#      u_inf = 1 at x = 1, area 0.5: u = 5x/3 - x^2 on [0, 0.5], 7/12 + (x - 0.5)/6 after it
#      (worked out by hand from continuity of u and of the flux).  Linear elements are exact at
#      the nodes for piecewise-constant k and f in 1D, so both agree to the solver's tolerance.
#  (e) Data in t: u = sin(2t)(1 + x + 2y) + xy (Q1, fdm5) or + x - y (P1) or (1 + x) sin(2t) + x
#      (1D), in the discrete space at every t, so space adds no error and backward Euler's is all
#      there is: the max error at t = 1 halves with dt (ratios in [2^0.9, 2^1.1]: order 1.0 +- 0.1)
#      with source, Dirichlet values, Neumann flux and Robin u_inf in t.  And data written in t
#      that do not change (x*y + t - t) give the constant-data run's answer.
#  (f) Refusals: Robin and Neumann with fdm5, h < 0, h in t, a conductivity in t, malformed
#      --robin.
. "$PMESH_TESTS/common/work.sh"
json() { sed -n "s/.*\"$1\": \([^,]*\),.*/\1/p" "$2"; }
# ratio_in A B LO HI: A / B within [LO, HI]
ratio_in() { awk -v a="$1" -v b="$2" -v lo="$3" -v hi="$4" 'BEGIN { r = a / b; exit !(r >= lo && r <= hi) }'; }
run() { "$MPIEXEC" -n 2 "$SOLVE" --no-output --rtol 1e-12 --summary s.json "$@" > out.txt || { cat out.txt; fail "solve $*"; }; }

# Second order under refinement: errors at n = 9, 17, 33 nodes per side; CASE names the check.
order2() { # case mesh-flag check-max solve-args...
  name=$1; tri=$2; checkmax=$3; shift 3
  pmax=""; pl2=""
  for n in 9 17 33; do
    # One partition per grid, kept for the next case on it.
    part=p$n${tri#--}
    if [ ! -d $part ]; then
      "$MESHGEN" grid $n $n 1 1 $tri -o g.msh > /dev/null
      "$PARTITION" g.msh 2 -o $part --quiet
    fi
    run -p $part "$@"
    emax=$(json error_max s.json); el2=$(json error_l2 s.json)
    [ -n "$el2" ] || fail "$name: no error in the summary"
    echo "$name n=$n: max $emax L2 $el2"
    if [ -n "$pl2" ]; then
      ratio_in "$pl2" "$el2" 3.4 4.6 || fail "$name: L2 error ratio $pl2 / $el2 is not about 4"
      [ "$checkmax" = 0 ] || ratio_in "$pmax" "$emax" 3.4 4.6 || fail "$name: max error ratio $pmax / $emax is not about 4"
    fi
    pmax=$emax; pl2=$el2
  done
}
U='exp(x+0.5*y)'
for el in q1 p1; do
  tri=""; m=1
  [ $el = p1 ] && tri=--tri && m=0
  order2 "(a) Neumann $el" "$tri" $m --source "-1.25*$U" --dirichlet left="$U" --dirichlet top="$U" \
    --neumann right='exp(1+0.5*y)' --neumann bottom='-0.5*exp(x)' --exact "$U"
  order2 "(b) Robin $el" "$tri" $m --source "-1.25*$U" --dirichlet left="$U" --neumann bottom='-0.5*exp(x)' \
    --robin top="2+x,$U*(1+0.5/(2+x))" --robin right="3,$U*(1+1/3)" --exact "$U"
done
order2 "(b) pure Robin q1" "" 1 --source "-1.25*$U" --robin left="1+y,$U*(1-1/(1+y))" \
  --robin bottom="2,$U*(1-0.5/2)" --robin top="2+x,$U*(1+0.5/(2+x))" --robin right="3,$U*(1+1/3)" --exact "$U"
grep -q '(0 fixed)' out.txt || fail "(b) pure Robin: some node is fixed"

# (c) rows by hand.
"$MESHGEN" line 2 0.5 -o bar2.msh > /dev/null
"$PARTITION" bar2.msh 1 -o b1 --quiet
"$MPIEXEC" -n 1 "$SOLVE" -p b1 --no-output --area 0.5 --source 0 --dirichlet xmin=0 --robin xmax=2,1 \
  --dump-matrix m > /dev/null || fail "(c) bar"
awk '$1 == 3 { ok = ($2 == 2 && $3 == 1 && $4 == "2:-1") } END { exit !ok }' m.0 ||
  { cat m.0; fail "(c) bar: row 3 is not '3 2 1 2:-1'"; }
"$MESHGEN" grid 2 2 1 1 -o cell.msh > /dev/null
"$PARTITION" cell.msh 1 -o c1 --quiet
"$MPIEXEC" -n 1 "$SOLVE" -p c1 --no-output --source 0 --dirichlet bottom=0 --robin top=3,2 --rtol 1e-14 \
  --dump-matrix m --dump-solution u > /dev/null || fail "(c) cell"
awk '$1 == 3 || $1 == 4 { o = ($1 == 3) ? "4" : "3"; split($6, c, ":");
       if (c[1] != o || (c[2] - 1/3)^2 > 1e-28 || ($2 - 5/3)^2 > 1e-28 || ($3 - 3)^2 > 1e-28) bad = 1; n++ }
     END { exit !(n == 2 && !bad) }' m.0 || { cat m.0; fail "(c) cell: top rows"; }
awk '{ want = ($3 == 1) ? 1.5 : 0; if (($4 - want)^2 > 1e-20) bad = 1 } END { exit bad }' u.0 ||
  { cat u.0; fail "(c) cell: u is not 1.5 on top"; }

# (d) two materials: an MSH 2.2 bar of 10 elements, groups a = [0, 0.5], b = [0.5, 1].
awk 'BEGIN { print "$MeshFormat\n2.2 0 8\n$EndMeshFormat\n$PhysicalNames\n4\n0 1 \"xmin\"\n0 2 \"xmax\"";
             print "1 3 \"a\"\n1 4 \"b\"\n$EndPhysicalNames\n$Nodes\n11";
             for (i = 1; i <= 11; i++) print i, (i - 1) / 10, 0, 0;
             print "$EndNodes\n$Elements\n12\n1 15 2 1 1 1\n2 15 2 2 2 11";
             for (e = 1; e <= 10; e++) print e + 2, 1, 2, (e <= 5 ? 3 : 4), (e <= 5 ? 3 : 4), e, e + 1;
             print "$EndElements" }' > two.msh
"$PARTITION" two.msh 2 --method rcb -o t2 --quiet
"$MPIEXEC" -n 2 "$SOLVE" -p t2 --no-output --rtol 1e-13 --source 0 --conductivity a=1 --conductivity b=4 \
  --dirichlet xmin=0 --dirichlet xmax=1 --dump-solution u > /dev/null || fail "(d) series"
cat u.0 u.1 | awk '{ x = $2; want = x <= 0.5 ? 1.6 * x : 0.8 + 0.4 * (x - 0.5); d = $4 - want; if (d * d > 1e-20) bad = 1; n++ }
                   END { exit !(n == 11 && !bad) }' || { cat u.0 u.1; fail "(d) series: not the piecewise linear u"; }
"$MPIEXEC" -n 2 "$SOLVE" -p t2 --no-output --rtol 1e-13 --area 0.5 --source a=2 --source b=0 \
  --conductivity a=1 --conductivity b=4 --dirichlet xmin=0 --robin xmax=2,1 --dump-solution u > /dev/null ||
  fail "(d) source and Robin"
cat u.0 u.1 | awk '{ x = $2; want = x <= 0.5 ? 5 * x / 3 - x * x : 7 / 12 + (x - 0.5) / 6; d = $4 - want; if (d * d > 1e-20) bad = 1; n++ }
                   END { exit !(n == 11 && !bad) }' || { cat u.0 u.1; fail "(d) per-group source + Robin: wrong u"; }
echo "(c), (d): exact"

# (e) first order in dt: 10, 20, 40 steps to t = 1.
order1() { # name solve-args...
  name=$1; shift
  prev=""
  for steps in 10 20 40; do
    run --dt "$(awk -v s=$steps 'BEGIN { print 1 / s }')" --steps $steps "$@"
    e=$(json error_max s.json)
    echo "$name: $steps steps, max error $e"
    [ -z "$prev" ] || ratio_in "$prev" "$e" 1.866 2.144 || fail "$name: error ratio $prev / $e is not 2 (order 1)"
    prev=$e
  done
}
"$MESHGEN" grid 5 5 1 1 -o q.msh > /dev/null
"$PARTITION" q.msh 2 -o q --quiet
U='sin(2*t)*(1+x+2*y)+x*y'
order1 "(e) q1" -p q --source '2*cos(2*t)*(1+x+2*y)' --dirichlet left="$U" --dirichlet bottom="$U" \
  --neumann right='sin(2*t)+y' --robin top="2,$U+(2*sin(2*t)+x)/2" --initial-value "$U" --exact "$U"
"$PARTITION" q.msh 2 --halo edge -o qe --quiet
order1 "(e) fdm5" -p qe --scheme fdm5 --source '2*cos(2*t)*(1+x+2*y)' --dirichlet boundary="$U" \
  --initial-value "$U" --exact "$U"
"$MESHGEN" grid 5 5 1 1 --tri -o tr.msh > /dev/null
"$PARTITION" tr.msh 2 -o tr --quiet
U='sin(2*t)*(1+x+2*y)+x-y'
order1 "(e) p1" -p tr --source '2*cos(2*t)*(1+x+2*y)' --dirichlet left="$U" --neumann right='sin(2*t)+1' \
  --robin top="2,$U+(2*sin(2*t)-1)/2" --robin bottom="1,$U+(1-2*sin(2*t))" --initial-value "$U" --exact "$U"
"$MESHGEN" line 4 0.25 -o l.msh > /dev/null
"$PARTITION" l.msh 2 --method rcb -o l --quiet
U='sin(2*t)*(1+x)+x'
order1 "(e) 1D" -p l --area 0.5 --source '2*cos(2*t)*(1+x)' --dirichlet xmin="$U" --robin xmax="3,$U+(sin(2*t)+1)/3" \
  --initial-value "$U" --exact "$U"
# Data in t that do not change take the time-dependent path and give the same answer.
run -p q --dt 0.1 --steps 5 --source 1 --dirichlet left='x*y' --robin top='2,1' --dump-solution c
run -p q --dt 0.1 --steps 5 --source '1+t-t' --dirichlet left='x*y+t-t' --robin top='2,1+t-t' --dump-solution d
paste c.0 d.0 | awk '{ d = $4 - $8; if (d * d > 1e-20 || $1 != $5) bad = 1 } END { exit bad }' ||
  fail "(e) constant data written in t differ from constant data"

# (f) refusals.
"$PARTITION" q.msh 1 --halo edge -o qe1 --quiet
for c in "--scheme fdm5 --robin top=1,0|no Robin condition" "--scheme fdm5 --neumann top=1|no Neumann flux" \
  "--robin top=-1,0|h must be >= 0" "--robin top=x-0.5,0|h must be >= 0" \
  "--robin top=1+t,0 --dt 0.1 --steps 1|the coefficient h '1+t' depends on the time t" \
  "--conductivity 1+t --dt 0.1 --steps 1|the conductivity '1+t' depends on the time t" \
  "--robin top=1|expected GROUP=H,U_INF" "--robin top=1,2,3|expected GROUP=H,U_INF" \
  "--dirichlet left=t|--dirichlet: uses the time t, which only a transient run"; do
  args=${c%|*}; frag=${c#*|}
  # shellcheck disable=SC2086
  sh "$EXPECT_FAIL" "$frag" 30 "$MPIEXEC" -n 1 "$SOLVE" -p qe1 --no-output --dirichlet bottom=0 $args ||
    fail "(f) $args"
done
echo "bc: Neumann, Robin, two materials, data in t and refusals ok"
