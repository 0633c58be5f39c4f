#!/bin/sh
# gmsh_read.sh GMSH REF ARGS...: Gmsh reads `meshgen ARGS` without complaint, and writing it
# back (MSH 4.1) gives the same file up to trailing blanks (REF's coordinates are short, so
# Gmsh's %.16g and meshgen's %.17g print them alike).
set -u
gmsh=$1
ref=$2
shift 2
out="gmsh_$ref"
back="gmsh_back_$ref"
log="gmsh_$ref.log"
rm -f "$out" "$back"
"$MESHGEN" "$@" -o "$out" || { echo "FAIL: meshgen $* exited $?"; exit 1; }
if ! "$gmsh" "$out" -0 -format msh41 -o "$back" >"$log" 2>&1; then
  cat "$log"; echo "FAIL: gmsh could not read meshgen $*"; exit 1
fi
if grep -E "^(Error|Warning)" "$log"; then
  echo "FAIL: gmsh complained about meshgen $*"; exit 1
fi
sed 's/ *$//' "$back" > "$back.trim"
if ! cmp "$out" "$back.trim"; then
  diff "$out" "$back.trim" | head -n 40
  echo "FAIL: gmsh rewrote meshgen $* differently"; exit 1
fi
rm -f "$out" "$back" "$back.trim" "$log"
echo "ok: gmsh reads and rewrites meshgen $* unchanged"
