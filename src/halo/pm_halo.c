/* pm_halo.c - the halo exchange over a local mesh's import/export tables: construction and its
 * checks, the begin/end protocol, and the lecture's self-test.  The six back-ends, the datatype
 * analysis and the packing are in pm_halo_exchange.c.
 *
 * Contract between begin and end (all back-ends): externals must not be touched; internal
 * entries may be read; for update, exported internal entries must not be written (the datatype
 * back-end sends straight from them), non-exported internals may be written; for accumulate,
 * internals may be written and end adds the contributions to the values they hold at end. */
#include "pmesh/pm_halo.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pm_halo_exchange.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

static const char *const kind_names[PM_EXCHANGE_COUNT] = {"isend",      "sendrecv", "datatype",
                                                          "persistent", "neighbor", "pack"};

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
                      "unknown halo exchange '%s': expected isend, sendrecv, datatype, persistent, neighbor, "
                      "pack or default",
                      name);
}

/* isend is the default: in bench/bench_halo.sh it was never measurably behind the other
 * back-ends, needs no cache and receives straight into the external block (the figures are in
 * docs/halo-notes.md). */
pm_exchange_t pm_exchange_default(void) {
  return PM_EXCHANGE_ISEND;
}

/* ---------------------------------------------------------------- create / destroy */

void pm_halo_destroy(pm_halo_t **halo) {
  if (!halo || !*halo) return;
  pm_halo_t *h = *halo;
  /* An exchange still in flight is completed first: its buffers are about to be freed. */
  if (h->op != OP_NONE && h->n_active > 0 && h->status) MPI_Waitall(h->n_active, h->active, h->status);
  pm_halo_backend_free(h);
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
  free(h->offsets);
  free(h);
  *halo = NULL;
}

/* What a local mesh promises beyond plain lists: it is this job's and this rank's part, its
 * externals are the last NP - N nodes, each imported once, and it exports internal nodes only
 * (no communication). */
