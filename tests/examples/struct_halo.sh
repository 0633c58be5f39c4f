# struct_halo.sh EXE: a struct per node through every back-end, on mixed.msh (triangles and
# quadrangles) at 4 ranks and on the lecture's 8x8 grid (its 32 external nodes): no wrong
# record, and the copies counted at the owners equal the local nodes of all ranks.
. "$PMESH_TESTS/common/work.sh"
exe=$1
"$PARTITION" "$PMESH_MESHES/mixed.msh" 4 -o mixed --quiet
"$MESHGEN" grid 8 8 -o g8.msh
"$PARTITION" g8.msh 4 --halo edge --method "file:$PMESH_LECTURE/sq4.part" -o lec --quiet
for kind in isend sendrecv datatype persistent neighbor pack; do
  for dir in mixed lec; do
    "$MPIEXEC" -n 4 "$exe" $dir $kind > out || fail "$dir $kind: exit status $?"
    cat out
    grep -q "external records, 0 wrong" out || fail "$dir $kind: wrong records"
  done
  grep -q "^struct_halo ($kind): 32 external records" out || fail "lecture grid: not 32 externals"
  grep -q "^struct_halo: 96 copies counted at the owners, 96 local nodes" out || fail "lecture grid: copies"
done
