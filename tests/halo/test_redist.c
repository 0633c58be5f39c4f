/* test_redist.c - pm_redist's plans against an independent computation.
 *
 *   test_redist      every case below at this number of ranks; exit status 1 on any failure
 *
 * Every rank draws the same global assignment (a seeded generator): position g of n is owned by
 * rank owner[g] (at random; in the block layout; all on rank 0; or the blocks reversed).  Each
 * rank lists its positions (ascending or shuffled) as its roots, with its data at row sel[k] of
 * a larger array with gaps (or row k).  The expected leaves of rank r are the positions
 * floor(r n / p) .. floor((r + 1) n / p) - 1, computed here in 64-bit arithmetic, and the row of
 * position g is a hash of g, so every leaf row is known without the plan: forward moves (in
 * groups of 1, 3 and all rounds, from arrays and from callbacks, also narrowed to int32 in
 * transit), the source ranks, and backward moves are checked row by row.  Then plans that must
 * fail: a position twice, a position missing, a position out of range. */
#include <inttypes.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_alloc_int.h"
#include "halo/pm_redist.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "tu_check.h"

static int nranks_;

static uint64_t mix(uint64_t h) {
  h ^= h >> 31;
  h *= 0x7fb5d329728ea185ULL;
  h ^= h >> 27;
  h *= 0x81dadef4bc2dd44dULL;
  h ^= h >> 33;
  return h;
}

static uint64_t rng_state;
static uint64_t rnd(uint64_t n) { /* 0..n-1 */
  rng_state += 0x9e3779b97f4a7c15ULL;
  return n ? mix(rng_state) % n : 0;
}

/* Byte j of the row of position g (salt: which data set). */
static uint8_t val(int64_t g, int j, int salt) {
  return (uint8_t)mix((uint64_t)g * 131 + (uint64_t)j * 7 + (uint64_t)salt);
}

static int64_t block_lo(int64_t n, int p, int r) {
  return n * r / p;
} /* floor(r n / p); n p < 2^63 here */

enum { OWN_RANDOM, OWN_BLOCKS, OWN_RANK0, OWN_REVERSED, OWN_N };

typedef struct roots {
  int64_t n;            /* positions in all */
  int32_t *owner;       /* [n] owner of each position (the same on every rank) */
  int32_t nmine;        /* this rank's roots */
  int32_t nrows;        /* rows of the caller's arrays (sel's range) */
  int64_t *pos;         /* [nrows] position of the root at that row (-1: a gap) */
  int32_t *sel;         /* [nmine] row of root k, or NULL */
  int32_t *root_of_row; /* [nrows] root at that row, or -1 */
} roots_t;

static void roots_free(roots_t *t) {
  free(t->owner);
  free(t->pos);
  free(t->sel);
  free(t->root_of_row);
  memset(t, 0, sizeof *t);
}

