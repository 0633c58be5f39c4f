#!/bin/sh
# yield.sh: pm_comm_yields decides as documented, and the waits are right either way.
#  - PMESH_YIELD=1 / 0 force it, whatever the CPUs;
#  - otherwise it yields where the job's ranks on the node (MPI_LOCALNRANKS, from mpiexec)
#    outnumber the CPUs of the process (taskset -c 0: one CPU);
#  - a value other than 0 or 1 is reported and the automatic choice used.
. "$PMESH_TESTS/common/work.sh"
T="$PMESH_TESTBIN/test_comm"
expect() { # expected-yields description command...
  want=$1; what=$2; shift 2
  "$@" > out.txt 2> err.txt || { cat err.txt >&2; fail "$what: test_comm failed"; }
  got=$(sed -n 's/^yields //p' out.txt)
  [ "$got" = "$want" ] || fail "$what: yields '$got', expected $want"
  echo "ok: $what: yields $got"
}
expect 0 "1 rank, 1 CPU" taskset -c 0 "$MPIEXEC" -n 1 "$T"
expect 1 "2 ranks, 1 CPU" taskset -c 0 "$MPIEXEC" -n 2 "$T"
expect 1 "3 ranks, 1 CPU" taskset -c 0 "$MPIEXEC" -n 3 "$T"
expect 0 "2 ranks, 1 CPU, PMESH_YIELD=0" env PMESH_YIELD=0 taskset -c 0 "$MPIEXEC" -n 2 "$T"
expect 1 "1 rank, PMESH_YIELD=1" env PMESH_YIELD=1 "$MPIEXEC" -n 1 "$T"
expect 1 "4 ranks, PMESH_YIELD=1" env PMESH_YIELD=1 "$MPIEXEC" -n 4 "$T"
expect 1 "2 ranks, 1 CPU, PMESH_YIELD=maybe" env PMESH_YIELD=maybe taskset -c 0 "$MPIEXEC" -n 2 "$T"
grep -q "PMESH_YIELD='maybe' is not 0 or 1" err.txt || fail "PMESH_YIELD=maybe: no warning"
[ "$(grep -c "PMESH_YIELD='maybe'" err.txt)" = 2 ] || fail "PMESH_YIELD=maybe: not one warning per rank"
