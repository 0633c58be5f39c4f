/* pm_refine_comm.h - the two communication patterns of pm_refine (private): an exclusive prefix
 * sum in a global order over items spread over the ranks (through the slab of that order each
 * rank holds), and a variable all-to-all.  Kept apart so that the general owner -> slab plan
 * (pm_redist) can replace the scan. */
#ifndef PMESH_PM_REFINE_COMM_H
#define PMESH_PM_REFINE_COMM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/** Exclusive prefix sum in global order.  Every position 0..n_global-1 is held by at most one
 *  rank; this rank holds n items at positions index[i] with count[i] >= 0, or asks about
 *  position index[i] (count[i] = -1, a query: any rank may ask about any position).  offset[i] =
 *  the sum of the counts at positions below index[i] (over all ranks); *total = the sum of all
 *  counts.
 *  The counts go to the rank holding the slab of their positions (a block distribution), each
 *  slab is summed locally, the slabs' sums are scanned (pm_comm_exscan) and the offsets sent back.
 *  Errors are agreed.  Collective on comm. */
int pm_refine_exscan(MPI_Comm comm, int64_t n_global, int32_t n, const int64_t *index, const int64_t *count,
                     int64_t *offset, int64_t *total);

/** Variable all-to-all of items of `type` (`size` bytes each): scount[q] items to rank q from
 *  sbuf (grouped by destination, ascending); *rcount ([nranks], malloc'ed) and *rbuf
 *  (malloc'ed, grouped by source) receive.  Errors are agreed.  Collective on comm. */
int pm_refine_alltoallv(MPI_Comm comm, MPI_Datatype type, size_t size, const int *scount, const void *sbuf,
                        int **rcount, void **rbuf);

#endif
