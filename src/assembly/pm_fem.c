/* pm_fem.c - element and finite-difference assembly, boundary conditions. */
#include "pmesh/pm_fem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_util.h"
#include "pm_problem_int.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_msh.h"

int pm_fem_find_group(const pm_local_t *l, const char *name) {
  for (int g = 0; g < l->n_groups; g++)
    if (strcmp(l->groups[g].name, name) == 0) return g;
  return -1;
}

/* ---------------------------------------------------------------- element matrices */

/* Value of an expression at a point, checked: a NaN or Inf is reported with where it came from. */
/* A mesh without elements (a lecture table file, or one released by pm_local_release) has
 * nothing to integrate over: refused, never an empty sum. */
static int need_elements(const pm_local_t *l) {
  PM_CHECK(l->has_mesh, PM_ERR_ARG,
           "the local mesh has no elements (a lecture table file, or elements released by pm_local_release)");
  return PM_OK;
}

static int eval_at(const pm_expr_t *e, const double *p, const char *what, double *v) {
  *v = pm_expr_eval(e, p[0], p[1], p[2]);
  PM_CHECK(isfinite(*v), PM_ERR_ARG, "%s is not finite at (%g, %g, %g)", what, p[0], p[1], p[2]);
  return PM_OK;
}

/* Element stiffness K[nv][nv] and load f[nv] for k and f given as expressions. */
static int element(const pm_local_t *l, int32_t e, const pm_expr_t *k, const pm_expr_t *f, double area, double K[4][4],
                   double F[4]) {
  int32_t k0 = l->elem_ptr[e];
  int nv = l->elem_ptr[e + 1] - k0;
  const double *X[4];
  for (int a = 0; a < nv; a++) X[a] = l->xyz + 3 * l->elem_node[k0 + a];
  memset(K, 0, sizeof(double) * 16);
  memset(F, 0, sizeof(double) * 4);
  double p[3], kv, fv;
  if (l->elem_type[e] == PM_MSH_LINE) {
    double dx = X[1][0] - X[0][0], dy = X[1][1] - X[0][1], dz = X[1][2] - X[0][2];
    double L = sqrt(dx * dx + dy * dy + dz * dz);
    PM_CHECK(L > 0, PM_ERR_FORMAT, "the line has zero length");
    static const double gq[2] = {0.21132486540518711775, 0.78867513459481288225}; /* 2-point Gauss on [0,1] */
    double kint = 0;
    for (int q = 0; q < 2; q++) {
      for (int d = 0; d < 3; d++) p[d] = X[0][d] + gq[q] * (X[1][d] - X[0][d]);
      PM_CALL(eval_at(k, p, "the conductivity", &kv));
      PM_CALL(eval_at(f, p, "the source", &fv));
      kint += 0.5 * kv;
      F[0] += 0.5 * fv * (1 - gq[q]) * area * L;
      F[1] += 0.5 * fv * gq[q] * area * L;
    }
    double s = area * kint / L;
    K[0][0] = K[1][1] = s;
    K[0][1] = K[1][0] = -s;
  } else if (l->elem_type[e] == PM_MSH_TRI) {
    double x10 = X[1][0] - X[0][0], y10 = X[1][1] - X[0][1], x20 = X[2][0] - X[0][0], y20 = X[2][1] - X[0][1];
    double det = x10 * y20 - x20 * y10, A = 0.5 * fabs(det);
    PM_CHECK(A > 0, PM_ERR_FORMAT, "the triangle is degenerate (zero area)");
    /* gradients of the barycentric functions */
    double g[3][2] = {{(y10 - y20) / det, (x20 - x10) / det}, {y20 / det, -x20 / det}, {-y10 / det, x10 / det}};
    static const double qp[3][2] = {{1.0 / 6, 1.0 / 6}, {2.0 / 3, 1.0 / 6}, {1.0 / 6, 2.0 / 3}};
    double kint = 0;
    for (int q = 0; q < 3; q++) {
      double phi[3] = {1 - qp[q][0] - qp[q][1], qp[q][0], qp[q][1]};
      for (int d = 0; d < 3; d++) p[d] = phi[0] * X[0][d] + phi[1] * X[1][d] + phi[2] * X[2][d];
      PM_CALL(eval_at(k, p, "the conductivity", &kv));
      PM_CALL(eval_at(f, p, "the source", &fv));
      kint += kv / 3;
      for (int a = 0; a < 3; a++) F[a] += fv * phi[a] * A / 3;
    }
    for (int a = 0; a < 3; a++)
      for (int b = 0; b < 3; b++) K[a][b] = kint * A * (g[a][0] * g[b][0] + g[a][1] * g[b][1]);
  } else if (l->elem_type[e] == PM_MSH_QUAD) {
    static const double gp = 0.57735026918962576451; /* 1/sqrt(3) */
    static const double xi[4] = {-1, 1, 1, -1}, eta[4] = {-1, -1, 1, 1};
    for (int q = 0; q < 4; q++) {
      double s = xi[q] * gp, t = eta[q] * gp;
      double phi[4], ds[4], dt[4];
      for (int a = 0; a < 4; a++) {
        phi[a] = 0.25 * (1 + xi[a] * s) * (1 + eta[a] * t);
        ds[a] = 0.25 * xi[a] * (1 + eta[a] * t);
        dt[a] = 0.25 * eta[a] * (1 + xi[a] * s);
      }
      double J[2][2] = {{0, 0}, {0, 0}};
      for (int a = 0; a < 4; a++) {
        J[0][0] += ds[a] * X[a][0];
        J[0][1] += ds[a] * X[a][1];
        J[1][0] += dt[a] * X[a][0];
        J[1][1] += dt[a] * X[a][1];
      }
      double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
      PM_CHECK(det != 0, PM_ERR_FORMAT, "the quadrangle is degenerate");
      double w = fabs(det);
      for (int d = 0; d < 3; d++) {
        p[d] = 0;
        for (int a = 0; a < 4; a++) p[d] += phi[a] * X[a][d];
      }
      PM_CALL(eval_at(k, p, "the conductivity", &kv));
      PM_CALL(eval_at(f, p, "the source", &fv));
      double gx[4], gy[4];
      for (int a = 0; a < 4; a++) {
        gx[a] = (J[1][1] * ds[a] - J[0][1] * dt[a]) / det;
        gy[a] = (-J[1][0] * ds[a] + J[0][0] * dt[a]) / det;
      }
      for (int a = 0; a < 4; a++) {
        F[a] += fv * phi[a] * w;
        for (int b = 0; b < 4; b++) K[a][b] += kv * (gx[a] * gx[b] + gy[a] * gy[b]) * w;
      }
    }
  } else {
    return pm_error_set(PM_ERR_UNSUPPORTED, __FILE__, __LINE__, "type %d is no 1D/2D cell", l->elem_type[e]);
  }
  return PM_OK;
}

