# partition --check catches hand-broken partitions and names the file, section and entry.
. "$PMESH_TESTS/common/work.sh"
"$MESHGEN" grid 8 8 -o g.msh
"$PARTITION" g.msh 4 --halo edge --method "file:$PMESH_LECTURE/sq4.part" -o good --quiet
"$PARTITION" --check good
broken() { # name, fragment: --check of name/ (good/ edited by the caller) must fail cleanly
  sh "$EXPECT_FAIL" "$2" 30 "$PARTITION" --check "$1" || fail "$1: --check did not fail cleanly with '$2'"
}
# 1. asymmetric export: rank 0's first export item changed (4 -> 3)
cp -r good asym
awk 'BEGIN{s=0} /^#EXPORTitems/{s=1; print; next} s==1{print ($1==4?3:$1); s=2; next} {print}' good/local.0 > asym/local.0
broken asym "#EXPORTitems entry 1"
# 2. duplicate owner: rank 1's first internal node given rank 0's first global id (1)
cp -r good dup
awk 'BEGIN{s=0} /^#GLOBALID/{s=1; print; next} s==1{print; s=2; next} s==2{print "1 0"; s=3; next} {print}' good/local.1 > dup/local.1
broken dup "internal on two ranks"
# 3. bad index: an import item out of range
cp -r good badidx
awk 'BEGIN{s=0} /^#IMPORTitems/{s=1; print; next} s==1{print 99; s=2; next} {print}' good/local.2 > badidx/local.2
broken badidx "#IMPORTitems"
# 4. decreasing index
cp -r good decr
awk 'BEGIN{s=0} /^#EXPORTindex/{s=1; print; next} s==1{print "4 2"; s=2; next} {print}' good/local.3 > decr/local.3
broken decr "must not decrease"
# 5. a neighbour that is not mutual: rank 3 lists rank 0 instead of rank 1
cp -r good nomut
awk 'BEGIN{s=0} /^#NEIBPE$/{s=1; print; next} s==1{print "0 2"; s=2; next} {print}' good/local.3 > nomut/local.3
broken nomut "does not list rank"
# 6. a file from another partition (different part assignment)
"$PARTITION" g.msh 4 --halo edge -o other --quiet
cp -r good mix
cp other/local.2 mix/local.2
broken mix "another partition"
# 7. a missing file
cp -r good miss
rm miss/local.1
broken miss "local.1"
# 9. a coordinate edited after partitioning: the stored mesh fingerprint no longer matches
cp -r good movedx
awk 'BEGIN{s=0} /^#COORD/{s=1; print; next} s==1{print; s=2; next} s==2{$1 = $1 + 0.5; print; s=3; next} {print}' good/local.0 > movedx/local.0
broken movedx "mesh_fingerprint"
# 8. an extra file beyond nparts
cp -r good extra
cp good/local.0 extra/local.4
broken extra "local.4 exists"
