#!/bin/sh
# pmesh's CG + AMG against PETSc's CG + GAMG and CG + hypre BoomerAMG (-pc_type hypre), both with
# their default options, on the same finite-difference matrices (run by hand, not in CI): the
# 7-point Laplacian on a box of NX^3 nodes (`solve --scheme fdm7`) and the 5-point one on a grid
# of NX^2 nodes (`--scheme fdm5`).  Time to ||r||/||b|| <= 1e-8 from a zero guess, set-up +
# solve; the three solvers interleaved in every repetition; medians of REPEATS.
#   sh bench/bench_amg_vs.sh BUILD_DIR [REPEATS] [CASES] [NPS]
# CASES: box<NX> and grid<NX> (default "box100 grid1000"), and bracket<H>: P1 tetrahedra of
# meshes/bracket.geo meshed by Gmsh at size H (0.5: ~1M nodes), bolts at 0, load at 1, the
# matrix and right-hand side pmesh assembles, written once with `solve --dump-matrix` and read by
# PETSc (petsc_cg -matrix) on the same partition; NPS: default 2.
# PETSc: apt-get install petsc-dev (OpenMPI; built here with mpicc.openmpi, never linked into pmesh).
set -eu
build=$(cd "$1" && pwd); reps=${2:-3}; cases=${3:-box100 grid1000}; nps=${4:-2}
here=$(cd "$(dirname "$0")" && pwd)
work=${BENCH_DIR:-/tmp/pmesh-bench-amg-vs}
mkdir -p "$work" && cd "$work"
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
[ -d /usr/lib/petsc ] || { echo "bench_amg_vs: no PETSc (apt-get install petsc-dev)"; exit 1; }
mpicc.openmpi -O3 -o petsc_cg "$here/petsc_cg.c" -I/usr/lib/petsc/include -L/usr/lib/petsc/lib -lpetsc
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-9s %2s | %-26s | %-26s | %-26s | %s\n' case np "pmesh AMG: it, set+solve s" "PETSc GAMG: it, set+solve s" \
  "PETSc BoomerAMG: it, set+solve" "pmesh/GAMG, pmesh/BoomerAMG"
for c in $cases; do
  case $c in
    box*) nx=${c#box}; msh=$c.msh; scheme=fdm7; dim=3
      [ -f $msh ] || "$build/meshgen" box $nx $nx $nx 1 1 1 -o $msh > /dev/null ;;
    grid*) nx=${c#grid}; msh=$c.msh; scheme=fdm5; dim=2
      [ -f $msh ] || "$build/meshgen" grid $nx $nx 1 1 -o $msh > /dev/null ;;
    bracket*) h=${c#bracket}; msh=$c.msh; scheme=fem; dim=3; nx=0
      [ -f $msh ] || gmsh -3 "$here/../meshes/bracket.geo" -setnumber h $h -format msh41 -bin -o $msh > /dev/null ;;
    *) echo "bench_amg_vs: no case $c"; exit 1 ;;
  esac
  prob="--scheme $scheme"; halo=edge
  case $c in bracket*) prob="--dirichlet bolts=0 --dirichlet load=1"; halo=element;; esac
  for np in $nps; do
    [ -d $c.$np ] || "$build/partition" $msh $np --halo $halo -o $c.$np --quiet
    mat="-n $nx -dim $dim"; case $c in bracket*) mat="-matrix $c.$np.rows";; esac
    case $c in bracket*) [ -f $c.$np.rows.0 ] || mpiexec.mpich -n $np "$build/solve" -p $c.$np $prob --precond jacobi \
      --maxit 1 --rtol 0 --no-output --dump-matrix $c.$np.rows > /dev/null;; esac
    for f in a.it a.set a.tot g.it g.set g.tot h.it h.set h.tot; do : > $c.$np.$f; done
    for r in $(seq $reps); do
      mpiexec.mpich -n $np "$build/solve" -p $c.$np $prob --precond amg --no-output --summary s.json > o.amg
      sed -n 's/^  "iterations": \([0-9]*\),/\1/p' s.json >> $c.$np.a.it
      sed -n '/"seconds"/s/.*"solve": \([0-9.e+-]*\), "solver_setup": \([0-9.e+-]*\).*/\2/p' s.json >> $c.$np.a.set
      sed -n '/"seconds"/s/.*"solve": \([0-9.e+-]*\),.*/\1/p' s.json >> $c.$np.a.tot
      for k in g h; do
        opt=-gamg; [ $k = h ] && opt=-hypre
        mpiexec.openmpi --allow-run-as-root -n $np ./petsc_cg $mat $opt > o.$k
        grep -q "(converged)" o.$k || { cat o.$k; echo "bench_amg_vs: PETSc did not converge"; exit 1; }
        sed -n 's/.*, \([0-9]*\) iterations.*/\1/p' o.$k >> $c.$np.$k.it
        sed -n 's/.*setup \([0-9.]*\) s.*/\1/p' o.$k >> $c.$np.$k.set
        sed -n 's/.*total \([0-9.]*\) s.*/\1/p' o.$k >> $c.$np.$k.tot
      done
    done
    for f in a.it a.set a.tot g.it g.set g.tot h.it h.set h.tot; do eval "m_${f%.*}_${f#*.}=\$(median < $c.$np.$f)"; done
    awk -v c=$c -v np=$np -v ai=$m_a_it -v as=$m_a_set -v at=$m_a_tot -v gi=$m_g_it -v gs=$m_g_set -v gt=$m_g_tot \
      -v hi=$m_h_it -v hs=$m_h_set -v ht=$m_h_tot 'BEGIN {
      printf "%-9s %2d | %3d, %6.3f+%6.3f=%7.3f | %3d, %6.3f+%6.3f=%7.3f | %3d, %6.3f+%6.3f=%7.3f | %.2f, %.2f\n",
        c, np, ai, as, at - as, at, gi, gs, gt - gs, gt, hi, hs, ht - hs, ht, at / gt, at / ht }'
  done
done
echo "(medians of $reps runs, the three solvers interleaved in every run; load average after: $(cut -d' ' -f1-3 /proc/loadavg))"
