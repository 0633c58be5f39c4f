/* pm_fine_op.c - the finest level's operator applied from the coarse elements' children formed
 * in registers (pmesh/pm_fine_op.h): no fine element and no fine matrix is stored. */
#include "pmesh/pm_fine_op.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_element.h"
#include "pm_fine_cells.h"
#include "pm_problem_int.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"

enum { TET = PM_FINE_TET, NCODES = PM_FINE_CODES }; /* the tetrahedron's Gmsh code; the codes cell[] covers */
enum { PATCH_EDGES = 25 };                          /* the edges of a refined tetrahedron's ten points */

#if defined(__GNUC__)
#define ALWAYS_INLINE inline __attribute__((always_inline))
#else
#define ALWAYS_INLINE inline
#endif

/* One edge of a refined tetrahedron's ten points: its ends a < b and its weight
 * sum_{q < n} f[q] w[c[q]], a fixed linear map of the parent's six edge weights w. */
typedef struct patch_edge {
  int8_t a, b, n, c[3];
  double f[3];
} patch_edge_t;

/* Those edges per variant (the inner diagonal the refinement took): the children's matrices
 * C E C^T / 8 summed, for each parent edge's matrix E (edge_patch).  Written out so that the
 * product's loops unroll to constants (its weights and points stay in registers); check_patch
 * derives them again from the cell table at create and refuses a table that differs. */
static const patch_edge_t TET_PATCH[3][PATCH_EDGES] = {{{0, 4, 1, {0}, {0.5}},
                                                        {0, 6, 1, {1}, {0.5}},
                                                        {0, 7, 1, {2}, {0.5}},
                                                        {1, 4, 1, {0}, {0.5}},
                                                        {1, 5, 1, {3}, {0.5}},
                                                        {1, 9, 1, {4}, {0.5}},
                                                        {2, 5, 1, {3}, {0.5}},
                                                        {2, 6, 1, {1}, {0.5}},
                                                        {2, 8, 1, {5}, {0.5}},
                                                        {3, 7, 1, {2}, {0.5}},
                                                        {3, 8, 1, {5}, {0.5}},
                                                        {3, 9, 1, {4}, {0.5}},
                                                        {4, 5, 3, {0, 1, 5}, {0.5, 1.5, 0.5}},
                                                        {4, 6, 3, {0, 3, 5}, {0.5, 1.5, 0.5}},
                                                        {4, 7, 3, {0, 4, 5}, {0.5, 1.5, 0.5}},
                                                        {4, 8, 2, {0, 5}, {-1.0, -1.0}},
                                                        {4, 9, 3, {0, 2, 5}, {0.5, 1.5, 0.5}},
                                                        {5, 6, 2, {0, 5}, {1.0, -0.5}},
                                                        {5, 8, 3, {0, 4, 5}, {0.5, 1.5, 0.5}},
                                                        {5, 9, 2, {0, 5}, {-0.5, 1.0}},
                                                        {6, 7, 2, {0, 5}, {-0.5, 1.0}},
                                                        {6, 8, 3, {0, 2, 5}, {0.5, 1.5, 0.5}},
                                                        {7, 8, 3, {0, 1, 5}, {0.5, 1.5, 0.5}},
                                                        {7, 9, 2, {0, 5}, {1.0, -0.5}},
                                                        {8, 9, 3, {0, 3, 5}, {0.5, 1.5, 0.5}}},
                                                       {{0, 4, 1, {0}, {0.5}},
                                                        {0, 6, 1, {1}, {0.5}},
                                                        {0, 7, 1, {2}, {0.5}},
                                                        {1, 4, 1, {0}, {0.5}},
                                                        {1, 5, 1, {3}, {0.5}},
                                                        {1, 9, 1, {4}, {0.5}},
                                                        {2, 5, 1, {3}, {0.5}},
                                                        {2, 6, 1, {1}, {0.5}},
                                                        {2, 8, 1, {5}, {0.5}},
                                                        {3, 7, 1, {2}, {0.5}},
                                                        {3, 8, 1, {5}, {0.5}},
                                                        {3, 9, 1, {4}, {0.5}},
                                                        {4, 5, 2, {1, 4}, {1.0, -0.5}},
                                                        {4, 6, 3, {1, 3, 4}, {0.5, 1.5, 0.5}},
                                                        {4, 7, 2, {1, 4}, {-0.5, 1.0}},
                                                        {4, 9, 3, {1, 2, 4}, {0.5, 1.5, 0.5}},
                                                        {5, 6, 3, {0, 1, 4}, {1.5, 0.5, 0.5}},
                                                        {5, 8, 2, {1, 4}, {-0.5, 1.0}},
                                                        {5, 9, 3, {1, 4, 5}, {0.5, 0.5, 1.5}},
                                                        {6, 7, 3, {1, 4, 5}, {0.5, 0.5, 1.5}},
                                                        {6, 8, 3, {1, 2, 4}, {0.5, 1.5, 0.5}},
                                                        {6, 9, 2, {1, 4}, {-1.0, -1.0}},
                                                        {7, 8, 2, {1, 4}, {1.0, -0.5}},
                                                        {7, 9, 3, {0, 1, 4}, {1.5, 0.5, 0.5}},
                                                        {8, 9, 3, {1, 3, 4}, {0.5, 1.5, 0.5}}},
                                                       {{0, 4, 1, {0}, {0.5}},
                                                        {0, 6, 1, {1}, {0.5}},
                                                        {0, 7, 1, {2}, {0.5}},
                                                        {1, 4, 1, {0}, {0.5}},
                                                        {1, 5, 1, {3}, {0.5}},
                                                        {1, 9, 1, {4}, {0.5}},
                                                        {2, 5, 1, {3}, {0.5}},
                                                        {2, 6, 1, {1}, {0.5}},
                                                        {2, 8, 1, {5}, {0.5}},
                                                        {3, 7, 1, {2}, {0.5}},
                                                        {3, 8, 1, {5}, {0.5}},
                                                        {3, 9, 1, {4}, {0.5}},
                                                        {4, 5, 3, {1, 2, 3}, {1.5, 0.5, 0.5}},
                                                        {4, 6, 2, {2, 3}, {-0.5, 1.0}},
                                                        {4, 7, 3, {2, 3, 4}, {0.5, 0.5, 1.5}},
                                                        {4, 9, 2, {2, 3}, {1.0, -0.5}},
                                                        {5, 6, 3, {0, 2, 3}, {1.5, 0.5, 0.5}},
                                                        {5, 7, 2, {2, 3}, {-1.0, -1.0}},
                                                        {5, 8, 3, {2, 3, 4}, {0.5, 0.5, 1.5}},
                                                        {5, 9, 3, {2, 3, 5}, {0.5, 0.5, 1.5}},
                                                        {6, 7, 3, {2, 3, 5}, {0.5, 0.5, 1.5}},
                                                        {6, 8, 2, {2, 3}, {1.0, -0.5}},
                                                        {7, 8, 3, {1, 2, 3}, {1.5, 0.5, 0.5}},
                                                        {7, 9, 3, {0, 2, 3}, {1.5, 0.5, 0.5}},
                                                        {8, 9, 2, {2, 3}, {-0.5, 1.0}}}};

