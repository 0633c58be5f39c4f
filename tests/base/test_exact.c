/* test_exact - exact summation (pm_exact.h): cancellation, permutation invariance, correct
 * rounding against references computed another way (IEEE's own correctly rounded a + b, long
 * double sums that are exact by construction, hand-worked cases), the binned front end against
 * the direct one, and the MPI reduction against the serial sum for any split of the terms. */
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_exact_int.h"
#include "pmesh/pm_exact.h"
#include "tu_check.h"

static uint64_t bits_of(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u;
}
static int same(double a, double b) {
  return bits_of(a) == bits_of(b) || (isnan(a) && isnan(b));
}

static double sum_of(const double *x, int n) {
  pm_exact_t s;
  pm_exact_zero(&s);
  for (int i = 0; i < n; i++) pm_exact_add(&s, x[i]);
  return pm_exact_value(&s);
}

/* xorshift: the same stream on every rank. */
static uint64_t rng = 88172645463325252ull;
static uint64_t next_u64(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
/* A double with a random significand, sign and exponent in [lo, hi]. */
static double random_double(int lo, int hi) {
  double m = 1.0 + (double)(next_u64() >> 12) * 0x1p-52;
  double x = ldexp(m, lo + (int)(next_u64() % (uint64_t)(hi - lo + 1)));
  return next_u64() & 1 ? -x : x;
}

static void shuffle(double *x, int n) {
  for (int i = n - 1; i > 0; i--) {
    int j = (int)(next_u64() % (uint64_t)(i + 1));
    double t = x[i];
    x[i] = x[j];
    x[j] = t;
  }
}

static void test_hand_cases(void) {
  double a[] = {1e300, 1e-300, -1e300};
  EXPECT(same(sum_of(a, 3), 1e-300), "1e300 + 1e-300 - 1e300 = %.17g, expected 1e-300", sum_of(a, 3));
  double b[] = {0x1p1023, 0x1p1023, -0x1p1023, -0x1p1023, 0x1p-1074};
  EXPECT(same(sum_of(b, 5), 0x1p-1074), "huge terms cancelling around the smallest subnormal: %a", sum_of(b, 5));
  double c[] = {DBL_MAX, DBL_MAX};
  EXPECT(same(sum_of(c, 2), INFINITY), "DBL_MAX + DBL_MAX = %a, expected inf", sum_of(c, 2));
  double c2[] = {DBL_MAX, DBL_MAX, -DBL_MAX};
  EXPECT(same(sum_of(c2, 3), DBL_MAX), "DBL_MAX + DBL_MAX - DBL_MAX = %a (no intermediate overflow)", sum_of(c2, 3));
  double d[] = {DBL_MAX, 0x1p970}; /* a tie above an odd significand: rounds up, to inf */
  EXPECT(same(sum_of(d, 2), INFINITY), "DBL_MAX + half an ulp = %a, expected inf", sum_of(d, 2));
  double d2[] = {DBL_MAX, 0x1p970, -0x1p-1074}; /* just below the tie */
  EXPECT(same(sum_of(d2, 3), DBL_MAX), "DBL_MAX + half an ulp - tiny = %a, expected DBL_MAX", sum_of(d2, 3));
  double e[] = {1.0, 0x1p-53}; /* tie, even below: 1 */
  EXPECT(same(sum_of(e, 2), 1.0), "1 + 2^-53 = %a, expected 1", sum_of(e, 2));
  double e2[] = {1.0, 0x1p-53, 0x1p-1074}; /* above the tie by the smallest amount there is */
  EXPECT(same(sum_of(e2, 3), 1.0 + 0x1p-52), "1 + 2^-53 + 2^-1074 = %a, expected 1 + 2^-52", sum_of(e2, 3));
  double e3[] = {1.0 + 0x1p-52, 0x1p-53}; /* tie, odd below: up */
  EXPECT(same(sum_of(e3, 2), 1.0 + 0x1p-51), "(1 + 2^-52) + 2^-53 = %a", sum_of(e3, 2));
  double f[] = {-3.0, 1.0, 0.5, 0.25};
  EXPECT(same(sum_of(f, 4), -1.25), "-3 + 1 + 0.5 + 0.25 = %a", sum_of(f, 4));
  double g[] = {0x1p-1074, 0x1p-1074, 0x1p-1073}; /* subnormals: 4 units */
  EXPECT(same(sum_of(g, 3), 0x1p-1072), "subnormal sum = %a", sum_of(g, 3));
  double h[] = {0x0.fffffffffffffp-1022, 0x1p-1074}; /* largest subnormal + 1 unit: smallest normal */
  EXPECT(same(sum_of(h, 2), DBL_MIN), "largest subnormal + unit = %a", sum_of(h, 2));
  double z[] = {0.0, -0.0, 5.0, -5.0};
  EXPECT(same(sum_of(z, 4), 0.0), "an exact zero is +0: %a", sum_of(z, 4));
  EXPECT(same(sum_of(NULL, 0), 0.0), "the empty sum is +0");
  double in1[] = {1.0, INFINITY, -1e308};
  EXPECT(same(sum_of(in1, 3), INFINITY), "a sum with +inf is +inf");
  double in2[] = {-INFINITY, 1.0};
  EXPECT(same(sum_of(in2, 2), -INFINITY), "a sum with -inf is -inf");
  double in3[] = {INFINITY, -INFINITY};
  EXPECT(isnan(sum_of(in3, 2)), "inf - inf is NaN");
  double in4[] = {1.0, NAN};
  EXPECT(isnan(sum_of(in4, 2)), "a sum with NaN is NaN");
  /* pm_exact_add_array: a dot product of rounded products */
  double x[] = {1e200, 3.0, -1e200}, y[] = {1e100, 0.5, 1e100};
  pm_exact_t s;
  pm_exact_zero(&s);
  pm_exact_add_array(&s, x, y, 3);
  EXPECT(same(pm_exact_value(&s), 1.5), "dot with cancelling products = %a, expected 1.5", pm_exact_value(&s));
}

/* IEEE addition of two doubles is correctly rounded: the exact sum of two terms must agree with
 * it bit for bit, at every exponent (subnormal results, cancellation, overflow included). */
static void test_pairs(void) {
  int bad = 0;
  for (int i = 0; i < 200000; i++) {
    int range = (int)(next_u64() % 4);
    double a, b;
    if (range == 0) { /* anywhere */
      a = random_double(-1074, 1023);
      b = random_double(-1074, 1023);
    } else if (range == 1) { /* close exponents: the rounding bits matter */
      int e0 = -1000 + (int)(next_u64() % 2000);
      a = random_double(e0, e0 + 3);
      b = random_double(e0 - 60, e0 + 3);
    } else if (range == 2) { /* near the subnormal range */
      a = random_double(-1074, -1000);
      b = random_double(-1074, -1000);
    } else { /* near overflow */
      a = random_double(1015, 1023);
      b = random_double(1015, 1023);
    }
    double t[2] = {a, b}, got = sum_of(t, 2), want = a + b;
    if (want == 0) want = 0.0; /* -0 only arises from -0 terms, which random_double does not make */
    if (!same(got, want) && bad++ < 5) EXPECT(0, "%a + %a: exact sum rounds to %a, IEEE gives %a", a, b, got, want);
  }
  EXPECT(bad == 0, "%d of 200000 pairs disagree with IEEE addition", bad);
}

/* Sums of integers times a common power of two fit a long double's 64-bit significand exactly
 * when they stay below 2^63, so rounding that long double once is the correctly rounded sum. */
static void test_long_double(void) {
  if (LDBL_MANT_DIG < 64) return; /* no x87 extended precision here */
  int bad = 0;
  for (int trial = 0; trial < 2000; trial++) {
    int n = 2 + (int)(next_u64() % 499), e = -1000 + (int)(next_u64() % 1900);
    double x[500];
    long double ref = 0;
    for (int i = 0; i < n; i++) {
      int64_t k = (int64_t)(next_u64() >> 11) - (1ll << 52); /* |k| < 2^53 */
      if (trial % 2) k /= (int64_t)1 << (next_u64() % 50);   /* mixed magnitudes */
      x[i] = ldexp((double)k, e);
      ref += (long double)k;
    }
    double want = (double)ldexpl(ref, e), got = sum_of(x, n);
    if (!same(got, want) && bad++ < 5) EXPECT(0, "trial %d: exact sum %a, long double reference %a", trial, got, want);
  }
  EXPECT(bad == 0, "%d of 2000 long double references disagree", bad);
}

/* Any order, and the binned front end, give the same bits; wide and narrow exponent ranges with
 * zeros, subnormals and massive cancellation. */
static void test_permutations(void) {
  enum { N = 4000 };
  static double x[N];
  for (int trial = 0; trial < 20; trial++) {
    int lo = trial % 2 ? -1074 : -30, hi = trial % 2 ? 1020 : 30;
    for (int i = 0; i < N; i++) x[i] = i % 97 == 0 ? 0.0 : random_double(lo, hi);
    for (int i = 0; i < N / 4; i++) x[N / 2 + i] = -x[i]; /* cancelling pairs */
    double ref = sum_of(x, N);
    pm_exact_acc_t *acc[3] = {NULL, NULL, NULL};
    for (int l = 0; l < 3; l++) OK(pm_exact_acc_create(&acc[l]));
    for (int perm = 0; perm < 5; perm++) {
      shuffle(x, N);
      double got = sum_of(x, N);
      EXPECT(same(got, ref), "trial %d permutation %d: %a, first order %a", trial, perm, got, ref);
      pm_exact_t s;
      pm_exact_zero(&s);
      for (int i = 0; i < N; i++) pm_exact_acc_add(acc[i % 3], x[i]);
      for (int l = 0; l < 3; l++) pm_exact_acc_flush(acc[l], &s);
      EXPECT(same(pm_exact_value(&s), ref), "trial %d: binned sum %a, direct %a", trial, pm_exact_value(&s), ref);
      /* partial sums merged in another grouping */
      pm_exact_t a, b;
      pm_exact_zero(&a);
      pm_exact_zero(&b);
      int cut = (int)(next_u64() % N);
      for (int i = 0; i < cut; i++) pm_exact_add(&a, x[i]);
      for (int i = cut; i < N; i++) pm_exact_acc_add(acc[0], x[i]);
      pm_exact_acc_flush(acc[0], &b);
      pm_exact_merge(&b, &a);
      EXPECT(same(pm_exact_value(&b), ref), "trial %d: merged halves %a, direct %a", trial, pm_exact_value(&b), ref);
    }
    for (int l = 0; l < 3; l++) pm_exact_acc_destroy(&acc[l]);
    EXPECT(acc[0] == NULL, "destroy sets the handle to NULL");
  }
  pm_exact_acc_t *acc = NULL;
  OK(pm_exact_acc_create(&acc));
  double sp[] = {0x1p-1074, -0.0, 0x1.8p-1070, INFINITY};
  pm_exact_t s;
  pm_exact_zero(&s);
  for (int i = 0; i < 3; i++) pm_exact_acc_add(acc, sp[i]);
  pm_exact_acc_flush(acc, &s);
  EXPECT(same(pm_exact_value(&s), 0x1p-1074 + 0x1.8p-1070), "binned subnormals: %a", pm_exact_value(&s));
  pm_exact_acc_add(acc, sp[3]);
  pm_exact_acc_flush(acc, &s);
  EXPECT(same(pm_exact_value(&s), INFINITY), "binned infinity: %a", pm_exact_value(&s));
  pm_exact_acc_destroy(&acc);
  pm_exact_acc_destroy(&acc); /* NULL-safe */
}

/* Rank r adds terms r, r + P, ... (odd ranks backwards); after the reduction every rank has the
 * serial sum's bits.  Two numbers in one reduction, one of them with an infinity on one rank. */
static void test_allreduce(void) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  enum { N = 10007 };
  static double x[N];
  rng = 88172645463325252ull; /* the same terms on every rank */
  for (int trial = 0; trial < 4; trial++) {
    for (int i = 0; i < N; i++) x[i] = random_double(trial < 2 ? -60 : -1074, trial < 2 ? 60 : 1000);
    double ref = sum_of(x, N);
    pm_exact_t s[2];
    pm_exact_zero(&s[0]);
    pm_exact_zero(&s[1]);
    if (g_rank % 2)
      for (int i = N - 1; i >= 0; i--) {
        if (i % size == g_rank) pm_exact_add(&s[0], x[i]);
      }
    else
      for (int i = 0; i < N; i++)
        if (i % size == g_rank) pm_exact_add(&s[0], x[i]);
    pm_exact_add(&s[1], g_rank == size - 1 ? -INFINITY : 1.0);
    OK(pm_exact_allreduce(s, 2, MPI_COMM_WORLD));
    EXPECT(same(pm_exact_value(&s[0]), ref), "trial %d at %d ranks: %a, serial %a", trial, size, pm_exact_value(&s[0]),
           ref);
    EXPECT(same(pm_exact_value(&s[1]), -INFINITY), "an infinity on one rank survives the reduction");
  }
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  if (g_rank == 0) { /* serial: once is enough */
    test_hand_cases();
    test_pairs();
    test_long_double();
    test_permutations();
  }
  test_allreduce();
  long fails = 0;
  MPI_Allreduce(&g_fail, &fails, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("test_exact: %s\n", fails ? "FAILED" : "passed");
  MPI_Finalize();
  return fails ? EXIT_FAILURE : EXIT_SUCCESS;
}
