#!/bin/sh
# bench_h5.sh - write bandwidth of pm_h5_write on the ~1M-node mesh against dd.
#
#   bench/bench_h5.sh [BUILD_DIR] [REPEATS]      (defaults: build, 3)
#
# Makes /tmp/big.msh from meshes/big_square.geo if it is missing (gmsh; a minute or more),
# partitions it into 1 and 2 parts, then REPEATS times: runs tests' test_h5 driver
# ("write", u = x + 2y + 3 plus two cell fields) at np = 1 and 2, and
#   dd if=/dev/zero of=WORK/dd.bin bs=1M count=<the .h5's size in MiB> conv=fdatasync
# What is timed: the driver's wall time of pm_h5_write, max over ranks, from a barrier to its
# return: redistribution, dataset writes, H5Fflush (MPI_File_sync = fsync), close, XDMF, renames.
# Reading the local meshes is not included.  dd's time includes its fdatasync.
# Like dd (whose dd.bin is removed after each run, untimed), each h5 run writes a new file: the
# previous out*.h5 is removed and the disk synced before it.  REPLACE=1 keeps the previous result
# in place, so the timed write also pays for deleting it (the rename drops the old file; on the
# benchmark VM deleting a 120 MB file takes 0.07-0.13 s).
# NOWB=1 also runs np = 1 and 2 with the write-behind off (PMESH_H5_WRITE_BEHIND=0; rows
# 1-nowb, 2-nowb), to see what it brings.  BARE=1 also runs bench/h5_bare.c (rows 1-bare,
# 2-bare): one dataset of the same MiB written collectively in 4 MiB calls from one warm
# buffer, the floor of an HDF5 write here.  BASE=DIR also runs DIR/tests/io/test_h5, another build
# (an earlier commit, say), at np = 1 and 2 (rows 1-base, 2-base; with SOLVE=1 also its solve,
# rows 1-solve-base, 2-solve-base): a change measured against
# what it changes in the same run.  SETTLE=S sleeps S seconds before each timed command (h5 and
# the first dd alike).  Each round runs dd twice and compares the second: on the benchmark VM a
# dd after a pause of a few seconds, or after the h5 runs, often takes 0.16-0.27 s where the
# same dd run again at once takes 0.09-0.10 s, so the ratio is against the faster.  (With
# oflag=direct, which needs no page cache, the first dd is hardly slower: the cost is in the
# page cache's fresh memory, which the VM gets back from its host page by page after a few
# seconds of disuse.)  The disk of the benchmark VM has slow phases (dd 0.09 s, then 0.25-0.29 s
# for the same 124 MB): compare only figures of the same run.
# Each round runs the variants in a different order (round i starts at the i-th): where a
# variant runs in the round matters on this VM (at np = 2 the first run after the dds took
# 0.022 s to prepare, the others 0.009 s), and a fixed order would favour some variants.
# WARM=1 writes and deletes an untimed file of the same MiB (dd, as dd-first) right before each
# timed h5 run, so that it starts as the compared dd does.  The benchmark VM's balloon reports
# free memory to its host (virtio-balloon free page reporting), which takes it back a few
# seconds later; a page cache that then grows into that memory pays a host fault per 4 KiB page
# (~10 us: 124 MB then cost 0.1-0.3 s more).  A process that exits (a solve of this mesh peaks
# at 0.36 GB at np = 1, 2 x 0.21 GB at np = 2) leaves such memory behind for whichever write comes next; the compared dd always finds the
# pages its first run freed a moment before.  Without WARM the h5 runs take what they find.
# SOLVE=1 also times solve itself (rows 1-solve, 2-solve): the "output" seconds and bytes of
# its --summary, after SOLVE_IT (default 20) CG iterations on the same partitions, against a
# dd of solve's own bytes (rows dd-solve-first, dd-solve).  That is the write as a user meets
# it, after a solve; test_h5 writes right after reading the mesh.
# Reports medians and the bandwidth ratio (target >= 0.75), and every run's phase split
# (PMESH_H5_PROFILE), with the median of each phase per variant at the end.
set -e
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${1:-$ROOT/build}
REP=${2:-3}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
WORK=${WORK:-/tmp/pm_h5_bench}
MESH=${MESH:-/tmp/big.msh}
[ -x "$BUILD/tests/io/test_h5" ] || { echo "bench_h5: build $BUILD first (test_h5 missing)"; exit 1; }
mkdir -p "$WORK"
if [ ! -f "$MESH" ]; then
  echo "bench_h5: making $MESH with gmsh (takes a minute or more)"
  gmsh -2 "$ROOT/meshes/big_square.geo" -format msh41 -bin -o "$MESH" > "$WORK/gmsh.log"
