# pm_h5 moves and writes each dataset in rounds of PMESH_H5_ROWS slab rows (default 32768, so
# the meshes of the tests fit in one round), a narrow dataset several rounds per exchange and
# write.  With rounds of 1 to 64 rows (so groups of rounds too) the files hold exactly what one
# round writes; so do ranks whose items are not in global order (test_h5 --shuffle reverses each
# rank's internal nodes and elements: the plan sorts them), a series, and restarts read from such
# files.  (Rounds where a rank has no row of a type write empty selections.)
set -e
. "$PMESH_TESTS/io/common.sh"
W=h5_rounds
rm -rf $W && mkdir $W && cd $W
dump() { # every dataset of $1, as text, attributes left out (pmesh_version, nranks differ)
  h5ls -r "$1" > h5ls.txt || fail "h5ls -r $1 failed"
  grep -q Dataset h5ls.txt || fail "$1 holds no dataset"
  for d in $(awk '$2 == "Dataset" {print $1}' h5ls.txt); do echo "$d"; h5text "$1" "$d"; done
}
for name in mixed square bar; do
  m="$PMESH_MESHES/$name.msh"
  for np in 1 2 3; do "$PARTITION" "$m" $np -o p_${name}_$np --quiet || fail "partition $name $np"; done
  run 1 "$T" write p_${name}_1 ref_$name > /dev/null || fail "write $name np 1 (one round)"
  dump ref_$name.h5 > ref_$name.txt
  # Every collective call costs milliseconds when ranks outnumber the cores (2 here): few rounds
  # at np > 2.  The files are checked by one check_h5.py at the end (set -- collects its
  # arguments: a python start per file would cost more than the writes).
  set --
  for np in 1 2 3; do
    case $np in 1) rowlist="1 5 64";; 2) rowlist="5 64";; 3) rowlist=64;; esac
    for rows in $rowlist; do
      for how in plain --shuffle; do
        [ $np = 3 ] && [ $how = plain ] && continue
        out=r_${name}_${np}_${rows}_${how#--}
        PMESH_H5_ROWS=$rows run $np "$T" write p_${name}_$np $out $how > /dev/null || fail "write $name np $np rows $rows $how"
        set -- "$@" --and $out.h5 --xmf $out.xmf --msh "$m" --np $np --same-as ref_$name.h5
        if [ $np = 1 ]; then # np 1: every dataset, owner ranks included, is the one-round file's
          dump $out.h5 > got.txt
          cmp -s got.txt ref_$name.txt || fail "$out: datasets differ from one round's"
        fi
      done
    done
  done
  # PMESH_H5_WIDE=1: connectivity as int64 (the writer's path for 2^31 nodes and more), the
  # same values as the int32 file's.
  PMESH_H5_WIDE=1 PMESH_H5_ROWS=5 run 2 "$T" write p_${name}_2 wide_$name --shuffle > /dev/null || fail "write $name np 2 wide"
  set -- "$@" --and wide_$name.h5 --xmf wide_$name.xmf --msh "$m" --np 2 --same-as ref_$name.h5 --wide
  $PY "$CHECK" "$@" || fail "check_h5.py: the files of $name written in rounds"
  # Restarts from a file written in rounds, read at another np.
  PMESH_H5_ROWS=5 run 3 "$T" read p_${name}_3 r_${name}_2_5_shuffle.h5 || fail "restart np 3 from $name np 2 rows 5 (read in rounds of 5)"
  run 2 "$T" read p_${name}_2 r_${name}_1_1_shuffle.h5 || fail "restart np 2 from $name np 1 rows 1"
  echo "ok: $name at np 1 (rows 1 5 64), 2 (rows 5 64), 3 (rows 64), in order and shuffled"
done
# Owner ranks are the same whatever the rounds: compare with a one-round file at np 2.
run 2 "$T" write p_mixed_2 one_mixed_2 > /dev/null || fail "write mixed np 2 (one round)"
for rows in 5 64; do
  for d in /fields/node_rank /fields/cell_rank /fields/cell_group; do
    h5text one_mixed_2.h5 $d > a.txt
    h5text r_mixed_2_${rows}_plain.h5 $d > b.txt
    cmp -s a.txt b.txt || fail "$d differs between one round and rounds of $rows (np 2)"
  done
done
# A series in rounds of 5 at np 2 holds what one round writes.
run 2 "$T" series p_mixed_2 s_one > /dev/null || fail "series np 2 (one round)"
PMESH_H5_ROWS=5 run 2 "$T" series p_mixed_2 s_five > /dev/null || fail "series np 2 rows 5"
$PY "$CHECK" s_five.h5 --xmf s_five.xmf --series 3 --np 2 --same-as ref_mixed.h5 || fail "check series rows 5"
dump s_one.h5 > a.txt
dump s_five.h5 > b.txt
cmp -s a.txt b.txt || fail "series: rounds of 5 differ from one round"
PMESH_H5_ROWS=7 run 3 "$T" read p_mixed_3 s_five.h5 1 2 || fail "restart np 3 from the series in rounds, step 1"
echo "ok: owner ranks, series and restarts in rounds"
