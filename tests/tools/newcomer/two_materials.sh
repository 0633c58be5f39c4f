# A two-material mesh (tests/newcomer/two.geo: "copper" and "steel" side by side) solved with a
# conductivity and a source per group: the result file's attributes name both groups with their
# values, the boundary conditions and the exact solution's errors, and /fields/cell_group gives
# each element's physical group (as the mesh file says, read here with awk).
. "$PMESH_TESTS/common/work.sh"
msh="$PMESH_TESTS/tools/newcomer/two.msh"
"$PARTITION" "$msh" 3 -o two > part.out
grep -q "group copper .* 2D, 42 elements" part.out || fail "partition does not list the groups: $(cat part.out)"
grep -q "group left .* 1D, 4 faces" part.out || fail "partition does not list the boundary groups"
"$MPIEXEC" -n 3 "$SOLVE" -p two -o r.h5 --conductivity copper=400 --conductivity steel=50 --source copper=5 \
  --source steel=1 --dirichlet left=0 --dirichlet 'right=1+y' --exact x > solve.out || fail "solve failed"
attr() { h5dump -a "/$1" r.h5 | sed -n 's/^ *(0): //p' | tr -d '"'; }
[ "$(attr conductivity)" = "1; copper=400; steel=50" ] || fail "conductivity attribute: $(attr conductivity)"
[ "$(attr source)" = "1; copper=5; steel=1" ] || fail "source attribute: $(attr source)"
[ "$(attr dirichlet)" = "left=0; right=1+y" ] || fail "dirichlet attribute: $(attr dirichlet)"
[ "$(attr exact)" = "x" ] || fail "exact attribute: $(attr exact)"
attr error_l2 | grep -q '[0-9]' || fail "no error_l2 attribute"
attr solve_options | grep -q -- "--conductivity copper=400 --conductivity steel=50" || fail "solve_options"
[ "$(attr cell_group_names)" = "2=copper; 3=steel" ] || fail "cell_group_names: $(attr cell_group_names)"
[ "$(attr mesh_file)" = "$msh" ] || fail "mesh_file: $(attr mesh_file)"
grep -q 'Name="cell_group"' r.xmf || fail "no cell_group in the XDMF"
grep -q 'Name="node_rank"' r.xmf && grep -q 'Name="cell_rank"' r.xmf || fail "no node_rank/cell_rank in the XDMF"
# The mesh file's 2D elements in file order with their physical tags (3 copper, 4 steel) as
# group indices, against the file's cell_group.
awk '/^\$Elements/{e=1; getline; next} /^\$EndElements/{e=0} e && $2 == 2 {print ($4 == 3) ? 2 : 3}' "$msh" > want.txt
h5dump -d /fields/cell_group -y -w 1 r.h5 | sed -n '/DATA {/,/}/p' | tr -d ' ,' | grep -E '^-?[0-9]+$' > got.txt
[ -s want.txt ] && cmp -s want.txt got.txt || fail "cell_group differs from the mesh's physical groups"
# A source on one group only: the other elements keep the default (1), and the file says so.
"$MPIEXEC" -n 3 "$SOLVE" -p two -o one.h5 --source copper=5 --dirichlet left=0 > one.out || fail "--source copper=5"
[ "$(h5dump -a /source one.h5 | sed -n 's/^ *(0): //p' | tr -d '"')" = "1; copper=5" ] || fail "source of one group"
# --rtol 0 --maxit N: a fixed number of iterations is a success, steady and transient.
"$MPIEXEC" -n 3 "$SOLVE" -p two --no-output --rtol 0 --maxit 5 > r0.out || fail "--rtol 0 --maxit 5 failed"
grep -q "ran 5 iterations" r0.out || fail "--rtol 0: $(cat r0.out)"
"$MPIEXEC" -n 3 "$SOLVE" -p two --no-output --rtol 0 --maxit 3 --dt 0.1 --steps 2 > r1.out ||
  fail "--rtol 0 transient failed"
echo "two materials: attributes and cell_group match the mesh; --rtol 0 exits 0"
