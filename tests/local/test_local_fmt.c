/* test_local_fmt.c - unit test of pm_fmt (the local-mesh writer's number formatting).  Serial.
 *
 * The reference is the C library itself: pm_fmt_g17 must give the same bytes as
 * snprintf("%.17g") and pm_fmt_i64 as snprintf("%" PRId64), for random bit patterns, random
 * values over the fast path's range and beyond it, exact decimal ties (both rounding
 * directions), neighbours of powers of ten (where the digit count and the %e/%f switch change),
 * integers, zeros of both signs, subnormals, the extremes, infinities and NaNs.  Every finite
 * value must also read back through strtod to the same bits. */
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_fmt.h"
#include "tu_check.h"

static uint64_t rng = UINT64_C(0x9e3779b97f4a7c15);
static uint64_t next(void) { /* xorshift64*: deterministic, no libc rand */
  rng ^= rng >> 12;
  rng ^= rng << 25;
  rng ^= rng >> 27;
  return rng * UINT64_C(2685821657736338717);
}

static void check_g(double x) {
  char want[64], got[PM_FMT_G17_MAX + 1];
  snprintf(want, sizeof want, "%.17g", x);
  char *end = pm_fmt_g17(got, x);
  *end = '\0';
  EXPECT(strcmp(want, got) == 0, "pm_fmt_g17(%a): got '%s', printf gives '%s'", x, got, want);
  if (isfinite(x) && strcmp(want, got) == 0) {
    double y = strtod(got, NULL);
    EXPECT(memcmp(&x, &y, sizeof x) == 0, "pm_fmt_g17(%a) = '%s' reads back as %a", x, got, y);
  }
}

static void check_i(int64_t v) {
  char want[32], got[32];
  snprintf(want, sizeof want, "%" PRId64, v);
  *pm_fmt_i64(got, v) = '\0';
  EXPECT(strcmp(want, got) == 0, "pm_fmt_i64: got '%s', printf gives '%s'", got, want);
}

static double from_bits(uint64_t b) {
  double x;
  memcpy(&x, &b, sizeof x);
  return x;
}

int main(void) {
  /* Special values: zeros, subnormals, extremes, non-finite (printf's text through the slow path). */
  double special[] = {0.0,
                      -0.0,
                      DBL_MIN,
                      -DBL_MIN,
                      DBL_MAX,
                      -DBL_MAX,
                      DBL_TRUE_MIN,
                      -DBL_TRUE_MIN,
                      DBL_MIN / 3,
                      DBL_EPSILON,
                      1.0,
                      -1.0,
                      0.1,
                      0.2,
                      0.3,
                      0.5,
                      1.5,
                      2.5,
                      1e-5,
                      1e-4,
                      9.9999999999999995e-5,
                      0.001,
                      1e16,
                      1e17,
                      99999999999999999.0,
                      9999999999999999.0,
                      123456789012345678.0,
                      1e-16,
                      1e-17,
                      1e22,
                      1e23,
                      1e300,
                      1e-300,
                      HUGE_VAL,
                      -HUGE_VAL,
                      NAN,
                      -NAN};
  for (size_t i = 0; i < sizeof special / sizeof *special; i++) check_g(special[i]);
  /* Neighbours of powers of ten, 10^-25 .. 10^25. */
  for (int k = -25; k <= 25; k++) {
    char s[16];
    snprintf(s, sizeof s, "1e%d", k);
    double p = strtod(s, NULL);
    for (int sign = 0; sign < 2; sign++) {
      double lo = p, hi = p;
      for (int j = 0; j < 40; j++) {
        check_g(sign ? -lo : lo);
        check_g(sign ? -hi : hi);
        lo = nextafter(lo, 0.0);
        hi = nextafter(hi, HUGE_VAL);
      }
    }
  }
  /* Exact ties at the 17th digit: n + 1/4 and n + 3/4 with 16 integer digits have 18 significant
   * digits ending in 5 (glibc rounds them half to even); n + 1/2 has 17 (no rounding). */
  for (int i = 0; i < 200000; i++) {
    double n = 1e15 + (double)(next() % UINT64_C(1200000000000000));
    check_g(n + 0.25);
    check_g(n + 0.75);
    check_g(-(n + 0.25));
    check_g(n + 0.5);
  }
  /* Random bit patterns (every exponent), random values in 1e-20..1e20, integers, short decimals. */
  for (int i = 0; i < 1000000; i++) check_g(from_bits(next()));
  for (int i = 0; i < 1000000; i++) {
    double mant = (double)(next() >> 11) / 9007199254740992.0;
    char s[32];
    snprintf(s, sizeof s, "%.17ge%d", 1.0 + mant * 9.0, (int)(next() % 41) - 20);
    double x = strtod(s, NULL);
    check_g((next() & 1) ? -x : x);
  }
  for (int i = 0; i < 200000; i++) {
    check_g((double)(int64_t)(next() >> (next() % 64)));
    char s[32];
    snprintf(s, sizeof s, "%d.%03de%d", (int)(next() % 1000), (int)(next() % 1000), (int)(next() % 9) - 4);
    check_g(strtod(s, NULL));
  }
  /* Integers. */
  int64_t iv[] = {0, 1, -1, 9, 10, 99, 100, INT64_MAX, INT64_MIN, INT64_MIN + 1, INT32_MAX, INT32_MIN};
  for (size_t i = 0; i < sizeof iv / sizeof *iv; i++) check_i(iv[i]);
  int64_t p10 = 1;
  for (int k = 0; k < 19; k++) {
    check_i(p10);
    check_i(p10 - 1);
    check_i(-p10);
    check_i(1 - p10);
    if (k < 18) p10 *= 10;
  }
  for (int i = 0; i < 1000000; i++) check_i((int64_t)(next() >> (1 + next() % 63)) * ((next() & 1) ? -1 : 1));
  printf("test_local_fmt: %ld checks, %ld failures\n", g_checks, g_fail);
  return g_fail ? EXIT_FAILURE : EXIT_SUCCESS;
}
