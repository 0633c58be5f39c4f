/* pm_halo_exchange.c - the halo's six interchangeable back-ends and what they share.
 *
 *  - message layout: for neighbour k the update sends export items export_index[k].. (bs items
 *    of `type` per node, in table order) and receives import items import_index[k]..; accumulate
 *    sends and receives the other way round;
 *  - buffers are laid out like the data (one node = bs * extent bytes), so that MPI reads and
 *    writes them with the caller's own type, predefined or derived; only the pack back-end's
 *    buffers hold MPI_PACKED bytes;
 *  - received accumulate contributions always land in a buffer laid out like the export table
 *    and are added in table order (neighbour k ascending in #NEIBPE order, then item order), so
 *    the result is bitwise the same for every back-end and every message arrival order;
 *  - an update writes only the bytes the type's typemap covers: MPI does so where it receives
 *    in place, and an unpack of a type with gaps (a struct's padding, or fields the type leaves
 *    out) copies only those bytes (the item's runs, which pm_halo_type_layout finds), so every
 *    back-end leaves the rest of an external's record as it was;
 *  - an update receives straight into `data` where neighbour k's externals are the contiguous
 *    block import_item[import_index[k]] + 0, 1, ... (always true for files written by partition,
 *    checked at create time); otherwise it receives into a buffer and unpacks (lecture files may
 *    number their externals in any order).
 *
 * Caches (the indexed types of the datatype and pack back-ends, the persistent requests) are
 * kept per predefined type only: a derived type's handle can be freed and handed out again for
 * another type, so what is built for a derived type lives for one exchange.
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
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "pm_halo_exchange.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

enum { TAG_UPDATE = 11, TAG_ACCUMULATE = 12 };
enum { PERSIST_MAX = 8 };

/* ---------------------------------------------------------------- packing and sums */

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

