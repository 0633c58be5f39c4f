/* test_halo.c - self-checking tests of the halo exchange (pm_halo), run under mpiexec.
 *
 *   test_halo DIR                  every back-end on the partition DIR (DIR/local.<rank>)
 *   test_halo --random SEEDS       every back-end on SEEDS random neighbour graphs (synthetic
 *                                  tables: shuffled neighbour order, empty messages, externals
 *                                  in scrambled order for odd seeds)
 *   test_halo --selftest KIND DIR  pm_halo_selftest: rank 0 prints the RECVbuf lines
 *   test_halo --lecture KIND DIR   the lecture's own tables DIR/sqm.<rank> and values DIR/sq.<rank>:
 *                                  one update, rank 0 prints the RECVbuf lines
 *
 * Expected values are computed here from the tables and global ids alone: an update gives every
 * external node f(gid) of its owner; an accumulate with every copy set to f(gid) gives an
 * internal node exported to m neighbours f(gid) * (1 + m).  Derived datatypes (a struct per
 * node, k doubles contiguous or strided) must bring the owner's values and leave what the type
 * does not describe (a field, padding, every other double) as it was.  The back-ends must
 * agree bit for bit.  Exit status: 0 when every check passed on every rank; a setup error (agreed on every
 * rank, e.g. a partition for another number of ranks) prints its message and exits 1. */
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_local.h"
#include "tu_check.h"

static int g_size;

/* A call that must fail with code on every rank (misuse is symmetric, so nobody waits). */
#define MUST_FAIL(expr, code)                                                           \
  do {                                                                                  \
    int mf_ierr_ = (expr);                                                              \
    EXPECT(mf_ierr_ == (code), "%s returned %d, expected %d", #expr, mf_ierr_, (code)); \
    if (mf_ierr_ == (code) && !strstr(pm_error_message(), "pm_halo_"))                  \
      FAIL("%s: message does not name the call: %s", #expr, pm_error_message());        \
    pm_error_clear();                                                                   \
  } while (0)

static void *xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) {
    fprintf(stderr, "test_halo: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return p;
}

/* ---------------------------------------------------------------- typed values */

typedef struct {
  MPI_Datatype type;
  const char *name;
  int kind; /* 0 int32, 1 int64, 2 float, 3 double */
} vtype_t;

enum { N_VTYPES = 5 };
static vtype_t g_types[N_VTYPES];

static void init_types(void) {
  g_types[0] = (vtype_t){MPI_INT, "MPI_INT", 0};
  g_types[1] = (vtype_t){MPI_INT64_T, "MPI_INT64_T", 1};
  g_types[2] = (vtype_t){MPI_LONG_LONG, "MPI_LONG_LONG", 1};
  g_types[3] = (vtype_t){MPI_FLOAT, "MPI_FLOAT", 2};
  g_types[4] = (vtype_t){MPI_DOUBLE, "MPI_DOUBLE", 3};
}

static size_t vsize(const vtype_t *t) {
  return t->kind == 0 || t->kind == 2 ? 4 : 8;
}

static void vset(const vtype_t *t, void *a, size_t i, int64_t v) {
  switch (t->kind) {
    case 0:
      ((int32_t *)a)[i] = (int32_t)v;
      break;
    case 1:
      ((int64_t *)a)[i] = v;
      break;
    case 2:
      ((float *)a)[i] = (float)v;
      break;
    default:
      ((double *)a)[i] = (double)v;
      break;
  }
}

static int64_t vget(const vtype_t *t, const void *a, size_t i) {
  switch (t->kind) {
    case 0:
      return ((const int32_t *)a)[i];
    case 1:
      return ((const int64_t *)a)[i];
    case 2:
      return (int64_t)((const float *)a)[i];
    default:
      return (int64_t)((const double *)a)[i];
  }
}

/* Exact in every type for the test meshes (gid * 10 * 9 < 2^24). */
static int64_t fval(int64_t gid, int c) {
  return gid * 10 + c;
}

enum { CANARY = 4, SENTINEL = -7 };

/* ---------------------------------------------------------------- checks */

typedef struct {
  const pm_local_t *l;
  int32_t N, NP;
  int *mult; /* [N]: how many export lists name internal node i */
} mesh_t;

static void mesh_init(mesh_t *m, const pm_local_t *l) {
  m->l = l;
  m->N = l->n_internal;
  m->NP = l->n_total;
  m->mult = xmalloc((size_t)m->N * sizeof *m->mult);
  memset(m->mult, 0, (size_t)m->N * sizeof *m->mult);
  for (int32_t j = 0; j < l->export_index[l->n_neib]; j++) m->mult[l->export_item[j]]++;
}

static void check_update(pm_halo_t *h, const mesh_t *m, const vtype_t *t, int bs) {
  size_t n = (size_t)m->NP * bs;
  void *a = xmalloc((n + CANARY) * vsize(t));
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs; c++) vset(t, a, (size_t)i * bs + c, i < m->N ? fval(m->l->gid[i], c) : SENTINEL);
  for (size_t j = n; j < n + CANARY; j++) vset(t, a, j, SENTINEL);
  OK(pm_halo_update(h, a, t->type, bs));
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs; c++) {
      int64_t got = vget(t, a, (size_t)i * bs + c), want = fval(m->l->gid[i], c);
      EXPECT(got == want, "%s update %s bs %d: %s node %d (gid %lld) comp %d = %lld, expected %lld",
             pm_exchange_name(pm_halo_kind(h)), t->name, bs, i < m->N ? "internal" : "external", i,
             (long long)m->l->gid[i], c, (long long)got, (long long)want);
    }
  for (size_t j = n; j < n + CANARY; j++) EXPECT(vget(t, a, j) == SENTINEL, "update wrote past NP * bs");
  free(a);
}

