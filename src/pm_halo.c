/* pm_halo.c - the halo exchange over a local mesh's import/export tables.
 *
 * update (owner -> externals) and accumulate (externals -> owners, summed) with five
 * interchangeable back-ends.  What every back-end shares:
 *  - message layout: for neighbour k the update sends export items export_index[k].. (bs values
 *    of `type` per node, in table order) and receives import items import_index[k]..; accumulate
 *    sends and receives the other way round;
 *  - received accumulate contributions always land in a buffer laid out like the export table
 *    and are added in table order (neighbour k ascending in #NEIBPE order, then item order), so
 *    the result is bitwise the same for every back-end and every message arrival order;
 *  - an update receives straight into `data` where neighbour k's externals are the contiguous
 *    block import_item[import_index[k]] + 0, 1, ... (always true for files written by partition,
 *    checked at create time); otherwise it receives into a buffer and unpacks (lecture files may
 *    number their externals in any order).
 * Contract between begin and end (all back-ends): externals must not be touched; internal
 * entries may be read; for update, exported internal entries must not be written (the datatype
 * back-end sends straight from them), non-exported internals may be written; for accumulate,
 * internals may be written and end adds the contributions to the values they hold at end.
 *
 * The persistent back-end binds its requests to packed buffers (one pair per (operation, type,
 * bs), at most PERSIST_MAX cached): the data pointer may change between calls (a solver swaps
 * vectors), so binding to it would recreate requests often; the price is one pack and one
 * unpack copy per exchange.
 *
 * Deadlock freedom of the sendrecv back-end: it calls MPI_Sendrecv(to q, from q) once per
 * neighbour q, in ascending rank order.  Give every pair {p, q} the key (min, max); for rank r
 * the ascending neighbour order is exactly ascending key order (keys (q, r) for q < r come
 * first, ordered by q, then keys (r, q) for q > r, ordered by q).  Suppose ranks block forever;
 * take the smallest key (p, q) at which some rank, say p, waits.  q has not passed (p, q): it
 * cannot have completed it without p.  If q waits at a smaller key, (p, q) was not the smallest;
 * q cannot be at a larger key, since it visits its keys in ascending order and must complete
 * (p, q) first; so q waits at (p, q) too, and the two Sendrecv calls match - a contradiction.
 * This holds even when no message is buffered (rendezvous), and for any neighbour graph. */
#include "pmesh/pm_halo.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

enum { OP_NONE = 0, OP_UPDATE = 1, OP_ACCUMULATE = 2 };
enum { TAG_UPDATE = 11, TAG_ACCUMULATE = 12 };
enum { PERSIST_MAX = 8 };

/* Datatype back-end: one indexed datatype per neighbour and (type, bs). */
typedef struct dtype_entry {
  MPI_Datatype type;
  int bs;
  MPI_Datatype *exp; /* [n_neib] export items */
  MPI_Datatype *imp; /* [n_neib] import items; MPI_DATATYPE_NULL where the block is contiguous */
  struct dtype_entry *next;
} dtype_entry_t;

/* Persistent back-end: requests bound to packed buffers, per (operation, type, bs). */
typedef struct persist_entry {
  int op;
  MPI_Datatype type;
  int bs;
  char *sbuf, *rbuf;
  int n_req;
  MPI_Request *req;
  struct persist_entry *next;
} persist_entry_t;

struct pm_halo {
  MPI_Comm comm;  /* duplicate, MPI_ERRORS_RETURN */
  MPI_Comm graph; /* neighbor back-end: distributed graph over comm */
  int rank, size;
  pm_exchange_t kind;
  int n_neib, *neib;
  int *order; /* neighbour positions by ascending rank (sendrecv schedule) */
  int32_t n_internal, n_total;
  int32_t *import_index, *import_item, *export_index, *export_item;
  int *import_contig;  /* [n_neib]: 1 when neighbour k's externals are one ascending block */
  int import_identity; /* import_item[i] == N + i for every i */

  char *sbuf, *rbuf; /* pack buffers (isend, sendrecv, neighbor; rbuf also datatype) */
  size_t sbuf_size, rbuf_size;
  MPI_Request *req;   /* [2 n_neib] */
  MPI_Status *status; /* [2 n_neib + 1] (MPI_STATUSES_IGNORE upsets GCC's -Wstringop-overflow) */
  int *counts;        /* neighbor: scounts, sdispls, rcounts, rdispls, each [n_neib] */
  dtype_entry_t *dtypes;
  persist_entry_t *persist;

  /* the exchange in flight */
  int op;
  void *data;
  MPI_Datatype type;
  int bs;
  size_t item; /* bytes per node: bs * size of type */
  int n_active;
  MPI_Request *active;
  char *asbuf, *arbuf; /* the buffers of the exchange in flight */
  persist_entry_t *apersist;
};

static const char *const kind_names[PM_EXCHANGE_COUNT] = {"isend", "sendrecv", "datatype", "persistent", "neighbor"};

const char *pm_exchange_name(pm_exchange_t kind) {
  if ((int)kind < 0 || kind >= PM_EXCHANGE_COUNT) return "unknown";
  return kind_names[kind];
}

int pm_exchange_parse(const char *name, pm_exchange_t *kind) {
  PM_CHECK(name && kind, PM_ERR_ARG, "pm_exchange_parse: NULL argument");
  for (int k = 0; k < PM_EXCHANGE_COUNT; k++)
    if (!strcmp(name, kind_names[k])) {
      *kind = (pm_exchange_t)k;
      return PM_OK;
    }
  if (!strcmp(name, "neighbour")) {
    *kind = PM_EXCHANGE_NEIGHBOR;
    return PM_OK;
  }
  if (!strcmp(name, "default")) {
    *kind = pm_exchange_default();
    return PM_OK;
  }
  return pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                      "unknown halo exchange '%s': expected isend, sendrecv, datatype, persistent, neighbor "
                      "or default",
                      name);
}

