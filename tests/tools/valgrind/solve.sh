# solve at np = 2 under valgrind (memcheck; definite leaks are errors): every rank is run as
# `valgrind ... solve`, so mpiexec fails if any rank reports an error.  Arguments: the valgrind
# command line (valgrind and its options).
. "$PMESH_TESTS/common/work.sh"
"$PARTITION" "$PMESH_MESHES/square.msh" 2 -o sq2 --quiet
"$MPIEXEC" -n 2 "$@" "$SOLVE" -p sq2 --no-output || fail "valgrind reported errors (or solve failed)"
# A failing run must end cleanly too: one broken local file, both ranks checked.
cp -r sq2 broken
sed '/^#COORD/,$d' sq2/local.1 > broken/local.1
rc=0
"$MPIEXEC" -n 2 "$@" --error-exitcode=99 "$SOLVE" -p broken --no-output > out.txt 2> err.txt || rc=$?
[ "$rc" -eq 1 ] || { cat out.txt err.txt; fail "exit $rc on a broken partition, expected 1 (0: passed, 99: valgrind errors, others: a crash)"; }
grep -q "==.*ERROR SUMMARY: [1-9]\|definitely lost" err.txt && { cat err.txt; fail "valgrind errors on the failure path"; }
grep -q "\[rank 1\] broken/local.1" err.txt || { cat err.txt; fail "no message naming rank 1 and its file"; }
echo "ok: solve at np=2 under valgrind, with a good and a broken partition"
