# Open pmesh's XDMF in ParaView headless (pvpython) and check what a user would see: point and
# cell counts, every array's name and range, u = x + 2y + 3 at every point ParaView loaded, the
# time steps of a series, the partition view, and a 1D result sampled with Plot Over Line.
# ParaView is not installed in CI (its Debian packages pull OpenMPI): the test is skipped (77)
# when pvpython is missing.  To run it:
#   apt-get install -y --no-install-recommends paraview python3-paraview
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
cat > open.py <<'PY'
import sys
from paraview.simple import XDMFReader, UpdatePipeline, PlotOverLine, servermanager

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
        x, y, _ = d.GetPoint(i)
        worst = max(worst, abs(u.GetValue(i) - factor * (x + 2 * y + 3)))
    if worst > 1e-12:
        fail("%s: u differs from %g (x + 2y + 3) by %g" % (f, factor, worst))

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
PY
pvpython open.py
