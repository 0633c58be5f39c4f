/* pm_partition_int.h - private to the run layer: how pm_partition.c reports an error that every
 * rank meets alike, also used by the run's drivers (pm_run.c). */
#ifndef PMESH_PM_PARTITION_INT_H
#define PMESH_PM_PARTITION_INT_H

#include <mpi.h>

/** An error every rank meets alike: rank 0 records it (code), the others return PM_ERR_REMOTE, so
 *  that it is reported once.  Collective in effect (every rank calls it at the same point). */
int pm_partition_error_alike(int rank, int code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 5, 6)))
#endif
    ;

/** pm_comm_agree, and when every rank failed (the same file missing everywhere, ...) only rank 0
 *  keeps its code.  Collective on comm. */
int pm_partition_agree_alike(MPI_Comm comm, int rank, int ierr);

#endif
