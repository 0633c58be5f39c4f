# Open pmesh's XDMF in ParaView headless (pvpython) and check what a user would see: point and
# cell counts, every array's name and range, u = x + 2y + 3z + 3 at every point ParaView loaded,
# the time steps of a series, the partition view, a 1D result sampled with Plot Over Line; and in
# 3D, for a box of tetrahedra, one of hexahedra, one of prisms, the mixed fixture
# meshes/hex_prism_tet.msh (a hexahedron, a prism and a tetrahedron sharing faces) and Gmsh's
# mixed mesh tests/common/meshes3d/mixed_41.msh: the VTK cell
# types ParaView made (vtkTetra 10, vtkHexahedron 12, vtkWedge 13, vtkPyramid 14; a box of
# pyramids and Gmsh's pyramid fixture too), their counts, every cell's
# volume positive by the Cell Size filter and their sum the domain's volume (a prism written in
# Gmsh's vertex order comes out inverted: negative volumes), u at ParaView's points, a 3D series
# and a 3D partition view.  The ParaView version that ran is printed.
# CI installs ParaView's Python (.ci/install-deps.sh: python3-paraview); the test is skipped (77)
# where pvpython is missing.  To run it:
#   apt-get install -y --no-install-recommends python3-paraview
#   ctest -R h5_paraview --output-on-failure
command -v pvpython >/dev/null 2>&1 || { echo "skip: pvpython not found"; exit 77; }
set -e
. "$PMESH_TESTS/io/common.sh"
W=h5_pv
rm -rf $W && mkdir $W && cd $W
"$PARTITION" "$PMESH_MESHES/mixed.msh" 2 -o p --quiet --view v.h5
run 2 "$T" write p r > /dev/null
run 2 "$T" series p s
"$PARTITION" "$PMESH_MESHES/bar.msh" 3 --method rcb -o pb --quiet
run 3 "$T" write pb bar > /dev/null
# 3D: boxes of each cell type (3 x 2 x 2 cells), the mixed fixture; a series and a view in 3D.
for k in hex tet prism pyramid; do
  o=; [ $k = hex ] || o=--$k
  "$MESHGEN" box 4 3 3 $o -o box_$k.msh > /dev/null
  "$PARTITION" box_$k.msh 2 -o p3_$k --quiet --view v3_$k.h5
  run 2 "$T" write p3_$k r3_$k > /dev/null
done
run 2 "$T" series p3_prism s3_prism
"$PARTITION" "$PMESH_TESTS/io/meshes/hex_prism_tet.msh" 2 -o p3_mixed --quiet --view v3_mixed.h5
run 2 "$T" write p3_mixed r3_mixed > /dev/null
"$PARTITION" "$PMESH_TESTS/common/meshes3d/mixed_41.msh" 2 -o p3_gmsh --quiet
run 2 "$T" write p3_gmsh r3_gmsh > /dev/null
"$PARTITION" "$PMESH_TESTS/common/meshes3d/pyramid_41b.msh" 2 -o p3_pyr --quiet
run 2 "$T" write p3_pyr r3_pyr > /dev/null
# The control: the prisms back in Gmsh's vertex order (VTK's 0, 2, 1, 3, 5, 4 is an involution),
# which ParaView must show inverted -- so the volume check can fail, and the permutation matters.
cp r3_prism.h5 gmsh_order.h5
sed 's/r3_prism\.h5/gmsh_order.h5/' r3_prism.xmf > gmsh_order.xmf
$PY -c "
import h5py
with h5py.File('gmsh_order.h5', 'r+') as f:
    p = f['mesh/prisms'][:]
    f['mesh/prisms'][:] = p[:, [0, 2, 1, 3, 5, 4]]"
cat > open.py <<'PY'
import sys
import paraview
from paraview.simple import XDMFReader, UpdatePipeline, PlotOverLine, CellSize, servermanager

print("ran with", servermanager.vtkSMProxyManager.GetParaViewSourceVersion())

def fail(msg):
    sys.exit("FAIL: " + msg)

def load(f, t=0.0):
    r = XDMFReader(FileNames=[f])
    UpdatePipeline(time=t, proxy=r)
    d = servermanager.Fetch(r)
    if d.IsA("vtkMultiBlockDataSet"):
        d = d.GetBlock(0)
    return r, d

