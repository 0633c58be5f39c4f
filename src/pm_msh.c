/* pm_msh.c - Gmsh MSH reader: versions 2.2 and 4.1, ASCII and binary (either endianness).
 *
 * One streaming pass through pm_scan's fixed window.  Every count read from a header is checked
 * against the bytes left in the file before anything is allocated, so a corrupt or hostile
 * header gives a message instead of a giant allocation.  Node tags go into a bitmap (dense
 * tags, the usual case) or a hash set (sparse tags) after $EndNodes, so duplicate tags and
 * elements that name missing nodes are found in linear time. */
#include "pmesh/pm_msh.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_scan.h"
#include "pmesh/pm_error.h"

#define MSH_CONVERT "convert it with 'gmsh FILE -format msh41 -save -o out.msh'"
/* Bytes of the buffer binary blocks are read through (the fuzzer builds with less). */
#ifndef PM_MSH_SCRATCH_BYTES
#define PM_MSH_SCRATCH_BYTES (1 << 18)
#endif
enum { MSH_SCRATCH = PM_MSH_SCRATCH_BYTES };

int pm_msh_type_nodes(int type) {
  switch (type) {
    case PM_MSH_POINT:
      return 1;
    case PM_MSH_LINE:
      return 2;
    case PM_MSH_TRI:
      return 3;
    case PM_MSH_QUAD:
      return 4;
    default:
      return -1;
  }
}

int pm_msh_type_dim(int type) {
  switch (type) {
    case PM_MSH_POINT:
      return 0;
    case PM_MSH_LINE:
      return 1;
    case PM_MSH_TRI:
    case PM_MSH_QUAD:
      return 2;
    default:
      return -1;
  }
}

