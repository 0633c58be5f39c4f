#!/bin/sh
# big.sh: `meshgen grid 1000 1000` (1M nodes) is quick; the test's timeout is the limit.
set -u
out="big_grid.msh"
rm -f "$out"
start=$(date +%s)
"$MESHGEN" grid 1000 1000 --tri -o "$out" || { echo "FAIL: exit $?"; exit 1; }
end=$(date +%s)
hdr=$(sed -n '/^\$Nodes$/{n;p;q;}' "$out")
[ "$hdr" = "9 1000000 1 1000000" ] || { echo "FAIL: nodes header '$hdr'"; exit 1; }
hdr=$(sed -n '/^\$Elements$/{n;p;q;}' "$out")
[ "$hdr" = "5 1999998 1 1999998" ] || { echo "FAIL: elements header '$hdr'"; exit 1; }
tail -n 1 "$out" | grep -qx '\$EndElements' || { echo "FAIL: truncated"; exit 1; }
rm -f "$out"
echo "ok: 1M-node grid in $((end - start)) s"
