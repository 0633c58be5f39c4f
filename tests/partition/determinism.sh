# The same input and options give byte-identical files; a re-run replaces the directory.
. "$PMESH_TESTS/common/work.sh"
mesh="$PMESH_MESHES/square.msh"
for method in metis metis-rb rcb; do
  "$PARTITION" "$mesh" 5 --method $method --seed 7 -o a --quiet
  "$PARTITION" "$mesh" 5 --method $method --seed 7 -o b --quiet
  diff -r a b || fail "two runs of $method differ"
  rm -rf a b
done
# Writing over an earlier partition with fewer parts leaves no stale local files.
"$PARTITION" "$mesh" 6 -o c --quiet
"$PARTITION" "$mesh" 3 -o c --quiet
[ ! -e c/local.3 ] || fail "stale c/local.3 after re-partitioning into 3"
"$PARTITION" --check c
# A directory holding foreign files is never replaced.
mkdir -p mine && echo precious > mine/notes.txt
sh "$EXPECT_FAIL" "notes.txt" 30 "$PARTITION" "$mesh" 2 -o mine --quiet ||
  fail "partition did not refuse, naming the foreign file, to replace a foreign directory"
[ "$(cat mine/notes.txt)" = precious ] || fail "foreign file damaged"
# --summary writes JSON with the report's figures.
"$PARTITION" "$mesh" 4 -o d --summary s.json --quiet
grep -q '"nparts": 4' s.json && grep -q '"edge_cut"' s.json && grep -q '"stages"' s.json || fail "summary"
