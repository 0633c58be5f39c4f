# The lecture's 8x8 5-point example on 4 ranks reproduces sqm.R / sq.R / test.lst.
. "$PMESH_TESTS/common/work.sh"
"$MESHGEN" grid 8 8 -o grid8.msh
"$PARTITION" grid8.msh 4 --halo edge --method "file:$PMESH_LECTURE/sq4.part" -o lec2d
"$PMESH_TESTBIN/lecture_check" 2d lec2d "$PMESH_LECTURE"
"$PARTITION" --check lec2d
# The tables section of every file is spelled exactly as the lecture's reader reads it.
for r in 0 1 2 3; do
  head -n 1 lec2d/local.$r | grep -qx '#NEIBPEtot' || fail "local.$r does not start with #NEIBPEtot"
  for s in '#NEIBPE' '#NODE' '#IMPORTindex' '#IMPORTitems' '#EXPORTindex' '#EXPORTitems'; do
    grep -qx -- "$s" lec2d/local.$r || fail "local.$r lacks $s"
  done
  grep -A1 -x '#NODE' lec2d/local.$r | tail -n 1 | grep -qx '24 16' || fail "local.$r: #NODE is not '24 16'"
done
