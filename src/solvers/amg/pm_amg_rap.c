/* pm_amg_rap.c - the Galerkin product P^T A P over distributed rows.
 *
 * No sort in the products: coarse global ids map to dense work indices through an open-address
 * hash, and rows are accumulated with a marker array (Gustavson's method).  The triple product
 * is formed row by row of P^T without storing A P: every fine row is revisited once per entry
 * of its P row (3-4 times), which costs less than A P would take in memory on the fine level. */
#include "pm_amg_rap.h"

#include <stdlib.h>
#include <string.h>

#include "assembly/pm_csr_int.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

/* ---------------------------------------------------------------- int64 -> dense index */

typedef struct hmap {
  int64_t *key;
  int32_t *val;
  size_t mask;
  int32_t count;
} hmap_t;

static int hmap_init(hmap_t *h, size_t expect) {
  size_t cap = 16;
  while (cap < 2 * expect + 16) cap <<= 1;
  h->mask = cap - 1;
  h->count = 0;
  PM_CALL(PM_MALLOC(h->key, cap, "hash keys"));
  PM_CALL(PM_MALLOC(h->val, cap, "hash values"));
  memset(h->key, 0xff, cap * sizeof *h->key); /* -1: empty */
  return PM_OK;
}

static void hmap_free(hmap_t *h) {
  free(h->key);
  free(h->val);
  h->key = NULL;
  h->val = NULL;
}

static inline size_t hslot(const hmap_t *h, int64_t k) {
  return (size_t)(((uint64_t)k * 0x9e3779b97f4a7c15ull) >> 20) & h->mask;
}

/* The index of k, adding it (with the next index) when absent; the table never fills (sized for
 * every key up front). */
static inline int32_t hmap_add(hmap_t *h, int64_t k) {
  size_t s = hslot(h, k);
  while (h->key[s] != -1) {
    if (h->key[s] == k) return h->val[s];
    s = (s + 1) & h->mask;
  }
  h->key[s] = k;
  h->val[s] = h->count;
  return h->count++;
}

static inline int32_t hmap_get(const hmap_t *h, int64_t k) {
  size_t s = hslot(h, k);
  while (h->key[s] != -1) {
    if (h->key[s] == k) return h->val[s];
    s = (s + 1) & h->mask;
  }
  return -1;
}

typedef struct rec {
  int64_t g;
  double v;
} rec_t;

/* ---------------------------------------------------------------- the rows of P at externals */

/* For each fine external (local column n + e), its row of P: xptr[e].., xcol (coarse ids), xval.
 * Rows travel as a header record (g = length) and the entries, over the fine tables. */
static int fetch_rows(const pm_dmat_t *fdm, const pm_amg_p_t *p, int32_t **xptr, int64_t **xcol, double **xval) {
  int ierr = PM_OK, P = fdm->size;
  const pm_local_t *t = fdm->tab;
  int32_t next = fdm->ncol - fdm->n;
  int *sc = NULL, *rc = NULL;
  rec_t *sbuf = NULL, *rbuf = NULL;
  *xptr = NULL;
  *xcol = NULL;
  *xval = NULL;
  ierr = PM_CALLOC(sc, 2 * (size_t)P, "row exchange counts");
  size_t ns = 0;
  if (!ierr) {
    rc = sc + P;
    for (int k = 0; k < t->n_neib; k++) {
      int q = t->neib[k];
      for (int32_t e = t->export_index[k]; e < t->export_index[k + 1]; e++) {
        int32_t i = t->export_item[e];
        sc[q] += 1 + p->ptr[i + 1] - p->ptr[i];
      }
      ns += (size_t)sc[q];
    }
    ierr = PM_MALLOC(sbuf, ns + 1, "row exchange buffer");
  }
  if (!ierr) {
    size_t w = 0;
    for (int k = 0; k < t->n_neib; k++)
      for (int32_t e = t->export_index[k]; e < t->export_index[k + 1]; e++) {
        int32_t i = t->export_item[e];
        sbuf[w++] = (rec_t){p->ptr[i + 1] - p->ptr[i], 0.0};
        for (int32_t q = p->ptr[i]; q < p->ptr[i + 1]; q++) sbuf[w++] = (rec_t){p->gcol[q], p->val[q]};
      }
  }
  PM_TRY(pm_comm_agree(fdm->comm, ierr));
  PM_TRY(pm_dmat_alltoallv(fdm->comm, sizeof(rec_t), sc, sbuf, rc, (void **)&rbuf));
  size_t nr = 0;
  for (int q = 0; q < P; q++) nr += (size_t)rc[q];
  ierr = PM_CALLOC(*xptr, next + 1, "external rows");
  if (!ierr) ierr = PM_MALLOC(*xcol, nr + 1, "external row columns");
  if (!ierr) ierr = PM_MALLOC(*xval, nr + 1, "external row values");
  if (!ierr) {
    /* Received in rank order; within a rank, in the order of this rank's imports from it. */
    size_t at = 0;
    int32_t *len = *xptr; /* lengths first (at e + 1), then the prefix sum */
    size_t *start = NULL;
    ierr = PM_MALLOC(start, next + 1, "external row starts");
    for (int k = 0; !ierr && k < t->n_neib; k++)
      for (int32_t e = t->import_index[k]; e < t->import_index[k + 1]; e++) {
        int32_t x = t->import_item[e] - fdm->n;
        len[x + 1] = (int32_t)rbuf[at].g;
        start[x] = at + 1;
        at += 1 + (size_t)rbuf[at].g;
      }
    if (!ierr) {
      for (int32_t x = 0; x < next; x++) len[x + 1] += len[x];
      for (int32_t x = 0; x < next; x++)
        for (int32_t q = 0; q < len[x + 1] - len[x]; q++) {
          (*xcol)[len[x] + q] = rbuf[start[x] + q].g;
          (*xval)[len[x] + q] = rbuf[start[x] + q].v;
        }
    }
    free(start);
  }
  PM_TRY(pm_comm_agree(fdm->comm, ierr));
cleanup:
  free(sc);
  free(sbuf);
  free(rbuf);
  return ierr;
}