/* Human names of Gmsh's element types, for messages about the ones pmesh does not read. */
static const char *msh_type_name(int64_t type) {
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

/* ---- a set of positive int64 tags: bitmap over [min, max] when dense, else open hashing ---- */

typedef struct msh_set {
  int64_t min;    /* bitmap: tag of bit 0 */
  uint64_t nbits; /* bitmap: max - min + 1; 0 when hashing */
  uint64_t *bits;
  uint64_t mask; /* hash: capacity - 1 */
  int64_t *keys; /* hash: 0 marks an empty slot (tags are >= 1) */
} msh_set_t;

static uint64_t msh_mix(uint64_t x) { /* splitmix64 finalizer */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static void msh_set_free(msh_set_t *st) {
  free(st->bits);
  free(st->keys);
  memset(st, 0, sizeof *st);
}

static int msh_set_has(const msh_set_t *st, int64_t key) {
  if (st->bits) {
    uint64_t i = (uint64_t)key - (uint64_t)st->min;
    return key >= st->min && i < st->nbits && (st->bits[i >> 6] >> (i & 63) & 1);
  }
  if (!st->keys) return 0;
  for (uint64_t h = msh_mix((uint64_t)key) & st->mask;; h = (h + 1) & st->mask) {
    if (st->keys[h] == key) return 1;
    if (st->keys[h] == 0) return 0;
  }
}

/* Build the set of tags[0..n); *dup = index of the first repeated tag, or -1. */
static int msh_set_build(msh_set_t *st, const int64_t *tags, int64_t n, int64_t *dup) {
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

/* ---- the reader's state ---- */

typedef struct msh_ent { /* a 4.1 entity: (dim, tag) -> physical tags ent_phys[off, off+n) */
  int32_t dim, tag;
  int64_t off, n;
} msh_ent_t;

typedef struct msh_blk { /* a 4.1 element block: elements [first, first+count) of one entity */
  int32_t dim, tag;
  int64_t first, count;
} msh_blk_t;

typedef struct msh_rd {
  pm_scan_t s;
  pm_msh_t *m;
  int binary, swap; /* binary file; its byte order is not the host's */
  int szt;          /* bytes of a size_t in a 4.1 binary file (4 or 8) */
  int v41;          /* 1 for MSH 4.1, 0 for 2.2 */
  const char *sect; /* section being read, for messages */
  int64_t sect_at;  /* line (ASCII) or byte offset (binary) where it starts */
  int64_t elems_at; /* the same for $Elements */
  unsigned char *scratch;
  int64_t *vals;     /* scratch decoded to int64 (MSH_SCRATCH / 4 entries) */
  int64_t enode_cap; /* allocated entries of m->elem_node */
  int64_t n_ent;
  msh_ent_t *ent;
  int64_t n_ent_phys, ent_phys_cap;
  int32_t *ent_phys;
  int64_t n_blk;
  msh_blk_t *blk;
  msh_set_t nodes; /* node tags, once $EndNodes has been read */
  int have_set, have_names, have_entities, have_nodes, have_elems;
  int unchecked; /* $Elements came before $Nodes: its node tags are checked at the end */
  char show[80];
} msh_rd_t;

static int64_t msh_where(const msh_rd_t *r) {
  return r->binary ? pm_scan_offset(&r->s) : r->s.line;
}

/* Record a message located at `where` (a line, or a byte offset in binary files). */
static int msh_fail_(msh_rd_t *r, int64_t where, int code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
static int msh_fail_(msh_rd_t *r, int64_t where, int code, const char *file, int line, const char *fmt, ...) {
  char msg[1536];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (r->binary) return pm_error_set(code, file, line, "%s: byte offset %lld: %s", r->s.path, (long long)where, msg);
  return pm_error_set(code, file, line, "%s:%lld: %s", r->s.path, (long long)where, msg);
}
#define MSH_FAIL(r, code, ...) msh_fail_((r), msh_where(r), (code), __FILE__, __LINE__, __VA_ARGS__)
#define MSH_FAIL_AT(r, where, code, ...) msh_fail_((r), (where), (code), __FILE__, __LINE__, __VA_ARGS__)

/* A printable copy of a token for messages (binary garbage shows as '?'). */
static const char *msh_show(msh_rd_t *r, const char *t, size_t n) {
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

/* Next token; the end of the file is an error naming the section and what was expected. */
static int msh_tok(msh_rd_t *r, const char *what, const char **t, size_t *n) {
  PM_CALL(pm_scan_token(&r->s, t, n));
  if (!*t) return MSH_FAIL(r, PM_ERR_FORMAT, "the file ends inside %s (expected %s)", r->sect, what);
  return PM_OK;
}

/* A token that should have been a number: say what it is instead. */
static int msh_not_number(msh_rd_t *r, const char *what, const char *kind, const char *t, size_t n) {
  if (t[0] == '$')
    return MSH_FAIL(r, PM_ERR_FORMAT, "expected %s, found '%s': %s has fewer entries than its header announces", what,
                    msh_show(r, t, n), r->sect);
  return MSH_FAIL(r, PM_ERR_FORMAT, "expected %s (%s), found '%s'", what, kind, msh_show(r, t, n));
}

static int msh_int(msh_rd_t *r, int64_t lo, int64_t hi, const char *what, int64_t *v) {
  const char *t;
  size_t n;
  PM_CALL(msh_tok(r, what, &t, &n));
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
    return MSH_FAIL(r, PM_ERR_FORMAT, "%s %s is out of range", what, msh_show(r, t, n));
  int64_t x = neg ? (int64_t)(0 - acc) : (int64_t)acc;
  if (x < lo || x > hi)
    return MSH_FAIL(r, PM_ERR_FORMAT, "%s must be in [%lld, %lld], found %lld", what, (long long)lo, (long long)hi,
                    (long long)x);
  *v = x;
  return PM_OK;
}

static int msh_int32(msh_rd_t *r, const char *what, int32_t *v) {
  int64_t x;
  PM_CALL(msh_int(r, INT32_MIN, INT32_MAX, what, &x));
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

static int msh_real(msh_rd_t *r, const char *what, double *v) {
  const char *t;
  size_t n;
  PM_CALL(msh_tok(r, what, &t, &n));
  if (msh_fast_real(t, n, v)) return PM_OK;
  char *end;
  double x = strtod(t, &end); /* stops at the whitespace or NUL sentinel after the token */
  if (end != t + n) return msh_not_number(r, what, "a number", t, n);
  if (!isfinite(x)) return MSH_FAIL(r, PM_ERR_FORMAT, "%s is not finite: '%s'", what, msh_show(r, t, n));
  *v = x;
  return PM_OK;
}

/* The section's closing marker; `more` explains a mismatch. */
static int msh_end(msh_rd_t *r, const char *marker, const char *more) {
  const char *t;
  size_t n;
  PM_CALL(pm_scan_token(&r->s, &t, &n));
  if (!t) return MSH_FAIL(r, PM_ERR_FORMAT, "the file ends inside %s (expected '%s')", r->sect, marker);
  if (n != strlen(marker) || memcmp(t, marker, n) != 0)
    return MSH_FAIL(r, PM_ERR_FORMAT, "expected '%s', found '%s'%s", marker, msh_show(r, t, n), more);
  return PM_OK;
}

/* A count must be >= 0 and no larger than the rest of the file could hold at `each` bytes
 * per item: a bad header gives a message, never a giant allocation. */
static int msh_check_count(msh_rd_t *r, int64_t n, int64_t each, const char *what) {
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

static uint32_t msh_bswap32(uint32_t x) {
  return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}
static uint64_t msh_bswap64(uint64_t x) {
  return ((uint64_t)msh_bswap32((uint32_t)x) << 32) | msh_bswap32((uint32_t)(x >> 32));
}

static int msh_raw(msh_rd_t *r, void *dst, size_t n) {
  return pm_scan_bytes(&r->s, dst, n, r->sect);
}

static int32_t msh_get_i32(const msh_rd_t *r, const unsigned char *p) {
  uint32_t u;
  memcpy(&u, p, 4);
  if (r->swap) u = msh_bswap32(u);
  return (int32_t)u;
}

/* A size_t of the 4.1 binary file, as uint64. */
static uint64_t msh_get_szt(const msh_rd_t *r, const unsigned char *p) {
  if (r->szt == 4) return (uint32_t)msh_get_i32(r, p);
  uint64_t u;
  memcpy(&u, p, 8);
  return r->swap ? msh_bswap64(u) : u;
}

/* Decode n size_t values of a 4.1 binary file; values above INT64_MAX come out negative. */
static void msh_decode_szt(const msh_rd_t *r, const unsigned char *src, int64_t *dst, int64_t n) {
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

static double msh_get_f64(const msh_rd_t *r, const unsigned char *p) {
  uint64_t u;
  memcpy(&u, p, 8);
  if (r->swap) u = msh_bswap64(u);
  double x;
  memcpy(&x, &u, 8);
  return x;
}

static int msh_bint(msh_rd_t *r, int32_t *v) {
  unsigned char b[4];
  PM_CALL(msh_raw(r, b, 4));
  *v = msh_get_i32(r, b);
  return PM_OK;
}

/* A size_t count or tag of a 4.1 binary file, in [lo, INT64_MAX]. */
static int msh_bsize(msh_rd_t *r, int64_t lo, const char *what, int64_t *v) {
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

/* A count: in ASCII an integer token, in binary 4.1 a size_t; then checked against the file. */
static int msh_count(msh_rd_t *r, int bin, int64_t each, const char *what, int64_t *n) {
  if (bin)
    PM_CALL(msh_bsize(r, 0, what, n));
  else
    PM_CALL(msh_int(r, INT64_MIN, INT64_MAX, what, n));
  return msh_check_count(r, *n, each, what);
}

/* After a text header line of a binary section: consume the rest of it, up to its newline. */
static int msh_eol(msh_rd_t *r) {
  const char *l;
  size_t n;
  PM_CALL(pm_scan_line(&r->s, &l, &n));
  for (size_t i = 0; i < n; i++)
    if (l[i] != ' ' && l[i] != '\t')
      return MSH_FAIL(r, PM_ERR_FORMAT, "expected the end of the line, found '%s'", msh_show(r, l, n));
  return PM_OK;
}

/* ---- sections ---- */

static int msh_read_format(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  const char *t;
  size_t n;
  r->sect = "$MeshFormat";
  PM_CALL(msh_tok(r, "the version number", &t, &n));
  if (n == 3 && memcmp(t, "2.2", 3) == 0) {
    m->version_major = 2;
    m->version_minor = 2;
  } else if (n == 3 && memcmp(t, "4.1", 3) == 0) {
    m->version_major = 4;
    m->version_minor = 1;
    r->v41 = 1;
  } else {
    return MSH_FAIL(r, PM_ERR_UNSUPPORTED,
                    "MSH version '%s' is not supported: pmesh reads MSH 2.2 and 4.1; " MSH_CONVERT, msh_show(r, t, n));
  }
  int64_t ftype, dsize;
  PM_CALL(msh_int(r, 0, 1, "the file type (0 for ASCII, 1 for binary)", &ftype));
  PM_CALL(msh_int(r, INT64_MIN, INT64_MAX, "the data size", &dsize));
  if (r->v41) {
    if (dsize != 8 && dsize != 4)
      return MSH_FAIL(r, PM_ERR_UNSUPPORTED,
                      "the data size (sizeof(size_t)) of an MSH 4.1 file must be 8 or 4, found "
                      "%lld",
                      (long long)dsize);
    r->szt = (int)dsize;
  } else if (dsize != 8) {
    return MSH_FAIL(r, PM_ERR_UNSUPPORTED, "the data size (sizeof(double)) of an MSH 2.2 file must be 8, found %lld",
                    (long long)dsize);
  }
  if (ftype == 1) {
    PM_CALL(msh_eol(r));
    r->binary = 1;
    r->s.offsets = 1;
    int64_t at = pm_scan_offset(&r->s);
    unsigned char b[4];
    PM_CALL(msh_raw(r, b, 4));
    uint32_t one;
    memcpy(&one, b, 4);
    if (one == 0x01000000u) {
      r->swap = 1;
    } else if (one != 1) {
      return MSH_FAIL_AT(r, at, PM_ERR_FORMAT,
                         "bad endianness marker: expected the int 1 after the $MeshFormat line, "
                         "found bytes %02x %02x %02x %02x",
                         b[0], b[1], b[2], b[3]);
    }
    m->binary = 1;
  }
  return msh_end(r, "$EndMeshFormat", "");
}

static int msh_read_names(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int64_t n;
  r->sect = "$PhysicalNames";
  PM_CALL(msh_count(r, 0, 6, "number of physical names", &n));
  if (n > INT32_MAX)
    return MSH_FAIL(r, PM_ERR_UNSUPPORTED, "%lld physical names: pmesh reads at most %d", (long long)n, (int)INT32_MAX);
  PM_CALL(PM_CALLOC(m->phys_names, n, "physical names"));
  for (int64_t i = 0; i < n; i++) {
    pm_msh_phys_name_t *p = &m->phys_names[i];
    int64_t dim;
    PM_CALL(msh_int(r, 0, 3, "the dimension of a physical name", &dim));
    PM_CALL(msh_int32(r, "a physical tag", &p->tag));
    p->dim = (int)dim;
    m->n_phys_names = (int)(i + 1);
    const char *l;
    size_t len;
    PM_CALL(pm_scan_line(&r->s, &l, &len));
    while (len > 0 && (*l == ' ' || *l == '\t')) l++, len--;
    while (len > 0 && (l[len - 1] == ' ' || l[len - 1] == '\t')) len--;
    if (len >= 2 && l[0] == '"' && l[len - 1] == '"') {
      l++;
      len -= 2;
    } else if (len == 0 || l[0] == '"') {
      /* the line counter has moved past this line already */
      return MSH_FAIL_AT(r, r->binary ? pm_scan_offset(&r->s) : r->s.line - 1, PM_ERR_FORMAT,
                         "expected a quoted physical name after '%d %d', found '%s'", p->dim, p->tag,
                         msh_show(r, l, len));
    }
    PM_CALL(PM_MALLOC(p->name, len + 1, "a physical name"));
    memcpy(p->name, l, len);
    p->name[len] = '\0';
  }
  return msh_end(r, "$EndPhysicalNames", ": $PhysicalNames holds more names than its header announces");
}

static int msh_ent_cmp(const void *a, const void *b) {
  const msh_ent_t *x = a, *y = b;
  if (x->dim != y->dim) return x->dim < y->dim ? -1 : 1;
  return (x->tag > y->tag) - (x->tag < y->tag);
}

static int msh_push_phys(msh_rd_t *r, int32_t phys) {
  if (r->n_ent_phys == r->ent_phys_cap) {
    int64_t cap = r->ent_phys_cap ? 2 * r->ent_phys_cap : 64;
    PM_CALL(PM_REALLOC(r->ent_phys, cap, "physical tags of entities"));
    r->ent_phys_cap = cap;
  }
  r->ent_phys[r->n_ent_phys++] = phys;
  return PM_OK;
}

/* MSH 4.1 $Entities: remember each entity's physical tags; skip coordinates and boundaries. */
static int msh_read_entities(msh_rd_t *r) {
  int bin = r->binary, sz = r->szt;
  int64_t cnt[4], total = 0;
  r->sect = "$Entities";
  static const char *const what[4] = {"number of points", "number of curves", "number of surfaces",
                                      "number of volumes"};
  for (int d = 0; d < 4; d++) {
    PM_CALL(msh_count(r, bin, bin ? 4 + 24 + sz : 10, what[d], &cnt[d]));
    total += cnt[d];
  }
  PM_CALL(msh_check_count(r, total, bin ? 4 + 24 + sz : 10, "number of entities"));
  PM_CALL(PM_MALLOC(r->ent, total, "entities"));
  for (int d = 0; d < 4; d++) {
    for (int64_t i = 0; i < cnt[d]; i++) {
      msh_ent_t *e = &r->ent[r->n_ent];
      e->dim = d;
      e->off = r->n_ent_phys;
      int64_t nphys, nbound;
      if (bin) {
        unsigned char b[4 + 48];
        PM_CALL(msh_raw(r, b, d ? 4 + 48 : 4 + 24));
        e->tag = msh_get_i32(r, b);
        PM_CALL(msh_count(r, 1, 4, "number of physical tags of an entity", &nphys));
        for (int64_t k = 0; k < nphys; k++) {
          int32_t p;
          PM_CALL(msh_bint(r, &p));
          PM_CALL(msh_push_phys(r, p));
        }
        if (d) {
          PM_CALL(msh_count(r, 1, 4, "number of bounding entities", &nbound));
          for (int64_t k = 0; k < nbound; k++) PM_CALL(msh_raw(r, b, 4));
        }
      } else {
        double x;
        PM_CALL(msh_int32(r, "an entity tag", &e->tag));
        for (int k = 0; k < (d ? 6 : 3); k++) PM_CALL(msh_real(r, "a coordinate of an entity's bounding box", &x));
        PM_CALL(msh_count(r, 0, 2, "number of physical tags of an entity", &nphys));
        for (int64_t k = 0; k < nphys; k++) {
          int32_t p;
          PM_CALL(msh_int32(r, "a physical tag", &p));
          PM_CALL(msh_push_phys(r, p));
        }
        if (d) {
          PM_CALL(msh_count(r, 0, 2, "number of bounding entities", &nbound));
          for (int64_t k = 0; k < nbound; k++) {
            int32_t b;
            PM_CALL(msh_int32(r, "a bounding entity tag", &b));
          }
        }
      }
      e->n = nphys;
      r->n_ent++;
    }
  }
  PM_CALL(msh_end(r, "$EndEntities", ": $Entities holds more entities than its header announces"));
  qsort(r->ent, (size_t)r->n_ent, sizeof *r->ent, msh_ent_cmp);
  for (int64_t i = 1; i < r->n_ent; i++)
    if (msh_ent_cmp(&r->ent[i - 1], &r->ent[i]) == 0)
      return MSH_FAIL_AT(r, r->sect_at, PM_ERR_FORMAT, "entity (dimension %d, tag %d) is listed twice in $Entities",
                         (int)r->ent[i].dim, (int)r->ent[i].tag);
  return PM_OK;
}

static int msh_alloc_nodes(msh_rd_t *r, int64_t n) {
  pm_msh_t *m = r->m;
  PM_CALL(PM_MALLOC(m->node_tag, n, "node tags"));
  PM_CALL(PM_MALLOC(m->xyz, 3 * n, "node coordinates"));
  return PM_OK;
}

static int msh_bad_coord(msh_rd_t *r, int64_t at, int64_t tag, double x) {
  return MSH_FAIL_AT(r, at, PM_ERR_FORMAT, "node %lld has a coordinate that is not finite (%g)", (long long)tag, x);
}

/* MSH 4.1 $Nodes: entity blocks of tags, then coordinates (and parametric ones, discarded). */
static int msh_read_nodes41(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int bin = r->binary, sz = r->szt;
  int64_t nblk, nn, dummy;
  PM_CALL(msh_count(r, bin, bin ? 12 + sz : 8, "number of entity blocks", &nblk));
  PM_CALL(msh_count(r, bin, bin ? sz + 24 : 8, "number of nodes", &nn));
  if (bin) {
    PM_CALL(msh_bsize(r, 0, "the minimum node tag", &dummy));
    PM_CALL(msh_bsize(r, 0, "the maximum node tag", &dummy));
  } else {
    PM_CALL(msh_int(r, 0, INT64_MAX, "the minimum node tag", &dummy));
    PM_CALL(msh_int(r, 0, INT64_MAX, "the maximum node tag", &dummy));
  }
  PM_CALL(msh_alloc_nodes(r, nn));
  int64_t got = 0;
  for (int64_t b = 0; b < nblk; b++) {
    int32_t edim, etag, param;
    int64_t cnt, at = pm_scan_offset(&r->s);
    if (bin) {
      unsigned char h[12];
      PM_CALL(msh_raw(r, h, 12));
      edim = msh_get_i32(r, h);
      etag = msh_get_i32(r, h + 4);
      param = msh_get_i32(r, h + 8);
      if (edim < 0 || edim > 3 || param < 0 || param > 1)
        return MSH_FAIL_AT(r, at, PM_ERR_FORMAT,
                           "node block %lld: expected an entity dimension in [0, 3] and a "
                           "parametric flag 0 or 1, found %d and %d",
                           (long long)b + 1, (int)edim, (int)param);
      PM_CALL(msh_count(r, 1, sz + 24, "number of nodes in a block", &cnt));
    } else {
      int64_t x;
      PM_CALL(msh_int(r, 0, 3, "the entity dimension of a node block", &x));
      edim = (int32_t)x;
      PM_CALL(msh_int32(r, "the entity tag of a node block", &etag));
      PM_CALL(msh_int(r, 0, 1, "the parametric flag of a node block", &x));
      param = (int32_t)x;
      PM_CALL(msh_count(r, 0, 8, "number of nodes in a block", &cnt));
    }
    if (cnt > nn - got)
      return MSH_FAIL(r, PM_ERR_FORMAT,
                      "the node blocks hold more than the %lld nodes announced in the $Nodes "
                      "header",
                      (long long)nn);
    int npar = param ? edim : 0;
    int64_t *tag = m->node_tag + got;
    double *xyz = m->xyz + 3 * got;
    if (bin) {
      int64_t done = 0, per = MSH_SCRATCH / sz;
      while (done < cnt) {
        int64_t k = cnt - done < per ? cnt - done : per;
        int64_t at0 = pm_scan_offset(&r->s);
        PM_CALL(msh_raw(r, r->scratch, (size_t)(k * sz)));
        msh_decode_szt(r, r->scratch, tag + done, k);
        for (int64_t i = 0; i < k; i++)
          if (tag[done + i] < 1)
            return MSH_FAIL_AT(r, at0 + i * sz, PM_ERR_FORMAT, "node tags must be in [1, %lld], found %llu",
                               (long long)INT64_MAX, (unsigned long long)tag[done + i]);
        done += k;
      }
      int64_t rec = 8 * (3 + npar);
      per = MSH_SCRATCH / rec;
      done = 0;
      while (done < cnt) {
        int64_t k = cnt - done < per ? cnt - done : per;
        int64_t at0 = pm_scan_offset(&r->s);
        PM_CALL(msh_raw(r, r->scratch, (size_t)(k * rec)));
        for (int64_t i = 0; i < k; i++) {
          for (int c = 0; c < 3; c++) {
            double x = msh_get_f64(r, r->scratch + i * rec + 8 * c);
            if (!isfinite(x)) return msh_bad_coord(r, at0 + i * rec + 8 * c, tag[done + i], x);
            xyz[3 * (done + i) + c] = x;
          }
        }
        done += k;
      }
    } else {
      for (int64_t i = 0; i < cnt; i++) PM_CALL(msh_int(r, 1, INT64_MAX, "a node tag", &tag[i]));
      for (int64_t i = 0; i < cnt; i++) {
        for (int c = 0; c < 3; c++) PM_CALL(msh_real(r, "a node coordinate", &xyz[3 * i + c]));
        for (int c = 0; c < npar; c++) {
          double u;
          PM_CALL(msh_real(r, "a parametric node coordinate", &u));
        }
      }
    }
    got += cnt;
  }
  if (got != nn)
    return MSH_FAIL(r, PM_ERR_FORMAT, "the $Nodes header announces %lld nodes but its %lld blocks hold %lld",
                    (long long)nn, (long long)nblk, (long long)got);
  m->n_nodes = nn;
  return msh_end(r, "$EndNodes", ": $Nodes holds more blocks than its header announces");
}

/* MSH 2.2 $Nodes: "tag x y z" lines, or binary records of int tag and 3 doubles. */
static int msh_read_nodes22(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int64_t nn;
  PM_CALL(msh_count(r, 0, r->binary ? 28 : 8, "number of nodes", &nn));
  PM_CALL(msh_alloc_nodes(r, nn));
  if (r->binary) {
    PM_CALL(msh_eol(r));
    int64_t done = 0, per = MSH_SCRATCH / 28;
    while (done < nn) {
      int64_t k = nn - done < per ? nn - done : per;
      int64_t at0 = pm_scan_offset(&r->s);
      PM_CALL(msh_raw(r, r->scratch, (size_t)(k * 28)));
      for (int64_t i = 0; i < k; i++) {
        const unsigned char *p = r->scratch + 28 * i;
        int32_t tag = msh_get_i32(r, p);
        if (tag < 1)
          return MSH_FAIL_AT(r, at0 + 28 * i, PM_ERR_FORMAT, "node tags must be positive, found %d", (int)tag);
        m->node_tag[done + i] = tag;
        for (int c = 0; c < 3; c++) {
          double x = msh_get_f64(r, p + 4 + 8 * c);
          if (!isfinite(x)) return msh_bad_coord(r, at0 + 28 * i + 4 + 8 * c, tag, x);
          m->xyz[3 * (done + i) + c] = x;
        }
      }
      done += k;
    }
  } else {
    for (int64_t i = 0; i < nn; i++) {
      PM_CALL(msh_int(r, 1, INT64_MAX, "a node tag", &m->node_tag[i]));
      for (int c = 0; c < 3; c++) PM_CALL(msh_real(r, "a node coordinate", &m->xyz[3 * i + c]));
    }
  }
  m->n_nodes = nn;
  return msh_end(r, "$EndNodes", ": $Nodes holds more nodes than its header announces");
}

/* After $EndNodes: the set of node tags; a repeated tag is an error. */
static int msh_build_node_set(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int64_t dup;
  PM_CALL(msh_set_build(&r->nodes, m->node_tag, m->n_nodes, &dup));
  r->have_set = 1;
  if (dup >= 0) {
    int64_t first = 0;
    while (m->node_tag[first] != m->node_tag[dup]) first++;
    return MSH_FAIL_AT(r, r->sect_at, PM_ERR_FORMAT,
                       "node tag %lld appears twice in the $Nodes section starting here (nodes "
                       "number %lld and %lld in file order); node tags must be unique",
                       (long long)m->node_tag[dup], (long long)first + 1, (long long)dup + 1);
  }
  return PM_OK;
}

static int msh_alloc_elems(msh_rd_t *r, int64_t n) {
  pm_msh_t *m = r->m;
  PM_CALL(PM_MALLOC(m->elem_type, n, "element types"));
  PM_CALL(PM_MALLOC(m->elem_tag, n, "element tags"));
  PM_CALL(PM_MALLOC(m->elem_entity, n, "element entities"));
  PM_CALL(PM_MALLOC(m->elem_ptr, n + 1, "element offsets"));
  PM_CALL(PM_MALLOC(m->elem_node, 0, "element nodes")); /* grown by msh_reserve_enode */
  m->elem_ptr[0] = 0;
  return PM_OK;
}

/* Room for `more` node tags in elem_node (geometric growth, at most 4 per element). */
static int msh_reserve_enode(msh_rd_t *r, int64_t used, int64_t more, int64_t n_elems) {
  if (used + more <= r->enode_cap) return PM_OK;
  int64_t cap = r->enode_cap + r->enode_cap / 2;
  if (cap < used + more) cap = used + more;
  if (cap > 4 * n_elems) cap = 4 * n_elems;
  if (cap < used + more) cap = used + more;
  PM_CALL(PM_REALLOC(r->m->elem_node, cap, "element nodes"));
  r->enode_cap = cap;
  return PM_OK;
}

static int msh_unsupported_type(msh_rd_t *r, int64_t at, int64_t type, int64_t etag) {
  char tagbuf[64] = "";
  if (etag > 0) snprintf(tagbuf, sizeof tagbuf, " (element %lld)", (long long)etag);
  return MSH_FAIL_AT(r, at, PM_ERR_UNSUPPORTED,
                     "element type %lld (%s)%s is not supported: pmesh reads 1-node points (15), "
                     "2-node lines (1), 3-node triangles (2) and 4-node quadrangles (3)",
                     (long long)type, msh_type_name(type), tagbuf);
}

static int msh_missing_node(msh_rd_t *r, int64_t at, int64_t etag, int64_t ntag) {
  return MSH_FAIL_AT(r, at, PM_ERR_FORMAT, "element %lld refers to node %lld, which is not in the $Nodes section",
                     (long long)etag, (long long)ntag);
}

/* MSH 4.1 $Elements: blocks of one type, one entity. */
static int msh_read_elems41(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int bin = r->binary, sz = r->szt;
  int64_t nblk, ne, dummy;
  PM_CALL(msh_count(r, bin, bin ? 12 + sz : 8, "number of entity blocks", &nblk));
  PM_CALL(msh_count(r, bin, bin ? 2 * sz : 4, "number of elements", &ne));
  if (bin) {
    PM_CALL(msh_bsize(r, 0, "the minimum element tag", &dummy));
    PM_CALL(msh_bsize(r, 0, "the maximum element tag", &dummy));
  } else {
    PM_CALL(msh_int(r, 0, INT64_MAX, "the minimum element tag", &dummy));
    PM_CALL(msh_int(r, 0, INT64_MAX, "the maximum element tag", &dummy));
  }
  PM_CALL(msh_alloc_elems(r, ne));
  PM_CALL(PM_MALLOC(r->blk, nblk, "element blocks"));
  int64_t got = 0, used = 0;
  for (int64_t b = 0; b < nblk; b++) {
    int32_t edim, etag, type;
    int64_t cnt, at = msh_where(r);
    if (bin) {
      unsigned char h[12];
      PM_CALL(msh_raw(r, h, 12));
      edim = msh_get_i32(r, h);
      etag = msh_get_i32(r, h + 4);
      type = msh_get_i32(r, h + 8);
      PM_CALL(msh_count(r, 1, 2 * sz, "number of elements in a block", &cnt));
    } else {
      int64_t x;
      PM_CALL(msh_int(r, 0, 3, "the entity dimension of an element block", &x));
      edim = (int32_t)x;
      PM_CALL(msh_int32(r, "the entity tag of an element block", &etag));
      PM_CALL(msh_int32(r, "an element type", &type));
      at = msh_where(r);
      PM_CALL(msh_count(r, 0, 4, "number of elements in a block", &cnt));
    }
    int k = pm_msh_type_nodes(type);
    if (k < 0) {
      int64_t first = 0;
      if (cnt > 0) {
        if (bin)
          PM_CALL(msh_bsize(r, 0, "an element tag", &first));
        else
          PM_CALL(msh_int(r, 0, INT64_MAX, "an element tag", &first));
      }
      return msh_unsupported_type(r, at, type, first);
    }
    if (pm_msh_type_dim(type) != edim)
      return MSH_FAIL_AT(r, at, PM_ERR_FORMAT, "element type %d (%s) in a block of entity dimension %d", (int)type,
                         msh_type_name(type), (int)edim);
    if (cnt > ne - got)
      return MSH_FAIL(r, PM_ERR_FORMAT,
                      "the element blocks hold more than the %lld elements announced in the "
                      "$Elements header",
                      (long long)ne);
    PM_CALL(msh_reserve_enode(r, used, cnt * k, ne));
    msh_blk_t *blk = &r->blk[r->n_blk++];
    blk->dim = edim;
    blk->tag = etag;
    blk->first = got;
    blk->count = cnt;
    int64_t rec = (int64_t)(1 + k) * sz, per = MSH_SCRATCH / rec, done = 0;
    while (done < cnt) {
      int64_t nk = bin ? (cnt - done < per ? cnt - done : per) : 1;
      int64_t at0 = msh_where(r);
      if (bin) {
        PM_CALL(msh_raw(r, r->scratch, (size_t)(nk * rec)));
        msh_decode_szt(r, r->scratch, r->vals, nk * (1 + k));
      }
      for (int64_t i = 0; i < nk; i++) {
        int64_t e = got + done + i, v[5];
        if (bin) {
          const int64_t *w = r->vals + i * (1 + k);
          for (int c = 0; c <= k; c++) {
            if (w[c] < 1)
              return MSH_FAIL_AT(r, at0 + i * rec + c * sz, PM_ERR_FORMAT,
                                 "element and node tags must be in [1, %lld], found %llu", (long long)INT64_MAX,
                                 (unsigned long long)w[c]);
            v[c] = w[c];
          }
        } else {
          PM_CALL(msh_int(r, 1, INT64_MAX, "an element tag", &v[0]));
          for (int c = 1; c <= k; c++) PM_CALL(msh_int(r, 1, INT64_MAX, "a node tag", &v[c]));
        }
        m->elem_type[e] = (int8_t)type;
        m->elem_tag[e] = v[0];
        m->elem_entity[e] = etag;
        for (int c = 1; c <= k; c++) {
          if (r->have_set && !msh_set_has(&r->nodes, v[c]))
            return msh_missing_node(r, bin ? at0 + i * rec : msh_where(r), v[0], v[c]);
          m->elem_node[used++] = v[c];
        }
        m->elem_ptr[e + 1] = used;
      }
      done += nk;
    }
    got += cnt;
  }
  if (got != ne)
    return MSH_FAIL(r, PM_ERR_FORMAT, "the $Elements header announces %lld elements but its %lld blocks hold %lld",
                    (long long)ne, (long long)nblk, (long long)got);
  m->n_elems = ne;
  return msh_end(r, "$EndElements", ": $Elements holds more blocks than its header announces");
}

/* Room for one membership per element (MSH 2.2 gives at most one). */
static int msh_add_member22(msh_rd_t *r, int64_t e, int64_t phys) {
  pm_msh_t *m = r->m;
  if (phys == 0) return PM_OK; /* Gmsh writes 0 for "no physical group" */
  m->member_elem[m->n_member] = e;
  m->member_phys[m->n_member] = (int32_t)phys;
  m->n_member++;
  return PM_OK;
}

/* MSH 2.2 ASCII $Elements: "tag type ntags tags... nodes..." lines. */
static int msh_read_elems22_ascii(msh_rd_t *r, int64_t ne) {
  pm_msh_t *m = r->m;
  int64_t used = 0;
  for (int64_t e = 0; e < ne; e++) {
    int64_t etag, type, ntags, phys = 0, ent = 0, x;
    PM_CALL(msh_int(r, 1, INT64_MAX, "an element tag", &etag));
    int64_t at = msh_where(r);
    PM_CALL(msh_int(r, INT64_MIN, INT64_MAX, "an element type", &type));
    int k = type >= INT32_MIN && type <= INT32_MAX ? pm_msh_type_nodes((int)type) : -1;
    if (k < 0) return msh_unsupported_type(r, at, type, etag);
    PM_CALL(msh_int(r, 0, INT32_MAX, "the number of tags of an element", &ntags));
    for (int64_t t = 0; t < ntags; t++) {
      if (t < 2) {
        PM_CALL(msh_int(r, INT32_MIN, INT32_MAX, t ? "an elementary entity tag" : "a physical tag", &x));
        *(t ? &ent : &phys) = x;
      } else {
        PM_CALL(msh_int(r, INT64_MIN, INT64_MAX, "an element tag", &x));
      }
    }
    PM_CALL(msh_reserve_enode(r, used, k, ne));
    for (int c = 0; c < k; c++) {
      PM_CALL(msh_int(r, 1, INT64_MAX, "a node tag", &x));
      if (r->have_set && !msh_set_has(&r->nodes, x)) return msh_missing_node(r, msh_where(r), etag, x);
      m->elem_node[used++] = x;
    }
    m->elem_type[e] = (int8_t)type;
    m->elem_tag[e] = etag;
    m->elem_entity[e] = (int32_t)ent;
    m->elem_ptr[e + 1] = used;
    PM_CALL(msh_add_member22(r, e, phys));
  }
  return PM_OK;
}

/* MSH 2.2 binary $Elements: blocks "type count ntags" then count records of ints. */
static int msh_read_elems22_bin(msh_rd_t *r, int64_t ne) {
  pm_msh_t *m = r->m;
  int64_t used = 0, got = 0;
  PM_CALL(msh_eol(r));
  while (got < ne) {
    int64_t at = pm_scan_offset(&r->s);
    unsigned char h[12];
    PM_CALL(msh_raw(r, h, 12));
    int32_t type = msh_get_i32(r, h), cnt = msh_get_i32(r, h + 4), ntags = msh_get_i32(r, h + 8);
    int k = pm_msh_type_nodes(type);
    if (k < 0) {
      int32_t first = 0;
      if (cnt > 0) PM_CALL(msh_bint(r, &first));
      return msh_unsupported_type(r, at, type, first);
    }
    if (cnt < 0 || ntags < 0)
      return MSH_FAIL_AT(r, at, PM_ERR_FORMAT, "element block header: negative count (%d) or number of tags (%d)",
                         (int)cnt, (int)ntags);
    if (cnt > ne - got)
      return MSH_FAIL_AT(r, at, PM_ERR_FORMAT,
                         "the element blocks hold more than the %lld elements announced in the "
                         "$Elements header",
                         (long long)ne);
    int64_t rec = 4 * ((int64_t)ntags + 1 + k);
    if (rec > MSH_SCRATCH)
      return MSH_FAIL_AT(r, at, PM_ERR_UNSUPPORTED, "elements with %d tags: pmesh reads at most %d tags per element",
                         (int)ntags, MSH_SCRATCH / 4 - 5);
    PM_CALL(msh_check_count(r, cnt, rec, "number of elements in a block"));
    PM_CALL(msh_reserve_enode(r, used, (int64_t)cnt * k, ne));
    int64_t per = MSH_SCRATCH / rec, done = 0;
    while (done < cnt) {
      int64_t nk = cnt - done < per ? cnt - done : per;
      int64_t at0 = pm_scan_offset(&r->s);
      PM_CALL(msh_raw(r, r->scratch, (size_t)(nk * rec)));
      for (int64_t i = 0; i < nk; i++) {
        const unsigned char *p = r->scratch + i * rec;
        int64_t e = got + done + i;
        int32_t etag = msh_get_i32(r, p);
        if (etag < 1)
          return MSH_FAIL_AT(r, at0 + i * rec, PM_ERR_FORMAT, "element tags must be positive, found %d", (int)etag);
        int32_t phys = ntags > 0 ? msh_get_i32(r, p + 4) : 0;
        int32_t ent = ntags > 1 ? msh_get_i32(r, p + 8) : 0;
        const unsigned char *nodes = p + 4 + 4 * (int64_t)ntags;
        for (int c = 0; c < k; c++) {
          int32_t v = msh_get_i32(r, nodes + 4 * c);
          if (v < 1 || (r->have_set && !msh_set_has(&r->nodes, v))) return msh_missing_node(r, at0 + i * rec, etag, v);
          m->elem_node[used++] = v;
        }
        m->elem_type[e] = (int8_t)type;
        m->elem_tag[e] = etag;
        m->elem_entity[e] = ent;
        m->elem_ptr[e + 1] = used;
        PM_CALL(msh_add_member22(r, e, phys));
      }
      done += nk;
    }
    got += cnt;
  }
  return PM_OK;
}

static int msh_read_elems22(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int64_t ne;
  PM_CALL(msh_count(r, 0, 8, "number of elements", &ne));
  PM_CALL(msh_alloc_elems(r, ne));
  PM_CALL(PM_MALLOC(m->member_elem, ne, "physical memberships"));
  PM_CALL(PM_MALLOC(m->member_phys, ne, "physical memberships"));
  PM_CALL(msh_reserve_enode(r, 0, 3 * ne, ne)); /* triangles; grows for quadrangles */
  if (r->binary)
    PM_CALL(msh_read_elems22_bin(r, ne));
  else
    PM_CALL(msh_read_elems22_ascii(r, ne));
  m->n_elems = ne;
  return msh_end(r, "$EndElements", ": $Elements holds more elements than its header announces");
}

/* MSH 4.1: each element belongs to the physical groups of its entity. */
static int msh_resolve_members41(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  int64_t total = 0, limit = 16 * m->n_elems + (1 << 20);
  for (int pass = 0; pass < 2; pass++) {
    for (int64_t b = 0; b < r->n_blk; b++) {
      msh_blk_t *blk = &r->blk[b];
      msh_ent_t key = {blk->dim, blk->tag, 0, 0};
      const msh_ent_t *e = r->n_ent ? bsearch(&key, r->ent, (size_t)r->n_ent, sizeof *r->ent, msh_ent_cmp) : NULL;
      if (!e || e->n == 0 || blk->count == 0) continue; /* e.g. meshio files without $Entities */
      if (pass == 0) {
        if (e->n > (limit - total) / blk->count)
          return MSH_FAIL_AT(r, r->elems_at, PM_ERR_UNSUPPORTED,
                             "too many physical-group memberships: entity (dimension %d, tag %d) "
                             "has %lld physical tags for %lld elements",
                             (int)e->dim, (int)e->tag, (long long)e->n, (long long)blk->count);
        total += e->n * blk->count;
        continue;
      }
      for (int64_t p = 0; p < e->n; p++) {
        for (int64_t i = 0; i < blk->count; i++) {
          m->member_elem[m->n_member] = blk->first + i;
          m->member_phys[m->n_member] = r->ent_phys[e->off + p];
          m->n_member++;
        }
      }
    }
    if (pass == 0) {
      PM_CALL(PM_MALLOC(m->member_elem, total, "physical memberships"));
      PM_CALL(PM_MALLOC(m->member_phys, total, "physical memberships"));
    }
  }
  return PM_OK;
}

/* Elements read before $Nodes: check their node tags now. */
static int msh_check_late(msh_rd_t *r) {
  pm_msh_t *m = r->m;
  for (int64_t e = 0; e < m->n_elems; e++)
    for (int64_t j = m->elem_ptr[e]; j < m->elem_ptr[e + 1]; j++)
      if (!msh_set_has(&r->nodes, m->elem_node[j]))
        return MSH_FAIL_AT(r, r->elems_at, PM_ERR_FORMAT,
                           "element %lld of the $Elements section starting here refers to node "
                           "%lld, which is not in the $Nodes section",
                           (long long)m->elem_tag[e], (long long)m->elem_node[j]);
  return PM_OK;
}

static int msh_dup_section(msh_rd_t *r, const char *name) {
  return MSH_FAIL(r, PM_ERR_FORMAT, "a second %s section; an MSH file has at most one", name);
}

static int msh_read_sections(msh_rd_t *r) {
  const char *t;
  size_t n;
  r->sect = "the file";
  PM_CALL(pm_scan_token(&r->s, &t, &n));
  if (!t) return MSH_FAIL(r, PM_ERR_FORMAT, "no '$MeshFormat': the file holds only white space");
  if (n == 4 && memcmp(t, "$NOD", 4) == 0)
    return MSH_FAIL(r, PM_ERR_UNSUPPORTED,
                    "this is an MSH version 1 file ($NOD): pmesh reads MSH 2.2 and 4.1; " MSH_CONVERT);
  if (n != 11 || memcmp(t, "$MeshFormat", 11) != 0)
    return MSH_FAIL(r, PM_ERR_FORMAT, "not a Gmsh MSH file: expected '$MeshFormat' at the start, found '%s'",
                    msh_show(r, t, n));
  PM_CALL(msh_read_format(r));
  PM_CALL(PM_MALLOC(r->scratch, MSH_SCRATCH, "read buffer"));
  PM_CALL(PM_MALLOC(r->vals, MSH_SCRATCH / 4, "read buffer"));
  for (;;) {
    r->sect = "the file";
    PM_CALL(pm_scan_token(&r->s, &t, &n));
    if (!t) break;
    r->sect_at = msh_where(r);
    char name[64];
    if (t[0] != '$' || n < 2 || n >= sizeof name || strncmp(t, "$End", 4) == 0)
      return MSH_FAIL(r, PM_ERR_FORMAT, "expected a section such as '$Nodes', found '%s'", msh_show(r, t, n));
    memcpy(name, t, n);
    name[n] = '\0';
    if (strcmp(name, "$MeshFormat") == 0) return msh_dup_section(r, name);
    if (strcmp(name, "$PartitionedEntities") == 0)
      return MSH_FAIL(r, PM_ERR_UNSUPPORTED,
                      "this mesh was partitioned by Gmsh ($PartitionedEntities); pmesh partitions "
                      "meshes itself: re-save the unpartitioned mesh (mesh again without -part, or "
                      "unpartition it in Gmsh before saving)");
    int binary_header = r->binary && r->v41; /* 4.1 binary headers follow the name's line */
    if (binary_header &&
        (strcmp(name, "$Entities") == 0 || strcmp(name, "$Nodes") == 0 || strcmp(name, "$Elements") == 0))
      PM_CALL(msh_eol(r));
    if (strcmp(name, "$PhysicalNames") == 0) {
      if (r->have_names) return msh_dup_section(r, name);
      r->have_names = 1;
      PM_CALL(msh_read_names(r));
    } else if (strcmp(name, "$Entities") == 0 && r->v41) {
      if (r->have_entities) return msh_dup_section(r, name);
      r->have_entities = 1;
      PM_CALL(msh_read_entities(r));
    } else if (strcmp(name, "$Nodes") == 0) {
      if (r->have_nodes) return msh_dup_section(r, name);
      r->have_nodes = 1;
      r->sect = "$Nodes";
      PM_CALL(r->v41 ? msh_read_nodes41(r) : msh_read_nodes22(r));
      PM_CALL(msh_build_node_set(r));
    } else if (strcmp(name, "$Elements") == 0) {
      if (r->have_elems) return msh_dup_section(r, name);
      r->have_elems = 1;
      r->sect = "$Elements";
      r->elems_at = r->sect_at;
      r->unchecked = !r->have_set;
      PM_CALL(r->v41 ? msh_read_elems41(r) : msh_read_elems22(r));
    } else {
      /* $Comments, $Periodic, $NodeData, ... and sections of later Gmsh versions. */
      char end[72];
      snprintf(end, sizeof end, "$End%s", name + 1);
      r->sect = name;
      PM_CALL(pm_scan_skip_to(&r->s, end));
    }
  }
  r->sect = "the file";
  if (!r->have_nodes) return MSH_FAIL(r, PM_ERR_FORMAT, "the file has no $Nodes section");
  if (!r->have_elems) return MSH_FAIL(r, PM_ERR_FORMAT, "the file has no $Elements section");
  if (r->unchecked) PM_CALL(msh_check_late(r));
  if (r->v41) PM_CALL(msh_resolve_members41(r));
  return PM_OK;
}

int pm_msh_read(const char *path, pm_msh_t **msh) {
  int ierr = PM_OK;
  msh_rd_t r;
  memset(&r, 0, sizeof r);
  PM_TRY_CHECK(msh != NULL && path != NULL, PM_ERR_ARG, "pm_msh_read: NULL argument");
  *msh = NULL;
  PM_TRY(PM_CALLOC(r.m, 1, "mesh"));
  PM_TRY(pm_scan_open(&r.s, path));
  PM_TRY(msh_read_sections(&r));
  PM_TRY(pm_scan_finish(&r.s));
  r.m->checksum = r.s.hash;
  r.m->file_bytes = pm_scan_offset(&r.s);
  *msh = r.m;
  r.m = NULL;
cleanup:
  pm_scan_close(&r.s);
  free(r.scratch);
  free(r.vals);
  free(r.ent);
  free(r.ent_phys);
  free(r.blk);
  msh_set_free(&r.nodes);
  pm_msh_destroy(&r.m);
  return ierr;
}

void pm_msh_destroy(pm_msh_t **msh) {
  if (!msh || !*msh) return;
  pm_msh_t *m = *msh;
  free(m->node_tag);
  free(m->xyz);
  free(m->elem_type);
  free(m->elem_tag);
  free(m->elem_entity);
  free(m->elem_ptr);
  free(m->elem_node);
  free(m->member_elem);
  free(m->member_phys);
  for (int i = 0; i < m->n_phys_names; i++) free(m->phys_names[i].name);
  free(m->phys_names);
  free(m);
  *msh = NULL;
}
