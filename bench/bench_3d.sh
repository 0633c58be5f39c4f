#!/bin/sh
# 3D benchmarks (run by hand, not in CI), each with its comparison from the same run:
#  1. AMG iterations to 1e-8 (np 2) on the box family (hexahedra, tetrahedra, prisms; 11^3 to
#     NMAX^3 nodes, h halving) and on Gmsh's cube with a spherical hole at three sizes;
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
iters() { # MESH [solve options]: iterations of CG + AMG
  m=$1; shift
  "$B/partition" "$m" "$NP" -o "$W/p" --quiet >/dev/null
  $MPI "$B/solve" -p "$W/p" --precond amg --no-output --summary "$W/s.json" "$@" >/dev/null
  json "$W/s.json" iterations
}
echo "# $(date -u +%F) $(uname -n), np $NP, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "## AMG iterations to 1e-8"
printf '%-28s %10s %6s\n' mesh nodes iters
n=11
while [ "$n" -le "$NMAX" ]; do
  for t in hex tet prism; do
    o=; [ $t = hex ] || o=--$t
    "$B/meshgen" box $n $n $n $o -o "$W/b.msh" >/dev/null
    printf '%-28s %10d %6s\n' "box $t $n^3" $((n * n * n)) "$(iters "$W/b.msh")"
  done
  n=$((2 * n - 1))
done
for h in 0.1 0.05 0.025; do
  gmsh -3 "$HERE/../meshes/big_cube.geo" -setnumber h $h -format msh41 -bin -o "$W/c.msh" >/dev/null
  nn=$(sed -n '/^\$Nodes/{n;p;q}' "$W/c.msh" 2>/dev/null | awk '{print $2}')
  printf '%-28s %10s %6s\n' "cube with hole, h $h" "${nn:-?}" "$(iters "$W/c.msh")"
done
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
