#!/bin/sh
# check_box.sh NX NY NZ [LX LY LZ] [--tet|--prism|--pyramid]: run `meshgen box` and check its output with
# the independent reader check_box.py (node positions, positive cells tiling the box, matching
# faces, outward boundary faces on their sides, the physical groups); where gmsh is installed,
# Gmsh also reads the file without complaint.
set -u
fail() { echo "FAIL: $*"; exit 1; }
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import numpy' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || fail "no python3 with numpy (apt-get install -y python3-numpy)"
nx=$1 ny=$2 nz=$3
shift 3
lx=$((nx - 1)) ly=$((ny - 1)) lz=$((nz - 1)) kind=hex
case "${1:-}" in [0-9]*) lx=$1 ly=$2 lz=$3; shift 3;; esac
case "${1:-}" in --tet) kind=tet;; --prism) kind=prism;; --pyramid) kind=pyramid;; esac
out="box_${nx}_${ny}_${nz}_$kind.msh"
rm -f "$out"
"$MESHGEN" box "$nx" "$ny" "$nz" "$lx" "$ly" "$lz" "$@" -o "$out" || fail "meshgen box exited $?"
"$PY" "$PMESH_TESTS/mesh/meshgen/check_box.py" "$out" "$nx" "$ny" "$nz" "$lx" "$ly" "$lz" "$kind" || exit 1
if command -v gmsh >/dev/null 2>&1; then
  gmsh "$out" -0 -format msh41 -o "back_$out" > "$out.log" 2>&1 || { cat "$out.log"; fail "gmsh cannot read it"; }
  if grep -E "^(Error|Warning)" "$out.log"; then fail "gmsh complained"; fi
  rm -f "back_$out" "$out.log"
fi
rm -f "$out"