/* Element mass M[a][b] = integral of phi_a phi_b (times `area` for lines), with the quadrature
 * points of element(): exact for lines and triangles, and for Q1 on parallelograms. */
static int element_mass(const pm_local_t *l, int32_t e, double area, double M[4][4]) {
  int32_t k0 = l->elem_ptr[e];
  int nv = l->elem_ptr[e + 1] - k0;
  const double *X[4];
  for (int a = 0; a < nv; a++) X[a] = l->xyz + 3 * l->elem_node[k0 + a];
  memset(M, 0, sizeof(double) * 16);
  if (l->elem_type[e] == PM_MSH_LINE) {
    double dx = X[1][0] - X[0][0], dy = X[1][1] - X[0][1], dz = X[1][2] - X[0][2];
    double L = sqrt(dx * dx + dy * dy + dz * dz);
    PM_CHECK(L > 0, PM_ERR_FORMAT, "the line has zero length");
    static const double gq[2] = {0.21132486540518711775, 0.78867513459481288225};
    for (int q = 0; q < 2; q++) {
      double phi[2] = {1 - gq[q], gq[q]};
      for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++) M[a][b] += 0.5 * L * area * phi[a] * phi[b];
    }
  } else if (l->elem_type[e] == PM_MSH_TRI) {
    double x10 = X[1][0] - X[0][0], y10 = X[1][1] - X[0][1], x20 = X[2][0] - X[0][0], y20 = X[2][1] - X[0][1];
    double A = 0.5 * fabs(x10 * y20 - x20 * y10);
    PM_CHECK(A > 0, PM_ERR_FORMAT, "the triangle is degenerate (zero area)");
    static const double qp[3][2] = {{1.0 / 6, 1.0 / 6}, {2.0 / 3, 1.0 / 6}, {1.0 / 6, 2.0 / 3}};
    for (int q = 0; q < 3; q++) {
      double phi[3] = {1 - qp[q][0] - qp[q][1], qp[q][0], qp[q][1]};
      for (int a = 0; a < 3; a++)
        for (int b = 0; b < 3; b++) M[a][b] += A / 3 * phi[a] * phi[b];
    }
  } else if (l->elem_type[e] == PM_MSH_QUAD) {
    static const double gp = 0.57735026918962576451;
    static const double xi[4] = {-1, 1, 1, -1}, eta[4] = {-1, -1, 1, 1};
    for (int q = 0; q < 4; q++) {
      double s = xi[q] * gp, t = eta[q] * gp, phi[4], J[2][2] = {{0, 0}, {0, 0}};
      for (int a = 0; a < 4; a++) {
        phi[a] = 0.25 * (1 + xi[a] * s) * (1 + eta[a] * t);
        double ds = 0.25 * xi[a] * (1 + eta[a] * t), dt = 0.25 * eta[a] * (1 + xi[a] * s);
        J[0][0] += ds * X[a][0];
        J[0][1] += ds * X[a][1];
        J[1][0] += dt * X[a][0];
        J[1][1] += dt * X[a][1];
      }
      double det = J[0][0] * J[1][1] - J[0][1] * J[1][0];
      PM_CHECK(det != 0, PM_ERR_FORMAT, "the quadrangle is degenerate");
      for (int a = 0; a < 4; a++)
        for (int b = 0; b < 4; b++) M[a][b] += fabs(det) * phi[a] * phi[b];
    }
  } else {
    return pm_error_set(PM_ERR_UNSUPPORTED, __FILE__, __LINE__, "type %d is no 1D/2D cell", l->elem_type[e]);
  }
  return PM_OK;
}

