/* pm_h5.c - results in one parallel HDF5 file (MPI-IO, collective transfers) plus XDMF.
 *
 * How a dataset is written: every entity (node, element) is an item with a global position.
 * Its owner sends it, with MPI_Alltoallv, to the rank whose slab of the global order holds that
 * position (rank r holds [floor(r n / p), floor((r+1) n / p))); each rank then writes its slab
 * as one contiguous hyperslab, collectively.  The same plan run backwards serves restarts.
 * Element connectivity goes per type: each rank counts the elements of each type in its slab
 * of the global element order and an MPI_Exscan over those counts places its rows. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise(MADV_HUGEPAGE) */
#include "pmesh/pm_h5.h"

#include <errno.h>
#include <hdf5.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "pm_fp.h"
#include "pm_util.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_msh.h"
#include "pmesh/pm_version.h"

#define PM_H5_FORMAT "pmesh-h5"
enum { NAME_MAX_ = 63, ELEM_W = 5 /* int64 per element in transit: type + up to 4 nodes */ };

/* ------------------------------------------------------------------------------------------
 * Errors */

#define MPI_TRY(expr)                                                                           \
  do {                                                                                          \
    int mpi_try_e_ = (expr);                                                                    \
    if (mpi_try_e_ != MPI_SUCCESS) {                                                            \
      ierr = pm_mpi_error(mpi_try_e_, __FILE__, __LINE__, #expr);                               \
      goto cleanup;                                                                             \
    }                                                                                           \
  } while (0)

/* Check an HDF5 call (negative return = failure) in a function with ierr and cleanup. */
#define H5_TRY(expr, ...)                                                                       \
  do {                                                                                          \
    if ((expr) < 0) {                                                                           \
      ierr = h5_error(__FILE__, __LINE__, __VA_ARGS__);                                         \
      goto cleanup;                                                                             \
    }                                                                                           \
  } while (0)

/* A step every rank takes: its result is agreed, so all ranks go on or all leave together (a
 * rank that failed alone never skips a collective call that the others make). */
#define STEP(comm, expr)                                                                        \
  do {                                                                                          \
    ierr = pm_comm_agree((comm), (expr));                                                       \
    if (ierr) {                                                                                 \
      pm_error_trace(__FILE__, __LINE__);                                                       \
      goto cleanup;                                                                             \
    }                                                                                           \
  } while (0)

#define H5_STEP(comm, expr, ...) STEP(comm, (expr) < 0 ? h5_error(__FILE__, __LINE__, __VA_ARGS__) : PM_OK)

/* The innermost entry of HDF5's error stack: the most specific reason. */
static herr_t h5_walk(unsigned n, const H5E_error2_t *e, void *ud) {
  if (n == 0) {
    char minor[128] = "";
    if (H5Eget_msg(e->min_num, NULL, minor, sizeof minor) < 0) minor[0] = '\0';
    snprintf((char *)ud, 320, "%s%s%s", e->desc ? e->desc : "", minor[0] ? " - " : "", minor);
  }
  return 0;
}

static int h5_error(const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static int h5_error(const char *file, int line, const char *fmt, ...) {
  char what[600], why[320] = "";
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5_walk, why);
  H5Eclear2(H5E_DEFAULT);
  for (char *c = why; *c; c++)
    if (*c == '\n' || *c == '\r') *c = ' ';
  return pm_error_set(PM_ERR_IO, file, line, "%s failed%s%s%s", what, why[0] ? " (HDF5: " : "", why,
                      why[0] ? ")" : "");
}

/* HDF5 prints its error stack by default; pmesh reports errors itself.  Restored on exit so a
 * caller's own setting survives. */
typedef struct h5_quiet {
  H5E_auto2_t func;
  void *data;
} h5_quiet_t;

static void h5_quiet_begin(h5_quiet_t *q) {
  q->func = NULL;
  q->data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void h5_quiet_end(const h5_quiet_t *q) { H5Eset_auto2(H5E_DEFAULT, q->func, q->data); }

static void h5_close_id(hid_t *id, herr_t (*close)(hid_t)) {
  if (*id >= 0) close(*id);
  *id = -1;
}

static int valid_name(const char *s) {
  if (!s || !*s || strlen(s) > NAME_MAX_) return 0;
  for (; *s; s++)
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') || *s == '_' ||
          *s == '-'))
      return 0;
  return 1;
}

/* Phase timings of this process, printed by rank 0 at the end of a write when the environment
 * variable PMESH_H5_PROFILE is set (what the benchmark reports). */
enum { PROF_PREP, PROF_EXCHANGE, PROF_WRITE, PROF_FLUSH, PROF_CLOSE, PROF_XMF, PROF_N };
static double prof_[PROF_N];

/* PMESH_H5_PROFILE=cpu times the phases in process CPU time instead (on a shared machine). */
static double prof_now(void) {
  static int mode = -1;
  if (mode < 0) {
    const char *e = getenv("PMESH_H5_PROFILE");
    mode = e && strcmp(e, "cpu") == 0;
  }
  if (mode) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
  }
  return pm_wtime();
}

/* ------------------------------------------------------------------------------------------
 * Large buffers (plans, slabs, exchange buffers) on transparent huge pages where the kernel
 * offers them.  Measured on the benchmark machine (a virtual machine): the first touch of a
 * fresh 4 KiB page costs ~15 us and the kernel's first read of a user page in write() another
 * ~7 us, so 120 MB of fresh buffers cost ~0.5 s and writing them ~0.2 s, several times the
 * write itself; with 2 MiB pages (madvise) both nearly vanish.  Free with free(). */

static int big_malloc_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line) {
  const size_t huge = (size_t)2 << 20;
  size_t bytes = n * size;
  *ptr = NULL;
  if (size && n > SIZE_MAX / size) return pm_malloc_(ptr, n, size, what, file, line); /* reports */
  if (bytes < huge) return pm_malloc_(ptr, n, size, what, file, line);
  bytes = (bytes + huge - 1) / huge * huge;
  if (posix_memalign(ptr, huge, bytes) != 0) {
    *ptr = NULL;
    return pm_malloc_(ptr, n, size, what, file, line);
  }
#ifdef MADV_HUGEPAGE
  (void)madvise(*ptr, bytes, MADV_HUGEPAGE); /* advice only: without it the buffer still works */
#endif
  return PM_OK;
}
#define BIG_MALLOC(ptr, n, what)                                                                \
  big_malloc_((void **)&(ptr), (size_t)(n), sizeof(*(ptr)), (what), __FILE__, __LINE__)

/* A reusable buffer that grows (a series writes many datasets through the same memory, which
 * stays mapped and warm between them). */
typedef struct scratch {
  void *p;
  size_t size;
} scratch_t;

static int scratch_get_(scratch_t *b, size_t bytes, void **out, const char *file, int line) {
  if (bytes > b->size || !b->p) {
    free(b->p);
    b->p = NULL;
    b->size = 0;
    int ierr = big_malloc_(&b->p, bytes ? bytes : 1, 1, "HDF5 output buffer", file, line);
    if (ierr) return ierr;
    b->size = bytes;
  }
  *out = b->p;
  return PM_OK;
}
#define SCRATCH_GET(b, bytes, ptr) scratch_get_((b), (size_t)(bytes), (void **)&(ptr), __FILE__, __LINE__)

static void scratch_free(scratch_t *b) {
  free(b->p);
  b->p = NULL;
  b->size = 0;
}

/* ------------------------------------------------------------------------------------------
 * Fingerprint of the mesh itself: a commutative sum of per-entity hashes. */

int pm_h5_mesh_fingerprint(MPI_Comm comm, const pm_local_t *l, const pm_meta_t *meta, uint64_t *fp) {
  int rank, ierr = PM_OK;
  uint64_t mine[4] = {0, 0, 0, 0}, all[4];
  MPI_Comm_rank(comm, &rank);
  if (!l || !meta || !fp) {
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_h5_mesh_fingerprint: NULL argument");
  } else if (!l->has_mesh) {
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "rank %d: the local mesh has no coordinates or elements (a lecture file with the "
                        "tables only); re-partition with partition to get a full local mesh",
                        rank);
  } else {
    pm_fp_local(l, rank, mine, mine + 2); /* hashes in mine[0..1], counts in mine[2..3] */
  }
  PM_CALL(pm_comm_agree(comm, ierr));
  PM_CALL_MPI(MPI_Allreduce(mine, all, 4, MPI_UINT64_T, MPI_SUM, comm));
  PM_CHECK(all[2] == (uint64_t)meta->global_nodes && all[3] == (uint64_t)meta->global_elems, PM_ERR_INCONSISTENT,
           "the local meshes own %" PRIu64 " nodes and %" PRIu64 " elements but partition.meta says %" PRId64
           " and %" PRId64 ": local files and metadata from different partitions?",
           all[2], all[3], meta->global_nodes, meta->global_elems);
  *fp = pm_fp_final(meta->global_nodes, meta->global_elems, meta->dim, all);
  return PM_OK;
}

uint64_t pm_h5_mesh_fingerprint_global(const pm_mesh_t *m) {
  uint64_t s[2] = {0, 0};
  for (int64_t i = 0; i < m->n_nodes; i++) s[0] += pm_fp_node(i, m->node_gid[i], &m->xyz[3 * i]);
  for (int64_t e = 0; e < m->n_elems; e++) {
    int64_t vg[4] = {0, 0, 0, 0};
    int nv = (int)(m->elem_ptr[e + 1] - m->elem_ptr[e]);
    for (int k = 0; k < nv && k < 4; k++) vg[k] = m->node_gid[m->elem_node[m->elem_ptr[e] + k]];
    s[1] += pm_fp_elem(e, m->elem_type[e], nv, vg);
  }
  return pm_fp_final(m->n_nodes, m->n_elems, m->dim, s);
}

/* ------------------------------------------------------------------------------------------
 * Redistribution plan: items with global positions -> the ranks holding those positions. */

typedef struct xplan {
  int nranks;
  int64_t n_global, lo, cnt;   /* this rank's slab [lo, lo + cnt) */
  int32_t n_mine;              /* items contributed by this rank */
  const int32_t *src;          /* item k's index in the caller's arrays (NULL: k itself) */
  int32_t *order;              /* [n_mine] items in send order (by destination) */
  int *scnt, *sdsp, *rcnt, *rdsp;
  int32_t n_recv;
  int64_t *roff;               /* [n_recv] slab offset of each received item */
  int identity;                /* on every rank item k is slab row k and src(k) == k */
  int local_only;              /* on every rank every item stays on it: no exchange at all */
} xplan_t;

static int64_t slab_lo(int64_t n, int p, int r) { return (n / p) * r + (n % p) * r / p; }