static void check_accumulate(pm_halo_t *h, const mesh_t *m, const vtype_t *t, int bs) {
  size_t n = (size_t)m->NP * bs;
  void *a = xmalloc((n + CANARY) * vsize(t));
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs; c++) vset(t, a, (size_t)i * bs + c, fval(m->l->gid[i], c));
  for (size_t j = n; j < n + CANARY; j++) vset(t, a, j, SENTINEL);
  OK(pm_halo_accumulate(h, a, t->type, bs));
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs; c++) {
      int64_t got = vget(t, a, (size_t)i * bs + c);
      int64_t want = fval(m->l->gid[i], c) * (i < m->N ? 1 + m->mult[i] : 1);
      EXPECT(got == want, "%s accumulate %s bs %d: %s node %d (gid %lld) comp %d = %lld, expected %lld",
             pm_exchange_name(pm_halo_kind(h)), t->name, bs, i < m->N ? "internal" : "external", i,
             (long long)m->l->gid[i], c, (long long)got, (long long)want);
    }
  for (size_t j = n; j < n + CANARY; j++) EXPECT(vget(t, a, j) == SENTINEL, "accumulate wrote past NP * bs");
  free(a);
}

/* Any predefined type for an update: a byte pattern per (gid, byte) must arrive unchanged. */
static void check_update_bytes(pm_halo_t *h, const mesh_t *m, MPI_Datatype type, const char *name, int bs) {
  int size;
  MPI_Type_size(type, &size);
  size_t item = (size_t)size * bs;
  unsigned char *a = xmalloc((size_t)m->NP * item);
  for (int32_t i = 0; i < m->NP; i++)
    for (size_t b = 0; b < item; b++)
      a[i * item + b] = i < m->N ? (unsigned char)(m->l->gid[i] * 31 + (int64_t)b * 7 + 1) : 0xEE;
  OK(pm_halo_update(h, a, type, bs));
  for (int32_t i = 0; i < m->NP; i++)
    for (size_t b = 0; b < item; b++)
      EXPECT(a[i * item + b] == (unsigned char)(m->l->gid[i] * 31 + (int64_t)b * 7 + 1),
             "%s update %s bs %d: node %d byte %zu wrong", pm_exchange_name(pm_halo_kind(h)), name, bs, i, b);
  free(a);
}

/* Own values and copies of similar size with full mantissas: a sum in another order rounds
 * differently for a good share of the nodes. */
static double own_value(int64_t gid, int c) {
  return sin(0.37 * (double)gid + c);
}
static double copy_value(int64_t gid, int c, int rank) {
  return cos(0.11 * (double)gid + c + 0.7 * rank) * (1 + rank) / 3.0;
}

/* Accumulate with copies that differ from rank to rank, compared bitwise with the same sum made
 * here in table order; then a few more exchanges whose result must be the same for every
 * back-end.  Returns the final array (NP * bs doubles). */
static double *check_bitwise(pm_halo_t *h, const mesh_t *m, int bs) {
  const pm_local_t *l = m->l;
  size_t n = (size_t)m->NP * bs;
  double *x = xmalloc(n * sizeof *x), *e = xmalloc(n * sizeof *e);
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs; c++)
      x[i * bs + c] = e[i * bs + c] = i < m->N ? own_value(l->gid[i], c) : copy_value(l->gid[i], c, g_rank);
  for (int k = 0; k < l->n_neib; k++)
    for (int32_t j = l->export_index[k]; j < l->export_index[k + 1]; j++) {
      int32_t i = l->export_item[j];
      for (int c = 0; c < bs; c++) e[i * bs + c] += copy_value(l->gid[i], c, l->neib[k]);
    }
  OK(pm_halo_accumulate(h, x, MPI_DOUBLE, bs));
  EXPECT(!memcmp(x, e, n * sizeof *x), "%s accumulate bs %d: not bitwise the sum in table order",
         pm_exchange_name(pm_halo_kind(h)), bs);
  for (int it = 0; it < 3; it++) {
    OK(pm_halo_update(h, x, MPI_DOUBLE, bs));
    for (size_t j = 0; j < n; j++) x[j] = 0.5 * x[j] * x[j] / (1.0 + fabs(x[j])) + 1.0 / (1.0 + fabs(x[j]));
    OK(pm_halo_accumulate(h, x, MPI_DOUBLE, bs));
  }
  OK(pm_halo_update(h, x, MPI_DOUBLE, bs));
  free(e);
  return x;
}