/* The default comes from tools/bench_halo.sh: the 1.0M-node unstructured square
 * (meshes/big_square.geo), METIS, bs = 1 double updates, back-ends interleaved, microseconds per
 * update (MPICH 4.0 ch4:ucx on a 2-core machine shared with other jobs, load 6-15):
 *                           isend  sendrecv  datatype  persistent  neighbor
 *   8 ranks, median of 5    15840     43592     16720       16703     16801   (oversubscribed 4x:
 *   (three runs)            17441     44242     17275       17678     17441    scheduling dominates;
 *                           19165     47841     18558       19199     19839    sendrecv's pairwise
 *                                                                             steps wait for peers)
 *   2 ranks, fastest of 11     26        26       172          19        27
 *   2 ranks, fastest of 11     19        20       152          20        21
 * isend, datatype, persistent and neighbor tie within noise at 8 ranks; at 2 ranks datatype is
 * 6-9x slower (MPICH packs the indexed type slowly) and the other four tie.  isend is never
 * measurably behind, needs no cache and receives straight into the external block: the default. */
pm_exchange_t pm_exchange_default(void) {
  return PM_EXCHANGE_ISEND;
}

/* ---------------------------------------------------------------- create / destroy */

static void dtype_free(dtype_entry_t *e, int n_neib) {
  for (int k = 0; k < n_neib; k++) {
    if (e->exp && e->exp[k] != MPI_DATATYPE_NULL) MPI_Type_free(&e->exp[k]);
    if (e->imp && e->imp[k] != MPI_DATATYPE_NULL) MPI_Type_free(&e->imp[k]);
  }
  free(e->exp);
  free(e->imp);
  free(e);
}

static void persist_free(persist_entry_t *e) {
  for (int i = 0; i < e->n_req; i++)
    if (e->req[i] != MPI_REQUEST_NULL) MPI_Request_free(&e->req[i]);
  free(e->req);
  free(e->sbuf);
  free(e->rbuf);
  free(e);
}

void pm_halo_destroy(pm_halo_t **halo) {
  if (!halo || !*halo) return;
  pm_halo_t *h = *halo;
  /* An exchange still in flight is completed first: its buffers are about to be freed. */
  if (h->op != OP_NONE && h->n_active > 0 && h->status) MPI_Waitall(h->n_active, h->active, h->status);
  while (h->dtypes) {
    dtype_entry_t *e = h->dtypes;
    h->dtypes = e->next;
    dtype_free(e, h->n_neib);
  }
  while (h->persist) {
    persist_entry_t *e = h->persist;
    h->persist = e->next;
    persist_free(e);
  }
  if (h->graph != MPI_COMM_NULL) MPI_Comm_free(&h->graph);
  if (h->comm != MPI_COMM_NULL) MPI_Comm_free(&h->comm);
  free(h->neib);
  free(h->order);
  free(h->import_index);
  free(h->import_item);
  free(h->export_index);
  free(h->export_item);
  free(h->import_contig);
  free(h->sbuf);
  free(h->rbuf);
  free(h->req);
  free(h->status);
  free(h->counts);
  free(h);
  *halo = NULL;
}

/* Local checks of the tables and the job (no communication). */
static int check_local(const pm_halo_t *h, const pm_local_t *l) {
  PM_CHECK(l->nparts <= 0 || l->nparts == h->size, PM_ERR_ARG,
           "the partition has %d parts but the job has %d ranks: run with mpiexec -n %d", l->nparts, h->size,
           l->nparts);
  PM_CHECK(l->rank < 0 || l->rank == h->rank, PM_ERR_ARG,
           "rank %d was given the local mesh of rank %d: read local.%d on rank %d", h->rank, l->rank, h->rank, h->rank);
  PM_CHECK(l->n_neib >= 0 && (l->n_neib == 0 || l->neib), PM_ERR_ARG, "rank %d: invalid neighbour list", h->rank);
  PM_CHECK(l->n_internal >= 0 && l->n_total >= l->n_internal, PM_ERR_ARG,
           "rank %d: invalid node counts NP = %d, N = %d", h->rank, l->n_total, l->n_internal);
  for (int k = 0; k < l->n_neib; k++) {
    int q = l->neib[k];
    PM_CHECK(q >= 0 && q < h->size && q != h->rank, PM_ERR_ARG,
             "rank %d lists neighbour rank %d, which is not another rank of the %d in the job", h->rank, q, h->size);
    for (int j = 0; j < k; j++)
      PM_CHECK(l->neib[j] != q, PM_ERR_ARG, "rank %d lists neighbour rank %d twice", h->rank, q);
  }
  int n = l->n_neib;
  PM_CHECK(l->import_index && l->export_index, PM_ERR_ARG, "rank %d: the local mesh has no import/export index",
           h->rank);
  PM_CHECK(l->import_index[0] == 0 && l->export_index[0] == 0, PM_ERR_ARG,
           "rank %d: import_index[0] and export_index[0] must be 0", h->rank);
  for (int k = 0; k < n; k++)
    PM_CHECK(l->import_index[k + 1] >= l->import_index[k] && l->export_index[k + 1] >= l->export_index[k], PM_ERR_ARG,
             "rank %d: the import/export index decreases at neighbour %d (rank %d)", h->rank, k, l->neib[k]);
  PM_CHECK(l->import_index[n] == l->n_total - l->n_internal, PM_ERR_ARG,
           "rank %d: %d import items but NP - N = %d external nodes", h->rank, l->import_index[n],
           l->n_total - l->n_internal);
  for (int32_t i = 0; i < l->import_index[n]; i++)
    PM_CHECK(l->import_item[i] >= l->n_internal && l->import_item[i] < l->n_total, PM_ERR_ARG,
             "rank %d: import item %d is local node %d, not an external node (%d..%d)", h->rank, i, l->import_item[i],
             l->n_internal, l->n_total - 1);
  for (int32_t i = 0; i < l->export_index[n]; i++)
    PM_CHECK(l->export_item[i] >= 0 && l->export_item[i] < l->n_internal, PM_ERR_ARG,
             "rank %d: export item %d is local node %d, not an internal node (0..%d)", h->rank, i, l->export_item[i],
             l->n_internal - 1);
  return PM_OK;
}

