# solve --fine-operator matrix-free -o: the finest level has no elements; its result's mesh is
# written from the level below's elements and refinement points (src/run/pm_run_fine.c through
# pm_h5's element source) without making them.  The file must be the one the assembled route
# writes from real fine elements (pm_refine_local):
#  (a) a meshgen box of tetrahedra whose volume is split into two physical groups, K = 1 and 2,
#      np 1 to 4: every /mesh dataset, /fields/cell_rank, cell_group and node_rank, and the
#      attributes global_elems, n_tetrahedra, mesh_fingerprint equal the assembled run's (cell_rank:
#      each fine element's owner, which is often not the rank that writes its row; cell_group: both
#      groups present), and the XDMF files are the same but for the file name;
#  (b) --reproducible: the matrix-free result is the same file, byte for byte, at np 1 to 4 (with
#      jacobi: multigrid is not reproducible across rank counts, docs/solve.md);
#  (c) ParaView (pvpython, where installed) opens the XDMF: 17 x 13 x 13 points, 64 times the
#      box's 216 tetrahedra, all tetrahedra;
#  (d) the same as (a) and (b) on Gmsh's mixed mesh (tetrahedra, prisms and hexahedra in three
#      volume groups; the hexahedra and prisms by their kept weights, pm_fine_cells.h) at np 1 to
#      3, and ParaView reads its three cell types.
. "$PMESH_TESTS/common/work.sh"
PY=python3
$PY -c 'import h5py, numpy' 2>/dev/null || PY=/usr/bin/python3
"$MESHGEN" box 5 4 4 1 1 1 --tet -o one.msh > /dev/null || fail meshgen
# The box's volume (entity 1, physical 8 "domain") in two: its first 101 tetrahedra go to a new
# volume entity 2 in physical group 9 "left".
$PY - one.msh box.msh <<'PYEOF' || fail "splitting the box's volume"
import sys
lines = open(sys.argv[1]).read().split('\n')
out, i = [], 0
while i < len(lines):
    l = lines[i]
    if l == '$PhysicalNames':
        n = int(lines[i + 1]); out += [l, str(n + 1)] + lines[i + 2:i + 2 + n] + ['3 9 "left"']; i += 2 + n; continue
    if l == '$Entities':
        c = lines[i + 1].split(); vol = lines[i + 2 + int(c[2])]
        c[3] = '2'; v2 = vol.split(); v2[0] = '2'; v2[8] = '9'
        out += [l, ' '.join(c)] + lines[i + 2:i + 3 + int(c[2])] + [' '.join(v2)]; i += 3 + int(c[2]); continue
    if l == '$Elements':
        h = lines[i + 1].split(); nb = int(h[0]); out += [l, ' '.join([str(nb + 1)] + h[1:])]; i += 2
        for b in range(nb):
            bh = lines[i].split(); n = int(bh[3]); body = lines[i + 1:i + 1 + n]
            if bh[0] == '3':
                out += ['3 1 4 %d' % (n - 101)] + body[101:] + ['3 2 4 101'] + body[:101]
            else:
                out += [lines[i]] + body
            i += 1 + n
        continue
    out.append(l); i += 1
open(sys.argv[2], 'w').write('\n'.join(out))
PYEOF
P="--dirichlet boundary=x --source 1 --precond mg --rtol 1e-4"
# same A.h5 M.h5 what: the mesh and the partition's fields of the two files are equal.
same() {
  $PY - "$1" "$2" "$3" <<'PYEOF' || fail "$3: the matrix-free result's mesh differs from the assembled one's"
import h5py, numpy as np, sys
a, b, what = h5py.File(sys.argv[1]), h5py.File(sys.argv[2]), sys.argv[3]
bad = [n for n in ['mesh/' + k for k in a['mesh']] + ['fields/cell_rank', 'fields/cell_group', 'fields/node_rank']
       if n not in b or a[n].shape != b[n].shape or not np.array_equal(a[n][:], b[n][:])]
bad += [k for k in ('global_elems', 'n_tetrahedra', 'mesh_fingerprint', 'cell_group_names') if a.attrs[k] != b.attrs[k]]
g, r = set(a['fields/cell_group'][:].tolist()), set(a['fields/cell_rank'][:].tolist())
print('%s: %d fine tetrahedra, groups %s, owner ranks %s%s' % (what, b['mesh/tetrahedra'].shape[0], sorted(g), sorted(r),
      ', differ: ' + ' '.join(bad) if bad else ''))
sys.exit(1 if bad or len(g) != 2 or -1 in g else 0)
PYEOF
}
for np in 1 2 3 4; do
  "$PARTITION" box.msh $np -o p$np --quiet || fail "partition np $np"
  for K in 1 2; do
    for fo in assembled matrix-free; do
      "$MPIEXEC" -n $np "$SOLVE" -p p$np --refine $K --fine-operator $fo $P -o ${fo}_$np.h5 > $fo.out 2>&1 ||
        { cat $fo.out; fail "solve np $np K $K $fo"; }
    done
    same assembled_$np.h5 matrix-free_$np.h5 "(a) np $np K $K"
    sed "s/assembled_$np\.h5/F.h5/" assembled_$np.xmf > a.xmf
    sed "s/matrix-free_$np\.h5/F.h5/" matrix-free_$np.xmf > b.xmf
    cmp a.xmf b.xmf || fail "(a) np $np K $K: the XDMF files differ (but for the file name)"
  done
  "$MPIEXEC" -n $np "$SOLVE" -p p$np --refine 2 --fine-operator matrix-free $P --precond jacobi --reproducible -o rep_$np.h5 \
    > rep.out 2>&1 || { cat rep.out; fail "solve --reproducible np $np"; }
  cmp rep_$np.h5 rep_1.h5 || fail "(b) the reproducible matrix-free result at np $np differs from np 1"
