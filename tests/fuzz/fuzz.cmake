# libFuzzer harness of the MSH reader (-DPMESH_FUZZ=ON, clang only).  It compiles the reader's
# sources itself, so the library keeps its normal flags.  `ctest -L fuzz` runs it for a minute;
# longer runs: build-dir/tests/fuzz_msh -dict=tests/fuzz/msh.dict CORPUS tests/fuzz/corpus_msh
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "PMESH_FUZZ needs clang: configure with -DCMAKE_C_COMPILER=clang")
endif()
set(_src "${CMAKE_CURRENT_SOURCE_DIR}/../src")
add_executable(fuzz_msh fuzz/fuzz_msh.c ${_src}/mesh/pm_msh.c ${_src}/mesh/pm_msh_rd.c ${_src}/mesh/pm_msh_ent.c ${_src}/base/pm_scan.c ${_src}/base/pm_error.c ${_src}/base/pm_alloc.c)
target_include_directories(fuzz_msh PRIVATE ${_src} ${CMAKE_CURRENT_SOURCE_DIR}/../include)
# Small buffers: fast runs, and window refills and chunked binary reads even in small inputs.
target_compile_definitions(fuzz_msh PRIVATE PM_SCAN_WINDOW_BYTES=4096 PM_MSH_SCRATCH_BYTES=512)
target_compile_options(fuzz_msh PRIVATE -g -O1 -fsanitize=fuzzer,address,undefined
                       -fno-sanitize-recover=undefined ${PMESH_WARNINGS})
target_link_options(fuzz_msh PRIVATE -fsanitize=fuzzer,address,undefined)
target_link_libraries(fuzz_msh PRIVATE m)
set(_work "${CMAKE_CURRENT_BINARY_DIR}/fuzz_corpus_msh")
file(MAKE_DIRECTORY "${_work}")
add_test(NAME fuzz_msh_short
         COMMAND fuzz_msh -max_total_time=60 -timeout=10 -rss_limit_mb=2048
                 -dict=${CMAKE_CURRENT_SOURCE_DIR}/fuzz/msh.dict
                 ${_work} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus_msh)
set_tests_properties(fuzz_msh_short PROPERTIES TIMEOUT 180 LABELS "fuzz;msh")