/* Begin/end overlap: between an update's begin and end, non-exported internals may be written
 * and every internal read; between an accumulate's begin and end, internals may be written and
 * end adds to the values they hold then. */
static void check_overlap(pm_halo_t *h, const mesh_t *m) {
  const int bs = 2;
  const pm_local_t *l = m->l;
  double *x = xmalloc((size_t)m->NP * bs * sizeof *x);
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs; c++) x[i * bs + c] = i < m->N ? (double)fval(l->gid[i], c) : SENTINEL;
  OK(pm_halo_update_begin(h, x, MPI_DOUBLE, bs));
  double sum = 0;
  for (int32_t i = 0; i < m->N; i++)
    for (int c = 0; c < bs; c++) {
      sum += x[i * bs + c];
      if (!m->mult[i]) x[i * bs + c] = -x[i * bs + c];
    }
  OK(pm_halo_update_end(h, x, MPI_DOUBLE, bs));
  EXPECT(sum > 0 || m->N == 0, "overlap: internal values unreadable");
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs; c++) {
      double want = (double)fval(l->gid[i], c) * (i < m->N && !m->mult[i] ? -1 : 1);
      EXPECT(x[i * bs + c] == want, "%s overlap update: node %d comp %d = %g, expected %g",
             pm_exchange_name(pm_halo_kind(h)), i, c, x[i * bs + c], want);
    }
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs; c++) x[i * bs + c] = (double)fval(l->gid[i], c);
  OK(pm_halo_accumulate_begin(h, x, MPI_DOUBLE, bs));
  for (int32_t i = 0; i < m->N; i++)
    for (int c = 0; c < bs; c++) x[i * bs + c] *= 2;
  OK(pm_halo_accumulate_end(h, x, MPI_DOUBLE, bs));
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs; c++) {
      double want = (double)fval(l->gid[i], c) * (i < m->N ? 2 + m->mult[i] : 1);
      EXPECT(x[i * bs + c] == want, "%s overlap accumulate: node %d comp %d = %g, expected %g",
             pm_exchange_name(pm_halo_kind(h)), i, c, x[i * bs + c], want);
    }
  free(x);
}

/* ---------------------------------------------------------------- derived datatypes */

/* A user's record per node; the datatype leaves `keep` out, and `tag` is followed by padding:
 * an update must leave both as they were in the externals. */
typedef struct {
  double T;
  int32_t id;
  char tag;
  int64_t gid;
  float w;
  int32_t keep;
} rec_t;

enum { PAD_BYTE = 0xAB };

static MPI_Datatype rec_type(void) {
  int len[5] = {1, 1, 1, 1, 1};
  MPI_Aint disp[5] = {offsetof(rec_t, T), offsetof(rec_t, id), offsetof(rec_t, tag), offsetof(rec_t, gid),
                      offsetof(rec_t, w)};
  MPI_Datatype types[5] = {MPI_DOUBLE, MPI_INT32_T, MPI_CHAR, MPI_INT64_T, MPI_FLOAT}, t, r;
  MPI_Type_create_struct(5, len, disp, types, &t);
  MPI_Type_create_resized(t, 0, sizeof(rec_t), &r);
  MPI_Type_commit(&r);
  MPI_Type_free(&t);
  return r;
}

static void rec_set(rec_t *r, int64_t gid, int32_t keep) {
  r->T = (double)gid + 0.5;
  r->id = (int32_t)(gid * 3);
  r->tag = (char)('a' + gid % 26);
  r->gid = gid;
  r->w = (float)gid * 0.25f;
  r->keep = keep;
}

