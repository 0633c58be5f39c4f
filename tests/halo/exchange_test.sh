# The lecture's 8x8 exchange of global ids through solve --exchange-test gives exactly
# test.lst's lines (as a set), with every back-end.
. "$PMESH_TESTS/common/work.sh"
"$MESHGEN" grid 8 8 -o g8.msh
"$PARTITION" g8.msh 4 --halo edge --method "file:$PMESH_LECTURE/sq4.part" -o lec --quiet
awk '{ print $1, $2, $3, $4 }' "$PMESH_LECTURE/test.lst" | sort > expected.txt
for ex in isend sendrecv datatype persistent neighbor pack; do
  "$MPIEXEC" -n 4 "$SOLVE" -p lec --exchange-test --exchange $ex > got.raw
  awk '{ print $1, $2, $3, $4 }' got.raw | sort > got.txt
  diff expected.txt got.txt || fail "$ex: RECVbuf lines differ from test.lst"
done
echo "exchange test matches test.lst with every back-end"
