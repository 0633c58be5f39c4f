/* pm_refine_comm.c - the prefix sum in global order and the all-to-all of pm_refine. */
#include "pm_refine_comm.h"

#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

int pm_refine_alltoallv(MPI_Comm comm, MPI_Datatype type, size_t size, const int *scount, const void *sbuf,
                        int **rcount, void **rbuf) {
  int P, ierr = PM_OK;
  int *rc = NULL, *sd = NULL, *rd = NULL;
  char *rb = NULL;
  MPI_Comm_size(comm, &P);
  *rcount = NULL;
  *rbuf = NULL;
  PM_TRY(PM_MALLOC(rc, P, "all-to-all counts"));
  PM_TRY(PM_MALLOC(sd, P, "all-to-all displacements"));
  PM_TRY(PM_MALLOC(rd, P, "all-to-all displacements"));
cleanup:
  ierr = pm_comm_agree(comm, ierr);
  int mpi = MPI_SUCCESS;
  if (!ierr) mpi = pm_comm_alltoall(scount, rc, 1, MPI_INT, comm);
  if (mpi != MPI_SUCCESS) ierr = pm_mpi_error(mpi, __FILE__, __LINE__, "pm_comm_alltoall");
  int64_t ns = 0, nr = 0;
  for (int q = 0; !ierr && q < P; q++) {
    sd[q] = (int)ns;
    rd[q] = (int)nr;
    ns += scount[q];
    nr += rc[q];
    if (ns > INT32_MAX || nr > INT32_MAX)
      ierr =
          pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "more than %d items to exchange in one all-to-all", INT32_MAX);
  }
  if (!ierr) ierr = PM_MALLOC(rb, (size_t)nr * size, "all-to-all receive buffer");
  ierr = pm_comm_agree(comm, ierr);
  if (!ierr) {
    mpi = pm_comm_alltoallv(sbuf, scount, sd, rb, rc, rd, type, comm);
    if (mpi != MPI_SUCCESS) ierr = pm_mpi_error(mpi, __FILE__, __LINE__, "pm_comm_alltoallv");
  }
  free(sd);
  free(rd);
  if (ierr) {
    free(rc);
    free(rb);
    pm_error_trace(__FILE__, __LINE__);
    return ierr;
  }
  *rcount = rc;
  *rbuf = rb;
  return PM_OK;
}

/* Block distribution of n positions over P ranks: the first n % P slabs hold one more. */
static int64_t slab_start(int64_t n, int P, int p) {
  return (n / P) * p + (p < n % P ? p : n % P);
}
static int slab_of(int64_t n, int P, int64_t i) {
  int64_t q = n / P, r = n % P;
  return (int)(i < (q + 1) * r ? i / (q + 1) : r + (i - (q + 1) * r) / q);
}

