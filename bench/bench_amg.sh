#!/bin/sh
# AMG benchmark (run by hand, not in CI): time to ||r||/||b|| <= 1e-8 (set-up + solve),
# iterations, hierarchy and peak memory of pmesh's CG + AMG, pmesh's CG + Jacobi and PETSc's
# CG + GAMG (default options, -ksp_norm_type unpreconditioned) in one loop, on the 5-point grids
# 500^2, 1000^2, 2000^2 and (pmesh only: PETSc has no reader for it here) the ~1M-node
# unstructured triangle mesh of meshes/big_square.geo, at np = 1 and 2; medians of REPEATS.
#   sh bench/bench_amg.sh BUILD_DIR [REPEATS] [GRIDS]
# TRI=0 skips the triangle mesh; JACOBI=0 skips pmesh's Jacobi runs (minutes on 2000^2).
# ORDER=none partitions the triangle mesh in Gmsh's numbering (default hilbert: partition
# --order hilbert; Gmsh's 2D mesher numbers nodes in a nearly random order).
# PETSc: apt-get install petsc-dev (OpenMPI; built with mpicc.openmpi, never linked into pmesh).
# The triangle mesh: gmsh -2 meshes/big_square.geo -format msh41 -bin -o $BIG (default
# /tmp/big.msh; made here when missing, which takes minutes).
set -eu
build=$(cd "$1" && pwd); reps=${2:-3}; grids=${3:-500 1000 2000}
here=$(cd "$(dirname "$0")" && pwd)
work=${BENCH_DIR:-/tmp/pmesh-bench-amg}
big=${BIG:-/tmp/big.msh}
mkdir -p "$work" && cd "$work"
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
field() { sed -n "s/.*\"$1\": \\([0-9.e+-]*\\).*/\\1/p" "$2" | head -1; }
# Peak resident set of the job: the sum over ranks of each rank's maximum (kB), from GNU time.
# Every rank's "RSS <kB>" line of GNU time, summed; found anywhere in a line, as the ranks'
# stderr can interleave without a line break between them.
rss() { awk '{ while (match($0, /RSS [0-9]+/)) { s += substr($0, RSTART + 4, RLENGTH - 4); $0 = substr($0, RSTART + RLENGTH) } } END { print s + 0 }' "$1"; }
have_petsc=0
if [ -d /usr/lib/petsc ]; then
  mpicc.openmpi -O3 -o petsc_cg "$here/petsc_cg.c" -I/usr/lib/petsc/include -L/usr/lib/petsc/lib -lpetsc
  have_petsc=1
fi
cases=""
for nx in $grids; do cases="$cases grid$nx"; done
[ "${TRI:-1}" = 0 ] || cases="$cases tri"
pcs="amg jacobi"; [ "${JACOBI:-1}" = 0 ] && pcs=amg
printf '%-9s %2s | %-38s | %-22s | %-30s | %s\n' case np "pmesh AMG: it, setup+solve=total s, MB" "pmesh Jacobi: it, s, MB" "PETSc GAMG: it, setup+solve=total s, MB" "ratios"
for c in $cases; do
  if [ $c = tri ]; then
    [ -f "$big" ] || gmsh -2 "$here/../meshes/big_square.geo" -format msh41 -bin -o "$big" > gmsh.log
    msh=$big; halo=element; scheme=fem
  else
    nx=${c#grid}; msh=grid$nx.msh; halo=edge; scheme=fdm5
    [ -f $msh ] || "$build/meshgen" grid $nx $nx 1 1 -o $msh > /dev/null
  fi
  for np in 1 2; do
    order=none; [ $c = tri ] && order=${ORDER:-hilbert}
    pd=$c.$np; [ $c = tri ] && pd=tri-$order.$np
    [ -d $pd ] || "$build/partition" $msh $np --halo $halo --order $order -o $pd --quiet
    for f in a.it a.set a.tot a.mem j.it j.tot j.mem p.it p.set p.tot p.mem; do : > $c.$np.$f; done
    for r in $(seq $reps); do
      for pc in $pcs; do
        mpiexec.mpich -n $np /usr/bin/time -f "RSS %M" "$build/solve" -p $pd --scheme $scheme --no-output \
          --precond $pc --summary s.$pc.json > o.$pc 2> t.$pc || true
        k=$(echo $pc | cut -c1)
        field iterations s.$pc.json >> $c.$np.$k.it
        sed -n '/"seconds"/s/.*"solve": \([0-9.e+-]*\),.*/\1/p' s.$pc.json >> $c.$np.$k.tot
        rss t.$pc >> $c.$np.$k.mem
      done
      field setup_seconds s.amg.json >> $c.$np.a.set
      if [ $have_petsc = 1 ] && [ $c != tri ]; then
        mpiexec.openmpi --allow-run-as-root -n $np /usr/bin/time -f "RSS %M" ./petsc_cg -n $nx -gamg > o.petsc 2> t.petsc || true
        sed -n 's/.*, \([0-9]*\) iterations.*/\1/p' o.petsc >> $c.$np.p.it
        sed -n 's/.*setup \([0-9.]*\) s.*/\1/p' o.petsc >> $c.$np.p.set
        sed -n 's/.*total \([0-9.]*\) s.*/\1/p' o.petsc >> $c.$np.p.tot
        rss t.petsc >> $c.$np.p.mem
      fi
    done
    for f in a.it a.set a.tot a.mem j.it j.tot j.mem p.it p.set p.tot p.mem; do eval "m_${f%.*}_${f#*.}=\$(median < $c.$np.$f)"; done
    oc=$(field operator_complexity s.amg.json)
    awk -v c=$c -v np=$np -v ai=$m_a_it -v as=$m_a_set -v at=$m_a_tot -v am=$m_a_mem -v ji=$m_j_it -v jt=$m_j_tot \
      -v jm=$m_j_mem -v pi=$m_p_it -v ps=$m_p_set -v pt=$m_p_tot -v pm=$m_p_mem -v oc=$oc 'BEGIN {
      nj = (ji == "nan")
      printf "%-9s %2d | %3d, %6.3f+%6.3f=%7.3f, %6.0f | %5s, %7s, %6s | %3s, %6s+%6s=%7s, %6s | ", c, np, ai, as,
        at - as, at, am / 1024, (nj ? "-" : ji), (nj ? "-" : sprintf("%.3f", jt)), (nj || jm == 0 ? "-" : sprintf("%.0f", jm / 1024)),
        pi, ps, (pt == "nan" ? "nan" : pt - ps), pt, (pm == "nan" ? "nan" : pm / 1024)
      printf "AMG/PETSc time %s, setup %s; Jacobi/AMG time %s; memory AMG/Jacobi %s; op. complexity %s\n",
        (pt == "nan" ? "-" : sprintf("%.2f", at / pt)), (ps == "nan" ? "-" : sprintf("%.2f", as / ps)),
        (nj ? "-" : sprintf("%.1f", jt / at)), (nj || jm == 0 ? "-" : sprintf("%.2f", am / jm)), oc }'
  done
done
echo "(medians of $reps runs each, the three solvers interleaved in every run; MB: peak RSS summed over ranks)"
