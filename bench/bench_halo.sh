#!/bin/sh
# bench_halo.sh [BUILD]: the benchmark behind pm_exchange_default() - the ~1M-node unstructured
# square (meshes/big_square.geo, made with gmsh once into /tmp/big.msh), partitioned into 8 and
# 2 parts, bs = 1 double updates per back-end.  On a machine with fewer cores than ranks the
# 8-rank run is oversubscribed (MPICH busy-polls): compare back-ends, not absolute times.
set -eu
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
mesh=${PMESH_BIG_MSH:-/tmp/big.msh}
# MPICH's launcher (plain mpiexec may be another MPI's).
mpiexec=${MPIEXEC:-$(command -v mpiexec.mpich || echo mpiexec)}
if [ ! -f "$mesh" ]; then
  gmsh -2 "$root/meshes/big_square.geo" -format msh41 -bin -o "$mesh.tmp.$$" > /dev/null
  mv "$mesh.tmp.$$" "$mesh"
fi
for np in 8 2; do
  dir=${mesh%.msh}$np
  [ -f "$dir/local.0" ] || "$build/partition" "$mesh" $np -o "$dir" --quiet
  echo "== $np ranks on $(nproc) cores"
  "$mpiexec" -n $np "$build/bench_halo" "$dir"
done
