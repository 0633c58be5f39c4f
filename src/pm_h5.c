/* pm_h5.c - results in one parallel HDF5 file (MPI-IO, collective transfers) plus XDMF.
 *
 * How a dataset is written: every entity (node, element) is an item with a global position.
 * Its owner sends it, with MPI_Alltoallv, to the rank whose slab of the global order holds that
 * position (rank r holds [floor(r n / p), floor((r+1) n / p))); each rank then writes its slab
 * as contiguous hyperslabs, collectively.  Both go in rounds of a few thousand rows through
 * small buffers that stay in cache (see xplan_t), and a thread per node makes each 16 MB
 * durable as soon as it is written (wb_setup).  The same plan run backwards serves restarts.
 * Element connectivity goes per type: each rank counts the elements of each type in its slab
 * of the global element order and an MPI_Exscan over those counts places its rows.
 *
 * Set aside after measuring (solve's output of the 1M-node mesh at np = 2 on the 2-CPU
 * benchmark machine, medians, the variants alternating in one loop): ROMIO's collective buffering
 * with one aggregator (hints romio_cb_write enable, cb_config_list *:1) took 0.270 s against
 * 0.084 s (8 runs); one writing rank, the other sending it everything, 0.089 s against 0.067 s;
 * each rank storing its items straight into the writers' buffers in an MPI shared-memory window
 * (no MPI_Alltoallv, no unpacking), 0.082 s against 0.067 s (21 runs); 16384 or 65536 rows per
 * round, 0.078 and 0.071 s against 0.070 s (15 runs); a thread packing the next rounds while
 * HDF5 writes (e5c148f, reverted in 370fec7); the ranks writing in turns, one H5Dwrite each
 * with the others' selections empty, each packing the next group during another's turn: 0.093 s
 * against 0.076 s (11 runs).  A collective H5Dwrite here (HDF5 1.10, ROMIO) waits for every rank
 * at its entry and at its exit, also with H5FD_MPIO_INDIVIDUAL_IO (a 2-rank probe: a rank with
 * an empty selection returns only when the writer has finished), and ext4's inode lock
 * serialises the ranks' writes into one file; so no rank's exchange can hide behind another's
 * write. */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* madvise(MADV_HUGEPAGE) */
#include "pmesh/pm_h5.h"

#include <errno.h>
#include <fcntl.h>
#include <hdf5.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
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
static unsigned long h5_errors; /* HDF5 calls that failed on this rank, ever */