static void xplan_free(xplan_t *pl) {
  free(pl->order);
  free(pl->scnt);
  free(pl->sdsp);
  free(pl->rcnt);
  free(pl->rdsp);
  free(pl->roff);
  memset(pl, 0, sizeof *pl);
}

/* Build the plan for items at positions pos[0..n_mine-1] (pos may be indexed through src).
 * exact: every position of the slab must arrive exactly once (PM_ERR_INCONSISTENT otherwise).
 * Not agreed: the caller agrees. */
static int xplan_create(MPI_Comm comm, int64_t n_global, int32_t n_mine, const int64_t *pos, const int32_t *src,
                        int exact, const char *what, xplan_t *pl) {
  int ierr = PM_OK, rank, p;
  int64_t *starts = NULL, *sbuf = NULL;
  int32_t *dest = NULL;
  uint8_t *seen = NULL;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  memset(pl, 0, sizeof *pl);
  pl->nranks = p;
  pl->n_global = n_global;
  pl->n_mine = n_mine;
  pl->src = src;
  pl->lo = slab_lo(n_global, p, rank);
  pl->cnt = slab_lo(n_global, p, rank + 1) - pl->lo;
  {
    /* The common case first (one rank; or ranks that own consecutive runs of the global order
     * matching the slabs): item k is slab row k everywhere.  Then the plan is empty, every
     * dataset is one copy, and exactness holds by construction. */
    int id = (int64_t)n_mine == pl->cnt, all = 0;
    for (int32_t k = 0; k < n_mine && id; k++) id = (!src || src[k] == k) && pos[k] == pl->lo + k;
    MPI_TRY(MPI_Allreduce(&id, &all, 1, MPI_INT, MPI_MIN, comm));
    if (all) {
      pl->identity = pl->local_only = 1;
      pl->n_recv = n_mine;
      ierr = PM_CALLOC(pl->scnt, p, "exchange counts");
      if (!ierr) ierr = PM_CALLOC(pl->sdsp, p + 1, "exchange counts");
      if (!ierr) ierr = PM_CALLOC(pl->rcnt, p, "exchange counts");
      if (!ierr) ierr = PM_CALLOC(pl->rdsp, p + 1, "exchange counts");
      if (!ierr) {
        pl->scnt[rank] = pl->rcnt[rank] = n_mine;
        for (int r = rank; r < p; r++) pl->sdsp[r + 1] = pl->rdsp[r + 1] = n_mine;
      }
      return ierr; /* the caller agrees */
    }
  }
  /* Local phase; its errors are agreed before the first exchange so that no rank waits. */
  ierr = PM_MALLOC(starts, p + 1, "slab starts");
  if (!ierr) ierr = PM_CALLOC(pl->scnt, p, "exchange counts");
  if (!ierr) ierr = PM_CALLOC(pl->sdsp, p + 1, "exchange counts");
  if (!ierr) ierr = PM_CALLOC(pl->rcnt, p, "exchange counts");
  if (!ierr) ierr = PM_CALLOC(pl->rdsp, p + 1, "exchange counts");
  if (!ierr) ierr = BIG_MALLOC(dest, n_mine, "exchange plan");
  if (!ierr) ierr = BIG_MALLOC(pl->order, n_mine, "exchange plan");
  if (!ierr) ierr = BIG_MALLOC(sbuf, n_mine, "exchange plan");
  if (!ierr)
    for (int r = 0; r <= p; r++) starts[r] = slab_lo(n_global, p, r);
  for (int32_t k = 0; k < n_mine && !ierr; k++) {
    int64_t g = pos[src ? src[k] : k];
    if (g < 0 || g >= n_global) {
      ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                          "rank %d: %s position %" PRId64 " is outside the global range [0, %" PRId64
                          "): local mesh and partition.meta disagree",
                          rank, what, g, n_global);
      break;
    }
    int lo = 0, hi = p; /* starts[lo] <= g < starts[hi] */
    while (hi - lo > 1) {
      int mid = (lo + hi) / 2;
      if (starts[mid] <= g)
        lo = mid;
      else
        hi = mid;
    }
    dest[k] = lo;
    pl->scnt[lo]++;
  }
  if (!ierr) {
    for (int r = 0; r < p; r++) pl->sdsp[r + 1] = pl->sdsp[r] + pl->scnt[r];
    int *fill = pl->rdsp; /* borrowed as a cursor, reset below */
    for (int r = 0; r < p; r++) fill[r] = pl->sdsp[r];
    for (int32_t k = 0; k < n_mine; k++) {
      int32_t at = fill[dest[k]]++;
      pl->order[at] = k;
      sbuf[at] = pos[src ? src[k] : k];
    }
  }
  PM_TRY(pm_comm_agree(comm, ierr));
  MPI_TRY(MPI_Alltoall(pl->scnt, 1, MPI_INT, pl->rcnt, 1, MPI_INT, comm));
  pl->rdsp[0] = 0;
  for (int r = 0; r < p && !ierr; r++) {
    if ((int64_t)pl->rdsp[r] + pl->rcnt[r] > INT_MAX)
      ierr = pm_error_set(PM_ERR_UNSUPPORTED, __FILE__, __LINE__,
                          "rank %d: more than %d %s items to write on one rank; use more ranks", rank, INT_MAX, what);
    else
      pl->rdsp[r + 1] = pl->rdsp[r] + pl->rcnt[r];
  }
  if (!ierr) {
    pl->n_recv = pl->rdsp[p];
    ierr = BIG_MALLOC(pl->roff, pl->n_recv, "exchange plan");
  }
  PM_TRY(pm_comm_agree(comm, ierr));
  MPI_TRY(MPI_Alltoallv(sbuf, pl->scnt, pl->sdsp, MPI_INT64_T, pl->roff, pl->rcnt, pl->rdsp, MPI_INT64_T, comm));
  for (int32_t k = 0; k < pl->n_recv; k++) pl->roff[k] -= pl->lo;
  {
    int me = rank, flags[2];
    flags[1] = pl->scnt[me] == n_mine && pl->rcnt[me] == pl->n_recv;
    flags[0] = flags[1] && n_mine == pl->cnt;
    for (int32_t k = 0; k < n_mine && flags[0]; k++)
      flags[0] = pl->order[k] == k && pl->roff[k] == k && (!src || src[k] == k);
    int all[2] = {0, 0};
    MPI_TRY(MPI_Allreduce(flags, all, 2, MPI_INT, MPI_MIN, comm)); /* every rank takes the same path */
    pl->identity = all[0];
    pl->local_only = all[1];
  }
  if (exact) {
    PM_TRY(BIG_MALLOC(seen, pl->cnt, "exchange check"));
    memset(seen, 0, (size_t)pl->cnt);
    for (int32_t k = 0; k < pl->n_recv; k++) {
      int64_t o = pl->roff[k];
      PM_TRY_CHECK(o >= 0 && o < pl->cnt && !seen[o], PM_ERR_INCONSISTENT,
                   "%s %" PRId64 " is owned by more than one rank: local meshes from different partitions?", what,
                   pl->lo + o);
      seen[o] = 1;
    }
    for (int64_t o = 0; o < pl->cnt; o++)
      PM_TRY_CHECK(seen[o], PM_ERR_INCONSISTENT,
                   "%s %" PRId64 " (of %" PRId64 ") is owned by no rank: local meshes from different partitions, or "
                   "not all of them loaded?",
                   what, pl->lo + o, n_global);
  }
cleanup:
  free(starts);
  free(sbuf);
  free(dest);
  free(seen);
  return ierr;
}

static int byte_type(int width, MPI_Datatype *t) {
  int ierr = PM_OK;
  MPI_TRY(MPI_Type_contiguous(width, MPI_BYTE, t));
  MPI_TRY(MPI_Type_commit(t));
cleanup:
  return ierr;
}

/* How xplan_forward reads item `it` (width bytes to dst); NULL getter: data[src(it)]. */
typedef void (*xget_t)(const void *ctx, int32_t item, void *dst);

static inline void copy_w(void *dst, const void *src, int width) {
  switch (width) { /* fixed sizes become plain moves */
    case 4: memcpy(dst, src, 4); break;
    case 8: memcpy(dst, src, 8); break;
    case 24: memcpy(dst, src, 24); break;
    case 40: memcpy(dst, src, 40); break;
    default: memcpy(dst, src, (size_t)width);
  }
}

/* Items -> slab: item k (data[src(k)], width bytes, or get(ctx, k)) lands at slab[position - lo].
 * Items that stay on this rank are copied directly; only the others go through MPI_Alltoallv,
 * whose buffers come from `sx`.  Collective unless the plan is local_only (then no rank calls MPI). */
static int xplan_forward_(MPI_Comm comm, const xplan_t *pl, int width, const void *data, xget_t get,
                          const void *ctx, void *slab, scratch_t *sx) {
  int ierr = PM_OK, me;
  char *sbuf = NULL, *rbuf = NULL, *out = slab;
  int *sc = NULL, *rc = NULL;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  const char *d = data;
  if (pl->identity) { /* one pass, no plan lookups */
    if (!get) {
      if (pl->cnt > 0) memcpy(out, d, (size_t)pl->cnt * width);
    } else {
      for (int32_t k = 0; k < pl->n_mine; k++) get(ctx, k, out + (size_t)k * width);
    }
    return PM_OK;
  }
  MPI_Comm_rank(comm, &me);
  int32_t nsend = pl->n_mine - pl->scnt[me], nrecv = pl->n_recv - pl->rcnt[me];
  size_t sbytes = ((size_t)nsend * width + 63) / 64 * 64;
  if (!pl->local_only) {
    char *x = NULL;
    ierr = SCRATCH_GET(sx, sbytes + (size_t)nrecv * width, x);
    sbuf = x;
    rbuf = x ? x + sbytes : NULL;
    if (!ierr) ierr = PM_MALLOC(sc, 2 * pl->nranks, "exchange counts");
    if (!ierr) ierr = byte_type(width, &t);
    STEP(comm, ierr);
  }
  /* Send buffer without this rank's own block: displacements shift after it. */
  int32_t s0 = pl->sdsp[me], s1 = pl->sdsp[me + 1], r0 = pl->rdsp[me];
  for (int32_t k = 0; k < pl->n_mine; k++) {
    int32_t it = pl->order[k];
    char *dst;
    if (k >= s0 && k < s1)
      dst = out + (size_t)pl->roff[r0 + (k - s0)] * width; /* stays here */
    else
      dst = sbuf + (size_t)(k < s0 ? k : k - (s1 - s0)) * width;
    if (get)
      get(ctx, it, dst);
    else
      copy_w(dst, d + (size_t)(pl->src ? pl->src[it] : it) * width, width);
  }
  if (pl->local_only) goto cleanup;
  rc = sc + pl->nranks;
  for (int r = 0; r < pl->nranks; r++) {
    sc[r] = r == me ? 0 : pl->scnt[r];
    rc[r] = r == me ? 0 : pl->rcnt[r];
  }
  {
    int *sd = NULL, *rd = NULL;
    ierr = PM_MALLOC(sd, 2 * (pl->nranks + 1), "exchange counts");
    STEP(comm, ierr);
    rd = sd + pl->nranks + 1;
    sd[0] = rd[0] = 0;
    for (int r = 0; r < pl->nranks; r++) {
      sd[r + 1] = sd[r] + sc[r];
      rd[r + 1] = rd[r] + rc[r];
    }
    int mpierr = MPI_Alltoallv(sbuf, sc, sd, t, rbuf, rc, rd, t, comm);
    free(sd);
    if (mpierr != MPI_SUCCESS) {
      ierr = pm_mpi_error(mpierr, __FILE__, __LINE__, "MPI_Alltoallv (redistribution to slabs)");
      goto cleanup;
    }
  }
  int32_t r1 = pl->rdsp[me + 1];
  for (int32_t k = 0, j = 0; k < pl->n_recv; k++) {
    if (k >= r0 && k < r1) continue;
    copy_w(out + (size_t)pl->roff[k] * width, rbuf + (size_t)j++ * width, width);
  }
cleanup:
  if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  free(sc);
  return ierr;
}

