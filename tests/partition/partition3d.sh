# The 3D fixtures (tests/common/meshes3d: tetrahedra, hexahedra, prisms, a mixed mesh) partitioned
# with metis, rcb and metis with --order hilbert at np 1, 2, 3, 4, 8 (a part file at 3, metis-rb
# at 4, --halo edge at 8) pass partition --check; the report's total of internal nodes is the
# mesh's node count and every rank has elements.
. "$PMESH_TESTS/common/work.sh"
dir="$PMESH_TESTS/common/meshes3d"
n=0
for mesh in tet_hole_41 hex_l_41 prism_disk_41 mixed_41; do
  for np in 1 2 3 4 8; do
    hows="metis rcb hilbert"
    case $np in 3) hows="$hows file" ;; 4) hows="$hows metis-rb" ;; esac
    for how in $hows; do
      case $how in
        hilbert) opts="--method metis --order hilbert" ;;
        file)
          # nodes dealt out in turn to the parts: every part borders every other
          nn=$(awk '/^\$Nodes/ { getline; print $2; exit }' "$dir/$mesh.msh")
          awk -v n="$nn" -v p=$np 'BEGIN { for (i = 0; i < n; i++) print i % p }' > parts.txt
          opts="--method file:parts.txt" ;;
        *) opts="--method $how --order none" ;;
      esac
      halos=element
      case $np in 8) halos="element edge" ;; esac
      for halo in $halos; do
        out=p.$mesh.$np.$how.$halo
        "$PARTITION" "$dir/$mesh.msh" $np $opts --halo $halo -o "$out" > report || fail "$out: partition failed"
        "$PARTITION" --check "$out" > /dev/null || fail "$out: --check"
        nodes=$(sed -n 's/^mesh: 3D, \([0-9]*\) nodes.*/\1/p' report)
        awk -v n="$nodes" -v p=$np '$1 ~ /^[0-9]+$/ && NF == 8 { s += $2; r++; if ($5 == 0) z++ }
          END { exit !(s == n && r == p && z == 0) }' report || fail "$out: internal nodes or elements: $(cat report)"
        rm -rf "$out"
        n=$((n + 1))
      done
    done
  done
done
[ $n -ge 70 ] || fail "only $n partitions checked"
echo "$n partitions checked"
