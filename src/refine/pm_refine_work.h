/* pm_refine_work.h - the state of one refinement level (private to pm_refine.c, which numbers
 * the fine nodes, and pm_refine_build.c, which builds the fine local mesh from the numbering).
 *
 * The templates are the cell-type table's (pmesh/pm_cell.h): a child lists its vertices as
 * refinement points of its parent (vertices, edge midpoints in the table's edge order, centres
 * of the quadrilateral faces of a 3D cell, the cell centre of a quadrangle or hexahedron).
 * "Candidates" are the fine nodes a rank can name: its coarse nodes [0, nv), the midpoints of
 * its unique edges [nv, nv+ne), the centres of its unique quadrilateral faces of 3D cells
 * [.., +nf) and the centres of its cells that have one [.., +nq). */
#ifndef PMESH_PM_REFINE_WORK_H
#define PMESH_PM_REFINE_WORK_H

#include <mpi.h>
#include <stdint.h>

#include "pmesh/pm_cell.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_refine.h"

enum { KIND_VERTEX = 0, KIND_EDGE = 1, KIND_CENTRE = 2, KIND_FACE = 3 };
enum { KEY_WORDS = 5 }; /* a question: kind and up to 4 global indices (a face's, sorted) */

typedef struct edge_rec {
  int64_t ka, kb; /* global indices of the ends, ka < kb */
  int32_t a, b;   /* local indices of the ends */
  int32_t slot;   /* eptr[e] + j of the element edge it came from */
} edge_rec_t;

typedef struct face_rec {
  int64_t k[4]; /* global indices of the vertices, ascending */
  int32_t v[4]; /* their local indices, in the same order */
  int32_t slot; /* fptr[e] + j of the element face it came from */
} face_rec_t;

typedef struct ext_rec {
  int32_t owner, cand;
  int64_t index;
} ext_rec_t;

typedef struct work {
  const pm_local_t *c;
  MPI_Comm comm;
  int rank, P, dim, m, W;             /* m: the most children of any element; W: 64-bit words of group bits per node */
  int64_t *cbase;                     /* [n_elems] the first child's element index; NULL: m * elem_index */
  int64_t N, NE, maxtag;              /* coarse global nodes, elements, largest tag */
  int32_t nv;                         /* coarse local nodes */
  int32_t *own;                       /* [nv] owners of the coarse local nodes */
  int32_t *eptr, *fptr;               /* [n_elems+1] each element's first edge / quadrilateral face slot */
  int32_t ne, *slot_edge;             /* unique local edges; edge of each element edge slot */
  edge_rec_t *edge;                   /* [ne] sorted by (ka, kb) */
  int32_t nf, *slot_face;             /* unique quadrilateral faces of 3D cells; face of each face slot */
  face_rec_t *face;                   /* [nf] sorted by k[] */
  int32_t nq, *elem_cent, *cent_elem; /* cells with a centre: element -> centre (-1), back */
  int8_t *variant;                    /* [n_elems] the tetrahedron's inner diagonal, 0 else */
  int32_t nc;                         /* candidates: nv + ne + nf + nq */
  int32_t *cown, *lid;                /* owner, fine local index (-1: not in the fine mesh) */
  int64_t *cidx;                      /* fine global index (-1: not known yet) */
  uint64_t *cbits;                    /* [nc*W] group membership */
  char *used;                         /* in a kept child */
  char *keep;                         /* [n_elems*m]: child kept */
  int64_t fine_nodes;                 /* global */
  int no_elements;                    /* the fine mesh without its elements (pm_refine_local_points) */
  /* Requests answered: for each, the asking rank and the candidate. */
  int64_t nreq;
  int32_t *req_rank, *req_cand;
} work_t;

static inline int cmp_ext(const void *x, const void *y) {
  const ext_rec_t *a = x, *b = y;
  if (a->owner != b->owner) return a->owner < b->owner ? -1 : 1;
  return (a->index > b->index) - (a->index < b->index);
}

/* Quadrilateral faces of a 3D cell (0 in 1D and 2D: a quadrangle's centre is its cell centre). */
static inline int cell_quad_faces(const pm_cell_t *t) {
  int n = 0;
  for (int f = 0; t->dim == 3 && f < t->n_facets; f++) n += t->facet_type[f] == PM_CELL_QUAD;
  return n;
}

