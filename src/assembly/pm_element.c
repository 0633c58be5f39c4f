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

int pm_element_cell(const pm_local_t *l, int32_t e, const pm_cell_t **c, const double *X[PM_CELL_MAX_VERTS]) {
  int32_t k0 = l->elem_ptr[e];
  int nv = l->elem_ptr[e + 1] - k0;
  *c = pm_cell_gmsh(l->elem_type[e]);
  PM_CHECK(*c && (*c)->dim > 0, PM_ERR_FORMAT, "element type %d is no cell pmesh integrates over", l->elem_type[e]);
  PM_CHECK(nv == (*c)->n_verts, PM_ERR_FORMAT, "the %s has %d nodes instead of %d", (*c)->name, nv, (*c)->n_verts);
  for (int a = 0; a < nv; a++) X[a] = l->xyz + 3 * l->elem_node[k0 + a];
  return PM_OK;
}

/* The inverse of the 3x3 matrix J with determinant det. */
static void inverse3(double J[3][3], double det, double Ji[3][3]) {
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) {
      int i1 = (j + 1) % 3, i2 = (j + 2) % 3, j1 = (i + 1) % 3, j2 = (i + 2) % 3;
      Ji[i][j] = (J[i1][j1] * J[i2][j2] - J[i1][j2] * J[i2][j1]) / det;
    }
}

/* A 3D cell at one point: det J > 0, gradients J^-T dN. */
static int map3(const pm_cell_t *c, double J[3][3], const double (*dn)[3], int grads, double (*grad)[3], double *jac) {
  double det = J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
               J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
  PM_CHECK(det > 0, PM_ERR_FORMAT,
           "the %s is inverted or degenerate (Jacobian determinant %g at a quadrature point; Gmsh's orientation "
           "gives a positive one)",
           c->name, det);
  *jac = det;
  if (!grads) return PM_OK;
  double Ji[3][3];
  inverse3(J, det, Ji);
  for (int a = 0; a < c->n_verts; a++)
    for (int i = 0; i < 3; i++) grad[a][i] = dn[a][0] * Ji[0][i] + dn[a][1] * Ji[1][i] + dn[a][2] * Ji[2][i];
  return PM_OK;
}

/* A cell of dimension d < 3 at one point: the measure sqrt(det G) of the tangents (G = J^T J),
 * tangential gradients J G^-1 dN. */
static int map_low(const pm_cell_t *c, double J[3][3], const double (*dn)[3], int grads, double (*grad)[3], double *jac) {
  int d = c->dim;
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
  } else {
    Gi[0][0] = G[1][1] / det;
    Gi[1][1] = G[0][0] / det;
    Gi[0][1] = Gi[1][0] = -G[0][1] / det;
  }
  if (d == 1)
    Gi[0][1] = Gi[1][0] = Gi[1][1] = 0;
  for (int a = 0; a < c->n_verts; a++) { /* dn[a][1] is 0 on a line */
    double r0 = Gi[0][0] * dn[a][0] + Gi[0][1] * dn[a][1], r1 = Gi[1][0] * dn[a][0] + Gi[1][1] * dn[a][1];
    for (int i = 0; i < 3; i++) grad[a][i] = J[i][0] * r0 + J[i][1] * r1;
  }
  return PM_OK;
}

/* The basis and its reference gradients at a cell type's quadrature points, evaluated once per
 * type (and thread) instead of once per element. */
typedef struct ref_basis {
  int ready;
  double phi[PM_CELL_MAX_QP][PM_CELL_MAX_VERTS];
  double dn[PM_CELL_MAX_QP][PM_CELL_MAX_VERTS][3];
} ref_basis_t;

static const ref_basis_t *ref_basis(const pm_cell_t *c) {
  static _Thread_local ref_basis_t refs[PM_CELL_NTYPES];
  ref_basis_t *r = &refs[c->type];
  if (!r->ready) {
    for (int q = 0; q < c->n_qp; q++) pm_cell_basis(c, c->qp[q], r->phi[q], r->dn[q]);
    r->ready = 1;
  }
  return r;
}

