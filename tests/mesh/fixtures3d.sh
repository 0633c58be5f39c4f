# Every 3D fixture (tests/common/meshes3d) in every encoding gives the counts of an independent
# reader (meshes3d/COUNTS, from msh_count.py): nodes, cells of each type (read back from the
# local file), physical-surface faces, groups, the derived boundary, the ignored lines and points.
. "$PMESH_TESTS/common/work.sh"
dir="$PMESH_TESTS/common/meshes3d"
n=0
while read -r file nodes cells tets hexes prisms faces groups boundary lines points pyramids; do
  case $file in '#'*) continue ;; esac
  "$PARTITION" "$dir/$file" 1 -o p > report || fail "$file: partition failed"
  grep -q "^mesh: 3D, $nodes nodes, $cells elements, $((groups + 1)) groups" report ||
    fail "$file: expected 3D, $nodes nodes, $cells elements, $((groups + 1)) groups: $(sed -n 2p report)"
  got=$(awk '$1 == "group" && $2 != "boundary" && $3 == "2D," { s += $4 } END { print s + 0 }' report)
  [ "$got" = "$faces" ] || fail "$file: $got physical-surface faces, expected $faces"
  grep -q "^  group boundary  *2D, $boundary faces" report || fail "$file: boundary faces: $(grep 'group boundary' report)"
  if [ $((lines + points)) -gt 0 ]; then
    grep -q "^ignored: $lines lines, $points points" report || fail "$file: expected ignored: $lines lines, $points points"
  else
    ! grep -q "^ignored:" report || fail "$file: nothing to ignore, but: $(grep '^ignored' report)"
  fi
  # Cell types as the local file lists them: the #ELEMENT lines' first number is the Gmsh type.
  got=$(awk '/^#/ { s = ($0 == "#ELEMENT") ; c = 0; next } s && ++c > 1 { t[$1]++ }
             END { printf "%d %d %d %d", t[4], t[5], t[6], t[7] }' p/local.0)
  [ "$got" = "$tets $hexes $prisms $pyramids" ] ||
    fail "$file: tets hexes prisms pyramids $got, expected $tets $hexes $prisms $pyramids"
  "$PARTITION" --check p > /dev/null || fail "$file: --check"
  rm -rf p
  n=$((n + 1))
done < "$dir/COUNTS"
[ $n -ge 12 ] || fail "only $n fixtures checked"
echo "$n fixtures checked"

# A negative physical tag in MSH 4.1 $Entities (Gmsh writes -80 for a surface in group 80 with its
# orientation reversed) is group 80: the hexahedral plate with its first surface's tag negated
# has the same groups as the file itself.
awk '/^\$Entities/ { e = 1; print; next } e == 1 { n0 = $1 + $2; e = 2; print; next }
     e == 2 && ++k == n0 + 1 && $8 >= 1 { $9 = -$9 } /^\$EndEntities/ { e = 0 } { print }' \
  "$dir/hex_l_41.msh" > negated.msh
cmp -s negated.msh "$dir/hex_l_41.msh" && fail "negated.msh: no tag was negated"
"$PARTITION" "$dir/hex_l_41.msh" 1 -o p > want || fail "hex_l_41.msh"
"$PARTITION" negated.msh 1 -o q > got || fail "negated.msh: partition failed"
[ "$(grep '^  group' got)" = "$(grep '^  group' want)" ] ||
  fail "a negative physical tag: groups $(grep '^  group' got | tr -s ' ')"
echo "a negative physical tag reads as its group"
