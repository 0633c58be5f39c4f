# partition --check under valgrind on a broken partition: the check must fail with its message
# and free everything on the way out (a valgrind error exits 99).  Arguments: PARTITION, the
# directory of a good partition with at least two neighbours on rank 0, then the valgrind
# command line.
set -u
bin=$1 good=$2
shift 2
work="$PWD/work.valgrind_check_broken"
rm -rf "$work" && mkdir -p "$work" && cd "$work" || exit 1
cp -r "$good" swap
# rank 0 lists its neighbours in reverse order, its tables unchanged: the imports then come
# from ranks that do not own them (found after the check has allocated its tables)
awk '/^#NEIBPE$/ {print; getline; for (i = NF; i >= 1; i--) printf "%s%s", $i, (i > 1 ? " " : "\n"); next} {print}' \
  "$good/local.0" > swap/local.0
"$@" --error-exitcode=99 "$bin" --check swap > /dev/null 2> err.txt
rc=$?
cat err.txt
[ "$rc" -eq 1 ] || { echo "FAIL: exit $rc, expected 1 (99: valgrind errors)"; exit 1; }
grep -q "swap/local.0: #IMPORTitems entry 1 .* is imported from rank" err.txt || { echo "FAIL: message"; exit 1; }
echo "ok: partition --check of a broken partition is clean under valgrind"