/* Draw the assignment and this rank's roots.  keep(g) == 0 leaves position g to no root. */
static void roots_make(roots_t *t, int64_t n, int own, int shuffle, int with_sel, int drop_fifth, uint64_t seed) {
  memset(t, 0, sizeof *t);
  rng_state = seed;
  t->n = n;
  t->owner = malloc(sizeof(int32_t) * (size_t)(n > 0 ? n : 1));
  for (int64_t g = 0; g < n; g++) {
    int r = 0;
    if (own == OWN_RANDOM) r = (int)rnd((uint64_t)nranks_);
    if (own == OWN_BLOCKS || own == OWN_REVERSED)
      for (r = 0; r + 1 < nranks_ && g >= block_lo(n, nranks_, r + 1); r++) continue;
    if (own == OWN_REVERSED) r = nranks_ - 1 - r;
    if (drop_fifth && mix((uint64_t)g + seed) % 5 == 0) r = -1;
    t->owner[g] = r;
  }
  int64_t *mine = malloc(sizeof(int64_t) * (size_t)(n > 0 ? n : 1));
  int32_t m = 0;
  for (int64_t g = 0; g < n; g++)
    if (t->owner[g] == g_rank) mine[m++] = g;
  rng_state = seed ^ (uint64_t)(g_rank + 1) * 0x51ed270b27ULL; /* this rank's own draws */
  if (shuffle)
    for (int32_t k = m - 1; k > 0; k--) {
      int32_t j = (int32_t)rnd((uint64_t)k + 1);
      int64_t x = mine[k];
      mine[k] = mine[j];
      mine[j] = x;
    }
  t->nmine = m;
  t->nrows = with_sel ? 2 * m + 3 : m;
  t->pos = malloc(sizeof(int64_t) * (size_t)(t->nrows > 0 ? t->nrows : 1));
  t->root_of_row = malloc(sizeof(int32_t) * (size_t)(t->nrows > 0 ? t->nrows : 1));
  for (int32_t i = 0; i < t->nrows; i++) {
    t->pos[i] = -1;
    t->root_of_row[i] = -1;
  }
  if (with_sel) { /* root k at a random free row */
    t->sel = malloc(sizeof(int32_t) * (size_t)(m > 0 ? m : 1));
    for (int32_t k = 0; k < m; k++) {
      int32_t row;
      do row = (int32_t)rnd((uint64_t)t->nrows);
      while (t->root_of_row[row] >= 0);
      t->sel[k] = row;
      t->root_of_row[row] = k;
      t->pos[row] = mine[k];
    }
  } else {
    for (int32_t k = 0; k < m; k++) {
      t->pos[k] = mine[k];
      t->root_of_row[k] = k;
    }
  }
  free(mine);
}

static int32_t row_of(const roots_t *t, int32_t k) {
  return t->sel ? t->sel[k] : k;
}

/* Rows computed from the roots' positions (a pm_redist_get_t): width bytes of val(g, j, 1). */
static void get_bytes(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                      const pm_redist_row_t *to, int width) {
  const roots_t *t = ctx;
  const int32_t *order = pm_redist_order(rd);
  for (int32_t i = a; i < b; i++) {
    int32_t k = order ? order[i] : i;
    int64_t g = t->pos[row_of(t, k)];
    char *o = dst + (size_t)(to ? to[i - a] : i - a) * width;
    for (int j = 0; j < width; j++) o[j] = (char)val(g, j, 1);
  }
}

/* Three int64 per row: g, 2g + 1, g mod 7. */
static void get_i64(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst, const pm_redist_row_t *to,
                    int width) {
  const roots_t *t = ctx;
  const int32_t *order = pm_redist_order(rd);
  for (int32_t i = a; i < b; i++) {
    int32_t k = order ? order[i] : i;
    int64_t g = t->pos[row_of(t, k)], v[3] = {g, 2 * g + 1, g % 7};
    memcpy(dst + (size_t)(to ? to[i - a] : i - a) * width, v, sizeof v);
  }
}

/* Every forward move of the plan in groups of m rounds: leaf row j of position g must be the
 * row src gives for g (kind 0: val(g, ., salt) bytes; kind 1: the three int64).  Positions that
 * no root names keep the fill byte 0xA5. */
