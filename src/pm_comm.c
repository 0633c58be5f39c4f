/* pm_comm.c - MPI error conversion and collective agreement on errors. */
#include "pmesh/pm_comm.h"

#include <limits.h>

int pm_mpi_error(int mpierr, const char *file, int line, const char *call) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mpierr, text, &len) != MPI_SUCCESS) len = 0;
  text[len] = '\0';
  return pm_error_set(PM_ERR_MPI, file, line, "%s failed: %s", call, len ? text : "unknown MPI error");
}

int pm_comm_agree(MPI_Comm comm, int ierr) {
  int rank, first;
  MPI_Comm_rank(comm, &rank);
  int mine = ierr ? rank : INT_MAX;
  int rc = MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
  if (rc != MPI_SUCCESS) return ierr ? ierr : pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Allreduce (error agreement)");
  if (ierr) return ierr;
  if (first == INT_MAX) return PM_OK;
  return pm_error_set(PM_ERR_REMOTE, __FILE__, __LINE__, "rank %d failed (its message says why)", first);
}