/* unpack() for a type with gaps: only the bytes of its typemap, item by item. */
static void unpack_runs(const pm_halo_t *h, char *dst, const char *src, const int32_t *items, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    for (int b = 0; b < h->bs; b++) {
      char *d = dst + (size_t)items[i] * h->item + (size_t)b * (size_t)h->extent;
      const char *s = src + (size_t)i * h->item + (size_t)b * (size_t)h->extent;
      for (int r = 0; r < h->n_runs; r++) memcpy(d + h->runs[2 * r], s + h->runs[2 * r], (size_t)h->runs[2 * r + 1]);
    }
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

/* ---------------------------------------------------------------- the datatype */

/* The byte runs one item of the type covers: unpack all-ones bytes into zeros and all-zero
 * bytes into ones; a byte is the type's when either unpack changed it (MPI decides, so every
 * constructor, nesting and resizing is covered). */
static int item_runs(pm_halo_t *h, MPI_Datatype type, int psize) {
  int ierr = PM_OK;
  size_t ext = (size_t)h->extent;
  unsigned char *a = NULL, *b = NULL, *p = NULL;
  PM_TRY(PM_MALLOC(a, ext, "datatype layout"));
  PM_TRY(PM_MALLOC(b, ext, "datatype layout"));
  PM_TRY(PM_MALLOC(p, psize, "datatype layout"));
  memset(a, 0x00, ext);
  memset(b, 0xFF, ext);
  for (int pass = 0; pass < 2; pass++) {
    int pos = 0;
    memset(p, pass ? 0x00 : 0xFF, (size_t)psize);
    int rc = MPI_Unpack(p, psize, &pos, pass ? b : a, 1, type, h->comm);
    PM_TRY_CHECK(rc == MPI_SUCCESS, pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Unpack (datatype layout)"), "unpack");
  }
  h->n_runs = 0;
  for (size_t i = 0; i < ext;) {
    if (a[i] == 0x00 && b[i] == 0xFF) {
      i++;
      continue;
    }
    size_t j = i;
    while (j < ext && (a[j] != 0x00 || b[j] != 0xFF)) j++;
    if (h->n_runs == h->runs_cap) {
      int cap = h->runs_cap ? 2 * h->runs_cap : 8;
      PM_TRY(PM_REALLOC(h->runs, 2 * (size_t)cap, "datatype layout"));
      h->runs_cap = cap;
    }
    h->runs[2 * h->n_runs] = (MPI_Aint)i;
    h->runs[2 * h->n_runs + 1] = (MPI_Aint)(j - i);
    h->n_runs++;
    i = j;
  }
cleanup:
  free(a);
  free(b);
  free(p);
  return ierr;
}

int pm_halo_type_layout(pm_halo_t *h, int op, MPI_Datatype type, int bs, const char *what) {
  int ni, na, nd, combiner, tsize, psize = 0;
  PM_CALL_MPI(MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner));
  int derived = combiner != MPI_COMBINER_NAMED;
  PM_CHECK(op != OP_ACCUMULATE || !derived, PM_ERR_ARG,
           "%s: a derived datatype cannot be summed (MPI's sums are defined on predefined types only): "
           "accumulate its fields with a predefined type each, e.g. MPI_DOUBLE with bs = doubles per node",
           what);
  PM_CHECK(op != OP_ACCUMULATE || sum_kind(type) != SUM_NONE, PM_ERR_ARG,
           "%s: unsupported type: expected MPI_INT, MPI_INT64_T, MPI_LONG_LONG, MPI_FLOAT or MPI_DOUBLE", what);
  /* MPI_Pack_size refuses a type that is not committed: every rank finds out here, alike,
   * instead of only the ranks with neighbours in their first send. */
  int rc = MPI_Pack_size(1, type, h->comm, &psize);
  if (rc != MPI_SUCCESS) {
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    if (MPI_Error_string(rc, text, &len) != MPI_SUCCESS) len = 0;
    text[len] = '\0';
    return pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "%s: the datatype cannot be communicated (was it committed with MPI_Type_commit?): %s", what,
                        text);
  }
  MPI_Aint lb, extent, tlb, textent;
  PM_CALL_MPI(MPI_Type_size(type, &tsize));
  PM_CALL_MPI(MPI_Type_get_extent(type, &lb, &extent));
  PM_CALL_MPI(MPI_Type_get_true_extent(type, &tlb, &textent));
  PM_CHECK(tsize > 0 && extent > 0, PM_ERR_ARG, "%s: the type has size %d and extent %lld: nothing to exchange", what,
           tsize, (long long)extent);
  /* Node i's items are MPI's items i * bs ..: each must keep to its own extent, or the copies
   * of neighbouring nodes would overlap. */
  PM_CHECK(tlb >= 0 && tlb + textent <= extent, PM_ERR_ARG,
           "%s: the datatype's data (bytes %lld..%lld of an item) reaches outside its extent 0..%lld: resize it to "
           "one node's record, MPI_Type_create_resized(type, 0, sizeof(record), &resized)",
           what, (long long)tlb, (long long)(tlb + textent - 1), (long long)extent - 1);
  h->derived = derived;
  h->extent = extent;
  h->item = (size_t)bs * (size_t)extent;
  /* A valid receive type never covers a byte twice: size == extent means it has no gaps. */
  h->dense = (MPI_Aint)tsize == extent;
  h->n_runs = 0;
  if (!h->dense) PM_CALL(item_runs(h, type, psize));
  return PM_OK;
}

/* ---------------------------------------------------------------- shared by the back-ends */

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
/* Bytes of all the nodes op sends or receives. */
static size_t send_bytes(const pm_halo_t *h, int op) {
  return (size_t)(op == OP_UPDATE ? h->export_index[h->n_neib] : h->import_index[h->n_neib]) * h->item;
}
static size_t recv_bytes(const pm_halo_t *h, int op) {
  return (size_t)(op == OP_UPDATE ? h->import_index[h->n_neib] : h->export_index[h->n_neib]) * h->item;
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
    int32_t off = h->import_index[k], c = h->import_index[k + 1] - off;
    if (h->dense)
      unpack(data, rbuf + (size_t)off * h->item, h->import_item + off, c, h->item);
    else
      unpack_runs(h, data, rbuf + (size_t)off * h->item, h->import_item + off, c);
  }
}