/* ---------------------------------------------------------------- the product */

/* The coarse rows this rank contributes to: for every coarse id c in its P, row c of
 * sum over its fine rows i of P(i,c) A(i,:) P; returned as records per row (header g = row id,
 * v = length; then (column id, value)), in order of work index. */
typedef struct contrib {
  rec_t *rec;
  size_t n;
} contrib_t;

static int triple_product(const pm_csr_t *a, const pm_dmat_t *fdm, const pm_amg_p_t *p, int64_t c0, int32_t nc,
                          const int32_t *xptr, const int64_t *xcol, const double *xval, contrib_t *out) {
  int ierr = PM_OK;
  int32_t n = a->n, nx = fdm->ncol - fdm->n;
  size_t np = (size_t)p->ptr[n], nxe = (size_t)xptr[nx], nforeign = 0;
  hmap_t h = {0};
  int32_t *pc = NULL, *xc = NULL, *tptr = NULL, *trow = NULL, *mark = NULL, *list = NULL;
  double *tval = NULL, *acc = NULL;
  int64_t *tg = NULL;
  out->rec = NULL;
  out->n = 0;
  /* Work indices: this rank's coarse ids directly (g - c0), the few others through a hash. */
  for (size_t q = 0; q < np; q++) nforeign += p->gcol[q] < c0 || p->gcol[q] >= c0 + nc;
  for (size_t q = 0; q < nxe; q++) nforeign += xcol[q] < c0 || xcol[q] >= c0 + nc;
  PM_TRY(hmap_init(&h, nforeign));
  PM_TRY(PM_MALLOC(pc, np + 1, "work columns of P"));
  PM_TRY(PM_MALLOC(xc, nxe + 1, "work columns of external P"));
  for (size_t q = 0; q < np; q++) {
    int64_t g = p->gcol[q];
    pc[q] = g >= c0 && g < c0 + nc ? (int32_t)(g - c0) : nc + hmap_add(&h, g);
  }
  for (size_t q = 0; q < nxe; q++) {
    int64_t g = xcol[q];
    xc[q] = g >= c0 && g < c0 + nc ? (int32_t)(g - c0) : nc + hmap_add(&h, g);
  }
  int32_t m = nc + h.count;
  PM_TRY(PM_MALLOC(tg, m + 1, "work ids"));
  for (int32_t c = 0; c < nc; c++) tg[c] = c0 + c;
  for (size_t s = 0; s <= h.mask; s++)
    if (h.key[s] != -1) tg[nc + h.val[s]] = h.key[s];
  /* P^T: for work index c, the fine rows i with P(i,c) != 0. */
  PM_TRY(PM_CALLOC(tptr, m + 1, "P transpose"));
  PM_TRY(PM_MALLOC(trow, np + 1, "P transpose rows"));
  PM_TRY(PM_MALLOC(tval, np + 1, "P transpose values"));
  for (size_t q = 0; q < np; q++) tptr[pc[q] + 1]++;
  for (int32_t c = 0; c < m; c++) tptr[c + 1] += tptr[c];
  for (int32_t i = 0; i < n; i++)
    for (int32_t q = p->ptr[i]; q < p->ptr[i + 1]; q++) {
      int32_t at = tptr[pc[q]]++;
      trow[at] = i;
      tval[at] = p->val[q];
    }
  for (int32_t c = m; c > 0; c--) tptr[c] = tptr[c - 1];
  tptr[0] = 0;
  PM_TRY(PM_MALLOC(mark, m + 1, "product marker"));
  PM_TRY(PM_MALLOC(list, m + 1, "product row"));
  PM_TRY(PM_MALLOC(acc, m + 1, "product accumulator"));
  for (int32_t c = 0; c < m; c++) mark[c] = -1;
  size_t cap = 4 * np + 64, w = 0;
  PM_TRY(PM_MALLOC(out->rec, cap, "coarse rows"));
  for (int32_t c = 0; c < m; c++) {
    if (tptr[c + 1] == tptr[c]) continue;
    int32_t len = 0;
    for (int32_t t = tptr[c]; t < tptr[c + 1]; t++) {
      int32_t i = trow[t];
      double pic = tval[t];
      /* The diagonal, then the off-diagonals: P(i,c) a_ij P(j,:). */
      for (int32_t k = a->index[i] - 1; k < a->index[i + 1]; k++) {
        int32_t j = k < a->index[i] ? i : a->item[k];
        double s = pic * (k < a->index[i] ? (a->d ? a->d[i] : 1.0) : a->amat[k]);
        if (s == 0.0) continue;
        const int32_t *cols;
        const double *vals;
        int32_t b, e;
        if (j < n) {
          cols = pc;
          vals = p->val;
          b = p->ptr[j];
          e = p->ptr[j + 1];
        } else {
          cols = xc;
          vals = xval;
          b = xptr[j - n];
          e = xptr[j - n + 1];
        }
        for (int32_t q = b; q < e; q++) {
          int32_t c2 = cols[q];
          if (mark[c2] != c) {
            mark[c2] = c;
            acc[c2] = 0.0;
            list[len++] = c2;
          }
          acc[c2] += s * vals[q];
        }
      }
    }
    if (w + (size_t)len + 1 > cap) {
      while (w + (size_t)len + 1 > cap) cap *= 2;
      PM_TRY(PM_REALLOC(out->rec, cap, "coarse rows"));
    }
    out->rec[w++] = (rec_t){tg[c], (double)len};
    for (int32_t k = 0; k < len; k++) out->rec[w++] = (rec_t){tg[list[k]], acc[list[k]]};
  }
  out->n = w;
cleanup:
  hmap_free(&h);
  free(pc);
  free(xc);
  free(tptr);
  free(trow);
  free(tval);
  free(mark);
  free(list);
  free(acc);
  free(tg);
  return ierr;
}

