/* pm_exact.c - exact sums of doubles (a long fixed-point accumulator), their correct rounding,
 * their MPI reduction, and the binned front end of pm_exact_int.h.
 *
 * Chunk k of a pm_exact_t weighs 2^(32 k - 1074).  Normalised, chunks 0 .. K-2 lie in [0, 2^32)
 * and the top chunk is signed: one representation per number, so two ranks holding the same sum
 * hold the same bits.  Between normalisations chunks take signed 32-bit pieces; 2^30 additions
 * keep them below 2^62. */
#include "pmesh/pm_exact.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_comm_int.h"
#include "pm_exact_int.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

enum { K = PM_EXACT_CHUNKS };
#define LOW32 0xFFFFFFFFll
#define PENDING_MAX (1ll << 30)
#define SPECIAL_PINF 1
#define SPECIAL_NINF 2
#define SPECIAL_NAN 4

/* floor(v / 2^32) (int64_t is two's complement, so v & LOW32 is v mod 2^32). */
static inline int64_t carry_of(int64_t v) {
  return (v - (v & LOW32)) / (LOW32 + 1);
}

static void normalise(pm_exact_t *s) {
  int64_t carry = 0;
  for (int k = 0; k < K - 1; k++) {
    int64_t v = s->c[k] + carry;
    s->c[k] = v & LOW32;
    carry = carry_of(v);
  }
  s->c[K - 1] += carry;
  s->pending = 0;
}

void pm_exact_zero(pm_exact_t *s) {
  memset(s, 0, sizeof *s);
}

static void note_special(int64_t *special, uint64_t bits) {
  if (bits & 0xFFFFFFFFFFFFFull)
    *special |= SPECIAL_NAN;
  else
    *special |= bits >> 63 ? SPECIAL_NINF : SPECIAL_PINF;
}

/* s += (-1)^neg w 2^(p - 1074) for a 128-bit w = hi:lo.  Six 32-bit pieces at most. */
static void add_wide(pm_exact_t *s, uint64_t lo, uint64_t hi, int p, int neg) {
  int idx = p >> 5, off = p & 31;
  uint64_t w[3] = {lo << off, off ? (hi << off) | (lo >> (64 - off)) : hi, off ? hi >> (64 - off) : 0};
  for (int j = 0; j < 6; j++) {
    int64_t piece = (int64_t)((w[j / 2] >> (32 * (j % 2))) & (uint64_t)LOW32);
    if (piece) s->c[idx + j] += neg ? -piece : piece;
  }
  if (++s->pending >= PENDING_MAX) normalise(s);
}

void pm_exact_add(pm_exact_t *s, double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  int e = (int)(u >> 52 & 0x7FF), neg = (int)(u >> 63);
  uint64_t m = u & 0xFFFFFFFFFFFFFull;
  if (e == 0x7FF) {
    note_special(&s->special, u);
    return;
  }
  if (e == 0 && m == 0) return;
  /* A subnormal's significand has no hidden bit and the lowest bit of the smallest normal. */
  int p = e ? e - 1 : 0;
  if (e) m |= 0x10000000000000ull;
  int idx = p >> 5, off = p & 31;
  uint64_t w0 = m << off, w1 = off > 11 ? m >> (64 - off) : 0;
  int64_t piece[3] = {(int64_t)(w0 & (uint64_t)LOW32), (int64_t)(w0 >> 32), (int64_t)w1};
  for (int j = 0; j < 3; j++) s->c[idx + j] += neg ? -piece[j] : piece[j];
  if (++s->pending >= PENDING_MAX) normalise(s);
}

void pm_exact_add_array(pm_exact_t *s, const double *x, const double *y, int64_t n) {
  if (!x) return;
  for (int64_t i = 0; i < n; i++) pm_exact_add(s, y ? x[i] * y[i] : x[i]);
}

void pm_exact_merge(pm_exact_t *s, const pm_exact_t *t) {
  if (s->pending) normalise(s);
  pm_exact_t tn = *t;
  if (tn.pending) normalise(&tn);
  for (int k = 0; k < K; k++) s->c[k] += tn.c[k];
  s->special |= tn.special;
  s->pending = 1;
}

/* Bit i (below the top chunk) of a normalised, non-negative s. */
static inline int bit_at(const pm_exact_t *s, int i) {
  return (int)(s->c[i >> 5] >> (i & 31) & 1);
}

/* Whether any bit below position i is set. */
static int any_below(const pm_exact_t *s, int i) {
  for (int k = 0; k < (i >> 5); k++)
    if (s->c[k]) return 1;
  return (s->c[i >> 5] & ((1ll << (i & 31)) - 1)) != 0;
}

static int top_bit(uint64_t v) {
  int b = 0;
  while (v >>= 1) b++;
  return b;
}

