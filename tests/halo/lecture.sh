#!/bin/sh
# The lecture's 8x8 5-point example on 4 ranks: for every back-end, the RECVbuf lines of
# (1) pm_halo_selftest on partition's tables and (2) one update on the lecture's own tables
# (sqm.R, values sq.R) are, as a set, exactly the lecture's test.lst.
. "$PMESH_TESTS/halo/common.sh"
"$MESHGEN" grid 8 8 -o g.msh
"$PARTITION" g.msh 4 --halo edge --method "file:$PMESH_LECTURE/sq4.part" -o lec --quiet
norm() { awk 'NF { print $1, $2, $3, $4 }' "$1" | sort; }
norm "$PMESH_LECTURE/test.lst" > ref.txt
[ "$(wc -l < ref.txt)" -eq 32 ] || fail "test.lst should have 32 lines"
for kind in isend sendrecv datatype persistent neighbor pack; do
  timeout -k 5 60 "$MPIEXEC" -n 4 "$TEST_HALO" --selftest $kind lec > self.$kind.txt
  norm self.$kind.txt > self.$kind.sorted
  diff ref.txt self.$kind.sorted || fail "$kind: selftest lines differ from test.lst"
  timeout -k 5 60 "$MPIEXEC" -n 4 "$TEST_HALO" --lecture $kind "$PMESH_LECTURE" > lec.$kind.txt
  norm lec.$kind.txt > lec.$kind.sorted
  diff ref.txt lec.$kind.sorted || fail "$kind: lecture-table lines differ from test.lst"
  echo "ok $kind"
done
# Rank order, then import order: the selftest's lines are printed deterministically.
cmp self.isend.txt self.neighbor.txt || fail "selftest output order depends on the back-end"
awk '{ print $2 }' self.isend.txt | sort -c -n || fail "selftest lines are not in rank order"
