# One broken local file among four: solve at np = 4 must end every rank within 10 s with a
# non-zero exit and a message naming the rank and the file (expect_fail.sh: no crash, no hang,
# no exit 0).  local.2 of a 4-part grid is corrupted in a different way for each case.
. "$PMESH_TESTS/common/work.sh"
"$MESHGEN" grid 6 5 -o g.msh
"$PARTITION" g.msh 4 -o good --quiet
n=0
# edit NAME HEADER K LINE: copy good/ to NAME/ with line K after HEADER of local.2 replaced
edit() {
  rm -rf "$1" && cp -r good "$1"
  awk -v h="$2" -v k="$3" -v l="$4" '$0 == h {s = NR} s && NR == s + k {print l; next} {print}' \
    good/local.2 > "$1/local.2"
  [ -f "$1/local.2" ] && ! cmp -s good/local.2 "$1/local.2" || fail "$1: the edit changed nothing"
  return 0
}
expect() { # name, fragment after "[rank 2] name/local.2"
  sh "$EXPECT_FAIL" "[rank 2] $1/local.2$2" 10 "$MPIEXEC" -n 4 "$SOLVE" -p "$1" --no-output ||
    fail "case $1"
  n=$((n + 1))
}
timeout -k 5 30 "$MPIEXEC" -n 4 "$SOLVE" -p good --no-output >/dev/null || fail "solve failed on the good partition"
last_import=$(awk '/^#IMPORTitems/{s=1; next} /^#/{s=0} s{v=$1} END{print v}' good/local.2)
np=$(awk 'p{print $1; exit} /^#NODE/{p=1}' good/local.2)

edit neibtot "#NEIBPEtot" 1 99
expect neibtot ":"
edit neibself "#NEIBPE" 1 "2"
expect neibself ":4: #NEIBPE lists the file's own rank 2"
edit imprange "#IMPORTitems" 1 $((np + 1))
expect imprange ":"
edit imptwice "#IMPORTitems" 2 "$(awk '/^#IMPORTitems/{getline; print; exit}' good/local.2)"
expect imptwice ":"
edit nan "#COORD" 2 "nan 0 0"
expect nan ":"
edit elemnode "#ELEMENT" 2 "$(awk -v v=$((np + 99)) '/^#ELEMENT/{getline; getline; $6 = v; print; exit}' good/local.2)"
expect elemnode ":"
edit owner "#ELEMENT" 2 "$(awk '/^#ELEMENT/{getline; getline; $4 = 4; print; exit}' good/local.2)"
expect owner ": #ELEMENT"
edit fprint "#PARTITION" 1 "zz $(awk '/^#PARTITION/{getline; print $2, $3; exit}' good/local.2)"
expect fprint ":"
rm -rf wrongrank && cp -r good wrongrank && cp good/local.1 wrongrank/local.2
expect wrongrank ""
rm -rf junk && cp -r good junk && echo junk >> junk/local.2
expect junk ":"
rm -rf tables && cp -r good tables && sed '/^#AUXNODE/,$d' good/local.2 > tables/local.2
expect tables ""
rm -rf cutgroup && cp -r good cutgroup && sed '/^#PARTITION/,$d' good/local.2 | head -n -3 > cutgroup/local.2
expect cutgroup ":"
rm -rf empty && cp -r good empty && : > empty/local.2
expect empty ": the file is empty"
rm -rf isdir && cp -r good isdir && rm isdir/local.2 && mkdir isdir/local.2
expect isdir ": is a directory"
# Readable, but inconsistent with the neighbour: one more node exported to the first neighbour
# than it imports.  The halo set-up compares the counts (its message names the ranks only).
rm -rf extra && cp -r good extra
awk '/^#EXPORTindex/ {print; getline; for (i = 1; i <= NF; i++) $i += 1; print; next}
     /^#EXPORTitems/ {print; print 1; next} {print}' good/local.2 > extra/local.2
sh "$EXPECT_FAIL" "rank 2 exports" 10 "$MPIEXEC" -n 4 "$SOLVE" -p extra --no-output || fail "case extra"
n=$((n + 1))
echo "$n corrupted local.2 files: every rank ended cleanly at np=4"