static int add_entry(pm_csr_t *a, const pm_local_t *l, int32_t row, int32_t col, double v) {
  if (row == col) {
    a->d[row] += v;
    return PM_OK;
  }
  /* A short row is scanned by local column: no global id to load (the binary search by global
   * id was the assembly's largest cost on big meshes). */
  int32_t k = a->index[row], end = a->index[row + 1];
  if (end - k <= 32) {
    while (k < end && a->item[k] != col) k++;
    if (k == end) k = -1;
  } else {
    k = pm_csr_find(a, l->gid, row, col);
  }
  PM_CHECK(k >= 0, PM_ERR_INCONSISTENT, "internal error: node %lld does not couple to node %lld",
           (long long)l->gid[row], (long long)l->gid[col]);
  a->amat[k] += v;
  return PM_OK;
}

/* Which expression applies on each element: the default, then group overrides in order (later
 * wins).  When the last entry has no group it covers every element, and no per-element array is
 * made: at 8 bytes an element it was the largest array a refined run's assembly added. */
typedef struct elem_expr {
  const pm_expr_t *all;   /* every element's, or NULL */
  const pm_expr_t **each; /* [n_elems] when the elements differ, else NULL */
} elem_expr_t;

static int per_element(const pm_local_t *l, const pm_problem_list_t *list, pm_expr_t **ex, elem_expr_t *out,
                       const char *what) {
  const pm_problem_entry_t *gv = list->e;
  int uniform = list->n > 0 && !gv[list->n - 1].group;
  *out = (elem_expr_t){uniform ? ex[list->n - 1] : NULL, NULL};
  for (int i = 0; i < list->n; i++) /* every group named must exist, used or not */
    PM_CHECK(!gv[i].group || pm_fem_find_group(l, gv[i].group) >= 0, PM_ERR_ARG,
             "the %s on '%s': no group of that name", what, gv[i].group);
  if (uniform) return PM_OK;
  PM_CALL(PM_MALLOC(out->each, l->n_elems > 0 ? l->n_elems : 1, what));
  for (int32_t e = 0; e < l->n_elems; e++) out->each[e] = NULL;
  for (int i = 0; i < list->n; i++) {
    if (!gv[i].group) {
      for (int32_t e = 0; e < l->n_elems; e++) out->each[e] = ex[i];
      continue;
    }
    const pm_local_group_t *g = &l->groups[pm_fem_find_group(l, gv[i].group)];
    for (int32_t k = 0; k < g->n_elems; k++) out->each[g->elems[k]] = ex[i];
  }
  return PM_OK;
}

static const pm_expr_t *expr_of(const elem_expr_t *x, int32_t e) {
  return x->each ? x->each[e] : x->all;
}

/* Element e's matrix and load with its own conductivity and source; errors name the element. */
static int element_matrices(const pm_local_t *l, const pm_problem_t *pr, const elem_expr_t *ke, const elem_expr_t *fe,
                            int32_t e, double K[4][4], double F[4]) {
  const pm_expr_t *k = expr_of(ke, e), *f = expr_of(fe, e);
  PM_CHECK(f && k, PM_ERR_ARG, "element %lld has no %s", (long long)l->elem_gid[e], f ? "conductivity" : "source");
  int ierr = element(l, e, k, f, l->elem_type[e] == PM_MSH_LINE ? pr->area : 1.0, K, F);
  if (ierr) {
    char prefix[128];
    snprintf(prefix, sizeof prefix, "element %lld: ", (long long)l->elem_gid[e]);
    pm_error_prefix(prefix);
  }
  return ierr;
}

static int assemble_fem(const pm_local_t *l, const pm_problem_t *pr, const pm_problem_list_t *src,
                        const pm_problem_list_t *cond, pm_expr_t **fx, pm_expr_t **kx, pm_csr_t *a, double *b) {
  int ierr = PM_OK;
  elem_expr_t fe = {0}, ke = {0};
  PM_TRY(per_element(l, src, fx, &fe, "source"));
  PM_TRY(per_element(l, cond, kx, &ke, "conductivity"));
  int32_t n = l->n_internal;
  for (int32_t e = 0; e < l->n_elems; e++) {
    int32_t k0 = l->elem_ptr[e];
    int nv = l->elem_ptr[e + 1] - k0;
    double K[4][4], F[4];
    PM_TRY(element_matrices(l, pr, &ke, &fe, e, K, F));
    for (int i = 0; i < nv; i++) {
      int32_t r = l->elem_node[k0 + i];
      if (r >= n) continue;
      b[r] += F[i];
      for (int j = 0; j < nv; j++) PM_TRY(add_entry(a, l, r, l->elem_node[k0 + j], K[i][j]));
    }
  }
cleanup:
  free(fe.each);
  free(ke.each);
  return ierr;
}