static void check_forward(const pm_redist_t *rd, const roots_t *t, const pm_redist_src_t *src, int kind, int salt,
                          int m, const char *what) {
  pm_redist_info_t in;
  pm_redist_get_info(rd, &in);
  pm_scratch_t leaves = {NULL, 0}, work = {NULL, 0};
  int w = src->width;
  for (int c = 0; c < in.nrounds; c += m) {
    int64_t rows = pm_redist_rows(rd, c, m), first = in.lo + (int64_t)c * in.rows_per_round;
    void *pre = NULL;
    if (PM_SCRATCH_GET(&leaves, (size_t)(rows > 0 ? rows : 1) * w, pre)) break; /* then no growth: the fill stays */
    memset(pre, 0xA5, (size_t)(rows > 0 ? rows : 1) * w);
    int ierr = pm_redist_forward(rd, c, m, src, &leaves, &work);
    EXPECT(ierr == PM_OK, "%s: forward rounds %d+%d: %s", what, c, m, pm_error_message());
    if (ierr) break;
    const unsigned char *got = leaves.p;
    for (int64_t j = 0; j < rows; j++) {
      int64_t g = first + j, e64[3] = {g, 2 * g + 1, g % 7};
      unsigned char want[64];
      for (int b = 0; b < w; b++)
        want[b] = t->owner[g] < 0 ? 0xA5 : kind == 0 ? val(g, b, salt) : ((const unsigned char *)e64)[b];
      if (memcmp(got + j * w, want, (size_t)w) != 0) {
        EXPECT(0, "%s: leaf %" PRId64 " (round %d+%d, K %" PRId64 ") is not its root's row", what, g, c, m,
               in.rows_per_round);
        break;
      }
    }
  }
  pm_scratch_free(&leaves);
  pm_scratch_free(&work);
}

