/* pm_element.c - the element kernels: stiffness, load and mass of one linear line, P1 triangle
 * or Q1 quadrangle, with their quadrature rules. */
#include "pm_element.h"

#include <math.h>
#include <string.h>

#include "pmesh/pm_msh.h"

const double pm_element_gauss2[2] = {0.21132486540518711775, 0.78867513459481288225};

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

int pm_element_stiffness(const pm_local_t *l, int32_t e, const pm_expr_t *k, const pm_expr_t *f, double area,
                         double K[4][4], double F[4]) {
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
    const double *gq = pm_element_gauss2;
    double kint = 0;
    for (int q = 0; q < 2; q++) {
      for (int d = 0; d < 3; d++) p[d] = X[0][d] + gq[q] * (X[1][d] - X[0][d]);
      PM_CALL(pm_element_eval(k, p, "the conductivity", &kv));
      PM_CALL(pm_element_eval(f, p, "the source", &fv));
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
      PM_CALL(pm_element_eval(k, p, "the conductivity", &kv));
      PM_CALL(pm_element_eval(f, p, "the source", &fv));
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
      PM_CALL(pm_element_eval(k, p, "the conductivity", &kv));
      PM_CALL(pm_element_eval(f, p, "the source", &fv));
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

int pm_element_mass(const pm_local_t *l, int32_t e, double area, double M[4][4]) {
  int32_t k0 = l->elem_ptr[e];
  int nv = l->elem_ptr[e + 1] - k0;
  const double *X[4];
  for (int a = 0; a < nv; a++) X[a] = l->xyz + 3 * l->elem_node[k0 + a];
  memset(M, 0, sizeof(double) * 16);
  if (l->elem_type[e] == PM_MSH_LINE) {
    double dx = X[1][0] - X[0][0], dy = X[1][1] - X[0][1], dz = X[1][2] - X[0][2];
    double L = sqrt(dx * dx + dy * dy + dz * dz);
    PM_CHECK(L > 0, PM_ERR_FORMAT, "the line has zero length");
    const double *gq = pm_element_gauss2;
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