/* The 5-point scheme: each unknown node needs two neighbours along x and two along y at equal
 * distances (a structured grid); a_ij = -k(midpoint)/h_ij^2, d_i = sum k/h^2, b_i = f(x_i). */
static int assemble_fdm5(const pm_local_t *l, const pm_problem_t *pr, const pm_problem_list_t *src,
                         const pm_problem_list_t *cond, pm_expr_t **fx, pm_expr_t **kx, pm_csr_t *a, double *b,
                         const char *fixed) {
  PM_CHECK(pr->neumann.n == 0, PM_ERR_ARG, "the fdm5 scheme takes Dirichlet conditions only (no Neumann flux)");
  for (int i = 0; i < src->n; i++)
    PM_CHECK(!src->e[i].group, PM_ERR_ARG, "the fdm5 scheme takes one source for the whole grid (no group)");
  for (int i = 0; i < cond->n; i++)
    PM_CHECK(!cond->e[i].group, PM_ERR_ARG, "the fdm5 scheme takes one conductivity for the whole grid (no group)");
  const pm_expr_t *f = fx[src->n - 1], *k = kx[cond->n - 1];
  for (int32_t i = 0; i < a->n; i++) {
    const double *xi = l->xyz + 3 * i;
    double fv, kv, mid[3];
    PM_CALL(eval_at(f, xi, "the source", &fv));
    b[i] = fv;
    int nx = 0, ny = 0;
    double hx = -1, hy = -1;
    for (int32_t q = a->index[i]; q < a->index[i + 1]; q++) {
      const double *xj = l->xyz + 3 * a->item[q];
      double dx = xj[0] - xi[0], dy = xj[1] - xi[1], h = sqrt(dx * dx + dy * dy);
      int along_x = fabs(dy) <= 1e-12 * h, along_y = fabs(dx) <= 1e-12 * h;
      PM_CHECK(h > 0 && (along_x || along_y), PM_ERR_ARG,
               "fdm5 scheme: nodes %lld and %lld are not on a grid line: the 5-point scheme needs an axis-aligned "
               "structured grid of quadrangles (meshgen grid)",
               (long long)l->gid[i], (long long)l->gid[a->item[q]]);
      double *hh = along_x ? &hx : &hy;
      PM_CHECK(*hh < 0 || fabs(*hh - h) <= 1e-9 * h, PM_ERR_ARG,
               "fdm5 scheme: node %lld has unequal grid spacings %g and %g", (long long)l->gid[i], *hh, h);
      *hh = h;
      nx += along_x;
      ny += along_y;
      for (int d = 0; d < 3; d++) mid[d] = 0.5 * (xi[d] + xj[d]);
      PM_CALL(eval_at(k, mid, "the conductivity", &kv));
      a->amat[q] = -kv / (h * h);
      a->d[i] += kv / (h * h);
    }
    PM_CHECK(fixed[i] || (nx == 2 && ny == 2), PM_ERR_ARG,
             "fdm5 scheme: node %lld at (%g, %g) has %d grid neighbours along x and %d along y but no Dirichlet "
             "value: put a Dirichlet condition on the whole boundary of the grid",
             (long long)l->gid[i], xi[0], xi[1], nx, ny);
  }
  return PM_OK;
}

static int add_neumann(const pm_local_t *l, const pm_problem_t *pr, double t, double *b) {
  for (int i = 0; i < pr->neumann.n; i++) {
    int g = pm_fem_find_group(l, pr->neumann.e[i].group);
    PM_CHECK(g >= 0, PM_ERR_ARG, "the Neumann flux on '%s': no group of that name", pr->neumann.e[i].group);
    const pm_local_group_t *G = &l->groups[g];
    pm_expr_t *ex = NULL;
    PM_CALL(pm_expr_create_value(pr->neumann.e[i].value, &ex));
    pm_expr_set_time(ex, t);
    int ierr = PM_OK;
    for (int32_t f = 0; f < G->n_faces && !ierr; f++) {
      int32_t k0 = G->face_ptr[f];
      int nv = G->face_ptr[f + 1] - k0;
      double v;
      if (nv == 1) { /* a point of a 1D bar: the flux times the cross-section */
        int32_t a = G->face_node[k0];
        ierr = eval_at(ex, l->xyz + 3 * a, "the Neumann flux", &v);
        if (!ierr && a < l->n_internal) b[a] += v * pr->area;
      } else if (nv == 2) { /* a boundary line: 2-point Gauss */
        const double *X0 = l->xyz + 3 * G->face_node[k0], *X1 = l->xyz + 3 * G->face_node[k0 + 1];
        double L = sqrt((X1[0] - X0[0]) * (X1[0] - X0[0]) + (X1[1] - X0[1]) * (X1[1] - X0[1]) +
                        (X1[2] - X0[2]) * (X1[2] - X0[2]));
        static const double gq[2] = {0.21132486540518711775, 0.78867513459481288225};
        for (int q = 0; q < 2 && !ierr; q++) {
          double p[3];
          for (int d = 0; d < 3; d++) p[d] = X0[d] + gq[q] * (X1[d] - X0[d]);
          ierr = eval_at(ex, p, "the Neumann flux", &v);
          int32_t n0 = G->face_node[k0], n1 = G->face_node[k0 + 1];
          if (!ierr && n0 < l->n_internal) b[n0] += 0.5 * L * v * (1 - gq[q]);
          if (!ierr && n1 < l->n_internal) b[n1] += 0.5 * L * v * gq[q];
        }
      } else {
        ierr =
            pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                         "the Neumann flux on '%s': the group has %d-node faces; fluxes go on boundary lines (2D) or "
                         "end points (1D)",
                         G->name, nv);
      }
    }
    pm_expr_destroy(&ex);
    PM_CALL(ierr);
  }
  return PM_OK;
}

