/* pm_redist.c - the redistribution plan: roots on their owners <-> leaves in blocks of the global
 * order (see pm_redist.h).
 *
 * The plan splits the leaves into segments q = (rank r, round c): rank r's leaves
 * [lo_r + cK, lo_r + (c+1)K).  Each rank lists its roots by ascending position (sorting them only
 * when they do not come that way), so that every segment's roots are one run of that list
 * (sseg), and tells each rank, in one exchange, the row in its round of every root it will send
 * it (roff, on the receiving side).  A move then packs runs of the list, and the receiver puts
 * each arriving row at its row in the round: no position travels again. */
#include "pm_redist.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_alloc_int.h"
#include "base/pm_comm_int.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

struct pm_redist {
  MPI_Comm comm; /* borrowed */
  int nranks, rank;
  int64_t n_global, lo, cnt; /* this rank's leaves [lo, lo + cnt) */
  int64_t K;                 /* leaves per round */
  int nrounds;               /* the same on every rank */
  int32_t n_mine;            /* this rank's roots */
  const int32_t *src;        /* root k's row in the caller's arrays (NULL: k itself); borrowed */
  int32_t *order;            /* [n_mine] roots by increasing position (NULL: they are in order) */
  int *sseg;                 /* [p nrounds + 1]: first root (in order) for rank r in round c, at r nrounds + c */
  int *rseg;                 /* [p nrounds + 1]: first of roff brought from rank s in round c, at s nrounds + c */
  int32_t n_recv;
  pm_redist_row_t *roff; /* [n_recv] row in its round of each leaf received (as received) */
  int identity;          /* on every rank root k is leaf k and src(k) == k */
};

int64_t pm_redist_block_lo(int64_t n, int p, int r) {
  return (n / p) * r + (n % p) * r / p;
}

int64_t pm_redist_rows(const pm_redist_t *pl, int c, int m) {
  int64_t first = (int64_t)c * pl->K, n = (int64_t)m * pl->K;
  return first >= pl->cnt ? 0 : (pl->cnt - first < n ? pl->cnt - first : n);
}

static inline int32_t xitem(const pm_redist_t *pl, int32_t i) {
  return pl->order ? pl->order[i] : i;
}

void pm_redist_get_info(const pm_redist_t *pl, pm_redist_info_t *info) {
  info->nranks = pl->nranks;
  info->rank = pl->rank;
  info->n_global = pl->n_global;
  info->lo = pl->lo;
  info->cnt = pl->cnt;
  info->rows_per_round = pl->K;
  info->nrounds = pl->nrounds;
  info->n_roots = pl->n_mine;
  info->identity = pl->identity;
}

const int32_t *pm_redist_order(const pm_redist_t *pl) {
  return pl->order;
}

void pm_redist_roots_to(const pm_redist_t *pl, int r, int32_t *first, int32_t *end) {
  if (pl->identity) {
    *first = 0;
    *end = r == pl->rank ? pl->n_mine : 0;
    return;
  }
  *first = pl->sseg[r * pl->nrounds];
  *end = pl->sseg[(r + 1) * pl->nrounds];
}

static void plan_clear(pm_redist_t *pl) {
  free(pl->order);
  free(pl->sseg);
  free(pl->rseg);
  free(pl->roff);
  memset(pl, 0, sizeof *pl);
}

void pm_redist_destroy(pm_redist_t **rd) {
  if (!rd || !*rd) return;
  plan_clear(*rd);
  free(*rd);
  *rd = NULL;
}

typedef struct gk {
  int64_t g;
  int32_t k;
} gk_t;

static int gk_cmp(const void *a, const void *b) {
  const gk_t *x = a, *y = b;
  return (x->g > y->g) - (x->g < y->g);
}

/* Roots in plan order to segments: segment q = (rank r, round c) holds the positions
 * [b(q), b(q + 1)), b(q) = min(lo_r + cK, lo_r+1); sseg[q] is its first root and srow[i] root i's
 * row in its round.  Returns 1; 0 at the first position smaller than the one before (the roots
 * are not in order: sort them and call again); -1 at the first outside [0, n_global) (*bad). */
