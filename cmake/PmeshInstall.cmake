# Installation: library, public headers, tools, an exported CMake package (find_package(pmesh)
# gives pmesh::pmesh) and a pkg-config file.
include(CMakePackageConfigHelpers)

install(TARGETS pmesh EXPORT pmeshTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS partition meshgen solve RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${PMESH_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pmesh)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/include/pmesh/pm_version.h"
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/pmesh)

set(PMESH_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/pmesh)
install(EXPORT pmeshTargets NAMESPACE pmesh:: DESTINATION ${PMESH_CMAKE_DIR})
configure_package_config_file(cmake/pmeshConfig.cmake.in "${CMAKE_CURRENT_BINARY_DIR}/pmeshConfig.cmake"
                              INSTALL_DESTINATION ${PMESH_CMAKE_DIR})
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/pmeshConfigVersion.cmake"
                                 COMPATIBILITY SameMajorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/pmeshConfig.cmake" "${CMAKE_CURRENT_BINARY_DIR}/pmeshConfigVersion.cmake"
        DESTINATION ${PMESH_CMAKE_DIR})

# The .pc file finds its prefix relative to itself, so `cmake --install --prefix` anywhere works.
file(RELATIVE_PATH PMESH_PC_TO_PREFIX "/p/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/p")
configure_file(cmake/pmesh.pc.in "${CMAKE_CURRENT_BINARY_DIR}/install/pmesh.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/install/pmesh.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# The build tree as a package too, without installing: find_package(pmesh) with
# -Dpmesh_DIR=BUILD (pmeshConfig.cmake above, the targets exported here), and pkg-config with
# PKG_CONFIG_PATH=BUILD (the public headers are in the source tree, pm_version.h in the build's).
export(EXPORT pmeshTargets NAMESPACE pmesh:: FILE "${CMAKE_CURRENT_BINARY_DIR}/pmeshTargets.cmake")
file(GENERATE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/pmesh.pc"
     CONTENT "libdir=$<TARGET_FILE_DIR:pmesh>
includedir=${CMAKE_CURRENT_SOURCE_DIR}/include
builddir=${CMAKE_CURRENT_BINARY_DIR}

Name: pmesh
Description: partitioned 1D/2D unstructured meshes on MPI (MPICH), from its build tree
Version: ${PROJECT_VERSION}
Requires: mpich
Cflags: -I\${includedir} -I\${builddir}/include
Libs: -L\${libdir} -Wl,-rpath,\${libdir} -lpmesh
")