/* Robin k du/dn = h (u_inf - u) on the faces of each Robin group at time t: the boundary mass
 * integral of h phi_i phi_j into a, the integral of h u_inf phi_i into b, and the integral of h
 * over the faces into *h_int (each may be NULL).  Rows of external nodes are skipped (their
 * owners have them); h_int counts the faces with an internal node.  A point of a 1D bar is
 * weighted by the cross-section; a line takes the 2-point Gauss rule (exact for h and u_inf
 * linear along it). */
static int add_robin(const pm_local_t *l, const pm_problem_t *pr, double t, pm_csr_t *a, double *b, double *h_int) {
  static const double gq[2] = {0.21132486540518711775, 0.78867513459481288225};
  int32_t n = l->n_internal;
  if (h_int) *h_int = 0.0;
  for (int i = 0; i < pr->robin_h.n; i++) {
    const char *name = pr->robin_h.e[i].group;
    int g = pm_fem_find_group(l, name);
    PM_CHECK(g >= 0, PM_ERR_ARG, "the Robin condition on '%s': no group of that name", name);
    const pm_local_group_t *G = &l->groups[g];
    pm_expr_t *hx = NULL, *ux = NULL;
    int ierr = pm_expr_create_value(pr->robin_h.e[i].value, &hx);
    if (!ierr) ierr = pm_expr_create_value(pr->robin_uinf.e[i].value, &ux);
    if (!ierr) pm_expr_set_time(ux, t);
    if (!ierr && pm_expr_depends_on_time(hx))
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                          "the Robin condition on '%s': the coefficient h '%s' depends on the time t; it must be "
                          "constant in time (u_inf may depend on t)",
                          name, pm_value_text(pr->robin_h.e[i].value));
    for (int32_t f = 0; f < G->n_faces && !ierr; f++) {
      int32_t k0 = G->face_ptr[f];
      int nv = G->face_ptr[f + 1] - k0, nq = nv == 1 ? 1 : 2;
      const int32_t *fn = G->face_node + k0;
      if (nv != 1 && nv != 2) {
        ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                            "the Robin condition on '%s': the group has %d-node faces; Robin conditions go on "
                            "boundary lines (2D) or end points (1D)",
                            name, nv);
        break;
      }
      if (fn[0] >= n && (nv == 1 || fn[1] >= n)) continue; /* no row of this rank */
      const double *X0 = l->xyz + 3 * fn[0], *X1 = l->xyz + 3 * fn[nv - 1];
      double meas = pr->area; /* a point: the cross-section */
      if (nv == 2)
        meas = sqrt((X1[0] - X0[0]) * (X1[0] - X0[0]) + (X1[1] - X0[1]) * (X1[1] - X0[1]) +
                    (X1[2] - X0[2]) * (X1[2] - X0[2]));
      for (int q = 0; q < nq && !ierr; q++) {
        double p[3], hv, uv, w = meas / nq, phi[2] = {1 - gq[q], gq[q]};
        if (nv == 1) phi[0] = 1.0;
        for (int d = 0; d < 3; d++) p[d] = X0[d] + phi[1] * (X1[d] - X0[d]) * (nv == 2);
        ierr = eval_at(hx, p, "the Robin coefficient h", &hv);
        if (!ierr && hv < 0)
          ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                              "the Robin condition on '%s': the coefficient h '%s' is %g at (%g, %g, %g); h must be "
                              ">= 0 (a negative h makes the operator indefinite: the boundary would gain heat in "
                              "proportion to its temperature)",
                              name, pm_value_text(pr->robin_h.e[i].value), hv, p[0], p[1], p[2]);
        if (!ierr) ierr = eval_at(ux, p, "the Robin outside value u_inf", &uv);
        if (!ierr && h_int) *h_int += w * hv;
        for (int r = 0; r < nv && !ierr; r++) {
          if (fn[r] >= n) continue;
          if (b) b[fn[r]] += w * hv * uv * phi[r];
          for (int c = 0; c < nv && a && !ierr; c++) ierr = add_entry(a, l, fn[r], fn[c], w * hv * phi[r] * phi[c]);
        }
      }
    }
    pm_expr_destroy(&hx);
    pm_expr_destroy(&ux);
    PM_CALL(ierr);
  }
  return PM_OK;
}

