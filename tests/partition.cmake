# Tests of partition: the lecture's tables, every bundled mesh, determinism, --check, bad input.
add_executable(lecture_check lecture_check.c)
target_compile_options(lecture_check PRIVATE ${PMESH_WARNINGS})
target_link_libraries(lecture_check PRIVATE pmesh::pmesh)

pmesh_unit(test_local_fmt test_local_fmt.c NP 1 LABELS local INTERNAL)

pmesh_script(partition_lecture2d partition/lecture2d.sh LABELS "partition;lecture")
pmesh_script(partition_lecture1d partition/lecture1d.sh LABELS "partition;lecture")
pmesh_script(partition_all_meshes partition/all_meshes.sh LABELS "partition" TIMEOUT 600)
pmesh_script(partition_determinism partition/determinism.sh LABELS "partition")
pmesh_script(partition_check_catches partition/check_catches.sh LABELS "partition")

set(P $<TARGET_FILE:partition>)
set(PMESH_TESTS_SRC ${CMAKE_CURRENT_SOURCE_DIR})
set(M ${PMESH_MESHES}/square.msh)
pmesh_bad(partition_no_args "expected MESH and NPARTS" ${P})
pmesh_bad(partition_unknown_opt "unknown option '--frobnicate'" ${P} ${M} 2 --frobnicate)
pmesh_bad(partition_missing_value "needs a value" ${P} ${M} 2 -o)
pmesh_bad(partition_nparts_text "expected an integer, got 'four'" ${P} ${M} four)
pmesh_bad(partition_nparts_zero "out of range" ${P} ${M} 0)
pmesh_bad(partition_nparts_junk "expected an integer, got '4x'" ${P} ${M} 4x)
pmesh_bad(partition_nparts_huge "out of range" ${P} ${M} 99999999999999999999)
pmesh_bad(partition_too_many_parts "every part needs at least one node" ${P} ${PMESH_TESTS_SRC}/meshgen/line_3_0.5.msh 9 -o bad_tmp)
pmesh_bad(partition_bad_method "expected metis, metis-rb, rcb or file:PATH" ${P} ${M} 2 --method magic)
pmesh_bad(partition_bad_halo "expected element or edge" ${P} ${M} 2 --halo face)
pmesh_bad(partition_bad_seed "--seed" ${P} ${M} 2 --seed -1)
pmesh_bad(partition_missing_mesh "cannot open" ${P} nonexistent.msh 2 -o bad_tmp)
pmesh_bad(partition_dir_as_mesh "is a directory" ${P} ${PMESH_MESHES} 2 -o bad_tmp)
pmesh_bad(partition_partfile_missing "cannot open" ${P} ${M} 2 --method file:nonexistent.part -o bad_tmp)
pmesh_bad(partition_partfile_short "part ids; the mesh has" ${P} ${PMESH_TESTS_SRC}/meshgen/line_3_0.5.msh 2 --method file:${PMESH_TESTS_SRC}/bad/part/short.part -o bad_tmp)
pmesh_bad(partition_partfile_range "part id must be in [0, 1]" ${P} ${PMESH_TESTS_SRC}/meshgen/line_3_0.5.msh 2 --method file:${PMESH_TESTS_SRC}/bad/part/range.part -o bad_tmp)
pmesh_bad(partition_partfile_text "expected part id" ${P} ${PMESH_TESTS_SRC}/meshgen/line_3_0.5.msh 2 --method file:${PMESH_TESTS_SRC}/bad/part/text.part -o bad_tmp)
pmesh_bad(partition_partfile_empty_part "part 1 is empty" ${P} ${PMESH_TESTS_SRC}/meshgen/line_3_0.5.msh 2 --method file:${PMESH_TESTS_SRC}/bad/part/onepart.part -o bad_tmp)
pmesh_bad(partition_partfile_long "more part ids" ${P} ${PMESH_TESTS_SRC}/meshgen/line_3_0.5.msh 2 --method file:${PMESH_TESTS_SRC}/bad/part/long.part -o bad_tmp)
pmesh_bad(partition_check_nodir "cannot open" ${P} --check nonexistent_dir)
pmesh_bad(partition_outdir_is_file "is not a directory" ${P} ${M} 2 -o ${M})
pmesh_script(partition_msh22_copies partition/copies22.sh LABELS "partition")
pmesh_script(partition_tag_paths partition/tag_paths.sh LABELS "partition")
# test_part: node graphs, partitions and every rank's local mesh of pm_part's plans, for every
# bundled mesh, both halo kinds, metis, metis-rb, rcb and a part file, several part counts, against
# the test's own computation from the global mesh (serial: pm_part is not collective).
pmesh_unit(test_part test_part.c NP 1 LABELS partition TIMEOUT 300)
# test_order: --order hilbert keeps the mesh (coordinates, elements, faces, groups) and makes its
# numbering local (a scrambled mesh's spread falls from ~n/3 to below sqrt(n)).
pmesh_unit(test_order test_order.c NP 1 LABELS partition)
pmesh_script(partition_order partition/order.sh LABELS "partition")
pmesh_bad(partition_order_unknown "--order: unknown order 'rcm' (expected none or hilbert)" ${P} ${M} 2 --order rcm)
pmesh_bad(partition_order_file "the part file lists nodes in the mesh file's order" ${P} ${M} 2 --order hilbert
          --method file:parts.txt)
