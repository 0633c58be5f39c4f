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
configure_file(cmake/pmesh.pc.in "${CMAKE_CURRENT_BINARY_DIR}/pmesh.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/pmesh.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