int pm_element_geometry(const pm_cell_t *c, const double *const *X, int grads, pm_element_qp_t *g) {
  const ref_basis_t *r = ref_basis(c);
  int nv = c->n_verts;
  double jac = 1;
  g->n_qp = c->n_qp;
  g->nv = nv;
  g->affine = nv == c->dim + 1; /* a simplex: a linear map, its Jacobian the same everywhere */
  g->phi = r->phi;
  for (int q = 0; q < c->n_qp; q++) {
    const double(*dn)[3] = r->dn[q];
    double J[3][3] = {{0}}, *p = g->p[q];
    p[0] = p[1] = p[2] = 0;
    int map = !g->affine || q == 0;
    for (int a = 0; a < nv; a++) {
      const double *x = X[a], f = r->phi[q][a];
      p[0] += f * x[0];
      p[1] += f * x[1];
      p[2] += f * x[2];
      if (map) /* dx_i / dxi_j; a reference gradient is 0 beyond the cell's dimension */
        for (int i = 0; i < 3; i++) {
          J[i][0] += dn[a][0] * x[i];
          J[i][1] += dn[a][1] * x[i];
          J[i][2] += dn[a][2] * x[i];
        }
    }
    if (!map) {
      /* the gradients are grad[0]'s */
    } else if (c->dim == 3) {
      PM_CALL(map3(c, J, dn, grads, g->grad[q], &jac));
    } else if (c->dim > 0) {
      PM_CALL(map_low(c, J, dn, grads, g->grad[q], &jac));
    } else if (grads) {
      g->grad[q][0][0] = g->grad[q][0][1] = g->grad[q][0][2] = 0;
    }
    g->w[q] = c->qw[q] * jac;
  }
  return PM_OK;
}

int pm_element_stiffness(const pm_local_t *l, int32_t e, const pm_expr_t *k, const pm_expr_t *f, double area,
                         double K[PM_ELEMENT_NV][PM_ELEMENT_NV], double F[PM_ELEMENT_NV]) {
  const pm_cell_t *c;
  const double *X[PM_CELL_MAX_VERTS];
  pm_element_qp_t g;
  PM_CALL(pm_element_cell(l, e, &c, X));
  PM_CALL(pm_element_geometry(c, X, 1, &g));
  int nv = c->n_verts;
  double s = c->dim == 1 ? area : 1.0;
  memset(K, 0, sizeof(double) * PM_ELEMENT_NV * PM_ELEMENT_NV);
  memset(F, 0, sizeof(double) * PM_ELEMENT_NV);
  double kw = 0; /* a simplex: the sum of k w, its gradients being constant */
  for (int q = 0; q < g.n_qp; q++) {
    double kv, fv, w = g.w[q] * s;
    PM_CALL(pm_element_eval(k, g.p[q], "the conductivity", &kv));
    PM_CALL(pm_element_eval(f, g.p[q], "the source", &fv));
    for (int a = 0; a < nv; a++) F[a] += fv * g.phi[q][a] * w;
    if (g.affine) {
      kw += kv * w;
      if (q < g.n_qp - 1) continue;
      kv = kw;
      w = 1;
    }
    int qg = g.affine ? 0 : q;
    for (int a = 0; a < nv; a++) {
      const double *ga = g.grad[qg][a];
      for (int b = a; b < nv; b++) {
        const double *gb = g.grad[qg][b];
        K[a][b] += kv * w * (ga[0] * gb[0] + ga[1] * gb[1] + ga[2] * gb[2]);
      }
    }
  }
  for (int a = 0; a < nv; a++)
    for (int b = 0; b < a; b++) K[a][b] = K[b][a];
  return PM_OK;
}

int pm_element_mass(const pm_local_t *l, int32_t e, double area, double M[PM_ELEMENT_NV][PM_ELEMENT_NV]) {
  const pm_cell_t *c;
  const double *X[PM_CELL_MAX_VERTS];
  pm_element_qp_t g;
  PM_CALL(pm_element_cell(l, e, &c, X));
  PM_CALL(pm_element_geometry(c, X, 0, &g));
  int nv = c->n_verts;
  double s = c->dim == 1 ? area : 1.0;
  memset(M, 0, sizeof(double) * PM_ELEMENT_NV * PM_ELEMENT_NV);
  for (int q = 0; q < g.n_qp; q++)
    for (int a = 0; a < nv; a++)
      for (int b = 0; b < nv; b++) M[a][b] += g.w[q] * s * g.phi[q][a] * g.phi[q][b];
  return PM_OK;
}
