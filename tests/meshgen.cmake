# meshgen: the lecture's bar and grids as MSH 4.1 files.  Included from tests/CMakeLists.txt.
#  - reference runs: output compared byte for byte with hand-checked files in tests/meshgen/;
#  - check runs: check.awk recomputes tags, coordinates, orientation and coverage;
#  - bad options: each must fail cleanly with the right message (expect_fail.sh);
#  - atomic output, the 1M-node grid's speed, and (only when gmsh is installed) Gmsh reading
#    and rewriting what meshgen writes.

# Reference files: REF, then meshgen's arguments.
set(PMESH_MESHGEN_REFS
  "line_3_0.5.msh\;line\;3\;0.5"
  "grid_3x2_tri.msh\;grid\;3\;2\;--tri"
  "grid_3x3_2x2.msh\;grid\;3\;3\;2\;2")
foreach(ref IN LISTS PMESH_MESHGEN_REFS)
  list(GET ref 0 file)
  string(REGEX REPLACE "\\.msh$" "" base "${file}")
  pmesh_script(meshgen_ref_${base} meshgen/ref.sh ARGS ${ref} TIMEOUT 20 LABELS meshgen)
endforeach()

foreach(args IN ITEMS "line;1;1" "line;15;1" "grid;8;8" "grid;8;8;--tri" "grid;2;2" "grid;2;5;--tri"
                      "grid;7;2" "grid;40;30;--tri")
  string(REPLACE ";" "_" name "${args}")
  string(REPLACE "--" "" name "${name}")
  pmesh_script(meshgen_check_${name} meshgen/check.sh ARGS ${args} TIMEOUT 20 LABELS meshgen)
endforeach()

# The box (3D): every cell type, a one-cell box, uneven sizes and lengths, checked by an
# independent reader.
foreach(args IN ITEMS "2;2;2" "4;3;5;1;2;3" "2;2;2;--tet" "4;3;5;1;2;3;--tet" "2;2;2;--prism" "5;4;3;2;1;0.5;--prism")
  string(REPLACE ";" "_" name "${args}")
  string(REPLACE "--" "" name "${name}")
  string(REPLACE "." "p" name "${name}")
  pmesh_script(meshgen_box_${name} meshgen/check_box.sh ARGS ${args} TIMEOUT 60 LABELS meshgen)
endforeach()

pmesh_script(meshgen_atomic meshgen/atomic.sh TIMEOUT 30 LABELS meshgen)
pmesh_script(meshgen_big meshgen/big.sh TIMEOUT 60 LABELS "meshgen;perf")

add_test(NAME meshgen_help
         COMMAND sh -c "out=$(\"$1\" --help) && case \"$out\" in 'usage: meshgen line'*) exit 0;; esac; exit 1"
                 sh $<TARGET_FILE:meshgen>)
add_test(NAME meshgen_version
         COMMAND sh -c "out=$(\"$1\" --version) && [ \"$out\" = \"$2\" ]"
                 sh $<TARGET_FILE:meshgen> "meshgen (pmesh) ${PROJECT_VERSION}")
set_tests_properties(meshgen_help meshgen_version PROPERTIES TIMEOUT 20 LABELS meshgen)

