/* pm_msh_rd.c - the Gmsh MSH reader's plumbing (pm_msh_rd.h): the set of node tags, messages
 * that name the file and the line or byte offset, and the readers of single ASCII and binary
 * items.  The sections are parsed in pm_msh.c. */
#include "pm_msh_rd.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_error.h"

const char *pm_msh_rd_type_name(int64_t type) {
  static const char *const names[] = {
      NULL,
      "2-node line",
      "3-node triangle",
      "4-node quadrangle",
      "4-node tetrahedron",
      "8-node hexahedron",
      "6-node prism",
      "5-node pyramid",
      "3-node second-order line",
      "6-node second-order triangle",
      "9-node second-order quadrangle",
      "10-node second-order tetrahedron",
      "27-node second-order hexahedron",
      "18-node second-order prism",
      "14-node second-order pyramid",
      "1-node point",
      "8-node second-order quadrangle",
      "20-node second-order hexahedron",
      "15-node second-order prism",
      "13-node second-order pyramid",
      "9-node third-order incomplete triangle",
      "10-node third-order triangle",
      "12-node fourth-order incomplete triangle",
      "15-node fourth-order triangle",
      "15-node fifth-order incomplete triangle",
      "21-node fifth-order triangle",
      "4-node third-order line",
      "5-node fourth-order line",
      "6-node fifth-order line",
      "20-node third-order tetrahedron",
      "35-node fourth-order tetrahedron",
      "56-node fifth-order tetrahedron",
  };
  if (type > 0 && type < (int64_t)(sizeof names / sizeof names[0])) return names[type];
  if (type == 92) return "64-node third-order hexahedron";
  if (type == 93) return "125-node fourth-order hexahedron";
  return "unknown element type";
}

void pm_msh_rd_set_free(msh_set_t *st) {
  free(st->bits);
  free(st->keys);
  memset(st, 0, sizeof *st);
}

int pm_msh_rd_set_build(msh_set_t *st, const int64_t *tags, int64_t n, int64_t *dup) {
  memset(st, 0, sizeof *st);
  *dup = -1;
  int64_t lo = INT64_MAX, hi = 0;
  for (int64_t i = 0; i < n; i++) {
    if (tags[i] < lo) lo = tags[i];
    if (tags[i] > hi) hi = tags[i];
  }
  if (n == 0) lo = 1;
  uint64_t span = n ? (uint64_t)hi - (uint64_t)lo + 1 : 1;
  if (span / 64 <= (uint64_t)n + 64) {
    PM_CALL(PM_CALLOC(st->bits, span / 64 + 1, "node tag bitmap"));
    st->min = lo;
    st->nbits = span;
    for (int64_t i = 0; i < n; i++) {
      uint64_t b = (uint64_t)tags[i] - (uint64_t)lo;
      uint64_t w = st->bits[b >> 6], bit = UINT64_C(1) << (b & 63);
      if (w & bit) {
        *dup = i;
        return PM_OK;
      }
      st->bits[b >> 6] = w | bit;
    }
    return PM_OK;
  }
  uint64_t cap = 16;
  while (cap < 2 * (uint64_t)n) cap *= 2;
  PM_CALL(PM_CALLOC(st->keys, cap, "node tag hash table"));
  st->mask = cap - 1;
  for (int64_t i = 0; i < n; i++) {
    uint64_t h = msh_mix((uint64_t)tags[i]) & st->mask;
    while (st->keys[h] != 0 && st->keys[h] != tags[i]) h = (h + 1) & st->mask;
    if (st->keys[h] == tags[i]) {
      *dup = i;
      return PM_OK;
    }
    st->keys[h] = tags[i];
  }
  return PM_OK;
}

int pm_msh_rd_fail_(msh_rd_t *r, int64_t where, int code, const char *file, int line, const char *fmt, ...) {
  char msg[1536];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (r->binary) return pm_error_set(code, file, line, "%s: byte offset %lld: %s", r->s.path, (long long)where, msg);
  return pm_error_set(code, file, line, "%s:%lld: %s", r->s.path, (long long)where, msg);
}