static int copy_tables(pm_halo_t *h, const pm_local_t *l) {
  int n = l->n_neib;
  h->n_neib = n;
  h->n_internal = l->n_internal;
  h->n_total = l->n_total;
  PM_CALL(PM_MALLOC(h->neib, n, "halo neighbours"));
  PM_CALL(PM_MALLOC(h->order, n, "halo schedule"));
  PM_CALL(PM_MALLOC(h->import_index, n + 1, "halo import index"));
  PM_CALL(PM_MALLOC(h->export_index, n + 1, "halo export index"));
  PM_CALL(PM_MALLOC(h->import_contig, n, "halo import blocks"));
  PM_CALL(PM_MALLOC(h->req, 2 * n, "halo requests"));
  PM_CALL(PM_MALLOC(h->status, 2 * n + 1, "halo statuses"));
  PM_CALL(PM_MALLOC(h->counts, 4 * n, "halo counts"));
  if (n) memcpy(h->neib, l->neib, (size_t)n * sizeof *h->neib);
  memcpy(h->import_index, l->import_index, (size_t)(n + 1) * sizeof *h->import_index);
  memcpy(h->export_index, l->export_index, (size_t)(n + 1) * sizeof *h->export_index);
  int32_t ni = l->import_index[n], ne = l->export_index[n];
  PM_CALL(PM_MALLOC(h->import_item, ni, "halo import items"));
  PM_CALL(PM_MALLOC(h->export_item, ne, "halo export items"));
  if (ni) memcpy(h->import_item, l->import_item, (size_t)ni * sizeof *h->import_item);
  if (ne) memcpy(h->export_item, l->export_item, (size_t)ne * sizeof *h->export_item);
  return PM_OK;
}

/* Every pair agrees on the neighbour relation and the counts.  One MPI_Alltoall over the
 * whole communicator: it cannot hang whatever the tables say (a pairwise handshake would wait
 * forever for a neighbour that does not list this rank). */
static int handshake(pm_halo_t *h, int *ierr_local) {
  int P = h->size, ierr = PM_OK;
  int *mine = NULL, *theirs = NULL;
  PM_TRY(PM_CALLOC(mine, 3 * (size_t)P, "halo handshake"));
  PM_TRY(PM_CALLOC(theirs, 3 * (size_t)P, "halo handshake"));
  for (int k = 0; k < h->n_neib; k++) {
    int q = h->neib[k];
    mine[3 * q] = 1;
    mine[3 * q + 1] = h->import_index[k + 1] - h->import_index[k];
    mine[3 * q + 2] = h->export_index[k + 1] - h->export_index[k];
  }
  {
    MPI_Request q;
    int rc = pm_comm_wait(MPI_Ialltoall(mine, 3, MPI_INT, theirs, 3, MPI_INT, h->comm, &q), &q);
    if (rc != MPI_SUCCESS) {
      ierr = pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Alltoall (halo handshake)");
      goto cleanup;
    }
  }
  for (int q = 0; q < P && !*ierr_local; q++) {
    int r = h->rank;
    if (mine[3 * q] && !theirs[3 * q])
      *ierr_local = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                                 "rank %d lists rank %d as a neighbour, but rank %d does not list rank %d: the "
                                 "neighbour tables are not mutual (check the partition with partition --check)",
                                 r, q, q, r);
    else if (!mine[3 * q] && theirs[3 * q])
      *ierr_local = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                                 "rank %d lists rank %d as a neighbour, but rank %d does not list rank %d: the "
                                 "neighbour tables are not mutual (check the partition with partition --check)",
                                 q, r, r, q);
    else if (mine[3 * q] && mine[3 * q + 1] != theirs[3 * q + 2])
      *ierr_local = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                                 "rank %d imports %d nodes from rank %d, but rank %d exports %d nodes to rank %d "
                                 "(check the partition with partition --check)",
                                 r, mine[3 * q + 1], q, q, theirs[3 * q + 2], r);
    else if (mine[3 * q] && mine[3 * q + 2] != theirs[3 * q + 1])
      *ierr_local = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                                 "rank %d exports %d nodes to rank %d, but rank %d imports %d nodes from rank %d "
                                 "(check the partition with partition --check)",
                                 r, mine[3 * q + 2], q, q, theirs[3 * q + 1], r);
  }
cleanup:
  free(mine);
  free(theirs);
  return ierr;
}

static void build_layout(pm_halo_t *h) {
  h->import_identity = 1;
  for (int k = 0; k < h->n_neib; k++) {
    int32_t b = h->import_index[k], e = h->import_index[k + 1];
    h->import_contig[k] = 1;
    for (int32_t i = b; i < e; i++) {
      if (h->import_item[i] != h->import_item[b] + (i - b)) h->import_contig[k] = 0;
      if (h->import_item[i] != h->n_internal + i) h->import_identity = 0;
    }
    h->order[k] = k;
  }
  /* Insertion sort of the schedule by neighbour rank (lists are short). */
  for (int k = 1; k < h->n_neib; k++) {
    int v = h->order[k], j = k;
    while (j > 0 && h->neib[h->order[j - 1]] > h->neib[v]) {
      h->order[j] = h->order[j - 1];
      j--;
    }
    h->order[j] = v;
  }
}