static int check_local(const pm_halo_t *h, const pm_local_t *l) {
  PM_CHECK(l->nparts <= 0 || l->nparts == h->size, PM_ERR_ARG,
           "the partition has %d parts but the job has %d ranks: run with mpiexec -n %d", l->nparts, h->size,
           l->nparts);
  PM_CHECK(l->rank < 0 || l->rank == h->rank, PM_ERR_ARG,
           "rank %d was given the local mesh of rank %d: read local.%d on rank %d", h->rank, l->rank, h->rank, h->rank);
  PM_CHECK(l->n_neib >= 0 && (l->n_neib == 0 || l->neib), PM_ERR_ARG, "rank %d: invalid neighbour list", h->rank);
  PM_CHECK(l->n_internal >= 0 && l->n_total >= l->n_internal, PM_ERR_ARG,
           "rank %d: invalid node counts NP = %d, N = %d", h->rank, l->n_total, l->n_internal);
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

/* The rules of pm_halo_lists_t (no communication).  `mark` has n_total bytes, zeroed. */
static int check_items(const pm_halo_t *h, const pm_halo_lists_t *g, char *mark) {
  int n = g->n_neib;
  int32_t ni = g->import_index[n], ne = g->export_index[n];
  for (int32_t i = 0; i < ni; i++) {
    int32_t v = g->import_item[i];
    PM_CHECK(v >= 0 && v < g->n_total, PM_ERR_ARG, "rank %d: import item %d is position %d, outside 0..%d", h->rank,
             (int)i, (int)v, (int)g->n_total - 1);
    PM_CHECK(!mark[v], PM_ERR_ARG, "rank %d: position %d is imported twice (import item %d)", h->rank, (int)v, (int)i);
    mark[v] = 1;
  }
  for (int32_t i = 0; i < ne; i++) {
    int32_t v = g->export_item[i];
    PM_CHECK(v >= 0 && v < g->n_total, PM_ERR_ARG, "rank %d: export item %d is position %d, outside 0..%d", h->rank,
             (int)i, (int)v, (int)g->n_total - 1);
    PM_CHECK(!mark[v], PM_ERR_ARG,
             "rank %d: position %d is both imported and exported (export item %d): a rank exports the values it "
             "owns, and receives into others",
             h->rank, (int)v, (int)i);
  }
  return PM_OK;
}

static int check_lists(const pm_halo_t *h, const pm_halo_lists_t *g) {
  int n = g->n_neib;
  PM_CHECK(g->n_total >= 0, PM_ERR_ARG, "rank %d: invalid vector length NP = %d", h->rank, (int)g->n_total);
  PM_CHECK(n >= 0 && (n == 0 || (g->neib && g->import_index && g->export_index)), PM_ERR_ARG,
           "rank %d: %d neighbours but no neighbour list or import/export index", h->rank, n);
  for (int k = 0; k < n; k++) {
    int q = g->neib[k];
    PM_CHECK(q >= 0 && q < h->size && q != h->rank, PM_ERR_ARG,
             "rank %d lists neighbour rank %d, which is not another rank of the %d in the job", h->rank, q, h->size);
    for (int j = 0; j < k; j++)
      PM_CHECK(g->neib[j] != q, PM_ERR_ARG, "rank %d lists neighbour rank %d twice", h->rank, q);
  }
  if (n == 0) return PM_OK;
  PM_CHECK(g->import_index[0] == 0 && g->export_index[0] == 0, PM_ERR_ARG,
           "rank %d: import_index[0] and export_index[0] must be 0", h->rank);
  for (int k = 0; k < n; k++)
    PM_CHECK(g->import_index[k + 1] >= g->import_index[k] && g->export_index[k + 1] >= g->export_index[k], PM_ERR_ARG,
             "rank %d: the import/export index decreases at neighbour %d (rank %d)", h->rank, k, g->neib[k]);
  PM_CHECK(g->import_index[n] <= g->n_total, PM_ERR_ARG, "rank %d: %d import items but only NP = %d positions", h->rank,
           (int)g->import_index[n], (int)g->n_total);
  PM_CHECK((g->import_index[n] == 0 || g->import_item) && (g->export_index[n] == 0 || g->export_item), PM_ERR_ARG,
           "rank %d: import or export items missing", h->rank);
  char *mark = NULL;
  PM_CALL(PM_CALLOC(mark, (size_t)g->n_total + 1, "halo position marks"));
  int ierr = check_items(h, g, mark);
  free(mark);
  return ierr;
}

static int copy_tables(pm_halo_t *h, const pm_halo_lists_t *g) {
  static const int32_t zero = 0;
  int n = g->n_neib;
  const int32_t *ii = n ? g->import_index : &zero, *ei = n ? g->export_index : &zero;
  h->n_neib = n;
  h->n_total = g->n_total;
  h->n_internal = g->n_total - ii[n];
  PM_CALL(PM_MALLOC(h->neib, n, "halo neighbours"));
  PM_CALL(PM_MALLOC(h->order, n, "halo schedule"));
  PM_CALL(PM_MALLOC(h->import_index, n + 1, "halo import index"));
  PM_CALL(PM_MALLOC(h->export_index, n + 1, "halo export index"));
  PM_CALL(PM_MALLOC(h->import_contig, n, "halo import blocks"));
  PM_CALL(PM_MALLOC(h->req, 2 * n, "halo requests"));
  PM_CALL(PM_MALLOC(h->status, 2 * n + 1, "halo statuses"));
  PM_CALL(PM_MALLOC(h->counts, 4 * n, "halo counts"));
  PM_CALL(PM_MALLOC(h->offsets, 2 * n, "halo offsets"));
  if (n) memcpy(h->neib, g->neib, (size_t)n * sizeof *h->neib);
  memcpy(h->import_index, ii, (size_t)(n + 1) * sizeof *h->import_index);
  memcpy(h->export_index, ei, (size_t)(n + 1) * sizeof *h->export_index);
  int32_t ni = ii[n], ne = ei[n];
  PM_CALL(PM_MALLOC(h->import_item, ni, "halo import items"));
  PM_CALL(PM_MALLOC(h->export_item, ne, "halo export items"));
  if (ni) memcpy(h->import_item, g->import_item, (size_t)ni * sizeof *h->import_item);
  if (ne) memcpy(h->export_item, g->export_item, (size_t)ne * sizeof *h->export_item);
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

/* Both constructors: from `g`, with the local mesh's own rules first when `local` is given
 * (`who` names the call in messages). */
static int create(MPI_Comm comm, const pm_halo_lists_t *g, const pm_local_t *local, pm_exchange_t kind, const char *who,
                  pm_halo_t **halo) {
  int ierr = PM_OK, lerr = PM_OK;
  pm_halo_t *h = NULL;
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
    lerr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "%s: unknown exchange back-end %d", who, (int)kind);
  if (!lerr && !g)
    lerr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "%s: %s is NULL", who,
                        strcmp(who, "pm_halo_create") ? "lists" : "local mesh");
  if (!lerr && local) lerr = check_local(h, local);
  if (!lerr) lerr = check_lists(h, g);
  if (!lerr) lerr = copy_tables(h, g);
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

int pm_halo_create_lists(MPI_Comm comm, const pm_halo_lists_t *lists, pm_exchange_t kind, pm_halo_t **halo) {
  PM_CHECK(halo, PM_ERR_ARG, "pm_halo_create_lists: halo is NULL");
  *halo = NULL;
  return create(comm, lists, NULL, kind, "pm_halo_create_lists", halo);
}

int pm_halo_create(MPI_Comm comm, const pm_local_t *local, pm_exchange_t kind, pm_halo_t **halo) {
  PM_CHECK(halo, PM_ERR_ARG, "pm_halo_create: halo is NULL");
  *halo = NULL;
  pm_halo_lists_t g;
  if (local)
    g = (pm_halo_lists_t){local->n_total,     local->n_neib,       local->neib,       local->import_index,
                          local->import_item, local->export_index, local->export_item};
  return create(comm, local ? &g : NULL, local, kind, "pm_halo_create", halo);
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
  char what[32];
  snprintf(what, sizeof what, "pm_halo_%s_begin", name);
  PM_CALL(pm_halo_type_layout(h, op, type, bs, what));

  h->type = type;
  h->bs = bs;
  h->data = data;
  h->op = op;
  int ierr = PM_OK;
  PM_TRY(pm_halo_backend_begin(h, data));
  return PM_OK;
cleanup:
  pm_halo_backend_release(h);
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
  PM_TRY(pm_halo_backend_end(h, data));
cleanup:
  pm_halo_backend_release(h);
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
