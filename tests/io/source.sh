# pm_h5's element source (pm_h5_options_t.elements: the elements given by a callback, in items of
# PER elements, instead of the local mesh's arrays; solve's matrix-free finest level writes its
# mesh so) writes the mesh the local mesh's arrays write: every /mesh dataset, /fields/cell_rank,
# cell_group, node_rank and u, the XDMF (but for the file name) and the mesh fingerprint (hashed
# here from the source: test_h5 hides partition.meta's) are equal, on the 2D mixed mesh (one
# dataset per type and the Mixed list: the per-type path), a box of tetrahedra (one type) and
# Gmsh's 3D mixed fixture, at np 1 with items of several elements and at np 2 and 3 with items of
# one (test_h5 source: the owner of an item's first element gives it), in rounds of 7 rows.
. "$PMESH_TESTS/common/work.sh"
. "$PMESH_TESTS/io/common.sh"
"$MESHGEN" box 4 3 3 --tet -o tet.msh > /dev/null
cp "$PMESH_MESHES/mixed.msh" mixed2d.msh
cp "$PMESH_TESTS/common/meshes3d/mixed_41.msh" mixed3d.msh
# same.py W.h5 S.h5...: each source's file (and its XDMF) equals the local mesh's W.h5 (one python
# start for all of a case's files: a start with h5py costs more than the comparisons).
cat > same.py <<'PYEOF'
import h5py, numpy as np, sys, xml.etree.ElementTree as ET
def norm(f, h5):  # without the cell fields test_h5 write adds, the data file's name replaced
    t = ET.parse(f)
    for p in t.iter():
        for a in [a for a in p if a.tag == 'Attribute' and a.get('Name') in ('cx', 'tag')]: p.remove(a)
        p.text, p.tail = (p.text or '').strip(), (p.tail or '').strip()
    return ET.tostring(t.getroot()).decode().replace(h5, 'F.h5')
a = h5py.File(sys.argv[1])
errors = []
for s in sys.argv[2:]:
    b = h5py.File(s)
    names = ['mesh/' + k for k in a['mesh']] + ['fields/' + k for k in ('cell_rank', 'cell_group', 'node_rank', 'u')]
    bad = [n for n in names if n not in b or a[n].shape != b[n].shape or not np.array_equal(a[n][:], b[n][:])]
    bad += [k for k in a.attrs if k not in ('iterations', 'residual', 'problem', 'kappa') and str(a.attrs[k]) != str(b.attrs.get(k))]
    bad += [k for k in b.attrs if k not in a.attrs]
    if bad:
        errors.append('%s: the file differs from the local mesh one: %s' % (s, ' '.join(bad)))
    if norm(sys.argv[1][:-3] + '.xmf', sys.argv[1]) != norm(s[:-3] + '.xmf', s):
        errors.append('%s: the XDMF files differ' % s)
sys.exit('\n'.join(errors) if errors else 0)
PYEOF
for name in mixed2d tet mixed3d; do
  for np in 1 2 3; do
    "$PARTITION" $name.msh $np -o p_${name}_$np --quiet || fail "partition $name $np"
    run $np "$T" write p_${name}_$np w_${name}_$np > /dev/null || fail "write $name np $np"
    ne=$(h5dump -a global_elems -y w_${name}_$np.h5 | awk '/DATA \{/ { getline; print $1 }')
    [ -n "$ne" ] && [ "$ne" -gt 0 ] || fail "$name np $np: no global_elems in w_${name}_$np.h5"
    pers=1
    [ $np = 1 ] && for per in 2 3 5 8; do [ $((ne % per)) = 0 ] && pers="$pers $per"; done
    files=
    for per in $pers; do
      PMESH_H5_ROWS=7 run $np "$T" source p_${name}_$np s_${name}_${np}_$per $per > src.out 2>&1 ||
        { cat src.out; fail "source $name np $np per $per"; }
      files="$files s_${name}_${np}_$per.h5"
    done
    # shellcheck disable=SC2086
    $PY same.py w_${name}_$np.h5 $files || fail "$name np $np: a source's files differ from the local mesh's"
    echo "ok: $name np $np: the source (items of $pers) writes the local mesh's file"
  done
done