/* ---------------------------------------------------------------- owners sum the rows */

static int owner_of(const int64_t *range, int size, int64_t g) {
  int lo = 0, hi = size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (range[mid] <= g)
      lo = mid;
    else
      hi = mid - 1;
  }
  return lo;
}

/* Sorts a row's entries by column id (rows are short). */
static void sort_row(int64_t *g, double *v, int32_t n) {
  for (int32_t i = 1; i < n; i++) {
    int64_t x = g[i];
    double y = v[i];
    int32_t j = i - 1;
    while (j >= 0 && g[j] > x) {
      g[j + 1] = g[j];
      v[j + 1] = v[j];
      j--;
    }
    g[j + 1] = x;
    v[j + 1] = y;
  }
}

/* The state of pm_amg_rap between its steps; rap_free frees it. */
typedef struct rap {
  const pm_dmat_t *fdm;
  int64_t c0; /* the first owned coarse row */
  int32_t nc; /* owned coarse rows */
  contrib_t mine;
  rec_t *rbuf; /* the contributions received from other ranks: nrecv records */
  size_t nrecv;
  int32_t *sptr;   /* segments of owned coarse row r: segs[sptr[r]..sptr[r+1]] */
  size_t *segs;    /* record positions: local ones as is, received ones offset by mine.n */
  size_t total;    /* entries in all segments */
  size_t nforeign; /* of them, columns owned by other ranks */
  hmap_t h;        /* the other ranks' column ids -> work index - nc */
  int64_t *ids;    /* work index -> coarse id */
  int32_t *rptr;   /* the summed coarse rows: rptr[nc+1], rg / rv[w] (off-diagonals) */
  int64_t *rg;
  double *rv;
  size_t w;
  pm_csr_t *tmp; /* the coarse matrix being built (tmp->d the diagonal) */
} rap_t;

