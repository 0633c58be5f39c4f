#!/bin/sh
# regen.sh - regenerate every committed meshes/*.msh from its .geo (Gmsh 4.8.4, MSH 4.1 ASCII).
# Usage: sh meshes/regen.sh [GMSH]   (default: gmsh on PATH).  big_square.geo and big_cube.geo
# at their benchmark sizes are not committed (see README.md); cube_hole.msh is big_cube.geo at h 0.1.
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
"$gmsh" -3 big_cube.geo -setnumber h 0.1 -format msh41 -o cube_hole.msh >/dev/null
echo "wrote meshes/cube_hole.msh (big_cube.geo at h = 0.1)"
