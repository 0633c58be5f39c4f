# Find pmesh's dependencies, pinned to Debian's MPICH builds.
# A missing dependency stops configure with the Debian package to install.

# --- MPI: MPICH, explicitly (Debian's alternatives may point mpicc at OpenMPI) -----------
if(NOT MPI_C_COMPILER)
  find_program(PMESH_MPICC_MPICH NAMES mpicc.mpich)
  if(NOT PMESH_MPICC_MPICH)
    message(FATAL_ERROR "pmesh: MPICH not found (no mpicc.mpich). "
                        "Install it with: apt-get install -y --no-install-recommends mpich libmpich-dev")
  endif()
  set(MPI_C_COMPILER "${PMESH_MPICC_MPICH}" CACHE FILEPATH "MPI C compiler wrapper (MPICH)")
endif()
if(NOT MPIEXEC_EXECUTABLE)
  find_program(PMESH_MPIEXEC_MPICH NAMES mpiexec.mpich)
  if(PMESH_MPIEXEC_MPICH)
    set(MPIEXEC_EXECUTABLE "${PMESH_MPIEXEC_MPICH}" CACHE FILEPATH "mpiexec (MPICH)")
  endif()
endif()
find_package(MPI QUIET COMPONENTS C)
if(NOT MPI_C_FOUND)
  message(FATAL_ERROR "pmesh: MPI (MPICH) not usable. "
                      "Install it with: apt-get install -y --no-install-recommends mpich libmpich-dev")
endif()
if(NOT MPI_C_LIBRARY_VERSION_STRING MATCHES "MPICH" AND NOT MPI_C_LIBRARIES MATCHES "mpich")
  message(FATAL_ERROR "pmesh: the MPI found (${MPI_C_LIBRARIES}) is not MPICH; "
                      "pass -DMPI_C_COMPILER=/usr/bin/mpicc.mpich")
endif()
message(STATUS "pmesh: MPI ${MPI_C_VERSION} from ${MPI_C_COMPILER}, mpiexec ${MPIEXEC_EXECUTABLE}")

# --- METIS: header and library; its index width decides how pmesh converts -----------------
find_path(METIS_INCLUDE_DIR metis.h PATH_SUFFIXES metis)
find_library(METIS_LIBRARY NAMES metis)
if(NOT METIS_INCLUDE_DIR OR NOT METIS_LIBRARY)
  message(FATAL_ERROR "pmesh: METIS not found (metis.h / libmetis). "
                      "Install it with: apt-get install -y --no-install-recommends libmetis-dev")
endif()
file(STRINGS "${METIS_INCLUDE_DIR}/metis.h" _metis_w REGEX "^#define[ \t]+IDXTYPEWIDTH[ \t]+[0-9]+")
string(REGEX MATCH "[0-9]+$" PMESH_METIS_IDXTYPEWIDTH "${_metis_w}")
if(NOT PMESH_METIS_IDXTYPEWIDTH MATCHES "^(32|64)$")
  message(FATAL_ERROR "pmesh: cannot read IDXTYPEWIDTH from ${METIS_INCLUDE_DIR}/metis.h")
endif()
message(STATUS "pmesh: METIS ${METIS_LIBRARY}, idx_t is ${PMESH_METIS_IDXTYPEWIDTH}-bit")
add_library(pmesh_metis INTERFACE)
target_include_directories(pmesh_metis SYSTEM INTERFACE "${METIS_INCLUDE_DIR}")
target_link_libraries(pmesh_metis INTERFACE "${METIS_LIBRARY}")
target_compile_definitions(pmesh_metis INTERFACE PMESH_METIS_IDXTYPEWIDTH=${PMESH_METIS_IDXTYPEWIDTH})

# --- HDF5: the parallel MPICH build ------------------------------------------------------
if(NOT HDF5_C_COMPILER_EXECUTABLE)
  find_program(PMESH_H5PCC_MPICH NAMES h5pcc.mpich)
  if(NOT PMESH_H5PCC_MPICH)
    message(FATAL_ERROR "pmesh: parallel HDF5 for MPICH not found (no h5pcc.mpich). "
                        "Install it with: apt-get install -y --no-install-recommends libhdf5-mpich-dev")
  endif()
  set(HDF5_C_COMPILER_EXECUTABLE "${PMESH_H5PCC_MPICH}" CACHE FILEPATH "HDF5 compiler wrapper (MPICH)")
endif()
set(HDF5_PREFER_PARALLEL ON)
find_package(HDF5 QUIET COMPONENTS C)
if(NOT HDF5_FOUND)
  message(FATAL_ERROR "pmesh: HDF5 not usable. "
                      "Install it with: apt-get install -y --no-install-recommends libhdf5-mpich-dev")
endif()
if(NOT HDF5_IS_PARALLEL)
  message(FATAL_ERROR "pmesh: the HDF5 found (${HDF5_C_LIBRARIES}) is not a parallel build. "
                      "Install libhdf5-mpich-dev and pass -DHDF5_C_COMPILER_EXECUTABLE=/usr/bin/h5pcc.mpich")
endif()
if(NOT HDF5_C_LIBRARIES MATCHES "mpich")
  message(FATAL_ERROR "pmesh: HDF5 (${HDF5_C_LIBRARIES}) is not the MPICH build; "
                      "install libhdf5-mpich-dev")
endif()
message(STATUS "pmesh: HDF5 ${HDF5_VERSION} (parallel) ${HDF5_C_LIBRARIES}")
add_library(pmesh_hdf5 INTERFACE)
target_include_directories(pmesh_hdf5 SYSTEM INTERFACE ${HDF5_C_INCLUDE_DIRS})
target_link_libraries(pmesh_hdf5 INTERFACE ${HDF5_C_LIBRARIES})
target_compile_definitions(pmesh_hdf5 INTERFACE ${HDF5_C_DEFINITIONS})

# --- libmatheval: expressions in x, y for sources, conductivities and boundary values --------
find_path(MATHEVAL_INCLUDE_DIR matheval.h)
find_library(MATHEVAL_LIBRARY NAMES matheval)
if(NOT MATHEVAL_INCLUDE_DIR OR NOT MATHEVAL_LIBRARY)
  message(FATAL_ERROR "pmesh: libmatheval not found (matheval.h / libmatheval). "
                      "Install it with: apt-get install -y --no-install-recommends libmatheval-dev")
endif()
add_library(pmesh_matheval INTERFACE)
target_include_directories(pmesh_matheval SYSTEM INTERFACE "${MATHEVAL_INCLUDE_DIR}")
target_link_libraries(pmesh_matheval INTERFACE "${MATHEVAL_LIBRARY}")
