#!/bin/sh
# Cost of solve --reproducible (run by hand, not in CI): time per CG iteration of the default
# and the reproducible mode on the 5-point N x N grid at np = NP, both modes in the same loop
# (so a shared machine's load falls on both alike), medians of REPEATS.
#   sh bench/bench_repro.sh BUILD_DIR [REPEATS] [N] [NP]     (defaults 3 1000 2)
# Besides the wall-clock time per iteration that solve prints, it takes the CPU time per
# iteration and rank from GNU time's user seconds (a 300-iteration run minus a 0-iteration run,
# over the ranks), at np = 1 and at np = NP with yielding waits (PMESH_YIELD=1, so that a rank
# waiting for the other does not count as work): a loaded machine disturbs those less.
set -eu
build=$(cd "$1" && pwd); reps=${2:-3}; n=${3:-1000}; np=${4:-2}
work=${BENCH_DIR:-/tmp/pmesh-bench-repro}
mkdir -p "$work" && cd "$work"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
[ -f grid$n.msh ] || "$build/meshgen" grid $n $n 1 1 -o grid$n.msh > /dev/null
[ -d g$n.$np ] || "$build/partition" grid$n.msh $np --halo edge -o g$n.$np --quiet
[ -d g$n.1 ] || "$build/partition" grid$n.msh 1 --halo edge -o g$n.1 --quiet
run() { mpiexec.mpich -n $1 "$build/solve" -p g$n.$1 --scheme fdm5 --no-output --maxit $2 --rtol 0 $3 2>/dev/null || true; }
cpu() { # np maxit option
  PMESH_YIELD=1 /usr/bin/time -f "%U" -o t.$$ sh -c "mpiexec.mpich -n $1 '$build/solve' -p g$n.$1 --scheme fdm5 \
    --no-output --maxit $2 --rtol 0 $3 > /dev/null 2>&1 || true"
  cat t.$$
}
: > wall.default; : > wall.repro; : > cpu.default; : > cpu.repro; : > cpunp.default; : > cpunp.repro
for r in $(seq "$reps"); do
  for m in default repro; do
    opt=""; [ $m = repro ] && opt=--reproducible
    run $np 300 "$opt" | sed -n 's/^time per iteration \([0-9.]*\) ms.*/\1/p' >> wall.$m
    c300=$(cpu 1 300 "$opt"); c0=$(cpu 1 0 "$opt")
    echo "$c300 $c0" | awk '{ printf "%.3f\n", ($1 - $2) / 300 * 1000 }' >> cpu.$m
    c300=$(cpu $np 300 "$opt"); c0=$(cpu $np 0 "$opt")
    echo "$c300 $c0 $np" | awk '{ printf "%.3f\n", ($1 - $2) / 300 / $3 * 1000 }' >> cpunp.$m
  done
done
wd=$(median < wall.default); wr=$(median < wall.repro); cd_=$(median < cpu.default); cr=$(median < cpu.repro)
pd=$(median < cpunp.default); pr=$(median < cpunp.repro)
echo "grid ${n}x$n fdm5, medians of $reps ($(uptime | sed 's/.*load average: //') load):"
echo "  np=$np wall ms/iteration: default $wd, reproducible $wr, ratio $(echo "$wr $wd" | awk '{ printf "%.2f", $1 / $2 }')"
echo "    runs: default $(tr '\n' ' ' < wall.default)| reproducible $(tr '\n' ' ' < wall.repro)"
echo "  np=1 CPU ms/iteration:  default $cd_, reproducible $cr, ratio $(echo "$cr $cd_" | awk '{ printf "%.2f", $1 / $2 }')"
echo "    runs: default $(tr '\n' ' ' < cpu.default)| reproducible $(tr '\n' ' ' < cpu.repro)"
echo "  np=$np CPU ms/iteration/rank (yielding waits): default $pd, reproducible $pr, ratio $(echo "$pr $pd" | awk '{ printf "%.2f", $1 / $2 }')"
echo "    runs: default $(tr '\n' ' ' < cpunp.default)| reproducible $(tr '\n' ' ' < cpunp.repro)"