const char *pm_msh_rd_show(msh_rd_t *r, const char *t, size_t n) {
  size_t k = 0, lim = sizeof r->show - 4;
  for (size_t i = 0; i < n && k < lim; i++) {
    unsigned char c = (unsigned char)t[i];
    r->show[k++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
  }
  if (n > lim) {
    memcpy(r->show + k, "...", 3);
    k += 3;
  }
  r->show[k] = '\0';
  return r->show;
}

/* ---- ASCII items ---- */

int pm_msh_rd_tok(msh_rd_t *r, const char *what, const char **t, size_t *n) {
  PM_CALL(pm_scan_token(&r->s, t, n));
  if (!*t) return MSH_FAIL(r, PM_ERR_FORMAT, "the file ends inside %s (expected %s)", r->sect, what);
  return PM_OK;
}

/* A token that should have been a number: say what it is instead. */
static int msh_not_number(msh_rd_t *r, const char *what, const char *kind, const char *t, size_t n) {
  if (t[0] == '$')
    return MSH_FAIL(r, PM_ERR_FORMAT, "expected %s, found '%s': %s has fewer entries than its header announces", what,
                    pm_msh_rd_show(r, t, n), r->sect);
  return MSH_FAIL(r, PM_ERR_FORMAT, "expected %s (%s), found '%s'", what, kind, pm_msh_rd_show(r, t, n));
}

int pm_msh_rd_int(msh_rd_t *r, int64_t lo, int64_t hi, const char *what, int64_t *v) {
  const char *t;
  size_t n;
  PM_CALL(pm_msh_rd_tok(r, what, &t, &n));
  size_t i = t[0] == '-' || t[0] == '+';
  int neg = t[0] == '-';
  if (i == n) return msh_not_number(r, what, "an integer", t, n);
  uint64_t acc = 0;
  int big = 0;
  for (; i < n; i++) {
    unsigned d = (unsigned)(unsigned char)t[i] - '0';
    if (d > 9) return msh_not_number(r, what, "an integer", t, n);
    if (acc > (UINT64_MAX - 9) / 10)
      big = 1;
    else
      acc = acc * 10 + d;
  }
  if (big || acc > (uint64_t)INT64_MAX + (uint64_t)neg)
    return MSH_FAIL(r, PM_ERR_FORMAT, "%s %s is out of range", what, pm_msh_rd_show(r, t, n));
  int64_t x = neg ? (int64_t)(0 - acc) : (int64_t)acc;
  if (x < lo || x > hi)
    return MSH_FAIL(r, PM_ERR_FORMAT, "%s must be in [%lld, %lld], found %lld", what, (long long)lo, (long long)hi,
                    (long long)x);
  *v = x;
  return PM_OK;
}

int pm_msh_rd_int32(msh_rd_t *r, const char *what, int32_t *v) {
  int64_t x;
  PM_CALL(pm_msh_rd_int(r, INT32_MIN, INT32_MAX, what, &x));
  *v = (int32_t)x;
  return PM_OK;
}

/* Clinger's fast path: a decimal with at most 2^53 as significand and a power of ten up to
 * 10^22 is one correctly rounded multiplication or division, so the result equals strtod's.
 * Returns 0 (use strtod) for anything else. */
static int msh_fast_real(const char *t, size_t n, double *v) {
  static const double p10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                               1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  size_t i = 0;
  int neg = 0;
  if (t[0] == '-' || t[0] == '+') neg = t[i++] == '-';
  uint64_t mant = 0;
  int digits = 0, frac = 0, any = 0;
  for (; i < n && (unsigned)(t[i] - '0') <= 9; i++, any = 1) {
    if (mant == 0 && t[i] == '0') continue;
    if (++digits > 19) return 0;
    mant = mant * 10 + (uint64_t)(t[i] - '0');
  }
  if (i < n && t[i] == '.') {
    for (i++; i < n && (unsigned)(t[i] - '0') <= 9; i++, any = 1) {
      frac++;
      if (mant == 0 && t[i] == '0') continue;
      if (++digits > 19) return 0;
      mant = mant * 10 + (uint64_t)(t[i] - '0');
    }
  }
  if (!any) return 0;
  int exp10 = 0;
  if (i < n && (t[i] == 'e' || t[i] == 'E')) {
    i++;
    int eneg = 0;
    if (i < n && (t[i] == '-' || t[i] == '+')) eneg = t[i++] == '-';
    if (i == n) return 0;
    for (; i < n; i++) {
      if ((unsigned)(t[i] - '0') > 9 || exp10 > 1000) return 0;
      exp10 = exp10 * 10 + (t[i] - '0');
    }
    if (eneg) exp10 = -exp10;
  }
  if (i != n || mant > (UINT64_C(1) << 53)) return 0;
  exp10 -= frac;
  if (exp10 < -22 || exp10 > 22) return 0;
  double x = (double)mant;
  x = exp10 < 0 ? x / p10[-exp10] : x * p10[exp10];
  *v = neg ? -x : x;
  return 1;
}

int pm_msh_rd_real(msh_rd_t *r, const char *what, double *v) {
  const char *t;
  size_t n;
  PM_CALL(pm_msh_rd_tok(r, what, &t, &n));
  if (msh_fast_real(t, n, v)) return PM_OK;
  char *end;
  double x = strtod(t, &end); /* stops at the whitespace or NUL sentinel after the token */
  if (end != t + n) return msh_not_number(r, what, "a number", t, n);
  if (!isfinite(x)) return MSH_FAIL(r, PM_ERR_FORMAT, "%s is not finite: '%s'", what, pm_msh_rd_show(r, t, n));
  *v = x;
  return PM_OK;
}

int pm_msh_rd_end(msh_rd_t *r, const char *marker, const char *more) {
  const char *t;
  size_t n;
  PM_CALL(pm_scan_token(&r->s, &t, &n));
  if (!t) return MSH_FAIL(r, PM_ERR_FORMAT, "the file ends inside %s (expected '%s')", r->sect, marker);
  if (n != strlen(marker) || memcmp(t, marker, n) != 0)
    return MSH_FAIL(r, PM_ERR_FORMAT, "expected '%s', found '%s'%s", marker, pm_msh_rd_show(r, t, n), more);
  return PM_OK;
}

int pm_msh_rd_check_count(msh_rd_t *r, int64_t n, int64_t each, const char *what) {
  if (n < 0) return MSH_FAIL(r, PM_ERR_FORMAT, "%s in the %s header is negative (%lld)", what, r->sect, (long long)n);
  int64_t left = pm_scan_remaining(&r->s);
  if (n > 0 && (left <= 0 || n > left / each))
    return MSH_FAIL(r, PM_ERR_FORMAT,
                    "count %lld (%s) in the %s header is larger than the file could hold "
                    "(%lld bytes left, each entry needs at least %lld)",
                    (long long)n, what, r->sect, (long long)(left > 0 ? left : 0), (long long)each);
  return PM_OK;
}

/* ---- binary items ---- */

void pm_msh_rd_decode_szt(const msh_rd_t *r, const unsigned char *src, int64_t *dst, int64_t n) {
  if (r->szt == 8 && !r->swap) {
    memcpy(dst, src, (size_t)n * 8);
  } else if (r->szt == 8) {
    for (int64_t i = 0; i < n; i++) {
      uint64_t u;
      memcpy(&u, src + 8 * i, 8);
      dst[i] = (int64_t)msh_bswap64(u);
    }
  } else {
    for (int64_t i = 0; i < n; i++) {
      uint32_t u;
      memcpy(&u, src + 4 * i, 4);
      dst[i] = r->swap ? msh_bswap32(u) : u;
    }
  }
}

int pm_msh_rd_bint(msh_rd_t *r, int32_t *v) {
  unsigned char b[4];
  PM_CALL(msh_raw(r, b, 4));
  *v = msh_get_i32(r, b);
  return PM_OK;
}

int pm_msh_rd_bsize(msh_rd_t *r, int64_t lo, const char *what, int64_t *v) {
  unsigned char b[8];
  int64_t at = pm_scan_offset(&r->s);
  PM_CALL(msh_raw(r, b, (size_t)r->szt));
  uint64_t u = msh_get_szt(r, b);
  if (u > (uint64_t)INT64_MAX || (int64_t)u < lo)
    return MSH_FAIL_AT(r, at, PM_ERR_FORMAT, "%s must be in [%lld, %lld], found %llu", what, (long long)lo,
                       (long long)INT64_MAX, (unsigned long long)u);
  *v = (int64_t)u;
  return PM_OK;
}

int pm_msh_rd_count(msh_rd_t *r, int bin, int64_t each, const char *what, int64_t *n) {
  if (bin)
    PM_CALL(pm_msh_rd_bsize(r, 0, what, n));
  else
    PM_CALL(pm_msh_rd_int(r, INT64_MIN, INT64_MAX, what, n));
  return pm_msh_rd_check_count(r, *n, each, what);
}

int pm_msh_rd_eol(msh_rd_t *r) {
  const char *l;
  size_t n;
  PM_CALL(pm_scan_line(&r->s, &l, &n));
  for (size_t i = 0; i < n; i++)
    if (l[i] != ' ' && l[i] != '\t')
      return MSH_FAIL(r, PM_ERR_FORMAT, "expected the end of the line, found '%s'", pm_msh_rd_show(r, l, n));
  return PM_OK;
}