static void check_struct(pm_halo_t *h, const mesh_t *m, int bs) {
  const char *kind = pm_exchange_name(pm_halo_kind(h));
  size_t n = (size_t)m->NP * bs, pad = offsetof(rec_t, gid) - offsetof(rec_t, tag) - 1;
  rec_t *a = xmalloc(n * sizeof *a), *want = xmalloc(sizeof *want);
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs; c++)
      if (i < m->N)
        rec_set(&a[(size_t)i * bs + c], m->l->gid[i] * 10 + c, -i);
      else
        rec_set(&a[(size_t)i * bs + c], SENTINEL, -i);
  for (size_t j = 0; j < n; j++) memset((char *)&a[j] + offsetof(rec_t, tag) + 1, PAD_BYTE, pad);
  MPI_Datatype t = rec_type();
  OK(pm_halo_update(h, a, t, bs));
  MPI_Type_free(&t);
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs; c++) {
      const rec_t *r = &a[(size_t)i * bs + c];
      rec_set(want, m->l->gid[i] * 10 + c, -i);
      int pad_ok = 1;
      for (size_t b = 0; b < pad; b++) pad_ok &= ((const unsigned char *)r)[offsetof(rec_t, tag) + 1 + b] == PAD_BYTE;
      EXPECT(r->T == want->T && r->id == want->id && r->tag == want->tag && r->gid == want->gid && r->w == want->w,
             "%s update struct bs %d: node %d (gid %lld) item %d = {%g %d %d %lld %g}, expected the owner's {%g %d %d "
             "%lld %g}",
             kind, bs, i, (long long)m->l->gid[i], c, r->T, r->id, r->tag, (long long)r->gid, r->w, want->T, want->id,
             want->tag, (long long)want->gid, want->w);
      EXPECT(r->keep == -i && pad_ok,
             "%s update struct bs %d: node %d item %d: a field or padding outside the type "
             "was written (keep %d, expected %d)",
             kind, bs, i, c, r->keep, -i);
    }
  free(a);
  free(want);
}

/* k doubles per node as one item: contiguous (every component exchanged), or strided (every
 * other component: the others keep their values). */
static void check_vector(pm_halo_t *h, const mesh_t *m, int k, int strided, int bs) {
  MPI_Datatype t, v;
  if (strided) {
    MPI_Type_vector((k + 1) / 2, 1, 2, MPI_DOUBLE, &v);
    MPI_Type_create_resized(v, 0, (MPI_Aint)(k * sizeof(double)), &t);
    MPI_Type_free(&v);
  } else {
    MPI_Type_contiguous(k, MPI_DOUBLE, &t);
  }
  MPI_Type_commit(&t);
  size_t n = (size_t)m->NP * bs * k;
  double *a = xmalloc(n * sizeof *a);
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs * k; c++)
      a[(size_t)i * bs * k + c] = i < m->N               ? (double)fval(m->l->gid[i], c)
                                  : strided && c % k % 2 ? -1000 - c
                                                         : SENTINEL;
  OK(pm_halo_update(h, a, t, bs));
  MPI_Type_free(&t);
  for (int32_t i = 0; i < m->NP; i++)
    for (int c = 0; c < bs * k; c++) {
      double got = a[(size_t)i * bs * k + c];
      double w = i >= m->N && strided && c % k % 2 ? -1000 - c : (double)fval(m->l->gid[i], c);
      EXPECT(got == w, "%s update %s vector of %d doubles bs %d: node %d (gid %lld) comp %d = %g, expected %g",
             pm_exchange_name(pm_halo_kind(h)), strided ? "strided" : "contiguous", k, bs, i, (long long)m->l->gid[i],
             c, got, w);
    }
  free(a);
}

static void check_derived(pm_halo_t *h, const mesh_t *m) {
  for (int bs = 1; bs <= 2; bs++) {
    check_struct(h, m, bs);
    check_vector(h, m, 4, 0, bs);
    check_vector(h, m, 5, 1, bs);
  }
  /* Successive derived types, each freed after its exchange. */
  check_vector(h, m, 3, 0, 1);
  check_vector(h, m, 6, 0, 1);
  check_vector(h, m, 3, 1, 1);
  check_update(h, m, &g_types[4], 2); /* and the predefined caches still serve */
}

