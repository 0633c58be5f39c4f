#!/bin/sh
# atomic.sh: a failed write leaves neither a partial FILE nor FILE.tmp.* behind, and an
# existing FILE is left as it was.
set -u
dir="atomic_dir"
rm -rf "$dir"
mkdir "$dir"
fails=0
check_clean() { # $1: what
  for f in "$dir"/out.msh.tmp.*; do
    [ -e "$f" ] && { echo "FAIL ($1): temporary file $f left behind"; fails=1; }
  done
}

# 1. File size limit: writes fail with EFBIG part-way (SIGXFSZ ignored so write() reports it).
echo old >"$dir/out.msh"
err=$( (trap '' XFSZ; ulimit -f 8; "$MESHGEN" grid 200 200 -o "$dir/out.msh") 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 0 ] || [ $rc -gt 125 ]; then echo "FAIL (size limit): exit $rc"; fails=1; fi
case "$err" in *"meshgen: error: cannot write"*) ;; *) echo "FAIL (size limit): message: $err"; fails=1 ;; esac
[ "$(cat "$dir/out.msh")" = old ] || { echo "FAIL (size limit): out.msh was changed"; fails=1; }
check_clean "size limit"

# 2. Output in a directory that does not exist.
err=$("$MESHGEN" line 3 1 -o "$dir/nodir/out.msh" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 0 ] || [ $rc -gt 125 ]; then echo "FAIL (no dir): exit $rc"; fails=1; fi
case "$err" in *"meshgen: error: cannot create"*) ;; *) echo "FAIL (no dir): message: $err"; fails=1 ;; esac

# 3. Output over a directory: written, then rename() fails; the temporary must go.
mkdir "$dir/out.msh.d"
err=$("$MESHGEN" line 3 1 -o "$dir/out.msh.d" 2>&1 >/dev/null)
rc=$?
if [ $rc -eq 0 ] || [ $rc -gt 125 ]; then echo "FAIL (rename): exit $rc"; fails=1; fi
case "$err" in *"meshgen: error: cannot rename"*) ;; *) echo "FAIL (rename): message: $err"; fails=1 ;; esac
for f in "$dir"/out.msh.d.tmp.*; do
  [ -e "$f" ] && { echo "FAIL (rename): temporary file $f left behind"; fails=1; }
done

# 4. Success replaces the old file.
"$MESHGEN" line 2 1 -o "$dir/out.msh" || { echo "FAIL: good run exited $?"; fails=1; }
head -n 1 "$dir/out.msh" | grep -qx '\$MeshFormat' || { echo "FAIL: out.msh not replaced"; fails=1; }
check_clean "success"

[ $fails -eq 0 ] || exit 1
rm -rf "$dir"
echo "ok: failed writes leave nothing behind"
