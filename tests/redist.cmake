# Tests of the redistribution plan (pm_redist).  Included from tests/CMakeLists.txt.  test_redist
# checks plans of many shapes (owners at random, in blocks, all on one rank, blocks reversed;
# roots in order or shuffled, with or without a row map; rounds of 1 row to the most) against
# leaves computed in the test, and plans that must fail.
pmesh_unit(test_redist test_redist.c NP 1 2 3 4 LABELS redist TIMEOUT 300 INTERNAL)
if(PMESH_SANITIZE) # see halo.cmake: MPICH's own leak at exit
  foreach(np IN ITEMS 1 2 3 4)
    set_property(TEST test_redist_np${np} APPEND PROPERTY ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
  endforeach()
endif()