/* Misuse of begin/end: PM_ERR_ARG with a message, and the halo still works afterwards. */
static void check_misuse(pm_halo_t *h, const mesh_t *m) {
  double *x = xmalloc(((size_t)m->NP * 2 + 1) * sizeof *x);
  int *xi = xmalloc(((size_t)m->NP + 1) * sizeof *xi);
  char *xc = xmalloc((size_t)m->NP + 1);
  MUST_FAIL(pm_halo_update_end(h, x, MPI_DOUBLE, 1), PM_ERR_ARG);
  MUST_FAIL(pm_halo_accumulate_end(h, x, MPI_DOUBLE, 1), PM_ERR_ARG);
  MUST_FAIL(pm_halo_update_begin(h, x, MPI_DOUBLE, 0), PM_ERR_ARG);
  MUST_FAIL(pm_halo_accumulate_begin(h, xc, MPI_CHAR, 1), PM_ERR_ARG);
  /* Derived types: no sum for accumulate; uncommitted; data outside the extent. */
  MPI_Datatype pair, squeezed;
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MUST_FAIL(pm_halo_update_begin(h, x, pair, 1), PM_ERR_ARG);
  MPI_Type_commit(&pair);
  int rc = pm_halo_accumulate_begin(h, x, pair, 1);
  EXPECT(rc == PM_ERR_ARG && strstr(pm_error_message(), "pm_halo_accumulate_begin") &&
             strstr(pm_error_message(), "derived datatype"),
         "accumulate with a derived type: %d, %s", rc, pm_error_message());
  pm_error_clear();
  MPI_Type_create_resized(pair, 0, sizeof(double), &squeezed);
  MPI_Type_commit(&squeezed);
  MUST_FAIL(pm_halo_update_begin(h, x, squeezed, 1), PM_ERR_ARG);
  MPI_Type_free(&squeezed);
  MPI_Type_free(&pair);
  for (int32_t i = 0; i < m->NP; i++) x[i] = i < m->N ? (double)m->l->gid[i] : SENTINEL;
  OK(pm_halo_update_begin(h, x, MPI_DOUBLE, 1));
  MUST_FAIL(pm_halo_update_begin(h, x, MPI_DOUBLE, 1), PM_ERR_ARG);
  MUST_FAIL(pm_halo_accumulate_begin(h, x, MPI_DOUBLE, 1), PM_ERR_ARG);
  MUST_FAIL(pm_halo_accumulate_end(h, x, MPI_DOUBLE, 1), PM_ERR_ARG);
  MUST_FAIL(pm_halo_update_end(h, x, MPI_DOUBLE, 2), PM_ERR_ARG);
  MUST_FAIL(pm_halo_update_end(h, x, MPI_INT, 1), PM_ERR_ARG);
  MUST_FAIL(pm_halo_update_end(h, xi, MPI_DOUBLE, 1), PM_ERR_ARG);
  OK(pm_halo_update_end(h, x, MPI_DOUBLE, 1));
  for (int32_t i = 0; i < m->NP; i++)
    EXPECT(x[i] == (double)m->l->gid[i], "%s: update after misuse: node %d = %g, expected %lld",
           pm_exchange_name(pm_halo_kind(h)), i, x[i], (long long)m->l->gid[i]);
  MUST_FAIL(pm_halo_update_end(h, x, MPI_DOUBLE, 1), PM_ERR_ARG); /* a second end */
  free(x);
  free(xi);
  free(xc);
}

/* Two and three halos in flight at once on the same communicator. */
static void check_concurrent(const pm_local_t *l, const mesh_t *m, pm_exchange_t k1) {
  pm_exchange_t k2 = (pm_exchange_t)((k1 + 1) % PM_EXCHANGE_COUNT);
  pm_halo_t *a = NULL, *b = NULL, *c = NULL;
  OK(pm_halo_create(MPI_COMM_WORLD, l, k1, &a));
  OK(pm_halo_create(MPI_COMM_WORLD, l, k2, &b));
  OK(pm_halo_create(MPI_COMM_WORLD, l, k1, &c));
  size_t n = (size_t)m->NP;
  double *x = xmalloc(n * sizeof *x), *y = xmalloc(n * sizeof *y), *z = xmalloc(n * sizeof *z);
  for (int32_t i = 0; i < m->NP; i++) {
    int64_t g = l->gid[i];
    x[i] = i < m->N ? (double)g : SENTINEL;
    y[i] = (double)g;
    z[i] = i < m->N ? -(double)g : SENTINEL;
  }
  OK(pm_halo_update_begin(a, x, MPI_DOUBLE, 1));
  OK(pm_halo_accumulate_begin(b, y, MPI_DOUBLE, 1));
  OK(pm_halo_update_begin(c, z, MPI_DOUBLE, 1));
  OK(pm_halo_update_end(c, z, MPI_DOUBLE, 1));
  OK(pm_halo_update_end(a, x, MPI_DOUBLE, 1));
  OK(pm_halo_accumulate_end(b, y, MPI_DOUBLE, 1));
  for (int32_t i = 0; i < m->NP; i++) {
    double g = (double)l->gid[i];
    EXPECT(x[i] == g, "concurrent %s/%s: x[%d] = %g, expected %g", pm_exchange_name(k1), pm_exchange_name(k2), i, x[i],
           g);
    EXPECT(z[i] == -g, "concurrent %s/%s: z[%d] = %g, expected %g", pm_exchange_name(k1), pm_exchange_name(k2), i, z[i],
           -g);
    double wy = g * (i < m->N ? 1 + m->mult[i] : 1);
    EXPECT(y[i] == wy, "concurrent %s/%s: y[%d] = %g, expected %g", pm_exchange_name(k1), pm_exchange_name(k2), i, y[i],
           wy);
  }
  free(x);
  free(y);
  free(z);
  pm_halo_destroy(&c);
  pm_halo_destroy(&b);
  pm_halo_destroy(&a);
  EXPECT(!a && !b && !c, "pm_halo_destroy did not clear the handle");
}

