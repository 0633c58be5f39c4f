/* pm_element.c - the element kernels: one isoparametric map for every cell type of the table
 * (pm_cell.h), and the stiffness, load and mass it gives. */
#include "pm_element.h"

#include <math.h>
#include <string.h>

int pm_element_need(const pm_local_t *l) {
  PM_CHECK(l->has_mesh, PM_ERR_ARG,
           "the local mesh has no elements (a lecture table file, or elements released by pm_local_release)");
  return PM_OK;
}

int pm_element_eval(const pm_expr_t *e, const double *p, const char *what, double *v) {
  *v = pm_expr_eval(e, p[0], p[1], p[2]);
  PM_CHECK(isfinite(*v), PM_ERR_ARG, "%s is not finite at (%g, %g, %g)", what, p[0], p[1], p[2]);
  return PM_OK;
}

/* The kernels below are written once for any cell and inlined into one call per shape of the
 * table (vertex count, dimension, quadrature size) with those sizes as constants: the compiler
 * unrolls their loops and drops the work a lower dimension does not need, while every cell type
 * runs the same source.  A shape not listed runs the same kernel with its sizes read at run time. */
#if defined(__GNUC__)
#define KERNEL static inline __attribute__((always_inline))
#else
#define KERNEL static inline
#endif

/* A cell type's basis and reference gradients at its quadrature points, evaluated once per type
 * (and thread) instead of once per element, and the table entry of each Gmsh code met. */
typedef struct ref_basis {
  const pm_cell_t *c;
  int edges; /* a simplex whose reference gradients are -1 for vertex 0 and e_j for vertex j + 1:
                its Jacobian's columns are the edges X[j + 1] - X[0], with no product to sum */
  double phi[PM_CELL_MAX_QP][PM_CELL_MAX_VERTS];
  double dn[PM_CELL_MAX_QP][PM_CELL_MAX_VERTS][3];
} ref_basis_t;

enum { GMSH_CODES = 32 };

typedef struct ref_cache {
  ref_basis_t type[PM_CELL_NTYPES];
  const ref_basis_t *gmsh[GMSH_CODES];
} ref_cache_t;

static _Thread_local ref_cache_t refs;

static const ref_basis_t *ref_basis(const pm_cell_t *c) {
  ref_basis_t *r = &refs.type[c->type];
  if (!r->c) {
    for (int q = 0; q < c->n_qp; q++) pm_cell_basis(c, c->qp[q], r->phi[q], r->dn[q]);
    r->edges = c->n_verts == c->dim + 1;
    for (int a = 0; a < c->n_verts; a++)
      for (int j = 0; j < 3; j++) r->edges &= r->dn[0][a][j] == (a == 0 ? (j < c->dim ? -1 : 0) : (j == a - 1));
    r->c = c;
  }
  return r;
}

/* The reference basis of Gmsh type `gmsh`, NULL when the table lacks it. */
static const ref_basis_t *ref_basis_gmsh(int gmsh) {
  if (gmsh >= 0 && gmsh < GMSH_CODES && refs.gmsh[gmsh]) return refs.gmsh[gmsh];
  const pm_cell_t *c = pm_cell_gmsh(gmsh);
  if (!c) return NULL;
  const ref_basis_t *r = ref_basis(c);
  if (gmsh >= 0 && gmsh < GMSH_CODES) refs.gmsh[gmsh] = r;
  return r;
}

/* The element's reference basis (its cell in r->c), checked against its vertex count. */
static inline int element_type(const pm_local_t *l, int32_t e, const ref_basis_t **r) {
  int nv = l->elem_ptr[e + 1] - l->elem_ptr[e];
  *r = ref_basis_gmsh(l->elem_type[e]);
  const pm_cell_t *c = *r ? (*r)->c : NULL;
  PM_CHECK(c && c->dim > 0, PM_ERR_FORMAT, "element type %d is no cell pmesh integrates over", l->elem_type[e]);
  PM_CHECK(nv == c->n_verts, PM_ERR_FORMAT, "the %s has %d nodes instead of %d", c->name, nv, c->n_verts);
  return PM_OK;
}

/* The coordinates of the nv vertices of element e. */
KERNEL void vertices(const pm_local_t *l, int32_t e, const double *X[PM_CELL_MAX_VERTS], const int nv) {
  const int32_t *node = l->elem_node + l->elem_ptr[e];
  for (int a = 0; a < nv; a++) X[a] = l->xyz + 3 * node[a];
}

int pm_element_cell(const pm_local_t *l, int32_t e, const pm_cell_t **c, const double *X[PM_CELL_MAX_VERTS]) {
  const ref_basis_t *r;
  PM_CALL(element_type(l, e, &r));
  *c = r->c;
  vertices(l, e, X, (*c)->n_verts);
  return PM_OK;
}

