# solve writes result.h5 + result.xmf: values equal to what it computed, the same file for
# np = 1, 3, 8, a linear field exact at interface nodes (np 1 and 3: np 3 has the interfaces; an
# 8-rank run costs seconds on 2 cores), 1D results as a Polyline; an earlier result survives a
# failed run.
. "$PMESH_TESTS/common/work.sh"
PY=python3
$PY -c 'import h5py' 2>/dev/null || PY=/usr/bin/python3
CHECK="$PMESH_TESTS/common/check_result.py"
for mesh in mixed disk_hole; do
  nps="1 3 8"
  [ $mesh = disk_hole ] && nps="1 3"
  for np in $nps; do
    "$PARTITION" "$PMESH_MESHES/$mesh.msh" $np -o p.$np --quiet
    "$MPIEXEC" -n $np "$SOLVE" -p p.$np -o $mesh.$np.h5 --rtol 1e-12 --dump-solution d.$np > out.$np
    same=""; [ $np -gt 1 ] && same="--same-as $mesh.1.h5"
    $PY "$CHECK" $mesh.$np.h5 d.$np $np $same || fail "$mesh np=$np"
    # linear field: f = 0, u = x + 2y on the boundary
    [ $np = 8 ] && continue
    "$MPIEXEC" -n $np "$SOLVE" -p p.$np -o lin.$np.h5 --source 0 --dirichlet 'boundary=x+2*y' --rtol 1e-13 \
      --dump-solution l.$np > lout.$np
    $PY "$CHECK" lin.$np.h5 l.$np $np --linear || fail "$mesh np=$np linear field"
  done
done
"$MESHGEN" line 15 1.0 -o bar.msh
"$PARTITION" bar.msh 4 --method rcb -o bar4 --quiet
"$MPIEXEC" -n 4 "$SOLVE" -p bar4 -o bar.h5 --dirichlet xmin=0 --dump-solution b > bout
$PY "$CHECK" bar.h5 b 4 --polyline || fail "1D result"
# A failed run (bad option values are caught before anything is written; a non-converging run
# does write) never damages the previous result.
cp bar.h5 keep.h5
sh "$EXPECT_FAIL" "is not finite" 30 "$MPIEXEC" -n 4 "$SOLVE" -p bar4 -o bar.h5 --source 'log(x-100)' ||
  fail "a NaN source did not fail cleanly"
cmp bar.h5 keep.h5 || fail "the previous result was changed by a failed run"
