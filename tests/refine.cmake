# Tests of pm_refine: refined partitions pass partition --check at several rank counts and
# levels, the numbering is the same for any rank count, sizes and measures as computed
# independently, gmsh -refine's nodes, bad levels refused.
add_executable(refine_dump refine_dump.c)
target_compile_options(refine_dump PRIVATE ${PMESH_WARNINGS})
target_link_libraries(refine_dump PRIVATE pmesh::pmesh)