int pm_halo_create(MPI_Comm comm, const pm_local_t *local, pm_exchange_t kind, pm_halo_t **halo) {
  int ierr = PM_OK, lerr = PM_OK;
  pm_halo_t *h = NULL;
  PM_CHECK(halo, PM_ERR_ARG, "pm_halo_create: halo is NULL");
  *halo = NULL;
  MPI_Comm dup = MPI_COMM_NULL;
  PM_CALL_MPI(pm_comm_dup(comm, &dup));
  {
    int rc = MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) {
      MPI_Comm_free(&dup);
      return pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Comm_set_errhandler");
    }
  }
  lerr = PM_CALLOC(h, 1, "halo");
  if (h) {
    h->comm = dup;
    h->graph = MPI_COMM_NULL;
    h->kind = kind;
  }
  /* Local checks, agreed so that no rank goes on to the handshake alone. */
  if (!lerr) {
    int rc = MPI_Comm_rank(dup, &h->rank);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_size(dup, &h->size);
    if (rc != MPI_SUCCESS) lerr = pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Comm_rank/size");
  }
  if (!lerr && ((int)kind < 0 || kind >= PM_EXCHANGE_COUNT))
    lerr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_halo_create: unknown exchange back-end %d", (int)kind);
  if (!lerr && !local) lerr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_halo_create: local mesh is NULL");
  if (!lerr) lerr = check_local(h, local);
  if (!lerr) lerr = copy_tables(h, local);
  if (!h) {
    /* Out of memory before the halo existed: agree, then free the duplicate. */
    ierr = pm_comm_agree(dup, lerr);
    MPI_Comm_free(&dup);
    return ierr;
  }
  PM_TRY(pm_comm_agree(dup, lerr));

  PM_TRY(handshake(h, &lerr));
  PM_TRY(pm_comm_agree(dup, lerr));

  build_layout(h);
  if (kind == PM_EXCHANGE_NEIGHBOR) {
    int rc = MPI_Dist_graph_create_adjacent(dup, h->n_neib, h->neib, MPI_UNWEIGHTED, h->n_neib, h->neib, MPI_UNWEIGHTED,
                                            MPI_INFO_NULL, 0, &h->graph);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(h->graph, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) {
      ierr = pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Dist_graph_create_adjacent");
      goto cleanup;
    }
  }
  *halo = h;
  return PM_OK;
cleanup:
  pm_halo_destroy(&h);
  return ierr;
}

MPI_Comm pm_halo_comm(const pm_halo_t *halo) {
  return halo ? halo->comm : MPI_COMM_NULL;
}
int pm_halo_n_neib(const pm_halo_t *halo) {
  return halo ? halo->n_neib : 0;
}
int32_t pm_halo_n_internal(const pm_halo_t *halo) {
  return halo ? halo->n_internal : 0;
}
int32_t pm_halo_n_total(const pm_halo_t *halo) {
  return halo ? halo->n_total : 0;
}
pm_exchange_t pm_halo_kind(const pm_halo_t *halo) {
  return halo ? halo->kind : PM_EXCHANGE_COUNT;
}

/* ---------------------------------------------------------------- packing */

/* dst[i] = src[items[i]] for nodes of `item` bytes; the common sizes get a constant-size copy. */
static void pack(char *dst, const char *src, const int32_t *items, int32_t n, size_t item) {
#define PACK_(SZ)                                                                                      \
  for (int32_t i = 0; i < n; i++) memcpy(dst + (size_t)i * (SZ), src + (size_t)items[i] * (SZ), (SZ)); \
  return
  switch (item) {
    case 4:
      PACK_(4);
    case 8:
      PACK_(8);
    case 16:
      PACK_(16);
    case 24:
      PACK_(24);
    default:
      PACK_(item);
  }
#undef PACK_
}

static void unpack(char *dst, const char *src, const int32_t *items, int32_t n, size_t item) {
#define UNPACK_(SZ)                                                                                    \
  for (int32_t i = 0; i < n; i++) memcpy(dst + (size_t)items[i] * (SZ), src + (size_t)i * (SZ), (SZ)); \
  return
  switch (item) {
    case 4:
      UNPACK_(4);
    case 8:
      UNPACK_(8);
    case 16:
      UNPACK_(16);
    case 24:
      UNPACK_(24);
    default:
      UNPACK_(item);
  }
#undef UNPACK_
}

enum { SUM_NONE, SUM_I32, SUM_I64, SUM_F32, SUM_F64 };

static int sum_kind(MPI_Datatype t) {
  if (t == MPI_DOUBLE) return SUM_F64;
  if (t == MPI_FLOAT) return SUM_F32;
  if (t == MPI_INT || t == MPI_INT32_T) return SUM_I32;
  if (t == MPI_INT64_T || t == MPI_LONG_LONG || t == MPI_LONG_LONG_INT) return SUM_I64;
  if (t == MPI_LONG) return sizeof(long) == 8 ? SUM_I64 : sizeof(long) == 4 ? SUM_I32 : SUM_NONE;
  return SUM_NONE;
}

/* data[items[i]] += src[i], i ascending (neighbour order, then table order): deterministic.
 * Integers wrap (unsigned arithmetic) instead of overflowing. */
static void sum_into(void *data, const void *src, const int32_t *items, int32_t n, int bs, int kind) {
  switch (kind) {
    case SUM_F64: {
      double *d = data;
      const double *s = src;
      for (int32_t i = 0; i < n; i++)
        for (int c = 0; c < bs; c++) d[(size_t)items[i] * bs + c] += s[(size_t)i * bs + c];
      break;
    }
    case SUM_F32: {
      float *d = data;
      const float *s = src;
      for (int32_t i = 0; i < n; i++)
        for (int c = 0; c < bs; c++) d[(size_t)items[i] * bs + c] += s[(size_t)i * bs + c];
      break;
    }
    case SUM_I32: {
      int32_t *d = data;
      const int32_t *s = src;
      for (int32_t i = 0; i < n; i++)
        for (int c = 0; c < bs; c++) {
          size_t j = (size_t)items[i] * bs + c;
          d[j] = (int32_t)((uint32_t)d[j] + (uint32_t)s[(size_t)i * bs + c]);
        }
      break;
    }
    case SUM_I64: {
      int64_t *d = data;
      const int64_t *s = src;
      for (int32_t i = 0; i < n; i++)
        for (int c = 0; c < bs; c++) {
          size_t j = (size_t)items[i] * bs + c;
          d[j] = (int64_t)((uint64_t)d[j] + (uint64_t)s[(size_t)i * bs + c]);
        }
      break;
    }
    default:
      break;
  }
}

static int grow(char **buf, size_t *size, size_t need, const char *what) {
  if (need <= *size && *buf) return PM_OK;
  char *p = realloc(*buf, need ? need : 1);
  PM_CHECK(p, PM_ERR_MEMORY, "out of memory for the halo's %s (%zu bytes)", what, need);
  *buf = p;
  *size = need;
  return PM_OK;
}

/* ---------------------------------------------------------------- back-ends */

