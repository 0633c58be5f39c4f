# Tests of pm_comm's waits (pm_comm_allreduce, pm_comm_waitall, pm_comm_yields).  Included from
# tests/CMakeLists.txt.  test_comm checks the values at 1-8 ranks (yielding wherever the ranks
# outnumber the CPUs); comm_yield checks when it yields.
pmesh_unit(test_comm test_comm.c NP 1 2 3 8 LABELS comm TIMEOUT 120)
pmesh_script(comm_yield comm/yield.sh LABELS comm TIMEOUT 120)
if(PMESH_SANITIZE) # see halo.cmake: MPICH's own leak at exit
  foreach(t IN ITEMS test_comm_np1 test_comm_np2 test_comm_np3 test_comm_np8 comm_yield)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
  endforeach()
endif()
