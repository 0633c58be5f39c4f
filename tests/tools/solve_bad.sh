# Bad input and failures of solve at NP ranks: every case must end every rank promptly with a
# non-zero exit and a message naming the problem (expect_fail.sh: no crash, no hang, no exit 0).
. "$PMESH_TESTS/common/work.sh"
np=$1
last=$((np - 1))
"$MESHGEN" grid 6 5 -o g.msh
"$PARTITION" g.msh $np -o good --quiet
"$PARTITION" g.msh $((np + 1)) -o more --quiet
"$PARTITION" "$PMESH_MESHES/square.msh" $np -o other --quiet
n=0
expect() { # fragment, seconds, solve arguments...
  frag=$1; limit=$2; shift 2
  sh "$EXPECT_FAIL" "$frag" "$limit" "$MPIEXEC" -n $np "$SOLVE" "$@" || fail "case $((n + 1)): solve $*"
  n=$((n + 1))
}
# args_only ...: as expect, at np 1 only: a command line that every rank reads the same and
# refuses before any collective step.  That it ends every rank is one path, shown at every np by
# the unknown option and the unparsable expression below; the other refusals' messages at np 1.
args_only() {
  [ $np = 1 ] || return 0
  expect "$@"
}
expect "has $((np + 1)) parts but the job has $np ranks" 20 -p more
expect "cannot open" 20 -p no_such_dir
cp -r good miss && rm miss/local.$last
expect "[rank $last] miss/local.$last: cannot open" 10 -p miss
cp -r good trunc && head -c 300 good/local.$last > trunc/local.$last
expect "[rank $last] trunc/local.$last:" 10 -p trunc
cp -r good mixed && cp other/local.$last mixed/local.$last
expect "belongs to another partition" 20 -p mixed
expect "no group 'nosuch'; its groups are: " 20 -p good --dirichlet nosuch=0
expect "unknown option '--bogus'" 20 -p good --bogus
args_only "needs a value" 20 -p good --rtol
args_only "expected a number, got 'abc'" 20 -p good --rtol abc
args_only "out of range" 20 -p good --rtol 2
args_only "expected an integer, got '10x'" 20 -p good --maxit 10x
expect "cannot parse the expression '1+'" 20 -p good --source '1+'
args_only "uses the variable 's'" 20 -p good --source 's*2'
args_only "--source: uses the time t, which only a transient run" 20 -p good --source 't*2'
expect "is not finite" 20 -p good --source 'log(x-100)'
expect "the problem is singular" 20 -p good --neumann boundary=1
expect "did not converge in 2 iterations" 20 -p good --maxit 2
args_only "expected fem, fdm5 or fdm7" 20 -p good --scheme fvm
args_only "expected none, jacobi, amg, mg or auto" 20 -p good --precond ilu
args_only "isend" 20 -p good --exchange carrier-pigeon
expect "fluxes go on 1D boundary groups" 20 -p good --neumann domain=1
args_only "must end in .h5" 20 -p good -o result.txt
"$PARTITION" "$PMESH_MESHES/disk_hole.msh" $np -o disk --quiet
expect "--scheme fdm5: the mesh has " 20 -p disk --scheme fdm5
printf '15\n1.0 1.0 1.0\n' > short.dat
expect "short.dat:" 20 -p good short.dat
printf '29\n1.0 1.0 1.0 1.0\n100\n1e-8\n' > neg.dat
expect "NEg = 29, but the partition in good has 20 elements" 20 -p good neg.dat
echo "$n failure cases at np=$np ended cleanly"
