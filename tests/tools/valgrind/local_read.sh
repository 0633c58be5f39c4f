# local_read under valgrind on corpus files: good ones must read (exit 0), broken ones must fail
# with their message (exit 1); a valgrind error (including a definite leak on an error path)
# exits 99.  Arguments: LOCAL_READ, then the valgrind command line (valgrind and its options).
set -u
bin=$1
shift
dir="$PMESH_TESTS/local/bad"
n=0
failed=0
check() { # want, file, [rank | --meta]
  want=$1 file=$2 extra=${3:-}
  if [ "$extra" = "--meta" ]; then
    args="--meta $dir/$file"
  else
    args="$dir/$file $extra"
  fi
  # shellcheck disable=SC2086
  $VG --error-exitcode=99 "$bin" $args > /dev/null 2> err.txt
  rc=$?
  n=$((n + 1))
  if [ "$rc" -ne "$want" ]; then
    echo "FAIL: local_read $args: exit $rc under valgrind, expected $want"
    cat err.txt
    failed=$((failed + 1))
  fi
}
VG="$*"
check 0 good.txt 1
check 0 lecture.txt
check 1 element_short.txt 1
check 1 import_twice.txt 1
check 1 neibpetot_more.txt 1
check 1 trunc_partition.txt 1
check 0 meta_good.txt --meta
check 1 meta_groups_fewer.txt --meta
rm -f err.txt
[ "$failed" -eq 0 ] || { echo "$failed of $n valgrind runs of local_read failed"; exit 1; }
echo "ok: $n runs of local_read under valgrind"
