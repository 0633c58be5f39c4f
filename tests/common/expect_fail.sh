#!/bin/sh
# expect_fail.sh FRAGMENT TIMEOUT COMMAND...: the command must fail cleanly.
# Fails the test on exit 0, on a hang (timeout), on a crash and when stderr does not contain
# FRAGMENT (fixed string).  A crash is a status above 125 (a signal, or a command that could not
# run) or a crash report in the output: a sanitizer's, or mpiexec's for a rank killed by a signal
# (MPICH's mpiexec then exits with the signal's number, 11 or 6, and prints "BAD TERMINATION"
# on stdout), or UCX's "Caught signal".  pmesh's own failures exit 1 without any of these.
frag=$1
limit=$2
shift 2
out=$(mktemp)
err=$(mktemp)
timeout -k 5 "$limit" "$@" >"$out" 2>"$err"
rc=$?
msg=$(cat "$err")
all=$(cat "$out" "$err")
rm -f "$out" "$err"
if [ "$rc" -eq 0 ]; then
  echo "FAIL: exit 0 for a bad input: $*"; exit 1
fi
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "FAIL: timed out after ${limit}s (hang): $*"; exit 1
fi
if [ "$rc" -eq 126 ] || [ "$rc" -eq 127 ]; then
  echo "FAIL: could not run (status $rc): $*"; echo "$msg"; exit 1
fi
if [ "$rc" -gt 125 ]; then
  echo "FAIL: killed by a signal (status $rc): $*"; echo "$msg"; exit 1
fi
case "$all" in
  *AddressSanitizer*|*"runtime error"*|*LeakSanitizer*|*UndefinedBehaviorSanitizer*)
    echo "FAIL: sanitizer report (status $rc): $*"; echo "$all"; exit 1 ;;
  *"BAD TERMINATION"*|*"Caught signal"*|*"(signal "[0-9]*|*"Segmentation fault"*|*"core dumped"*)
    echo "FAIL: a process crashed (status $rc): $*"; echo "$all"; exit 1 ;;
esac
case "$msg" in
  *"$frag"*) echo "ok (exit $rc): $msg" | head -c 600; echo; exit 0 ;;
esac
echo "FAIL: message does not contain '$frag': $*"
echo "got: $msg"
exit 1