/* Whether the cell's last refinement point is its centre (quadrangles, hexahedra). */
static inline int cell_has_centre(const pm_cell_t *t) {
  return t->n_refined > t->n_verts + t->n_edges + cell_quad_faces(t);
}

/* Child ch's vertices as refinement points (variant: the tetrahedron's inner diagonal). */
static inline const int8_t *cell_child(const pm_cell_t *t, int variant, int ch) {
  return ch < t->n_fixed ? t->child[ch] : t->variant_child[variant][ch - t->n_fixed];
}

/* Child ch's cell (a pyramid's last four are tetrahedra). */
static inline const pm_cell_t *child_cell(const pm_cell_t *t, int ch) {
  return t->n_tet_children ? pm_cell_get(pm_cell_child_type(t, ch)) : t;
}

/* The global element index of child ch of coarse element e (dense over all children). */
static inline int64_t child_index(const work_t *w, int32_t e, int ch) {
  return (w->cbase ? w->cbase[e] : w->c->elem_index[e] * w->m) + ch;
}

static inline int32_t find_edge(const work_t *w, int64_t ka, int64_t kb) {
  if (ka > kb) {
    int64_t s = ka;
    ka = kb;
    kb = s;
  }
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

static inline int cmp_key4(const int64_t *a, const int64_t *b) {
  for (int j = 0; j < 4; j++)
    if (a[j] != b[j]) return a[j] < b[j] ? -1 : 1;
  return 0;
}

/* The face with ascending global indices k[4], or -1. */
static inline int32_t find_face(const work_t *w, const int64_t *k) {
  int32_t lo = 0, hi = w->nf - 1;
  while (lo <= hi) {
    int32_t mid = lo + (hi - lo) / 2;
    int s = cmp_key4(w->face[mid].k, k);
    if (s == 0) return mid;
    if (s < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return -1;
}

/* Candidate of refinement point `ref` of coarse element e. */
static inline int32_t cand_of(const work_t *w, int32_t e, int ref) {
  const pm_local_t *c = w->c;
  const pm_cell_t *t = pm_cell_gmsh(c->elem_type[e]);
  if (ref < t->n_verts) return c->elem_node[c->elem_ptr[e] + ref];
  ref -= t->n_verts;
  if (ref < t->n_edges) return w->nv + w->slot_edge[w->eptr[e] + ref];
  ref -= t->n_edges;
  if (ref < w->fptr[e + 1] - w->fptr[e]) return w->nv + w->ne + w->slot_face[w->fptr[e] + ref];
  return w->nv + w->ne + w->nf + w->elem_cent[e];
}

static inline int64_t cand_gid(const work_t *w, int32_t k) {
  return k < w->nv ? w->c->gid[k] : w->maxtag + 1 + (w->cidx[k] - w->N);
}

static inline int has_bit(const work_t *w, int32_t k, int g) {
  return (int)(w->cbits[(int64_t)k * w->W + g / 64] >> (g % 64) & 1);
}

/* Candidate of refinement point `ref` of a group face (its local nodes v[], its cell type t),
 * or -1 when the face's edge or quadrilateral is not one of an element's. */
static inline int32_t face_cand(const work_t *w, const pm_cell_t *t, const int32_t *v, int ref) {
  const pm_local_t *c = w->c;
  if (ref < t->n_verts) return v[ref];
  ref -= t->n_verts;
  if (ref < t->n_edges) {
    int32_t k = find_edge(w, c->node_index[v[t->edge[ref][0]]], c->node_index[v[t->edge[ref][1]]]);
    return k < 0 ? -1 : w->nv + k;
  }
  if (t->type != PM_CELL_QUAD || w->dim != 3) return -1;
  int64_t k[4];
  for (int j = 0; j < 4; j++) {
    int64_t x = c->node_index[v[j]];
    int i = j;
    for (; i > 0 && k[i - 1] > x; i--) k[i] = k[i - 1];
    k[i] = x;
  }
  int32_t f = find_face(w, k);
  return f < 0 ? -1 : w->nv + w->ne + f;
}

#endif
