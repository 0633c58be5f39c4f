#!/bin/sh
# bad.sh CASE: a partition that does not fit the job must fail on every rank with a clear
# message, within seconds (expect_fail.sh's 20 s limit), never hang.
. "$PMESH_TESTS/halo/common.sh"
"$MESHGEN" grid 8 8 -o g.msh
"$PARTITION" g.msh 4 --halo edge --method "file:$PMESH_LECTURE/sq4.part" -o good --quiet
np=4
case "$1" in
  ranks)     # 4 parts on 3 ranks
    dir=good; np=3; frag="the partition has 4 parts but the job has 3 ranks: run with mpiexec -n 4" ;;
  ranks5)    # 4 parts on 5 ranks: rank 4 has no file (agreed before the halo is built)
    dir=good; np=5; frag="local.4" ;;
  nonmutual) # rank 3 lists rank 0 instead of rank 1 (same as partition's check_catches case 5)
    cp -r good bad
    awk 'BEGIN{s=0} /^#NEIBPE$/{s=1; print; next} s==1{print "0 2"; s=2; next} {print}' good/local.3 > bad/local.3
    dir=bad; frag="rank 3 lists rank 0 as a neighbour, but rank 0 does not list rank 3" ;;
  counts)    # rank 0 claims to export 3 nodes to rank 1 (and 5 to rank 2)
    cp -r good bad
    awk 'BEGIN{s=0} /^#EXPORTindex$/{s=1; print; next} s==1{print "3 8"; s=2; next} {print}' good/local.0 > bad/local.0
    dir=bad; frag="rank 1 imports 4 nodes from rank 0, but rank 0 exports 3 nodes to rank 1" ;;
  *) fail "unknown case $1" ;;
esac
sh "$EXPECT_FAIL" "$frag" 20 "$MPIEXEC" -n $np "$TEST_HALO" $dir
