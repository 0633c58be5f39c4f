#!/bin/sh
# The whole test suite, twice: a normal build with warnings as errors, then an AddressSanitizer +
# UndefinedBehaviorSanitizer build (plus the libFuzzer harnesses, run briefly).  Used by CI.
#   .ci/test-all.sh [quick]    quick: the normal build only
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
jobs=${PMESH_TEST_JOBS:-2}
cmake -S "$top" -B "$top/build" -DPMESH_WERROR=ON
cmake --build "$top/build" -j2
(cd "$top/build" && ctest --output-on-failure -j"$jobs")
[ "${1:-}" = quick ] && exit 0
# MPICH's own allocations at exit are reported as leaks by LeakSanitizer; leaks of pmesh's own
# code are checked by valgrind in the tests instead.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
CC=clang cmake -S "$top" -B "$top/build-asan" -DPMESH_WERROR=ON -DPMESH_SANITIZE=ON -DPMESH_FUZZ=ON \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$top/build-asan" -j2
(cd "$top/build-asan" && ctest --output-on-failure -j"$jobs")