/* Every check for every back-end on one local mesh. */
static void check_all(const pm_local_t *l) {
  mesh_t m;
  mesh_init(&m, l);
  double *result[PM_EXCHANGE_COUNT] = {0};
  for (int k = 0; k < PM_EXCHANGE_COUNT; k++) {
    pm_halo_t *h = NULL;
    OK(pm_halo_create(MPI_COMM_WORLD, l, (pm_exchange_t)k, &h));
    EXPECT(pm_halo_kind(h) == (pm_exchange_t)k && pm_halo_n_neib(h) == l->n_neib &&
               pm_halo_n_internal(h) == l->n_internal && pm_halo_n_total(h) == l->n_total,
           "halo accessors disagree with the local mesh");
    int cmp;
    MPI_Comm_compare(pm_halo_comm(h), MPI_COMM_WORLD, &cmp);
    EXPECT(cmp == MPI_CONGRUENT, "the halo's communicator is not a duplicate");
    for (int bs = 1; bs <= 3; bs++)
      for (int t = 0; t < N_VTYPES; t++) {
        check_update(h, &m, &g_types[t], bs);
        check_accumulate(h, &m, &g_types[t], bs);
      }
    check_update_bytes(h, &m, MPI_CHAR, "MPI_CHAR", 3);
    check_update_bytes(h, &m, MPI_SHORT, "MPI_SHORT", 1);
    check_update_bytes(h, &m, MPI_C_DOUBLE_COMPLEX, "MPI_C_DOUBLE_COMPLEX", 2);
    check_update(h, &m, &g_types[4], 7); /* a larger block */
    /* The caches: the same (type, bs) again after others. */
    check_update(h, &m, &g_types[4], 1);
    check_accumulate(h, &m, &g_types[0], 2);
    int64_t wrong = -1;
    OK(pm_halo_selftest(h, l, NULL, &wrong));
    EXPECT(wrong == 0, "%s: selftest found %lld wrong values", pm_exchange_name((pm_exchange_t)k), (long long)wrong);
    result[k] = check_bitwise(h, &m, 2);
    check_overlap(h, &m);
    check_derived(h, &m);
    check_misuse(h, &m);
    pm_halo_destroy(&h);
    check_concurrent(l, &m, (pm_exchange_t)k);
  }
  for (int k = 1; k < PM_EXCHANGE_COUNT; k++)
    EXPECT(!memcmp(result[0], result[k], (size_t)m.NP * 2 * sizeof(double)), "back-ends %s and %s differ bitwise",
           pm_exchange_name(0), pm_exchange_name((pm_exchange_t)k));
  for (int k = 0; k < PM_EXCHANGE_COUNT; k++) free(result[k]);
  free(m.mult);
}

/* ---------------------------------------------------------------- random graphs */

