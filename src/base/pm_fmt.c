/* pm_fmt.c - fast number formatting for the local-mesh writer.  pm_fmt_g17 gives exactly the
 * bytes of printf("%.17g") (so files do not change and strtod reads them back to the same
 * double) at a fraction of glibc's cost: a double m * 2^e is scaled to 17 digits as the exact
 * 128-bit integer m * 5^p * 2^(e+p) and rounded half to even, as glibc does in the default
 * rounding mode.  Values outside the fast range go through snprintf. */
#include "pm_fmt.h"

#include <stdio.h>
#include <string.h>

__extension__ typedef unsigned __int128 pm_u128;

#define P5(hi, lo) (((pm_u128)(hi) << 64) | (pm_u128)(lo))
static const pm_u128 pow5[33] = {
    P5(0x0000000000000000u, 0x0000000000000001u), /* 5^0 */
    P5(0x0000000000000000u, 0x0000000000000005u), /* 5^1 */
    P5(0x0000000000000000u, 0x0000000000000019u), /* 5^2 */
    P5(0x0000000000000000u, 0x000000000000007du), /* 5^3 */
    P5(0x0000000000000000u, 0x0000000000000271u), /* 5^4 */
    P5(0x0000000000000000u, 0x0000000000000c35u), /* 5^5 */
    P5(0x0000000000000000u, 0x0000000000003d09u), /* 5^6 */
    P5(0x0000000000000000u, 0x000000000001312du), /* 5^7 */
    P5(0x0000000000000000u, 0x000000000005f5e1u), /* 5^8 */
    P5(0x0000000000000000u, 0x00000000001dcd65u), /* 5^9 */
    P5(0x0000000000000000u, 0x00000000009502f9u), /* 5^10 */
    P5(0x0000000000000000u, 0x0000000002e90eddu), /* 5^11 */
    P5(0x0000000000000000u, 0x000000000e8d4a51u), /* 5^12 */
    P5(0x0000000000000000u, 0x0000000048c27395u), /* 5^13 */
    P5(0x0000000000000000u, 0x000000016bcc41e9u), /* 5^14 */
    P5(0x0000000000000000u, 0x000000071afd498du), /* 5^15 */
    P5(0x0000000000000000u, 0x0000002386f26fc1u), /* 5^16 */
    P5(0x0000000000000000u, 0x000000b1a2bc2ec5u), /* 5^17 */
    P5(0x0000000000000000u, 0x000003782dace9d9u), /* 5^18 */
    P5(0x0000000000000000u, 0x00001158e460913du), /* 5^19 */
    P5(0x0000000000000000u, 0x000056bc75e2d631u), /* 5^20 */
    P5(0x0000000000000000u, 0x0001b1ae4d6e2ef5u), /* 5^21 */
    P5(0x0000000000000000u, 0x000878678326eac9u), /* 5^22 */
    P5(0x0000000000000000u, 0x002a5a058fc295edu), /* 5^23 */
    P5(0x0000000000000000u, 0x00d3c21bcecceda1u), /* 5^24 */
    P5(0x0000000000000000u, 0x0422ca8b0a00a425u), /* 5^25 */
    P5(0x0000000000000000u, 0x14adf4b7320334b9u), /* 5^26 */
    P5(0x0000000000000000u, 0x6765c793fa10079du), /* 5^27 */
    P5(0x0000000000000002u, 0x04fce5e3e2502611u), /* 5^28 */
    P5(0x000000000000000au, 0x18f07d736b90be55u), /* 5^29 */
    P5(0x0000000000000032u, 0x7cb2734119d3b7a9u), /* 5^30 */
    P5(0x00000000000000fcu, 0x6f7c40458122964du), /* 5^31 */
    P5(0x00000000000004eeu, 0x2d6d415b85acef81u), /* 5^32 */
};
#undef P5

static const uint64_t pow10[20] = {1u,
                                   10u,
                                   100u,
                                   1000u,
                                   10000u,
                                   100000u,
                                   1000000u,
                                   10000000u,
                                   100000000u,
                                   1000000000u,
                                   10000000000u,
                                   100000000000u,
                                   1000000000000u,
                                   10000000000000u,
                                   100000000000000u,
                                   1000000000000000u,
                                   10000000000000000u,
                                   100000000000000000u,
                                   1000000000000000000u,
                                   10000000000000000000u};

static const char digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* The nd decimal digits of q (q < 10^nd, leading zeros written) at p. */
static void put_digits(char *p, uint64_t q, int nd) {
  while (nd >= 2) {
    nd -= 2;
    memcpy(p + nd, digits2 + 2 * (q % 100), 2);
    q /= 100;
  }
  if (nd) p[0] = (char)('0' + q);
}

