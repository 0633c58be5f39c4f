# A pwrite or pread that fails inside a collective HDF5 call on one rank leaves the other ranks
# waiting in that call; pmesh must still end the job (pm_comm_agree's deadline, the pm_h5
# watchdog) with a message naming a rank and the cause: never a hang, never exit 0, the
# previous result unchanged and no temporary left.  The pwrites of a result's write fail in turn,
# on each rank and on all ranks; so do the preads of a restart's read, the XDMF's fsync and each
# rename of a result, and the pwrites of partition --view and its XDMF's fsync.  "In turn" means
# the first call of each call site (fail_io.c: the call's path through pmesh's code; calls of one
# site, such as the metadata blocks of one flush, meet the same HDF5 call and the same error
# handling), and the last call.
#   faults.sh LIBFAIL_IO.so
set -e
. "$PMESH_TESTS/io/common.sh"
SHIM=$1
[ -f "$SHIM" ] || fail "no fault library $SHIM"
W=h5_faults
rm -rf $W && mkdir $W && cd $W
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
m="$PMESH_MESHES/square.msh"
"$PARTITION" "$m" 2 -o p2 --quiet && "$PARTITION" "$m" 3 -o p3 --quiet || fail "partition"

# calls NP OP CMD...: a normal run, with the fault library counting; sets n0 n1 ... (the OP calls
# on .h5 files each rank made), nall (the most of any rank), at0 at1 ... (the calls of each rank
# that fail in turn: the first of each call site, and the last) and atall (those of every rank).
calls() {
  np=$1 op=$2; shift 2
  rm -f count sites
  PMESH_FAULT_COUNT=$PWD/count PMESH_FAULT_SITES=$PWD/sites "$MPIEXEC" -n $np -genv LD_PRELOAD "$SHIM" "$@" > /dev/null ||
    fail "normal run: $*"
  [ "$(wc -l < count)" -eq $np ] || fail "the fault library did not report from every rank: $(cat count)"
  case $op in pwrite) c=2;; pread) c=3;; fsync) c=4;; rename) c=5;; *) fail "no op $op";; esac
  nall=0 atall=
  for r in $(seq 0 $((np - 1))); do
    n=$(awk -v r=$r -v c=$c '$1 == r {print $c}' count)
    eval "n$r=$n"
    [ "$n" -gt $nall ] && nall=$n
    # A site is the frames in pmesh and the program; a call with none would hide its path.
    [ "$(awk -v r=$r -v op=$op '$1 == r && $2 == op && NF > 3' sites | wc -l)" -eq "$n" ] ||
      fail "rank $r: $n $op calls, not each with its call site: $(cat sites)"
    at=$(awk -v r=$r -v op=$op -v n=$n '$1 == r && $2 == op {
           site = $4; for (i = 5; i <= NF; i++) site = site " " $i
           if (!(site in seen) || $3 == n) print $3; seen[site] = 1 }' sites | sort -n | tr '\n' ' ')
    eval "at$r=\$at"
    atall="$atall $at"
  done
  atall=$(echo $atall | tr ' ' '\n' | sort -nu | tr '\n' ' ')
  return 0
}

# every NP OP RANKS KEEP CMD...: for each rank of RANKS (or all), its OP calls fail in turn (from
# the first call of each call site on; calls sets the list).
every() {
  np=$1 op=$2 ranks=$3 keep=$4; shift 4
  for r in $ranks; do
    eval "n=\$n$r list=\$at$r"
    [ -n "$list" ] || fail "no $op call on rank $r: $*"
    for at in $list; do
      faulty $np $op $r $at "$keep" "$@"
    done
    echo "ok: $op calls $list(the first of each call site and the last, of $n) failing on rank $r each end the job: $*"
  done
}

# faulty NP OP RANK AT KEEP CMD...: OP fails on RANK from its call AT on; the job must fail
# cleanly within 60 s and the files KEEP (space separated) must be as saved in keep/.
faulty() {
  np=$1 op=$2 r=$3 at=$4 keep=$5; shift 5
  what="np $np, $op fails on rank $r from call $at: $*"
  set +e
  # Short waits (the defaults are 30 s and 300 s; fractions of a second are allowed); only here, where a failure is expected.
  PMESH_AGREE_TIMEOUT=0.3 PMESH_H5_TIMEOUT=1.5 PMESH_FAULT_OP=$op PMESH_FAULT_RANK=$r PMESH_FAULT_AT=$at timeout -k 5 60 \
    "$MPIEXEC" -n $np -genv LD_PRELOAD "$SHIM" "$@" > out.txt 2> err.txt
  rc=$?
  set -e
  case $rc in
    0) fail "exit 0 although a $op failed: $what";;
    124|137) fail "hang: $what";;
  esac
  [ $rc -le 125 ] || { cat err.txt; fail "killed by a signal (status $rc): $what"; }
  ! grep -q "AddressSanitizer\|runtime error" err.txt || { cat err.txt; fail "sanitizer report: $what"; }
  grep -Eq "$FAULT_MSG" err.txt || { cat err.txt; fail "no message naming a rank and the cause: $what"; }
  for f in $keep; do cmp -s "$f" "keep/$f" || fail "$f changed: $what"; done
  ! ls | grep -q '\.tmp\.' || fail "temporary left ($(ls | grep '\.tmp\.')): $what"
  n_runs=$((n_runs + 1))
}
n_runs=0
# What the message must say (faulty): a rank and the cause.
FAULT_MSG="(error: \[rank [0-9]+\]|rank [0-9]+: error:) .*(No space left on device|Input/output error|has not returned)"
FAULT_MSG0=$FAULT_MSG

