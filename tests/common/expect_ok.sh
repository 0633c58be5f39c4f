#!/bin/sh
# expect_ok.sh REGEX TIMEOUT COMMAND...: the command must succeed and say so.
# Fails the test on a non-zero exit, on a hang (timeout), on a crash or sanitizer report in the
# output, and when its output (stdout and stderr) has no line matching REGEX (grep -E).  This
# replaces CTest's PASS_REGULAR_EXPRESSION, which ignores the exit status.
regex=$1
limit=$2
shift 2
out=$(mktemp)
timeout -k 5 "$limit" "$@" >"$out" 2>&1
rc=$?
all=$(cat "$out")
rm -f "$out"
if [ "$rc" -ne 0 ]; then
  echo "FAIL: exit $rc: $*"; echo "$all"; exit 1
fi
case "$all" in
  *AddressSanitizer*|*"runtime error"*|*LeakSanitizer*|*UndefinedBehaviorSanitizer*|\
  *"BAD TERMINATION"*|*"Caught signal"*)
    echo "FAIL: crash or sanitizer report: $*"; echo "$all"; exit 1 ;;
esac
if printf '%s\n' "$all" | grep -Eq -- "$regex"; then
  echo "ok: $*"; exit 0
fi
echo "FAIL: no line of the output matches '$regex': $*"
echo "got: $all"
exit 1
