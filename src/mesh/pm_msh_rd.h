/* pm_msh_rd.h - the Gmsh MSH reader's state and the readers of its items, private to the reader:
 * pm_msh.c parses the sections, pm_msh_rd.c holds the node-tag set, the messages and the readers
 * of single ASCII and binary items.  The helpers called once per value are static inline here, so
 * the section loops keep them inlined. */
#ifndef PMESH_PM_MSH_RD_H
#define PMESH_PM_MSH_RD_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "base/pm_scan.h"
#include "pmesh/pm_msh.h"

/* Internal to libpmesh: hidden, so the reader calls these directly (no PLT) and nothing outside
 * the library can interpose them, as when they were static functions of one file. */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* Bytes of the buffer binary blocks are read through (the fuzzer builds with less). */
#ifndef PM_MSH_SCRATCH_BYTES
#define PM_MSH_SCRATCH_BYTES (1 << 18)
#endif
enum { MSH_SCRATCH = PM_MSH_SCRATCH_BYTES };

/* ---- a set of positive int64 tags: bitmap over [min, max] when dense, else open hashing ---- */

typedef struct msh_set {
  int64_t min;    /* bitmap: tag of bit 0 */
  uint64_t nbits; /* bitmap: max - min + 1; 0 when hashing */
  uint64_t *bits;
  uint64_t mask; /* hash: capacity - 1 */
  int64_t *keys; /* hash: 0 marks an empty slot (tags are >= 1) */
} msh_set_t;

static inline uint64_t msh_mix(uint64_t x) { /* splitmix64 finalizer */
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static inline int msh_set_has(const msh_set_t *st, int64_t key) {
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

/** Build the set of tags[0..n); *dup = index of the first repeated tag, or -1.  Not collective. */
int pm_msh_rd_set_build(msh_set_t *st, const int64_t *tags, int64_t n, int64_t *dup);
void pm_msh_rd_set_free(msh_set_t *st);

/* ---- the reader's state ---- */

typedef struct msh_ent { /* a 4.1 entity: (dim, tag) -> physical tags ent_phys[off, off+n) */
  int32_t dim, tag;
  int64_t off, n;
  int64_t at; /* where its line starts, for messages */
} msh_ent_t;

typedef struct msh_blk { /* a 4.1 node or element block: of one entity; elements [first, first+count) */
  int32_t dim, tag;
  int32_t type; /* element type (element blocks) */
  int64_t first, count;
  int64_t at; /* where its header is, for messages */
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
  msh_blk_t *blk; /* element blocks */
  int64_t n_nblk;
  msh_blk_t *nblk;  /* node blocks */
  int64_t *name_at; /* where each $PhysicalNames entry is */
  msh_set_t nodes;  /* node tags, once $EndNodes has been read */
  int have_set, have_names, have_entities, have_nodes, have_elems;
  int unchecked; /* $Elements came before $Nodes: its node tags are checked at the end */
  char show[80];
} msh_rd_t;

static inline int64_t msh_where(const msh_rd_t *r) {
  return r->binary ? pm_scan_offset(&r->s) : r->s.line;
}

/** Human name of a Gmsh element type, for messages about the ones pmesh does not read. */
const char *pm_msh_rd_type_name(int64_t type);

/** Record a message located at `where` (a line, or a byte offset in binary files): "FILE:LINE:
 *  ..." or "FILE: byte offset N: ...".  Returns code. */
int pm_msh_rd_fail_(msh_rd_t *r, int64_t where, int code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 6, 7)))
#endif
    ;
#define MSH_FAIL(r, code, ...) pm_msh_rd_fail_((r), msh_where(r), (code), __FILE__, __LINE__, __VA_ARGS__)
#define MSH_FAIL_AT(r, where, code, ...) pm_msh_rd_fail_((r), (where), (code), __FILE__, __LINE__, __VA_ARGS__)

/** A printable copy of a token for messages (binary garbage shows as '?'), in r->show. */
const char *pm_msh_rd_show(msh_rd_t *r, const char *t, size_t n);

/* ---- ASCII items: each reads the next token; the end of the file or a token that is not what
 * `what` names is an error naming the section, the line and what was found. */

int pm_msh_rd_tok(msh_rd_t *r, const char *what, const char **t, size_t *n);
/** An integer in [lo, hi]. */
int pm_msh_rd_int(msh_rd_t *r, int64_t lo, int64_t hi, const char *what, int64_t *v);
int pm_msh_rd_int32(msh_rd_t *r, const char *what, int32_t *v);
/** A finite number (the same double as strtod gives). */
int pm_msh_rd_real(msh_rd_t *r, const char *what, double *v);
/** The section's closing marker; `more` explains a mismatch. */
int pm_msh_rd_end(msh_rd_t *r, const char *marker, const char *more);
/** A count must be >= 0 and no larger than the rest of the file could hold at `each` bytes per
 *  item: a bad header gives a message, never a giant allocation. */
int pm_msh_rd_check_count(msh_rd_t *r, int64_t n, int64_t each, const char *what);

/* ---- binary items ---- */

static inline uint32_t msh_bswap32(uint32_t x) {
  return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}
static inline uint64_t msh_bswap64(uint64_t x) {
  return ((uint64_t)msh_bswap32((uint32_t)x) << 32) | msh_bswap32((uint32_t)(x >> 32));
}

static inline int msh_raw(msh_rd_t *r, void *dst, size_t n) {
  return pm_scan_bytes(&r->s, dst, n, r->sect);
}

static inline int32_t msh_get_i32(const msh_rd_t *r, const unsigned char *p) {
  uint32_t u;
  memcpy(&u, p, 4);
  if (r->swap) u = msh_bswap32(u);
  return (int32_t)u;
}

/* A size_t of the 4.1 binary file, as uint64. */
static inline uint64_t msh_get_szt(const msh_rd_t *r, const unsigned char *p) {
  if (r->szt == 4) return (uint32_t)msh_get_i32(r, p);
  uint64_t u;
  memcpy(&u, p, 8);
  return r->swap ? msh_bswap64(u) : u;
}

static inline double msh_get_f64(const msh_rd_t *r, const unsigned char *p) {
  uint64_t u;
  memcpy(&u, p, 8);
  if (r->swap) u = msh_bswap64(u);
  double x;
  memcpy(&x, &u, 8);
  return x;
}

/** Decode n size_t values of a 4.1 binary file; values above INT64_MAX come out negative. */
void pm_msh_rd_decode_szt(const msh_rd_t *r, const unsigned char *src, int64_t *dst, int64_t n);
int pm_msh_rd_bint(msh_rd_t *r, int32_t *v);
/** A size_t count or tag of a 4.1 binary file, in [lo, INT64_MAX]. */
int pm_msh_rd_bsize(msh_rd_t *r, int64_t lo, const char *what, int64_t *v);
/** A count: in ASCII an integer token, in binary 4.1 a size_t; then checked against the file. */
int pm_msh_rd_count(msh_rd_t *r, int bin, int64_t each, const char *what, int64_t *n);
/** After a text header line of a binary section: consume the rest of it, up to its newline. */
int pm_msh_rd_eol(msh_rd_t *r);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