int pm_fem_dirichlet(const pm_local_t *l, const pm_problem_t *pr, char *fixed, double *u) {
  return pm_fem_dirichlet_time(l, pr, 0.0, fixed, u);
}

int pm_fem_dirichlet_time(const pm_local_t *l, const pm_problem_t *pr, double t, char *fixed, double *u) {
  int ierr = PM_OK;
  int32_t np = l->n_total;
  pm_expr_t *dx = NULL;
  memset(fixed, 0, (size_t)np);
  for (int i = 0; i < pr->dirichlet.n; i++) {
    int g = pm_fem_find_group(l, pr->dirichlet.e[i].group);
    PM_TRY_CHECK(g >= 0, PM_ERR_ARG, "the Dirichlet condition on '%s': no group of that name",
                 pr->dirichlet.e[i].group);
    PM_TRY(pm_expr_create_value(pr->dirichlet.e[i].value, &dx));
    pm_expr_set_time(dx, t);
    const pm_local_group_t *G = &l->groups[g];
    for (int32_t k = 0; k < G->n_nodes; k++) {
      int32_t v = G->nodes[k];
      if (v >= np) continue; /* auxiliary nodes are no unknowns */
      PM_TRY(eval_at(dx, l->xyz + 3 * v, "the Dirichlet value", &u[v]));
      fixed[v] = 1;
    }
    pm_expr_destroy(&dx);
  }
cleanup:
  pm_expr_destroy(&dx);
  return ierr;
}

int pm_fem_mass(const pm_local_t *l, const pm_problem_t *pr, pm_mass_t kind, pm_csr_t *m) {
  PM_CALL(need_elements(l));
  int32_t n = l->n_internal;
  memset(m->d, 0, (size_t)n * sizeof *m->d);
  memset(m->amat, 0, (size_t)m->index[n] * sizeof *m->amat);
  if (pr->scheme == PM_SCHEME_FDM5) {
    PM_CHECK(kind == PM_MASS_LUMPED, PM_ERR_ARG,
             "the fdm5 scheme has no consistent mass matrix (its mass is the nodal value, the identity): use "
             "the lumped mass");
    for (int32_t i = 0; i < n; i++) m->d[i] = 1.0;
    return PM_OK;
  }
  for (int32_t e = 0; e < l->n_elems; e++) {
    int32_t k0 = l->elem_ptr[e];
    int nv = l->elem_ptr[e + 1] - k0;
    double M[4][4];
    int ierr = element_mass(l, e, l->elem_type[e] == PM_MSH_LINE ? pr->area : 1.0, M);
    if (ierr) {
      char prefix[128];
      snprintf(prefix, sizeof prefix, "element %lld: ", (long long)l->elem_gid[e]);
      pm_error_prefix(prefix);
      return ierr;
    }
    for (int i = 0; i < nv; i++) {
      int32_t r = l->elem_node[k0 + i];
      if (r >= n) continue;
      for (int j = 0; j < nv; j++) PM_CALL(add_entry(m, l, r, l->elem_node[k0 + j], M[i][j]));
    }
  }
  if (kind == PM_MASS_LUMPED) /* every element of an internal node is local: its row is complete */
    for (int32_t i = 0; i < n; i++)
      for (int32_t k = m->index[i]; k < m->index[i + 1]; k++) {
        m->d[i] += m->amat[k];
        m->amat[k] = 0.0;
      }
  return PM_OK;
}

/* The defaults (read only, but the list type is not const). */
static pm_problem_entry_t default_source = {NULL, {"0", NULL, NULL}}, default_cond = {NULL, {"1", NULL, NULL}};

/* Free an array of n compiled expressions (NULL-safe). */
static void exprs_free(pm_expr_t **x, int n) {
  if (x)
    for (int i = 0; i < n; i++) pm_expr_destroy(&x[i]);
  free(x);
}

/* Steady (m == NULL) or backward-Euler assembly with the data at time t, then (when `eliminate`)
 * the symmetric elimination. */