static int xplan_forward(MPI_Comm comm, const xplan_t *pl, int width, const void *data, xget_t get, const void *ctx,
                         void *slab, scratch_t *sx) {
  double t = prof_now();
  int ierr = xplan_forward_(comm, pl, width, data, get, ctx, slab, sx);
  prof_[PROF_EXCHANGE] += prof_now() - t;
  return ierr;
}

/* Slab -> items (the reverse): data[src(k)] = slab[position(k) - lo]. */
static int xplan_backward(MPI_Comm comm, const xplan_t *pl, int width, const void *slab, void *data) {
  int ierr = PM_OK;
  char *sbuf = NULL, *rbuf = NULL;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (pl->identity) {
    if (pl->cnt > 0) memcpy(data, slab, (size_t)pl->cnt * width);
    return PM_OK;
  }
  ierr = BIG_MALLOC(sbuf, (size_t)pl->n_recv * width, "exchange buffer");
  if (!ierr) ierr = BIG_MALLOC(rbuf, (size_t)pl->n_mine * width, "exchange buffer");
  if (!ierr) ierr = byte_type(width, &t);
  STEP(comm, ierr);
  for (int32_t k = 0; k < pl->n_recv; k++)
    memcpy(sbuf + (size_t)k * width, (const char *)slab + (size_t)pl->roff[k] * width, (size_t)width);
  MPI_TRY(MPI_Alltoallv(sbuf, pl->rcnt, pl->rdsp, t, rbuf, pl->scnt, pl->sdsp, t, comm));
  for (int32_t k = 0; k < pl->n_mine; k++) {
    int32_t it = pl->order[k];
    memcpy((char *)data + (size_t)(pl->src ? pl->src[it] : it) * width, rbuf + (size_t)k * width, (size_t)width);
  }
cleanup:
  if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  free(sbuf);
  free(rbuf);
  return ierr;
}

/* The source rank of each slab slot, from the plan's receive counts. */
static void xplan_sources(const xplan_t *pl, int rank, int32_t *slab) {
  if (pl->local_only) { /* everything in this slab is this rank's */
    for (int64_t k = 0; k < pl->cnt; k++) slab[k] = rank;
    return;
  }
  for (int r = 0; r < pl->nranks; r++)
    for (int k = pl->rdsp[r]; k < pl->rdsp[r + 1]; k++) slab[pl->roff[k]] = r;
}

/* ------------------------------------------------------------------------------------------
 * Writing datasets */

typedef struct h5out {
  hid_t file, dxpl;
  const char *path; /* final name, for messages */
} h5out_t;

static int write_str_attr(hid_t loc, const char *name, const char *value, const char *where) {
  int ierr = PM_OK;
  hid_t t = -1, sp = -1, a = -1;
  size_t len = strlen(value);
  H5_TRY(t = H5Tcopy(H5T_C_S1), "H5Tcopy for attribute %s of %s", name, where);
  H5_TRY(H5Tset_size(t, len + 1), "H5Tset_size for attribute %s of %s", name, where);
  H5_TRY(sp = H5Screate(H5S_SCALAR), "H5Screate for attribute %s of %s", name, where);
  H5_TRY(a = H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT), "creating attribute %s of %s", name, where);
  H5_TRY(H5Awrite(a, t, len ? value : " "), "writing attribute %s of %s", name, where);
cleanup:
  h5_close_id(&a, H5Aclose);
  h5_close_id(&sp, H5Sclose);
  h5_close_id(&t, H5Tclose);
  return ierr;
}

static int write_num_attr(hid_t loc, const char *name, hid_t ftype, hid_t mtype, hsize_t n, const void *v,
                          const char *where) {
  int ierr = PM_OK;
  hid_t sp = -1, a = -1;
  H5_TRY(sp = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL), "H5Screate for attribute %s of %s",
         name, where);
  H5_TRY(a = H5Acreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT), "creating attribute %s of %s", name, where);
  H5_TRY(H5Awrite(a, mtype, v), "writing attribute %s of %s", name, where);
cleanup:
  h5_close_id(&a, H5Aclose);
  h5_close_id(&sp, H5Sclose);
  return ierr;
}

static int attr_i64(hid_t loc, const char *name, int64_t v, const char *where) {
  return write_num_attr(loc, name, H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &v, where);
}
static int attr_u64(hid_t loc, const char *name, uint64_t v, const char *where) {
  return write_num_attr(loc, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, 0, &v, where);
}

/* Create dataset loc/name of [n_global] (ncols == 0) or [n_global x ncols] and write rows
 * [lo, lo + cnt) from buf; a rank with cnt == 0 still takes part (empty selection).
 * Collective when the file is parallel. */
static int write_slab_(const h5out_t *o, hid_t loc, const char *gname, const char *name, hid_t ftype, hid_t mtype,
                       int ncols, int64_t n_global, int64_t lo, int64_t cnt, const void *buf, const char *center) {
  int ierr = PM_OK, nd = ncols > 0 ? 2 : 1;
  hid_t fs = -1, ms = -1, dcpl = -1, ds = -1;
  hsize_t dims[2] = {(hsize_t)n_global, (hsize_t)ncols}, start[2] = {(hsize_t)lo, 0}, count[2] = {(hsize_t)cnt,
                                                                                                    (hsize_t)ncols};
  static const char dummy[8];
  char where[300];
  snprintf(where, sizeof where, "dataset %s/%s of %s", gname, name, o->path);
  H5_TRY(fs = H5Screate_simple(nd, dims, NULL), "H5Screate_simple for %s", where);
  H5_TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate for %s", where);
  /* No fill values: every element is written once; filling first would double the I/O. */
  H5_TRY(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time for %s", where);
  H5_TRY(ds = H5Dcreate2(loc, name, ftype, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT), "creating %s", where);
  if (cnt > 0) {
    H5_TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "selecting rows of %s", where);
    H5_TRY(ms = H5Screate_simple(nd, count, NULL), "H5Screate_simple for %s", where);
  } else {
    hsize_t one[2] = {1, 1};
    H5_TRY(H5Sselect_none(fs), "H5Sselect_none for %s", where);
    H5_TRY(ms = H5Screate_simple(nd, one, NULL), "H5Screate_simple for %s", where);
    H5_TRY(H5Sselect_none(ms), "H5Sselect_none for %s", where);
  }
  H5_TRY(H5Dwrite(ds, mtype, ms, fs, o->dxpl, cnt > 0 ? buf : dummy), "writing %s", where);
  if (center) PM_TRY(write_str_attr(ds, "center", center, where));
cleanup:
  h5_close_id(&ds, H5Dclose);
  h5_close_id(&dcpl, H5Pclose);
  h5_close_id(&ms, H5Sclose);
  h5_close_id(&fs, H5Sclose);
  return ierr;
}

static int write_slab(const h5out_t *o, hid_t loc, const char *gname, const char *name, hid_t ftype, hid_t mtype,
                      int ncols, int64_t n_global, int64_t lo, int64_t cnt, const void *buf, const char *center) {
  double t = prof_now();
  int ierr = write_slab_(o, loc, gname, name, ftype, mtype, ncols, n_global, lo, cnt, buf, center);
  prof_[PROF_WRITE] += prof_now() - t;
  return ierr;
}

/* Element k of a slab of the global element order as ELEM_W int64: type, then node positions. */
typedef void (*eget_t)(const void *ctx, int64_t k, int64_t *it);

static void eget_array(const void *ctx, int64_t k, int64_t *it) {
  memcpy(it, (const int64_t *)ctx + ELEM_W * k, ELEM_W * sizeof(int64_t));
}

/* Connectivity of n elements (get/ctx).  tlo/tcnt/ttot: this slab's first row, row count and
 * global row count per type. */
/* Or all rows of one type at once (faster where the rows can be read in place). */
typedef void (*efill_t)(const void *ctx, int type, int64_t *rows);

static int write_connectivity(const h5out_t *o, hid_t g, int64_t n, eget_t get, efill_t fill, const void *ctx,
                              const int64_t tlo[4], const int64_t tcnt[4], const int64_t ttot[4], scratch_t *sb) {
  static const char *names[4] = {NULL, "lines", "triangles", "quadrangles"};
  int ierr = PM_OK, ntypes = 0;
  int64_t *buf = NULL, it[ELEM_W];
  for (int t = PM_MSH_LINE; t <= PM_MSH_QUAD; t++) ntypes += tcnt[t] > 0;
  for (int t = PM_MSH_LINE; t <= PM_MSH_QUAD; t++) {
    if (ttot[t] == 0) continue;
    int nv = pm_msh_type_nodes(t);
    PM_TRY(SCRATCH_GET(sb, sizeof(int64_t) * (size_t)tcnt[t] * nv, buf));
    int64_t m = 0;
    if (fill) {
      fill(ctx, t, buf);
    } else if (ntypes == 1 && tcnt[t] == n) { /* one type here: no filtering */
      for (int64_t k = 0; k < n; k++, m += nv) {
        get(ctx, k, it);
        for (int v = 0; v < nv; v++) buf[m + v] = it[1 + v];
      }
    } else {
      for (int64_t k = 0; k < n; k++) {
        get(ctx, k, it);
        if (it[0] == t)
          for (int v = 0; v < nv; v++) buf[m++] = it[1 + v];
      }
    }
    PM_TRY(write_slab(o, g, "/mesh", names[t], H5T_STD_I64LE, H5T_NATIVE_INT64, nv, ttot[t], tlo[t], tcnt[t], buf,
                      NULL));
  }
  if (ttot[PM_MSH_TRI] > 0 && ttot[PM_MSH_QUAD] > 0) {
    int64_t len = 4 * tcnt[PM_MSH_TRI] + 5 * tcnt[PM_MSH_QUAD], m = 0;
    PM_TRY(SCRATCH_GET(sb, sizeof(int64_t) * (size_t)len, buf));
    for (int64_t k = 0; k < n; k++) {
      get(ctx, k, it);
      int t = (int)it[0], nv = pm_msh_type_nodes(t);
      buf[m++] = t == PM_MSH_TRI ? 4 : 5; /* XDMF cell type codes */
      for (int v = 0; v < nv; v++) buf[m++] = it[1 + v];
    }
    PM_TRY(write_slab(o, g, "/mesh", "mixed", H5T_STD_I64LE, H5T_NATIVE_INT64, 0,
                      4 * ttot[PM_MSH_TRI] + 5 * ttot[PM_MSH_QUAD], 4 * tlo[PM_MSH_TRI] + 5 * tlo[PM_MSH_QUAD], len,
                      buf, NULL));
  }
cleanup:
  return ierr;
}

