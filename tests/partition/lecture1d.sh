# The lecture's 1D bar (NE = 15, 16 nodes) on 4 ranks by RCB gives the lecture's tables.
. "$PMESH_TESTS/common/work.sh"
"$MESHGEN" line 15 1.0 -o bar15.msh
for np in 2 3 4 5 8; do
  "$PARTITION" bar15.msh $np --method rcb -o bar.$np
  "$PMESH_TESTBIN/lecture_check" 1d bar.$np $np
  "$PARTITION" --check bar.$np
done
# rank 0 owns the left end: nodes 1..4 on 4 ranks
grep -A5 -x '#GLOBALID' bar.4/local.0 | sed -n 3,6p | awk '{ print $1 }' | tr '\n' ' ' | grep -qx '1 2 3 4 ' || fail "rank 0 does not own nodes 1..4"
grep -A5 -x '#GLOBALID' bar.4/local.3 | sed -n 3,6p | awk '{ print $1 }' | tr '\n' ' ' | grep -qx '13 14 15 16 ' || fail "rank 3 does not own nodes 13..16"
