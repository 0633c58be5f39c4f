# The examples in examples/ (built by examples/CMakeLists.txt), each run with its
# result checked against a value from outside the code: the lecture's T(15) = 112.5 (from its
# local files, and on the example's own arrays through a shell operator), the exact steady state
# x + y, the owners' records and the count of local copies.
pmesh_script(example_lecture_heat1d examples/lecture_heat1d.sh ARGS $<TARGET_FILE:lecture_heat1d>
             LABELS "examples;lecture" TIMEOUT 120)
pmesh_script(example_heat_explicit examples/heat_explicit.sh ARGS $<TARGET_FILE:heat_explicit>
             LABELS "examples;h5" TIMEOUT 300)
pmesh_script(example_struct_halo examples/struct_halo.sh ARGS $<TARGET_FILE:struct_halo>
             LABELS "examples;halo;lecture" TIMEOUT 300)
pmesh_script(example_shell_heat1d examples/shell_heat1d.sh ARGS $<TARGET_FILE:shell_heat1d>
             LABELS "examples;operator" TIMEOUT 120)
if(PMESH_SANITIZE) # MPICH's start-up leaks (see halo.cmake)
  set_property(TEST example_lecture_heat1d example_heat_explicit example_struct_halo example_shell_heat1d APPEND
               PROPERTY ENVIRONMENT "ASAN_OPTIONS=detect_leaks=0")
endif()