def arrays(attrs):
    return {attrs.GetArrayName(i): attrs.GetArray(i) for i in range(attrs.GetNumberOfArrays())}

def check_range(f, kind, a, name, lo, hi):
    if name not in a:
        fail("%s: no %s array %s (have %s)" % (f, kind, name, sorted(a)))
    got = a[name].GetRange()
    if abs(got[0] - lo) > 1e-12 or abs(got[1] - hi) > 1e-12:
        fail("%s: %s array %s has range %s, expected [%g, %g]" % (f, kind, name, got, lo, hi))

def check_u(f, d, factor):
    u = arrays(d.GetPointData())["u"]
    worst = 0.0
    for i in range(d.GetNumberOfPoints()):
        x, y, z = d.GetPoint(i)
        worst = max(worst, abs(u.GetValue(i) - factor * (x + 2 * y + 3 * z + 3)))
    if worst > 1e-12:
        fail("%s: u differs from %g (x + 2y + 3z + 3) by %g" % (f, factor, worst))

for f in ("r.xmf", "s.xmf", "v.xmf"):
    r, d = load(f)
    if d.GetNumberOfPoints() != 543 or d.GetNumberOfCells() != 769:
        fail("%s: %d points %d cells, expected 543 and 769" % (f, d.GetNumberOfPoints(), d.GetNumberOfCells()))
    pa, ca = arrays(d.GetPointData()), arrays(d.GetCellData())
    if f == "v.xmf":
        check_range(f, "point", pa, "part", 0, 1)
        check_range(f, "cell", ca, "part", 0, 1)
    else:
        check_range(f, "point", pa, "node_rank", 0, 1)
        check_range(f, "cell", ca, "cell_rank", 0, 1)
        check_range(f, "point", pa, "global_id", 1, 543)
        check_u(f, d, 1.0)
    print(f, d.GetNumberOfPoints(), "points", d.GetNumberOfCells(), "cells; point arrays", sorted(pa),
          "cell arrays", sorted(ca))

# The series: three time steps 0.5, 1, 1.5 with u = (k + 1)(x + 2y + 3).
r, _ = load("s.xmf")
steps = list(r.TimestepValues)
if steps != [0.5, 1.0, 1.5]:
    fail("s.xmf: time steps %s, expected [0.5, 1.0, 1.5]" % steps)
for k, t in enumerate(steps):
    _, d = load("s.xmf", t)
    check_u("s.xmf at t=%g" % t, d, k + 1.0)
print("s.xmf: time steps", steps, "each u = (k+1)(x + 2y + 3)")

# 1D: 16 points, 15 line cells; Plot Over Line along the bar samples u = x + 3.
r, d = load("bar.xmf")
if d.GetNumberOfPoints() != 16 or d.GetNumberOfCells() != 15:
    fail("bar.xmf: %d points %d cells, expected 16 and 15" % (d.GetNumberOfPoints(), d.GetNumberOfCells()))
check_range("bar.xmf", "point", arrays(d.GetPointData()), "u", 3, 18)
pol = PlotOverLine(Input=r)
pol.Point1 = [0.0, 0.0, 0.0]
pol.Point2 = [15.0, 0.0, 0.0]
pol.Resolution = 30
UpdatePipeline(proxy=pol)
s = servermanager.Fetch(pol)
u = arrays(s.GetPointData())["u"]
ok = arrays(s.GetPointData()).get("vtkValidPointMask")
worst, n = 0.0, 0
for i in range(s.GetNumberOfPoints()):
    if ok is not None and ok.GetValue(i) == 0:
        fail("bar.xmf: Plot Over Line sample %d at x=%g is outside the mesh" % (i, s.GetPoint(i)[0]))
    worst = max(worst, abs(u.GetValue(i) - (s.GetPoint(i)[0] + 3)))
    n += 1
if n != 31 or worst > 1e-9:
    fail("bar.xmf: Plot Over Line: %d samples, largest difference from x + 3: %g" % (n, worst))
print("bar.xmf: 16 points, 15 lines; Plot Over Line: %d samples equal x + 3" % n)