/* Counts, in nodes, of what neighbour k sends and receives for operation op. */
static int32_t send_off(const pm_halo_t *h, int op, int k) {
  return op == OP_UPDATE ? h->export_index[k] : h->import_index[k];
}
static int32_t send_cnt(const pm_halo_t *h, int op, int k) {
  return op == OP_UPDATE ? h->export_index[k + 1] - h->export_index[k] : h->import_index[k + 1] - h->import_index[k];
}
static int32_t recv_off(const pm_halo_t *h, int op, int k) {
  return op == OP_UPDATE ? h->import_index[k] : h->export_index[k];
}
static int32_t recv_cnt(const pm_halo_t *h, int op, int k) {
  return send_cnt(h, op == OP_UPDATE ? OP_ACCUMULATE : OP_UPDATE, k);
}

/* Where an update receives neighbour k's block straight into data (NULL: into rbuf). */
static char *direct_recv(const pm_halo_t *h, int op, int k, char *data) {
  if (op != OP_UPDATE || !h->import_contig[k] || h->import_index[k + 1] == h->import_index[k]) return NULL;
  return data + (size_t)h->import_item[h->import_index[k]] * h->item;
}

static void pack_send(const pm_halo_t *h, int op, char *sbuf, const char *data) {
  int n = h->n_neib;
  if (op == OP_UPDATE)
    pack(sbuf, data, h->export_item, h->export_index[n], h->item);
  else
    pack(sbuf, data, h->import_item, h->import_index[n], h->item);
}

/* Finish: unpack what an update received into rbuf, or add an accumulate's contributions. */
static void finish(pm_halo_t *h, const char *rbuf, char *data, int use_direct) {
  if (h->op == OP_ACCUMULATE) {
    sum_into(data, rbuf, h->export_item, h->export_index[h->n_neib], h->bs, sum_kind(h->type));
    return;
  }
  for (int k = 0; k < h->n_neib; k++) {
    if (use_direct && direct_recv(h, OP_UPDATE, k, data)) continue;
    int32_t off = h->import_index[k];
    unpack(data, rbuf + (size_t)off * h->item, h->import_item + off, h->import_index[k + 1] - off, h->item);
  }
}

static int tag_of(int op) {
  return op == OP_UPDATE ? TAG_UPDATE : TAG_ACCUMULATE;
}

static int isend_begin(pm_halo_t *h, char *data) {
  int op = h->op, tag = tag_of(op), nr = 0;
  for (int k = 0; k < h->n_neib; k++) {
    int32_t c = recv_cnt(h, op, k);
    if (!c) continue;
    char *dst = direct_recv(h, op, k, data);
    if (!dst) dst = h->rbuf + (size_t)recv_off(h, op, k) * h->item;
    PM_CALL_MPI(MPI_Irecv(dst, c * h->bs, h->type, h->neib[k], tag, h->comm, &h->req[nr++]));
  }
  pack_send(h, op, h->sbuf, data);
  for (int k = 0; k < h->n_neib; k++) {
    int32_t c = send_cnt(h, op, k);
    if (!c) continue;
    PM_CALL_MPI(MPI_Isend(h->sbuf + (size_t)send_off(h, op, k) * h->item, c * h->bs, h->type, h->neib[k], tag, h->comm,
                          &h->req[nr++]));
  }
  h->active = h->req;
  h->n_active = nr;
  return PM_OK;
}

static int sendrecv_end(pm_halo_t *h, char *data) {
  int op = h->op, tag = tag_of(op);
  for (int i = 0; i < h->n_neib; i++) {
    int k = h->order[i];
    char *dst = direct_recv(h, op, k, data);
    if (!dst) dst = h->rbuf + (size_t)recv_off(h, op, k) * h->item;
    PM_CALL_MPI(MPI_Sendrecv(h->sbuf + (size_t)send_off(h, op, k) * h->item, send_cnt(h, op, k) * h->bs, h->type,
                             h->neib[k], tag, dst, recv_cnt(h, op, k) * h->bs, h->type, h->neib[k], tag, h->comm,
                             MPI_STATUS_IGNORE));
  }
  return PM_OK;
}

static int indexed_type(const int32_t *items, int32_t n, int bs, MPI_Datatype type, MPI_Datatype *out) {
  int *disp = NULL;
  PM_CALL(PM_MALLOC(disp, n, "datatype displacements"));
  for (int32_t i = 0; i < n; i++) disp[i] = items[i] * bs;
  int rc = MPI_Type_create_indexed_block((int)n, bs, disp, type, out);
  free(disp);
  if (rc != MPI_SUCCESS) return pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Type_create_indexed_block");
  PM_CALL_MPI(MPI_Type_commit(out));
  return PM_OK;
}

/* The datatype back-end's types for (type, bs), created on first use and cached. */
static int dtype_get(pm_halo_t *h, dtype_entry_t **out) {
  for (dtype_entry_t *e = h->dtypes; e; e = e->next)
    if (e->type == h->type && e->bs == h->bs) {
      *out = e;
      return PM_OK;
    }
  int ierr = PM_OK, n = h->n_neib;
  dtype_entry_t *e = NULL;
  PM_TRY(PM_CALLOC(e, 1, "datatype cache"));
  e->type = h->type;
  e->bs = h->bs;
  PM_TRY(PM_MALLOC(e->exp, n, "datatype cache"));
  PM_TRY(PM_MALLOC(e->imp, n, "datatype cache"));
  for (int k = 0; k < n; k++) e->exp[k] = e->imp[k] = MPI_DATATYPE_NULL;
  for (int k = 0; k < n; k++) {
    int32_t b = h->export_index[k];
    PM_TRY(indexed_type(h->export_item + b, h->export_index[k + 1] - b, h->bs, h->type, &e->exp[k]));
    b = h->import_index[k];
    if (!h->import_contig[k])
      PM_TRY(indexed_type(h->import_item + b, h->import_index[k + 1] - b, h->bs, h->type, &e->imp[k]));
  }
  e->next = h->dtypes;
  h->dtypes = e;
  *out = e;
  return PM_OK;
cleanup:
  if (e) dtype_free(e, n);
  return ierr;
}

