#!/bin/sh
# Parallel refinement benchmark (run by hand on a quiet machine, not in CI).  On a mesh
# partitioned into NP parts (default: the ~1M-node triangle mesh of meshes/big_square.geo, 2):
#  - solve --refine K --precond mg for K in KS (default 1 2 3), to 1e-8, with the result
#    written: wall time of the job (mpiexec to exit), solve's own stages from --summary (load,
#    refine, assembly, solve with its set-up, output, total = load to written result), MG
#    iterations, peak RSS of every rank (GNU time) and their sum per fine unknown, and solve's own
#    peak at the end of each stage (--summary's peak_rss_bytes_max);
#  - the serial route to the K = 2 problem (SERIAL=1, the default): gmsh -refine twice on the
#    mesh, partition, solve --precond amg at NP ranks; the wall time of each step and in total,
#    the largest process's peak RSS, and the ratios against --refine 2 --precond mg.
#   sh bench/bench_refine.sh BUILD_DIR [MESH]
# Environment: NP (2), KS ("1 2 3"), SERIAL (1), BENCH_DIR (/tmp/pmesh-bench-refine), RTOL (1e-8),
# ORDER (hilbert: partition --order, both routes), FINE (an already refined .msh: the serial route
# then skips gmsh, and its time is a lower bound).
# MESH defaults to $BIG or /tmp/big.msh, made when missing (gmsh -2 meshes/big_square.geo
# -format msh41 -bin; minutes).  The serial route needs gmsh; K = 3 of the big mesh needs ~20 GB.
set -eu
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
mesh=${2:-${BIG:-/tmp/big.msh}}
np=${NP:-2}
ks=${KS:-1 2 3}
rtol=${RTOL:-1e-8}
work=${BENCH_DIR:-/tmp/pmesh-bench-refine}
if [ ! -f "$mesh" ]; then
  echo "making $mesh with gmsh (minutes)"
  gmsh -2 "$here/../meshes/big_square.geo" -format msh41 -bin -o "$mesh" > /dev/null
fi
mesh=$(cd "$(dirname "$mesh")" && pwd)/$(basename "$mesh")
mkdir -p "$work" && cd "$work"
now() { date +%s.%N; }
field() { sed -n "s/.*\"$1\": \\([0-9.e+-]*\\).*/\\1/p" "$2" | head -1; }
# GNU time's "RSS <kB>" records, found anywhere in a line (the ranks' stderr can interleave
# without a line break): every process's, the sum, the largest.
rss_kb() { awk '{ while (match($0, /RSS [0-9]+/)) { print substr($0, RSTART + 4, RLENGTH - 4); $0 = substr($0, RSTART + RLENGTH) } }' "$1"; }
rss_list() { rss_kb "$1" | awk '{ printf "%s%.0f", (n++ ? " " : ""), $1 / 1024 } END { if (!n) printf "-" }'; }
rss_sum() { rss_kb "$1" | awk '{ s += $1 } END { print s * 1024 }'; }
rss_max() { rss_kb "$1" | awk '{ if ($1 > m) m = $1 } END { print m * 1024 }'; }

t=$(now)
order=${ORDER:-hilbert}
/usr/bin/time -f "RSS %M" "$build/partition" "$mesh" $np --order $order -o part.$np --quiet 2> t.part
tpart=$(echo "$(now) $t" | awk '{ printf "%.2f", $1 - $2 }')
echo "mesh $mesh: partitioned into $np in $tpart s ($(rss_max t.part | awk '{ printf "%.0f", $1 / 2^20 }') MB)"
printf '%-3s %10s %3s | %7s | %-58s | %-16s %s\n' K unknowns it "wall s" \
  "solve's seconds: load refine assembly solve(setup) output total" "RSS MB per rank" "bytes/unknown"