/* The parent's six edges (i < k) in the order of w. */
static const int8_t PARENT_EDGE[6][2] = {{0, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 3}};

struct pm_fine {
  const pm_local_t *c, *f;
  const pm_refine_points_t *pt;
  pm_halo_t *halo;
  const pm_problem_t *prob;
  double k_all;          /* every element's conductivity, when k is NULL */
  double *k;             /* [coarse elements] each one's, when they differ (until the weights are made) */
  float *w;              /* [coarse elements][6] a tetrahedron's parent edge weights (parent_weights, k included) */
  pm_fine_cells_t cells; /* the hexahedra's and prisms' pair weights (pm_fine_cells.h) */
  const pm_cell_t *cell[NCODES]; /* the table's entry of each Gmsh code the level may hold */
  uint8_t *plain; /* [coarse elements] 1: all its points are internal and free nodes (no test per point) */
  char *fixed;    /* [NP] Dirichlet marks */
  double *g;      /* [NP] Dirichlet values (0 elsewhere), until pm_fine_system */
  int64_t n_fixed;
  int8_t mid[10][2]; /* each refinement point's two parents (a vertex: itself twice) */
};

/* Child ch's fine nodes (t->n_verts of them); 0 when it touches no internal node (nothing to
 * add: it may also lack nodes this rank does not hold). */
static inline int children_of(const pm_refine_points_t *pt, const pm_local_t *c, int32_t n, const pm_cell_t *t,
                              int32_t e, int ch, int32_t v[PM_CELL_MAX_VERTS]) {
  const int8_t *ref = ch < t->n_fixed ? t->child[ch] : t->variant_child[pt->variant[e]][ch - t->n_fixed];
  int mine = 0, missing = 0;
  for (int j = 0; j < t->n_verts; j++) {
    v[j] = pm_refine_point(pt, c, e, ref[j]);
    missing |= v[j] < 0;
    mine |= v[j] >= 0 && v[j] < n;
  }
  return mine && !missing;
}

static inline int child_nodes(const pm_fine_t *F, const pm_cell_t *t, int32_t e, int ch, int32_t v[PM_CELL_MAX_VERTS]) {
  return children_of(F->pt, F->c, F->f->n_internal, t, e, ch, v);
}

static inline double k_of(const pm_fine_t *F, int32_t e) {
  return F->k ? F->k[e] : F->k_all;
}

/* Coarse element e's ten refinement points as fine nodes into pts (-1: not in this rank's fine
 * mesh): its vertices', then its edges' midpoints (the cell table's order, tet_template). */
static inline void element_points(const pm_fine_t *F, int32_t e, int32_t pts[10]) {
  const int32_t *cv = F->c->elem_node + F->c->elem_ptr[e], *nd = F->pt->node + (int64_t)e * F->pt->stride;
  for (int k = 0; k < 4; k++) pts[k] = F->pt->vert[cv[k]];
  for (int k = 0; k < 6; k++) pts[4 + k] = nd[k];
}

/* Coarse element e's refinement points as fine nodes into pts (-1: not in this rank's fine mesh),
 * in the cell table's order; their count. */