/* ------------------------------------------------------------------------------------------
 * XDMF */

typedef struct xfield {
  int step;      /* -1: in every grid */
  char dset[96]; /* dataset path in the .h5 */
  char label[NAME_MAX_ + 1];
  int on_elements;
  int kind; /* 0 float64, 1 int32, 2 int64 */
} xfield_t;

typedef struct xinfo {
  int dim;
  int64_t n_nodes, n_elems, ttot[4];
  int nsteps; /* 0: one uniform grid */
  double *times;
  int nfields;
  xfield_t *fields;
} xinfo_t;

static void xml_text(FILE *fp, const char *s) {
  for (; *s; s++) switch (*s) {
      case '&': fputs("&amp;", fp); break;
      case '<': fputs("&lt;", fp); break;
      case '>': fputs("&gt;", fp); break;
      case '"': fputs("&quot;", fp); break;
      default: fputc(*s, fp);
    }
}

static void xmf_item(FILE *fp, const char *ind, const char *dims, int kind, const char *ref, const char *dset) {
  static const char *nt[3] = {"Float", "Int", "Int"}, *pr[3] = {"8", "4", "8"};
  fprintf(fp, "%s<DataItem Dimensions=\"%s\" NumberType=\"%s\" Precision=\"%s\" Format=\"HDF\">", ind, dims, nt[kind],
          pr[kind]);
  xml_text(fp, ref);
  fprintf(fp, ":%s</DataItem>\n", dset);
}

static void xmf_grid(FILE *fp, const xinfo_t *x, const char *ref, int step, const char *ind) {
  char dims[64], in2[32], in3[32];
  snprintf(in2, sizeof in2, "%s  ", ind);
  snprintf(in3, sizeof in3, "%s    ", ind);
  if (step < 0)
    fprintf(fp, "%s<Grid Name=\"mesh\" GridType=\"Uniform\">\n", ind);
  else
    fprintf(fp, "%s<Grid Name=\"step%d\" GridType=\"Uniform\">\n%s<Time Value=\"%.17g\"/>\n", ind, step, in2,
            x->times[step]);
  int64_t T = x->ttot[PM_MSH_TRI], Q = x->ttot[PM_MSH_QUAD], L = x->ttot[PM_MSH_LINE];
  if (x->dim == 1) {
    fprintf(fp, "%s<Topology TopologyType=\"Polyline\" NumberOfElements=\"%" PRId64 "\" NodesPerElement=\"2\">\n", in2,
            L);
    snprintf(dims, sizeof dims, "%" PRId64 " 2", L);
    xmf_item(fp, in3, dims, 2, ref, "/mesh/lines");
  } else if (T > 0 && Q > 0) {
    fprintf(fp, "%s<Topology TopologyType=\"Mixed\" NumberOfElements=\"%" PRId64 "\">\n", in2, T + Q);
    snprintf(dims, sizeof dims, "%" PRId64, 4 * T + 5 * Q);
    xmf_item(fp, in3, dims, 2, ref, "/mesh/mixed");
  } else if (T > 0) {
    fprintf(fp, "%s<Topology TopologyType=\"Triangle\" NumberOfElements=\"%" PRId64 "\" NodesPerElement=\"3\">\n", in2,
            T);
    snprintf(dims, sizeof dims, "%" PRId64 " 3", T);
    xmf_item(fp, in3, dims, 2, ref, "/mesh/triangles");
  } else {
    fprintf(fp, "%s<Topology TopologyType=\"Quadrilateral\" NumberOfElements=\"%" PRId64 "\" NodesPerElement=\"4\">\n",
            in2, Q);
    snprintf(dims, sizeof dims, "%" PRId64 " 4", Q);
    xmf_item(fp, in3, dims, 2, ref, "/mesh/quadrangles");
  }
  fprintf(fp, "%s</Topology>\n%s<Geometry GeometryType=\"XYZ\">\n", in2, in2);
  snprintf(dims, sizeof dims, "%" PRId64 " 3", x->n_nodes);
  xmf_item(fp, in3, dims, 0, ref, "/mesh/coordinates");
  fprintf(fp, "%s</Geometry>\n", in2);
  for (int f = 0; f < x->nfields; f++) {
    const xfield_t *xf = &x->fields[f];
    if (xf->step != -1 && xf->step != step) continue;
    fprintf(fp, "%s<Attribute Name=\"%s\" AttributeType=\"Scalar\" Center=\"%s\">\n", in2, xf->label,
            xf->on_elements ? "Cell" : "Node");
    snprintf(dims, sizeof dims, "%" PRId64, xf->on_elements ? x->n_elems : x->n_nodes);
    xmf_item(fp, in3, dims, xf->kind, ref, xf->dset);
    fprintf(fp, "%s</Attribute>\n", in2);
  }
  fprintf(fp, "%s</Grid>\n", ind);
}

/* How the .xmf names the .h5: its base name when both are in one directory, else a path that
 * works from anywhere. */
static void h5_reference(const char *h5path, const char *xmfpath, char *ref, size_t size) {
  const char *hb = strrchr(h5path, '/'), *xb = strrchr(xmfpath, '/');
  size_t hd = hb ? (size_t)(hb - h5path) : 0, xd = xb ? (size_t)(xb - xmfpath) : 0;
  if (hd == xd && strncmp(h5path, xmfpath, hd) == 0) {
    snprintf(ref, size, "%s", hb ? hb + 1 : h5path);
    return;
  }
  if (h5path[0] == '/') {
    snprintf(ref, size, "%s", h5path);
    return;
  }
  char cwd[4096];
  if (getcwd(cwd, sizeof cwd))
    snprintf(ref, size, "%s/%s", cwd, h5path);
  else
    snprintf(ref, size, "%s", h5path);
}

/* Write the XDMF to `tmp` (synced to disk).  Sets no pmesh error (it may run on a helper
 * thread): returns 0, or errno with *created saying whether the file could be created at all. */
static int xmf_write_raw(const xinfo_t *x, const char *h5path, const char *xmfpath, const char *tmp, int *created) {
  char ref[4400];
  FILE *fp = fopen(tmp, "w");
  *created = fp != NULL;
  if (!fp) return errno ? errno : EIO;
  h5_reference(h5path, xmfpath, ref, sizeof ref);
  fprintf(fp, "<?xml version=\"1.0\" ?>\n<Xdmf Version=\"3.0\">\n  <Domain>\n");
  if (x->nsteps == 0) {
    xmf_grid(fp, x, ref, -1, "    ");
  } else {
    fprintf(fp, "    <Grid Name=\"series\" GridType=\"Collection\" CollectionType=\"Temporal\">\n");
    for (int k = 0; k < x->nsteps; k++) xmf_grid(fp, x, ref, k, "      ");
    fprintf(fp, "    </Grid>\n");
  }
  fprintf(fp, "  </Domain>\n</Xdmf>\n");
  int bad = ferror(fp) || fflush(fp) != 0 || fsync(fileno(fp)) != 0;
  int e = errno;
  if (fclose(fp) != 0) {
    if (!bad) e = errno;
    bad = 1;
  }
  return bad ? (e ? e : EIO) : 0;
}

static int xmf_report(const char *tmp, int e, int created) {
  if (!e) return PM_OK;
  if (!created) return pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot create: %s", tmp, strerror(e));
  return pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: write failed: %s", tmp, strerror(e));
}

static int xmf_write(const xinfo_t *x, const char *h5path, const char *xmfpath, const char *tmp) {
  int created = 0, e = xmf_write_raw(x, h5path, xmfpath, tmp, &created);
  return xmf_report(tmp, e, created);
}

/* The XDMF of a finished series is written and synced on a helper thread while the HDF5 file
 * is flushed: the two fsyncs overlap instead of adding up (a small file's fsync costs 1-40 ms
 * on the benchmark machine, up to a quarter of the whole write).  The thread calls neither MPI
 * nor HDF5 nor pmesh's error functions. */
typedef struct xmf_job {
  const xinfo_t *x;
  const char *h5path, *xmfpath, *tmp;
  int err, created;
} xmf_job_t;

static int xmf_job_run(void *arg) {
  xmf_job_t *j = arg;
  j->err = xmf_write_raw(j->x, j->h5path, j->xmfpath, j->tmp, &j->created);
  return 0;
}

static int add_xfield(xinfo_t *x, int *cap, int step, const char *dset, const char *label, int on_elements,
                      int kind) {
  if (x->nfields == *cap) {
    *cap = *cap ? 2 * *cap : 8;
    PM_CALL(PM_REALLOC(x->fields, *cap, "field list"));
  }
  xfield_t *f = &x->fields[x->nfields++];
  memset(f, 0, sizeof *f);
  f->step = step;
  snprintf(f->dset, sizeof f->dset, "%s", dset);
  snprintf(f->label, sizeof f->label, "%s", label);
  f->on_elements = on_elements;
  f->kind = kind;
  return PM_OK;
}

/* ------------------------------------------------------------------------------------------
 * Series (pm_h5_write is a series of one unnamed step written to /fields) */

struct pm_h5_series {
  MPI_Comm comm;
  int rank, nranks, single, failed;
  const pm_local_t *local;
  const pm_meta_t *meta;
  hid_t file, dxpl;
  char *h5path, *xmfpath, *h5tmp, *xmftmp;
  xplan_t np, ep;   /* nodes (internal), elements (owned) */
  scratch_t slab, xbuf, conv; /* a dataset's rows, exchange buffers, connectivity by type */
  int32_t *esel;    /* owned elements' local indices */
  int node_direct;  /* local node i is global position i, for every local node */
  uint64_t mesh_fp;
  xinfo_t x;
  int xcap, tcap;
};

