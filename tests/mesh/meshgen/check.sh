#!/bin/sh
# check.sh line NE 1 | grid NX NY [--tri]: run meshgen and check its output with check.awk
# (default spacing: integer coordinates, so the checks are exact).
set -u
kind=$1
out="check_$(echo "$*" | tr -c 'A-Za-z0-9\n' '_').msh"
rm -f "$out"
"$MESHGEN" "$@" -o "$out" || { echo "FAIL: meshgen $* exited $?"; exit 1; }
if [ "$kind" = line ]; then
  [ "$3" = 1 ] || { echo "FAIL: check.sh checks DX = 1 only"; exit 1; }
  awk -v kind=line -v ne="$2" -f "$PMESH_TESTS/mesh/meshgen/check.awk" "$out" || exit 1
else
  tri=0
  [ "${4:-}" = "--tri" ] && tri=1
  awk -v kind=grid -v nx="$2" -v ny="$3" -v tri=$tri -f "$PMESH_TESTS/mesh/meshgen/check.awk" "$out" || exit 1
fi
rm -f "$out"