static inline int cell_points(const pm_fine_t *F, int32_t e, int32_t pts[PM_CELL_MAX_REFINED]) {
  if (F->c->elem_type[e] == TET) {
    element_points(F, e, pts);
    return 10;
  }
  const pm_cell_t *t = F->cell[F->c->elem_type[e]];
  for (int k = 0; k < t->n_refined; k++) pts[k] = pm_refine_point(F->pt, F->c, e, k);
  return t->n_refined;
}

/* The P1 Laplacian's six edge weights w_c = -K(i, k) of the tetrahedron X times k: with the
 * edges e_j = X_j - X_0 and the scaled face normals n_1 = e_2 x e_3, n_2 = e_3 x e_1,
 * n_3 = e_1 x e_2, n_0 = -(n_1 + n_2 + n_3), the gradients are n_a / det and
 * K(a, b) = k n_a . n_b / (6 det), det = e_1 . n_1 (pm_element_stiffness's matrix to rounding,
 * without its quadrature and cofactors).  0 unless det > 0. */
static inline int parent_weights(const double *X0, const double *X1, const double *X2, const double *X3, double k,
                                 double w[6]) {
  double e1[3], e2[3], e3[3], n[4][3];
  for (int i = 0; i < 3; i++) {
    e1[i] = X1[i] - X0[i];
    e2[i] = X2[i] - X0[i];
    e3[i] = X3[i] - X0[i];
  }
  for (int i = 0; i < 3; i++) {
    int a = (i + 1) % 3, b = (i + 2) % 3;
    n[1][i] = e2[a] * e3[b] - e2[b] * e3[a];
    n[2][i] = e3[a] * e1[b] - e3[b] * e1[a];
    n[3][i] = e1[a] * e2[b] - e1[b] * e2[a];
    n[0][i] = -(n[1][i] + n[2][i] + n[3][i]);
  }
  double det = e1[0] * n[1][0] + e1[1] * n[1][1] + e1[2] * n[1][2];
  if (!(det > 0)) return 0;
  double s = -k / (6 * det);
  for (int c = 0; c < 6; c++) {
    const double *p = n[PARENT_EDGE[c][0]], *q = n[PARENT_EDGE[c][1]];
    w[c] = s * (p[0] * q[0] + p[1] * q[1] + p[2] * q[2]);
  }
  return 1;
}

/* Every coarse element's parent edge weights into F->w, in single precision: the product then
 * reads 24 bytes an element instead of its four vertices' coordinates and a kernel, and each
 * weight is the double one to a relative 6e-8 (the operator is that of conductivities perturbed
 * by as much, far below the discretisation error).  The conductivities are folded in and freed.
 * Local. */
static int make_weights(pm_fine_t *F) {
  const pm_local_t *c = F->c;
  PM_CALL(PM_CALLOC(F->w, 6 * (int64_t)c->n_elems + 1, "matrix-free edge weights"));
  for (int32_t e = 0; e < c->n_elems; e++) {
    const int32_t *cv = c->elem_node + c->elem_ptr[e];
    double w[6];
    if (c->elem_type[e] != TET) continue; /* its weights are in F->cells */
    PM_CHECK(parent_weights(c->xyz + 3 * (int64_t)cv[0], c->xyz + 3 * (int64_t)cv[1], c->xyz + 3 * (int64_t)cv[2],
                            c->xyz + 3 * (int64_t)cv[3], k_of(F, e), w),
             PM_ERR_FORMAT,
             "element %lld: the tetrahedron is inverted or degenerate (Gmsh's orientation gives a positive Jacobian "
             "determinant)",
             (long long)c->elem_gid[e]);
    for (int j = 0; j < 6; j++) {
      float f = (float)w[j];
      PM_CHECK(isfinite(f) && (f != 0 || w[j] == 0), PM_ERR_ARG,
               "element %lld: an edge weight %g of its matrix (conductivity %g) is outside single precision's range; "
               "use --fine-operator assembled (or coordinates in other units)",
               (long long)c->elem_gid[e], w[j], k_of(F, e));
      F->w[6 * (int64_t)e + j] = f;
    }
  }
  free(F->k);
  F->k = NULL;
  return PM_OK;
}

/* Coarse element e's six parent edge weights. */
static inline void element_weights(const pm_fine_t *F, int32_t e, double w[6]) {
  const float *pw = F->w + 6 * (int64_t)e;
  for (int j = 0; j < 6; j++) w[j] = pw[j];
}

/* Edge E's weight from the parent's six. */
static ALWAYS_INLINE double edge_weight(const patch_edge_t *E, const double w[6]) {
  double W = E->f[0] * w[E->c[0]];
#pragma GCC unroll 2
  for (int q = 1; q < E->n; q++) W += E->f[q] * w[E->c[q]];
  return W;
}

/* yv = the patch's matrix times xv, for variant table T: per edge, its weight times the
 * difference of its ends, added to one end and taken from the other. */
static ALWAYS_INLINE void patch_apply(const patch_edge_t *T, const double w[6], const double xv[10], double yv[10]) {
  for (int a = 0; a < 10; a++) yv[a] = 0;
#pragma GCC unroll 25
  for (int j = 0; j < PATCH_EDGES; j++) {
    double W = edge_weight(&T[j], w);
    double d = W * (xv[T[j].a] - xv[T[j].b]);
    yv[T[j].a] += d;
    yv[T[j].b] -= d;
  }
}