static int datatype_begin(pm_halo_t *h, char *data) {
  dtype_entry_t *e = NULL;
  PM_CALL(dtype_get(h, &e));
  int op = h->op, tag = tag_of(op), nr = 0;
  for (int k = 0; k < h->n_neib; k++) {
    int32_t c = recv_cnt(h, op, k);
    if (!c) continue;
    if (op == OP_ACCUMULATE)
      PM_CALL_MPI(MPI_Irecv(h->rbuf + (size_t)recv_off(h, op, k) * h->item, c * h->bs, h->type, h->neib[k], tag,
                            h->comm, &h->req[nr++]));
    else if (h->import_contig[k])
      PM_CALL_MPI(MPI_Irecv(direct_recv(h, op, k, data), c * h->bs, h->type, h->neib[k], tag, h->comm, &h->req[nr++]));
    else
      PM_CALL_MPI(MPI_Irecv(data, 1, e->imp[k], h->neib[k], tag, h->comm, &h->req[nr++]));
  }
  for (int k = 0; k < h->n_neib; k++) {
    int32_t c = send_cnt(h, op, k);
    if (!c) continue;
    if (op == OP_UPDATE)
      PM_CALL_MPI(MPI_Isend(data, 1, e->exp[k], h->neib[k], tag, h->comm, &h->req[nr++]));
    else if (h->import_contig[k])
      PM_CALL_MPI(MPI_Isend(data + (size_t)h->import_item[h->import_index[k]] * h->item, c * h->bs, h->type, h->neib[k],
                            tag, h->comm, &h->req[nr++]));
    else
      PM_CALL_MPI(MPI_Isend(data, 1, e->imp[k], h->neib[k], tag, h->comm, &h->req[nr++]));
  }
  h->active = h->req;
  h->n_active = nr;
  return PM_OK;
}

