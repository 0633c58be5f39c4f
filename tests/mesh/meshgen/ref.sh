#!/bin/sh
# ref.sh REF ARGS...: `meshgen ARGS -o OUT` must produce tests/mesh/meshgen/REF byte for byte and
# leave no temporary file behind.
set -u
ref=$1
shift
out="ref_$ref"
rm -f "$out" "$out".tmp.*
"$MESHGEN" "$@" -o "$out" || { echo "FAIL: meshgen $* exited $?"; exit 1; }
if ! cmp "$PMESH_TESTS/mesh/meshgen/$ref" "$out"; then
  diff "$PMESH_TESTS/mesh/meshgen/$ref" "$out" | head -n 40
  echo "FAIL: meshgen $* differs from tests/mesh/meshgen/$ref"
  exit 1
fi
for f in "$out".tmp.*; do
  [ -e "$f" ] && { echo "FAIL: temporary file $f left behind"; exit 1; }
done
rm -f "$out"
echo "ok: meshgen $* == tests/mesh/meshgen/$ref"