/* dv = the patch's diagonal: each point's sum of its edges' weights (the rows sum to zero). */
static ALWAYS_INLINE void patch_diagonal(const patch_edge_t *T, const double w[6], double dv[10]) {
  for (int a = 0; a < 10; a++) dv[a] = 0;
#pragma GCC unroll 25
  for (int j = 0; j < PATCH_EDGES; j++) {
    double W = edge_weight(&T[j], w);
    dv[T[j].a] += W;
    dv[T[j].b] += W;
  }
}

/* patch_apply (diag 0) or patch_diagonal (diag 1, xv unread) of variant v, each variant's
 * table a constant the compiler folds in. */
static inline void patch(int v, int diag, const double w[6], const double xv[10], double yv[10]) {
  switch (v) {
    case 0:
      diag ? patch_diagonal(TET_PATCH[0], w, yv) : patch_apply(TET_PATCH[0], w, xv, yv);
      break;
    case 1:
      diag ? patch_diagonal(TET_PATCH[1], w, yv) : patch_apply(TET_PATCH[1], w, xv, yv);
      break;
    default:
      diag ? patch_diagonal(TET_PATCH[2], w, yv) : patch_apply(TET_PATCH[2], w, xv, yv);
      break;
  }
}

/* product's step for coarse element e when it is a hexahedron or prism (Gmsh code `code`): its
 * children's pair weights; nv and m, its vertices and points, constants in each of the two calls. */
static ALWAYS_INLINE void cell_step(const pm_fine_t *F, int32_t e, const double *x, double *y, int raw, int code,
                                    int nv, int m) {
  uint32_t n = (uint32_t)F->f->n_internal;
  const char *fx = F->fixed;
  int32_t pts[PM_CELL_MAX_REFINED];
  double xv[PM_CELL_MAX_REFINED], yv[PM_CELL_MAX_REFINED];
  const int32_t *cv = F->c->elem_node + F->c->elem_ptr[e], *nd = F->pt->node + (int64_t)e * F->pt->stride;
  int plain = F->plain[e] && !raw;
  for (int k = 0; k < m; k++) pts[k] = k < nv ? F->pt->vert[cv[k]] : nd[k - nv];
  for (int k = 0; k < m; k++) xv[k] = plain || (pts[k] >= 0 && (raw || !fx[pts[k]])) ? x[pts[k]] : 0.0;
  pm_fine_cells_apply(&F->cells, code, e, 0, xv, yv);
  for (int a = 0; a < m; a++)
    if (plain || ((uint32_t)pts[a] < n && (raw || !fx[pts[a]]))) y[pts[a]] += yv[a];
}

static void product_cell(const pm_fine_t *F, int32_t e, const double *x, double *y, int raw) {
  if (F->c->elem_type[e] == PM_FINE_HEX)
    cell_step(F, e, x, y, raw, PM_FINE_HEX, PM_FINE_HEX_VERTS, PM_FINE_HEX_POINTS);
  else
    cell_step(F, e, x, y, raw, PM_FINE_PRISM, PM_FINE_PRISM_VERTS, PM_FINE_PRISM_POINTS);
}

/* y = K x over the free rows and columns (raw: every row and column, for the load's Dirichlet
 * columns), y[N] zeroed first; x's externals must be current.  A tetrahedron in edge form: its
 * fine edge weights W (edge_weights), then for each of its ten points y_a += sum over its edges
 * W (x_a - x_b); a hexahedron or prism by its kept pair weights (cell_step) alike; x zero on
 * Dirichlet nodes (their columns eliminated).  A point this rank lacks (x taken as 0) is never
 * on an edge with an internal node, whose row alone is added.  Local. */
static int product(const pm_fine_t *F, const double *x, double *y, int raw) {
  const pm_local_t *c = F->c;
  uint32_t n = (uint32_t)F->f->n_internal;
  const char *fx = F->fixed;
  memset(y, 0, (size_t)n * sizeof *y);
  for (int32_t e = 0; e < c->n_elems; e++) {
    if (c->elem_type[e] != TET) {
      product_cell(F, e, x, y, raw);
      continue;
    }
    int32_t pts[10];
    double xv[10], yv[10], w[6];
    element_points(F, e, pts);
    element_weights(F, e, w);
    if (F->plain[e] && !raw) { /* most elements */
      for (int k = 0; k < 10; k++) xv[k] = x[pts[k]];
      patch(F->pt->variant[e], 0, w, xv, yv);
      for (int a = 0; a < 10; a++) y[pts[a]] += yv[a];
      continue;
    }
    for (int k = 0; k < 10; k++) xv[k] = pts[k] >= 0 && (raw || !fx[pts[k]]) ? x[pts[k]] : 0.0;
    patch(F->pt->variant[e], 0, w, xv, yv);
    for (int a = 0; a < 10; a++) /* the rank's rows: internal (unsigned: -1 is past n) */
      if ((uint32_t)pts[a] < n && (raw || !fx[pts[a]])) y[pts[a]] += yv[a];
  }
  if (!raw)
    for (uint32_t i = 0; i < n; i++)
      if (fx[i]) y[i] = x[i];
  return PM_OK;
}