for K in $ks; do
  t=$(now)
  status=ok
  mpiexec.mpich -n $np /usr/bin/time -f "RSS %M" "$build/solve" -p part.$np --refine $K --precond mg \
    --rtol $rtol -o ref$K.h5 --summary s$K.json > o$K.txt 2> t$K.txt || status=FAILED
  wall=$(echo "$(now) $t" | awk '{ printf "%.2f", $1 - $2 }')
  if [ $status != ok ]; then
    echo "K $K: solve failed (o$K.txt, t$K.txt):"
    grep -v '^RSS' t$K.txt | head -5
    continue
  fi
  echo "$wall" > wall$K
  n=$(field unknowns s$K.json)
  awk -v K=$K -v n=$n -v it=$(field iterations s$K.json) -v w=$wall -v l=$(field load s$K.json) \
    -v r=$(sed -n 's/.*"seconds": {"load": [0-9.e+-]*, "refine": \([0-9.e+-]*\).*/\1/p' s$K.json) -v a=$(field assembly s$K.json) -v s=$(field solve s$K.json) \
    -v su=$(field solver_setup s$K.json) -v o=$(field output s$K.json) -v tt=$(field total s$K.json) \
    -v rl="$(rss_list t$K.txt)" -v rs=$(rss_sum t$K.txt) 'BEGIN {
      printf "%-3d %10d %3d | %7.2f | %6.2f %6.2f %8.2f %6.2f(%5.2f) %6.2f %6.2f    | %-16s %.0f\n", K, n, it, w, l, r,
        a, s, su, o, tt, rl, rs / n }'
  # solve's own peaks at the end of each stage (largest rank): where the memory goes.
  sed -n 's/.*"peak_rss_bytes_max": {\(.*\)},*/\1/p' s$K.json | tr -d '"' | tr ',' '\n' |
    awk -F': ' '{ printf "%s%s %.0f", (NR > 1 ? "," : "    peak MB per stage (largest rank): "), $1, $2 / 2^20 } END { print "" }'
done
echo "(wall: mpiexec to exit; total: solve's load to written result; RSS: peak per rank, GNU time)"

[ "${SERIAL:-1}" = 1 ] || exit 0
command -v gmsh > /dev/null 2>&1 || { echo "serial route skipped: no gmsh"; exit 0; }
echo "serial route to the --refine 2 problem: gmsh -refine twice, partition, solve --precond amg"
t0=$(now)
# Two runs: one gmsh run refines once however often -refine is given.
fine=fine.msh
if [ -n "${FINE:-}" ]; then
  fine=$FINE
  echo "(gmsh skipped: $FINE given; the serial times below leave gmsh out)"
  : > t.gmsh
else
  /usr/bin/time -f "RSS %M" gmsh "$mesh" -0 -refine -format msh41 -bin -o half.msh > gmsh.log 2> t.gmsh
  /usr/bin/time -f "RSS %M" gmsh half.msh -0 -refine -format msh41 -bin -o fine.msh >> gmsh.log 2>> t.gmsh
fi
t1=$(now)
/usr/bin/time -f "RSS %M" "$build/partition" $fine $np --order $order -o fine.$np --quiet 2> t.fpart
t2=$(now)
mpiexec.mpich -n $np /usr/bin/time -f "RSS %M" "$build/solve" -p fine.$np --precond amg --rtol $rtol -o serial.h5 \
  --summary ss.json > os.txt 2> t.ssolve
t3=$(now)
cat t.gmsh t.fpart t.ssolve > t.serial
big_serial=$(rss_max t.serial)
awk -v g=$(echo "$t1 $t0" | awk '{ print $1 - $2 }') -v p=$(echo "$t2 $t1" | awk '{ print $1 - $2 }') \
  -v s=$(echo "$t3 $t2" | awk '{ print $1 - $2 }') -v gm=$(rss_max t.gmsh) -v pm=$(rss_max t.fpart) \
  -v sm=$(rss_max t.ssolve) -v n=$(field unknowns ss.json) -v it=$(field iterations ss.json) 'BEGIN {
    printf "gmsh -refine x2 %.2f s (%.0f MB), partition %.2f s (%.0f MB), solve %.2f s (%d unknowns, %d amg iterations, largest rank %.0f MB): total %.2f s\n",
      g, gm / 2^20, p, pm / 2^20, s, n, it, sm / 2^20, g + p + s }'
if [ -f wall2 ]; then
  # The refined route end to end: the coarse partition and the solve job.
  awk -v serial=$(echo "$t3 $t0" | awk '{ print $1 - $2 }') -v ref=$(cat wall2) -v tp=$tpart -v bs=$big_serial \
    -v br=$(cat t.part t2.txt | rss_max /dev/stdin) 'BEGIN {
      printf "--refine 2 --precond mg (partition %.2f s + solve %.2f s) against the serial route: %.1fx faster end to end (%.2f s against %.2f s), largest process %.1fx lighter (%.0f MB against %.0f MB)\n",
        tp, ref, serial / (tp + ref), tp + ref, serial, bs / br, br / 2^20, bs / 2^20 }'
fi