static int series_fail(pm_h5_series_t *s, int ierr) {
  if (ierr) s->failed = 1;
  return ierr;
}

/* Remove the temporaries (rank 0), after every rank closed the file. */
static void series_discard(pm_h5_series_t *s) {
  if (s->file >= 0) H5Fclose(s->file);
  s->file = -1;
  MPI_Barrier(s->comm);
  if (s->rank == 0) {
    if (s->h5tmp) remove(s->h5tmp);
    if (s->xmftmp) remove(s->xmftmp);
  }
}

static void series_free(pm_h5_series_t **sp) {
  pm_h5_series_t *s = *sp;
  if (!s) return;
  h5_close_id(&s->dxpl, H5Pclose);
  xplan_free(&s->np);
  xplan_free(&s->ep);
  scratch_free(&s->slab);
  scratch_free(&s->xbuf);
  scratch_free(&s->conv);
  free(s->esel);
  free(s->h5path);
  free(s->xmfpath);
  free(s->h5tmp);
  free(s->xmftmp);
  free(s->x.times);
  free(s->x.fields);
  if (s->comm != MPI_COMM_NULL) MPI_Comm_free(&s->comm);
  free(s);
  *sp = NULL;
}

static int tmp_name(const char *path, long pid, char **out) {
  size_t n = strlen(path) + 48;
  PM_CALL(PM_MALLOC(*out, n, "file name"));
  snprintf(*out, n, "%s.tmp.%ld", path, pid);
  return PM_OK;
}

/* Local checks before anything collective happens. */
static int check_local(int rank, const pm_local_t *l, const pm_meta_t *meta) {
  PM_CHECK(l && meta, PM_ERR_ARG, "pm_h5: NULL local mesh or metadata");
  PM_CHECK(l->has_mesh, PM_ERR_ARG,
           "rank %d: the local mesh has no coordinates or elements (a lecture file with the tables only); "
           "re-partition with partition to get a full local mesh",
           rank);
  PM_CHECK(meta->dim == 1 || meta->dim == 2, PM_ERR_ARG, "partition.meta: dimension %d, expected 1 or 2", meta->dim);
  PM_CHECK(meta->global_nodes > 0 && meta->global_elems > 0, PM_ERR_ARG,
           "partition.meta: %" PRId64 " nodes and %" PRId64 " elements; a result needs both", meta->global_nodes,
           meta->global_elems);
  for (int32_t e = 0; e < l->n_elems; e++) {
    int t = l->elem_type[e];
    PM_CHECK((meta->dim == 1 && t == PM_MSH_LINE) || (meta->dim == 2 && (t == PM_MSH_TRI || t == PM_MSH_QUAD)),
             PM_ERR_INCONSISTENT, "rank %d: element %d has Gmsh type %d, not a cell of a %dD mesh", rank, e, t,
             meta->dim);
    PM_CHECK(l->elem_ptr[e + 1] - l->elem_ptr[e] == pm_msh_type_nodes(t), PM_ERR_INCONSISTENT,
             "rank %d: element %d has %d nodes, its type %d has %d", rank, e, l->elem_ptr[e + 1] - l->elem_ptr[e], t,
             pm_msh_type_nodes(t));
  }
  return PM_OK;
}

/* Owned element k in transit: type, then its nodes' global positions (-1 pads). */
static void elem_get(const void *ctx, int32_t k, void *dst) { /* xget_t */
  const pm_h5_series_t *s = ctx;
  const pm_local_t *l = s->local;
  int32_t e = s->esel[k], a = l->elem_ptr[e], n = l->elem_ptr[e + 1] - a;
  int64_t it[ELEM_W];
  it[0] = l->elem_type[e];
  for (int v = 0; v < 4; v++) it[1 + v] = v < n ? l->node_index[l->elem_node[a + v]] : -1;
  memcpy(dst, it, sizeof it);
}

static void elem_eget(const void *ctx, int64_t k, int64_t *it) { elem_get(ctx, (int32_t)k, it); } /* eget_t */

/* All rows of one type when the element plan is the identity (every element owned, in global
 * order), as an efill_t.  Where local node i is global position i (one rank) the rows are the
 * local connectivity itself, with no lookups. */
static void elem_fill(const void *ctx, int t, int64_t *rows) {
  const pm_h5_series_t *s = ctx;
  const pm_local_t *l = s->local;
  int64_t m = 0;
  for (int32_t e = 0; e < l->n_elems; e++) {
    if (l->elem_type[e] != t) continue;
    const int32_t *nd = l->elem_node + l->elem_ptr[e], n = l->elem_ptr[e + 1] - l->elem_ptr[e];
    if (s->node_direct)
      for (int32_t v = 0; v < n; v++) rows[m++] = nd[v];
    else
      for (int32_t v = 0; v < n; v++) rows[m++] = l->node_index[nd[v]];
  }
}