/* Which coarse elements are plain (pm_fine_t.plain).  Local. */
static int mark_plain(pm_fine_t *F) {
  uint32_t n = (uint32_t)F->f->n_internal;
  PM_CALL(PM_MALLOC(F->plain, (int64_t)F->c->n_elems + 1, "matrix-free element marks"));
  for (int32_t e = 0; e < F->c->n_elems; e++) {
    int32_t pts[PM_CELL_MAX_REFINED];
    int plain = 1, m = cell_points(F, e, pts);
    for (int k = 0; k < m; k++) plain &= (uint32_t)pts[k] < n && !F->fixed[pts[k]];
    F->plain[e] = (uint8_t)plain;
  }
  return PM_OK;
}

static int diagonal(const pm_fine_t *F, double *d);

static int op_apply(void *ctx, double *x, double *y) {
  pm_fine_t *F = ctx;
  PM_CALL(pm_halo_update(F->halo, x, MPI_DOUBLE, 1));
  return product(F, x, y, 0);
}

static int op_diagonal(void *ctx, double *d) {
  return diagonal(ctx, d);
}

/* The diagonal into d [N]: each point's sum of its edge or pair weights (the rows have zero
 * sums), 1 on Dirichlet rows (computed when asked, not kept: 8 bytes a row less at the solve's
 * peak).  Local. */
static int diagonal(const pm_fine_t *F, double *d) {
  uint32_t n = (uint32_t)F->f->n_internal;
  memset(d, 0, (size_t)n * sizeof *d);
  for (int32_t e = 0; e < F->c->n_elems; e++) {
    int32_t pts[PM_CELL_MAX_REFINED];
    double dv[PM_CELL_MAX_REFINED], w[6];
    int m = cell_points(F, e, pts);
    if (F->c->elem_type[e] == TET) {
      element_weights(F, e, w);
      patch(F->pt->variant[e], 1, w, NULL, dv);
    } else {
      pm_fine_cells_apply(&F->cells, F->c->elem_type[e], e, 1, NULL, dv);
    }
    for (int a = 0; a < m; a++)
      if ((uint32_t)pts[a] < n) d[pts[a]] += dv[a];
  }
  for (uint32_t i = 0; i < n; i++)
    if (F->fixed[i]) d[i] = 1.0;
  return PM_OK;
}

/* The diagonal is positive on the free rows (the conductivities are).  Local. */
static int check_diagonal(const pm_fine_t *F) {
  int32_t n = F->f->n_internal;
  double *d = NULL;
  int ierr = PM_MALLOC(d, (int64_t)n + 1, "diagonal");
  if (!ierr) ierr = diagonal(F, d);
  for (int32_t i = 0; !ierr && i < n; i++)
    if (!(d[i] > 0))
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                          "node %lld: diagonal %g is not positive (is the conductivity positive?)",
                          (long long)F->f->gid[i], d[i]);
  free(d);
  return ierr;
}

/* The groups' values of `list` on every coarse element (later entries win; an entry without a
 * group covers all): idx[e] = entry, -1 for none.  Every group named must exist. */
static int entry_of_element(const pm_local_t *c, const pm_problem_list_t *list, const char *what, int32_t *idx) {
  for (int32_t e = 0; e < c->n_elems; e++) idx[e] = -1;
  for (int i = 0; i < list->n; i++) {
    const char *gname = list->e[i].group;
    if (!gname) {
      for (int32_t e = 0; e < c->n_elems; e++) idx[e] = i;
      continue;
    }
    int g = pm_local_find_group(c, gname);
    PM_CHECK(g >= 0, PM_ERR_ARG, "the %s on '%s': no group of that name", what, gname);
    for (int32_t k = 0; k < c->groups[g].n_elems; k++) idx[c->groups[g].elems[k]] = i;
  }
  return PM_OK;
}

/* Each coarse element's conductivity: constants only (a child's matrix is then the P1 one with
 * one factor, and the product needs no expression). */
static int conductivities(pm_fine_t *F, int32_t *idx) {
  const pm_problem_list_t *cond = &F->prob->conductivity;
  const pm_local_t *c = F->c;
  int ierr = PM_OK, uniform = cond->n == 0 || !cond->e[cond->n - 1].group;
  double *val = NULL;
  pm_expr_t *ex = NULL;
  F->k_all = 1.0; /* pm_problem's default */
  PM_TRY(PM_MALLOC(val, cond->n + 1, "conductivities"));
  for (int i = 0; i < cond->n; i++) {
    PM_TRY(pm_expr_create_value(cond->e[i].value, &ex));
    PM_TRY_CHECK(pm_expr_is_const(ex), PM_ERR_UNSUPPORTED,
                 "--fine-operator matrix-free: the conductivity '%s'%s%s depends on x, y or z (or is a callback): the "
                 "matrix-free operator takes constant conductivities per volume group; use --fine-operator "
                 "assembled",
                 pm_value_text(cond->e[i].value), cond->e[i].group ? " on " : "",
                 cond->e[i].group ? cond->e[i].group : "");
    val[i] = pm_expr_eval(ex, 0, 0, 0);
    pm_expr_destroy(&ex);
  }
  if (uniform) {
    if (cond->n) F->k_all = val[cond->n - 1];
    goto cleanup;
  }
  PM_TRY(entry_of_element(c, cond, "conductivity", idx));
  PM_TRY(PM_MALLOC(F->k, (int64_t)c->n_elems + 1, "conductivities"));
  for (int32_t e = 0; e < c->n_elems; e++) {
    PM_TRY_CHECK(idx[e] >= 0, PM_ERR_ARG, "element %lld has no conductivity", (long long)c->elem_gid[e]);
    F->k[e] = val[idx[e]];
  }
cleanup:
  pm_expr_destroy(&ex);
  free(val);
  return ierr;
}

