# Open pmesh's XDMF in ParaView headless (pvpython) and check the point/cell arrays and counts.
# ParaView is not installed in CI (its Debian package pulls OpenMPI): the test is skipped (77)
# when pvpython is missing.  To run it: install ParaView, put pvpython on PATH, run
#   ctest -R h5_paraview --output-on-failure
command -v pvpython >/dev/null 2>&1 || { echo "skip: pvpython not found"; exit 77; }
set -e
. "$PMESH_TESTS/h5/common.sh"
W=h5_pv
rm -rf $W && mkdir $W && cd $W
"$PARTITION" "$PMESH_MESHES/mixed.msh" 2 -o p --quiet --view v.h5
run 2 "$T" write p r > /dev/null
run 2 "$T" series p s
cat > open.py <<'PY'
import sys
from paraview.simple import XDMFReader, UpdatePipeline, servermanager
for f, cells in (("r.xmf", None), ("s.xmf", None), ("v.xmf", None)):
    r = XDMFReader(FileNames=[f])
    UpdatePipeline(time=0.0, proxy=r)
    d = servermanager.Fetch(r)
    if d.IsA("vtkMultiBlockDataSet"):
        d = d.GetBlock(0)
    pn = [d.GetPointData().GetArrayName(i) for i in range(d.GetPointData().GetNumberOfArrays())]
    cn = [d.GetCellData().GetArrayName(i) for i in range(d.GetCellData().GetNumberOfArrays())]
    print(f, d.GetNumberOfPoints(), d.GetNumberOfCells(), pn, cn)
    if d.GetNumberOfPoints() != 543 or d.GetNumberOfCells() != 769:
        sys.exit("%s: %d points %d cells, expected 543 and 769" % (f, d.GetNumberOfPoints(), d.GetNumberOfCells()))
    want = ("part",) if f == "v.xmf" else ("u", "rank")
    for w in want:
        if w not in pn:
            sys.exit("%s: no point array %s" % (f, w))
PY
pvpython open.py
