/* pm_dmat.h - the layout of one distributed level (private to the multigrid modules).
 *
 * A level's rows are numbered globally in rank order: rank q owns the rows range[q] ..
 * range[q+1]-1, so the owner of any global id is found by a binary search of `range`.  Locally
 * the lecture's layout holds: the owned rows are 0..n-1, the externals (the other rows that the
 * local rows or the prolongator reference) are n..ncol-1, and the #NEIBPE/#IMPORT/#EXPORT
 * tables (a table-only pm_local_t) and a pm_halo over them connect a level to its neighbours.
 * A layout is built from the list of global ids the rank needs; the export side is learnt from
 * the other ranks (who needs which of my rows) in one exchange. */
#ifndef PMESH_PM_DMAT_H
#define PMESH_PM_DMAT_H

#include <mpi.h>
#include <stdint.h>

#include "pmesh/pm_halo.h"
#include "pmesh/pm_local.h"

typedef struct pm_dmat {
  MPI_Comm comm; /* not owned: the hierarchy's duplicate */
  int rank, size;
  int64_t *range;  /* [size+1] first global row of each rank */
  int64_t nglobal; /* range[size] */
  int32_t n, ncol; /* owned rows; owned + externals */
  int64_t *gid;    /* [ncol] global id of each local column */
  int *owner;      /* [ncol - n] owner of each external */
  int sorted;      /* externals ascending by global id (pm_dmat_find works) */
  pm_local_t *tab; /* tables only (has_mesh = 0) */
  pm_halo_t *halo; /* over tab; NULL when the caller brings its own */
} pm_dmat_t;

/** A layout: n owned rows (this rank's share of `range`, or from an exclusive scan when range is
 *  NULL), the external global ids ext[next].  sort = 1: the externals are deduplicated and
 *  ordered by global id (so by owner, then id) and a halo is built; sort = 0: they keep the
 *  given order (they must be distinct and the ids of the caller's own external columns, whose
 *  halo the caller has) and no halo is built.  Errors are agreed.  Collective on comm. */
int pm_dmat_create(MPI_Comm comm, int32_t n, const int64_t *range, const int64_t *ext, int32_t next, int sort,
                   pm_dmat_t **dm);
void pm_dmat_destroy(pm_dmat_t **dm);
/** Free the global ids (gid, owner) once nothing will look them up: the layout keeps its sizes,
 *  ranges and halo; pm_dmat_find then finds no external.  NULL-safe.  Not collective. */
void pm_dmat_release_ids(pm_dmat_t *dm);

/** Local index of global id g (owned or external; sorted layouts only), or -1.  Not collective. */
int32_t pm_dmat_find(const pm_dmat_t *dm, int64_t g);

/** Owner rank of global id g.  Not collective. */
int pm_dmat_owner(const pm_dmat_t *dm, int64_t g);

/** Variable-sized exchange among all ranks: sendcount[q] records of `size` bytes to rank q,
 *  packed in rank order in sendbuf; returns the received records in rank order in a new
 *  *recvbuf (free it) and their counts per rank in recvcount[size].  Collective on comm. */
int pm_dmat_alltoallv(MPI_Comm comm, size_t size, const int *sendcount, const void *sendbuf, int *recvcount,
                      void **recvbuf);

#endif
