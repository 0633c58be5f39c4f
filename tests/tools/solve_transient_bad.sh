# Bad transient and restart options: every case ends every rank promptly with a non-zero exit and
# a message naming the problem.
. "$PMESH_TESTS/common/work.sh"
"$MESHGEN" grid 6 5 -o g.msh
"$PARTITION" g.msh 2 -o good --quiet
"$PARTITION" g.msh 2 --halo edge -o edge --quiet
"$MPIEXEC" -n 2 "$SOLVE" -p good -o ok.h5 --dt 0.1 --steps 2 > /dev/null
n=0
expect() { # fragment, solve arguments...
  frag=$1; shift
  sh "$EXPECT_FAIL" "$frag" 30 "$MPIEXEC" -n 2 "$SOLVE" "$@" || fail "case $((n + 1)): solve $*"
  n=$((n + 1))
}
expect "--dt 0: the time step must be a positive finite number" -p good --dt 0 --steps 2
expect "--dt -1: the time step must be a positive finite number" -p good --dt -1 --steps 2
expect "--dt inf: the time step must be a positive finite number" -p good --dt inf --steps 2
expect "--dt abc: the time step must be a positive finite number" -p good --dt abc --steps 2
expect "--steps 0: expected at least 1" -p good --dt 0.1 --steps 0
expect "--every 0: expected at least 1" -p good --dt 0.1 --steps 2 --every 0
expect "--mass foo: expected consistent or lumped" -p good --dt 0.1 --steps 2 --mass foo
expect "--dt without --steps" -p good --dt 0.1
expect "--steps without --dt" -p good --steps 3
expect "--every applies to transient runs" -p good --every 2
expect "--scheme fdm5 has no consistent mass matrix" -p edge --scheme fdm5 --dt 0.1 --steps 2 --mass consistent
expect "missing.h5: cannot open" -p good --dt 0.1 --steps 2 --initial missing.h5
expect "no field 'nosuch'" -p good --dt 0.1 --steps 2 --initial ok.h5 --initial-field nosuch
expect "no step 7: the series has 3 steps" -p good --dt 0.1 --steps 2 --initial ok.h5 --initial-step 7
expect "--initial-field needs --initial" -p good --initial-field u
expect "exclude each other" -p good --initial ok.h5 --initial-value 1
expect "cannot parse the expression '1+'" -p good --dt 0.1 --steps 2 --initial-value '1+'
printf 'not hdf5\n' > text.h5
expect "not an HDF5 file" -p good --initial text.h5
# A failing transient run (CG limit) keeps the previous result.
cp ok.h5 keep.h5
expect "did not converge at step 1" -p good -o ok.h5 --dt 0.1 --steps 2 --maxit 1 --rtol 1e-12
cmp ok.h5 keep.h5 || fail "a failed transient run changed the previous result"
echo "$n bad transient/restart cases ended cleanly"