static int assemble(const pm_local_t *l, const pm_problem_t *pr, pm_mass_t kind, double dt, double t, int eliminate,
                    pm_csr_t *a, pm_csr_t *m, double *b, double *u, int64_t *n_fixed) {
  PM_CALL(need_elements(l));
  int ierr = PM_OK;
  int32_t n = l->n_internal, np = l->n_total;
  pm_expr_t **fx = NULL, **kx = NULL;
  char *fixed = NULL;
  PM_CHECK(!m || (dt > 0 && isfinite(dt)), PM_ERR_ARG, "the time step %g is not a positive finite number", dt);
  PM_CHECK(!m || (m->n == a->n && m->index[n] == a->index[n]), PM_ERR_ARG,
           "the mass matrix needs the structure of the system matrix");
  /* Without any source or conductivity: f = 0, k = 1 everywhere. */
  const pm_problem_list_t src = pr->source.n ? pr->source : (pm_problem_list_t){1, 1, &default_source};
  const pm_problem_list_t cond = pr->conductivity.n ? pr->conductivity : (pm_problem_list_t){1, 1, &default_cond};
  PM_TRY(PM_CALLOC(fx, src.n, "sources"));
  PM_TRY(PM_CALLOC(kx, cond.n, "conductivities"));
  for (int i = 0; i < src.n; i++) PM_TRY(pm_expr_create_value(src.e[i].value, &fx[i]));
  for (int i = 0; i < src.n; i++) pm_expr_set_time(fx[i], t);
  for (int i = 0; i < cond.n; i++) PM_TRY(pm_expr_create_value(cond.e[i].value, &kx[i]));
  for (int i = 0; i < cond.n; i++)
    PM_TRY_CHECK(!pm_expr_depends_on_time(kx[i]), PM_ERR_ARG,
                 "the conductivity '%s' depends on the time t: conductivities are constant in time",
                 pm_value_text(cond.e[i].value));
  memset(b, 0, (size_t)n * sizeof *b);
  memset(u, 0, (size_t)np * sizeof *u);
  memset(a->d, 0, (size_t)n * sizeof *a->d);
  memset(a->amat, 0, (size_t)a->index[n] * sizeof *a->amat);

  /* Dirichlet values on every local node (internal and external) of the groups; later wins. */
  PM_TRY(PM_CALLOC(fixed, np, "Dirichlet marks"));
  PM_TRY(pm_fem_dirichlet_time(l, pr, t, fixed, u));
  if (pr->scheme == PM_SCHEME_FDM5) {
    PM_TRY_CHECK(pr->robin_h.n == 0, PM_ERR_ARG,
                 "the fdm5 scheme takes Dirichlet conditions only (no Robin condition: use the fem scheme)");
    PM_TRY(assemble_fdm5(l, pr, &src, &cond, fx, kx, a, b, fixed));
  } else {
    PM_TRY(assemble_fem(l, pr, &src, &cond, fx, kx, a, b));
    PM_TRY(add_neumann(l, pr, t, b));
    PM_TRY(add_robin(l, pr, t, a, b, NULL));
  }
  if (m) { /* a = M/dt + K: the same structure, entry by entry */
    PM_TRY(pm_fem_mass(l, pr, kind, m));
    for (int32_t i = 0; i < n; i++) a->d[i] += m->d[i] / dt;
    for (int32_t k = 0; k < a->index[n]; k++) a->amat[k] += m->amat[k] / dt;
  }
  /* Symmetric elimination: fixed rows become identity rows, fixed columns move to the right
   * (with M/dt included: the Dirichlet values are constant in time).  M loses the rows and
   * columns of fixed nodes, so (M u^n)/dt adds nothing to fixed rows and does not read u^n there. */
  int64_t nf = 0;
  for (int32_t i = 0; i < n && eliminate; i++) {
    if (fixed[i]) {
      a->d[i] = 1.0;
      b[i] = u[i];
      for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) a->amat[k] = 0.0;
      if (m) {
        m->d[i] = 0.0;
        for (int32_t k = m->index[i]; k < m->index[i + 1]; k++) m->amat[k] = 0.0;
      }
      nf++;
      continue;
    }
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) {
      int32_t c = a->item[k];
      if (fixed[c]) {
        b[i] -= a->amat[k] * u[c];
        a->amat[k] = 0.0;
        if (m) m->amat[k] = 0.0;
      }
    }
    PM_TRY_CHECK(a->d[i] > 0, PM_ERR_ARG, "node %lld: diagonal %g is not positive (is the conductivity positive?)",
                 (long long)l->gid[i], a->d[i]);
  }
  *n_fixed = nf;
cleanup:
  exprs_free(fx, src.n);
  exprs_free(kx, cond.n);
  free(fixed);
  return ierr;
}

int pm_fem_assemble(const pm_local_t *l, const pm_problem_t *pr, pm_csr_t *a, double *b, double *u, int64_t *n_fixed) {
  return assemble(l, pr, PM_MASS_CONSISTENT, 0.0, 0.0, 1, a, NULL, b, u, n_fixed);
}

int pm_fem_assemble_transient(const pm_local_t *l, const pm_problem_t *pr, pm_mass_t kind, double dt, pm_csr_t *a,
                              pm_csr_t *m, double *b, double *u, int64_t *n_fixed) {
  PM_CHECK(m, PM_ERR_ARG, "pm_fem_assemble_transient: no mass matrix");
  return assemble(l, pr, kind, dt, 0.0, 1, a, m, b, u, n_fixed);
}