/* What the matrix-free operator does not do, refused by name. */
static int supported(pm_fine_t *F) {
  const pm_problem_t *pr = F->prob;
  const char *opt = "--fine-operator matrix-free";
  PM_CHECK(pr->scheme == PM_SCHEME_FEM, PM_ERR_UNSUPPORTED,
           "%s: only the FEM scheme (not %s); use --fine-operator assembled", opt, pm_scheme_name(pr->scheme));
  PM_CHECK(pr->neumann.n == 0 && pr->robin_h.n == 0, PM_ERR_UNSUPPORTED,
           "%s: %s conditions are not supported (only Dirichlet ones); use --fine-operator assembled", opt,
           pr->neumann.n ? "Neumann" : "Robin");
  PM_CHECK(F->c->has_mesh && F->pt && F->pt->n_elems == F->c->n_elems && F->pt->n_coarse == F->c->n_total, PM_ERR_ARG,
           "%s: the level below the finest has no elements or no refinement points", opt);
  for (int32_t e = 0; e < F->c->n_elems; e++) {
    int code = F->c->elem_type[e];
    PM_CHECK(code == TET || code == PM_FINE_HEX || code == PM_FINE_PRISM, PM_ERR_UNSUPPORTED,
             "%s: element %lld is a %s: only tetrahedra, hexahedra and prisms are supported; use --fine-operator "
             "assembled",
             opt, (long long)F->c->elem_gid[e], pm_cell_gmsh(code) ? pm_cell_gmsh(code)->name : "?");
  }
  for (int code = 0; code < NCODES; code++) F->cell[code] = pm_cell_gmsh(code);
  return PM_OK;
}

/* The table's tetrahedron as check_patch and element_points read it: ten refinement
 * points (its four vertices first), each a vertex or the mean of two, eight children. */
static int tet_template(pm_fine_t *F) {
  const pm_cell_t *t = pm_cell_gmsh(TET);
  int ok = t->n_refined == 10 && t->n_children == 8 && t->n_fixed == 4 && t->n_verts == 4;
  for (int k = 0; ok && k < 10; k++) {
    int8_t p[PM_CELL_MAX_VERTS];
    int np = pm_cell_refined_parents(t, k, p);
    ok = np == 1 || np == 2;
    F->mid[k][0] = p[0];
    F->mid[k][1] = np == 2 ? p[1] : p[0];
  }
  PM_CHECK(ok, PM_ERR_INCONSISTENT, "the cell table's tetrahedron template is not the one pm_fine_op.c expects");
  return PM_OK;
}

/* The inverse of the 4 x 4 matrix A into R (Gauss-Jordan with partial pivoting); 0 if singular. */
static int invert4(double A[4][4], double R[4][4]) {
  double M[4][8];
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 8; j++) M[i][j] = j < 4 ? A[i][j] : (j - 4 == i);
  for (int col = 0; col < 4; col++) {
    int piv = col;
    for (int i = col + 1; i < 4; i++)
      if (fabs(M[i][col]) > fabs(M[piv][col])) piv = i;
    if (fabs(M[piv][col]) < 1e-12) return 0;
    for (int j = 0; j < 8; j++) {
      double t = M[col][j];
      M[col][j] = M[piv][j];
      M[piv][j] = t;
    }
    double s = 1.0 / M[col][col];
    for (int j = 0; j < 8; j++) M[col][j] *= s;
    for (int i = 0; i < 4; i++)
      if (i != col) {
        double f = M[i][col];
        for (int j = 0; j < 8; j++) M[i][j] -= f * M[col][j];
      }
  }
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 4; j++) R[i][j] = M[i][j + 4];
  return 1;
}

/* The patch (the ten points' matrix) of variant v when the parent's matrix is the single edge
 * c's, (e_i - e_k)(e_i - e_k)^T: the children's matrices C E C^T / 8, where a child's
 * barycentric coordinates are C = B^-T times the parent's (B's rows: its vertices' barycentric
 * coordinates in the parent) and its volume an eighth.  Local. */
