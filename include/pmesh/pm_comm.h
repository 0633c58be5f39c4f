/* pm_comm.h - MPI error conversion, agreement on errors across ranks, and waits and collectives
 * that yield.
 *
 * Errors that only some ranks see are agreed with one reduction before anyone proceeds, so a
 * failure on one rank becomes a failure on all of them instead of a hang.  A library that makes
 * collective calls inside one API call (HDF5, MPI-IO) can leave them on the rank that failed
 * while the others wait in them for good; then the job is ended (pm_comm_abort, the watchdog
 * below): no return could bring the other ranks back.  These are the only places where pmesh
 * ends a job itself. */
#ifndef PMESH_PM_COMM_H
#define PMESH_PM_COMM_H

#include <mpi.h>

#include "pmesh/pm_error.h"
#include "pmesh/pm_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Record an MPI failure (with MPI_Error_string's text) as PM_ERR_MPI.  Not collective. */
PM_EXTERN int pm_mpi_error(int mpierr, const char *file, int line, const char *call);

/* Turn an MPI failure into a pmesh error (needs MPI_ERRORS_RETURN on the communicator). */
#define PM_CALL_MPI(expr)                                                                          \
  do {                                                                                             \
    int pm_mpi_ierr_ = (expr);                                                                     \
    if (pm_mpi_ierr_ != MPI_SUCCESS) return pm_mpi_error(pm_mpi_ierr_, __FILE__, __LINE__, #expr); \
  } while (0)

/** Whether this process waits for MPI by testing and giving up its CPU between tests
 *  (sched_yield) instead of MPI's busy wait.  It does where the node runs more ranks of the job
 *  than this process has CPUs (MPI_LOCALNRANKS, which MPICH's mpiexec sets, or OpenMPI's
 *  OMPI_COMM_WORLD_LOCAL_SIZE, against sched_getaffinity): there a rank that spins while it
 *  waits holds the CPU that the rank it waits for needs, and each wait costs a scheduler time
 *  slice (milliseconds) instead of microseconds.  PMESH_YIELD=1 or 0 forces it.  Not
 *  collective. */
PM_EXTERN int pm_comm_yields(void);

/** MPI_Waitall (statuses may be MPI_STATUSES_IGNORE), yielding between tests where
 *  pm_comm_yields().  Returns MPI's code.  Not collective. */
PM_EXTERN int pm_comm_waitall(int n, MPI_Request *reqs, MPI_Status *statuses);

/** Finish a nonblocking call just started: rc is what it returned, req its request.  Returns rc
 *  if it failed, else pm_comm_waitall's code:  rc = pm_comm_wait(MPI_Ibcast(..., &req), &req).
 *  Not collective (the call it finishes may be). */
PM_EXTERN int pm_comm_wait(int rc, MPI_Request *req);

/** An allreduce (in may be MPI_IN_PLACE), as MPI_Iallreduce and pm_comm_waitall: the same
 *  reduction, so the same bits, whether this process yields or not.  Returns MPI's code.
 *  Collective on comm. */
PM_EXTERN int pm_comm_allreduce(const void *in, void *out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

/** MPI_Comm_dup, as MPI_Comm_idup and pm_comm_waitall.  Returns MPI's code.  Collective on
 *  comm. */
PM_EXTERN int pm_comm_dup(MPI_Comm comm, MPI_Comm *dup);

/* The collectives below are the MPI calls of the same name, started nonblocking and finished
 * with pm_comm_wait, so that they too give up the CPU where pm_comm_yields().  Each returns MPI's
 * code and is collective on comm; the result is the one the blocking call gives. */

/** MPI_Bcast of n items of `type` from root. */
PM_EXTERN int pm_comm_bcast(void *buf, int n, MPI_Datatype type, int root, MPI_Comm comm);

/** MPI_Barrier. */
PM_EXTERN int pm_comm_barrier(MPI_Comm comm);

/** MPI_Exscan of n items (out is undefined on rank 0, as in MPI). */
PM_EXTERN int pm_comm_exscan(const void *in, void *out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm);

/** MPI_Alltoall: n items of `type` to and from each rank. */
PM_EXTERN int pm_comm_alltoall(const void *in, void *out, int n, MPI_Datatype type, MPI_Comm comm);

/** MPI_Alltoallv with one datatype for both sides (counts and displacements in items of it).
 *  Where the process does not yield it is the blocking MPI_Alltoallv itself: it is the call
 *  that moves the bulk data of pm_redist, whose speed was measured with the blocking call. */
PM_EXTERN int pm_comm_alltoallv(const void *in, const int *scounts, const int *sdispls, void *out, const int *rcounts,
                                const int *rdispls, MPI_Datatype type, MPI_Comm comm);

/** Seconds a failed rank waits at pm_comm_agree for the others (PMESH_AGREE_TIMEOUT overrides). */
#define PM_COMM_AGREE_TIMEOUT 30.0

/** Agree on a local error code.  Collective on comm.
 *  A rank with ierr != PM_OK waits at most PMESH_AGREE_TIMEOUT seconds (default
 *  PM_COMM_AGREE_TIMEOUT, 0: forever) for the other ranks; past that they are taken to be blocked in a
 *  collective call it left, and it prints its message (with its rank), runs the pm_comm_on_abort
 *  hook and calls MPI_Abort.  Ranks without an error wait as long as it takes.
 *  @return ierr when this rank failed; PM_ERR_REMOTE (message naming the lowest failing rank)
 *          when only another rank failed; PM_OK when no rank failed. */
PM_EXTERN int pm_comm_agree(MPI_Comm comm, int ierr);

/** End the job from the main thread when the other ranks cannot be brought to an orderly end:
 *  prints this rank's recorded error (if any) and "[rank R] <fmt message>" on stderr, runs the
 *  pm_comm_on_abort hook, calls MPI_Abort (no exit handler runs on this rank).  Used by
 *  pm_comm_agree past its deadline and by pm_h5 when HDF5 cannot close a file after a failed
 *  write.  Not collective; does not return. */
PM_EXTERN _Noreturn void pm_comm_abort(MPI_Comm comm, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** What to do just before pm_comm_abort or the watchdog ends the job (remove temporary files):
 *  fn(arg).  One hook per process, the latest set wins; fn == NULL removes it.  Not
 *  collective. */
PM_EXTERN void pm_comm_on_abort(void (*fn)(void *), void *arg);

/** Seconds from the environment variable `name` (a number >= 0), or fallback when it is unset;
 *  a value that is not such a number is reported once on stderr and fallback used.  Not
 *  collective. */
PM_EXTERN double pm_comm_env_seconds(const char *name, double fallback);

/** Watch a call that can block for good when another rank failed inside it (a collective HDF5
 *  call that the failed rank's error path leaves early, so that neither rank ever returns): if
 *  pm_comm_watch_end (or the next pm_comm_watch_begin) has not come `seconds` after this call, a
 *  watchdog thread prints the error this rank recorded, if any, and "[rank R] WHAT has not
 *  returned after N s (SETTING sets the wait)", runs the pm_comm_on_abort hook and exits the
 *  process (status 1), which makes the process manager end the job.  One watch per process;
 *  seconds <= 0 watches nothing.  Not collective. */
PM_EXTERN void pm_comm_watch_begin(double seconds, const char *setting, const char *what_fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
PM_EXTERN void pm_comm_watch_end(void);

#ifdef __cplusplus
}
#endif
#endif
