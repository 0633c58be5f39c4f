# Sourced by the test scripts: a fresh work directory per test under the folder's build
# directory, strict mode, fail().
set -eu
work="$PWD/work.$PMESH_TEST_NAME"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
