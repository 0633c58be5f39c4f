/* pm_comm_int.h - the private part of pm_comm.c: PM_CALL_MPI (pm_comm.h) in the library's
 * functions that end at one `cleanup:` label with an `int ierr` variable. */
#ifndef PMESH_PM_COMM_INT_H
#define PMESH_PM_COMM_INT_H

#include "pmesh/pm_comm.h"

/* The same in a function with one `cleanup:` label and an `int ierr` variable. */
#define PM_TRY_MPI(expr)                                            \
  do {                                                              \
    int pm_mpi_ierr_ = (expr);                                      \
    if (pm_mpi_ierr_ != MPI_SUCCESS) {                              \
      ierr = pm_mpi_error(pm_mpi_ierr_, __FILE__, __LINE__, #expr); \
      goto cleanup;                                                 \
    }                                                               \
  } while (0)

#endif