static uint64_t g_rng;
static uint64_t rnd(void) { /* splitmix64 */
  uint64_t z = (g_rng += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static void shuffle(int *v, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(rnd() % (uint64_t)(i + 1)), t = v[i];
    v[i] = v[j];
    v[j] = t;
  }
}

/* Every rank draws the same whole graph, then keeps its own tables. */
static pm_local_t *random_local(uint64_t seed) {
  int P = g_size, r = g_rank;
  g_rng = seed * 1000003u + (uint64_t)P;
  int *N = xmalloc((size_t)P * sizeof *N), *edge = xmalloc((size_t)P * P * sizeof *edge);
  int *cnt = xmalloc((size_t)P * P * sizeof *cnt), **items = xmalloc((size_t)P * P * sizeof *items);
  int **order = xmalloc((size_t)P * sizeof *order), *deg = xmalloc((size_t)P * sizeof *deg);
  int **perm = xmalloc((size_t)P * sizeof *perm), *next = xmalloc((size_t)P * sizeof *next);
  int density = 20 + (int)(seed % 5) * 20; /* 20..100 % */
  for (int p = 0; p < P; p++) N[p] = 1 + (int)(rnd() % 8);
  for (int p = 0; p < P; p++)
    for (int q = 0; q < P; q++) edge[p * P + q] = 0;
  for (int p = 0; p < P; p++)
    for (int q = p + 1; q < P; q++) edge[p * P + q] = edge[q * P + p] = (int)(rnd() % 100) < density;
  for (int p = 0; p < P; p++)
    for (int q = 0; q < P; q++) {
      items[p * P + q] = NULL;
      cnt[p * P + q] = 0;
      if (!edge[p * P + q]) continue;
      int c = (int)(rnd() % 5); /* 0..4: empty messages too */
      if (c > N[p]) c = N[p];
      int *all = xmalloc((size_t)N[p] * sizeof *all);
      for (int i = 0; i < N[p]; i++) all[i] = i;
      shuffle(all, N[p]);
      cnt[p * P + q] = c;
      items[p * P + q] = all; /* the first c */
    }
  for (int p = 0; p < P; p++) {
    deg[p] = 0;
    order[p] = xmalloc((size_t)P * sizeof **order);
    for (int q = 0; q < P; q++)
      if (edge[p * P + q]) order[p][deg[p]++] = q;
    shuffle(order[p], deg[p]); /* neighbour lists in any order */
    int ne = 0;
    for (int k = 0; k < deg[p]; k++) ne += cnt[order[p][k] * P + p];
    perm[p] = xmalloc((size_t)(ne ? ne : 1) * sizeof **perm);
    for (int i = 0; i < ne; i++) perm[p][i] = i;
    if (seed % 2) shuffle(perm[p], ne); /* externals in scrambled order */
    next[p] = ne;
  }
  pm_local_t *l = NULL;
  OK(pm_local_create(&l));
  int n = deg[r], ne = next[r];
  l->rank = r;
  l->nparts = P;
  l->n_neib = n;
  l->neib = xmalloc((size_t)n * sizeof *l->neib);
  l->n_internal = N[r];
  l->n_total = N[r] + ne;
  l->import_index = xmalloc((size_t)(n + 1) * sizeof *l->import_index);
  l->export_index = xmalloc((size_t)(n + 1) * sizeof *l->export_index);
  l->import_index[0] = l->export_index[0] = 0;
  for (int k = 0; k < n; k++) {
    int q = order[r][k];
    l->neib[k] = q;
    l->import_index[k + 1] = l->import_index[k] + cnt[q * P + r];
    l->export_index[k + 1] = l->export_index[k] + cnt[r * P + q];
  }
  l->import_item = xmalloc((size_t)ne * sizeof *l->import_item);
  l->export_item = xmalloc((size_t)l->export_index[n] * sizeof *l->export_item);
  l->gid = xmalloc((size_t)l->n_total * sizeof *l->gid);
  for (int32_t i = 0; i < N[r]; i++) l->gid[i] = (int64_t)r * 1000 + i + 1;
  for (int k = 0; k < n; k++) {
    int q = order[r][k];
    for (int j = 0; j < cnt[q * P + r]; j++) {
      int32_t slot = l->import_index[k] + j, loc = N[r] + perm[r][slot];
      l->import_item[slot] = loc;
      l->gid[loc] = (int64_t)q * 1000 + items[q * P + r][j] + 1;
    }
    for (int j = 0; j < cnt[r * P + q]; j++) l->export_item[l->export_index[k] + j] = items[r * P + q][j];
  }
  for (int p = 0; p < P * P; p++) free(items[p]);
  for (int p = 0; p < P; p++) {
    free(order[p]);
    free(perm[p]);
  }
  free(N);
  free(edge);
  free(cnt);
  free(items);
  free(order);
  free(deg);
  free(perm);
  free(next);
  return l;
}

/* ---------------------------------------------------------------- modes */

/* Rank 0 prints every rank's text in rank order. */
static void print_gathered(const char *text, int len) {
  int *lens = NULL, *disp = NULL, total = 0;
  char *all = NULL;
  if (g_rank == 0) {
    lens = xmalloc((size_t)g_size * sizeof *lens);
    disp = xmalloc((size_t)g_size * sizeof *disp);
  }
  MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (g_rank == 0) {
    for (int r = 0; r < g_size; r++) {
      disp[r] = total;
      total += lens[r];
    }
    all = xmalloc((size_t)total);
  }
  MPI_Gatherv(text, len, MPI_CHAR, all, lens, disp, MPI_CHAR, 0, MPI_COMM_WORLD);
  if (g_rank == 0) fwrite(all, 1, (size_t)total, stdout);
  fflush(stdout);
  free(lens);
  free(disp);
  free(all);
}

/* Read DIR/local.<rank> (or another file name), agreed on all ranks. */
static int read_local(const char *path, pm_local_t **l) {
  int ierr = pm_local_read(path, g_rank, l);
  return pm_comm_agree(MPI_COMM_WORLD, ierr);
}

/* A setup error agreed on every rank: report it, free what was read, end cleanly. */
static int setup_error(pm_local_t **l, void *other) {
  fprintf(stderr, "test_halo: rank %d: error: %s\n", g_rank, pm_error_message());
  fflush(stderr);
  pm_local_destroy(l);
  free(other);
  MPI_Finalize();
  return EXIT_FAILURE;
}

static int mode_lecture(pm_exchange_t kind, const char *dir) {
  char path[4096];
  pm_local_t *l = NULL;
  snprintf(path, sizeof path, "%s/sqm.%d", dir, g_rank);
  int ierr = read_local(path, &l);
  if (ierr) return setup_error(&l, NULL);
  int64_t *v = xmalloc((size_t)l->n_total * sizeof *v);
  snprintf(path, sizeof path, "%s/sq.%d", dir, g_rank);
  FILE *fp = fopen(path, "r");
  int lerr = 0;
  for (int32_t i = 0; i < l->n_total; i++) {
    long long x = -1;
    if (i < l->n_internal && (!fp || fscanf(fp, "%lld", &x) != 1)) lerr = 1;
    v[i] = x;
  }
  if (fp) fclose(fp);
  if (lerr) pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "cannot read %d values from %s", l->n_internal, path);
  ierr = pm_comm_agree(MPI_COMM_WORLD, lerr ? PM_ERR_IO : PM_OK);
  if (ierr) return setup_error(&l, v);
  pm_halo_t *h = NULL;
  ierr = pm_halo_create(MPI_COMM_WORLD, l, kind, &h);
  if (ierr) return setup_error(&l, v);
  OK(pm_halo_update(h, v, MPI_INT64_T, 1));
  char *text = xmalloc((size_t)(l->n_total - l->n_internal) * 40 + 1);
  int len = 0;
  for (int k = 0; k < l->n_neib; k++)
    for (int32_t i = l->import_index[k]; i < l->import_index[k + 1]; i++)
      len += sprintf(text + len, "RECVbuf %d %d %lld\n", g_rank, l->neib[k], (long long)v[l->import_item[i]]);
  print_gathered(text, len);
  free(text);
  free(v);
  pm_halo_destroy(&h);
  pm_local_destroy(&l);
  MPI_Finalize();
  return EXIT_SUCCESS;
}