static void rap_free(rap_t *R) {
  free(R->mine.rec);
  free(R->rbuf);
  free(R->segs);
  free(R->sptr);
  free(R->rg);
  free(R->rv);
  free(R->rptr);
  free(R->ids);
  hmap_free(&R->h);
  pm_csr_destroy(&R->tmp);
}

/* Rows owned elsewhere go to their owners (one pass counts, one packs); R->rbuf receives the
 * other ranks' contributions.  `pending` is an error of the caller's previous step, agreed on
 * with this step's allocations. */
static int send_rows(rap_t *R, const int64_t *crange, int pending) {
  const pm_dmat_t *fdm = R->fdm;
  int ierr = pending, P = fdm->size;
  int64_t c0 = R->c0;
  int32_t nc = R->nc;
  const contrib_t mine = R->mine;
  int *sc = NULL, *rc = NULL;
  rec_t *sbuf = NULL;
  size_t *off = NULL;
  if (!ierr) ierr = PM_CALLOC(sc, 2 * (size_t)P, "coarse row counts");
  if (!ierr) ierr = PM_MALLOC(sbuf, mine.n + 1, "coarse rows to send");
  PM_TRY(pm_comm_agree(fdm->comm, ierr));
  rc = sc + P;
  for (size_t at = 0; at < mine.n; at += 1 + (size_t)mine.rec[at].v) {
    int64_t g = mine.rec[at].g;
    if (g >= c0 && g < c0 + nc) continue;
    sc[owner_of(crange, P, g)] += 1 + (int)mine.rec[at].v;
  }
  PM_TRY(PM_MALLOC(off, (size_t)P + 1, "coarse row offsets"));
  off[0] = 0;
  for (int q = 0; q < P; q++) off[q + 1] = off[q] + (size_t)sc[q];
  for (size_t at = 0; at < mine.n; at += 1 + (size_t)mine.rec[at].v) {
    int64_t g = mine.rec[at].g;
    if (g >= c0 && g < c0 + nc) continue;
    int q = owner_of(crange, P, g);
    size_t len = 1 + (size_t)mine.rec[at].v;
    memcpy(sbuf + off[q], mine.rec + at, len * sizeof *sbuf);
    off[q] += len;
  }
  free(off);
  off = NULL;
  PM_TRY(pm_dmat_alltoallv(fdm->comm, sizeof(rec_t), sc, sbuf, rc, (void **)&R->rbuf));
  R->nrecv = 0;
  for (int q = 0; q < P; q++) R->nrecv += (size_t)rc[q];
cleanup:
  free(off);
  free(sbuf);
  free(sc);
  return ierr;
}

/* Segments per owned coarse row: the local contribution and every received one (R->sptr,
 * R->segs); counts their entries (R->total) and the columns owned elsewhere (R->nforeign). */
static int segment_rows(rap_t *R) {
  const pm_dmat_t *fdm = R->fdm;
  int64_t c0 = R->c0;
  int32_t nc = R->nc;
  const contrib_t mine = R->mine;
  const rec_t *rbuf = R->rbuf;
  size_t nrecv = R->nrecv, total = 0;
  int ierr = PM_CALLOC(R->sptr, (size_t)nc + 2, "coarse row segments");
  int32_t *sptr = R->sptr, nseg = 0;
  for (int pass = 0; pass < 2 && !ierr; pass++) {
    const rec_t *r = pass ? rbuf : mine.rec;
    size_t nrec = pass ? nrecv : mine.n;
    for (size_t at = 0; at < nrec; at += 1 + (size_t)r[at].v) {
      int64_t g = r[at].g;
      if (g < c0 || g >= c0 + nc) {
        if (pass)
          ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__, "rank %d received coarse row %lld", fdm->rank,
                              (long long)g);
        continue;
      }
      sptr[g - c0 + 2]++;
      nseg++;
      total += (size_t)r[at].v;
    }
  }
  if (!ierr) ierr = PM_MALLOC(R->segs, (size_t)nseg + 1, "coarse row segments");
  PM_CALL(pm_comm_agree(fdm->comm, ierr));
  for (int32_t r = 0; r < nc; r++) sptr[r + 2] += sptr[r + 1];
  size_t nforeign = 0;
  for (int pass = 0; pass < 2; pass++) {
    const rec_t *r = pass ? rbuf : mine.rec;
    size_t nrec = pass ? nrecv : mine.n;
    for (size_t at = 0; at < nrec; at += 1 + (size_t)r[at].v) {
      int64_t g = r[at].g;
      if (g < c0 || g >= c0 + nc) continue;
      R->segs[sptr[g - c0 + 1]++] = at + (pass ? mine.n : 0);
      for (size_t k = 1; k <= (size_t)r[at].v; k++) nforeign += r[at + k].g < c0 || r[at + k].g >= c0 + nc;
    }
  }
  R->total = total;
  R->nforeign = nforeign;
  return PM_OK;
}

