#!/bin/sh
# regen.sh - regenerate every committed meshes/*.msh from its .geo (Gmsh 4.8.4, MSH 4.1 ASCII).
# Usage: sh meshes/regen.sh [GMSH]   (default: gmsh on PATH).  big_square.geo is not
# regenerated here: its ~1M-node mesh is not committed (see README.md).
set -eu
gmsh=${1:-gmsh}
cd "$(dirname "$0")"
echo "using $("$gmsh" --version 2>&1 | tail -n 1) (the committed meshes were made with 4.8.4)"
for m in square disk_hole lshape mixed; do
  "$gmsh" -2 "$m.geo" -format msh41 -o "$m.msh" >/dev/null
  echo "wrote meshes/$m.msh"
done
"$gmsh" -1 bar.geo -format msh41 -o bar.msh >/dev/null
echo "wrote meshes/bar.msh"