static int assign(pm_redist_t *pl, const int64_t *pos, pm_redist_row_t *srow, int64_t *bad) {
  int p = pl->nranks, nseg = p * pl->nrounds;
  int32_t i = 0;
  int64_t prev = 0;
  for (int q = 0; q < nseg; q++) {
    int r = q / pl->nrounds, c = q % pl->nrounds;
    int64_t lr = pm_redist_block_lo(pl->n_global, p, r), hr = pm_redist_block_lo(pl->n_global, p, r + 1);
    int64_t b = lr + (int64_t)c * pl->K < hr ? lr + (int64_t)c * pl->K : hr;
    int64_t e = hr - b > pl->K ? b + pl->K : hr;
    pl->sseg[q] = i;
    for (; i < pl->n_mine; i++) {
      int32_t it = xitem(pl, i);
      int64_t g = pos[pl->src ? pl->src[it] : it];
      if (g < 0 || g >= pl->n_global) {
        *bad = g;
        return -1;
      }
      if (g < prev) return 0;
      prev = g;
      if (g >= e) break;
      srow[i] = (pm_redist_row_t)(g - b);
    }
  }
  pl->sseg[nseg] = pl->n_mine;
  return 1;
}

/* Every leaf of this rank arrived exactly once (roff of each round, from every rank). */
static int check_exact(const pm_redist_t *pl, const char *what, const char *hint) {
  int ierr = PM_OK, p = pl->nranks;
  uint8_t *seen = NULL;
  int64_t most = pm_redist_rows(pl, 0, 1);
  PM_TRY(PM_MALLOC(seen, most > 0 ? most : 1, "exchange check"));
  for (int c = 0; c < pl->nrounds; c++) {
    int64_t rows = pm_redist_rows(pl, c, 1);
    memset(seen, 0, (size_t)(most > 0 ? most : 1));
    for (int s = 0; s < p; s++)
      for (int j = pl->rseg[s * pl->nrounds + c]; j < pl->rseg[s * pl->nrounds + c + 1]; j++) {
        int32_t o = pl->roff[j];
        PM_TRY_CHECK(o >= 0 && o < rows && !seen[o], PM_ERR_INCONSISTENT,
                     "%s %" PRId64 " is owned by more than one rank%s%s", what, pl->lo + (int64_t)c * pl->K + o,
                     hint ? ": " : "", hint ? hint : "");
        seen[o] = 1;
      }
    for (int64_t o = 0; o < rows; o++)
      PM_TRY_CHECK(seen[o], PM_ERR_INCONSISTENT, "%s %" PRId64 " (of %" PRId64 ") is owned by no rank%s%s", what,
                   pl->lo + (int64_t)c * pl->K + o, pl->n_global, hint ? ": " : "", hint ? hint : "");
  }
cleanup:
  free(seen);
  return ierr;
}

/* The plan's exchange: what comes from whom in which round, then the rows themselves.  sc: 4p + 2
 * ints of scratch.  Collective; its errors are agreed. */
static int exchange_rows(pm_redist_t *pl, const pm_redist_row_t *srow, int *sc, const char *what) {
  int ierr = PM_OK, p = pl->nranks, nr = pl->nrounds, nseg = p * nr;
  int *rc = sc + p, *sd = rc + p, *rd = sd + p + 1, *mine = NULL;
  ierr = PM_MALLOC(mine, nseg, "exchange counts");
  PM_TRY(pm_comm_agree(pl->comm, ierr));
  for (int q = 0; q < nseg; q++) mine[q] = pl->sseg[q + 1] - pl->sseg[q]; /* destination-major */
  int mpierr = pm_comm_alltoall(mine, pl->rseg, nr, MPI_INT, pl->comm);   /* counts, source-major */
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
    ierr =
        pm_error_set(PM_ERR_UNSUPPORTED, __FILE__, __LINE__,
                     "rank %d: more than %d %s rows to receive on one rank; use more ranks", pl->rank, INT_MAX, what);
  pl->n_recv = ierr ? 0 : (int32_t)total;
  if (!ierr) ierr = PM_MALLOC_BUFFER(pl->roff, pl->n_recv > 0 ? pl->n_recv : 1, "exchange plan");
  PM_TRY(pm_comm_agree(pl->comm, ierr));
  PM_TRY_MPI(pm_comm_alltoallv(srow, sc, sd, pl->roff, rc, rd, MPI_UINT16_T, pl->comm));
cleanup:
  return ierr;
}