/* A 3D cell at one point: det J > 0, gradients J^-T dN. */
KERNEL int map3(const pm_cell_t *c, double J[3][3], const double (*dn)[3], int grads, double (*grad)[3], double *jac,
                const int nv) {
  double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
               J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
  PM_CHECK(det > 0, PM_ERR_FORMAT,
           "the %s is inverted or degenerate (Jacobian determinant %g at a quadrature point; Gmsh's orientation "
           "gives a positive one)",
           c->name, det);
  *jac = det;
  if (!grads) return PM_OK;
  double Ji[3][3]; /* the inverse */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      Ji[i][j] = (J[i1][j1] * J[i2][j2] - J[i1][j2] * J[i2][j1]) / det;
    }
  for (int a = 0; a < nv; a++)
    for (int i = 0; i < 3; i++) grad[a][i] = dn[a][0] * Ji[0][i] + dn[a][1] * Ji[1][i] + dn[a][2] * Ji[2][i];
  return PM_OK;
}

/* A cell of dimension d < 3 at one point: the measure sqrt(det G) of the tangents (G = J^T J),
 * tangential gradients J G^-1 dN. */
KERNEL int map_low(const pm_cell_t *c, double J[3][3], const double (*dn)[3], int grads, double (*grad)[3],
                   double *jac, int *flat, const int nv, const int d) {
  if (d == 2 && J[2][0] == 0 && J[2][1] == 0) { /* a cell of a 2D mesh (z constant): J is 2x2 */
    double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
    PM_CHECK(det != 0, PM_ERR_FORMAT, "the %s is degenerate (zero area)", c->name);
    *jac = fabs(det);
    *flat = 1;
    if (!grads) return PM_OK;
    for (int a = 0; a < nv; a++) {
      grad[a][0] = (J[1][1] * dn[a][0] - J[1][0] * dn[a][1]) / det;
      grad[a][1] = (-J[0][1] * dn[a][0] + J[0][0] * dn[a][1]) / det;
      grad[a][2] = 0;
    }
    return PM_OK;
  }
  double G[2][2] = {{0, 0}, {0, 0}}, Gi[2][2];
  for (int j = 0; j < d; j++)
    for (int k = 0; k < d; k++)
      for (int i = 0; i < 3; i++) G[j][k] += J[i][j] * J[i][k];
  double det = d == 1 ? G[0][0] : G[0][0] * G[1][1] - G[0][1] * G[1][0];
  PM_CHECK(det > 0, PM_ERR_FORMAT, "the %s is degenerate (zero %s)", c->name, d == 1 ? "length" : "area");
  *jac = sqrt(det);
  if (!grads) return PM_OK;
  if (d == 1) {
    Gi[0][0] = 1 / det;
    Gi[0][1] = Gi[1][0] = Gi[1][1] = 0;
  } else {
    Gi[0][0] = G[1][1] / det;
    Gi[1][1] = G[0][0] / det;
    Gi[0][1] = Gi[1][0] = -G[0][1] / det;
  }
  for (int a = 0; a < nv; a++) { /* dn[a][1] is 0 on a line */
    double r0 = Gi[0][0] * dn[a][0] + Gi[0][1] * dn[a][1], r1 = Gi[1][0] * dn[a][0] + Gi[1][1] * dn[a][1];
    for (int i = 0; i < 3; i++) grad[a][i] = J[i][0] * r0 + J[i][1] * r1;
  }
  return PM_OK;
}

/* The map of a cell with nv vertices, dimension dim and nq quadrature points (pm_element_geometry);
 * `points` = 0 computes only the first physical point (the data are constants). */
