#!/bin/sh
# bench_yield.sh - solve with more ranks than CPUs: pmesh's yielding waits against MPI's
# spinning ones (PMESH_YIELD=1 against 0), in the same loop.
#
#   bench/bench_yield.sh [BUILD_DIR] [REPEATS]      (defaults: build, 5)
#
# Meshes: disk_hole (1015 nodes) and a 200 x 200 triangle grid (40000 nodes), in
# 4 and 8 parts, each run REPEATS times with either setting, the settings alternating.  Reports
# the medians of CG's time per iteration and of solve's solve, output and total seconds.
# Meaningful where 4 or 8 ranks outnumber the CPUs (2 on the benchmark machine).
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build}" && pwd)
REP=${2:-5}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
WORK=${WORK:-/tmp/pm_yield_bench}
mkdir -p "$WORK"
cd "$WORK"
[ -f g200.msh ] || "$BUILD/meshgen" grid 200 200 --tri -o g200.msh > /dev/null
for np in 4 8; do
  [ -f d$np/partition.meta ] || "$BUILD/partition" "$ROOT/meshes/disk_hole.msh" $np -o d$np --quiet
  [ -f g$np/partition.meta ] || "$BUILD/partition" g200.msh $np -o g$np --quiet
done
: > runs.txt
for i in $(seq 1 "$REP"); do
  for np in 4 8; do
    for m in d g; do
      for y in 0 1; do
        PMESH_YIELD=$y "$MPIEXEC" -n $np "$BUILD/solve" -p $m$np -o r.h5 > out.txt
        echo "$m-np$np-yield$y $(sed -n 's/^time per iteration \([0-9.]*\) ms.*/\1/p' out.txt)" \
          "$(sed -n 's/^seconds: .* solve \([0-9.]*\), output \([0-9.]*\), total \([0-9.]*\)/\1 \2 \3/p' out.txt)" >> runs.txt
      done
    done
  done
done
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
echo "bench_yield: $REP runs each, $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg); medians:"
printf "%-16s %12s %10s %10s %10s\n" run "ms/iteration" "solve s" "output s" "total s"
for v in $(awk '{print $1}' runs.txt | sort -u); do
  printf "%-16s %12s %10s %10s %10s\n" "$v" "$(awk -v k=$v '$1 == k {print $2}' runs.txt | median)" \
    "$(awk -v k=$v '$1 == k {print $3}' runs.txt | median)" "$(awk -v k=$v '$1 == k {print $4}' runs.txt | median)" \
    "$(awk -v k=$v '$1 == k {print $5}' runs.txt | median)"
done