/* Everything up to the final check; errors before the exchanges are agreed, the rest not. */
static int plan_build(pm_redist_t *pl, const int64_t *pos, const pm_redist_opts_t *o, const char *what,
                      pm_scratch_t *sx, int argerr) {
  int ierr = PM_OK, p = pl->nranks;
  int *sc = NULL;
  pm_redist_row_t *srow = NULL;
  gk_t *pairs = NULL;
  {
    int64_t most = pl->n_global / p + (pl->n_global % p != 0); /* the largest block */
    int64_t nr = most > 0 ? (most - 1) / pl->K + 1 : 1;
    if (nr > INT_MAX / (p + 1) - 1 || most > INT32_MAX) nr = 0; /* reported below, on every rank alike */
    pl->nrounds = (int)nr;
  }
  PM_CHECK(pl->nrounds > 0, PM_ERR_UNSUPPORTED,
           "%" PRId64 " %s rows on %d ranks in rounds of %" PRId64 ": too many rounds or rows per rank; use more ranks",
           pl->n_global, what, p, pl->K);
  {
    /* The common case first (one rank; or ranks owning consecutive runs of the global order that
     * match the blocks): root k is leaf k everywhere, and there is nothing to exchange. */
    int id = !argerr && (int64_t)pl->n_mine == pl->cnt, all = 0;
    for (int32_t k = 0; k < pl->n_mine && id; k++) id = (!pl->src || pl->src[k] == k) && pos[k] == pl->lo + k;
    PM_TRY_MPI(pm_comm_allreduce(&id, &all, 1, MPI_INT, MPI_MIN, pl->comm));
    if (all) {
      pl->identity = 1;
      return PM_OK;
    }
  }
  /* Local phase: each root's segment and row, in one pass over the positions when the owners
   * list their roots in global order (the usual case), else after sorting them; its errors are
   * agreed before the first exchange so that no rank waits. */
  int nseg = p * pl->nrounds;
  int32_t n = pl->n_mine;
  ierr = argerr;
  if (!ierr) ierr = PM_MALLOC(pl->sseg, nseg + 1, "exchange plan");
  if (!ierr) ierr = PM_MALLOC(pl->rseg, nseg + 1, "exchange plan");
  if (!ierr) ierr = PM_MALLOC(sc, 4 * (size_t)p + 2, "exchange counts");
  if (!ierr) ierr = PM_SCRATCH_GET(sx, sizeof(pm_redist_row_t) * (size_t)(n > 0 ? n : 1), srow);
  if (!ierr) {
    int64_t bad = 0;
    int done = assign(pl, pos, srow, &bad);
    if (done == 0) { /* not in global order: sort, then again */
      ierr = PM_MALLOC_BUFFER(pairs, n, "exchange plan");
      if (!ierr) ierr = PM_MALLOC_BUFFER(pl->order, n, "exchange plan");
      if (!ierr) {
        for (int32_t k = 0; k < n; k++) pairs[k] = (gk_t){pos[pl->src ? pl->src[k] : k], k};
        qsort(pairs, (size_t)n, sizeof *pairs, gk_cmp);
        for (int32_t k = 0; k < n; k++) pl->order[k] = pairs[k].k;
        done = assign(pl, pos, srow, &bad);
      }
    }
    if (!ierr && done < 0)
      ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                          "rank %d: %s position %" PRId64 " is outside the global range [0, %" PRId64 ")%s%s", pl->rank,
                          what, bad, pl->n_global, o->hint ? ": " : "", o->hint ? o->hint : "");
  }
  PM_TRY(pm_comm_agree(pl->comm, ierr));
  PM_TRY(exchange_rows(pl, srow, sc, what));
  if (o->exact) PM_TRY(check_exact(pl, what, o->hint));
cleanup:
  free(sc);
  free(pairs);
  return ierr;
}