/* Work indices of the column ids: this rank's rows directly (g - c0), the others through the
 * hash R->h.  Not collective: the caller agrees on the error. */
static int hash_columns(rap_t *R) {
  int64_t c0 = R->c0;
  int32_t nc = R->nc;
  int ierr = hmap_init(&R->h, R->nforeign);
  for (int pass = 0; pass < 2 && !ierr; pass++) {
    const rec_t *r = pass ? R->rbuf : R->mine.rec;
    size_t nrec = pass ? R->nrecv : R->mine.n;
    for (size_t at = 0; at < nrec; at += 1 + (size_t)r[at].v) {
      int64_t g = r[at].g;
      if (g < c0 || g >= c0 + nc) continue;
      for (size_t k = 1; k <= (size_t)r[at].v; k++)
        if (r[at + k].g < c0 || r[at + k].g >= c0 + nc) hmap_add(&R->h, r[at + k].g);
    }
  }
  return ierr;
}

/* Each owned coarse row summed over its segments (Gustavson: marker and accumulator over the
 * work indices) into R->tmp->d (the diagonal) and R->rptr / rg / rv (the off-diagonals, sorted
 * by column id). */
static int sum_rows(rap_t *R) {
  const pm_dmat_t *fdm = R->fdm;
  int64_t c0 = R->c0;
  int32_t nc = R->nc;
  const contrib_t mine = R->mine;
  const rec_t *rbuf = R->rbuf;
  int32_t *mark = NULL, *list = NULL;
  double *acc = NULL;
  int ierr = hash_columns(R);
  const hmap_t h = R->h;
  int32_t m = nc + h.count;
  if (!ierr) ierr = PM_MALLOC(mark, m + 1, "coarse marker");
  if (!ierr) ierr = PM_MALLOC(list, m + 1, "coarse row");
  if (!ierr) ierr = PM_MALLOC(acc, m + 1, "coarse accumulator");
  if (!ierr) ierr = PM_MALLOC(R->ids, m + 1, "coarse ids");
  if (!ierr) ierr = PM_MALLOC(R->rptr, (size_t)nc + 1, "coarse rows");
  if (!ierr) ierr = PM_MALLOC(R->rg, R->total + 1, "coarse columns");
  if (!ierr) ierr = PM_MALLOC(R->rv, R->total + 1, "coarse values");
  if (!ierr) ierr = PM_CALLOC(R->tmp, 1, "coarse matrix");
  if (!ierr) ierr = PM_MALLOC(R->tmp->d, (size_t)nc + 1, "coarse diagonal");
  PM_TRY(pm_comm_agree(fdm->comm, ierr));
  int64_t *ids = R->ids, *rg = R->rg;
  int32_t *rptr = R->rptr, *sptr = R->sptr;
  const size_t *segs = R->segs;
  double *rv = R->rv;
  pm_csr_t *tmp = R->tmp;
  for (int32_t c = 0; c < nc; c++) ids[c] = c0 + c;
  for (size_t s = 0; s <= h.mask; s++)
    if (h.key[s] != -1) ids[nc + h.val[s]] = h.key[s];
  for (int32_t c = 0; c < m; c++) mark[c] = -1;
  size_t w = 0;
  rptr[0] = 0;
  for (int32_t r = 0; r < nc; r++) {
    int32_t len = 0;
    for (int32_t s = sptr[r]; s < sptr[r + 1]; s++) {
      size_t at = segs[s];
      const rec_t *rec = at < mine.n ? mine.rec + at : rbuf + (at - mine.n);
      for (size_t k = 1; k <= (size_t)rec[0].v; k++) {
        int64_t g = rec[k].g;
        int32_t c = g >= c0 && g < c0 + nc ? (int32_t)(g - c0) : nc + hmap_get(&h, g);
        if (mark[c] != r) {
          mark[c] = r;
          acc[c] = 0.0;
          list[len++] = c;
        }
        acc[c] += rec[k].v;
      }
    }
    /* Sums that cancel exactly (a structured grid's coarse stencils have some) are left out. */
    size_t b = w;
    tmp->d[r] = 0.0;
    for (int32_t k = 0; k < len; k++) {
      int32_t c = list[k];
      if (c == r) {
        tmp->d[r] = acc[c];
      } else if (acc[c] != 0.0) {
        rg[w] = ids[c];
        rv[w++] = acc[c];
      }
    }
    sort_row(rg + b, rv + b, (int32_t)(w - b));
    rptr[r + 1] = (int32_t)w;
  }
  R->w = w;
cleanup:
  free(mark);
  free(list);
  free(acc);
  return ierr;
}

