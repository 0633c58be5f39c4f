/* pm_dmat.c - the layout of a distributed level: global numbering, externals, tables, halo. */
#include "pm_dmat.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

void pm_dmat_destroy(pm_dmat_t **dm) {
  if (!dm || !*dm) return;
  pm_dmat_t *d = *dm;
  pm_halo_destroy(&d->halo);
  pm_local_destroy(&d->tab);
  free(d->range);
  free(d->gid);
  free(d->owner);
  free(d);
  *dm = NULL;
}

void pm_dmat_release_ids(pm_dmat_t *dm) {
  if (!dm) return;
  free(dm->gid);
  free(dm->owner);
  dm->gid = NULL;
  dm->owner = NULL;
  dm->sorted = 0;
}

int pm_dmat_owner(const pm_dmat_t *dm, int64_t g) {
  int lo = 0, hi = dm->size - 1;
  while (lo < hi) { /* the last q with range[q] <= g (empty ranks have range[q] == range[q+1]) */
    int mid = (lo + hi + 1) / 2;
    if (dm->range[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

int32_t pm_dmat_find(const pm_dmat_t *dm, int64_t g) {
  int64_t r0 = dm->range[dm->rank];
  if (g >= r0 && g < r0 + dm->n) return (int32_t)(g - r0);
  int32_t lo = dm->n, hi = dm->gid ? dm->ncol - 1 : lo - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    if (dm->gid[mid] == g) return mid;
    if (dm->gid[mid] < g)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

int pm_dmat_alltoallv(MPI_Comm comm, size_t size, const int *sendcount, const void *sendbuf, int *recvcount,
                      void **recvbuf) {
  int ierr = PM_OK, P;
  int *sc = NULL, *sd = NULL, *rc = NULL, *rd = NULL;
  char *rbuf = NULL;
  MPI_Request q;
  *recvbuf = NULL;
  MPI_Comm_size(comm, &P);
  PM_CALL_MPI(pm_comm_wait(MPI_Ialltoall(sendcount, 1, MPI_INT, recvcount, 1, MPI_INT, comm, &q), &q));
  ierr = PM_MALLOC(sc, 4 * (size_t)P, "exchange counts");
  size_t ns = 0, nr = 0;
  if (!ierr) {
    sd = sc + P;
    rc = sc + 2 * P;
    rd = sc + 3 * P;
    for (int r = 0; r < P; r++) {
      if ((ns + (size_t)sendcount[r]) * size > INT_MAX || (nr + (size_t)recvcount[r]) * size > INT_MAX) {
        ierr = pm_error_set(PM_ERR_UNSUPPORTED, __FILE__, __LINE__, "a multigrid set-up message exceeds 2 GiB");
        break;
      }
      sc[r] = (int)((size_t)sendcount[r] * size);
      sd[r] = (int)(ns * size);
      rc[r] = (int)((size_t)recvcount[r] * size);
      rd[r] = (int)(nr * size);
      ns += (size_t)sendcount[r];
      nr += (size_t)recvcount[r];
    }
  }
  if (!ierr) ierr = PM_MALLOC(rbuf, nr * size + 1, "exchange buffer");
  PM_TRY(pm_comm_agree(comm, ierr));
  {
    int rc_mpi = pm_comm_wait(MPI_Ialltoallv(sendbuf, sc, sd, MPI_BYTE, rbuf, rc, rd, MPI_BYTE, comm, &q), &q);
    if (rc_mpi != MPI_SUCCESS) {
      ierr = pm_mpi_error(rc_mpi, __FILE__, __LINE__, "MPI_Alltoallv (multigrid set-up)");
      goto cleanup;
    }
  }
  *recvbuf = rbuf;
  rbuf = NULL;
cleanup:
  free(sc);
  free(rbuf);
  return ierr;
}

/* The tables: neighbours are the ranks this one imports from or exports to (a prolongator's
 * pattern is not symmetric, so a pair may exchange in one direction only). */
static int build_tables(pm_dmat_t *d) {
  int ierr = PM_OK, P = d->size;
  int32_t next = d->ncol - d->n;
  int *need = NULL, *give = NULL, *pos = NULL;
  int32_t *order = NULL;
  int64_t *sendg = NULL, *recvg = NULL;
  pm_local_t *t = NULL;
  ierr = PM_CALLOC(need, 3 * (size_t)P, "layout counts");
  if (!ierr) ierr = PM_MALLOC(order, next + 1, "layout import order");
  if (!ierr) ierr = PM_MALLOC(sendg, next + 1, "layout requests");
  if (!ierr) ierr = pm_local_create(&t);
  PM_TRY(pm_comm_agree(d->comm, ierr));
  give = need + P;
  pos = need + 2 * P;
  for (int32_t k = 0; k < next; k++) need[d->owner[k]]++;
  for (int q = 0, s = 0; q < P; q++) {
    pos[q] = s;
    s += need[q];
  }
  /* Stable by owner: the import order within an owner is the local order. */
  for (int32_t k = 0; k < next; k++) {
    int32_t at = pos[d->owner[k]]++;
    order[at] = d->n + k;
    sendg[at] = d->gid[d->n + k];
  }
  PM_TRY(pm_dmat_alltoallv(d->comm, sizeof(int64_t), need, sendg, give, (void **)&recvg));
  int nn = 0;
  int32_t nexp = 0;
  for (int q = 0; q < P; q++) {
    nn += need[q] > 0 || give[q] > 0;
    nexp += give[q];
  }
  t->rank = d->rank;
  t->nparts = P;
  t->n_neib = nn;
  t->n_internal = d->n;
  t->n_total = d->ncol;
  ierr = PM_MALLOC(t->neib, nn + 1, "layout neighbours");
  if (!ierr) ierr = PM_MALLOC(t->import_index, nn + 1, "layout import index");
  if (!ierr) ierr = PM_MALLOC(t->export_index, nn + 1, "layout export index");
  if (!ierr) ierr = PM_MALLOC(t->import_item, next + 1, "layout import items");
  if (!ierr) ierr = PM_MALLOC(t->export_item, nexp + 1, "layout export items");
  if (!ierr) {
    int k = 0;
    int64_t r0 = d->range[d->rank];
    t->import_index[0] = t->export_index[0] = 0;
    for (int q = 0; q < P; q++) {
      if (!(need[q] > 0 || give[q] > 0)) continue;
      t->neib[k] = q;
      t->import_index[k + 1] = t->import_index[k] + need[q];
      t->export_index[k + 1] = t->export_index[k] + give[q];
      k++;
    }
    if (next) memcpy(t->import_item, order, (size_t)next * sizeof *order);
    for (int32_t e = 0; e < nexp && !ierr; e++) {
      int64_t g = recvg[e] - r0;
      if (g < 0 || g >= d->n)
        ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                            "multigrid layout: rank %d was asked for row %lld, which it does not own", d->rank,
                            (long long)recvg[e]);
      else
        t->export_item[e] = (int32_t)g;
    }
  }
  PM_TRY(pm_comm_agree(d->comm, ierr));
  d->tab = t;
  t = NULL;
cleanup:
  pm_local_destroy(&t);
  free(need);
  free(order);
  free(sendg);
  free(recvg);
  return ierr;
}

int pm_dmat_create(MPI_Comm comm, int32_t n, const int64_t *range, const int64_t *ext, int32_t next, int sort,
                   pm_dmat_t **dm) {
  int ierr = PM_OK;
  pm_dmat_t *d = NULL;
  *dm = NULL;
  ierr = PM_CALLOC(d, 1, "level layout");
  if (d) {
    d->comm = comm;
    MPI_Comm_rank(comm, &d->rank);
    MPI_Comm_size(comm, &d->size);
    d->n = n;
    d->sorted = sort;
    ierr = PM_MALLOC(d->range, d->size + 1, "level ranges");
  }
  if (!ierr) ierr = PM_MALLOC(d->gid, (size_t)n + next + 1, "level global ids");
  PM_TRY(pm_comm_agree(comm, ierr));
  if (range) {
    memcpy(d->range, range, ((size_t)d->size + 1) * sizeof *range);
  } else {
    int64_t mine = n;
    PM_CALL_MPI(MPI_Allgather(&mine, 1, MPI_INT64_T, d->range + 1, 1, MPI_INT64_T, comm));
    d->range[0] = 0;
    for (int q = 0; q < d->size; q++) d->range[q + 1] += d->range[q];
  }
  d->nglobal = d->range[d->size];
  int64_t r0 = d->range[d->rank];
  for (int32_t i = 0; i < n; i++) d->gid[i] = r0 + i;
  int32_t m = 0;
  if (sort) {
    for (int32_t k = 0; k < next; k++)
      if (ext[k] < r0 || ext[k] >= r0 + n) d->gid[n + m++] = ext[k];
    qsort(d->gid + n, (size_t)m, sizeof *d->gid, cmp_i64);
    int32_t w = 0;
    for (int32_t k = 0; k < m; k++)
      if (w == 0 || d->gid[n + k] != d->gid[n + w - 1]) d->gid[n + w++] = d->gid[n + k];
    m = w;
  } else {
    if (next) memcpy(d->gid + n, ext, (size_t)next * sizeof *ext);
    m = next;
  }
  d->ncol = n + m;
  ierr = PM_MALLOC(d->owner, m + 1, "level owners");
  for (int32_t k = 0; !ierr && k < m; k++) {
    int64_t g = d->gid[n + k];
    if (g < 0 || g >= d->nglobal || (g >= r0 && g < r0 + n))
      ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                          "multigrid layout: rank %d: external id %lld is not another rank's row (0..%lld)", d->rank,
                          (long long)g, (long long)d->nglobal - 1);
    else
      d->owner[k] = pm_dmat_owner(d, g);
  }
  PM_TRY(pm_comm_agree(comm, ierr));
  PM_TRY(build_tables(d));
  if (sort) PM_TRY(pm_halo_create(comm, d->tab, pm_exchange_default(), &d->halo));
  *dm = d;
  d = NULL;
cleanup:
  pm_dmat_destroy(&d);
  return ierr;
}
