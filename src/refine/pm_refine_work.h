/* pm_refine_work.h - the state of one refinement level (private to pm_refine.c, which numbers
 * the fine nodes, and pm_refine_build.c, which builds the fine local mesh from the numbering). */
#ifndef PMESH_PM_REFINE_WORK_H
#define PMESH_PM_REFINE_WORK_H

#include <mpi.h>
#include <stdint.h>

#include "pmesh/pm_local.h"
#include "pmesh/pm_msh.h"
#include "pmesh/pm_refine.h"

/* A child's nodes as references into its parent: vertex j (0..3), midpoint of edge j (from
 * vertex j to vertex j+1; 4..7) or the centre (8).  Counter-clockwise parents give
 * counter-clockwise children. */
enum { REF_E = 4, REF_C = 8 };

static inline int type_edges(int t) {
  return t == PM_MSH_LINE ? 1 : t == PM_MSH_TRI ? 3 : t == PM_MSH_QUAD ? 4 : -1;
}
static inline int type_children(int t) {
  return t == PM_MSH_LINE ? 2 : 4;
}
static inline const int8_t *child_refs(int t, int c) {
  static const int8_t line[2][2] = {{0, REF_E + 0}, {REF_E + 0, 1}};
  static const int8_t tri[4][3] = {{0, REF_E + 0, REF_E + 2},
                                   {REF_E + 0, 1, REF_E + 1},
                                   {REF_E + 2, REF_E + 1, 2},
                                   {REF_E + 0, REF_E + 1, REF_E + 2}};
  static const int8_t quad[4][4] = {{0, REF_E + 0, REF_C, REF_E + 3},
                                    {REF_E + 0, 1, REF_E + 1, REF_C},
                                    {REF_C, REF_E + 1, 2, REF_E + 2},
                                    {REF_E + 3, REF_C, REF_E + 2, 3}};
  return t == PM_MSH_LINE ? line[c] : t == PM_MSH_TRI ? tri[c] : quad[c];
}

enum { KIND_VERTEX = 0, KIND_EDGE = 1, KIND_CENTRE = 2 };

typedef struct edge_rec {
  int64_t ka, kb; /* global indices of the ends, ka < kb */
  int32_t a, b;   /* local indices of the ends */
  int32_t slot;   /* elem_ptr[e] + j of the element edge it came from */
} edge_rec_t;

typedef struct ext_rec {
  int32_t owner, cand;
  int64_t index;
} ext_rec_t;

typedef struct work {
  const pm_local_t *c;
  MPI_Comm comm;
  int rank, P, dim, m, W; /* m: children per element; W: 64-bit words of group bits per node */
  int64_t N, NE, maxtag;  /* coarse global nodes, elements, largest tag */
  int32_t nv;             /* coarse local nodes */
  int32_t *own;           /* [nv] owners of the coarse local nodes */
  int32_t ne, *slot_edge; /* unique local edges; edge of each element edge slot */
  edge_rec_t *edge;       /* [ne] sorted by (ka, kb) */
  int32_t nq, *elem_quad, *quad_elem;
  int32_t nc;          /* candidates: nv vertices, ne midpoints, nq centres */
  int32_t *cown, *lid; /* owner, fine local index (-1: not in the fine mesh) */
  int64_t *cidx;       /* fine global index (-1: not known yet) */
  uint64_t *cbits;     /* [nc*W] group membership */
  char *used;          /* in a kept child */
  char *keep;          /* [n_elems*m]: child kept */
  int64_t fine_nodes;  /* global */
  /* Requests answered: for each, the asking rank and the candidate. */
  int64_t nreq;
  int32_t *req_rank, *req_cand;
} work_t;

static inline int cmp_ext(const void *x, const void *y) {
  const ext_rec_t *a = x, *b = y;
  if (a->owner != b->owner) return a->owner < b->owner ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

static inline int32_t find_edge(const work_t *w, int64_t ka, int64_t kb) {
  int32_t lo = 0, hi = w->ne - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    const edge_rec_t *e = &w->edge[mid];
    if (e->ka == ka && e->kb == kb) return mid;
    if (e->ka < ka || (e->ka == ka && e->kb < kb))
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Candidate of reference `ref` in coarse element e. */
static inline int32_t cand_of(const work_t *w, int32_t e, int ref) {
  const pm_local_t *c = w->c;
  int32_t p = c->elem_ptr[e];
  if (ref < REF_E) return c->elem_node[p + ref];
  if (ref < REF_C) return w->nv + w->slot_edge[p + ref - REF_E];
  return w->nv + w->ne + w->elem_quad[e];
}

static inline int64_t cand_gid(const work_t *w, int32_t k) {
  return k < w->nv ? w->c->gid[k] : w->maxtag + 1 + (w->cidx[k] - w->N);
}

static inline int has_bit(const work_t *w, int32_t k, int g) {
  return (int)(w->cbits[(int64_t)k * w->W + g / 64] >> (g % 64) & 1);
}

#endif