static int edge_patch(const pm_fine_t *F, const pm_cell_t *t, int v, int c, double P[10][10]) {
  double E[4][4] = {{0}};
  int i = PARENT_EDGE[c][0], k = PARENT_EDGE[c][1];
  E[i][i] = E[k][k] = 1;
  E[i][k] = E[k][i] = -1;
  memset(P, 0, 100 * sizeof **P);
  for (int ch = 0; ch < t->n_children; ch++) {
    const int8_t *ref = ch < t->n_fixed ? t->child[ch] : t->variant_child[v][ch - t->n_fixed];
    double B[4][4] = {{0}}, Bi[4][4], CE[4][4];
    for (int a = 0; a < 4; a++) {
      B[a][F->mid[ref[a]][0]] += 0.5;
      B[a][F->mid[ref[a]][1]] += 0.5;
    }
    PM_CHECK(invert4(B, Bi), PM_ERR_INCONSISTENT, "the tetrahedron's child %d (variant %d) is degenerate", ch, v);
    /* C = Bi^T: C E C^T = Bi^T E Bi */
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        CE[a][b] = 0;
        for (int q = 0; q < 4; q++) CE[a][b] += Bi[q][a] * E[q][b];
      }
    for (int a = 0; a < 4; a++)
      for (int b = 0; b < 4; b++) {
        double s = 0;
        for (int q = 0; q < 4; q++) s += CE[a][q] * Bi[q][b];
        P[ref[a]][ref[b]] += s / 8;
      }
  }
  return PM_OK;
}

/* TET_PATCH against the cell table: each variant's edges (the pairs of points some child joins,
 * in lexicographic order) and their weights' coefficients derived from its children
 * (edge_patch), to 1e-12.  Local. */
static int check_patch(const pm_fine_t *F) {
  const pm_cell_t *t = pm_cell_gmsh(TET);
  PM_CHECK(t->n_variants == 3, PM_ERR_INCONSISTENT, "the cell table's tetrahedron has %d variants, not 3",
           t->n_variants);
  for (int v = 0; v < t->n_variants; v++) {
    double P[6][10][10];
    for (int c = 0; c < 6; c++) PM_CALL(edge_patch(F, t, v, c, P[c]));
    int ne = 0;
    for (int a = 0; a < 10; a++)
      for (int b = a + 1; b < 10; b++) {
        int used = 0;
        for (int c = 0; c < 6; c++) used |= fabs(P[c][a][b]) > 1e-12;
        if (!used) continue;
        const patch_edge_t *E = &TET_PATCH[v][ne < PATCH_EDGES ? ne : 0];
        int same = ne < PATCH_EDGES && E->a == a && E->b == b;
        for (int c = 0; same && c < 6; c++) {
          double f = 0;
          for (int q = 0; q < E->n; q++) f += E->c[q] == c ? E->f[q] : 0.0;
          same = fabs(f + P[c][a][b]) <= 1e-12;
        }
        PM_CHECK(same, PM_ERR_INCONSISTENT,
                 "the cell table's tetrahedron (variant %d, points %d and %d) is not the refinement pm_fine_op.c's "
                 "patch table was written for",
                 v, a, b);
        ne++;
      }
    PM_CHECK(ne == PATCH_EDGES, PM_ERR_INCONSISTENT, "a refined tetrahedron (variant %d) has %d edges, not %d", v, ne,
             PATCH_EDGES);
  }
  return PM_OK;
}

void pm_fine_destroy(pm_fine_t **f) {
  if (!f || !*f) return;
  free((*f)->k);
  free((*f)->w);
  pm_fine_cells_free(&(*f)->cells);
  free((*f)->plain);
  free((*f)->fixed);
  free((*f)->g);
  free(*f);
  *f = NULL;
}

int pm_fine_create(const pm_local_t *coarse, const pm_local_t *fine, const pm_refine_points_t *points, pm_halo_t *halo,
                   const pm_problem_t *prob, pm_fine_t **f) {
  pm_fine_t *F = NULL;
  int32_t *idx = NULL;
  int ierr = PM_OK;
  *f = NULL;
  PM_CHECK(coarse && fine && halo && prob, PM_ERR_ARG, "pm_fine_create: NULL argument");
  PM_TRY(PM_CALLOC(F, 1, "matrix-free operator"));
  F->c = coarse;
  F->f = fine;
  F->pt = points;
  F->halo = halo;
  F->prob = prob;
  F->k_all = 1.0;
  PM_TRY(supported(F));
  PM_TRY(tet_template(F));
  PM_TRY(check_patch(F));
  int32_t n = fine->n_internal, np = fine->n_total;
  PM_TRY(PM_MALLOC(idx, (int64_t)coarse->n_elems + 1, "conductivities"));
  PM_TRY(conductivities(F, idx));
  PM_TRY(pm_fine_cells_create(coarse, fine, points, F->k, F->k_all, &F->cells));
  PM_TRY(make_weights(F));
  PM_TRY(PM_MALLOC(F->fixed, (int64_t)np + 1, "Dirichlet marks"));
  PM_TRY(PM_CALLOC(F->g, (int64_t)np + 1, "Dirichlet values"));
  PM_TRY(pm_fem_dirichlet(fine, prob, 0.0, F->fixed, F->g));
  for (int32_t i = 0; i < n; i++) F->n_fixed += F->fixed[i] != 0;
  PM_TRY(mark_plain(F));
  PM_TRY(check_diagonal(F));
  *f = F;
  F = NULL;
cleanup:
  free(idx);
  pm_fine_destroy(&F);
  return ierr;
}

