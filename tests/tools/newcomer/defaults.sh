# The defaults: solve --precond auto takes jacobi on small meshes (the lecture's) and with
# --reproducible, amg on large ones; partition --order auto keeps the numbering of small meshes
# and renumbers large ones along a Hilbert curve.
. "$PMESH_TESTS/common/work.sh"
"$MESHGEN" grid 8 8 -o g8.msh > /dev/null
"$PARTITION" g8.msh 2 -o small > small.out
grep -q "order none (auto)" small.out || fail "small mesh: $(head -1 small.out)"
"$MPIEXEC" -n 2 "$SOLVE" -p small --no-output > s.out || fail "solve on the 8x8 grid"
grep -q "precond jacobi (auto)" s.out || fail "small: $(head -1 s.out)"
"$MESHGEN" grid 230 230 --tri -o big.msh > /dev/null
"$PARTITION" big.msh 2 -o big > big.out
grep -q "order hilbert (auto)" big.out || fail "large mesh: $(head -1 big.out)"
"$PARTITION" big.msh 2 -o bignone --order none --quiet
"$MPIEXEC" -n 2 "$SOLVE" -p bignone --no-output --rtol 1e-4 > b.out || fail "solve on the large grid"
grep -q "precond amg (auto)" b.out || fail "large: $(head -1 b.out)"
"$MPIEXEC" -n 2 "$SOLVE" -p bignone --no-output --rtol 1e-4 --reproducible > br.out || fail "reproducible"
grep -q "precond jacobi (auto)" br.out || fail "large, --reproducible: $(head -1 br.out)"
"$MPIEXEC" -n 2 "$SOLVE" -p bignone --no-output --rtol 1e-4 --amg-sweeps 1 > ba.out || fail "--amg-sweeps"
grep -q "precond amg" ba.out || fail "--amg-sweeps with auto: $(head -1 ba.out)"
"$SOLVE" --help | grep -q "default auto: amg from" || fail "solve --help does not state the default"
"$PARTITION" --help | grep -q "auto (default: hilbert from" || fail "partition --help does not state the default"
echo "defaults: jacobi/none on small meshes and with --reproducible, amg/hilbert on large ones"