static int tag_of(int op) {
  return op == OP_UPDATE ? TAG_UPDATE : TAG_ACCUMULATE;
}

/* ---------------------------------------------------------------- isend, sendrecv */

static int isend_begin(pm_halo_t *h, char *data) {
  int op = h->op, tag = tag_of(op), nr = 0;
  PM_CALL(grow(&h->sbuf, &h->sbuf_size, send_bytes(h, op), "send buffer"));
  PM_CALL(grow(&h->rbuf, &h->rbuf_size, recv_bytes(h, op), "receive buffer"));
  h->arbuf = h->rbuf;
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

static int sendrecv_begin(pm_halo_t *h, char *data) {
  PM_CALL(grow(&h->sbuf, &h->sbuf_size, send_bytes(h, h->op), "send buffer"));
  PM_CALL(grow(&h->rbuf, &h->rbuf_size, recv_bytes(h, h->op), "receive buffer"));
  h->arbuf = h->rbuf;
  pack_send(h, h->op, h->sbuf, data);
  return PM_OK; /* the exchange is in end */
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

/* ---------------------------------------------------------------- datatype */

static void dtype_free(dtype_entry_t *e, int n_neib) {
  for (int k = 0; k < n_neib; k++) {
    if (e->exp && e->exp[k] != MPI_DATATYPE_NULL) MPI_Type_free(&e->exp[k]);
    if (e->imp && e->imp[k] != MPI_DATATYPE_NULL) MPI_Type_free(&e->imp[k]);
  }
  free(e->exp);
  free(e->imp);
  free(e);
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

/* The indexed types for (type, bs): cached for a predefined type, built for this exchange for a
 * derived one.  Becomes the exchange's h->adtype. */
static int dtype_get(pm_halo_t *h, dtype_entry_t **out) {
  if (!h->derived)
    for (dtype_entry_t *e = h->dtypes; e; e = e->next)
      if (e->type == h->type && e->bs == h->bs) {
        *out = h->adtype = e;
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
  if (h->derived) {
    h->owned = 1;
  } else {
    e->next = h->dtypes;
    h->dtypes = e;
  }
  *out = h->adtype = e;
  return PM_OK;
cleanup:
  if (e) dtype_free(e, n);
  return ierr;
}

static int datatype_begin(pm_halo_t *h, char *data) {
  dtype_entry_t *e = NULL;
  PM_CALL(grow(&h->rbuf, &h->rbuf_size, recv_bytes(h, h->op), "receive buffer"));
  h->arbuf = h->rbuf;
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

/* ---------------------------------------------------------------- persistent */

static void persist_free(persist_entry_t *e) {
  for (int i = 0; i < e->n_req; i++)
    if (e->req[i] != MPI_REQUEST_NULL) MPI_Request_free(&e->req[i]);
  free(e->req);
  free(e->sbuf);
  free(e->rbuf);
  free(e);
}

/* The persistent back-end's requests for (op, type, bs): cached (most recent first) for a
 * predefined type, built for this exchange for a derived one. */
static int persist_get(pm_halo_t *h, persist_entry_t **out) {
  persist_entry_t **pp = &h->persist, *e;
  int count = 0;
  if (!h->derived)
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
  PM_TRY(PM_MALLOC(e->sbuf, send_bytes(h, op), "persistent send buffer"));
  PM_TRY(PM_MALLOC(e->rbuf, recv_bytes(h, op), "persistent receive buffer"));
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
  if (h->derived) {
    h->owned = 1;
  } else {
    e->next = h->persist;
    h->persist = e;
  }
  *out = e;
  return PM_OK;
cleanup:
  if (e) persist_free(e);
  return ierr;
}

static int persistent_begin(pm_halo_t *h, char *data) {
  persist_entry_t *e = NULL;
  PM_CALL(persist_get(h, &e));
  h->apersist = e;
  h->arbuf = e->rbuf;
  pack_send(h, h->op, e->sbuf, data);
  if (e->n_req) PM_CALL_MPI(MPI_Startall(e->n_req, e->req));
  h->active = e->req;
  h->n_active = e->n_req;
  return PM_OK;
}

/* ---------------------------------------------------------------- neighbor */

static int neighbor_begin(pm_halo_t *h, char *data) {
  int op = h->op, n = h->n_neib;
  int *sc = h->counts, *sd = sc + n, *rc = sd + n, *rd = rc + n;
  int direct = op == OP_UPDATE && h->import_identity;
  PM_CALL(grow(&h->sbuf, &h->sbuf_size, send_bytes(h, op), "send buffer"));
  PM_CALL(grow(&h->rbuf, &h->rbuf_size, recv_bytes(h, op), "receive buffer"));
  h->arbuf = h->rbuf;
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

/* ---------------------------------------------------------------- pack */

/* MPI_Pack gathers each neighbour's items (with the datatype back-end's indexed types) into one
 * MPI_PACKED buffer, a segment per neighbour sized by MPI_Pack_size; the messages are those
 * bytes; MPI_Unpack scatters them in end.  Both sides size a neighbour's segment as
 * MPI_Pack_size(count * bs, type), the same number on either side. */
static int pack_begin(pm_halo_t *h, char *data) {
  int op = h->op, tag = tag_of(op), n = h->n_neib, nr = 0;
  int *scap = h->counts, *rcap = scap + n;
  size_t *soff = h->offsets, *roff = soff + n, st = 0, rt = 0;
  for (int k = 0; k < n; k++) {
    int32_t cs = send_cnt(h, op, k), cr = recv_cnt(h, op, k);
    scap[k] = rcap[k] = 0;
    if (cs) PM_CALL_MPI(MPI_Pack_size(cs * h->bs, h->type, h->comm, &scap[k]));
    if (cr) PM_CALL_MPI(MPI_Pack_size(cr * h->bs, h->type, h->comm, &rcap[k]));
    soff[k] = st;
    roff[k] = rt;
    st += (size_t)scap[k];
    rt += (size_t)rcap[k];
  }
  /* An accumulate unpacks into sbuf once its sends are complete: room for the export table. */
  size_t unpacked = op == OP_ACCUMULATE ? recv_bytes(h, op) : 0;
  PM_CALL(grow(&h->sbuf, &h->sbuf_size, st > unpacked ? st : unpacked, "pack buffer"));
  PM_CALL(grow(&h->rbuf, &h->rbuf_size, rt, "pack buffer"));
  h->arbuf = h->rbuf;
  dtype_entry_t *e = NULL;
  PM_CALL(dtype_get(h, &e));
  for (int k = 0; k < n; k++)
    if (rcap[k])
      PM_CALL_MPI(MPI_Irecv(h->rbuf + roff[k], rcap[k], MPI_PACKED, h->neib[k], tag, h->comm, &h->req[nr++]));
  for (int k = 0; k < n; k++) {
    int32_t c = send_cnt(h, op, k);
    if (!c) continue;
    int pos = 0;
    char *dst = h->sbuf + soff[k];
    if (op == OP_UPDATE)
      PM_CALL_MPI(MPI_Pack(data, 1, e->exp[k], dst, scap[k], &pos, h->comm));
    else if (h->import_contig[k])
      PM_CALL_MPI(MPI_Pack(data + (size_t)h->import_item[h->import_index[k]] * h->item, c * h->bs, h->type, dst,
                           scap[k], &pos, h->comm));
    else
      PM_CALL_MPI(MPI_Pack(data, 1, e->imp[k], dst, scap[k], &pos, h->comm));
    PM_CALL_MPI(MPI_Isend(dst, pos, MPI_PACKED, h->neib[k], tag, h->comm, &h->req[nr++]));
  }
  h->active = h->req;
  h->n_active = nr;
  return PM_OK;
}

static int pack_end(pm_halo_t *h, char *data) {
  int op = h->op, n = h->n_neib, *rcap = h->counts + n;
  const size_t *roff = h->offsets + n;
  for (int k = 0; k < n; k++) {
    int32_t c = recv_cnt(h, op, k);
    if (!c) continue;
    int pos = 0;
    const char *src = h->rbuf + roff[k];
    if (op == OP_ACCUMULATE)
      PM_CALL_MPI(
          MPI_Unpack(src, rcap[k], &pos, h->sbuf + (size_t)recv_off(h, op, k) * h->item, c * h->bs, h->type, h->comm));
    else if (h->import_contig[k])
      PM_CALL_MPI(MPI_Unpack(src, rcap[k], &pos, direct_recv(h, op, k, data), c * h->bs, h->type, h->comm));
    else
      PM_CALL_MPI(MPI_Unpack(src, rcap[k], &pos, data, 1, h->adtype->imp[k], h->comm));
  }
  if (op == OP_ACCUMULATE) finish(h, h->sbuf, data, 0);
  return PM_OK;
}

/* ---------------------------------------------------------------- dispatch */

int pm_halo_backend_begin(pm_halo_t *h, char *data) {
  h->n_active = 0;
  h->active = NULL;
  h->arbuf = NULL;
  switch (h->kind) {
    case PM_EXCHANGE_ISEND:
      PM_CALL(isend_begin(h, data));
      break;
    case PM_EXCHANGE_SENDRECV:
      PM_CALL(sendrecv_begin(h, data));
      break;
    case PM_EXCHANGE_DATATYPE:
      PM_CALL(datatype_begin(h, data));
      break;
    case PM_EXCHANGE_PERSISTENT:
      PM_CALL(persistent_begin(h, data));
      break;
    case PM_EXCHANGE_NEIGHBOR:
      PM_CALL(neighbor_begin(h, data));
      break;
    case PM_EXCHANGE_PACK:
      PM_CALL(pack_begin(h, data));
      break;
    default:
      PM_CHECK(0, PM_ERR_ARG, "unknown back-end %d", (int)h->kind);
  }
  return PM_OK;
}

int pm_halo_backend_end(pm_halo_t *h, char *data) {
  if (h->kind == PM_EXCHANGE_SENDRECV) PM_CALL(sendrecv_end(h, data));
  if (h->n_active) {
    int rc = pm_comm_waitall(h->n_active, h->active, h->status);
    if (rc != MPI_SUCCESS) return pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Waitall (halo exchange)");
    h->n_active = 0;
  }
  switch (h->kind) {
    case PM_EXCHANGE_DATATYPE:
      if (h->op == OP_ACCUMULATE) finish(h, h->arbuf, data, 1);
      break; /* an update received in place */
    case PM_EXCHANGE_NEIGHBOR:
      if (h->op == OP_ACCUMULATE || !h->import_identity) finish(h, h->arbuf, data, 0);
      break;
    case PM_EXCHANGE_PERSISTENT:
      finish(h, h->arbuf, data, 0);
      break;
    case PM_EXCHANGE_PACK:
      PM_CALL(pack_end(h, data));
      break;
    default:
      finish(h, h->arbuf, data, 1);
      break;
  }
  return PM_OK;
}

void pm_halo_backend_release(pm_halo_t *h) {
  if (h->owned) {
    if (h->adtype) dtype_free(h->adtype, h->n_neib);
    if (h->apersist) persist_free(h->apersist);
  }
  h->owned = 0;
  h->adtype = NULL;
  h->apersist = NULL;
}

void pm_halo_backend_free(pm_halo_t *h) {
  pm_halo_backend_release(h);
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
  free(h->runs);
  h->runs = NULL;
  h->runs_cap = 0;
}