/* The source loads of the children into b [N] (zeroed first).  Local. */
static int loads(const pm_fine_t *F, double *b) {
  const pm_problem_list_t *src = &F->prob->source;
  const pm_local_t *c = F->c;
  int32_t n = F->f->n_internal, *idx = NULL;
  pm_expr_t **fx = NULL;
  int ierr = PM_OK;
  memset(b, 0, (size_t)n * sizeof *b);
  if (src->n == 0) return PM_OK; /* the default source is 0 */
  PM_TRY(PM_CALLOC(fx, src->n, "sources"));
  for (int i = 0; i < src->n; i++) PM_TRY(pm_expr_create_value(src->e[i].value, &fx[i]));
  PM_TRY(PM_MALLOC(idx, (int64_t)c->n_elems + 1, "sources"));
  PM_TRY(entry_of_element(c, src, "source", idx));
  for (int32_t e = 0; e < c->n_elems; e++) {
    const pm_cell_t *t = F->cell[c->elem_type[e]];
    for (int ch = 0; ch < t->n_children; ch++) {
      int32_t v[PM_CELL_MAX_VERTS];
      double Fe[PM_ELEMENT_NV];
      const double *X[PM_CELL_MAX_VERTS];
      if (!child_nodes(F, t, e, ch, v)) continue;
      PM_TRY_CHECK(idx[e] >= 0, PM_ERR_ARG, "element %lld has no source", (long long)c->elem_gid[e]);
      for (int j = 0; j < t->n_verts; j++) X[j] = F->f->xyz + 3 * (int64_t)v[j];
      ierr = pm_element_load_at(t, X, fx[idx[e]], Fe);
      if (ierr) {
        char prefix[128];
        snprintf(prefix, sizeof prefix, "a child of element %lld: ", (long long)c->elem_gid[e]);
        pm_error_prefix(prefix);
        goto cleanup;
      }
      for (int a = 0; a < t->n_verts; a++)
        if (v[a] < n) b[v[a]] += Fe[a];
    }
  }
cleanup:
  for (int i = 0; fx && i < src->n; i++) pm_expr_destroy(&fx[i]);
  free(fx);
  free(idx);
  return ierr;
}

int pm_fine_system(pm_fine_t *F, double *b, double *u, int64_t *n_fixed) {
  int32_t n = F->f->n_internal, np = F->f->n_total;
  PM_CHECK(F->g, PM_ERR_ARG, "pm_fine_system: called twice (the Dirichlet values are given once)");
  double *s = NULL;
  int ierr = loads(F, b);
  if (!ierr) ierr = PM_MALLOC(s, (int64_t)n + 1, "Dirichlet columns");
  memcpy(u, F->g, (size_t)np * sizeof *u); /* current at the externals: pm_fem_dirichlet set them all */
  if (!ierr) ierr = product(F, u, s, 1);
  for (int32_t i = 0; !ierr && i < n; i++) b[i] = F->fixed[i] ? F->g[i] : b[i] - s[i];
  free(s);
  free(F->g); /* u holds them now */
  F->g = NULL;
  *n_fixed = F->n_fixed;
  return ierr;
}

const char *pm_fine_fixed(const pm_fine_t *F) {
  return F->fixed;
}

int pm_fine_op(pm_fine_t *F, pm_op_t **op) {
  static const pm_op_shell_t shell = {"matrix-free", op_apply, op_diagonal, NULL};
  return pm_op_create_shell(pm_halo_comm(F->halo), F->f->n_internal, F->f->n_total, &shell, F, op);
}

int pm_fine_node_weights(const pm_local_t *coarse, const pm_local_t *fine, const pm_refine_points_t *pt, double *w) {
  int32_t n = fine->n_internal;
  PM_CHECK(pt && pt->n_elems == coarse->n_elems, PM_ERR_ARG, "pm_fine_node_weights: no refinement points of the mesh");
  for (int32_t e = 0; e < coarse->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(coarse->elem_type[e]);
    int code = coarse->elem_type[e];
    PM_CHECK(t && (code == TET || code == PM_FINE_HEX || code == PM_FINE_PRISM), PM_ERR_UNSUPPORTED,
             "pm_fine_node_weights: element %lld is no tetrahedron, hexahedron or prism",
             (long long)coarse->elem_gid[e]);
  }
  memset(w, 0, (size_t)n * sizeof *w);
  for (int32_t e = 0; e < coarse->n_elems; e++) {
    const pm_cell_t *t = pm_cell_gmsh(coarse->elem_type[e]);
    for (int ch = 0; ch < t->n_children; ch++) {
      int32_t v[PM_CELL_MAX_VERTS];
      const double *X[PM_CELL_MAX_VERTS];
      pm_element_qp_t g;
      if (!children_of(pt, coarse, n, t, e, ch, v)) continue;
      for (int j = 0; j < t->n_verts; j++) X[j] = fine->xyz + 3 * (int64_t)v[j];
      PM_CALL(pm_element_geometry(t, X, 0, &g));
      double m = 0; /* split equally, as pm_fem_node_weights does */
      for (int q = 0; q < g.n_qp; q++) m += g.w[q];
      for (int a = 0; a < t->n_verts; a++)
        if (v[a] < n) w[v[a]] += m / t->n_verts;
    }
  }
  return PM_OK;
}