# Bad invocations: NAME, stderr fragment, arguments.  Each is its own test.
function(pmesh_meshgen_bad name frag)
  add_test(NAME meshgen_bad_${name}
           COMMAND sh ${PMESH_EXPECT_FAIL} "${frag}" 10 $<TARGET_FILE:meshgen> ${ARGN}
           WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
  set_tests_properties(meshgen_bad_${name} PROPERTIES TIMEOUT 20 LABELS "meshgen;bad-input")
endfunction()
set(o -o bad_meshgen.msh)
pmesh_meshgen_bad(no_args "meshgen: error: missing mesh kind")
pmesh_meshgen_bad(kind "meshgen: error: unknown mesh kind 'cube'" cube 3 ${o})
pmesh_meshgen_bad(option "meshgen: error: unknown option '--bogus'" grid 3 3 --bogus ${o})
pmesh_meshgen_bad(no_output "meshgen: error: missing output file" line 3 1)
pmesh_meshgen_bad(output_value "meshgen: error: option '-o' needs a value" line 3 1 -o)
pmesh_meshgen_bad(line_args "meshgen: error: 'line' takes exactly 2 numbers" line 3 ${o})
pmesh_meshgen_bad(line_extra "meshgen: error: 'line' takes exactly 2 numbers" line 3 1 2 ${o})
pmesh_meshgen_bad(line_tri "meshgen: error: option '--tri' applies to 'grid' only" line 3 1 --tri ${o})
pmesh_meshgen_bad(ne_text "meshgen: error: NE must be an integer, got 'abc'" line abc 1 ${o})
pmesh_meshgen_bad(ne_junk "meshgen: error: NE must be an integer, got '3x'" line 3x 1 ${o})
pmesh_meshgen_bad(ne_float "meshgen: error: NE must be an integer, got '3.5'" line 3.5 1 ${o})
pmesh_meshgen_bad(ne_zero "meshgen: error: NE = 0 is out of range" line 0 1 ${o})
pmesh_meshgen_bad(ne_negative "meshgen: error: NE = -2 is out of range" line -2 1 ${o})
pmesh_meshgen_bad(ne_overflow "meshgen: error: NE = 99999999999999999999 is out of range"
                  line 99999999999999999999 1 ${o})
pmesh_meshgen_bad(ne_huge "meshgen: error: NE = 1000000000 is out of range" line 1000000000 1 ${o})
pmesh_meshgen_bad(dx_zero "meshgen: error: DX = 0 is out of range" line 3 0 ${o})
pmesh_meshgen_bad(dx_negative "meshgen: error: DX = -0.5 is out of range" line 3 -0.5 ${o})
pmesh_meshgen_bad(dx_junk "meshgen: error: DX must be a number, got '0.5m'" line 3 0.5m ${o})
pmesh_meshgen_bad(dx_inf "meshgen: error: DX = inf is out of range" line 3 inf ${o})
pmesh_meshgen_bad(dx_nan "meshgen: error: DX = nan is out of range" line 3 nan ${o})
pmesh_meshgen_bad(dx_overflow "meshgen: error: DX = 1e999 is out of range" line 3 1e999 ${o})
pmesh_meshgen_bad(dx_underflow "meshgen: error: DX = 1e-999 is out of range" line 3 1e-999 ${o})
pmesh_meshgen_bad(length_overflow "meshgen: error: the bar length NE*DX" line 1000 1e306 ${o})
pmesh_meshgen_bad(grid_args "meshgen: error: 'grid' takes NX NY or NX NY LX LY" grid 3 ${o})
pmesh_meshgen_bad(grid_lx_only "meshgen: error: 'grid' takes NX NY or NX NY LX LY" grid 3 3 2 ${o})
pmesh_meshgen_bad(nx_one "meshgen: error: NX = 1 is out of range" grid 1 3 ${o})
pmesh_meshgen_bad(ny_junk "meshgen: error: NY must be an integer, got '4e'" grid 3 4e ${o})
pmesh_meshgen_bad(grid_huge "meshgen: error: NX*NY = 10000000000 nodes is too many"
                  grid 100000 100000 ${o})
pmesh_meshgen_bad(lx_zero "meshgen: error: LX = 0 is out of range" grid 3 3 0 1 ${o})
pmesh_meshgen_bad(box_args "meshgen: error: 'box' takes NX NY NZ or NX NY NZ LX LY LZ" box 3 3 ${o})
pmesh_meshgen_bad(box_lengths "meshgen: error: 'box' takes NX NY NZ or NX NY NZ LX LY LZ" box 3 3 3 1 1 ${o})
pmesh_meshgen_bad(box_nz_one "meshgen: error: NZ = 1 is out of range" box 3 3 1 ${o})
pmesh_meshgen_bad(box_lz_negative "meshgen: error: LZ = -1 is out of range" box 3 3 3 1 1 -1 ${o})
pmesh_meshgen_bad(box_huge "meshgen: error: NX*NY*NZ is too many nodes" box 2000 2000 2000 ${o})
pmesh_meshgen_bad(box_tri "meshgen: error: option '--tri' applies to 'grid' only" box 3 3 3 --tri ${o})
pmesh_meshgen_bad(box_both "meshgen: error: options '--tet' and '--prism' exclude each other"
                  box 3 3 3 --tet --prism ${o})
pmesh_meshgen_bad(grid_tet "meshgen: error: option '--tet' applies to 'box' only" grid 3 3 --tet ${o})
pmesh_meshgen_bad(line_prism "meshgen: error: option '--prism' applies to 'box' only" line 3 1 --prism ${o})
pmesh_meshgen_bad(ly_negative "meshgen: error: LY = -1 is out of range" grid 3 3 1 -1 ${o})

# Empty arguments: ${ARGN} would drop them, so these two are spelled out.
add_test(NAME meshgen_bad_output_empty
         COMMAND sh ${PMESH_EXPECT_FAIL} "meshgen: error: option '-o': the output file name is empty"
                 10 $<TARGET_FILE:meshgen> line 3 1 -o "")
add_test(NAME meshgen_bad_ne_empty
         COMMAND sh ${PMESH_EXPECT_FAIL} "meshgen: error: NE must be an integer, got ''"
                 10 $<TARGET_FILE:meshgen> line "" 1 -o bad_meshgen.msh)
set_tests_properties(meshgen_bad_output_empty meshgen_bad_ne_empty PROPERTIES
                     TIMEOUT 20 LABELS "meshgen;bad-input"
                     WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})

# Gmsh reads meshgen's files and writes them back unchanged -- only where gmsh is installed
# (CI may not install it).
find_program(GMSH gmsh)
if(GMSH)
  foreach(ref IN LISTS PMESH_MESHGEN_REFS)
    list(GET ref 0 file)
    string(REGEX REPLACE "\\.msh$" "" base "${file}")
    pmesh_script(meshgen_gmsh_${base} meshgen/gmsh_read.sh ARGS ${GMSH} ${ref} TIMEOUT 60
                 LABELS meshgen)
  endforeach()
else()
  message(STATUS "pmesh: gmsh not found; the meshgen_gmsh_* tests are skipped")
endif()
