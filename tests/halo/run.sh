#!/bin/sh
# run.sh NP MESH [partition options]: partition MESH into NP parts and run every check of
# test_halo on it under mpiexec -n NP.  MESH is a .msh file, "grid" (meshgen grid 30 20) or
# "line" (meshgen line 15 1.0, the lecture's 1D bar).
. "$PMESH_TESTS/halo/common.sh"
np=$1
mesh=$2
shift 2
case "$mesh" in
  grid) "$MESHGEN" grid 30 20 -o m.msh; mesh=m.msh ;;
  line) "$MESHGEN" line 15 1.0 -o m.msh; mesh=m.msh ;;
esac
"$PARTITION" "$mesh" "$np" "$@" -o part --quiet
"$PARTITION" --check part > /dev/null
timeout -k 5 240 "$MPIEXEC" -n "$np" "$TEST_HALO" part
