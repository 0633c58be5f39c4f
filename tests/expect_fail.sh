#!/bin/sh
# expect_fail.sh FRAGMENT TIMEOUT COMMAND...: the command must fail cleanly.
# Fails the test on exit 0, on a signal or crash (status > 125, sanitizer reports), on a hang
# (timeout), and when stderr does not contain FRAGMENT (fixed string).
frag=$1
limit=$2
shift 2
err=$(mktemp)
timeout -k 5 "$limit" "$@" >/dev/null 2>"$err"
rc=$?
msg=$(cat "$err")
rm -f "$err"
if [ "$rc" -eq 0 ]; then
  echo "FAIL: exit 0 for a bad input: $*"; exit 1
fi
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "FAIL: timed out after ${limit}s (hang): $*"; exit 1
fi
if [ "$rc" -gt 125 ]; then
  echo "FAIL: killed by a signal (status $rc): $*"; echo "$msg"; exit 1
fi
case "$msg" in
  *AddressSanitizer*|*"runtime error"*|*LeakSanitizer*)
    echo "FAIL: sanitizer report: $*"; echo "$msg"; exit 1 ;;
esac
case "$msg" in
  *"$frag"*) echo "ok (exit $rc): $msg" | head -c 600; echo; exit 0 ;;
esac
echo "FAIL: message does not contain '$frag': $*"
echo "got: $msg"
exit 1