KERNEL int geometry(const ref_basis_t *r, const double *const *X, int grads, int points, pm_element_qp_t *g,
                    const int nv, const int dim, const int nq) {
  const pm_cell_t *c = r->c;
  const int affine = nv == dim + 1; /* a simplex: a linear map, its Jacobian the same everywhere */
  double jac = 1;
  g->n_qp = nq;
  g->nv = nv;
  g->affine = affine;
  g->flat = 0;
  g->phi = r->phi;
  for (int q = 0; q < nq; q++) {
    const double(*dn)[3] = r->dn[q];
    double *p = g->p[q];
    p[0] = p[1] = p[2] = 0;
    for (int a = 0; a < nv && (points || q == 0); a++) {
      const double *x = X[a], f = r->phi[q][a];
      p[0] += f * x[0];
      p[1] += f * x[1];
      p[2] += f * x[2];
    }
    if (!affine || q == 0) { /* a simplex's gradients are grad[0]'s */
      double J[3][3] = {{0}}; /* dx_i / dxi_j; a reference gradient is 0 beyond the cell's dimension */
      if (affine && r->edges) /* the same sums, without the products by 0 and 1 */
        for (int i = 0; i < 3; i++)
          for (int j = 0; j < dim; j++) J[i][j] = X[j + 1][i] - X[0][i];
      else
        for (int a = 0; a < nv; a++)
          for (int i = 0; i < 3; i++)
            for (int j = 0; j < dim; j++) J[i][j] += dn[a][j] * X[a][i];
      if (dim == 3) {
        PM_CALL(map3(c, J, dn, grads, g->grad[q], &jac, nv));
      } else if (dim > 0) {
        PM_CALL(map_low(c, J, dn, grads, g->grad[q], &jac, &g->flat, nv, dim));
      } else if (grads) {
        g->grad[q][0][0] = g->grad[q][0][1] = g->grad[q][0][2] = 0;
      }
    }
    g->w[q] = c->qw[q] * jac;
  }
  return PM_OK;
}

/* K[a][b] (+)= c grad_a . grad_b for b >= a (added when `add`), over the first nc components of
 * the gradients. */
KERNEL void add_upper(double K[PM_ELEMENT_NV][PM_ELEMENT_NV], double (*grad)[3], double c, const int nv,
                      const int nc, const int add) {
  for (int a = 0; a < nv; a++)
    for (int b = a; b < nv; b++) {
      double d = 0;
      for (int i = 0; i < nc; i++) d += grad[a][i] * grad[b][i];
      K[a][b] = add ? K[a][b] + c * d : c * d;
    }
}

/* Element stiffness and load of a cell of nv vertices, dimension dim, nq quadrature points
 * (pm_element_stiffness); s scales the weights. */
KERNEL int stiffness(const ref_basis_t *r, const double *const *X, const pm_expr_t *k, const pm_expr_t *f, double s,
                     double K[PM_ELEMENT_NV][PM_ELEMENT_NV], double F[PM_ELEMENT_NV], const int nv, const int dim,
                     const int nq) {
  pm_element_qp_t g;
  /* constant data are evaluated once, at the first point, and need no other point */
  const int k_const = pm_expr_is_const(k), f_const = pm_expr_is_const(f);
  PM_CALL(geometry(r, X, 1, !(k_const && f_const), &g, nv, dim, nq));
  /* the data at the points first: the sums below then run without calls in between */
  double kw[PM_CELL_MAX_QP], fv[PM_CELL_MAX_QP], w[PM_CELL_MAX_QP]; /* k w, f and w at each point */
  double kv = 0;
  for (int q = 0; q < nq; q++) {
    w[q] = g.w[q] * s;
    if (q == 0 || !k_const) PM_CALL(pm_element_eval(k, g.p[q], "the conductivity", &kv));
    if (q == 0 || !f_const) PM_CALL(pm_element_eval(f, g.p[q], "the source", &fv[q]));
    if (q > 0 && f_const) fv[q] = fv[0];
    kw[q] = kv * w[q];
  }
  for (int a = 0; a < nv; a++) {
    double Fa = 0;
    for (int q = 0; q < nq; q++) Fa += fv[q] * g.phi[q][a] * w[q];
    F[a] = Fa;
  }
  const int nc = dim == 2 && g.flat ? 2 : 3; /* a flat cell's gradients have no z */
  if (g.affine) { /* a simplex: the sum of k w, its gradients being constant */
    double ks = 0;
    for (int q = 0; q < nq; q++) ks += kw[q];
    if (nc == 2)
      add_upper(K, g.grad[0], ks, nv, 2, 0);
    else
      add_upper(K, g.grad[0], ks, nv, 3, 0);
  } else {
    for (int a = 0; a < nv; a++)
      for (int b = a; b < nv; b++) K[a][b] = 0;
    for (int q = 0; q < nq; q++)
      if (nc == 2)
        add_upper(K, g.grad[q], kw[q], nv, 2, 1);
      else
        add_upper(K, g.grad[q], kw[q], nv, 3, 1);
  }
  for (int a = 0; a < nv; a++)
    for (int b = 0; b < a; b++) K[a][b] = K[b][a];
  return PM_OK;
}

