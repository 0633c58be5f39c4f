# Shared by the io test scripts: a python3 that has h5py and numpy, and fail().
fail() { echo "FAIL: $*"; exit 1; }
PY=
for p in python3 /usr/bin/python3; do
  if command -v "$p" >/dev/null 2>&1 && "$p" -c 'import h5py, numpy' 2>/dev/null; then PY=$p; break; fi
done
[ -n "$PY" ] || fail "no python3 with h5py and numpy: install the packages in tests/io/PACKAGES (apt-get install -y $(tr '\n' ' ' < "$PMESH_TESTS/io/PACKAGES"))"
T="$PMESH_TESTBIN/test_h5"
CHECK="$PMESH_TESTS/io/check_h5.py"
run() { "$MPIEXEC" -n "$@"; }
# h5text FILE DATASET: the dataset's values as text (h5dump's output without its first line);
# fails the test when h5dump fails (a pipe into tail would hide that).
h5text() {
  h5dump -d "$2" -y -w 0 "$1" > h5text.raw || fail "h5dump -d $2 $1 failed"
  tail -n +2 h5text.raw
}