char *pm_fmt_i64(char *p, int64_t v) {
  uint64_t u = (uint64_t)v;
  if (v < 0) {
    *p++ = '-';
    u = (uint64_t)0 - u;
  }
  int nd = 1;
  while (nd < 20 && u >= pow10[nd]) nd++;
  put_digits(p, u, nd);
  return p + nd;
}

static char *g17_slow(char *p, double x) {
  char buf[64];
  int n = snprintf(buf, sizeof buf, "%.17g", x);
  if (n < 0 || n > PM_FMT_G17_MAX) n = 0; /* cannot happen: "%.17g" of a double is at most 24 bytes */
  memcpy(p, buf, (size_t)n);
  return p + n;
}

char *pm_fmt_g17(char *p, double x) {
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  int be = (int)((bits >> 52) & 0x7ff);
  if ((bits << 1) == 0) { /* +0 and -0 (every z coordinate of a 2D mesh) */
    if (bits) *p++ = '-';
    *p++ = '0';
    return p;
  }
  if (be == 0 || be == 0x7ff) return g17_slow(p, x); /* subnormal, inf, nan */
  uint64_t m = (bits & ((UINT64_C(1) << 52) - 1)) | (UINT64_C(1) << 52);
  int e = be - 1075; /* |x| = m * 2^e, 2^52 <= m < 2^53 */
  /* k = floor(log10 |x|), estimated from the binary exponent and corrected below. */
  int t = (e + 52) * 78913;
  int k = t >= 0 ? t / 262144 : -((-t + 262143) / 262144);
  /* q = floor(|x| * 10^(16-k)) with 10^16 <= q < 10^17; rem/half: the discarded fraction. */
  uint64_t q = 0;
  pm_u128 rem = 0, half = 1;
  for (int iter = 0;; iter++) {
    int pw = 16 - k;
    if (pw < 0 || pw > 32 || iter > 4) return g17_slow(p, x);
    pm_u128 n = (pm_u128)m * pow5[pw]; /* < 2^53 * 5^32 < 2^128 */
    int s = e + pw;
    if (s >= 0) {
      if (s > 63 || (n >> (64 - s)) != 0) return g17_slow(p, x);
      q = (uint64_t)(n << s);
      rem = 0;
      half = 1;
    } else {
      int sh = -s;
      if (sh >= 128) return g17_slow(p, x);
      pm_u128 qq = n >> sh;
      if (qq >> 64) {
        k++;
        continue;
      }
      q = (uint64_t)qq;
      rem = n & (((pm_u128)1 << sh) - 1);
      half = (pm_u128)1 << (sh - 1);
    }
    if (q >= pow10[17]) {
      k++;
      continue;
    }
    if (q < pow10[16]) {
      k--;
      continue;
    }
    break;
  }
  if (rem > half || (rem == half && rem != 0 && (q & 1))) q++;
  if (q == pow10[17]) {
    q = pow10[16];
    k++;
  }
  if (bits >> 63) *p++ = '-';
  int nd = 17;
  while (q % 10 == 0) {
    q /= 10;
    nd--;
  }
  char d[20];
  put_digits(d, q, nd);
  if (k < -4 || k >= 17) { /* %e style: d[.ddd]e+XX */
    *p++ = d[0];
    if (nd > 1) {
      *p++ = '.';
      memcpy(p, d + 1, (size_t)(nd - 1));
      p += nd - 1;
    }
    *p++ = 'e';
    *p++ = k < 0 ? '-' : '+';
    int ak = k < 0 ? -k : k;
    if (ak >= 100) {
      *p++ = (char)('0' + ak / 100);
      ak %= 100;
    }
    *p++ = (char)('0' + ak / 10);
    *p++ = (char)('0' + ak % 10);
  } else if (k >= 0) { /* integer part of k+1 digits */
    int ni = k + 1;
    if (nd <= ni) {
      memcpy(p, d, (size_t)nd);
      p += nd;
      for (int i = nd; i < ni; i++) *p++ = '0';
    } else {
      memcpy(p, d, (size_t)ni);
      p += ni;
      *p++ = '.';
      memcpy(p, d + ni, (size_t)(nd - ni));
      p += nd - ni;
    }
  } else { /* 0.000ddd */
    *p++ = '0';
    *p++ = '.';
    for (int i = 0; i < -k - 1; i++) *p++ = '0';
    memcpy(p, d, (size_t)nd);
    p += nd;
  }
  return p;
}