static int usage(void) {
  if (g_rank == 0)
    fprintf(stderr, "usage: test_halo DIR | --random SEEDS | --selftest KIND DIR | --lecture KIND DIR\n");
  MPI_Finalize();
  return EXIT_FAILURE;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  init_types();
  pm_local_t *l = NULL;
  int ierr;
  if (argc == 4 && (!strcmp(argv[1], "--selftest") || !strcmp(argv[1], "--lecture"))) {
    pm_exchange_t kind;
    if (pm_exchange_parse(argv[2], &kind)) {
      if (g_rank == 0) fprintf(stderr, "test_halo: %s\n", pm_error_message());
      MPI_Finalize();
      return EXIT_FAILURE;
    }
    if (!strcmp(argv[1], "--lecture")) return mode_lecture(kind, argv[3]);
    char path[4096];
    OK(pm_local_path(argv[3], g_rank, path, sizeof path));
    if ((ierr = read_local(path, &l))) return setup_error(&l, NULL);
    pm_halo_t *h = NULL;
    if ((ierr = pm_halo_create(MPI_COMM_WORLD, l, kind, &h))) return setup_error(&l, NULL);
    int64_t wrong = -1;
    OK(pm_halo_selftest(h, l, stdout, &wrong));
    if (wrong && g_rank == 0) fprintf(stderr, "test_halo: selftest: %lld wrong values\n", (long long)wrong);
    pm_halo_destroy(&h);
    pm_local_destroy(&l);
    MPI_Finalize();
    return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
  }
  if (argc == 3 && !strcmp(argv[1], "--random")) {
    long seeds = strtol(argv[2], NULL, 10);
    for (long s = 0; s < seeds; s++) {
      l = random_local((uint64_t)s);
      check_all(l);
      pm_local_destroy(&l);
    }
  } else if (argc == 2 && argv[1][0] != '-') {
    char path[4096];
    OK(pm_local_path(argv[1], g_rank, path, sizeof path));
    if ((ierr = read_local(path, &l))) return setup_error(&l, NULL);
    /* The handshake's checks first, so that a bad partition reports one clean message. */
    pm_halo_t *h = NULL;
    if ((ierr = pm_halo_create(MPI_COMM_WORLD, l, pm_exchange_default(), &h))) return setup_error(&l, NULL);
    pm_halo_destroy(&h);
    if (!l->gid) {
      if (g_rank == 0) fprintf(stderr, "test_halo: %s has no global ids\n", path);
      pm_local_destroy(&l);
      MPI_Finalize();
      return EXIT_FAILURE;
    }
    check_all(l);
    pm_local_destroy(&l);
  } else {
    return usage();
  }
  long total = 0;
  MPI_Allreduce(&g_fail, &total, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("test_halo: %s: %ld failed checks on %d ranks\n", total ? "FAIL" : "ok", total, g_size);
  MPI_Finalize();
  return total ? EXIT_FAILURE : EXIT_SUCCESS;
}
