# Every bundled mesh, every method, 1..8 parts (--halo edge too at 3 and 8): the partition
# passes --check.  One `partition --check` per mesh validates its 30 partitions (a process start
# costs more than a check of these meshes, the more so in the sanitizer build); it must say "ok"
# for each.
. "$PMESH_TESTS/common/work.sh"
n=0
for mesh in "$PMESH_MESHES"/*.msh; do
  dirs=
  for np in 1 2 3 4 5 6 7 8; do
    for method in metis metis-rb rcb; do
      halos=element
      case $np in 3 | 8) halos="element edge" ;; esac
      for halo in $halos; do
        out=p.$(basename "$mesh" .msh).$np.$method.$halo
        "$PARTITION" "$mesh" $np --method $method --halo $halo -o "$out" --quiet
        dirs="$dirs $out"
        n=$((n + 1))
      done
    done
  done
  # shellcheck disable=SC2086
  "$PARTITION" --check $dirs > check.out || { cat check.out; fail "partition --check of $(basename "$mesh")'s partitions"; }
  for d in $dirs; do
    grep -q "^$d: ok: " check.out || { cat check.out; fail "$d: not checked"; }
  done
  # shellcheck disable=SC2086
  rm -rf $dirs
done
[ $n -ge 60 ] || fail "only $n partitions checked: are the bundled meshes missing?"
echo "$n partitions checked"