/* Element mass of a cell of nv vertices, dimension dim, nq quadrature points (pm_element_mass). */
KERNEL int mass(const ref_basis_t *r, const pm_local_t *l, int32_t e, double s, double M[PM_ELEMENT_NV][PM_ELEMENT_NV],
                const int nv, const int dim, const int nq) {
  const double *X[PM_CELL_MAX_VERTS];
  pm_element_qp_t g;
  vertices(l, e, X, nv);
  PM_CALL(geometry(r, X, 0, 0, &g, nv, dim, nq));
  for (int a = 0; a < nv; a++)
    for (int b = 0; b < nv; b++) M[a][b] = 0;
  for (int q = 0; q < nq; q++)
    for (int a = 0; a < nv; a++)
      for (int b = 0; b < nv; b++) M[a][b] += g.w[q] * s * g.phi[q][a] * g.phi[q][b];
  return PM_OK;
}

/* The shape a kernel is compiled for: vertices, dimension and quadrature points of a table entry. */
#define SHAPE(nv, dim, nq) ((nv) * 100 + (dim) * 10 + (nq))

static int shape(const pm_cell_t *c) {
  return SHAPE(c->n_verts, c->dim, c->n_qp);
}

/* The shapes of the table's cells: point, line, triangle, quadrangle, tetrahedron, prism, hexahedron. */
#define SHAPES(X)                                                                                                   \
  X(1, 0, 1) X(2, 1, 2) X(3, 2, 3) X(4, 2, 4) X(4, 3, 4) X(6, 3, 6) X(8, 3, 8)

int pm_element_geometry(const pm_cell_t *c, const double *const *X, int grads, pm_element_qp_t *g) {
  const ref_basis_t *r = ref_basis(c);
  switch (shape(c)) {
#define CASE(nv, dim, nq)                                                                                           \
  case SHAPE(nv, dim, nq):                                                                                          \
    return geometry(r, X, grads, 1, g, nv, dim, nq);
    SHAPES(CASE)
#undef CASE
  default:
    return geometry(r, X, grads, 1, g, c->n_verts, c->dim, c->n_qp);
  }
}

int pm_element_stiffness_at(const pm_cell_t *c, const double *const *X, const pm_expr_t *k, const pm_expr_t *f,
                            double area, double K[PM_ELEMENT_NV][PM_ELEMENT_NV], double F[PM_ELEMENT_NV]) {
  const ref_basis_t *r = ref_basis(c);
  double s = c->dim == 1 ? area : 1.0;
  switch (shape(c)) {
#define CASE(nv, dim, nq)                                                                                           \
  case SHAPE(nv, dim, nq):                                                                                          \
    return stiffness(r, X, k, f, s, K, F, nv, dim, nq);
    SHAPES(CASE)
#undef CASE
  default:
    return stiffness(r, X, k, f, s, K, F, c->n_verts, c->dim, c->n_qp);
  }
}

int pm_element_load_at(const pm_cell_t *c, const double *const *X, const pm_expr_t *f, double F[PM_ELEMENT_NV]) {
  pm_element_qp_t g;
  PM_CALL(pm_element_geometry(c, X, 0, &g));
  const int f_const = pm_expr_is_const(f);
  double fv[PM_CELL_MAX_QP];
  for (int q = 0; q < g.n_qp; q++) {
    if (q == 0 || !f_const) PM_CALL(pm_element_eval(f, g.p[q], "the source", &fv[q]));
    if (q > 0 && f_const) fv[q] = fv[0];
  }
  for (int a = 0; a < g.nv; a++) { /* stiffness's sums, term for term */
    double Fa = 0;
    for (int q = 0; q < g.n_qp; q++) Fa += fv[q] * g.phi[q][a] * g.w[q];
    F[a] = Fa;
  }
  return PM_OK;
}

int pm_element_stiffness(const pm_local_t *l, int32_t e, const pm_expr_t *k, const pm_expr_t *f, double area,
                         double K[PM_ELEMENT_NV][PM_ELEMENT_NV], double F[PM_ELEMENT_NV]) {
  const ref_basis_t *r;
  PM_CALL(element_type(l, e, &r));
  const double *X[PM_CELL_MAX_VERTS];
  vertices(l, e, X, r->c->n_verts);
  return pm_element_stiffness_at(r->c, X, k, f, area, K, F);
}

int pm_element_mass(const pm_local_t *l, int32_t e, double area, double M[PM_ELEMENT_NV][PM_ELEMENT_NV]) {
  const ref_basis_t *r;
  PM_CALL(element_type(l, e, &r));
  const pm_cell_t *c = r->c;
  double s = c->dim == 1 ? area : 1.0;
  switch (shape(c)) {
#define CASE(nv, dim, nq)                                                                                           \
  case SHAPE(nv, dim, nq):                                                                                          \
    return mass(r, l, e, s, M, nv, dim, nq);
    SHAPES(CASE)
#undef CASE
  default:
    return mass(r, l, e, s, M, c->n_verts, c->dim, c->n_qp);
  }
}
