#!/bin/sh
# gmsh_demos.sh [BUILD_DIR]: mesh Gmsh's own tutorials and demos (the .geo files of the gmsh-doc
# package) with `gmsh -3`, and run `partition` (4 parts, metis, --order hilbert) and
# `partition --check` on every one, in MSH 4.1 ASCII and MSH 2.2 binary.  A local script, not a
# CI test (CI has no Gmsh): it prints one line per file and encoding -- ok (with the mesh line of
# the report: 3D, or 2D for the planar demos), refused (with pmesh's message: pyramids,
# second-order elements...), no volume (a surface in 3D space, nothing meshed), gmsh failed --
# and a summary.  Skips (exit 0) with a message when gmsh is absent.
set -u
build=${1:-build}
partition="$build/partition"
doc=${GMSH_DOC:-/usr/share/doc/gmsh-doc/doc/gmsh}
if ! command -v gmsh > /dev/null 2>&1; then
  echo "gmsh_demos.sh: gmsh is not installed: skipped"; exit 0
fi
[ -d "$doc" ] || { echo "gmsh_demos.sh: no Gmsh documentation at $doc (set GMSH_DOC): skipped"; exit 0; }
[ -x "$partition" ] || { echo "gmsh_demos.sh: no $partition (build it first)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Copy the folders (the .geo files merge data files beside them) and unpack them.
for d in "$doc/tutorial" "$doc"/demos/*; do
  [ -d "$d" ] || continue
  case $d in */api) continue ;; esac
  mkdir -p "$work/$(basename "$d")"
  cp -r "$d"/. "$work/$(basename "$d")/"
done
find "$work" -name '*.gz' -exec gunzip -f {} +
ok=0; refused=0; novol=0; gfail=0
for geo in $(find "$work" -name '*.geo' | sort); do
  name=$(echo "$geo" | sed "s|$work/||")
  dir=$(dirname "$geo")
  for enc in "msh41" "msh22 -bin"; do
    out="$dir/out.msh"
    rm -f "$out"
    if ! (cd "$dir" && timeout 120 gmsh -3 -nt 1 "$(basename "$geo")" -format $enc -o out.msh > gmsh.log 2>&1) ||
      [ ! -s "$out" ]; then
      echo "gmsh failed: $name ($enc): $(grep -m1 -i error "$dir/gmsh.log")"; gfail=$((gfail + 1)); continue
    fi
    if "$partition" "$out" 4 --order hilbert -o "$dir/p" --quiet 2> "$dir/err"; then
      if "$partition" --check "$dir/p" > "$dir/check" 2>&1; then
        echo "ok: $name ($enc): $("$partition" "$out" 1 -o "$dir/p1" | sed -n 2p)"; ok=$((ok + 1))
      else
        echo "CHECK FAILED: $name ($enc): $(cat "$dir/check")"; refused=$((refused + 1))
      fi
    elif grep -q "no lines, surfaces or volumes\|a surface mesh in 3D space\|has no \$Nodes" "$dir/err"; then
      echo "no volume: $name ($enc): $(grep -m1 "error" "$dir/err" | head -c 200)"; novol=$((novol + 1))
    else
      echo "refused: $name ($enc): $(grep -m1 "error" "$dir/err" | head -c 300)"; refused=$((refused + 1))
    fi
    rm -rf "$dir/p" "$dir/p1" "$out"
  done
done
echo "gmsh_demos.sh: $ok ok, $refused refused or failed, $novol without a volume, $gfail not meshed by gmsh"
