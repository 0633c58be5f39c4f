# Sourced by the halo test scripts: the shared work-directory set-up, plus the test program.
. "$PMESH_TESTS/common/work.sh"
TEST_HALO="$PMESH_TESTBIN/test_halo"
