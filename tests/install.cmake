add_test(NAME install_consumer
         COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/install/consumer.sh ${PROJECT_SOURCE_DIR} ${PROJECT_BINARY_DIR}
                 ${PMESH_MESHES}/square.msh
         WORKING_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR})
set_tests_properties(install_consumer PROPERTIES TIMEOUT 300 LABELS "install")
set(_consumer_env "CONSUMER_CC=${CMAKE_C_COMPILER}" "MPIEXEC=${PMESH_MPIEXEC}")
if(PMESH_SANITIZE)
  list(APPEND _consumer_env "CONSUMER_CFLAGS=-fsanitize=address,undefined")
endif()
set_tests_properties(install_consumer PROPERTIES ENVIRONMENT "${_consumer_env}")