double pm_exact_value(const pm_exact_t *s) {
  if (s->special) {
    if ((s->special & SPECIAL_NAN) || (s->special & (SPECIAL_PINF | SPECIAL_NINF)) == (SPECIAL_PINF | SPECIAL_NINF))
      return NAN;
    return s->special & SPECIAL_PINF ? INFINITY : -INFINITY;
  }
  pm_exact_t t = *s;
  normalise(&t);
  int neg = t.c[K - 1] < 0;
  if (neg) {
    for (int k = 0; k < K; k++) t.c[k] = -t.c[k];
    normalise(&t);
  }
  int h = K - 1;
  while (h >= 0 && t.c[h] == 0) h--;
  if (h < 0) return 0.0;
  /* P: the leading bit's position; the value lies in [2^(P-1074), 2^(P-1073)). */
  int P = 32 * h + top_bit((uint64_t)t.c[h]);
  double v;
  if (P - 1074 >= 1024) {
    v = INFINITY;
  } else if (P < 53) { /* below 2^-1021: exactly representable */
    v = ldexp((double)(uint64_t)(t.c[0] | t.c[1] << 32), -1074);
  } else {
    uint64_t mant = 0;
    for (int i = P; i >= P - 52; i--) mant = mant << 1 | (uint64_t)bit_at(&t, i);
    if (bit_at(&t, P - 53) && ((mant & 1) || any_below(&t, P - 53))) mant++;
    if (mant >> 53) {
      mant >>= 1;
      P++;
    }
    v = P - 1074 >= 1024 ? INFINITY : ldexp((double)mant, P - 52 - 1074);
  }
  return neg ? -v : v;
}

/* ---------------------------------------------------------------- reduction */

static MPI_Datatype type_ = MPI_DATATYPE_NULL;
static MPI_Op op_ = MPI_OP_NULL;

static void reduce_op(void *in, void *inout, int *len, MPI_Datatype *type) {
  (void)type;
  const pm_exact_t *a = in;
  pm_exact_t *b = inout;
  for (int i = 0; i < *len; i++) {
    pm_exact_merge(&b[i], &a[i]);
    normalise(&b[i]);
  }
}

/* MPI_Finalize deletes MPI_COMM_SELF's attributes first: the moment to free ours. */
static int free_at_finalize(MPI_Comm comm, int key, void *value, void *extra) {
  (void)comm, (void)key, (void)value, (void)extra;
  if (op_ != MPI_OP_NULL) MPI_Op_free(&op_);
  if (type_ != MPI_DATATYPE_NULL) MPI_Type_free(&type_);
  return MPI_SUCCESS;
}

static int setup_reduction(void) {
  if (op_ != MPI_OP_NULL) return PM_OK;
  int ierr = PM_OK, key = MPI_KEYVAL_INVALID;
  PM_TRY_MPI(MPI_Type_contiguous((int)(sizeof(pm_exact_t) / sizeof(int64_t)), MPI_INT64_T, &type_));
  PM_TRY_MPI(MPI_Type_commit(&type_));
  PM_TRY_MPI(MPI_Op_create(reduce_op, 1, &op_));
  PM_TRY_MPI(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_at_finalize, &key, NULL));
  PM_TRY_MPI(MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL));
cleanup:
  if (key != MPI_KEYVAL_INVALID) MPI_Comm_free_keyval(&key); /* the attribute keeps it alive */
  if (ierr) free_at_finalize(MPI_COMM_SELF, 0, NULL, NULL);
  return ierr;
}

int pm_exact_allreduce(pm_exact_t *s, int n, MPI_Comm comm) {
  PM_CALL(setup_reduction());
  for (int i = 0; i < n; i++) normalise(&s[i]);
  PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, s, n, type_, op_, comm));
  return PM_OK;
}

/* ---------------------------------------------------------------- the binned front end */

int pm_exact_acc_create(pm_exact_acc_t **acc) {
  return PM_CALLOC(*acc, 1, "exact accumulator");
}

void pm_exact_acc_destroy(pm_exact_acc_t **acc) {
  if (!acc || !*acc) return;
  free(*acc);
  *acc = NULL;
}

void pm_exact_acc_special(pm_exact_acc_t *acc, uint64_t bits) {
  uint64_t k = bits >> 52;
  if ((k & 0x7FF) == 0x7FF) {
    note_special(&acc->special, bits);
    return;
  }
  /* A subnormal: its significand in the bin of the smallest normal exponent (same unit). */
  k |= 1;
  uint64_t m = bits & 0xFFFFFFFFFFFFFull, lo = acc->lo[k] + m;
  acc->lo[k] = lo;
  if (lo < m) acc->hi[k]++;
}

void pm_exact_acc_flush(pm_exact_acc_t *acc, pm_exact_t *s) {
  for (int g = 0; g < 4096; g += 64) {
    uint64_t any = 0; /* a whole group at once: a loop the compiler vectorises */
    for (int k = g; k < g + 64; k++) any |= acc->lo[k] | acc->hi[k];
    if (!any) continue;
    for (int k = g; k < g + 64; k++) {
      if (!(acc->lo[k] | acc->hi[k])) continue;
      add_wide(s, acc->lo[k], acc->hi[k], (k & 0x7FF) - 1, k >> 11);
      acc->lo[k] = acc->hi[k] = 0;
    }
  }
  s->special |= acc->special;
  acc->special = 0;
  normalise(s);
}
