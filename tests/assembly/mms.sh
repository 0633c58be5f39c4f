# Manufactured solution u = sin(pi x) sin(pi y) on the unit square: the max-norm error falls by
# about 4x per halving of h (second order) for P1 triangles, Q1 quadrangles and fdm5.
. "$PMESH_TESTS/common/work.sh"
scheme=$1
precond=${2:-jacobi} # amg: the same orders with the AMG preconditioner
prev=""
for n in 9 17 33 65; do
  case $scheme in
    p1) "$MESHGEN" grid $n $n 1 1 --tri -o g.msh; halo=element; s=fem ;;
    q1) "$MESHGEN" grid $n $n 1 1 -o g.msh; halo=element; s=fem ;;
    fdm5) "$MESHGEN" grid $n $n 1 1 -o g.msh; halo=edge; s=fdm5 ;;
  esac
  "$PARTITION" g.msh 3 --halo $halo -o p --quiet
  "$MPIEXEC" -n 3 "$SOLVE" --no-output -p p --scheme $s --precond $precond --source '2*pi^2*sin(pi*x)*sin(pi*y)' --dirichlet boundary=0 \
    --exact 'sin(pi*x)*sin(pi*y)' --rtol 1e-12 --summary s.json > out.txt
  err=$(sed -n 's/.*"error_max": \([^,]*\),.*/\1/p' s.json)
  [ -n "$err" ] || fail "no error_max in the summary"
  if [ -n "$prev" ]; then
    ratio=$(awk -v a="$prev" -v b="$err" 'BEGIN { print a / b }')
    echo "$scheme n=$n: max error $err, ratio $ratio"
    awk -v r="$ratio" 'BEGIN { exit !(r > 3.4 && r < 4.6) }' || fail "$scheme: error ratio $ratio is not about 4"
  else
    echo "$scheme n=$n: max error $err"
  fi
  prev=$err
done
awk -v e="$prev" 'BEGIN { exit !(e < 2e-3) }' || fail "$scheme: error $prev on the finest grid is too large"