/* Mesh, global ids and owner ranks.  Collective. */
static int series_write_mesh(pm_h5_series_t *s) {
  const pm_local_t *l = s->local;
  h5out_t o = {s->file, s->dxpl, s->h5path};
  int ierr = PM_OK;
  hid_t g = -1, gf = -1;
  double *xyz = NULL;
  int64_t *i64 = NULL, *epos = NULL;
  int32_t *i32 = NULL;
  int64_t tcnt[4] = {0, 0, 0, 0}, tlo[4] = {0, 0, 0, 0}, ttot[4] = {0, 0, 0, 0};

  H5_STEP(s->comm, g = H5Gcreate2(s->file, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating group /mesh in %s",
         s->h5path);
  H5_STEP(s->comm, gf = H5Gcreate2(s->file, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating group /fields in %s",
         s->h5path);

  /* Nodes. */
  const xplan_t *np = &s->np;
  STEP(s->comm, SCRATCH_GET(&s->slab, 3 * sizeof(double) * (size_t)np->cnt, xyz));
  STEP(s->comm, xplan_forward(s->comm, np, 3 * sizeof(double), l->xyz, NULL, NULL, xyz, &s->xbuf));
  STEP(s->comm, write_slab(&o, g, "/mesh", "coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, np->n_global, np->lo,
                    np->cnt, xyz, NULL));
  STEP(s->comm, SCRATCH_GET(&s->slab, sizeof(int64_t) * (size_t)np->cnt, i64));
  STEP(s->comm, xplan_forward(s->comm, np, sizeof(int64_t), l->gid, NULL, NULL, i64, &s->xbuf));
  STEP(s->comm, write_slab(&o, g, "/mesh", "global_id", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, np->n_global, np->lo, np->cnt,
                    i64, "node"));
  STEP(s->comm, SCRATCH_GET(&s->slab, sizeof(int32_t) * (size_t)np->cnt, i32));
  xplan_sources(np, s->rank, i32);
  STEP(s->comm, write_slab(&o, gf, "/fields", "rank", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, np->n_global, np->lo, np->cnt,
                    i32, "node"));

  /* Elements: type and node positions travel to the slab of the global element order. */
  const xplan_t *ep = &s->ep;
  if (ep->identity) { /* the owned elements are this rank's slab, in order: read them in place */
    for (int32_t k = 0; k < ep->n_mine; k++) tcnt[l->elem_type[s->esel[k]]]++;
  } else {
    STEP(s->comm, SCRATCH_GET(&s->slab, ELEM_W * sizeof(int64_t) * (size_t)ep->cnt, epos));
    STEP(s->comm, xplan_forward(s->comm, ep, ELEM_W * sizeof(int64_t), NULL, elem_get, s, epos, &s->xbuf));
    for (int64_t k = 0; k < ep->cnt; k++) tcnt[epos[ELEM_W * k]]++;
  }
  MPI_TRY(MPI_Exscan(tcnt, tlo, 4, MPI_INT64_T, MPI_SUM, s->comm));
  if (s->rank == 0) memset(tlo, 0, sizeof tlo);
  MPI_TRY(MPI_Allreduce(tcnt, ttot, 4, MPI_INT64_T, MPI_SUM, s->comm));
  STEP(s->comm, ep->identity ? write_connectivity(&o, g, ep->cnt, elem_eget, elem_fill, s, tlo, tcnt, ttot, &s->conv)
                              : write_connectivity(&o, g, ep->cnt, eget_array, NULL, epos, tlo, tcnt, ttot, &s->conv));
  memcpy(s->x.ttot, ttot, sizeof ttot);
  STEP(s->comm, SCRATCH_GET(&s->slab, sizeof(int32_t) * (size_t)ep->cnt, i32));
  xplan_sources(ep, s->rank, i32);
  STEP(s->comm, write_slab(&o, gf, "/fields", "elem_rank", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, ep->n_global, ep->lo, ep->cnt,
                    i32, "cell"));
cleanup:
  h5_close_id(&g, H5Gclose);
  h5_close_id(&gf, H5Gclose);
  return ierr;
}

int pm_h5_series_create(MPI_Comm comm, const pm_local_t *l, const pm_meta_t *meta, const char *h5path,
                        const char *xmfpath, pm_h5_series_t **sp) {
  int ierr = PM_OK;
  pm_h5_series_t *s = NULL;
  hid_t fapl = -1;
  h5_quiet_t q;
  h5_quiet_begin(&q);
  *sp = NULL;
  PM_TRY(PM_CALLOC(s, 1, "HDF5 series"));
  s->comm = MPI_COMM_NULL;
  s->file = s->dxpl = -1;
  MPI_TRY(MPI_Comm_dup(comm, &s->comm));
  MPI_TRY(MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN));
  MPI_Comm_rank(s->comm, &s->rank);
  MPI_Comm_size(s->comm, &s->nranks);
  s->local = l;
  s->meta = meta;
  long pid = (long)getpid();
  MPI_TRY(MPI_Bcast(&pid, 1, MPI_LONG, 0, s->comm));
  memset(prof_, 0, sizeof prof_);
  double t0 = prof_now();

  /* Everything local first, then one agreement. */
  ierr = check_local(s->rank, l, meta);
  if (!ierr && !h5path) ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_h5: no HDF5 file name");
  if (!ierr) ierr = pm_strdup(h5path, &s->h5path);
  if (!ierr && xmfpath) ierr = pm_strdup(xmfpath, &s->xmfpath);
  if (!ierr) ierr = tmp_name(h5path, pid, &s->h5tmp);
  if (!ierr && xmfpath) ierr = tmp_name(xmfpath, pid, &s->xmftmp);
  int32_t nown = 0;
  if (!ierr) {
    for (int32_t e = 0; e < l->n_elems; e++) nown += l->elem_owner[e] == s->rank;
    ierr = BIG_MALLOC(s->esel, nown > 0 ? nown : 1, "owned elements");
    nown = 0;
    if (!ierr)
      for (int32_t e = 0; e < l->n_elems; e++)
        if (l->elem_owner[e] == s->rank) s->esel[nown++] = e;
  }
  if (!ierr) {
    int32_t nl = l->n_total + l->n_aux, i = 0;
    while (i < nl && l->node_index[i] == i) i++;
    s->node_direct = i == nl;
  }
  PM_TRY(pm_comm_agree(s->comm, ierr));
  /* The plans' exchanges are collective: every rank builds both, then one agreement. */
  ierr = xplan_create(s->comm, meta->global_nodes, l->n_internal, l->node_index, NULL, 1, "node", &s->np);
  int ierr2 = xplan_create(s->comm, meta->global_elems, nown, l->elem_index, s->esel, 1, "element", &s->ep);
  if (!ierr) ierr = ierr2;
  PM_TRY(pm_comm_agree(s->comm, ierr));
  /* partition stores the mesh fingerprint (partition.meta version 2; partition --check verifies
   * it); only older partitions need it hashed here. */
  if (meta->has_mesh_fingerprint)
    s->mesh_fp = meta->mesh_fingerprint;
  else
    PM_TRY(pm_h5_mesh_fingerprint(s->comm, l, meta, &s->mesh_fp));
  prof_[PROF_PREP] += prof_now() - t0;
  s->x.dim = meta->dim;
  s->x.n_nodes = meta->global_nodes;
  s->x.n_elems = meta->global_elems;

  H5_TRY(fapl = H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate (file access) for %s", h5path);
  H5_TRY(H5Pset_fapl_mpio(fapl, s->comm, MPI_INFO_NULL), "H5Pset_fapl_mpio for %s", h5path);
  H5_TRY(H5Pset_coll_metadata_write(fapl, 1), "H5Pset_coll_metadata_write for %s", h5path);
  H5_TRY(H5Pset_all_coll_metadata_ops(fapl, 1), "H5Pset_all_coll_metadata_ops for %s", h5path);
  H5_TRY(s->dxpl = H5Pcreate(H5P_DATASET_XFER), "H5Pcreate (transfer) for %s", h5path);
  H5_TRY(H5Pset_dxpl_mpio(s->dxpl, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio for %s", h5path);
  s->file = H5Fcreate(s->h5tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  ierr = s->file < 0 ? h5_error(__FILE__, __LINE__, "creating %s (temporary name of %s)", s->h5tmp, h5path) : PM_OK;
  PM_TRY(pm_comm_agree(s->comm, ierr));
  ierr = series_write_mesh(s);
  PM_TRY(pm_comm_agree(s->comm, ierr));
  PM_TRY(add_xfield(&s->x, &s->xcap, -1, "/mesh/global_id", "global_id", 0, 2));
  PM_TRY(add_xfield(&s->x, &s->xcap, -1, "/fields/rank", "rank", 0, 1));
  PM_TRY(add_xfield(&s->x, &s->xcap, -1, "/fields/elem_rank", "rank", 1, 1));
  *sp = s;
  s = NULL;
cleanup:
  h5_close_id(&fapl, H5Pclose);
  if (s) {
    if (s->comm != MPI_COMM_NULL) series_discard(s);
    series_free(&s);
  }
  h5_quiet_end(&q);
  return ierr;
}

/* Fields into group `gname` (created here).  Collective. */
static int series_fields(pm_h5_series_t *s, const char *gname, int step, double time, const pm_h5_field_t *fields,
                         int nfields) {
  int ierr = PM_OK;
  hid_t g = -1;
  char *slab = NULL;
  h5out_t o = {s->file, s->dxpl, s->h5path};
  /* Names first (same on every rank), then data pointers (this rank's). */
  for (int f = 0; f < nfields && !ierr; f++) {
    const char *nm = fields[f].name;
    if (!valid_name(nm))
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                          "field name '%s': use 1 to %d letters, digits, '_' or '-'", nm ? nm : "(null)", NAME_MAX_);
    else if (strcmp(nm, "rank") == 0 || strcmp(nm, "elem_rank") == 0 || strcmp(nm, "global_id") == 0)
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "field name '%s' is reserved (pmesh writes it itself)", nm);
    else if (!fields[f].data &&
             (fields[f].on_elements ? s->local->n_elems > 0 : s->local->n_total + s->local->n_aux > 0))
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "rank %d: field '%s' has no data", s->rank, nm);
    for (int h = 0; h < f && !ierr; h++)
      if (strcmp(fields[h].name, nm) == 0)
        ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "field '%s' given twice", nm);
  }
  PM_TRY(pm_comm_agree(s->comm, ierr));
  if (step >= 0) {
    H5_STEP(s->comm, g = H5Gcreate2(s->file, gname, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating group %s in %s", gname,
           s->h5path);
    STEP(s->comm, write_num_attr(g, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &time, gname));
  } else {
    H5_STEP(s->comm, g = H5Gopen2(s->file, gname, H5P_DEFAULT), "opening group %s in %s", gname, s->h5path);
  }
  for (int f = 0; f < nfields; f++) {
    const pm_h5_field_t *fd = &fields[f];
    const xplan_t *pl = fd->on_elements ? &s->ep : &s->np;
    int width = fd->is_int ? 4 : 8;
    STEP(s->comm, SCRATCH_GET(&s->slab, (size_t)width * pl->cnt, slab));
    STEP(s->comm, xplan_forward(s->comm, pl, width, fd->data, NULL, NULL, slab, &s->xbuf));
    STEP(s->comm, write_slab(&o, g, gname, fd->name, fd->is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE,
                      fd->is_int ? H5T_NATIVE_INT32 : H5T_NATIVE_DOUBLE, 0, pl->n_global, pl->lo, pl->cnt, slab,
                      fd->on_elements ? "cell" : "node"));
    char dset[96];
    snprintf(dset, sizeof dset, "%s/%s", gname, fd->name);
    STEP(s->comm, add_xfield(&s->x, &s->xcap, step, dset, fd->name, fd->on_elements, fd->is_int ? 1 : 0));
  }
cleanup:
  h5_close_id(&g, H5Gclose);
  return ierr;
}

int pm_h5_series_write(pm_h5_series_t *s, double time, const pm_h5_field_t *fields, int nfields) {
  PM_CHECK(s, PM_ERR_ARG, "pm_h5_series_write: no series");
  PM_CHECK(!s->failed, PM_ERR_ARG, "pm_h5_series_write: %s: an earlier write failed; close the series with ok = 0",
           s->h5path);
  int ierr = PM_OK;
  h5_quiet_t q;
  h5_quiet_begin(&q);
  char gname[64];
  if (s->x.nsteps == 0 && !s->single) {
    hid_t g = H5Gcreate2(s->file, "steps", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0) ierr = h5_error(__FILE__, __LINE__, "creating group /steps in %s", s->h5path);
    else H5Gclose(g);
  }
  if (s->single)
    snprintf(gname, sizeof gname, "/fields");
  else
    snprintf(gname, sizeof gname, "/steps/%d", s->x.nsteps);
  PM_TRY(pm_comm_agree(s->comm, ierr));
  ierr = series_fields(s, gname, s->single ? -1 : s->x.nsteps, time, fields, nfields);
  PM_TRY(pm_comm_agree(s->comm, ierr));
  if (!s->single) {
    if (s->x.nsteps == s->tcap) {
      s->tcap = s->tcap ? 2 * s->tcap : 16;
      PM_TRY(PM_REALLOC(s->x.times, s->tcap, "step times"));
    }
    s->x.times[s->x.nsteps++] = time;
  }
cleanup:
  h5_quiet_end(&q);
  return series_fail(s, ierr);
}

/* Root attributes: pmesh's, then the caller's. */
static int write_root_attrs(pm_h5_series_t *s, const pm_h5_attr_t *attrs, int nattrs) {
  int ierr = PM_OK;
  hid_t root = -1;
  const pm_meta_t *m = s->meta;
  const char *w = s->h5path;
  H5_TRY(root = H5Gopen2(s->file, "/", H5P_DEFAULT), "opening / in %s", w);
  PM_TRY(write_str_attr(root, "format", PM_H5_FORMAT, w));
  PM_TRY(attr_i64(root, "format_version", PM_H5_FORMAT_VERSION, w));
  PM_TRY(write_str_attr(root, "pmesh_version", PMESH_VERSION, w));
  PM_TRY(attr_i64(root, "nranks", s->nranks, w));
  PM_TRY(attr_i64(root, "dim", m->dim, w));
  PM_TRY(attr_i64(root, "global_nodes", m->global_nodes, w));
  PM_TRY(attr_i64(root, "global_elems", m->global_elems, w));
  PM_TRY(attr_i64(root, "n_triangles", s->x.ttot[PM_MSH_TRI], w));
  PM_TRY(attr_i64(root, "n_quadrangles", s->x.ttot[PM_MSH_QUAD], w));
  PM_TRY(attr_i64(root, "n_lines", s->x.ttot[PM_MSH_LINE], w));
  PM_TRY(attr_u64(root, "mesh_fingerprint", s->mesh_fp, w));
  PM_TRY(attr_u64(root, "partition_fingerprint", m->fingerprint, w));
  PM_TRY(write_str_attr(root, "source", m->source ? m->source : "", w));
  PM_TRY(attr_u64(root, "source_checksum", m->source_checksum, w));
  if (!s->single) {
    PM_TRY(attr_i64(root, "n_steps", s->x.nsteps, w));
    if (s->x.nsteps > 0)
      PM_TRY(write_num_attr(root, "times", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, (hsize_t)s->x.nsteps, s->x.times, w));
  }
  for (int a = 0; a < nattrs; a++) {
    const pm_h5_attr_t *at = &attrs[a];
    PM_TRY_CHECK(valid_name(at->name), PM_ERR_ARG, "attribute name '%s': use 1 to %d letters, digits, '_' or '-'",
                 at->name ? at->name : "(null)", NAME_MAX_);
    htri_t ex = H5Aexists(root, at->name);
    H5_TRY(ex, "H5Aexists %s in %s", at->name, w);
    PM_TRY_CHECK(!ex, PM_ERR_ARG, "attribute '%s' is reserved or given twice; choose another name", at->name);
    if (at->kind == PM_H5_ATTR_DOUBLE)
      PM_TRY(write_num_attr(root, at->name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &at->d, w));
    else if (at->kind == PM_H5_ATTR_INT64)
      PM_TRY(attr_i64(root, at->name, at->i, w));
    else if (at->kind == PM_H5_ATTR_STRING)
      PM_TRY(write_str_attr(root, at->name, at->s ? at->s : "", w));
    else
      PM_TRY_CHECK(0, PM_ERR_ARG, "attribute '%s': kind %d, expected 0 (double), 1 (int64) or 2 (string)", at->name,
                   at->kind);
  }
cleanup:
  h5_close_id(&root, H5Gclose);
  return ierr;
}

int pm_h5_series_close(pm_h5_series_t **sp, const pm_h5_attr_t *attrs, int nattrs, int ok) {
  pm_h5_series_t *s = sp ? *sp : NULL;
  if (!s) return PM_OK;
  int ierr = PM_OK;
  h5_quiet_t q;
  h5_quiet_begin(&q);
  if (ok && s->failed) ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                                           "%s: not completed: an earlier write failed (previous result kept)",
                                           s->h5path);
  if (ok && !ierr) {
    ierr = write_root_attrs(s, attrs, nattrs);
    PM_TRY(pm_comm_agree(s->comm, ierr));
    /* Rank 0 writes the XDMF meanwhile (on a thread; synchronously if none can be started). */
    xmf_job_t job = {&s->x, s->h5path, s->xmfpath, s->xmftmp, 0, 1};
    thrd_t th;
    int threaded = 0;
    double t = prof_now();
    if (s->rank == 0 && s->xmfpath) {
      threaded = thrd_create(&th, xmf_job_run, &job) == thrd_success;
      if (!threaded) xmf_job_run(&job);
    }
    prof_[PROF_XMF] += prof_now() - t;
    /* Flush to disk (MPI_File_sync) before the rename makes the file the result. */
    t = prof_now();
    if (H5Fflush(s->file, H5F_SCOPE_GLOBAL) < 0) ierr = h5_error(__FILE__, __LINE__, "flushing %s", s->h5tmp);
    prof_[PROF_FLUSH] += prof_now() - t;
    t = prof_now();
    if (H5Fclose(s->file) < 0 && !ierr) ierr = h5_error(__FILE__, __LINE__, "closing %s", s->h5tmp);
    prof_[PROF_CLOSE] += prof_now() - t;
    t = prof_now();
    s->file = -1;
    if (threaded) thrd_join(th, NULL); /* before any return: the job lives on this stack */
    if (!ierr && s->rank == 0 && s->xmfpath) ierr = xmf_report(s->xmftmp, job.err, job.created);
    PM_TRY(pm_comm_agree(s->comm, ierr));
    if (s->rank == 0) {
      if (rename(s->h5tmp, s->h5path) != 0)
        ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot move %s into place: %s", s->h5path, s->h5tmp,
                            strerror(errno));
      if (!ierr && s->xmfpath && rename(s->xmftmp, s->xmfpath) != 0)
        ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot move %s into place: %s", s->xmfpath,
                            s->xmftmp, strerror(errno));
    }
    PM_TRY(pm_comm_agree(s->comm, ierr));
    prof_[PROF_XMF] += prof_now() - t;
    if (s->rank == 0 && getenv("PMESH_H5_PROFILE"))
      fprintf(stderr,
              "pm_h5 profile (rank 0, s): prepare %.3f exchange %.3f dataset-writes %.3f flush %.3f close %.3f "
              "xmf+rename %.3f\n",
              prof_[PROF_PREP], prof_[PROF_EXCHANGE], prof_[PROF_WRITE], prof_[PROF_FLUSH], prof_[PROF_CLOSE],
              prof_[PROF_XMF]);
  }
