#!/bin/sh
# partition benchmark (run by hand, not in CI): partition a large mesh into NPARTS and compare,
# in the same run, with `gmsh MESH -part NPARTS` and with `gpmetis` on the same node graph.
#   sh bench/bench_partition.sh BUILD_DIR MESH [NPARTS] [REPEATS]
# Make the ~1M-node mesh with: gmsh -2 meshes/big_square.geo -format msh41 -bin -o big.msh
set -eu
build=$(cd "$1" && pwd); mesh=$2; np=${3:-8}; reps=${4:-5}
work=${BENCH_DIR:-/tmp/pmesh-bench-partition}
mkdir -p "$work"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
T="/usr/bin/time -f %e:%M"
: > "$work/ours"; : > "$work/metis"; : > "$work/gmsh"
"$build/partition" "$mesh" $np -o "$work/p" --quiet --write-graph "$work/graph"
nodes=$(head -n 1 "$work/graph" | cut -d' ' -f1)
for r in $(seq $reps); do
  $T "$build/partition" "$mesh" $np -o "$work/p" --quiet --summary "$work/s.$r.json" 2> "$work/t" > /dev/null
  tail -n 1 "$work/t" | tr ':' ' ' | awk -v r=$r '{ print $1, $2, r }' >> "$work/ours"
  $T gpmetis "$work/graph" $np > "$work/gp.out" 2> "$work/t"
  m=$(sed -n 's/.*Partitioning:[[:space:]]*\([0-9.]*\) sec.*/\1/p' "$work/gp.out")
  tail -n 1 "$work/t" | tr ':' ' ' | awk -v m="$m" '{ print $1, $2, m }' >> "$work/metis"
done
for r in $(seq ${GMSH_REPS:-3}); do
  $T gmsh "$mesh" -part $np -0 -o "$work/gmsh_part.msh" > /dev/null 2> "$work/t"
  tail -n 1 "$work/t" | tr ':' ' ' >> "$work/gmsh"
done
ow=$(cut -d' ' -f1 "$work/ours" | median); om=$(cut -d' ' -f2 "$work/ours" | median)
mw=$(cut -d' ' -f1 "$work/metis" | median); mm=$(cut -d' ' -f3 "$work/metis" | median)
gw=$(cut -d' ' -f1 "$work/gmsh" | median); gm=$(cut -d' ' -f2 "$work/gmsh" | median)
# the median run's per-stage figures
mid=$(sort -g "$work/ours" | awk -v n=$reps 'NR == int((n + 1) / 2) { print $3 }')
echo "mesh $mesh: $nodes nodes, $np parts, $reps runs (medians)"
echo "pmesh partition: $ow s wall, peak RSS $(awk -v k=$om -v n=$nodes 'BEGIN { printf "%.0f MB = %.0f bytes/node", k / 1024, k * 1024 / n }')"
sed -n 's/.*"name": "\([^"]*\)", "seconds": \([0-9.]*\), "peak_rss_bytes": \([0-9]*\).*/  stage \1: \2 s, peak \3 bytes/p' "$work/s.$mid.json"
echo "gpmetis (same graph): $mw s wall, METIS time $mm s"
echo "gmsh -part $np: $gw s wall, peak RSS $(awk -v k=$gm 'BEGIN { printf "%.0f MB", k / 1024 }')"
awk -v o=$ow -v g=$gw 'BEGIN { printf "ratio pmesh / gmsh: %.3f (target <= 0.2)\n", o / g }'
# work outside the METIS call = total - partition stage
sed -n 's/.*"name": "partition", "seconds": \([0-9.]*\).*/\1/p' "$work/s.$mid.json" | awk -v o=$ow -v m=$mm '{
  printf "METIS call in partition: %.3f s; everything else: %.3f s = %.2f x METIS (gpmetis METIS time %.3f s) (target <= 2)\n", $1, o - $1, (o - $1) / $1, m }'