int pm_refine_exscan(MPI_Comm comm, int64_t n_global, int32_t n, const int64_t *index, const int64_t *count,
                     int64_t *offset, int64_t *total) {
  int P, rank, ierr = PM_OK;
  int *sc = NULL, *fill = NULL, *rc = NULL;
  int64_t *pairs = NULL, *got = NULL, *slab = NULL, *back = NULL, *ret = NULL;
  int32_t *pos = NULL;
  MPI_Datatype pair = MPI_DATATYPE_NULL;
  MPI_Comm_size(comm, &P);
  MPI_Comm_rank(comm, &rank);
  int64_t s0 = slab_start(n_global, P, rank), s1 = slab_start(n_global, P, rank + 1);
  PM_TRY(PM_CALLOC(sc, P, "scan counts"));
  PM_TRY(PM_MALLOC(fill, P + 1, "scan counts"));
  PM_TRY(PM_MALLOC(pairs, 2 * (int64_t)n, "scan items"));
  PM_TRY(PM_MALLOC(pos, n, "scan items"));
  PM_TRY(PM_CALLOC(slab, s1 - s0, "scan slab"));
  for (int32_t i = 0; i < n; i++) {
    PM_TRY_CHECK(index[i] >= 0 && index[i] < n_global && count[i] >= -1, PM_ERR_INCONSISTENT,
                 "rank %d: scan item %d at position %lld (count %lld) is outside 0..%lld", rank, i, (long long)index[i],
                 (long long)count[i], (long long)n_global - 1);
    sc[slab_of(n_global, P, index[i])]++;
  }
  fill[0] = 0;
  for (int q = 0; q < P; q++) fill[q + 1] = fill[q] + sc[q];
  for (int32_t i = 0; i < n; i++) {
    int32_t k = fill[slab_of(n_global, P, index[i])]++;
    pos[i] = k;
    pairs[2 * k] = index[i];
    pairs[2 * k + 1] = count[i];
  }
  if (MPI_Type_contiguous(2, MPI_INT64_T, &pair) != MPI_SUCCESS || MPI_Type_commit(&pair) != MPI_SUCCESS)
    PM_TRY_CHECK(0, PM_ERR_MPI, "rank %d: cannot build an MPI datatype", rank);
cleanup:
  ierr = pm_comm_agree(comm, ierr);
  if (ierr) goto done;
  /* Counts to the slabs. */
  ierr = pm_refine_alltoallv(comm, pair, 2 * sizeof(int64_t), sc, pairs, &rc, (void **)&got);
  if (ierr) goto done;
  int64_t nr = 0;
  for (int q = 0; q < P; q++) nr += rc[q];
  for (int64_t k = 0; k < nr && !ierr; k++) {
    int64_t i = got[2 * k] - s0;
    if (i >= 0 && i < s1 - s0 && got[2 * k + 1] == -1) continue; /* a query */
    if (i < 0 || i >= s1 - s0 || slab[i] != 0 || got[2 * k + 1] < 0)
      ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                          "rank %d: position %lld of the global order is held by two ranks (or out of slab)", rank,
                          (long long)got[2 * k]);
    else
      slab[i] = got[2 * k + 1] + 1; /* +1: a position seen with count 0 is told from one not seen */
  }
  /* Local exclusive prefix, then the slabs' sums scanned over the ranks. */
  int64_t run = 0;
  for (int64_t i = 0; i < s1 - s0; i++) {
    int64_t c = slab[i] > 0 ? slab[i] - 1 : 0;
    slab[i] = run;
    run += c;
  }
  int64_t base = 0, sum[1] = {run}, all = 0;
  int mpi = pm_comm_exscan(sum, &base, 1, MPI_INT64_T, MPI_SUM, comm);
  if (mpi == MPI_SUCCESS) mpi = pm_comm_allreduce(sum, &all, 1, MPI_INT64_T, MPI_SUM, comm);
  if (mpi != MPI_SUCCESS && !ierr) ierr = pm_mpi_error(mpi, __FILE__, __LINE__, "pm_comm_exscan");
  if (rank == 0) base = 0; /* MPI_Exscan leaves rank 0's result undefined */
  ierr = pm_comm_agree(comm, ierr);
  if (ierr) goto done;
  /* Offsets back, in the order the items came: the counts received are the counts to send. */
  ierr = PM_MALLOC(back, nr, "scan offsets");
  for (int64_t k = 0; !ierr && k < nr; k++) back[k] = base + slab[got[2 * k] - s0];
  ierr = pm_comm_agree(comm, ierr);
  if (ierr) goto done;
  int *rc2 = NULL;
  ierr = pm_refine_alltoallv(comm, MPI_INT64_T, sizeof(int64_t), rc, back, &rc2, (void **)&ret);
  free(rc2);
  if (ierr) goto done;
  for (int32_t i = 0; i < n; i++) offset[i] = ret[pos[i]];
  *total = all;
done:
  free(sc);
  free(fill);
  free(rc);
  free(pairs);
  free(got);
  free(slab);
  free(back);
  free(ret);
  free(pos);
  if (pair != MPI_DATATYPE_NULL) MPI_Type_free(&pair);
  if (ierr) pm_error_trace(__FILE__, __LINE__);
  return ierr;
}
