#!/bin/sh
# CG benchmark (run by hand, not in CI): the 5-point Laplacian on an NX x NX grid at np = 1 and
# 2, pmesh's solve against PETSc's KSPCG + PCJACOBI on the same problem, in the same run, plus a
# STREAM triad for the bandwidth model; and the lecture's 1D benchmark size.
#   sh bench/bench_cg.sh BUILD_DIR [NX] [REPEATS]
# PETSc: apt-get install petsc-dev (it brings OpenMPI; pmesh itself stays on MPICH).
set -eu
build=$(cd "$1" && pwd); nx=${2:-1000}; reps=${3:-5}
here=$(cd "$(dirname "$0")" && pwd)
work=${BENCH_DIR:-/tmp/pmesh-bench-cg}
mkdir -p "$work" && cd "$work"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
mpicc.mpich -O3 -march=native -o stream_triad "$here/stream_triad.c"
if [ -d /usr/lib/petsc ]; then
  mpicc.openmpi -O3 -o petsc_cg "$here/petsc_cg.c" -I/usr/lib/petsc/include -L/usr/lib/petsc/lib -lpetsc
fi
[ -f grid$nx.msh ] || "$build/meshgen" grid $nx $nx 1 1 -o grid$nx.msh
for np in 1 2; do
  [ -d g$nx.$np ] || "$build/partition" grid$nx.msh $np --halo edge -o g$nx.$np --quiet
  mpiexec.mpich -n $np ./stream_triad 20000000 20 | tee stream.$np
  : > ours.$np; : > petsc.$np
  for r in $(seq $reps); do
    mpiexec.mpich -n $np "$build/solve" -p g$nx.$np --scheme fdm5 --rtol 0 --maxit 200 --no-output --summary s.json > /dev/null || true
    sed -n 's/.*"per_iteration": \([0-9.e-]*\),.*/\1/p' s.json >> ours.$np
    if [ -x petsc_cg ]; then
      mpiexec.openmpi --allow-run-as-root -n $np ./petsc_cg -n $nx -its 200 | sed -n 's/.*, \([0-9.]*\) ms per iteration/\1/p' >> petsc.$np
    fi
  done
  o=$(median < ours.$np); p=$(median < petsc.$np 2>/dev/null || echo nan)
  grep -E '"(spmv|exchange|reductions|vector_updates)"' s.json | tr -s ' ' | head -3
  awk -v o="$o" -v p="$p" -v np=$np -v n=$((nx * nx)) -v s="$(sed -n 's/.*, \([0-9.]*\) GB\/s.*/\1/p' stream.$np)" 'BEGIN {
    printf "np=%d: pmesh %.3f ms/iteration (median of '"$reps"'), PETSc %.3f ms/iteration, ratio %.2f (target <= 0.8)\n", np, o * 1e3, p, o * 1e3 / p
    printf "       byte model 148 B/unknown/iteration: %.1f GB/s achieved vs STREAM triad %.1f GB/s (%.0f%%)\n", 148 * n / o / 1e9, s, 100 * 148 * n / o / 1e9 / s }'
done
# The lecture's 1D benchmark size: NEg = 10,000,000, 200 iterations (BENCH_1D=0 skips it).
[ "${BENCH_1D:-1}" = 0 ] && exit 0
[ -f bar10M.msh ] || "$build/meshgen" line 10000000 1.0 -o bar10M.msh
for np in 1 2; do
  [ -d bar.$np ] || "$build/partition" bar10M.msh $np --method rcb -o bar.$np --quiet
  : > bar.t.$np
  for r in $(seq 3); do
    mpiexec.mpich -n $np "$build/solve" -p bar.$np --dirichlet xmin=0 --rtol 0 --maxit 200 --no-output --summary b.json > /dev/null || true
    sed -n 's/.*"per_iteration": \([0-9.e-]*\),.*/\1/p' b.json >> bar.t.$np
  done
  echo "lecture 1D NEg=10^7, np=$np: $(median < bar.t.$np | awk '{ printf "%.2f", $1 * 1e3 }') ms/iteration (median of 3)"
done