static int h5_error(const char *file, int line, const char *fmt, ...) {
  char what[600], why[320] = "";
  h5_errors++;
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
  /* Before HDF5 initialises: its exit handler closes the files still open, which is collective,
   * and a rank that exits because pm_comm_abort ended the job must not wait in it.  (pmesh
   * closes what it opens on every other path, and HDF5 still shuts down at MPI_Finalize.) */
  static int once;
  if (!once) H5dont_atexit();
  once = 1;
  q->func = NULL;
  q->data = NULL;
  H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
  H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

static void h5_quiet_end(const h5_quiet_t *q) {
  H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
  pm_comm_watch_end();
}

/* A collective HDF5 call can block for good on the ranks that entered it when another rank's
 * error path left it (a failed write inside H5Fflush, seen here: the ranks end up in different
 * collective calls and none returns).  The parallel entry points arm a watchdog
 * (pm_comm_watch_begin), refreshed before each dataset's creation and each write, read, flush
 * and close: a step that has not returned after PMESH_H5_TIMEOUT seconds ends the job.
 * h5_quiet_end disarms it. */
#define PM_H5_TIMEOUT 300.0
static double watch_s;

static void h5_watch_setup(MPI_Comm comm, const char *path) {
  int n = 1;
  MPI_Comm_size(comm, &n);
  watch_s = n > 1 ? pm_comm_env_seconds("PMESH_H5_TIMEOUT", PM_H5_TIMEOUT) : 0;
  pm_comm_watch_begin(watch_s, "PMESH_H5_TIMEOUT", "HDF5 on %s", path ? path : "(no name)");
}

#define H5_WATCH(...) pm_comm_watch_begin(watch_s, "PMESH_H5_TIMEOUT", __VA_ARGS__)

static void h5_close_id(hid_t *id, herr_t (*close)(hid_t)) {
  if (*id >= 0) close(*id);
  *id = -1;
}

/* H5Gcreate2 without modification times, as dset_create: the same run writes the same bytes
 * (by default HDF5 stamps each object with the second it was made). */
static hid_t group_create(hid_t loc, const char *name) {
  hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE), g = -1;
  if (gcpl >= 0 && H5Pset_obj_track_times(gcpl, 0) >= 0) g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
  h5_close_id(&gcpl, H5Pclose);
  return g;
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
 * variable PMESH_H5_PROFILE is set (what the benchmark reports), with the process's minor page
 * faults during the write: on the benchmark machine (a virtual machine) each fresh 4 KiB page
 * costs about 10 us, so they show where MPI, HDF5 or pmesh touched new memory. */
enum { PROF_PREP, PROF_OPEN, PROF_EXCHANGE, PROF_WRITE, PROF_FLUSH, PROF_CLOSE, PROF_XMF, PROF_N };
static double prof_[PROF_N], prof_in_; /* prof_in_: seconds inside the series' calls so far */
static long prof_faults_;              /* minor page faults inside them (a result's two parts
                                        * lie either side of a solve: what is between is not theirs) */

static long minor_faults(void) {
  struct rusage ru;
  return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt : 0;
}

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
 * Buffers from 256 KiB (plans, rounds, exchange buffers) on transparent huge pages where the
 * kernel offers them.  Measured on the benchmark machine (a virtual machine): the first touch
 * of a fresh 4 KiB page costs ~15 us, so 120 MB of fresh buffers cost ~0.5 s, several times the
 * write itself; 2 MiB pages (madvise) cost 0.01-0.19 s per 124 MB depending on the host, hence
 * the rounds, which reuse a few MB.  Free with free(). */

static int big_malloc_(void **ptr, size_t n, size_t size, const char *what, const char *file, int line) {
  const size_t huge = (size_t)2 << 20;
  size_t bytes = n * size;
  *ptr = NULL;
  if (size && n > SIZE_MAX / size) return pm_malloc_(ptr, n, size, what, file, line); /* reports */
  if (bytes < huge / 8) return pm_malloc_(ptr, n, size, what, file, line); /* from 256 KiB: a huge page */
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
  if (bytes > b->size || !b->p) { /* grown at least 2x, to a 2 MiB page at least: few fresh pages */
    size_t want = bytes > 2 * b->size ? bytes : 2 * b->size;
    if (want < ((size_t)2 << 20)) want = (size_t)2 << 20;
    free(b->p);
    b->p = NULL;
    b->size = 0;
    int ierr = big_malloc_(&b->p, want, 1, "HDF5 output buffer", file, line);
    if (ierr) return ierr;
    b->size = want;
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
 * pm_h5's own collectives wait through pm_comm_wait, which gives up the CPU where ranks
 * outnumber CPUs (pm_comm_yields).  The rounds' MPI_Alltoallv stays blocking elsewhere: it
 * moves megabytes, and the blocking call is what the write benchmarks measured.  All of them
 * move or reduce integers, so either call gives the same result. */

static int c_exscan(const void *in, void *out, int n, MPI_Datatype t, MPI_Op op, MPI_Comm comm) {
  MPI_Request q;
  return pm_comm_wait(MPI_Iexscan(in, out, n, t, op, comm, &q), &q);
}

static int c_bcast(void *buf, int n, MPI_Datatype t, int root, MPI_Comm comm) {
  MPI_Request q;
  return pm_comm_wait(MPI_Ibcast(buf, n, t, root, comm, &q), &q);
}

static int c_barrier(MPI_Comm comm) {
  MPI_Request q;
  return pm_comm_wait(MPI_Ibarrier(comm, &q), &q);
}

static int c_alltoall(const void *in, int n, MPI_Datatype t, void *out, MPI_Comm comm) {
  MPI_Request q;
  return pm_comm_wait(MPI_Ialltoall(in, n, t, out, n, t, comm, &q), &q);
}

static int c_alltoallv(const void *in, const int *sc, const int *sd, void *out, const int *rc, const int *rd,
                       MPI_Datatype t, MPI_Comm comm) {
  MPI_Request q;
  if (!pm_comm_yields()) return MPI_Alltoallv(in, sc, sd, t, out, rc, rd, t, comm);
  return pm_comm_wait(MPI_Ialltoallv(in, sc, sd, t, out, rc, rd, t, comm, &q), &q);
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
  PM_CALL_MPI(pm_comm_allreduce(mine, all, 4, MPI_UINT64_T, MPI_SUM, comm));
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
 * Redistribution plan: items with global positions -> the ranks holding those positions, in
 * rounds.  Rank r's slab is [lo_r, lo_r + cnt_r); round c brings it slab rows [cK, (c+1)K)
 * (K rows per round, the same on every rank), which are written as soon as they arrive.  The
 * buffers of one round are a few MB, reused by every round and every dataset: they stay mapped
 * and warm.  (On the benchmark machine, a virtual machine, the first touch of fresh memory costs
 * 0.01-0.19 s per 124 MB depending on the host, and the old whole-slab buffers paid it on every
 * run; see tools/bench_h5.sh.) */

/* Slab rows per round: 0.75 MB of coordinates, which stay in cache between the exchange and
 * the write (measured: 4x the rows made the dataset writes 2x slower).  A row within a round is
 * a uint16_t, so at most 65536 rows. */
enum { ROWS_DEFAULT = 1 << 15, ROWS_MAX = 1 << 16 };
typedef uint16_t xrow_t;

/* A narrow dataset moves several rounds per exchange and per H5Dwrite: up to WRITE_ROW_BYTES
 * per round row, 2 MiB per write with the default rounds (and, with a few rows per round as in
 * the tests, groups of a few rounds).  Fewer collective calls: at np = 2 the 1M-node mesh took
 * 190 H5Dwrite calls per rank, now 40, and the write 0.130 -> 0.120 s in one loop and
 * 0.127 -> 0.124 s in another (medians of 11, same loop; 1 and 2 MiB per write alike). */
enum { WRITE_ROW_BYTES = 64 };

/* Rows per round: ROWS_DEFAULT, or rank 0's PMESH_H5_ROWS (the tests use a few; xplan_create
 * keeps it within [1, ROWS_MAX]).  Collective. */
static int rows_per_round(MPI_Comm comm, int64_t *rows) {
  int ierr = PM_OK, rank;
  const char *env = getenv("PMESH_H5_ROWS");
  MPI_Comm_rank(comm, &rank);
  *rows = ROWS_DEFAULT;
  if (rank == 0 && env && atoll(env) > 0) *rows = atoll(env);
  MPI_TRY(c_bcast(rows, 1, MPI_INT64_T, 0, comm));
cleanup:
  return ierr;
}

typedef struct xplan {
  int nranks, rank;
  int64_t n_global, lo, cnt; /* this rank's slab [lo, lo + cnt) */
  int64_t K;                 /* slab rows per round */
  int nrounds;               /* the same on every rank */
  int32_t n_mine;            /* items contributed by this rank */
  const int64_t *pos;        /* item k's global position is pos[src(k)] */
  const int32_t *src;        /* item k's index in the caller's arrays (NULL: k itself) */
  int32_t *order;            /* [n_mine] items by increasing position (NULL: they are in order) */
  int *sseg;                 /* [p nrounds + 1]: first item (in order) for rank r in round c, at r nrounds + c */
  int *rseg;                 /* [p nrounds + 1]: first of roff brought from rank s in round c, at s nrounds + c */
  int32_t n_recv;
  xrow_t *roff; /* [n_recv] row in its round of each item received (as received) */
  int identity; /* on every rank item k is slab row k and src(k) == k */
} xplan_t;

static int64_t slab_lo(int64_t n, int p, int r) { return (n / p) * r + (n % p) * r / p; }

/* Rows of rounds c..c+m-1 in this rank's slab. */
static int64_t round_rows(const xplan_t *pl, int c, int m) {
  int64_t first = (int64_t)c * pl->K, n = (int64_t)m * pl->K;
  return first >= pl->cnt ? 0 : (pl->cnt - first < n ? pl->cnt - first : n);
}

static inline int32_t xitem(const xplan_t *pl, int32_t i) {
  return pl->order ? pl->order[i] : i;
}
static inline int64_t xpos(const xplan_t *pl, int32_t it) {
  return pl->pos[pl->src ? pl->src[it] : it];
}

static void xplan_free(xplan_t *pl) {
  free(pl->order);
  free(pl->sseg);
  free(pl->rseg);
  free(pl->roff);
  memset(pl, 0, sizeof *pl);
}

typedef struct gk {
  int64_t g;
  int32_t k;
} gk_t;

static int gk_cmp(const void *a, const void *b) {
  const gk_t *x = a, *y = b;
  return (x->g > y->g) - (x->g < y->g);
}

/* Items in plan order to segments: segment q = (rank r, round c) holds the positions
 * [b(q), b(q + 1)), b(q) = min(lo_r + cK, lo_r+1); sseg[q] is its first item and srow[i] item i's
 * row in its round.  Returns 1; 0 at the first position smaller than the one before (the items
 * are not in order: sort them and call again); -1 at the first outside [0, n_global) (*bad). */
static int xplan_assign(xplan_t *pl, xrow_t *srow, int64_t *bad) {
  int p = pl->nranks, nseg = p * pl->nrounds;
  int32_t i = 0;
  int64_t prev = 0;
  for (int q = 0; q < nseg; q++) {
    int r = q / pl->nrounds, c = q % pl->nrounds;
    int64_t lr = slab_lo(pl->n_global, p, r), hr = slab_lo(pl->n_global, p, r + 1);
    int64_t b = lr + (int64_t)c * pl->K < hr ? lr + (int64_t)c * pl->K : hr;
    int64_t e = hr - b > pl->K ? b + pl->K : hr;
    pl->sseg[q] = i;
    for (; i < pl->n_mine; i++) {
      int64_t g = xpos(pl, xitem(pl, i));
      if (g < 0 || g >= pl->n_global) {
        *bad = g;
        return -1;
      }
      if (g < prev) return 0;
      prev = g;
      if (g >= e) break;
      srow[i] = (xrow_t)(g - b);
    }
  }
  pl->sseg[nseg] = pl->n_mine;
  return 1;
}

/* Build the plan for items at positions pos[src(k)], k < n_mine, moved K slab rows per round
 * (K >= every slab: one round).  exact: every position of the slab must arrive exactly once
 * (PM_ERR_INCONSISTENT otherwise).  Collective; not agreed: the caller agrees. */
static int xplan_create(MPI_Comm comm, int64_t n_global, int32_t n_mine, const int64_t *pos, const int32_t *src,
                        int64_t K, int exact, const char *what, scratch_t *sx, xplan_t *pl) {
  int ierr = PM_OK, rank, p;
  int *sc = NULL, *rc = NULL, *sd = NULL, *rd = NULL;
  xrow_t *srow = NULL;
  gk_t *pairs = NULL;
  uint8_t *seen = NULL;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &p);
  memset(pl, 0, sizeof *pl);
  pl->nranks = p;
  pl->rank = rank;
  pl->n_global = n_global;
  pl->n_mine = n_mine;
  pl->pos = pos;
  pl->src = src;
  pl->lo = slab_lo(n_global, p, rank);
  pl->cnt = slab_lo(n_global, p, rank + 1) - pl->lo;
  pl->K = K < 1 ? 1 : K > ROWS_MAX ? ROWS_MAX : K;
  {
    int64_t most = n_global / p + (n_global % p != 0); /* the largest slab */
    int64_t nr = most > 0 ? (most - 1) / pl->K + 1 : 1;
    if (nr > INT_MAX / (p + 1) - 1 || most > INT32_MAX) nr = 0; /* reported below, on every rank alike */
    pl->nrounds = (int)nr;
  }
  PM_CHECK(pl->nrounds > 0, PM_ERR_UNSUPPORTED,
           "%" PRId64 " %s rows on %d ranks in rounds of %" PRId64 ": too many rounds or rows per rank; use more ranks",
           n_global, what, p, pl->K);
  {
    /* The common case first (one rank; or ranks owning consecutive runs of the global order that
     * match the slabs): item k is slab row k everywhere, and there is nothing to exchange. */
    int id = (int64_t)n_mine == pl->cnt, all = 0;
    for (int32_t k = 0; k < n_mine && id; k++) id = (!src || src[k] == k) && pos[k] == pl->lo + k;
    MPI_TRY(pm_comm_allreduce(&id, &all, 1, MPI_INT, MPI_MIN, comm));
    if (all) {
      pl->identity = 1;
      return PM_OK;
    }
  }
  /* Local phase: each item's segment and row, in one pass over the positions when the owners
   * list their items in global order (the usual case), else after sorting them; its errors are
   * agreed before the first exchange so that no rank waits. */
  int nseg = p * pl->nrounds;
  ierr = PM_MALLOC(pl->sseg, nseg + 1, "exchange plan");
  if (!ierr) ierr = PM_MALLOC(pl->rseg, nseg + 1, "exchange plan");
  if (!ierr) ierr = PM_MALLOC(sc, 4 * (size_t)p + 2, "exchange counts");
  if (!ierr) ierr = SCRATCH_GET(sx, sizeof(xrow_t) * (size_t)(n_mine > 0 ? n_mine : 1), srow); /* warm later */
  if (!ierr) {
    rc = sc + p;
    sd = rc + p;
    rd = sd + p + 1;
    int64_t bad = 0;
    int done = xplan_assign(pl, srow, &bad);
    if (done == 0) { /* not in global order: sort, then again */
      ierr = BIG_MALLOC(pairs, n_mine, "exchange plan");
      if (!ierr) ierr = BIG_MALLOC(pl->order, n_mine, "exchange plan");
      if (!ierr) {
        for (int32_t k = 0; k < n_mine; k++) pairs[k] = (gk_t){pos[src ? src[k] : k], k};
        qsort(pairs, (size_t)n_mine, sizeof *pairs, gk_cmp);
        for (int32_t k = 0; k < n_mine; k++) pl->order[k] = pairs[k].k;
        done = xplan_assign(pl, srow, &bad);
      }
    }
    if (!ierr && done < 0)
      ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                          "rank %d: %s position %" PRId64 " is outside the global range [0, %" PRId64
                          "): local mesh and partition.meta disagree",
                          rank, what, bad, n_global);
  }
  PM_TRY(pm_comm_agree(comm, ierr));
  /* What comes from whom in which round, then the rows themselves. */
  {
    int *mine = NULL, nr = pl->nrounds;
    ierr = PM_MALLOC(mine, nseg, "exchange counts");
    PM_TRY(pm_comm_agree(comm, ierr));
    for (int q = 0; q < nseg; q++) mine[q] = pl->sseg[q + 1] - pl->sseg[q];    /* destination-major */
    int mpierr = c_alltoall(mine, nr, MPI_INT, pl->rseg, comm);                /* counts, source-major */
    free(mine);
    if (mpierr != MPI_SUCCESS) {
      ierr = pm_mpi_error(mpierr, __FILE__, __LINE__, "MPI_Alltoall (exchange counts)");
      goto cleanup;
    }
    int64_t total = 0;
    sd[0] = rd[0] = 0;
    for (int r = 0; r < p; r++) {
      sc[r] = pl->sseg[(r + 1) * nr] - pl->sseg[r * nr];
      sd[r + 1] = sd[r] + sc[r];
      int64_t from_r = 0;
      for (int c = 0; c < nr; c++) {
        int n = pl->rseg[r * nr + c];
        pl->rseg[r * nr + c] = (int)(total + from_r < INT_MAX ? total + from_r : INT_MAX); /* counts -> starts */
        from_r += n;
      }
      rc[r] = (int)(from_r < INT_MAX ? from_r : INT_MAX);
      total += from_r;
      rd[r + 1] = (int)(total < INT_MAX ? total : INT_MAX);
    }
    pl->rseg[nseg] = (int)(total < INT_MAX ? total : INT_MAX);
    if (total > INT_MAX)
      ierr = pm_error_set(PM_ERR_UNSUPPORTED, __FILE__, __LINE__,
                          "rank %d: more than %d %s items to write on one rank; use more ranks", rank, INT_MAX, what);
    pl->n_recv = ierr ? 0 : (int32_t)total;
    if (!ierr) ierr = BIG_MALLOC(pl->roff, pl->n_recv > 0 ? pl->n_recv : 1, "exchange plan");
    PM_TRY(pm_comm_agree(comm, ierr));
  }
  MPI_TRY(c_alltoallv(srow, sc, sd, pl->roff, rc, rd, MPI_UINT16_T, comm));
  if (exact) {
    int64_t most = round_rows(pl, 0, 1);
    PM_TRY(PM_MALLOC(seen, most > 0 ? most : 1, "exchange check"));
    for (int c = 0; c < pl->nrounds; c++) {
      int64_t rows = round_rows(pl, c, 1);
      memset(seen, 0, (size_t)(most > 0 ? most : 1));
      for (int s = 0; s < p; s++)
        for (int j = pl->rseg[s * pl->nrounds + c]; j < pl->rseg[s * pl->nrounds + c + 1]; j++) {
          int32_t o = pl->roff[j];
          PM_TRY_CHECK(o >= 0 && o < rows && !seen[o], PM_ERR_INCONSISTENT,
                       "%s %" PRId64 " is owned by more than one rank: local meshes from different partitions?", what,
                       pl->lo + (int64_t)c * pl->K + o);
          seen[o] = 1;
        }
      for (int64_t o = 0; o < rows; o++)
        PM_TRY_CHECK(seen[o], PM_ERR_INCONSISTENT,
                     "%s %" PRId64 " (of %" PRId64
                     ") is owned by no rank: local meshes from different partitions, "
                     "or not all of them loaded?",
                     what, pl->lo + (int64_t)c * pl->K + o, n_global);
    }
  }
cleanup:
  free(sc);
  free(pairs);
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

/* How a round reads items computed on the fly: items i = a..b-1 of the plan's order (item
 * xitem(pl, i)) to rows of w bytes, row i - a of dst (to == NULL) or row to[i - a]. */
struct xplan;
typedef void (*xget_t)(const void *ctx, const struct xplan *pl, int a, int b, char *dst, const xrow_t *to, int w);

/* What a round carries: the items' data (data[src(it)] or get(ctx, it), width bytes each), or
 * with SOURCES the rank each row comes from (int32; nothing is sent).  get32 (optional, with
 * get): the same rows of int64 as int32 (width / 2 bytes), for the items that travel to other
 * ranks; they are widened on arrival.  Half the bytes to pack, move and unpack. */
typedef struct xsrc {
  int width;
  const void *data;
  xget_t get;
  const void *ctx;
  int sources;
  xget_t get32;
} xsrc_t;

/* dst row roff[j] = src row j, j < n (rows of w bytes; the usual widths become plain moves). */
static void rows_scatter(char *dst, const xrow_t *roff, const char *src, int32_t n, int w) {
#define SCATTER_(W) \
  for (int32_t j = 0; j < n; j++) memcpy(dst + (size_t)roff[j] * (W), src + (size_t)j * (W), (W))
  switch (w) {
    case 4:
      SCATTER_(4);
      break;
    case 8:
      SCATTER_(8);
      break;
    case 24:
      SCATTER_(24);
      break;
    case 32:
      SCATTER_(32);
      break;
    case 40:
      SCATTER_(40);
      break;
    default:
      SCATTER_((size_t)w);
  }
#undef SCATTER_
}

/* dst row roff[j] = src row j widened, j < n (rows of nc int32 -> nc int64). */
static void rows_widen(char *dst, const xrow_t *roff, const char *src, int32_t n, int nc) {
  const int32_t *in = (const int32_t *)(const void *)src;
  for (int32_t j = 0; j < n; j++, in += nc) {
    int64_t *o = (int64_t *)(void *)(dst + (size_t)roff[j] * nc * sizeof(int64_t));
    for (int v = 0; v < nc; v++) o[v] = in[v];
  }
}

/* Items a..b-1 of the plan's order into dst: row j (to == NULL) or row to[j] (j = i - a). */
static void x_pack(const xplan_t *pl, const xsrc_t *x, int a, int b, char *dst, const xrow_t *to) {
  int w = x->width;
  const char *d = x->data;
  if (x->get) {
    x->get(x->ctx, pl, a, b, dst, to, w);
    return;
  }
  if (!pl->order && !pl->src) { /* items a..b-1 are consecutive in the data */
    if (to)
      rows_scatter(dst, to, d + (size_t)a * w, b - a, w);
    else
      memcpy(dst, d + (size_t)a * w, (size_t)(b - a) * w);
    return;
  }
#define GATHER_(W)                                                                                             \
  for (int i = a; i < b; i++) {                                                                                \
    int32_t it = xitem(pl, i);                                                                                 \
    memcpy(dst + (size_t)(to ? to[i - a] : i - a) * (W), d + (size_t)(pl->src ? pl->src[it] : it) * (W), (W)); \
  }
  switch (w) {
    case 4:
      GATHER_(4);
      break;
    case 8:
      GATHER_(8);
      break;
    case 24:
      GATHER_(24);
      break;
    default:
      GATHER_((size_t)w);
  }
#undef GATHER_
}

/* Rounds c..c+m-1: this rank's slab rows [cK, cK + *rows) into the chunk buffer, *out, with one
 * exchange.  Copied even from an identity plan: write() reads a small warm chunk faster than
 * large user arrays.  Collective unless the plan is the identity. */
static int xplan_round(MPI_Comm comm, const xplan_t *pl, int c, int m, const xsrc_t *x, scratch_t *chunk, scratch_t *sx,
                       const void **out, int64_t *rows) {
  int ierr = PM_OK, p = pl->nranks, me = pl->rank, w = x->width, nr = pl->nrounds;
  char *buf = NULL, *sbuf = NULL, *rbuf = NULL;
  int *sc = NULL;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  const char *d = x->data;
  double t0 = prof_now();
  int64_t first = (int64_t)c * pl->K;
  if (m > nr - c) m = nr - c;
  *rows = round_rows(pl, c, m);
  *out = NULL;
  if (pl->identity) {
    PM_TRY(SCRATCH_GET(chunk, (size_t)(*rows > 0 ? *rows : 1) * w, buf));
    if (x->sources)
      for (int64_t k = 0; k < *rows; k++) ((int32_t *)buf)[k] = me;
    else if (x->get)
      x->get(x->ctx, pl, (int)first, (int)(first + *rows), buf, NULL, w);
    else
      memcpy(buf, d + first * w, (size_t)(*rows * w));
    *out = buf;
    goto cleanup;
  }
  ierr = SCRATCH_GET(chunk, (size_t)(*rows > 0 ? *rows : 1) * w, buf);
  if (x->sources) {
    if (!ierr)
      for (int j = 0; j < m; j++) {
        int32_t *to = (int32_t *)buf + (size_t)j * pl->K;
        for (int s = 0; s < p; s++)
          for (int i = pl->rseg[s * nr + c + j]; i < pl->rseg[s * nr + c + j + 1]; i++) to[pl->roff[i]] = s;
      }
    *out = buf;
    goto cleanup; /* local: the caller agrees */
  }
  int64_t nsend = 0, nrecv = 0;
  for (int r = 0; r < p; r++)
    if (r != me) {
      nsend += pl->sseg[r * nr + c + m] - pl->sseg[r * nr + c];
      nrecv += pl->rseg[r * nr + c + m] - pl->rseg[r * nr + c];
    }
  int tw = x->get32 ? w / 2 : w; /* bytes of an item in transit */
  size_t sbytes = ((size_t)nsend * tw + 63) / 64 * 64;
  char *xb = NULL;
  if (!ierr) ierr = SCRATCH_GET(sx, sbytes + (size_t)nrecv * tw + 1, xb);
  if (!ierr) ierr = PM_MALLOC(sc, 4 * (size_t)p + 2, "exchange counts");
  if (!ierr) ierr = byte_type(tw, &t);
  STEP(comm, ierr);
  sbuf = xb;
  rbuf = xb + sbytes;
  int *rc = sc + p, *sd = rc + p, *rd = sd + p + 1;
  sd[0] = rd[0] = 0;
  for (int r = 0; r < p; r++) {
    int a = pl->sseg[r * nr + c], b = pl->sseg[r * nr + c + m];
    sc[r] = r == me ? 0 : b - a;
    rc[r] = r == me ? 0 : pl->rseg[r * nr + c + m] - pl->rseg[r * nr + c];
    sd[r + 1] = sd[r] + sc[r];
    rd[r + 1] = rd[r] + rc[r];
    if (r != me) { /* items for rank r's rounds: into the send buffer */
      if (x->get32)
        x->get32(x->ctx, pl, a, b, sbuf + (size_t)sd[r] * tw, NULL, tw);
      else
        x_pack(pl, x, a, b, sbuf + (size_t)sd[r] * w, NULL);
      continue;
    }
    for (int j = 0; j < m; j++) /* this rank's own: straight to their rows, a round at a time */
      x_pack(pl, x, pl->sseg[me * nr + c + j], pl->sseg[me * nr + c + j + 1], buf + (size_t)j * pl->K * w,
             pl->roff + pl->rseg[me * nr + c + j]);
  }
  MPI_TRY(c_alltoallv(sbuf, sc, sd, rbuf, rc, rd, t, comm));
  for (int s = 0; s < p; s++)
    if (s != me)
      for (int j = 0; j < m; j++) { /* rank s's items arrive round after round */
        int i0 = pl->rseg[s * nr + c + j], i1 = pl->rseg[s * nr + c + j + 1];
        const char *in = rbuf + ((size_t)rd[s] + (size_t)(i0 - pl->rseg[s * nr + c])) * tw;
        if (x->get32)
          rows_widen(buf + (size_t)j * pl->K * w, pl->roff + i0, in, i1 - i0, w / (int)sizeof(int64_t));
        else
          rows_scatter(buf + (size_t)j * pl->K * w, pl->roff + i0, in, i1 - i0, w);
      }
  *out = buf;
cleanup:
  if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  free(sc);
  prof_[PROF_EXCHANGE] += prof_now() - t0;
  return ierr;
}

/* Slab -> items (the reverse): data[src(k)] = slab[position(k) - lo], the whole slab at once. */
static int xplan_backward(MPI_Comm comm, const xplan_t *pl, int width, const void *slab, void *data) {
  int ierr = PM_OK, p = pl->nranks;
  char *sbuf = NULL, *rbuf = NULL;
  int *sc = NULL;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (pl->identity) {
    if (pl->cnt > 0) memcpy(data, slab, (size_t)pl->cnt * width);
    return PM_OK;
  }
  ierr = BIG_MALLOC(sbuf, (size_t)(pl->n_recv > 0 ? pl->n_recv : 1) * width, "exchange buffer");
  if (!ierr) ierr = BIG_MALLOC(rbuf, (size_t)(pl->n_mine > 0 ? pl->n_mine : 1) * width, "exchange buffer");
  if (!ierr) ierr = PM_MALLOC(sc, 4 * (size_t)p, "exchange counts");
  if (!ierr) ierr = byte_type(width, &t);
  STEP(comm, ierr);
  int *sd = sc + p, *rc = sd + p, *rd = rc + p, nr = pl->nrounds; /* received rows -> their owners */
  for (int r = 0; r < p; r++) {
    sd[r] = pl->rseg[r * nr];
    sc[r] = pl->rseg[(r + 1) * nr] - pl->rseg[r * nr];
    rd[r] = pl->sseg[r * nr];
    rc[r] = pl->sseg[(r + 1) * nr] - pl->sseg[r * nr];
  }
  for (int q = 0; q < p * nr; q++) { /* q = (source, round) */
    const char *from = (const char *)slab + (size_t)(q % nr) * pl->K * width;
    for (int32_t k = pl->rseg[q]; k < pl->rseg[q + 1]; k++)
      memcpy(sbuf + (size_t)k * width, from + (size_t)pl->roff[k] * width, (size_t)width);
  }
  MPI_TRY(c_alltoallv(sbuf, sc, sd, rbuf, rc, rd, t, comm));
  for (int32_t k = 0; k < pl->n_mine; k++) {
    int32_t it = xitem(pl, k);
    memcpy((char *)data + (size_t)(pl->src ? pl->src[it] : it) * width, rbuf + (size_t)k * width, (size_t)width);
  }
cleanup:
  if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  free(sc);
  free(sbuf);
  free(rbuf);
  return ierr;
}

/* ------------------------------------------------------------------------------------------
 * Writing datasets */

/* Write-behind: a thread that makes the bytes written so far durable (fdatasync) while the
 * rounds go on, so that the final flush finds little left to do.  Measured on the benchmark
 * machine (a virtual machine): an fsync after 124 MB costs ~0.05 s however long ago the kernel
 * began writing them back (sync_file_range), and the same again after a pause; what
 * shortens it is an earlier fsync, which the host then completes while the writes continue.
 * Advice only: the thread ignores errors, since the final flush (MPI_File_sync) makes the file
 * durable and reports them (Linux >= 4.13 reports a writeback error to every descriptor open
 * when it happened, not only to the first that syncs).  No MPI or HDF5 call on the thread. */
typedef struct wb {
  int fd;      /* the temporary file, read-only (-1: no write-behind) */
  int running; /* the thread was started */
  thrd_t th;
  mtx_t mu;
  cnd_t cv;
  int64_t step;    /* bytes between syncs */
  int64_t written; /* bytes this rank handed to HDF5 so far (under mu) */
  int64_t synced;  /* written when the last sync began (under mu) */
  int stop;        /* under mu */
} wb_t;

typedef struct h5out {
  hid_t file, dxpl;
  const char *path; /* final name, for messages */
  wb_t *wb;         /* NULL: no write-behind */
} h5out_t;

static int wb_run(void *arg) {
  wb_t *wb = arg;
  mtx_lock(&wb->mu);
  for (;;) {
    while (!wb->stop && wb->written - wb->synced < wb->step) cnd_wait(&wb->cv, &wb->mu);
    if (wb->stop) break;
    wb->synced = wb->written;
    mtx_unlock(&wb->mu);
    (void)fdatasync(wb->fd);
    mtx_lock(&wb->mu);
  }
  mtx_unlock(&wb->mu);
  return 0;
}

/* Open path and start the thread; without either, no write-behind (fd -1). */
static void wb_begin(wb_t *wb, const char *path, int64_t step) {
  memset(wb, 0, sizeof *wb);
  wb->fd = open(path, O_RDONLY | O_CLOEXEC);
  wb->step = step;
  if (wb->fd < 0) return;
  if (mtx_init(&wb->mu, mtx_plain) != thrd_success) goto fail;
  if (cnd_init(&wb->cv) != thrd_success) {
    mtx_destroy(&wb->mu);
    goto fail;
  }
  if (thrd_create(&wb->th, wb_run, wb) == thrd_success) {
    wb->running = 1;
    return;
  }
  cnd_destroy(&wb->cv);
  mtx_destroy(&wb->mu);
fail:
  close(wb->fd);
  wb->fd = -1;
}

/* Stop the thread (after the sync it is in, if any) and close the file.  Idempotent. */
static void wb_end(wb_t *wb) {
  if (wb->running) {
    mtx_lock(&wb->mu);
    wb->stop = 1;
    cnd_signal(&wb->cv);
    mtx_unlock(&wb->mu);
    thrd_join(wb->th, NULL);
    cnd_destroy(&wb->cv);
    mtx_destroy(&wb->mu);
    wb->running = 0;
  }
  if (wb->fd >= 0) close(wb->fd);
  wb->fd = -1;
}

/* bytes more were written: wake the thread when a step's worth is waiting. */
static void wb_note(wb_t *wb, int64_t bytes) {
  if (!wb || !wb->running || bytes <= 0) return;
  mtx_lock(&wb->mu);
  wb->written += bytes;
  if (wb->written - wb->synced >= wb->step) cnd_signal(&wb->cv);
  mtx_unlock(&wb->mu);
}

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

/* Create dataset loc/name of [n_global] (ncols == 0) or [n_global x ncols], without fill
 * values (every element is written once; filling first would double the I/O).  Collective when
 * the file is parallel. */
static int dset_create(hid_t loc, const char *name, hid_t ftype, int ncols, int64_t n_global, const char *center,
                       const char *where, hid_t *ds) {
  int ierr = PM_OK, nd = ncols > 0 ? 2 : 1;
  hid_t fs = -1, dcpl = -1;
  hsize_t dims[2] = {(hsize_t)n_global, (hsize_t)ncols};
  *ds = -1;
  H5_TRY(fs = H5Screate_simple(nd, dims, NULL), "H5Screate_simple for %s", where);
  H5_TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "H5Pcreate for %s", where);
  H5_TRY(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "H5Pset_fill_time for %s", where);
  H5_TRY(H5Pset_obj_track_times(dcpl, 0), "H5Pset_obj_track_times for %s", where);
  H5_WATCH("HDF5 creating %s", where);
  H5_TRY(*ds = H5Dcreate2(loc, name, ftype, fs, H5P_DEFAULT, dcpl, H5P_DEFAULT), "creating %s", where);
  if (center) PM_TRY(write_str_attr(*ds, "center", center, where));
cleanup:
  if (ierr) h5_close_id(ds, H5Dclose);
  h5_close_id(&dcpl, H5Pclose);
  h5_close_id(&fs, H5Sclose);
  return ierr;
}

/* Rows [lo, lo + cnt) of dataset ds from buf; a rank with cnt == 0 still takes part (empty
 * selection).  Collective when the file is parallel. */
static int dset_put(const h5out_t *o, hid_t ds, hid_t mtype, int ncols, int64_t lo, int64_t cnt, const void *buf,
                    const char *where) {
  int ierr = PM_OK, nd = ncols > 0 ? 2 : 1;
  hid_t fs = -1, ms = -1;
  hsize_t start[2] = {(hsize_t)lo, 0}, count[2] = {(hsize_t)cnt, (hsize_t)ncols};
  static const char dummy[8];
  double t = prof_now();
  H5_TRY(fs = H5Dget_space(ds), "H5Dget_space for %s", where);
  if (cnt > 0) {
    H5_TRY(H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL), "selecting rows of %s", where);
    H5_TRY(ms = H5Screate_simple(nd, count, NULL), "H5Screate_simple for %s", where);
  } else {
    hsize_t one[2] = {1, 1};
    H5_TRY(H5Sselect_none(fs), "H5Sselect_none for %s", where);
    H5_TRY(ms = H5Screate_simple(nd, one, NULL), "H5Screate_simple for %s", where);
    H5_TRY(H5Sselect_none(ms), "H5Sselect_none for %s", where);
  }
  H5_WATCH("HDF5 writing %s", where);
  H5_TRY(H5Dwrite(ds, mtype, ms, fs, o->dxpl, cnt > 0 ? buf : dummy), "writing %s", where);
  wb_note(o->wb, cnt * (int64_t)H5Tget_size(mtype) * (ncols > 0 ? ncols : 1));
cleanup:
  h5_close_id(&ms, H5Sclose);
  h5_close_id(&fs, H5Sclose);
  prof_[PROF_WRITE] += prof_now() - t;
  return ierr;
}

/* Dataset of [n_global (x ncols)] written at once: rows [lo, lo + cnt) from buf (the serial
 * partition view).  Collective when the file is parallel. */
static int write_slab(const h5out_t *o, hid_t loc, const char *gname, const char *name, hid_t ftype, hid_t mtype,
                      int ncols, int64_t n_global, int64_t lo, int64_t cnt, const void *buf, const char *center) {
  int ierr = PM_OK;
  hid_t ds = -1;
  char where[300];
  snprintf(where, sizeof where, "dataset %s/%s of %s", gname, name, o->path);
  PM_TRY(dset_create(loc, name, ftype, ncols, n_global, center, where, &ds));
  PM_TRY(dset_put(o, ds, mtype, ncols, lo, cnt, buf, where));
cleanup:
  h5_close_id(&ds, H5Dclose);
  return ierr;
}

static const char *const conn_names[4] = {NULL, "lines", "triangles", "quadrangles"};

/* n elements in transit (ELEM_W int64 each: Gmsh type, then node positions, -1 padded) -> rows
 * per type (rows[t], nv columns; NULL for a type not written) and, where rows of triangles and
 * quadrangles mix, XDMF's mixed list (type code, nodes).  cnt[t] and *mlen: what was added. */
static void elem_split(const int64_t *items, int64_t n, int64_t *const rows[4], int64_t *mixed, int64_t cnt[4],
                       int64_t *mlen) {
  int64_t m = 0;
  memset(cnt, 0, 4 * sizeof *cnt);
  for (int64_t k = 0; k < n; k++, items += ELEM_W) {
    int t = (int)items[0], nv = pm_msh_type_nodes(t);
    if (rows[t]) memcpy(rows[t] + cnt[t] * nv, items + 1, sizeof(int64_t) * (size_t)nv);
    cnt[t]++;
    if (mixed) {
      mixed[m++] = t == PM_MSH_TRI ? 4 : 5; /* XDMF cell type codes */
      memcpy(mixed + m, items + 1, sizeof(int64_t) * (size_t)nv);
      m += nv;
    }
  }
  *mlen = m;
}

/* Connectivity of the n elements of a whole mesh (items as for elem_split; ttot: per type),
 * written at once: the serial partition view. */
static int write_connectivity(const h5out_t *o, hid_t g, const int64_t *items, int64_t n, const int64_t ttot[4],
                              scratch_t *sb) {
  int ierr = PM_OK, mixed = ttot[PM_MSH_TRI] > 0 && ttot[PM_MSH_QUAD] > 0;
  int64_t *buf = NULL, *rows[4] = {NULL, NULL, NULL, NULL}, cnt[4], mlen = 0, at = 0;
  int64_t mtot = mixed ? 4 * ttot[PM_MSH_TRI] + 5 * ttot[PM_MSH_QUAD] : 0;
  for (int t = PM_MSH_LINE; t <= PM_MSH_QUAD; t++) at += ttot[t] * pm_msh_type_nodes(t);
  PM_TRY(SCRATCH_GET(sb, sizeof(int64_t) * (size_t)(at + mtot + 1), buf));
  at = 0;
  for (int t = PM_MSH_LINE; t <= PM_MSH_QUAD; t++)
    if (ttot[t] > 0) {
      rows[t] = buf + at;
      at += ttot[t] * pm_msh_type_nodes(t);
    }
  elem_split(items, n, rows, mixed ? buf + at : NULL, cnt, &mlen);
  for (int t = PM_MSH_LINE; t <= PM_MSH_QUAD; t++)
    if (ttot[t] > 0)
      PM_TRY(write_slab(o, g, "/mesh", conn_names[t], H5T_STD_I64LE, H5T_NATIVE_INT64, pm_msh_type_nodes(t), ttot[t], 0,
                        cnt[t], rows[t], NULL));
  if (mixed)
    PM_TRY(write_slab(o, g, "/mesh", "mixed", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, mtot, 0, mlen, buf + at, NULL));
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
  int rank, nranks, single, failed; /* single: 1 a single result (pm_h5_result_create), 2 written */
  unsigned long h5_errors0; /* h5_errors when the series began */
  const pm_local_t *local;
  const pm_meta_t *meta;
  hid_t file, dxpl;
  wb_t wb; /* write-behind on the temporary file (fd -1: none) */
  char *h5path, *xmfpath, *h5tmp, *xmftmp;
  xplan_t np, ep;   /* nodes (internal), elements (owned) */
  scratch_t chunk, xbuf, conv; /* a round's rows, its exchange buffers, its connectivity by type */
  int32_t *esel;               /* owned elements' local indices (NULL: every local element is owned) */
  uint64_t mesh_fp;
  xinfo_t x;
  int xcap, tcap;
};

/* Write-behind on one rank per node (the node's ranks share its page cache, and fdatasync covers
 * the whole file), syncing each time it has written its share of WB_NODE_STEP more bytes; off
 * with PMESH_H5_WRITE_BEHIND=0.  Collective.  Medians of 11 runs of the 1M-node write, same
 * loop, by MB of the node between syncs: np = 1, 16/32 MB: 0.110/0.116 s; np = 2, 8/16/32 MB:
 * 0.134/0.129/0.136 s.  (On the benchmark VM an fdatasync costs about 0.3 ms + 0.65 ms per MB.
 * 4 MB steps looked 5-9% faster at np = 2 in four loops of 11-15 runs and slower in the next
 * two, 25 runs: 0.1115 s against 0.1098 s for 16 MB: noise.) */
enum { WB_NODE_STEP = 16 << 20 };

/* pm_h5's own helper threads (write-behind, the XDMF job) run only where MPI allows threads
 * beside the one that calls it: MPI_THREAD_FUNNELED or more (MPI_Init gives MPICH's default,
 * MPI_THREAD_SINGLE).  Without them the file is the same; its write may take longer. */
static int threads_allowed(void) {
  int level = MPI_THREAD_SINGLE;
  return MPI_Query_thread(&level) == MPI_SUCCESS && level >= MPI_THREAD_FUNNELED;
}

static int wb_setup(pm_h5_series_t *s) {
  int ierr = PM_OK, local = 0, nlocal = 1;
  MPI_Comm node = MPI_COMM_NULL;
  const char *env = getenv("PMESH_H5_WRITE_BEHIND");
  MPI_TRY(MPI_Comm_split_type(s->comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  MPI_Comm_rank(node, &local);
  MPI_Comm_size(node, &nlocal);
  if (local == 0 && threads_allowed() && !(env && strcmp(env, "0") == 0))
    wb_begin(&s->wb, s->h5tmp, WB_NODE_STEP / nlocal);
cleanup:
  if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  return ierr;
}

static int series_fail(pm_h5_series_t *s, int ierr) {
  if (ierr) s->failed = 1;
  return ierr;
}

/* Remove the temporaries (rank 0), after every rank closed the file.  Collective (after an
 * agreed error).  When an HDF5 call on the open file failed on some rank (a full disk, an I/O
 * error), HDF5 cannot close it: with collective metadata writes the ranks end up in different
 * collective calls inside H5Fclose and none returns; with independent ones H5Fclose fails and
 * HDF5's own clean-up at MPI_Finalize crashes (both seen with Debian's HDF5 1.10).  No orderly
 * end is left: the job ends here, the temporaries removed and the previous result kept. */
static void series_discard(pm_h5_series_t *s) {
  if (s->file >= 0) {
    int mine = h5_errors > s->h5_errors0, any = mine;
    pm_comm_allreduce(&mine, &any, 1, MPI_INT, MPI_MAX, s->comm);
    if (any)
      pm_comm_abort(s->comm, "HDF5 cannot close %s after a failed %s%s; ending the job (the previous %s is kept)",
                    s->h5tmp, mine ? "call" : "call on another rank", mine ? " on this rank" : "", s->h5path);
  }
  H5_WATCH("HDF5 closing %s after an error", s->h5tmp ? s->h5tmp : "the result");
  if (s->file >= 0) H5Fclose(s->file);
  s->file = -1;
  wb_end(&s->wb);
  c_barrier(s->comm);
  if (s->rank == 0) {
    if (s->h5tmp) remove(s->h5tmp);
    if (s->xmftmp) remove(s->xmftmp);
  }
}

/* The job is ending (pm_comm_abort or the watchdog): the temporaries go (the result, if any, stays). */
static void series_abort(void *arg) {
  const pm_h5_series_t *s = arg;
  if (s->h5tmp) remove(s->h5tmp);
  if (s->xmftmp) remove(s->xmftmp);
}

static void series_free(pm_h5_series_t **sp) {
  pm_h5_series_t *s = *sp;
  if (!s) return;
  pm_comm_on_abort(NULL, NULL);
  h5_close_id(&s->dxpl, H5Pclose);
  wb_end(&s->wb);
  xplan_free(&s->np);
  xplan_free(&s->ep);
  scratch_free(&s->chunk);
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

/* Local checks before anything collective happens: what a result needs of the local mesh (cells
 * of the mesh's dimension, each with its type's number of nodes).  nown (if not NULL): how many
 * of the elements this rank owns. */
static int check_local(int rank, const pm_local_t *l, const pm_meta_t *meta, int32_t *nown) {
  PM_CHECK(l && meta, PM_ERR_ARG, "pm_h5: NULL local mesh or metadata");
  PM_CHECK(l->has_mesh, PM_ERR_ARG,
           "rank %d: the local mesh has no coordinates or elements (a lecture file with the tables only); "
           "re-partition with partition to get a full local mesh",
           rank);
  PM_CHECK(meta->dim == 1 || meta->dim == 2, PM_ERR_ARG, "partition.meta: dimension %d, expected 1 or 2", meta->dim);
  PM_CHECK(meta->global_nodes > 0 && meta->global_elems > 0, PM_ERR_ARG,
           "partition.meta: %" PRId64 " nodes and %" PRId64 " elements; a result needs both", meta->global_nodes,
           meta->global_elems);
  /* Nodes of a cell by Gmsh type, 0 where the type is no cell of the dimension (one pass over
   * a million elements: no call or switch per element). */
  static const int8_t cell_nodes[2][PM_MSH_QUAD + 1] = {{0, 2, 0, 0}, {0, 0, 3, 4}};
  const int8_t *nodes = cell_nodes[meta->dim - 1];
  const int8_t *type = l->elem_type;
  const int32_t *ptr = l->elem_ptr, *owner = l->elem_owner;
  int32_t own = 0;
  for (int32_t e = 0; e < l->n_elems; e++) {
    int t = type[e], nv = t >= 0 && t <= PM_MSH_QUAD ? nodes[t] : 0;
    if (nv == 0 || ptr[e + 1] - ptr[e] != nv) {
      PM_CHECK(nv != 0, PM_ERR_INCONSISTENT, "rank %d: element %d has Gmsh type %d, not a cell of a %dD mesh", rank, e,
               t, meta->dim);
      PM_CHECK(0, PM_ERR_INCONSISTENT, "rank %d: element %d has %d nodes, its type %d has %d", rank, e,
               ptr[e + 1] - ptr[e], t, nv);
    }
    own += owner[e] == rank;
  }
  if (nown) *nown = own;
  return PM_OK;
}

/* The rows below gather node_index[] at an element's nodes, and Gmsh numbers the nodes of an
 * element far apart (in the 1M-node mesh, 88% of consecutive triangles' first nodes differ by
 * more than 4096): every row waited on three loads from all over an 8 MB array.  A row asks
 * for the entries of the element AHEAD rows on.  Measured on the 1M-node mesh: the triangles'
 * rows at np = 1 took 0.026-0.047 s (7 runs), now 0.011-0.018 s (10 runs); the exchange phase
 * of solve's output (medians of 15, one loop) 0.033 -> 0.017 s at np = 1, 0.026 -> 0.024 s at
 * np = 2.  16 rows ahead gained less (at np = 2 about half as much), 64 to 256 alike. */
enum { AHEAD = 64 };

#if defined(__GNUC__)
#define PREFETCH_(p) __builtin_prefetch(p)
#else
#define PREFETCH_(p) ((void)(p))
#endif

/* Prefetch node_index at the nodes of the element of row i + AHEAD, if that is below b, with
 * the caller's arrays (order, esel, ptr, en, ni: the callers write rows through a char pointer,
 * which could alias any member).  A macro: GCC 12 finds a function that only prefetches to
 * have no effect and deletes its calls. */
#define PREFETCH_NODES_(i)                                                                        \
  do {                                                                                            \
    if (b - (i) > AHEAD) {                                                                        \
      int32_t r_ = (i) + AHEAD;                                                                   \
      int32_t k_ = order ? order[r_] : r_, e_ = esel ? esel[k_] : k_, n_ = ptr[e_ + 1] - ptr[e_]; \
      const int32_t *nd_ = en + ptr[e_];                                                          \
      if (n_ > 0) PREFETCH_(ni + nd_[0]);                                                         \
      if (n_ > 1) PREFETCH_(ni + nd_[1]);                                                         \
      if (n_ > 2) PREFETCH_(ni + nd_[2]);                                                         \
      if (n_ > 3) PREFETCH_(ni + nd_[3]);                                                         \
    }                                                                                             \
  } while (0)

/* Owned elements in transit (an xget_t): type, then the nodes' global positions (-1 pads). */
static void elem_get(const void *ctx, const xplan_t *pl, int a, int b, char *dst, const xrow_t *to, int w) {
  const pm_h5_series_t *s = ctx;
  const pm_local_t *l = s->local;
  const int32_t *order = pl->order, *esel = s->esel, *ptr = l->elem_ptr, *en = l->elem_node;
  const int64_t *ni = l->node_index;
  const int8_t *type = l->elem_type;
  for (int i = a; i < b; i++) {
    PREFETCH_NODES_(i);
    int32_t k = order ? order[i] : i, e = esel ? esel[k] : k, at = ptr[e], n = ptr[e + 1] - at;
    int64_t it[ELEM_W];
    it[0] = type[e];
    for (int v = 0; v < 4; v++) it[1 + v] = v < n ? ni[en[at + v]] : -1;
    memcpy(dst + (size_t)(to ? to[i - a] : i - a) * w, it, sizeof it);
  }
}

/* Owned elements' node positions only (a mesh of one type), nv = w / size of them per row, as
 * int64 (size 8) or as int32 (size 4: positions below 2^31, for the items in transit).  The two
 * xget_t's below fix size, so that the loop is compiled for each. */
static inline void elem_nodes_(const pm_h5_series_t *s, const xplan_t *pl, int a, int b, char *dst, const xrow_t *to,
                               int w, int size) {
  const pm_local_t *l = s->local;
  const int32_t *order = pl->order, *esel = s->esel, *ptr = l->elem_ptr, *en = l->elem_node;
  const int64_t *ni = l->node_index;
  int nv = w / size;
  for (int i = a; i < b; i++) {
    PREFETCH_NODES_(i);
    int32_t k = order ? order[i] : i;
    const int32_t *nd = en + ptr[esel ? esel[k] : k];
    char *o = dst + (size_t)(to ? to[i - a] : i - a) * w;
    if (nv == 3 && size == (int)sizeof(int64_t)) { /* the usual cases, straight-line */
      int64_t it[3] = {ni[nd[0]], ni[nd[1]], ni[nd[2]]};
      memcpy(o, it, sizeof it);
    } else if (nv == 3) {
      int32_t it[3] = {(int32_t)ni[nd[0]], (int32_t)ni[nd[1]], (int32_t)ni[nd[2]]};
      memcpy(o, it, sizeof it);
    } else {
      for (int v = 0; v < nv; v++) /* rows are aligned to their element size */
        if (size == (int)sizeof(int64_t))
          ((int64_t *)(void *)o)[v] = ni[nd[v]];
        else
          ((int32_t *)(void *)o)[v] = (int32_t)ni[nd[v]];
    }
  }
}

static void elem_nodes_get(const void *ctx, const xplan_t *pl, int a, int b, char *dst, const xrow_t *to, int w) {
  elem_nodes_(ctx, pl, a, b, dst, to, w, (int)sizeof(int64_t));
}

/* The same as int32 (an xsrc_t's get32). */
static void elem_nodes_get32(const void *ctx, const xplan_t *pl, int a, int b, char *dst, const xrow_t *to, int w) {
  elem_nodes_(ctx, pl, a, b, dst, to, w, (int)sizeof(int32_t));
}

/* Dataset loc/name of [n_global] (ncols 0) or [n_global x ncols] from what x carries through
 * plan pl, a group of rounds at a time.  Collective: every rank creates it and makes one H5Dwrite per
 * group of rounds, with an empty selection where it has no rows. */
static int write_rows(pm_h5_series_t *s, hid_t loc, const char *gname, const char *name, hid_t ftype, hid_t mtype,
                      int ncols, const xplan_t *pl, const xsrc_t *x, const char *center) {
  int ierr = PM_OK;
  hid_t ds = -1;
  h5out_t o = {s->file, s->dxpl, s->h5path, &s->wb};
  char where[300];
  snprintf(where, sizeof where, "dataset %s/%s of %s", gname, name, s->h5path);
  STEP(s->comm, dset_create(loc, name, ftype, ncols, pl->n_global, center, where, &ds));
  int m = x->width < WRITE_ROW_BYTES ? WRITE_ROW_BYTES / x->width : 1; /* rounds per write */
  for (int c = 0; c < pl->nrounds; c += m) {
    const void *buf = NULL;
    int64_t rows = 0;
    STEP(s->comm, xplan_round(s->comm, pl, c, m, x, &s->chunk, &s->xbuf, &buf, &rows));
    STEP(s->comm, dset_put(&o, ds, mtype, ncols, pl->lo + (int64_t)c * pl->K, rows, buf, where));
  }
cleanup:
  h5_close_id(&ds, H5Dclose);
  return ierr;
}

/* Connectivity: one dataset per element type; where triangles and quadrangles mix, also XDMF's
 * mixed list.  Each rank counts the elements of each type in its slab of the global element
 * order, and an MPI_Exscan over those counts places its rows.  Collective. */
static int write_elements(pm_h5_series_t *s, hid_t g) {
  const pm_local_t *l = s->local;
  const xplan_t *ep = &s->ep;
  h5out_t o = {s->file, s->dxpl, s->h5path, &s->wb};
  int ierr = PM_OK, p = s->nranks, ntypes = 0, one = 0;
  int64_t own[4] = {0, 0, 0, 0}, ttot[4] = {0, 0, 0, 0}, tcnt[4] = {0, 0, 0, 0}, tlo[4] = {0, 0, 0, 0};
  int64_t *per = NULL, done[4] = {0, 0, 0, 0}, mdone = 0;
  hid_t ds[4] = {-1, -1, -1, -1}, dm = -1;
  char where[4][300], wmixed[300];
  for (int32_t k = 0; k < ep->n_mine; k++) own[l->elem_type[s->esel ? s->esel[k] : k]]++;
  MPI_TRY(pm_comm_allreduce(own, ttot, 4, MPI_INT64_T, MPI_SUM, s->comm));
  memcpy(s->x.ttot, ttot, sizeof ttot);
  for (int t = PM_MSH_LINE; t <= PM_MSH_QUAD; t++)
    if (ttot[t] > 0) {
      ntypes++;
      one = t;
    }
  if (ntypes == 1) { /* the usual mesh: the slab's rows are the dataset's rows, positions only */
    int nv = pm_msh_type_nodes(one);
    xsrc_t x = {(int)sizeof(int64_t) * nv,
                NULL,
                elem_nodes_get,
                s,
                0,
                s->meta->global_nodes <= INT32_MAX ? elem_nodes_get32 : NULL};
    STEP(s->comm, write_rows(s, g, "/mesh", conn_names[one], H5T_STD_I64LE, H5T_NATIVE_INT64, nv, ep, &x, NULL));
    goto cleanup;
  }
  /* Mixed: the slab's count per type, from what each rank sends to it. */
  if (ep->identity) {
    memcpy(tcnt, own, sizeof own);
  } else {
    ierr = PM_CALLOC(per, 8 * (size_t)p, "element counts");
    STEP(s->comm, ierr);
    for (int r = 0; r < p; r++)
      for (int i = ep->sseg[r * ep->nrounds]; i < ep->sseg[(r + 1) * ep->nrounds]; i++)
        per[4 * r + l->elem_type[s->esel ? s->esel[xitem(ep, i)] : xitem(ep, i)]]++;
    MPI_TRY(c_alltoall(per, 4, MPI_INT64_T, per + 4 * p, s->comm));
    for (int r = 0; r < p; r++)
      for (int t = 0; t < 4; t++) tcnt[t] += per[4 * p + 4 * r + t];
  }
  MPI_TRY(c_exscan(tcnt, tlo, 4, MPI_INT64_T, MPI_SUM, s->comm));
  if (s->rank == 0) memset(tlo, 0, sizeof tlo);
  for (int t = PM_MSH_LINE; t <= PM_MSH_QUAD; t++)
    if (ttot[t] > 0) {
      snprintf(where[t], sizeof where[t], "dataset /mesh/%s of %s", conn_names[t], s->h5path);
      STEP(s->comm,
           dset_create(g, conn_names[t], H5T_STD_I64LE, pm_msh_type_nodes(t), ttot[t], NULL, where[t], &ds[t]));
    }
  snprintf(wmixed, sizeof wmixed, "dataset /mesh/mixed of %s", s->h5path);
  STEP(s->comm,
       dset_create(g, "mixed", H5T_STD_I64LE, 0, 4 * ttot[PM_MSH_TRI] + 5 * ttot[PM_MSH_QUAD], NULL, wmixed, &dm));
  xsrc_t x = {(int)sizeof(int64_t) * ELEM_W, NULL, elem_get, s, 0, NULL};
  for (int c = 0; c < ep->nrounds; c++) {
    const void *buf = NULL;
    int64_t rows = 0, *split = NULL, *tr[4] = {NULL, NULL, NULL, NULL}, cnt[4], mlen = 0;
    STEP(s->comm, xplan_round(s->comm, ep, c, 1, &x, &s->chunk, &s->xbuf, &buf, &rows));
    STEP(s->comm, SCRATCH_GET(&s->conv, sizeof(int64_t) * (size_t)(12 * rows + 1), split));
    tr[PM_MSH_TRI] = split;
    tr[PM_MSH_QUAD] = split + 3 * rows;
    elem_split(buf, rows, tr, split + 7 * rows, cnt, &mlen);
    for (int t = PM_MSH_TRI; t <= PM_MSH_QUAD; t++) {
      STEP(s->comm,
           dset_put(&o, ds[t], H5T_NATIVE_INT64, pm_msh_type_nodes(t), tlo[t] + done[t], cnt[t], tr[t], where[t]));
      done[t] += cnt[t];
    }
    STEP(s->comm, dset_put(&o, dm, H5T_NATIVE_INT64, 0, 4 * tlo[PM_MSH_TRI] + 5 * tlo[PM_MSH_QUAD] + mdone, mlen,
                           split + 7 * rows, wmixed));
    mdone += mlen;
  }
cleanup:
  for (int t = 0; t < 4; t++) h5_close_id(&ds[t], H5Dclose);
  h5_close_id(&dm, H5Dclose);
  free(per);
  return ierr;
}

/* Mesh, global ids and owner ranks.  Collective. */
static int series_write_mesh(pm_h5_series_t *s) {
  const pm_local_t *l = s->local;
  int ierr = PM_OK;
  hid_t g = -1, gf = -1;
  H5_STEP(s->comm, g = group_create(s->file, "mesh"), "creating group /mesh in %s", s->h5path);
  H5_STEP(s->comm, gf = group_create(s->file, "fields"), "creating group /fields in %s", s->h5path);
  xsrc_t xyz = {3 * (int)sizeof(double), l->xyz, NULL, NULL, 0, NULL};
  xsrc_t gid = {(int)sizeof(int64_t), l->gid, NULL, NULL, 0, NULL},
         from = {(int)sizeof(int32_t), NULL, NULL, NULL, 1, NULL};
  STEP(s->comm, write_rows(s, g, "/mesh", "coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, &s->np, &xyz, NULL));
  STEP(s->comm, write_rows(s, g, "/mesh", "global_id", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, &s->np, &gid, "node"));
  STEP(s->comm, write_rows(s, gf, "/fields", "rank", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, &s->np, &from, "node"));
  STEP(s->comm, write_elements(s, g));
  STEP(s->comm, write_rows(s, gf, "/fields", "elem_rank", H5T_STD_I32LE, H5T_NATIVE_INT32, 0, &s->ep, &from, "cell"));
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
  h5_watch_setup(comm, h5path);
  *sp = NULL;
  memset(prof_, 0, sizeof prof_);
  prof_in_ = 0;
  prof_faults_ = 0;
  double t_in = prof_now();
  long f_in = minor_faults();
  PM_TRY(PM_CALLOC(s, 1, "HDF5 series"));
  s->comm = MPI_COMM_NULL;
  s->file = s->dxpl = -1;
  s->wb.fd = -1;
  s->h5_errors0 = h5_errors;
  MPI_TRY(pm_comm_dup(comm, &s->comm));
  MPI_TRY(MPI_Comm_set_errhandler(s->comm, MPI_ERRORS_RETURN));
  MPI_Comm_rank(s->comm, &s->rank);
  MPI_Comm_size(s->comm, &s->nranks);
  s->local = l;
  s->meta = meta;
  long pid = (long)getpid();
  MPI_TRY(c_bcast(&pid, 1, MPI_LONG, 0, s->comm));
  double t0 = prof_now();

  /* Everything local first, then one agreement. */
  if (!ierr && !h5path) ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_h5: no HDF5 file name");
  if (!ierr) ierr = pm_strdup(h5path, &s->h5path);
  if (!ierr && xmfpath) ierr = pm_strdup(xmfpath, &s->xmfpath);
  if (!ierr) ierr = tmp_name(h5path, pid, &s->h5tmp);
  if (!ierr && xmfpath) ierr = tmp_name(xmfpath, pid, &s->xmftmp);
  if (!ierr) pm_comm_on_abort(series_abort, s);
  int32_t nown = 0;
  if (!ierr) ierr = check_local(s->rank, l, meta, &nown);
  if (!ierr && nown < l->n_elems) { /* else esel stays NULL: owned element k is local element k */
    ierr = BIG_MALLOC(s->esel, nown > 0 ? nown : 1, "owned elements");
    nown = 0;
    if (!ierr)
      for (int32_t e = 0; e < l->n_elems; e++)
        if (l->elem_owner[e] == s->rank) s->esel[nown++] = e;
  }
  PM_TRY(pm_comm_agree(s->comm, ierr));
  /* The plans' exchanges are collective: every rank builds both, then one agreement. */
  int64_t rows = 0;
  PM_TRY(rows_per_round(s->comm, &rows));
  ierr =
      xplan_create(s->comm, meta->global_nodes, l->n_internal, l->node_index, NULL, rows, 1, "node", &s->xbuf, &s->np);
  int ierr2 =
      xplan_create(s->comm, meta->global_elems, nown, l->elem_index, s->esel, rows, 1, "element", &s->xbuf, &s->ep);
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
  H5_WATCH("HDF5 creating %s", s->h5tmp);
  t0 = prof_now();
  s->file = H5Fcreate(s->h5tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  ierr = s->file < 0 ? h5_error(__FILE__, __LINE__, "creating %s (temporary name of %s)", s->h5tmp, h5path) : PM_OK;
  PM_TRY(pm_comm_agree(s->comm, ierr));
  PM_TRY(wb_setup(s));
  prof_[PROF_OPEN] += prof_now() - t0;
  ierr = series_write_mesh(s);
  PM_TRY(pm_comm_agree(s->comm, ierr));
  ierr = add_xfield(&s->x, &s->xcap, -1, "/mesh/global_id", "global_id", 0, 2);
  if (!ierr) ierr = add_xfield(&s->x, &s->xcap, -1, "/fields/rank", "rank", 0, 1);
  if (!ierr) ierr = add_xfield(&s->x, &s->xcap, -1, "/fields/elem_rank", "rank", 1, 1);
  PM_TRY(pm_comm_agree(s->comm, ierr)); /* a failure here is local: series_discard is collective */
  *sp = s;
  s = NULL;
cleanup:
  h5_close_id(&fapl, H5Pclose);
  if (s) {
    if (s->comm != MPI_COMM_NULL) series_discard(s);
    series_free(&s);
  }
  h5_quiet_end(&q);
  prof_in_ += prof_now() - t_in;
  prof_faults_ += minor_faults() - f_in;
  return ierr;
}

/* Fields into group `gname` (created here).  Collective. */
static int series_fields(pm_h5_series_t *s, const char *gname, int step, double time, const pm_h5_field_t *fields,
                         int nfields) {
  int ierr = PM_OK;
  hid_t g = -1;
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
    H5_STEP(s->comm, g = group_create(s->file, gname), "creating group %s in %s", gname, s->h5path);
    STEP(s->comm, write_num_attr(g, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 0, &time, gname));
  } else {
    H5_STEP(s->comm, g = H5Gopen2(s->file, gname, H5P_DEFAULT), "opening group %s in %s", gname, s->h5path);
  }
  for (int f = 0; f < nfields; f++) {
    const pm_h5_field_t *fd = &fields[f];
    const xplan_t *pl = fd->on_elements ? &s->ep : &s->np;
    xsrc_t x = {fd->is_int ? 4 : 8, fd->data, NULL, NULL, 0, NULL};
    STEP(s->comm,
         write_rows(s, g, gname, fd->name, fd->is_int ? H5T_STD_I32LE : H5T_IEEE_F64LE,
                    fd->is_int ? H5T_NATIVE_INT32 : H5T_NATIVE_DOUBLE, 0, pl, &x, fd->on_elements ? "cell" : "node"));
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
  PM_CHECK(s->single < 2, PM_ERR_ARG, "pm_h5_series_write: %s is a single result: its fields are written once",
           s->h5path);
  int ierr = PM_OK;
  double t_in = prof_now();
  long f_in = minor_faults();
  h5_quiet_t q;
  h5_quiet_begin(&q);
  h5_watch_setup(s->comm, s->h5path);
  char gname[64];
  if (s->x.nsteps == 0 && !s->single) {
    hid_t g = group_create(s->file, "steps");
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
  } else {
    s->single = 2; /* written */
  }
cleanup:
  h5_quiet_end(&q);
  prof_in_ += prof_now() - t_in;
  prof_faults_ += minor_faults() - f_in;
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
  double t_in = prof_now();
  long f_in = minor_faults();
  h5_quiet_t q;
  h5_quiet_begin(&q);
  h5_watch_setup(s->comm, s->h5path);
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
      threaded = threads_allowed() && thrd_create(&th, xmf_job_run, &job) == thrd_success;
      if (!threaded) xmf_job_run(&job);
    }
    prof_[PROF_XMF] += prof_now() - t;
    /* Flush to disk (MPI_File_sync) before the rename makes the file the result. */
    t = prof_now();
    H5_WATCH("HDF5 flushing %s", s->h5tmp);
    if (H5Fflush(s->file, H5F_SCOPE_GLOBAL) < 0) ierr = h5_error(__FILE__, __LINE__, "flushing %s", s->h5tmp);
    prof_[PROF_FLUSH] += prof_now() - t;
    t = prof_now();
    if (!ierr) { /* after a failed flush, closing would write again: series_discard decides */
      H5_WATCH("HDF5 closing %s", s->h5tmp);
      if (H5Fclose(s->file) < 0)
        ierr = h5_error(__FILE__, __LINE__, "closing %s", s->h5tmp);
      else
        s->file = -1;
    }
    prof_[PROF_CLOSE] += prof_now() - t;
    t = prof_now();
    if (threaded) thrd_join(th, NULL); /* before any return: the job lives on this stack */
    if (!ierr && s->rank == 0 && s->xmfpath) ierr = xmf_report(s->xmftmp, job.err, job.created);
    PM_TRY(pm_comm_agree(s->comm, ierr));
    if (s->rank == 0) {
      if (rename(s->h5tmp, s->h5path) != 0)
        ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: cannot move %s into place: %s", s->h5path, s->h5tmp,
                            strerror(errno));
      if (!ierr && s->xmfpath && rename(s->xmftmp, s->xmfpath) != 0) /* two files are not renamed as one */
        ierr = pm_error_set(PM_ERR_IO, __FILE__, __LINE__,
                            "%s: cannot move %s into place: %s (%s is the new result already; an earlier %s "
                            "describes the earlier one)",
                            s->xmfpath, s->xmftmp, strerror(errno), s->h5path, s->xmfpath);
    }
    PM_TRY(pm_comm_agree(s->comm, ierr));
    prof_[PROF_XMF] += prof_now() - t;
    if (s->rank == 0 && getenv("PMESH_H5_PROFILE")) {
      double other = prof_in_ + prof_now() - t_in;
      for (int k = 0; k < PROF_N; k++) other -= prof_[k];
      fprintf(stderr,
              "pm_h5 profile (rank 0, s): prepare %.3f open %.3f exchange %.3f dataset-writes %.3f flush %.3f "
              "close %.3f xmf+rename %.3f other %.3f page-faults %ld write-behind-thread %d xmf-thread %d\n",
              prof_[PROF_PREP], prof_[PROF_OPEN], prof_[PROF_EXCHANGE], prof_[PROF_WRITE], prof_[PROF_FLUSH],
              prof_[PROF_CLOSE], prof_[PROF_XMF], other, prof_faults_ + minor_faults() - f_in, s->wb.running, threaded);
    }
  }
cleanup:
  if (!ok || ierr) series_discard(s);
  series_free(sp);
  h5_quiet_end(&q);
  return ierr;
}

int pm_h5_result_create(MPI_Comm comm, const pm_local_t *local, const pm_meta_t *meta, const char *h5path,
                        const char *xmfpath, pm_h5_series_t **s) {
  PM_CALL(pm_h5_series_create(comm, local, meta, h5path, xmfpath, s));
  (*s)->single = 1; /* 2 once its fields are written */
  return PM_OK;
}

int pm_h5_write(MPI_Comm comm, const pm_local_t *local, const pm_meta_t *meta, const pm_h5_field_t *fields,
                int nfields, const pm_h5_attr_t *attrs, int nattrs, const char *h5path, const char *xmfpath) {
  pm_h5_series_t *s = NULL;
  PM_CALL(pm_h5_result_create(comm, local, meta, h5path, xmfpath, &s));
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
  scratch_t plan_tmp = {NULL, 0};
  double *slab = NULL;
  uint64_t mine_fp = 0, file_fp = 0;
  int64_t nsteps = 0;
  char dset[128] = "", group[64] = "", names[600];
  h5_quiet_t q;
  memset(&pl, 0, sizeof pl);
  h5_quiet_begin(&q);
  h5_watch_setup(comm, h5path);
  MPI_TRY(pm_comm_dup(comm, &c));
  MPI_TRY(MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN));
  MPI_Comm_rank(c, &rank);

  ierr = check_local(rank, l, meta, NULL);
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
  int64_t rows = 0;
  PM_TRY(rows_per_round(c, &rows));
  ierr = xplan_create(c, meta->global_nodes, l->n_internal, l->node_index, NULL, rows, meta->has_mesh_fingerprint,
                      "node", &plan_tmp, &pl);
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
  H5_WATCH("HDF5 opening %s", h5path);
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
    H5_WATCH("HDF5 reading %s of %s", dset, h5path);
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
  scratch_free(&plan_tmp);
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
  int64_t ttot[4] = {0, 0, 0, 0};
  xinfo_t x;
  int xcap = 0;
  scratch_t conv = {NULL, 0};
  h5_quiet_t q;
  memset(&x, 0, sizeof x);
  h5_quiet_begin(&q);
  watch_s = 0; /* serial */
  h5out_t o = {-1, H5P_DEFAULT, h5path, NULL};
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
  H5_TRY(g = group_create(file, "mesh"), "creating /mesh in %s", h5path);
  H5_TRY(gf = group_create(file, "fields"), "creating /fields in %s", h5path);
  PM_TRY(write_slab(&o, g, "/mesh", "coordinates", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, 3, m->n_nodes, 0, m->n_nodes,
                    m->xyz, NULL));
  PM_TRY(write_slab(&o, g, "/mesh", "global_id", H5T_STD_I64LE, H5T_NATIVE_INT64, 0, m->n_nodes, 0, m->n_nodes,
                    m->node_gid, "node"));
  PM_TRY(write_connectivity(&o, g, e, m->n_elems, ttot, &conv));
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
