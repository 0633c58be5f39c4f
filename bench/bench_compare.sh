#!/bin/sh
# Two builds of pmesh on the same commands, alternating, for a before/after wall-clock figure:
# partition of the ~1M-node mesh, solve with CG + AMG, CG + Jacobi (fixed 200 iterations),
# --refine 2 --precond mg, and the result write (solve with and without output).
#   sh bench/bench_compare.sh OLD_BUILD NEW_BUILD [MESH] [REPEATS]
# Prints each command's median wall time for both builds and their ratio, with the load average.
set -eu
OLD=$(cd "$1" && pwd); NEW=$(cd "$2" && pwd)
MESH=${3:-/tmp/big.msh}; REPEATS=${4:-5}; NP=${NP:-2}
W=$(mktemp -d /tmp/bench_compare.XXXXXX)
[ -f "$MESH" ] || { echo "no mesh $MESH (gmsh -2 meshes/big_square.geo -format msh41 -bin -o $MESH)"; exit 1; }
now() { date +%s.%N; }
run() { # build tag command...
  b=$1; tag=$2; shift 2
  t0=$(now); "$@" >"$W/last.log" 2>&1 || { echo "FAILED: $*"; tail -5 "$W/last.log"; exit 1; }
  t1=$(now); echo "$tag $b $(echo "$t1 - $t0" | bc)" >>"$W/times"
}
fixed() { # like run, for a fixed iteration count: builds before cc31ac0's successor exit 1 with
  # --rtol 0 ("did not converge"), which is what was asked for here
  b=$1; tag=$2; shift 2
  t0=$(now); "$@" >"$W/last.log" 2>&1 || grep -q "did not converge" "$W/last.log" || { echo "FAILED: $*"; tail -5 "$W/last.log"; exit 1; }
  t1=$(now); echo "$tag $b $(echo "$t1 - $t0" | bc)" >>"$W/times"
}
MPI="mpiexec.mpich -n $NP"
for b in "$OLD" "$NEW"; do "$b/partition" "$MESH" "$NP" -o "$W/part.$(echo "$b" | md5sum | cut -c1-8)" >/dev/null; done
for r in $(seq "$REPEATS"); do
  for b in "$OLD" "$NEW"; do
    P="$W/part.$(echo "$b" | md5sum | cut -c1-8)"
    run "$b" partition "$b/partition" "$MESH" "$NP" -o "$W/p.tmp"
    run "$b" amg $MPI "$b/solve" -p "$P" --precond amg --no-output
    fixed "$b" jacobi200 $MPI "$b/solve" -p "$P" --precond jacobi --rtol 0 --maxit 200 --no-output
    run "$b" refine2_mg $MPI "$b/solve" -p "$P" --refine 2 --precond mg --no-output
    run "$b" amg_write $MPI "$b/solve" -p "$P" --precond amg -o "$W/r.h5"
  done
done
echo "# $(date -u +%F) $(uname -n) np=$NP repeats=$REPEATS mesh=$MESH; load at end: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %10s %10s %7s\n' command old_s new_s new/old
for tag in partition amg jacobi200 refine2_mg amg_write; do
  o=$(awk -v t=$tag -v b="$OLD" '$1==t && $2==b {print $3}' "$W/times" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  n=$(awk -v t=$tag -v b="$NEW" '$1==t && $2==b {print $3}' "$W/times" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  printf '%-12s %10.3f %10.3f %7.3f\n' "$tag" "$o" "$n" "$(echo "$n / $o" | bc -l)"
done
rm -rf "$W"
