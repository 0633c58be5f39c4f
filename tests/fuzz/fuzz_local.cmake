# libFuzzer harness of the local-mesh and partition.meta readers (-DPMESH_FUZZ=ON, clang only),
# built like fuzz_msh (tests/fuzz/fuzz.cmake): it compiles the readers' sources itself, so the
# library keeps its normal flags.  `ctest -L fuzz` runs it for a minute; longer runs:
#   build-dir/tests/fuzz_local -dict=tests/fuzz/local.dict CORPUS tests/fuzz/corpus_local
if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "PMESH_FUZZ needs clang: configure with -DCMAKE_C_COMPILER=clang")
endif()
set(_src "${CMAKE_CURRENT_SOURCE_DIR}/../src")
add_executable(fuzz_local fuzz/fuzz_local.c ${_src}/local/pm_local.c ${_src}/local/pm_meta.c ${_src}/base/pm_fmt.c ${_src}/base/pm_scan.c ${_src}/base/pm_error.c ${_src}/base/pm_alloc.c
                          ${_src}/mesh/pm_msh.c ${_src}/mesh/pm_msh_rd.c ${_src}/mesh/pm_msh_ent.c)
target_include_directories(fuzz_local PRIVATE ${_src} ${CMAKE_CURRENT_SOURCE_DIR}/../include)
# A small scan window: window refills happen even in small inputs.
target_compile_definitions(fuzz_local PRIVATE PM_SCAN_WINDOW_BYTES=4096)
target_compile_options(fuzz_local PRIVATE -g -O1 -fsanitize=fuzzer,address,undefined
                       -fno-sanitize-recover=undefined ${PMESH_WARNINGS})
target_link_options(fuzz_local PRIVATE -fsanitize=fuzzer,address,undefined)
target_link_libraries(fuzz_local PRIVATE m)
set(_work "${CMAKE_CURRENT_BINARY_DIR}/fuzz_corpus_local")
file(MAKE_DIRECTORY "${_work}")
add_test(NAME fuzz_local_short
         COMMAND fuzz_local -max_total_time=60 -timeout=10 -rss_limit_mb=2048
                 -dict=${CMAKE_CURRENT_SOURCE_DIR}/fuzz/local.dict
                 ${_work} ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/corpus_local)
set_tests_properties(fuzz_local_short PROPERTIES TIMEOUT 180 LABELS "fuzz;local")