cleanup:
  if (!ok || ierr) series_discard(s);
  series_free(sp);
  h5_quiet_end(&q);
  return ierr;
}

int pm_h5_write(MPI_Comm comm, const pm_local_t *local, const pm_meta_t *meta, const pm_h5_field_t *fields,
                int nfields, const pm_h5_attr_t *attrs, int nattrs, const char *h5path, const char *xmfpath) {
  pm_h5_series_t *s = NULL;
  PM_CALL(pm_h5_series_create(comm, local, meta, h5path, xmfpath, &s));
  s->single = 1;
  int ierr = pm_h5_series_write(s, 0.0, fields, nfields);
  if (ierr) {
    pm_error_trace(__FILE__, __LINE__);
    pm_h5_series_close(&s, NULL, 0, 0);
    return ierr;
  }
  PM_CALL(pm_h5_series_close(&s, attrs, nattrs, 1));
  return PM_OK;
}

/* ------------------------------------------------------------------------------------------
 * Restart */

static int read_attr(hid_t loc, const char *name, hid_t mtype, void *v, const char *path, int *found) {
  int ierr = PM_OK;
  hid_t a = -1;
  htri_t ex = H5Aexists(loc, name);
  H5_TRY(ex, "H5Aexists %s in %s", name, path);
  *found = ex > 0;
  if (!ex) goto cleanup;
  H5_TRY(a = H5Aopen(loc, name, H5P_DEFAULT), "opening attribute %s of %s", name, path);
  H5_TRY(H5Aread(a, mtype, v), "reading attribute %s of %s", name, path);
cleanup:
  h5_close_id(&a, H5Aclose);
  return ierr;
}

/* The names in group `g`, for a message. */
static void list_names(hid_t file, const char *g, char *buf, size_t size) {
  H5G_info_t info;
  buf[0] = '\0';
  if (H5Gget_info_by_name(file, g, &info, H5P_DEFAULT) < 0) return;
  size_t len = 0;
  for (hsize_t i = 0; i < info.nlinks && len + 70 < size; i++) {
    char nm[64];
    if (H5Lget_name_by_idx(file, g, H5_INDEX_NAME, H5_ITER_INC, i, nm, sizeof nm, H5P_DEFAULT) < 0) break;
    len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", nm);
  }
}

int pm_h5_read_field(MPI_Comm comm, const pm_local_t *l, const pm_meta_t *meta, const char *h5path, const char *name,
                     int step, double *values) {
  int ierr = PM_OK, rank, found;
  MPI_Comm c = MPI_COMM_NULL;
  hid_t fapl = -1, dxpl = -1, file = -1, root = -1, ds = -1, fs = -1, ms = -1, at = -1, st = -1;
  xplan_t pl;
  double *slab = NULL;
  uint64_t mine_fp = 0, file_fp = 0;
  int64_t nsteps = 0;
  char dset[128] = "", group[64] = "", names[600];
  h5_quiet_t q;
  memset(&pl, 0, sizeof pl);
  h5_quiet_begin(&q);
  MPI_TRY(MPI_Comm_dup(comm, &c));
  MPI_TRY(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  MPI_Comm_rank(c, &rank);

  ierr = check_local(rank, l, meta);
  if (!ierr && (!h5path || !name || !values || step < -1))
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_h5_read_field: missing argument or step %d < -1", step);
  if (!ierr && rank == 0) { /* the file's existence and kind: one rank looks */
    struct stat sb;
    if (stat(h5path, &sb) != 0)
      ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot open: %s", h5path, strerror(errno));
    else if (!S_ISREG(sb.st_mode))
      ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: is not a regular file", h5path);
    else {
      htri_t is = H5Fis_hdf5(h5path);
      if (is < 0)
        ierr = h5_error(__FILE__, __LINE__, "%s: checking the file", h5path);
      else if (is == 0)
        ierr = pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__,
                            "%s: not an HDF5 file; give a result written by pmesh (pm_h5_write / solve)", h5path);
    }
  }
  PM_TRY(pm_comm_agree(c, ierr));
  /* With a stored fingerprint the plan checks that the local meshes cover the nodes exactly (what
   * hashing them would have checked). */
  ierr = xplan_create(c, meta->global_nodes, l->n_internal, l->node_index, NULL, meta->has_mesh_fingerprint, "node",
                      &pl);
  PM_TRY(pm_comm_agree(c, ierr));
  if (meta->has_mesh_fingerprint)
    mine_fp = meta->mesh_fingerprint;
  else
    PM_TRY(pm_h5_mesh_fingerprint(c, l, meta, &mine_fp));

  H5_TRY(fapl = H5Pcreate(H5P_FILE_ACCESS), "H5Pcreate (file access) for %s", h5path);
  H5_TRY(H5Pset_fapl_mpio(fapl, c, MPI_INFO_NULL), "H5Pset_fapl_mpio for %s", h5path);
  H5_TRY(H5Pset_all_coll_metadata_ops(fapl, 1), "H5Pset_all_coll_metadata_ops for %s", h5path);
  H5_TRY(dxpl = H5Pcreate(H5P_DATASET_XFER), "H5Pcreate (transfer) for %s", h5path);
  H5_TRY(H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE), "H5Pset_dxpl_mpio for %s", h5path);
  file = H5Fopen(h5path, H5F_ACC_RDONLY, fapl);
  ierr = file < 0 ? h5_error(__FILE__, __LINE__, "opening %s", h5path) : PM_OK;
  PM_TRY(pm_comm_agree(c, ierr));
  /* From here on every rank sees the same file, so every rank takes the same branch. */
  H5_TRY(root = H5Gopen2(file, "/", H5P_DEFAULT), "opening / in %s", h5path);
  PM_TRY(read_attr(root, "mesh_fingerprint", H5T_NATIVE_UINT64, &file_fp, h5path, &found));
  PM_TRY_CHECK(found, PM_ERR_FORMAT, "%s: not a pmesh result (no attribute mesh_fingerprint at /)", h5path);
  PM_TRY_CHECK(file_fp == mine_fp, PM_ERR_INCONSISTENT,
               "%s: written for another mesh (mesh fingerprint %016" PRIx64 "; this mesh's is %016" PRIx64
               "): restart from a result of the same mesh (any partition and number of ranks)",
               h5path, file_fp, mine_fp);
  PM_TRY(read_attr(root, "n_steps", H5T_NATIVE_INT64, &nsteps, h5path, &found));
  if (!found) nsteps = 0;
  if (nsteps == 0) {
    PM_TRY_CHECK(step <= 0, PM_ERR_ARG, "%s: a single result has no step %d; use step -1 or 0", h5path, step);
    snprintf(group, sizeof group, "/fields");
  } else {
    int64_t k = step < 0 ? nsteps - 1 : step;
    PM_TRY_CHECK(k < nsteps, PM_ERR_ARG, "%s: no step %d: the series has %" PRId64 " steps, 0 to %" PRId64, h5path,
                 step, nsteps, nsteps - 1);
    snprintf(group, sizeof group, "/steps/%" PRId64, k);
  }
  snprintf(dset, sizeof dset, "%s/%s", group, name);
  {
    htri_t ex = H5Lexists(file, group, H5P_DEFAULT);
    H5_TRY(ex, "looking up %s in %s", group, h5path);
    PM_TRY_CHECK(ex > 0, PM_ERR_FORMAT, "%s: no group %s: not a complete pmesh result", h5path, group);
    ex = valid_name(name) ? H5Lexists(file, dset, H5P_DEFAULT) : 0;
    H5_TRY(ex, "looking up %s in %s", dset, h5path);
    if (!ex) {
      list_names(file, group, names, sizeof names);
      PM_TRY_CHECK(0, PM_ERR_ARG, "%s: no field '%s' in %s (it has: %s)", h5path, name, group, names);
    }
  }
  H5_TRY(ds = H5Dopen2(file, dset, H5P_DEFAULT), "opening %s in %s", dset, h5path);
  {
    char center[8] = "";
    htri_t ex = H5Aexists(ds, "center");
    H5_TRY(ex, "H5Aexists center of %s in %s", dset, h5path);
    if (ex > 0) {
      H5_TRY(at = H5Aopen(ds, "center", H5P_DEFAULT), "opening attribute center of %s in %s", dset, h5path);
      H5_TRY(st = H5Tcopy(H5T_C_S1), "H5Tcopy");
      H5_TRY(H5Tset_size(st, sizeof center - 1), "H5Tset_size");
      H5_TRY(H5Aread(at, st, center), "reading attribute center of %s in %s", dset, h5path);
    }
    PM_TRY_CHECK(strcmp(center, "node") == 0, PM_ERR_ARG,
                 "%s: %s is a %s field; a restart reads nodal fields", h5path, dset, center[0] ? center : "non-pmesh");
  }
  H5_TRY(fs = H5Dget_space(ds), "H5Dget_space of %s in %s", dset, h5path);
  {
    hsize_t dims[2] = {0, 0};
    int nd = H5Sget_simple_extent_dims(fs, dims, NULL);
    H5_TRY(nd, "reading the shape of %s in %s", dset, h5path);
    PM_TRY_CHECK(nd == 1 && dims[0] == (hsize_t)meta->global_nodes, PM_ERR_FORMAT,
                 "%s: %s has shape [%llu%s] but the mesh has %" PRId64 " nodes", h5path, dset,
                 (unsigned long long)dims[0], nd == 1 ? "" : " x ...", meta->global_nodes);
  }
  PM_TRY(BIG_MALLOC(slab, pl.cnt > 0 ? pl.cnt : 1, "field slab"));
  {
    hsize_t start = (hsize_t)pl.lo, count = (hsize_t)pl.cnt, one = 1;
    if (pl.cnt > 0) {
      H5_TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, &start, NULL, &count, NULL), "selecting rows of %s", dset);
      H5_TRY(ms = H5Screate_simple(1, &count, NULL), "H5Screate_simple");
    } else {
      H5_TRY(H5Sselect_none(fs), "H5Sselect_none");
      H5_TRY(ms = H5Screate_simple(1, &one, NULL), "H5Screate_simple");
      H5_TRY(H5Sselect_none(ms), "H5Sselect_none");
    }
    H5_TRY(H5Dread(ds, H5T_NATIVE_DOUBLE, ms, fs, dxpl, slab), "reading %s of %s", dset, h5path);
  }
  PM_TRY(xplan_backward(c, &pl, sizeof(double), slab, values));