int pm_redist_create(MPI_Comm comm, int64_t n_global, int32_t n_roots, const int64_t *pos, const int32_t *sel,
                     const pm_redist_opts_t *opts, pm_redist_t **rd) {
  static const pm_redist_opts_t defaults = {0, 0, NULL, NULL, NULL};
  const pm_redist_opts_t *o = opts ? opts : &defaults;
  const char *what = o->what ? o->what : "item";
  pm_scratch_t tmp = {NULL, 0}, *sx = o->work ? o->work : &tmp;
  pm_redist_t pl;
  int ierr = PM_OK, argerr = PM_OK, p = 1, rank = 0;
  *rd = NULL;
  memset(&pl, 0, sizeof pl);
  MPI_Comm_size(comm, &p);
  MPI_Comm_rank(comm, &rank);
  if (n_roots < 0 || (n_roots > 0 && !pos))
    argerr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "pm_redist_create: rank %d: %d %s roots%s", rank,
                          (int)n_roots, what, n_roots > 0 ? " without positions" : "");
  PM_TRY_CHECK(n_global >= 0, PM_ERR_ARG, "pm_redist_create: %" PRId64 " positions", n_global); /* alike everywhere */
  pl.comm = comm;
  pl.nranks = p;
  pl.rank = rank;
  pl.n_global = n_global;
  pl.n_mine = argerr ? 0 : n_roots;
  pl.src = sel;
  pl.lo = pm_redist_block_lo(n_global, p, rank);
  pl.cnt = pm_redist_block_lo(n_global, p, rank + 1) - pl.lo;
  pl.K = o->rows_per_round == 0                   ? PM_REDIST_ROWS_MAX
         : o->rows_per_round < 1                  ? 1
         : o->rows_per_round > PM_REDIST_ROWS_MAX ? PM_REDIST_ROWS_MAX
                                                  : o->rows_per_round;
  /* The plan is built in place, then moved to the heap: one agreement covers both. */
  ierr = plan_build(&pl, pos, o, what, sx, argerr);
  if (!ierr) ierr = PM_MALLOC(*rd, 1, "exchange plan");
  PM_TRY(pm_comm_agree(comm, ierr));
  **rd = pl;
  memset(&pl, 0, sizeof pl);
cleanup:
  if (ierr) {
    free(*rd);
    *rd = NULL;
  }
  plan_clear(&pl);
  pm_scratch_free(&tmp);
  return ierr;
}

static int byte_type(int width, MPI_Datatype *t) {
  int ierr = PM_OK;
  PM_TRY_MPI(MPI_Type_contiguous(width, MPI_BYTE, t));
  PM_TRY_MPI(MPI_Type_commit(t));
cleanup:
  return ierr;
}

