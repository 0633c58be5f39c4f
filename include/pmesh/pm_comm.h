/* pm_comm.h - MPI error conversion and agreement on errors across ranks.
 *
 * Errors that only some ranks see are agreed with one reduction before anyone proceeds, so a
 * failure on one rank becomes a failure on all of them instead of a hang. */
#ifndef PMESH_PM_COMM_H
#define PMESH_PM_COMM_H

#include <mpi.h>

#include "pmesh/pm_error.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Record an MPI failure (with MPI_Error_string's text) as PM_ERR_MPI.  Not collective. */
int pm_mpi_error(int mpierr, const char *file, int line, const char *call);

/* Turn an MPI failure into a pmesh error (needs MPI_ERRORS_RETURN on the communicator). */
#define PM_CALL_MPI(expr)                                                      \
  do {                                                                         \
    int pm_mpi_ierr_ = (expr);                                                 \
    if (pm_mpi_ierr_ != MPI_SUCCESS) return pm_mpi_error(pm_mpi_ierr_, __FILE__, __LINE__, #expr); \
  } while (0)

/** Agree on a local error code.  Collective on comm.
 *  @return ierr when this rank failed; PM_ERR_REMOTE (message naming the lowest failing rank)
 *          when only another rank failed; PM_OK when no rank failed. */
int pm_comm_agree(MPI_Comm comm, int ierr);

#ifdef __cplusplus
}
#endif
#endif
