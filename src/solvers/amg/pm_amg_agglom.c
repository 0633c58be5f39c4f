/* pm_amg_agglom.c - moving a small AMG level onto fewer ranks: how many, which rows, and the
 * level's layout on the smaller communicator. */
#include "pm_amg_agglom.h"

#include <stdlib.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

int pm_amg_agglom_ranks(int64_t rows, int size, int64_t rows_per_rank) {
  if (rows_per_rank <= 0 || rows >= rows_per_rank * (int64_t)size) return size;
  int64_t k = rows / rows_per_rank;
  return k < 1 ? 1 : (int)k;
}

void pm_amg_agglom_range(int64_t rows, int size, int k, int64_t *range) {
  int64_t each = rows / k, extra = rows % k;
  range[0] = 0;
  for (int q = 0; q < size; q++) range[q + 1] = range[q] + (q < k ? each + (q < extra) : 0);
}

int pm_amg_agglom_level(MPI_Comm comm, int k, pm_dmat_t **cdm, pm_csr_t **ac, MPI_Comm *sub, pm_dmat_t **xdm) {
  int ierr = PM_OK, rank;
  pm_dmat_t *t = *cdm, *d = NULL;
  pm_csr_t *a = *ac;
  int64_t *ext = NULL;
  int32_t next = 0;
  *xdm = t;
  *cdm = NULL;
  *sub = MPI_COMM_NULL;
  MPI_Comm_rank(comm, &rank);
  int active = rank < k;
  if (active) {
    ierr = PM_MALLOC(ext, (size_t)a->index[a->n] + 1, "agglomerated level externals");
    for (int32_t e = 0; !ierr && e < a->index[a->n]; e++)
      if (a->item[e] >= a->n) ext[next++] = t->gid[a->item[e]];
  } else if (a->n != 0) {
    ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                        "AMG agglomeration: rank %d, idle below, owns %d coarse rows", rank, (int)a->n);
  }
  PM_TRY(pm_comm_agree(comm, ierr));
  {
    int rc = MPI_Comm_split(comm, active ? 0 : MPI_UNDEFINED, rank, sub);
    if (rc == MPI_SUCCESS && active) rc = MPI_Comm_set_errhandler(*sub, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) ierr = pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Comm_split (AMG agglomeration)");
  }
  PM_TRY(pm_comm_agree(comm, ierr));
  if (!active) {
    pm_csr_destroy(ac);
    goto cleanup;
  }
  /* Ranks 0..k-1 keep their numbers (the split's key), so the rows keep their global ids and
   * owners and range's first k+1 entries are the new layout's. */
  PM_TRY(pm_dmat_create(*sub, a->n, t->range, ext, next, 1, &d));
  for (int32_t e = 0; e < a->index[a->n] && !ierr; e++) {
    int32_t c = a->item[e] < a->n ? a->item[e] : pm_dmat_find(d, t->gid[a->item[e]]);
    if (c < 0)
      ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                          "AMG agglomeration: rank %d: column %lld missing from the level's layout", rank,
                          (long long)t->gid[a->item[e]]);
    else
      a->item[e] = c;
  }
  PM_TRY(pm_comm_agree(*sub, ierr));
  a->ncol = d->ncol;
  *cdm = d;
  d = NULL;
cleanup:
  if (ierr) {
    pm_dmat_destroy(&d);
    pm_csr_destroy(ac);
    if (*sub != MPI_COMM_NULL) MPI_Comm_free(sub);
  }
  free(ext);
  return ierr;
}
