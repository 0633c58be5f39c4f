# Every bundled mesh, every method, 1..8 parts (--halo edge too at 3 and 8): the partition
# passes --check.
. "$PMESH_TESTS/common/work.sh"
n=0
for mesh in "$PMESH_MESHES"/*.msh; do
  for np in 1 2 3 4 5 6 7 8; do
    for method in metis metis-rb rcb; do
      halos=element
      case $np in 3 | 8) halos="element edge" ;; esac
      for halo in $halos; do
        out=p.$(basename "$mesh" .msh).$np.$method.$halo
        "$PARTITION" "$mesh" $np --method $method --halo $halo -o "$out" --quiet
        "$PARTITION" --check "$out" > /dev/null || fail "$out"
        rm -rf "$out"
        n=$((n + 1))
      done
    done
  done
done
[ $n -ge 60 ] || fail "only $n partitions checked: are the bundled meshes missing?"
echo "$n partitions checked"