fi
cd "$WORK"
for np in 1 2; do
  [ -f big$np/partition.meta ] || "$BUILD/partition" "$MESH" $np -o big$np --quiet
done
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
VARIANTS="1 2"
[ "${NOWB:-0}" = 1 ] && VARIANTS="$VARIANTS 1-nowb 2-nowb"
if [ -n "${BASE:-}" ]; then
  [ -x "$BASE/tests/io/test_h5" ] || { echo "bench_h5: BASE=$BASE has no tests/io/test_h5"; exit 1; }
  VARIANTS="$VARIANTS 1-base 2-base"
fi
[ "${SOLVE:-0}" = 1 ] && VARIANTS="$VARIANTS 1-solve 2-solve"
[ "${SOLVE:-0}" = 1 ] && [ -n "${BASE:-}" ] && VARIANTS="$VARIANTS 1-solve-base 2-solve-base"
if [ "${BARE:-0}" = 1 ]; then
  mpicc.mpich -std=c11 -O2 -o "$WORK/h5_bare" "$ROOT/bench/h5_bare.c" -I/usr/include/hdf5/mpich \
    -L/usr/lib/x86_64-linux-gnu/hdf5/mpich -lhdf5
  VARIANTS="$VARIANTS 1-bare 2-bare"
fi
median() { sort -g | awk '{v[NR]=$1} END {print (NR % 2) ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2}'; }
: > runs.txt
nv=$(echo $VARIANTS | wc -w)
# One untimed write first: it tells the size of the file (for dd and h5_bare) and warms up.
"$MPIEXEC" -n 1 "$BUILD/tests/io/test_h5" write big1 out1 --time > run.txt
bytes=$(sed -n 's/^write seconds \([^ ]*\) bytes \([^ ]*\).*/\2/p' run.txt)
mb=$(( (bytes + 1048575) / 1048576 ))
i=1
while [ $i -le "$REP" ]; do
  for j in $(seq 0 $((nv - 1))); do # this round's order: from variant i mod nv on
    v=$(echo $VARIANTS | cut -d' ' -f$(( (i + j) % nv + 1 )))
    np=${v%%-*}
    wb=1; [ "$v" = "$np-nowb" ] && wb=0
    bin="$BUILD/tests/io/test_h5"; [ "$v" = "$np-base" ] && bin="$BASE/tests/io/test_h5"
    [ "${REPLACE:-0}" = 1 ] || rm -f out$np.h5 out$np.xmf
    rm -f bare.h5
    sync
    [ "${SETTLE:-0}" = 0 ] || sleep "$SETTLE"
    if [ "${WARM:-0}" = 1 ]; then # the same start as the compared dd: page cache freed a moment ago
      dd if=/dev/zero of=warm.bin bs=1M count=$mb conv=fdatasync 2> /dev/null
      rm -f warm.bin
      sync
    fi
    if [ "$v" = "$np-solve" ] || [ "$v" = "$np-solve-base" ]; then # solve's own output, after a few CG iterations
      rm -f sol$np.h5 sol$np.xmf
      sbin="$BUILD/solve"; [ "$v" = "$np-solve-base" ] && sbin="$BASE/solve"
      PMESH_H5_PROFILE=1 "$MPIEXEC" -n $np "$sbin" -p big$np -o sol$np.h5 --rtol 0 --maxit "${SOLVE_IT:-20}" \
        --summary solve.json > run.txt 2> prof.txt || true # --rtol 0: "not converged", on purpose
      sec=$(sed -n 's/.*"output": \([0-9.e-]*\).*/\1/p' solve.json)
      sbytes=$(sed -n 's/.*"output_bytes": \([0-9]*\).*/\1/p' solve.json)
      [ -n "$sec" ] && [ -n "$sbytes" ] || { echo "bench_h5: solve failed:"; cat run.txt prof.txt; exit 1; }
      echo "h5 np$v $sec $sbytes $(grep '^pm_h5 profile' prof.txt | sed 's/^pm_h5 profile (rank 0, s): //')" >> runs.txt
      continue
    fi
    if [ "$v" = "$np-bare" ]; then # one dataset of the same MiB, in 4 MiB collective writes
      mib=$mb
      "$MPIEXEC" -n $np ./h5_bare bare.h5 $mib 4 > bare.txt
      echo "h5 np$v $(sed -n 's/^bare seconds \([^ ]*\) .*/\1/p' bare.txt) $((mib * 1048576))" \
        "$(sed 's/^bare seconds [^ ]* //' bare.txt)" >> runs.txt
      continue
    fi
    PMESH_H5_WRITE_BEHIND=$wb PMESH_H5_PROFILE=1 "$MPIEXEC" -n $np "$bin" write big$np out$np --time \
      > run.txt 2> prof.txt
    sec=$(sed -n 's/^write seconds \([^ ]*\) bytes \([^ ]*\).*/\1/p' run.txt)
    bytes=$(sed -n 's/^write seconds \([^ ]*\) bytes \([^ ]*\).*/\2/p' run.txt)
    echo "h5 np$v $sec $bytes $(cat prof.txt | sed 's/^pm_h5 profile (rank 0, s): //')" >> runs.txt
  done
  ddset="dd-first:$mb dd:$mb"
  [ "${SOLVE:-0}" = 1 ] && ddset="$ddset dd-solve-first:$(( (sbytes + 1048575) / 1048576 )) dd-solve:$(( (sbytes + 1048575) / 1048576 ))"
  for d in $ddset; do # the second dd of a pair, right after the first, is the faster: the one compared
    n=${d#*:}
    d=${d%:*}
    sync
    [ "${SETTLE:-0}" = 0 ] || [ "${d%-first}" != "$d" ] || sleep "$SETTLE"
    t0=$(date +%s.%N)
    dd if=/dev/zero of=dd.bin bs=1M count=$n conv=fdatasync 2> /dev/null
    t1=$(date +%s.%N)
    echo "$d - $(echo "$t1 - $t0" | bc -l) $((n * 1048576))" >> runs.txt
    rm -f dd.bin
  done
  i=$((i + 1))
done
echo "bench_h5: $REP runs, load average $(cut -d' ' -f1-3 /proc/loadavg) (at start: $LOAD0), $(nproc) cores, $WORK on $(df -T . | awk 'NR==2 {print $2}'), REPLACE=${REPLACE:-0}"
cat runs.txt | sed 's/^/  /'
ddbw() { # median bandwidth (MB/s) of the dd rows named $1
  awk -v k="$1" '$1 == k {print $4 / $3 / 1000000}' runs.txt | median
}
for d in dd dd-solve; do
  [ "$d" = dd ] || [ "${SOLVE:-0}" = 1 ] || continue
  printf "%-15s median %.3f s for %d bytes = %.1f MB/s\n" "$d-first:" "$(awk -v k=$d-first '$1 == k {print $3}' runs.txt | median)" \
    "$(awk -v k=$d-first '$1 == k {print $4}' runs.txt | head -1)" "$(ddbw $d-first)"
  printf "%-15s median %.3f s for %d bytes = %.1f MB/s (compared)\n" "$d:" "$(awk -v k=$d '$1 == k {print $3}' runs.txt | median)" \
    "$(awk -v k=$d '$1 == k {print $4}' runs.txt | head -1)" "$(ddbw $d)"
done
for v in $VARIANTS; do
  sec=$(awk -v k=np$v '$1 == "h5" && $2 == k {print $3}' runs.txt | median)
  bytes=$(awk -v k=np$v '$1 == "h5" && $2 == k {print $4}' runs.txt | head -1)
  bw=$(echo "$bytes / $sec / 1000000" | bc -l)
  case $v in *-solve | *-solve-base) d=dd-solve ;; *) d=dd ;; esac
  printf "h5 np%-8s median %.3f s for %d bytes = %.1f MB/s, ratio to %s %.2f (to %s-first %.2f)\n" "$v:" "$sec" "$bytes" \
    "$bw" "$d" "$(echo "$bw / $(ddbw $d)" | bc -l)" "$d" "$(echo "$bw / $(ddbw $d-first)" | bc -l)"
done
# The phases' medians per variant (seconds; page faults a count), from the profile lines above.
PHASES="prepare open exchange dataset-writes flush other page-faults"
printf "%-16s" "phase medians"
for k in $PHASES; do printf " %14s" "$k"; done
echo
for v in $VARIANTS; do
  case $v in *-bare) continue ;; esac
  printf "np%-14s" "$v"
  for k in $PHASES; do
    printf " %14s" "$(awk -v n=np$v -v k=$k '$1 == "h5" && $2 == n {for (i = 5; i < NF; i++) if ($i == k) print $(i + 1)}' runs.txt | median)"
  done
  echo
done