/* dst row roff[j] = src row j, j < n (rows of w bytes; the usual widths become plain moves). */
static void rows_scatter(char *dst, const pm_redist_row_t *roff, const char *src, int32_t n, int w) {
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

/* Roots a..b-1 of the plan's order into dst: row j (to == NULL) or row to[j] (j = i - a). */
static void pack(const pm_redist_t *pl, const pm_redist_src_t *x, int a, int b, char *dst, const pm_redist_row_t *to) {
  int w = x->width;
  const char *d = x->data;
  if (x->get) {
    x->get(x->ctx, pl, a, b, dst, to, w);
    return;
  }
  if (!pl->order && !pl->src) { /* roots a..b-1 are consecutive in the data */
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

void pm_redist_sources(const pm_redist_t *pl, int c, int m, int32_t *to) {
  int p = pl->nranks, nr = pl->nrounds;
  if (m > nr - c) m = nr - c;
  if (pl->identity) {
    int64_t rows = pm_redist_rows(pl, c, m);
    for (int64_t k = 0; k < rows; k++) to[k] = pl->rank;
    return;
  }
  for (int j = 0; j < m; j++, to += pl->K)
    for (int s = 0; s < p; s++)
      for (int i = pl->rseg[s * nr + c + j]; i < pl->rseg[s * nr + c + j + 1]; i++) to[pl->roff[i]] = s;
}

/* The rows go to a small buffer even from an identity plan: a writer reads a small warm buffer
 * faster than large user arrays. */
int pm_redist_forward(const pm_redist_t *pl, int c, int m, const pm_redist_src_t *x, pm_scratch_t *leaves,
                      pm_scratch_t *work) {
  int ierr = PM_OK, p = pl->nranks, me = pl->rank, w = x->width, nr = pl->nrounds;
  char *buf = NULL, *sbuf = NULL, *rbuf = NULL;
  int *sc = NULL;
  pm_scratch_t tmp = {NULL, 0}, *sx = work ? work : &tmp;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  const char *d = x->data;
  int64_t first = (int64_t)c * pl->K;
  if (m > nr - c) m = nr - c;
  int64_t rows = pm_redist_rows(pl, c, m);
  if (pl->identity) {
    PM_TRY(PM_SCRATCH_GET(leaves, (size_t)(rows > 0 ? rows : 1) * w, buf));
    if (x->get)
      x->get(x->ctx, pl, (int32_t)first, (int32_t)(first + rows), buf, NULL, w);
    else
      memcpy(buf, d + first * w, (size_t)(rows * w));
    goto cleanup;
  }
  ierr = PM_SCRATCH_GET(leaves, (size_t)(rows > 0 ? rows : 1) * w, buf);
  int64_t nsend = 0, nrecv = 0;
  for (int r = 0; r < p; r++)
    if (r != me) {
      nsend += pl->sseg[r * nr + c + m] - pl->sseg[r * nr + c];
      nrecv += pl->rseg[r * nr + c + m] - pl->rseg[r * nr + c];
    }
  size_t sbytes = ((size_t)nsend * w + 63) / 64 * 64;
  char *xb = NULL;
  if (!ierr) ierr = PM_SCRATCH_GET(sx, sbytes + (size_t)nrecv * w + 1, xb);
  if (!ierr) ierr = PM_MALLOC(sc, 4 * (size_t)p + 2, "exchange counts");
  if (!ierr) ierr = byte_type(w, &t);
  PM_TRY(pm_comm_agree(pl->comm, ierr));
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
    if (r != me) { /* roots for rank r's rounds: into the send buffer */
      pack(pl, x, a, b, sbuf + (size_t)sd[r] * w, NULL);
      continue;
    }
    for (int j = 0; j < m; j++) /* this rank's own: straight to their rows, a round at a time */
      pack(pl, x, pl->sseg[me * nr + c + j], pl->sseg[me * nr + c + j + 1], buf + (size_t)j * pl->K * w,
           pl->roff + pl->rseg[me * nr + c + j]);
  }
  PM_TRY_MPI(pm_comm_alltoallv(sbuf, sc, sd, rbuf, rc, rd, t, pl->comm));
  for (int s = 0; s < p; s++)
    if (s != me)
      for (int j = 0; j < m; j++) { /* rank s's rows arrive round after round */
        int i0 = pl->rseg[s * nr + c + j], i1 = pl->rseg[s * nr + c + j + 1];
        const char *in = rbuf + ((size_t)rd[s] + (size_t)(i0 - pl->rseg[s * nr + c])) * w;
        rows_scatter(buf + (size_t)j * pl->K * w, pl->roff + i0, in, i1 - i0, w);
      }
cleanup:
  if (t != MPI_DATATYPE_NULL) MPI_Type_free(&t);
  free(sc);
  pm_scratch_free(&tmp);
  return ierr;
}

int pm_redist_backward(const pm_redist_t *pl, int width, const void *slab, void *data) {
  int ierr = PM_OK, p = pl->nranks;
  char *sbuf = NULL, *rbuf = NULL;
  int *sc = NULL;
  MPI_Datatype t = MPI_DATATYPE_NULL;
  if (pl->identity) {
    if (pl->cnt > 0) memcpy(data, slab, (size_t)pl->cnt * width);
    return PM_OK;
  }
  ierr = PM_MALLOC_BUFFER(sbuf, (size_t)(pl->n_recv > 0 ? pl->n_recv : 1) * width, "exchange buffer");
  if (!ierr) ierr = PM_MALLOC_BUFFER(rbuf, (size_t)(pl->n_mine > 0 ? pl->n_mine : 1) * width, "exchange buffer");
  if (!ierr) ierr = PM_MALLOC(sc, 4 * (size_t)p, "exchange counts");
  if (!ierr) ierr = byte_type(width, &t);
  PM_TRY(pm_comm_agree(pl->comm, ierr));
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
  PM_TRY_MPI(pm_comm_alltoallv(sbuf, sc, sd, rbuf, rc, rd, t, pl->comm));
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
