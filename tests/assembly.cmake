# Unit tests of the assembly modules.  Included from tests/CMakeLists.txt.
#  - test_csr: pm_csr's structure (hand-built local meshes, rows written out by hand), pm_csr_find,
#    the product and the compact copies, by hand on a bar and on partitioned bundled meshes against
#    a product over the global mesh computed by the test itself, at 1-4 ranks.
pmesh_unit(test_csr test_csr.c NP 1 2 3 4 LABELS csr TIMEOUT 120)
if(PMESH_SANITIZE) # see halo.cmake: MPICH's own leak at exit
  foreach(t IN ITEMS test_csr_np1 test_csr_np2 test_csr_np3 test_csr_np4)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
  endforeach()
endif()
#  - test_fem: pm_fem's element matrices, load vectors, mass matrices, Neumann fluxes, the 5-point
#    stencil, the Dirichlet elimination and the backward-Euler system against hand-computed ones, on
#    meshes built in memory (serial: pm_fem is not collective).
pmesh_unit(test_fem test_fem.c NP 1 LABELS fem TIMEOUT 60)