/* The coarse layout: its externals are the other ranks' rows that the owned coarse rows or the
 * local P reference.  Then the coarse matrix in its local columns (*ac) and p->col. */
static int coarse_layout(rap_t *R, pm_amg_p_t *p, const int64_t *crange, pm_dmat_t **cdm, pm_csr_t **ac) {
  const pm_dmat_t *fdm = R->fdm;
  int64_t c0 = R->c0, *ext = NULL;
  int32_t nc = R->nc;
  const int64_t *rg = R->rg;
  size_t w = R->w, npp = (size_t)p->ptr[p->n], next = 0;
  pm_csr_t *tmp = R->tmp;
  int ierr = PM_MALLOC(ext, w + npp + 1, "coarse externals");
  for (size_t k = 0; !ierr && k < w; k++)
    if (rg[k] < c0 || rg[k] >= c0 + nc) ext[next++] = rg[k];
  for (size_t k = 0; !ierr && k < npp; k++)
    if (p->gcol[k] < c0 || p->gcol[k] >= c0 + nc) ext[next++] = p->gcol[k];
  if (!ierr && next > INT32_MAX)
    ierr = pm_error_set(PM_ERR_UNSUPPORTED, __FILE__, __LINE__, "too many coarse externals");
  PM_TRY(pm_comm_agree(fdm->comm, ierr));
  PM_TRY(pm_dmat_create(fdm->comm, nc, crange, ext, (int32_t)next, 1, cdm));
  tmp->n = nc;
  tmp->ncol = (*cdm)->ncol;
  tmp->index = R->rptr;
  tmp->amat = R->rv;
  R->rptr = NULL;
  R->rv = NULL;
  ierr = PM_MALLOC(tmp->item, w + 1, "coarse matrix columns");
  if (!ierr) ierr = PM_MALLOC(p->col, npp + 1, "prolongator local columns");
  if (!ierr) {
    for (size_t k = 0; k < w; k++) tmp->item[k] = pm_dmat_find(*cdm, rg[k]);
    for (size_t k = 0; k < npp; k++) p->col[k] = pm_dmat_find(*cdm, p->gcol[k]);
    ierr = pm_csr_build_runs(tmp);
  }
  PM_TRY(pm_comm_agree(fdm->comm, ierr));
  *ac = tmp;
  R->tmp = NULL;
cleanup:
  free(ext);
  return ierr;
}

int pm_amg_rap(const pm_csr_t *a, const pm_dmat_t *fdm, pm_amg_p_t *p, const int64_t *crange, pm_dmat_t **cdm,
               pm_csr_t **ac) {
  int ierr = PM_OK, rank = fdm->rank;
  int32_t *xptr = NULL;
  int64_t *xcol = NULL;
  double *xval = NULL;
  rap_t R = {.fdm = fdm, .c0 = crange[rank], .nc = (int32_t)(crange[rank + 1] - crange[rank])};
  *cdm = NULL;
  *ac = NULL;

  PM_TRY(fetch_rows(fdm, p, &xptr, &xcol, &xval));
  ierr = triple_product(a, fdm, p, R.c0, R.nc, xptr, xcol, xval, &R.mine);
  free(xptr);
  free(xcol);
  free(xval);
  xptr = NULL;
  xcol = NULL;
  xval = NULL;
  PM_TRY(send_rows(&R, crange, ierr));
  PM_TRY(segment_rows(&R));
  PM_TRY(sum_rows(&R));
  PM_TRY(coarse_layout(&R, p, crange, cdm, ac));
cleanup:
  if (ierr) pm_dmat_destroy(cdm);
  free(xptr);
  free(xcol);
  free(xval);
  rap_free(&R);
  return ierr;
}