cleanup:
  ierr = c != MPI_COMM_NULL ? pm_comm_agree(c, ierr) : ierr;
  h5_close_id(&st, H5Tclose);
  h5_close_id(&at, H5Aclose);
  h5_close_id(&ms, H5Sclose);
  h5_close_id(&fs, H5Sclose);
  h5_close_id(&ds, H5Dclose);
  h5_close_id(&root, H5Gclose);
  h5_close_id(&file, H5Fclose);
  h5_close_id(&dxpl, H5Pclose);
  h5_close_id(&fapl, H5Pclose);
  xplan_free(&pl);
  free(slab);
  if (c != MPI_COMM_NULL) MPI_Comm_free(&c);
  h5_quiet_end(&q);
  return ierr;
}

/* ------------------------------------------------------------------------------------------
 * The global mesh with its partition (partition --view): serial HDF5, no MPI. */

int pm_h5_write_partition(const pm_mesh_t *m, const int32_t *part, int nparts, uint64_t partition_fingerprint,
                          const char *h5path, const char *xmfpath) {
  int ierr = PM_OK;
  hid_t file = -1, g = -1, gf = -1, root = -1;
  char *h5tmp = NULL, *xmftmp = NULL;
  int64_t *e = NULL;
  int32_t *epart = NULL;
  int64_t zero[4] = {0, 0, 0, 0}, ttot[4] = {0, 0, 0, 0};
  xinfo_t x;
  int xcap = 0;
  scratch_t conv = {NULL, 0};
  h5_quiet_t q;
  memset(&x, 0, sizeof x);
  h5_quiet_begin(&q);
  h5out_t o = {-1, H5P_DEFAULT, h5path};
  PM_TRY_CHECK(m && part && h5path && m->n_nodes > 0 && m->n_elems > 0, PM_ERR_ARG,
               "pm_h5_write_partition: empty mesh or missing argument");
  PM_TRY(tmp_name(h5path, (long)getpid(), &h5tmp));
  if (xmfpath) PM_TRY(tmp_name(xmfpath, (long)getpid(), &xmftmp));
  PM_TRY(PM_MALLOC(e, ELEM_W * m->n_elems, "elements"));
  PM_TRY(PM_MALLOC(epart, m->n_elems, "element parts"));
  for (int64_t k = 0; k < m->n_elems; k++) {
    int t = m->elem_type[k];
    int64_t a = m->elem_ptr[k], b = m->elem_ptr[k + 1], mn = INT64_MAX;
    PM_TRY_CHECK(t >= PM_MSH_LINE && t <= PM_MSH_QUAD && b - a == pm_msh_type_nodes(t), PM_ERR_INCONSISTENT,
                 "element %" PRId64 ": Gmsh type %d with %" PRId64 " nodes is not a 1D/2D cell", k, t, b - a);
    e[ELEM_W * k] = t;
    for (int v = 0; v < 4; v++) e[ELEM_W * k + 1 + v] = a + v < b ? m->elem_node[a + v] : -1;
    for (int64_t j = a; j < b; j++)
      if (m->elem_node[j] < mn) mn = m->elem_node[j];
    epart[k] = part[mn]; /* the owner rule of the local meshes */
    ttot[t]++;
  }
  file = H5Fcreate(h5tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  H5_TRY(file, "creating %s (temporary name of %s)", h5tmp, h5path);
  o.file = file;
  H5_TRY(g = H5Gcreate2(file, "mesh", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating /mesh in %s", h5path);
  H5_TRY(gf = H5Gcreate2(file, "fields", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), "creating /fields in %s", h5path);
  PM_TRY(write_slab(&o, g, "/mesh", "coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, m->n_nodes, 0, m->n_nodes,
                    m->xyz, NULL));
  PM_TRY(write_slab(&o, g, "/mesh", "global_id", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, m->n_nodes, 0, m->n_nodes,
                    m->node_gid, "node"));
  PM_TRY(write_connectivity(&o, g, m->n_elems, eget_array, NULL, e, zero, ttot, ttot, &conv));
  PM_TRY(write_slab(&o, gf, "/fields", "part", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, m->n_nodes, 0, m->n_nodes, part,
                    "node"));
  PM_TRY(write_slab(&o, gf, "/fields", "elem_part", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, m->n_elems, 0, m->n_elems,
                    epart, "cell"));
  H5_TRY(root = H5Gopen2(file, "/", H5P_DEFAULT), "opening / in %s", h5path);
  PM_TRY(write_str_attr(root, "format", PM_H5_FORMAT, h5path));
  PM_TRY(attr_i64(root, "format_version", PM_H5_FORMAT_VERSION, h5path));
  PM_TRY(write_str_attr(root, "pmesh_version", PMESH_VERSION, h5path));
  PM_TRY(attr_i64(root, "nparts", nparts, h5path));
  PM_TRY(attr_i64(root, "dim", m->dim, h5path));
  PM_TRY(attr_i64(root, "global_nodes", m->n_nodes, h5path));
  PM_TRY(attr_i64(root, "global_elems", m->n_elems, h5path));
  PM_TRY(attr_i64(root, "n_triangles", ttot[PM_MSH_TRI], h5path));
  PM_TRY(attr_i64(root, "n_quadrangles", ttot[PM_MSH_QUAD], h5path));
  PM_TRY(attr_i64(root, "n_lines", ttot[PM_MSH_LINE], h5path));
  PM_TRY(attr_u64(root, "mesh_fingerprint", pm_h5_mesh_fingerprint_global(m), h5path));
  PM_TRY(attr_u64(root, "partition_fingerprint", partition_fingerprint, h5path));
  h5_close_id(&root, H5Gclose);
  h5_close_id(&g, H5Gclose);
  h5_close_id(&gf, H5Gclose);
  H5_TRY(H5Fflush(file, H5F_SCOPE_GLOBAL), "flushing %s", h5tmp);
  herr_t rc = H5Fclose(file);
  file = -1;
  H5_TRY(rc, "closing %s", h5tmp);
  x.dim = m->dim;
  x.n_nodes = m->n_nodes;
  x.n_elems = m->n_elems;
  memcpy(x.ttot, ttot, sizeof ttot);
  PM_TRY(add_xfield(&x, &xcap, -1, "/mesh/global_id", "global_id", 0, 2));
  PM_TRY(add_xfield(&x, &xcap, -1, "/fields/part", "part", 0, 1));
  PM_TRY(add_xfield(&x, &xcap, -1, "/fields/elem_part", "part", 1, 1));
  if (xmfpath) PM_TRY(xmf_write(&x, h5path, xmfpath, xmftmp));
  PM_TRY_CHECK(rename(h5tmp, h5path) == 0, PM_ERR_IO, "%s: cannot move %s into place: %s", h5path, h5tmp,
               strerror(errno));
  if (xmfpath)
    PM_TRY_CHECK(rename(xmftmp, xmfpath) == 0, PM_ERR_IO, "%s: cannot move %s into place: %s", xmfpath, xmftmp,
                 strerror(errno));
  free(h5tmp);
  h5tmp = NULL;
  free(xmftmp);
  xmftmp = NULL;
cleanup:
  h5_close_id(&root, H5Gclose);
  h5_close_id(&g, H5Gclose);
  h5_close_id(&gf, H5Gclose);
  h5_close_id(&file, H5Fclose);
  if (h5tmp) remove(h5tmp);
  if (xmftmp) remove(xmftmp);
  free(h5tmp);
  free(xmftmp);
  free(e);
  free(epart);
  scratch_free(&conv);
  free(x.fields);
  h5_quiet_end(&q);
  return ierr;
}
