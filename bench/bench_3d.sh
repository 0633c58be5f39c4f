#!/bin/sh
# 3D benchmarks (run by hand, not in CI), each with its comparison from the same run:
#  1. AMG iterations to 1e-8 (np 2) on the box family (hexahedra, tetrahedra, prisms; 11^3 to
#     NMAX^3 nodes, h halving), on Gmsh's cube with a spherical hole at three sizes, and on
#     families of real parts meshed by Gmsh at h, h/2, h/4 (each mesh made anew, not refined):
#     the test fixtures' L-plate of hexahedra, box with a hole (tetrahedra), disk of prism layers
#     and hex+prism+tet block (tests/common/meshes3d/*.geo with their sizes substituted), and the
#     bracket (meshes/bracket.geo, h 2.3, 1.15, 0.575) with its own boundary conditions;
#     REFINED=1 adds the bracket refined by `gmsh -refine` (1 and 2 times, the serial route's
#     meshes), whose shapes degrade with each level;
#  2. seconds per million nodes of each solve stage (load, assembly, solve set-up, output) on the
#     ~1M-node 3D mesh beside the ~1M-node 2D mesh, at np 2.
#   sh bench/bench_3d.sh BUILD [MESH3D] [MESH2D]
# MESH3D: gmsh -3 meshes/big_cube.geo -setnumber h 0.0092 -format msh41 -bin -o /tmp/big_cube.msh
# MESH2D: gmsh -2 meshes/big_square.geo -format msh41 -bin -o /tmp/big.msh
# The partition comparison against gmsh -part is bench_partition.sh BUILD MESH3D 8.
# ITERS_ONLY=1: the iteration counts only (they do not depend on the machine's load).
set -eu
B=$(cd "$1" && pwd); M3=${2:-/tmp/big_cube.msh}; M2=${3:-/tmp/big.msh}
HERE=$(cd "$(dirname "$0")" && pwd); NMAX=${NMAX:-81}; NP=${NP:-2}
W=$(mktemp -d /tmp/bench_3d.XXXXXX)
MPI="mpiexec.mpich -n $NP"
json() { sed -n "s/.*\"$2\": \([0-9.e+-]*\).*/\1/p" "$1" | head -n 1; }
iters() { # MESH [solve options]: unknowns and iterations of CG + AMG
  m=$1; shift
  "$B/partition" "$m" "$NP" -o "$W/p" --quiet >/dev/null 2>&1
  $MPI "$B/solve" -p "$W/p" --precond amg --no-output --summary "$W/s.json" "$@" >/dev/null
  printf '%10s %6s' "$(json "$W/s.json" unknowns)" "$(json "$W/s.json" iterations)"
}
echo "# $(date -u +%F) $(uname -n), np $NP, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "## AMG iterations to 1e-8"
printf '%-28s %10s %6s\n' mesh unknowns iters
n=11
while [ "$n" -le "$NMAX" ]; do
  for t in hex tet prism; do
    o=; [ $t = hex ] || o=--$t
    "$B/meshgen" box $n $n $n $o -o "$W/b.msh" >/dev/null
    printf '%-28s %s\n' "box $t $n^3" "$(iters "$W/b.msh")"
  done
  n=$((2 * n - 1))
done
for h in 0.1 0.05 0.025; do
  gmsh -3 "$HERE/../meshes/big_cube.geo" -setnumber h $h -format msh41 -bin -o "$W/c.msh" >/dev/null
  printf '%-28s %s\n' "cube with hole, h $h" "$(iters "$W/c.msh")"
done
T3=$HERE/../tests/common/meshes3d
family() { # NAME GEO SED-SCRIPT [solve options]: a Gmsh mesh of GEO edited by SED-SCRIPT, its iterations
  name=$1 geo=$2 ed=$3; shift 3
  sed "$ed" "$geo" > "$W/f.geo"
  gmsh -3 "$W/f.geo" -format msh41 -bin -o "$W/f.msh" >/dev/null 2>&1 || { echo "$name: gmsh failed"; return; }
  printf '%-28s %s\n' "$name" "$(iters "$W/f.msh" --source 1 "$@")"
}
for n in 21 41 81; do
  family "L-plate hexahedra n $n" "$T3/hex_l.geo" "s/= 6;/= $n;/; s/Layers{4}/Layers{$(((n - 1) / 2))}/" \
    --dirichlet bottom=0 --dirichlet top=1
done
for h in 0.08 0.04 0.02; do
  family "box with hole, tets h $h" "$T3/tet_hole.geo" "s/Max = 0.16/Max = $h/" --dirichlet hole=1 --dirichlet xmin=0
done
for h in 0.1 0.05 0.025; do
  family "disk, prism layers h $h" "$T3/prism_disk.geo" "s/Max = 0.2/Max = $h/; s/Layers{5}/Layers{$(echo "0.6 / $h" | bc)}/" \
    --dirichlet bottom=0 --dirichlet top=1
done
for n in 11 21 41; do
  family "hex+prism+tet block n $n" "$T3/mixed.geo" \
    "s/^h = 0.2;/h = $(echo "1 / ($n - 1)" | bc -l);/; s/= 6;/= $n;/; s/Layers{3}/Layers{$(((n - 1) / 2))}/" \
    --dirichlet bottom=0 --dirichlet top=1
done
for h in 2.3 1.15 0.575; do
  family "bracket h $h" "$HERE/../meshes/bracket.geo" "1i h = $h;" --dirichlet bolts=0 --dirichlet load=1
done
if [ "${REFINED:-0}" = 1 ]; then
  gmsh -3 "$HERE/../meshes/bracket.geo" -setnumber h 2.3 -format msh41 -bin -o "$W/g0.msh" >/dev/null 2>&1
  for k in 1 2; do
    gmsh "$W/g$((k - 1)).msh" -refine -format msh41 -bin -o "$W/g$k.msh" >/dev/null 2>&1
    printf '%-28s %s\n' "bracket, gmsh -refine x$k" \
      "$(iters "$W/g$k.msh" --source 1 --dirichlet bolts=0 --dirichlet load=1)"
  done
fi
[ "${ITERS_ONLY:-0}" = 1 ] && { rm -rf "$W"; exit 0; } # iteration counts need no quiet machine
echo "## seconds per million nodes, np $NP (median of 3)"
stage() { # MESH: load assembly setup output s/Mnode
  "$B/partition" "$1" "$NP" -o "$W/q" --quiet >/dev/null
  for r in 1 2 3; do
    $MPI "$B/solve" -p "$W/q" --precond amg -o "$W/r.h5" --summary "$W/t$r.json" >/dev/null
  done
  nodes=$(json "$W/t1.json" unknowns)
  for k in load assembly solver_setup solve output; do
    v=$(for r in 1 2 3; do json "$W/t$r.json" $k; done | sort -g | sed -n 2p)
    printf ' %s %.3f' $k "$(echo "$v * 1000000 / $nodes" | bc -l)"
  done
  echo "  ($nodes unknowns)"
}
printf '3D %s:' "$M3"; stage "$M3"
printf '2D %s:' "$M2"; stage "$M2"
echo "# load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
rm -rf "$W"