static void check_plan(const roots_t *t, int64_t K, int exact, int width, const char *what) {
  pm_redist_t *rd = NULL;
  pm_scratch_t work = {NULL, 0};
  pm_redist_opts_t opt = {K, exact, "item", NULL, &work};
  int ierr = pm_redist_create(MPI_COMM_WORLD, t->n, t->nmine, t->pos, t->sel, &opt, &rd);
  EXPECT(ierr == PM_OK && rd, "%s: create: %s", what, pm_error_message());
  if (ierr) {
    pm_scratch_free(&work);
    pm_error_clear();
    return;
  }
  /* The layout, against the independent block formula. */
  pm_redist_info_t in;
  pm_redist_get_info(rd, &in);
  int64_t lo = block_lo(t->n, nranks_, g_rank), cnt = block_lo(t->n, nranks_, g_rank + 1) - lo, most = 0;
  for (int r = 0; r < nranks_; r++) {
    int64_t c = block_lo(t->n, nranks_, r + 1) - block_lo(t->n, nranks_, r);
    if (c > most) most = c;
  }
  int64_t Kx = K == 0 ? PM_REDIST_ROWS_MAX : K;
  int nr = most > 0 ? (int)((most + Kx - 1) / Kx) : 1;
  EXPECT(in.lo == lo && in.cnt == cnt, "%s: leaves [%" PRId64 ", +%" PRId64 "), expected [%" PRId64 ", +%" PRId64 ")",
         what, in.lo, in.cnt, lo, cnt);
  EXPECT(in.n_global == t->n && in.n_roots == t->nmine && in.rows_per_round == Kx && in.nrounds == nr,
         "%s: info n %" PRId64 " roots %d K %" PRId64 " rounds %d", what, in.n_global, (int)in.n_roots,
         in.rows_per_round, in.nrounds);
  EXPECT(in.nranks == nranks_ && in.rank == g_rank, "%s: info ranks", what);
  EXPECT(pm_redist_block_lo(t->n, nranks_, g_rank) == lo, "%s: pm_redist_block_lo", what);
  { /* identity exactly when every rank's roots are its block, in order, at rows 0.. */
    int id = t->nmine == cnt, all = 0;
    for (int32_t k = 0; k < t->nmine && id; k++) id = row_of(t, k) == k && t->pos[k] == lo + k;
    MPI_Allreduce(&id, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    EXPECT(in.identity == all, "%s: identity %d, expected %d", what, in.identity, all);
  }
  { /* the order ascends, and the roots for rank r lie in its block */
    const int32_t *order = pm_redist_order(rd);
    int32_t total = 0;
    for (int r = 0; r < nranks_; r++) {
      int32_t a = -1, b = -1;
      pm_redist_roots_to(rd, r, &a, &b);
      EXPECT(a >= 0 && b >= a && b <= t->nmine, "%s: roots to %d: [%d, %d)", what, r, (int)a, (int)b);
      for (int32_t i = a; i < b && i >= 0; i++) {
        int32_t k = order ? order[i] : i;
        int64_t g = t->pos[row_of(t, k)];
        EXPECT(g >= block_lo(t->n, nranks_, r) && g < block_lo(t->n, nranks_, r + 1), "%s: root %d to rank %d", what,
               (int)k, r);
        if (i > 0) EXPECT(g > t->pos[row_of(t, order ? order[i - 1] : i - 1)], "%s: order does not ascend", what);
      }
      total += b - a;
    }
    EXPECT(total == t->nmine, "%s: roots_to covers %d of %d roots", what, (int)total, (int)t->nmine);
  }
  /* Forward from an array with gaps between the rows, in groups of 1, 3 and all rounds. */
  unsigned char *data = malloc((size_t)(t->nrows > 0 ? t->nrows : 1) * width);
  for (int32_t i = 0; i < t->nrows; i++)
    for (int b = 0; b < width; b++) data[(size_t)i * width + b] = t->pos[i] >= 0 ? val(t->pos[i], b, 0) : 0xEE;
  pm_redist_src_t arr = {width, data, NULL, NULL};
  int groups[3] = {1, 3, in.nrounds};
  for (int gi = 0; gi < 3; gi++) check_forward(rd, t, &arr, 0, 0, groups[gi], what);
  /* ... and from callbacks (bytes; int64 rows narrowed to int32 in transit). */
  pm_redist_src_t cb = {width, NULL, get_bytes, t};
  check_forward(rd, t, &cb, 0, 1, 2, what);
  pm_redist_src_t wide = {3 * (int)sizeof(int64_t), NULL, get_i64, t};
  check_forward(rd, t, &wide, 1, 0, 1, what);
  check_forward(rd, t, &wide, 1, 0, in.nrounds, what);
  /* The rank each leaf comes from. */
  int32_t *from = malloc(sizeof(int32_t) * (size_t)(cnt > 0 ? cnt : 1));
  for (int64_t j = 0; j < cnt; j++) from[j] = -7;
  for (int c = 0; c < in.nrounds; c += 2) pm_redist_sources(rd, c, 2, from + (int64_t)c * in.rows_per_round);
  for (int64_t j = 0; j < cnt; j++)
    if (from[j] != (t->owner[lo + j] < 0 ? -7 : t->owner[lo + j])) {
      EXPECT(0, "%s: leaf %" PRId64 " from rank %d, expected %d", what, lo + j, from[j], t->owner[lo + j]);
      break;
    }
  /* Backward: every root's row gets its leaf's; the gaps keep their bytes. */
  unsigned char *leaves = malloc((size_t)(cnt > 0 ? cnt : 1) * width);
  for (int64_t j = 0; j < cnt; j++)
    for (int b = 0; b < width; b++) leaves[(size_t)j * width + b] = val(lo + j, b, 2);
  memset(data, 0xEE, (size_t)(t->nrows > 0 ? t->nrows : 1) * width);
  ierr = pm_redist_backward(rd, width, leaves, data);
  EXPECT(ierr == PM_OK, "%s: backward: %s", what, pm_error_message());
  for (int32_t i = 0; i < t->nrows && !ierr; i++)
    for (int b = 0; b < width; b++)
      if (data[(size_t)i * width + b] != (t->pos[i] >= 0 ? val(t->pos[i], b, 2) : 0xEE)) {
        EXPECT(0, "%s: backward: row %d (position %" PRId64 ")", what, (int)i, t->pos[i]);
        i = t->nrows;
        break;
      }
  free(leaves);
  free(from);
  free(data);
  pm_redist_destroy(&rd);
  EXPECT(rd == NULL, "%s: destroy sets NULL", what);
  pm_redist_destroy(&rd); /* NULL-safe */
  pm_scratch_free(&work);
}

/* A plan that must fail on every rank, the rank that sees it with `fragment` in its message. */
static void check_bad(int64_t n, const int64_t *pos, int32_t nmine, const char *fragment, int culprit,
                      const char *what) {
  pm_redist_t *rd = NULL;
  pm_redist_opts_t opt = {3, 1, "node", "a hint", NULL};
  pm_error_clear();
  int ierr = pm_redist_create(MPI_COMM_WORLD, n, nmine, pos, NULL, &opt, &rd);
  EXPECT(ierr != PM_OK && rd == NULL, "%s: the plan was made", what);
  if (g_rank == culprit)
    EXPECT(ierr == PM_ERR_INCONSISTENT && strstr(pm_error_message(), fragment) && strstr(pm_error_message(), "a hint"),
           "%s: code %d, message '%s', expected '%s'", what, ierr, pm_error_message(), fragment);
  else if (culprit >= 0)
    EXPECT(ierr == PM_ERR_REMOTE || ierr == PM_ERR_INCONSISTENT, "%s: code %d on a bystander", what, ierr);
  pm_redist_destroy(&rd);
  pm_error_clear();
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks_);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  static const struct {
    int64_t n, K;
  } sizes[] = {{0, 1}, {1, 1}, {17, 1}, {100, 7}, {1000, 50}, {5003, 701}, {70001, 0}};
  static const int widths[] = {4, 8, 13, 24, 40, 1};
  int cases = 0;
  char what[160];
  for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++)
    for (int own = 0; own < OWN_N; own++)
      for (int shuffle = 0; shuffle < 2; shuffle++)
        for (int with_sel = 0; with_sel < 2; with_sel++) {
          roots_t t;
          uint64_t seed = 1000003u * (si + 1) + 7919u * (uint64_t)own + 31u * (uint64_t)shuffle + (uint64_t)with_sel;
          int width = widths[cases % 6];
          roots_make(&t, sizes[si].n, own, shuffle, with_sel, 0, seed);
          snprintf(what, sizeof what, "n %" PRId64 " K %" PRId64 " owners %d shuffled %d sel %d width %d", sizes[si].n,
                   sizes[si].K, own, shuffle, with_sel, width);
          check_plan(&t, sizes[si].K, 1, width, what);
          roots_free(&t);
          cases++;
        }
  /* Not exact: a fifth of the positions named by no root. */
  for (int own = 0; own < OWN_N; own++) {
    roots_t t;
    roots_make(&t, 2000, own, own % 2, own / 2, 1, 77 + (uint64_t)own);
    snprintf(what, sizeof what, "partial n 2000 owners %d", own);
    check_plan(&t, 97, 0, 8, what);
    roots_free(&t);
    cases++;
  }
  /* Plans that must fail: the last rank names a position twice, or leaves one out, or names one
   * past the end. */
  {
    int64_t n = 40, lo = block_lo(n, nranks_, g_rank), cnt = block_lo(n, nranks_, g_rank + 1) - lo;
    int64_t pos[64];
    int last = nranks_ - 1;
    for (int64_t j = 0; j < cnt; j++) pos[j] = lo + j;
    int32_t m = (int32_t)cnt;
    if (g_rank == last) pos[1] = pos[0];
    /* The leaf named twice is seen by the rank that holds it: the last rank's own block. */
    check_bad(n, pos, m, "is owned by more than one rank", last, "a position twice");
    for (int64_t j = 0; j < cnt; j++) pos[j] = lo + j;
    check_bad(n, pos, g_rank == last ? m - 1 : m, "is owned by no rank", last, "a position missing");
    if (g_rank == last) pos[0] = n;
    check_bad(n, pos, m, "node position 40 is outside the global range [0, 40)", last, "a position out of range");
  }
  long all = 0;
  MPI_Allreduce(&g_fail, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("test_redist: %d plans at %d ranks, %ld failures\n", cases, nranks_, all);
  MPI_Finalize();
  return all ? 1 : 0;
}
