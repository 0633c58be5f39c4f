# Regenerate tests/tools/solve_ref/*.txt (run by hand after a deliberate change of the answers):
#   sh tests/tools/solve_make_refs.sh BUILD_DIR
set -eu
build=$1; here=$(cd "$(dirname "$0")" && pwd); meshes="$here/../../meshes"
tmp=$(mktemp -d)
for mesh in "$meshes"/*.msh; do
  name=$(basename "$mesh" .msh)
  "$build/partition" "$mesh" 1 -o "$tmp/p" --quiet
  mpiexec.mpich -n 1 "$build/solve" -p "$tmp/p" --source '1+x' --rtol 1e-12 --dump-solution "$tmp/u" > "$tmp/out"
  { echo "# Regression reference for meshes/$name.msh: solve's own result at np = 1 (--source '1+x' --rtol 1e-12),"
    echo "# written by tests/tools/solve_make_refs.sh; not an independent reference (see README.md)."
    sed -n 's/.*converged after \([0-9]*\) iterations.*/iterations \1/p' "$tmp/out"; sort -n "$tmp/u.0"; } > "$here/solve_ref/$name.txt"
  echo "$name: $(sed -n 3p "$here/solve_ref/$name.txt")"
done
rm -rf "$tmp"