/* The persistent back-end's requests for (op, type, bs), created on first use and cached. */
static int persist_get(pm_halo_t *h, persist_entry_t **out) {
  persist_entry_t **pp = &h->persist, *e;
  int count = 0;
  for (e = h->persist; e; pp = &e->next, e = e->next, count++)
    if (e->op == h->op && e->type == h->type && e->bs == h->bs) {
      *pp = e->next; /* move to the front */
      e->next = h->persist;
      h->persist = e;
      *out = e;
      return PM_OK;
    }
  if (count >= PERSIST_MAX) { /* drop the least recently used (none is in flight now) */
    pp = &h->persist;
    while ((*pp)->next) pp = &(*pp)->next;
    persist_free(*pp);
    *pp = NULL;
  }
  int ierr = PM_OK, op = h->op, tag = tag_of(op), n = h->n_neib;
  e = NULL;
  PM_TRY(PM_CALLOC(e, 1, "persistent requests"));
  e->op = op;
  e->type = h->type;
  e->bs = h->bs;
  int32_t ns = op == OP_UPDATE ? h->export_index[n] : h->import_index[n];
  int32_t nrv = op == OP_UPDATE ? h->import_index[n] : h->export_index[n];
  PM_TRY(PM_MALLOC(e->sbuf, (size_t)ns * h->item, "persistent send buffer"));
  PM_TRY(PM_MALLOC(e->rbuf, (size_t)nrv * h->item, "persistent receive buffer"));
  PM_TRY(PM_MALLOC(e->req, 2 * n, "persistent requests"));
  for (int k = 0; k < n; k++) {
    int32_t c = recv_cnt(h, op, k);
    if (!c) continue;
    int rc = MPI_Recv_init(e->rbuf + (size_t)recv_off(h, op, k) * h->item, c * h->bs, h->type, h->neib[k], tag, h->comm,
                           &e->req[e->n_req]);
    PM_TRY_CHECK(rc == MPI_SUCCESS, pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Recv_init"), "MPI_Recv_init");
    e->n_req++;
  }
  for (int k = 0; k < n; k++) {
    int32_t c = send_cnt(h, op, k);
    if (!c) continue;
    int rc = MPI_Send_init(e->sbuf + (size_t)send_off(h, op, k) * h->item, c * h->bs, h->type, h->neib[k], tag, h->comm,
                           &e->req[e->n_req]);
    PM_TRY_CHECK(rc == MPI_SUCCESS, pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Send_init"), "MPI_Send_init");
    e->n_req++;
  }
  e->next = h->persist;
  h->persist = e;
  *out = e;
  return PM_OK;
cleanup:
  if (e) persist_free(e);
  return ierr;
}

static int persistent_begin(pm_halo_t *h, char *data) {
  persist_entry_t *e = NULL;
  PM_CALL(persist_get(h, &e));
  pack_send(h, h->op, e->sbuf, data);
  if (e->n_req) PM_CALL_MPI(MPI_Startall(e->n_req, e->req));
  h->apersist = e;
  h->active = e->req;
  h->n_active = e->n_req;
  h->arbuf = e->rbuf;
  return PM_OK;
}

static int neighbor_begin(pm_halo_t *h, char *data) {
  int op = h->op, n = h->n_neib;
  int *sc = h->counts, *sd = sc + n, *rc = sd + n, *rd = rc + n;
  int direct = op == OP_UPDATE && h->import_identity;
  for (int k = 0; k < n; k++) {
    sc[k] = send_cnt(h, op, k) * h->bs;
    sd[k] = send_off(h, op, k) * h->bs;
    rc[k] = recv_cnt(h, op, k) * h->bs;
    rd[k] = recv_off(h, op, k) * h->bs;
  }
  pack_send(h, op, h->sbuf, data);
  char *rbuf = direct ? data + (size_t)h->n_internal * h->item : h->rbuf;
  PM_CALL_MPI(MPI_Ineighbor_alltoallv(h->sbuf, sc, sd, h->type, rbuf, rc, rd, h->type, h->graph, &h->req[0]));
  h->active = h->req;
  h->n_active = 1;
  return PM_OK;
}

/* ---------------------------------------------------------------- begin / end */

static const char *op_name(int op) {
  return op == OP_UPDATE ? "update" : "accumulate";
}

static int begin(pm_halo_t *h, int op, void *data, MPI_Datatype type, int bs) {
  const char *name = op_name(op);
  PM_CHECK(h, PM_ERR_ARG, "pm_halo_%s_begin: halo is NULL", name);
  PM_CHECK(h->op == OP_NONE, PM_ERR_ARG,
           "pm_halo_%s_begin: a halo %s is already in progress on this halo: call pm_halo_%s_end first", name,
           op_name(h->op), op_name(h->op));
  PM_CHECK(bs >= 1, PM_ERR_ARG, "pm_halo_%s_begin: block size %d must be at least 1", name, bs);
  PM_CHECK((int64_t)h->n_total * bs <= INT_MAX, PM_ERR_UNSUPPORTED,
           "pm_halo_%s_begin: NP * bs = %lld values exceed what an MPI count can address", name,
           (long long)h->n_total * bs);
  PM_CHECK(data || h->n_total == 0, PM_ERR_ARG, "pm_halo_%s_begin: data is NULL", name);
  PM_CHECK(type != MPI_DATATYPE_NULL, PM_ERR_ARG, "pm_halo_%s_begin: type is MPI_DATATYPE_NULL", name);
  int ni, na, nd, combiner, tsize;
  PM_CALL_MPI(MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner));
  PM_CHECK(combiner == MPI_COMBINER_NAMED, PM_ERR_ARG,
           "pm_halo_%s_begin: the type must be a predefined MPI datatype (MPI_DOUBLE, MPI_INT, ...)", name);
  PM_CHECK(op != OP_ACCUMULATE || sum_kind(type) != SUM_NONE, PM_ERR_ARG,
           "pm_halo_accumulate_begin: unsupported type: expected MPI_INT, MPI_INT64_T, MPI_LONG_LONG, MPI_FLOAT or "
           "MPI_DOUBLE");
  PM_CALL_MPI(MPI_Type_size(type, &tsize));
  PM_CHECK(tsize > 0, PM_ERR_ARG, "pm_halo_%s_begin: the type has size %d", name, tsize);

  h->type = type;
  h->bs = bs;
  h->item = (size_t)bs * (size_t)tsize;
  h->data = data;
  h->op = op;
  h->n_active = 0;
  h->active = NULL;
  h->apersist = NULL;
  int n = h->n_neib;
  size_t ns = (size_t)(op == OP_UPDATE ? h->export_index[n] : h->import_index[n]) * h->item;
  size_t nr = (size_t)(op == OP_UPDATE ? h->import_index[n] : h->export_index[n]) * h->item;
  int ierr = PM_OK;
  if (h->kind != PM_EXCHANGE_PERSISTENT) {
    if (h->kind != PM_EXCHANGE_DATATYPE) PM_TRY(grow(&h->sbuf, &h->sbuf_size, ns, "send buffer"));
    PM_TRY(grow(&h->rbuf, &h->rbuf_size, nr, "receive buffer"));
    h->asbuf = h->sbuf;
    h->arbuf = h->rbuf;
  }
  switch (h->kind) {
    case PM_EXCHANGE_ISEND:
      PM_TRY(isend_begin(h, data));
      break;
    case PM_EXCHANGE_SENDRECV:
      pack_send(h, op, h->sbuf, data);
      break; /* the exchange is in end */
    case PM_EXCHANGE_DATATYPE:
      PM_TRY(datatype_begin(h, data));
      break;
    case PM_EXCHANGE_PERSISTENT:
      PM_TRY(persistent_begin(h, data));
      break;
    case PM_EXCHANGE_NEIGHBOR:
      PM_TRY(neighbor_begin(h, data));
      break;
    default:
      PM_TRY_CHECK(0, PM_ERR_ARG, "unknown back-end %d", (int)h->kind);
  }
  return PM_OK;
cleanup:
  h->op = OP_NONE; /* after an MPI error the halo can only be destroyed */
  h->n_active = 0;
  return ierr;
}

static int end(pm_halo_t *h, int op, void *data, MPI_Datatype type, int bs) {
  const char *name = op_name(op);
  PM_CHECK(h, PM_ERR_ARG, "pm_halo_%s_end: halo is NULL", name);
  PM_CHECK(h->op != OP_NONE, PM_ERR_ARG, "pm_halo_%s_end: no halo %s is in progress: call pm_halo_%s_begin first", name,
           name, name);
  PM_CHECK(h->op == op, PM_ERR_ARG, "pm_halo_%s_end: the exchange in progress is a halo %s: call pm_halo_%s_end", name,
           op_name(h->op), op_name(h->op));
  PM_CHECK(data == h->data && type == h->type && bs == h->bs, PM_ERR_ARG,
           "pm_halo_%s_end: data, type and block size must be those given to pm_halo_%s_begin (bs %d, got %d%s%s)",
           name, name, h->bs, bs, data == h->data ? "" : "; another data pointer",
           type == h->type ? "" : "; another type");
  int ierr = PM_OK;
  if (h->kind == PM_EXCHANGE_SENDRECV) PM_TRY(sendrecv_end(h, data));
  if (h->n_active) {
    int rc = pm_comm_waitall(h->n_active, h->active, h->status);
    PM_TRY_CHECK(rc == MPI_SUCCESS, pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Waitall (halo exchange)"), "wait");
  }
  switch (h->kind) {
    case PM_EXCHANGE_DATATYPE:
      if (op == OP_ACCUMULATE) finish(h, h->arbuf, data, 1);
      break; /* an update received in place */
    case PM_EXCHANGE_NEIGHBOR:
      if (op == OP_ACCUMULATE || !h->import_identity) finish(h, h->arbuf, data, 0);
      break;
    case PM_EXCHANGE_PERSISTENT:
      finish(h, h->arbuf, data, 0);
      break;
    default:
      finish(h, h->arbuf, data, 1);
      break;
  }
cleanup:
  h->op = OP_NONE;
  h->n_active = 0;
  h->data = NULL;
  return ierr;
}

int pm_halo_update_begin(pm_halo_t *halo, void *data, MPI_Datatype type, int bs) {
  PM_CALL(begin(halo, OP_UPDATE, data, type, bs));
  return PM_OK;
}
int pm_halo_update_end(pm_halo_t *halo, void *data, MPI_Datatype type, int bs) {
  PM_CALL(end(halo, OP_UPDATE, data, type, bs));
  return PM_OK;
}
int pm_halo_accumulate_begin(pm_halo_t *halo, void *data, MPI_Datatype type, int bs) {
  PM_CALL(begin(halo, OP_ACCUMULATE, data, type, bs));
  return PM_OK;
}
int pm_halo_accumulate_end(pm_halo_t *halo, void *data, MPI_Datatype type, int bs) {
  PM_CALL(end(halo, OP_ACCUMULATE, data, type, bs));
  return PM_OK;
}
int pm_halo_update(pm_halo_t *halo, void *data, MPI_Datatype type, int bs) {
  PM_CALL(begin(halo, OP_UPDATE, data, type, bs));
  PM_CALL(end(halo, OP_UPDATE, data, type, bs));
  return PM_OK;
}
int pm_halo_accumulate(pm_halo_t *halo, void *data, MPI_Datatype type, int bs) {
  PM_CALL(begin(halo, OP_ACCUMULATE, data, type, bs));
  PM_CALL(end(halo, OP_ACCUMULATE, data, type, bs));
  return PM_OK;
}

/* ---------------------------------------------------------------- self-test */

int pm_halo_selftest(pm_halo_t *halo, const pm_local_t *local, FILE *out, int64_t *n_wrong) {
  PM_CHECK(halo && n_wrong, PM_ERR_ARG, "pm_halo_selftest: NULL argument");
  *n_wrong = 0;
  int ierr = PM_OK, lerr = PM_OK;
  int64_t *v = NULL;
  char *text = NULL, *all = NULL;
  int *len = NULL, *disp = NULL;
  size_t cap = 0, used = 0;
  if (!local || !local->gid)
    lerr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "pm_halo_selftest: rank %d's local mesh has no global ids (a lecture file with the tables "
                        "only?)",
                        halo->rank);
  else if (local->n_total != halo->n_total || local->n_internal != halo->n_internal || local->n_neib != halo->n_neib)
    lerr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "pm_halo_selftest: rank %d's local mesh is not the one the halo was built from", halo->rank);
  if (!lerr) lerr = PM_MALLOC(v, halo->n_total, "self-test values");
  PM_TRY(pm_comm_agree(halo->comm, lerr));
  for (int32_t i = 0; i < halo->n_total; i++) v[i] = i < halo->n_internal ? local->gid[i] : -1;
  PM_TRY(pm_halo_update(halo, v, MPI_INT64_T, 1));
  int64_t wrong = 0;
  for (int32_t i = halo->n_internal; i < halo->n_total; i++) wrong += v[i] != local->gid[i];
  {
    int rc = MPI_Allreduce(&wrong, n_wrong, 1, MPI_INT64_T, MPI_SUM, halo->comm);
    PM_TRY_CHECK(rc == MPI_SUCCESS, pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Allreduce"), "self-test");
  }
  /* Printing is collective: it happens when any rank passes `out` (the callers usually pass it on
   * rank 0 only), and rank 0 writes to its `out`. */
  int want = out != NULL;
  {
    int rc = MPI_Allreduce(MPI_IN_PLACE, &want, 1, MPI_INT, MPI_MAX, halo->comm);
    PM_TRY_CHECK(rc == MPI_SUCCESS, pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Allreduce"), "self-test");
  }
  if (want) {
    /* This rank's lines, in import order; rank 0 gathers and prints them in rank order. */
    lerr = PM_OK;
    for (int k = 0; k < halo->n_neib && !lerr; k++)
      for (int32_t i = halo->import_index[k]; i < halo->import_index[k + 1] && !lerr; i++) {
        if (cap - used < 64) {
          cap = cap ? 2 * cap : 4096;
          char *p = realloc(text, cap);
          if (!p)
            lerr = pm_error_set(PM_ERR_MEMORY, __FILE__, __LINE__, "out of memory for the self-test lines");
          else
            text = p;
        }
        if (!lerr)
          used += (size_t)snprintf(text + used, cap - used, "RECVbuf%8d%8d%8lld\n", halo->rank, halo->neib[k],
                                   (long long)v[halo->import_item[i]]);
      }
    if (!lerr && used > INT_MAX)
      lerr = pm_error_set(PM_ERR_UNSUPPORTED, __FILE__, __LINE__, "self-test output too long");
    if (!lerr && halo->rank == 0) {
      lerr = PM_MALLOC(len, halo->size, "self-test gather");
      if (!lerr) lerr = PM_MALLOC(disp, halo->size, "self-test gather");
    }
    PM_TRY(pm_comm_agree(halo->comm, lerr));
    int mylen = (int)used, total = 0;
    {
      int rc = MPI_Gather(&mylen, 1, MPI_INT, len, 1, MPI_INT, 0, halo->comm);
      PM_TRY_CHECK(rc == MPI_SUCCESS, pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Gather"), "self-test");
    }
    lerr = PM_OK;
    if (halo->rank == 0) {
      int64_t t = 0;
      for (int r = 0; r < halo->size; r++) {
        disp[r] = (int)t;
        t += len[r];
      }
      if (t > INT_MAX)
        lerr = pm_error_set(PM_ERR_UNSUPPORTED, __FILE__, __LINE__, "self-test output too long");
      else {
        total = (int)t;
        lerr = PM_MALLOC(all, total, "self-test output");
      }
    }
    PM_TRY(pm_comm_agree(halo->comm, lerr));
    {
      int rc = MPI_Gatherv(text ? text : "", mylen, MPI_CHAR, all, len, disp, MPI_CHAR, 0, halo->comm);
      PM_TRY_CHECK(rc == MPI_SUCCESS, pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Gatherv"), "self-test");
    }
    if (halo->rank == 0 && total && out) fwrite(all, 1, (size_t)total, out);
    if (halo->rank == 0 && out) fflush(out);
  }
cleanup:
  free(v);
  free(text);
  free(all);
  free(len);
  free(disp);
  return ierr;
}