# 3D.  Expected: 3 x 2 x 2 unit cubes (36 points), as 12 hexahedra, 72 tetrahedra (6 a cube) or
# 24 prisms (2 a cube); the fixture: 11 points, one cell of each type, volume 1 + 1/2 + 1/6.
def check_3d(f, npts, cells, volume, ranks=True):
    r, d = load(f)
    types = {}
    for i in range(d.GetNumberOfCells()):
        types[d.GetCellType(i)] = types.get(d.GetCellType(i), 0) + 1
    if d.GetNumberOfPoints() != npts or types != cells:
        fail("%s: %d points, cells by VTK type %s; expected %d and %s" % (f, d.GetNumberOfPoints(), types, npts, cells))
    cs = CellSize(Input=r)
    UpdatePipeline(proxy=cs)
    c = servermanager.Fetch(cs)
    if c.IsA("vtkMultiBlockDataSet"):
        c = c.GetBlock(0)
    vol = arrays(c.GetCellData())["Volume"]
    vs = [vol.GetValue(i) for i in range(c.GetNumberOfCells())]
    if min(vs) <= 0 or abs(sum(vs) - volume) > 1e-12 * volume:
        fail("%s: Cell Size volumes in [%g, %g], total %.17g; expected all positive, total %.17g" %
             (f, min(vs), max(vs), sum(vs), volume))
    pa, ca = arrays(d.GetPointData()), arrays(d.GetCellData())
    if ranks:
        check_range(f, "cell", ca, "cell_rank", 0, 1)
        check_u(f, d, 1.0)
    else:
        check_range(f, "cell", ca, "part", 0, 1)
    print("%s: %d points, cells by VTK type %s, Cell Size volumes in [%.6g, %.6g] summing to %.15g" %
          (f, npts, types, min(vs), max(vs), sum(vs)))

VTK_TETRA, VTK_HEXAHEDRON, VTK_WEDGE, VTK_PYRAMID = 10, 12, 13, 14
box_cells = {"hex": {VTK_HEXAHEDRON: 12}, "tet": {VTK_TETRA: 72}, "prism": {VTK_WEDGE: 24}, "pyramid": {VTK_PYRAMID: 72}}
for k, cells in box_cells.items():
    npts = 36 + 12 * (k == "pyramid")  # the pyramids' apexes at the cubes' centres
    check_3d("r3_%s.xmf" % k, npts, cells, 12.0)
    check_3d("v3_%s.xmf" % k, npts, cells, 12.0, ranks=False)
check_3d("r3_mixed.xmf", 11, {VTK_TETRA: 1, VTK_HEXAHEDRON: 1, VTK_WEDGE: 1}, 1.0 + 0.5 + 1.0 / 6.0)
# Gmsh's mixed mesh (tests/common/meshes3d/mixed.geo): three blocks of volume 0.5.
check_3d("r3_gmsh.xmf", 410, {VTK_TETRA: 406, VTK_HEXAHEDRON: 75, VTK_WEDGE: 204}, 1.5)
# Gmsh's pyramid mesh (meshes3d/pyramid.geo, binary MSH 4.1): the unit cube.
check_3d("r3_pyr.xmf", 186, {VTK_TETRA: 396, VTK_HEXAHEDRON: 32, VTK_PYRAMID: 16}, 1.0)
check_3d("v3_mixed.xmf", 11, {VTK_TETRA: 1, VTK_HEXAHEDRON: 1, VTK_WEDGE: 1}, 1.0 + 0.5 + 1.0 / 6.0, ranks=False)
r, _ = load("s3_prism.xmf")
steps = list(r.TimestepValues)
if steps != [0.5, 1.0, 1.5]:
    fail("s3_prism.xmf: time steps %s, expected [0.5, 1.0, 1.5]" % steps)
for k, t in enumerate(steps):
    _, d = load("s3_prism.xmf", t)
    check_u("s3_prism.xmf at t=%g" % t, d, k + 1.0)
print("s3_prism.xmf: time steps", steps, "each u = (k+1)(x + 2y + 3z + 3)")

r, _ = load("gmsh_order.xmf")
cs = CellSize(Input=r)
UpdatePipeline(proxy=cs)
c = servermanager.Fetch(cs)
c = c.GetBlock(0) if c.IsA("vtkMultiBlockDataSet") else c
vs = [arrays(c.GetCellData())["Volume"].GetValue(i) for i in range(c.GetNumberOfCells())]
if max(vs) >= 0:
    fail("gmsh_order.xmf: prisms in Gmsh's vertex order have volumes up to %g; expected all negative" % max(vs))
print("control: prisms in Gmsh's vertex order are inverted in ParaView (volumes total %g)" % sum(vs))
PY
pvpython open.py