int pm_fem_node_weights(const pm_local_t *l, double *w) {
  PM_CALL(need_elements(l));
  memset(w, 0, (size_t)l->n_internal * sizeof *w);
  for (int32_t e = 0; e < l->n_elems; e++) {
    int32_t k0 = l->elem_ptr[e];
    int nv = l->elem_ptr[e + 1] - k0;
    const double *X[4];
    for (int a = 0; a < nv; a++) X[a] = l->xyz + 3 * l->elem_node[k0 + a];
    double m;
    if (nv == 2) {
      m = sqrt((X[1][0] - X[0][0]) * (X[1][0] - X[0][0]) + (X[1][1] - X[0][1]) * (X[1][1] - X[0][1]) +
               (X[1][2] - X[0][2]) * (X[1][2] - X[0][2]));
    } else { /* polygon area (shoelace) */
      m = 0;
      for (int a = 0; a < nv; a++) {
        const double *P = X[a], *Q = X[(a + 1) % nv];
        m += P[0] * Q[1] - Q[0] * P[1];
      }
      m = 0.5 * fabs(m);
    }
    for (int a = 0; a < nv; a++)
      if (l->elem_node[k0 + a] < l->n_internal) w[l->elem_node[k0 + a]] += m / nv;
  }
  return PM_OK;
}

int pm_fem_assemble_operator(const pm_local_t *l, const pm_problem_t *pr, pm_mass_t kind, double dt, pm_csr_t *a,
                             pm_csr_t *m) {
  int ierr = PM_OK;
  double *b = NULL, *u = NULL;
  int64_t nf = 0;
  PM_CHECK(m, PM_ERR_ARG, "pm_fem_assemble_operator: no mass matrix");
  PM_TRY(PM_MALLOC(b, l->n_internal > 0 ? l->n_internal : 1, "load (discarded)"));
  PM_TRY(PM_MALLOC(u, l->n_total > 0 ? l->n_total : 1, "Dirichlet values (discarded)"));
  ierr = assemble(l, pr, kind, dt, 0.0, 0, a, m, b, u, &nf);
cleanup:
  free(b);
  free(u);
  return ierr;
}

int pm_fem_load(const pm_local_t *l, const pm_problem_t *pr, double t, double *f) {
  PM_CALL(need_elements(l));
  int ierr = PM_OK;
  int32_t n = l->n_internal;
  pm_expr_t **fx = NULL, **kx = NULL;
  elem_expr_t fe = {0}, ke = {0};
  const pm_problem_list_t src = pr->source.n ? pr->source : (pm_problem_list_t){1, 1, &default_source};
  const pm_problem_list_t cond = pr->conductivity.n ? pr->conductivity : (pm_problem_list_t){1, 1, &default_cond};
  memset(f, 0, (size_t)n * sizeof *f);
  PM_TRY(PM_CALLOC(fx, src.n, "sources"));
  PM_TRY(PM_CALLOC(kx, cond.n, "conductivities"));
  for (int i = 0; i < src.n; i++) PM_TRY(pm_expr_create_value(src.e[i].value, &fx[i]));
  for (int i = 0; i < src.n; i++) pm_expr_set_time(fx[i], t);
  for (int i = 0; i < cond.n; i++) PM_TRY(pm_expr_create_value(cond.e[i].value, &kx[i]));
  if (pr->scheme == PM_SCHEME_FDM5) { /* the source at the nodes, as assemble_fdm5 puts it */
    PM_TRY_CHECK(pr->neumann.n == 0 && pr->robin_h.n == 0, PM_ERR_ARG,
                 "the fdm5 scheme takes Dirichlet conditions only (no Neumann flux, no Robin condition)");
    for (int i = 0; i < src.n; i++)
      PM_TRY_CHECK(!src.e[i].group, PM_ERR_ARG, "the fdm5 scheme takes one source for the whole grid (no group)");
    for (int32_t i = 0; i < n; i++) PM_TRY(eval_at(fx[src.n - 1], l->xyz + 3 * i, "the source", &f[i]));
    goto cleanup;
  }
  PM_TRY(per_element(l, &src, fx, &fe, "source"));
  PM_TRY(per_element(l, &cond, kx, &ke, "conductivity"));
  for (int32_t e = 0; e < l->n_elems; e++) {
    int32_t k0 = l->elem_ptr[e];
    int nv = l->elem_ptr[e + 1] - k0;
    double K[4][4], F[4];
    PM_TRY(element_matrices(l, pr, &ke, &fe, e, K, F));
    for (int i = 0; i < nv; i++)
      if (l->elem_node[k0 + i] < n) f[l->elem_node[k0 + i]] += F[i];
  }
  PM_TRY(add_neumann(l, pr, t, f));
  PM_TRY(add_robin(l, pr, t, NULL, f, NULL));
cleanup:
  exprs_free(fx, src.n);
  exprs_free(kx, cond.n);
  free(fe.each);
  free(ke.each);
  return ierr;
}

int pm_fem_robin_integral(const pm_local_t *l, const pm_problem_t *pr, double *h_int) {
  *h_int = 0.0;
  if (pr->scheme == PM_SCHEME_FDM5) return PM_OK; /* the assembly refuses Robin conditions there */
  return add_robin(l, pr, 0.0, NULL, NULL, h_int);
}