done
echo "ok: (b) --reproducible matrix-free results the same bytes at np 1 to 4"
# (d)
for np in 1 2 3; do
  "$PARTITION" "$PMESH_TESTS/common/meshes3d/mixed_41.msh" $np -o m$np --quiet || fail "partition mixed np $np"
  for K in 1 2; do
    for fo in assembled matrix-free; do
      "$MPIEXEC" -n $np "$SOLVE" -p m$np --refine $K --fine-operator $fo $P -o mixed_${fo}_$np.h5 > $fo.out 2>&1 ||
        { cat $fo.out; fail "solve mixed np $np K $K $fo"; }
    done
    $PY - mixed_assembled_$np.h5 mixed_matrix-free_$np.h5 "(d) mixed np $np K $K" <<'PYEOF' || fail "(d) mixed np $np K $K"
import h5py, numpy as np, sys
a, b, what = h5py.File(sys.argv[1]), h5py.File(sys.argv[2]), sys.argv[3]
names = ['mesh/' + k for k in a['mesh']] + ['fields/cell_rank', 'fields/cell_group', 'fields/node_rank']
bad = [n for n in names if n not in b or not np.array_equal(a[n][:], b[n][:])]
bad += [k for k in ('global_elems', 'n_tetrahedra', 'n_prisms', 'n_hexahedra', 'mesh_fingerprint') if a.attrs[k] != b.attrs[k]]
du = np.abs(a['fields/u'][:] - b['fields/u'][:]).max() / np.abs(a['fields/u'][:]).max()
types = [k for k in ('tetrahedra', 'prisms', 'hexahedra') if 'mesh/' + k in b]
print('%s: %s, groups %s, u differs by %.1e%s' % (what, ' '.join('%d %s' % (b['mesh/' + k].shape[0], k) for k in types),
      sorted(set(b['fields/cell_group'][:].tolist())), du, ', differ: ' + ' '.join(bad) if bad else ''))
sys.exit(1 if bad or len(types) != 3 or du > 1e-3 else 0)
PYEOF
  done
  "$MPIEXEC" -n $np "$SOLVE" -p m$np --refine 2 --fine-operator matrix-free $P --precond jacobi --reproducible \
    -o mrep_$np.h5 > rep.out 2>&1 || { cat rep.out; fail "solve mixed --reproducible np $np"; }
  cmp mrep_$np.h5 mrep_1.h5 || fail "(d) the reproducible matrix-free mixed result at np $np differs from np 1"
done
echo "ok: (d) --reproducible matrix-free mixed results the same bytes at np 1 to 3"
if command -v pvpython > /dev/null 2>&1; then
  cat > pv.py <<'PYEOF'
import sys
from paraview.simple import XDMFReader, servermanager
r = XDMFReader(FileNames=[sys.argv[1]])
r.UpdatePipeline()
d = servermanager.Fetch(r)
n, t = d.GetNumberOfCells(), set(d.GetCellType(k) for k in range(d.GetNumberOfCells()))
print('(c) ParaView: %d points, %d cells of VTK types %s' % (d.GetNumberOfPoints(), n, sorted(t)))
sys.exit(0 if d.GetNumberOfPoints() == 17 * 13 * 13 and n == 6 * 4 * 3 * 3 * 64 and t == {10} else 1)
PYEOF
  pvpython pv.py matrix-free_4.xmf > pv.out 2>&1 || { cat pv.out; fail "(c) ParaView does not read the matrix-free result"; }
  grep '(c)' pv.out
  cat > pvm.py <<'PYEOF'
import sys, h5py
from paraview.simple import XDMFReader, servermanager
r = XDMFReader(FileNames=[sys.argv[1]])
r.UpdatePipeline()
d = servermanager.Fetch(r)
f = h5py.File(sys.argv[2], 'r')
n, t = d.GetNumberOfCells(), set(d.GetCellType(k) for k in range(d.GetNumberOfCells()))
print('(d) ParaView: %d points, %d cells of VTK types %s' % (d.GetNumberOfPoints(), n, sorted(t)))
sys.exit(0 if d.GetNumberOfPoints() == f.attrs['global_nodes'] and n == f.attrs['global_elems'] and t == {10, 12, 13} else 1)
PYEOF
  pvpython pvm.py mixed_matrix-free_3.xmf mixed_matrix-free_3.h5 > pvm.out 2>&1 ||
    { cat pvm.out; fail "(d) ParaView does not read the matrix-free mixed result"; }
  grep '(d)' pvm.out
else
  echo "(c) skipped: no pvpython"
fi