# Writes: solve at np 2 over an earlier result.  The earlier result has another source term: a
# failed run that still put its own (complete) result in place would change it.
calls 2 pwrite "$SOLVE" -p p2 -o res.h5
[ $nall -ge 4 ] || fail "only $nall pwrite calls: is the fault library interposing?"
"$MPIEXEC" -n 2 "$SOLVE" -p p2 -o res.h5 --source 2 > /dev/null || fail "solve --source 2"
mkdir keep && cp res.h5 res.xmf keep/
every 2 pwrite "0 1 all" "res.h5 res.xmf" "$SOLVE" -p p2 -o res.h5

# The XDMF's fsync fails (rank 0 writes it).  Then each rename: the first (the .h5) keeps both
# previous files; when the second (the .xmf) fails, the new .h5 is in place already and the
# job must say that the .xmf could not follow.
calls 2 fsync "$SOLVE" -p p2 -o res.h5
[ "$n0" -ge 1 ] || fail "no fsync of the XDMF on rank 0: is the fault library interposing?"
"$MPIEXEC" -n 2 "$SOLVE" -p p2 -o res.h5 --source 2 > /dev/null || fail "solve --source 2"
cmp -s res.h5 keep/res.h5 || fail "solve --source 2 wrote other bytes the second time"
every 2 fsync 0 "res.h5 res.xmf" "$SOLVE" -p p2 -o res.h5
calls 2 rename "$SOLVE" -p p2 -o res.h5
[ "$n0" = 2 ] && [ "$n1" = 0 ] || fail "expected 2 renames on rank 0, none on rank 1: $n0 $n1"
"$MPIEXEC" -n 2 "$SOLVE" -p p2 -o res.h5 --source 2 > /dev/null || fail "solve --source 2"
faulty 2 rename 0 1 "res.h5 res.xmf" "$SOLVE" -p p2 -o res.h5
FAULT_MSG="error: \[rank 0\] res.xmf: cannot move res.xmf.tmp.[0-9]+ into place: Input/output error \(res.h5 is the new result already"
faulty 2 rename 0 2 "res.xmf" "$SOLVE" -p p2 -o res.h5
[ -f res.h5 ] && ! cmp -s res.h5 keep/res.h5 || fail "the .xmf's rename failed, yet res.h5 is not the new result"
echo "ok: the XDMF's fsync and each rename failing end the job: $SOLVE -p p2 -o res.h5"
FAULT_MSG=$FAULT_MSG0

# Reads: a restart at np 3 from a result of np 2 (test_h5 read checks the values it gets).
"$MPIEXEC" -n 2 "$T" write p2 lin > /dev/null || fail "write lin"
cp lin.h5 keep/
calls 3 pread "$T" read p3 lin.h5
[ $nall -ge 2 ] || fail "only $nall pread calls"
every 3 pread "0 1 2 all" lin.h5 "$T" read p3 lin.h5

# partition --view (serial): every pwrite of the view fails in turn, then its XDMF's fsync.
# partition must end with the cause, keep the earlier view (of 3 parts) and leave no temporary.
calls 1 pwrite "$PARTITION" "$m" 2 -o pv --quiet --view v.h5
"$PARTITION" "$m" 3 -o pv3 --quiet --view v.h5 || fail "partition --view, 3 parts"
cp v.h5 v.xmf keep/
FAULT_MSG="partition: error: .*(No space left on device|Input/output error)"
every 1 pwrite all "v.h5 v.xmf" "$PARTITION" "$m" 2 -o pv --quiet --view v.h5
calls 1 fsync "$PARTITION" "$m" 2 -o pv --quiet --view v.h5
[ "$n0" -ge 1 ] || fail "partition --view made no fsync of its XDMF"
"$PARTITION" "$m" 3 -o pv3 --quiet --view v.h5 || fail "partition --view, 3 parts"
every 1 fsync all "v.h5 v.xmf" "$PARTITION" "$m" 2 -o pv --quiet --view v.h5
echo "ok: $n_runs failing runs, each ended with a message naming the cause (and the rank, where MPI ranks write), none hung; results kept"
