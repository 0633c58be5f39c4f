/* pm_mesh_cells.c - the refusal of inverted, degenerate and folded volume cells: a cell is taken
 * only if its Jacobian determinant is positive everywhere inside it, not only at its corners.
 *
 * A simplex's determinant is constant.  A prism's is linear in the triangle's coordinates and
 * quadratic along its axis, so its minimum lies on one of the three axial edges, where a
 * quadratic's minimum has a closed form.  A hexahedron's is triquadratic: its 27 coefficients in
 * the Bernstein basis bound it from below (the basis is non-negative and sums to one), and where
 * that bound is not positive but the sampled values are, the box is halved in each direction and
 * bounded again, down to a depth at which a remaining doubt means the cell nearly degenerates.
 * A pyramid's is constant along each line from its base to its apex (x = (1 - c) X(a, b) + c x4
 * in the collapsed coordinates, X = X0 + A a + C b + B ab the bilinear base): det[X_a, X_b,
 * x4 - X], which is bilinear in a and b (its ab^2 and a^2 b terms vanish), so its base corners
 * bound it. */
#include <math.h>
#include <stdio.h>

#include "pm_mesh_int.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_error.h"

/* Halvings of a hexahedron's reference box before a determinant not shown positive is taken for
 * a (nearly) vanishing one: at depth 5 a sub-box is 1/32 of the cell across, and the Bernstein
 * bound there is within ~1e-3 of the determinant's range over the cell. */
enum { HEX_MAX_DEPTH = 5 };

/* A determinant at most this times the cube of the cell's bounding-box diagonal counts as zero. */
static const double DET_TOL = 1e-12;

/* The Jacobian determinant of cell e (table entry c) at reference point xi. */
static double cell_det(const pm_mesh_t *m, int64_t e, const pm_cell_t *c, const double xi[3]) {
  double n[PM_CELL_MAX_VERTS], dn[PM_CELL_MAX_VERTS][3], J[3][3] = {{0}};
  pm_cell_basis(c, xi, n, dn);
  for (int i = 0; i < c->n_verts; i++) {
    const double *x = m->xyz + 3 * m->elem_node[m->elem_ptr[e] + i];
    for (int d = 0; d < 3; d++)
      for (int r = 0; r < 3; r++) J[d][r] += x[d] * dn[i][r];
  }
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

/* The cube of cell e's bounding-box diagonal: the scale a determinant is compared with. */
static double cell_scale3(const pm_mesh_t *m, int64_t e) {
  double lo[3], hi[3];
  const double *x0 = m->xyz + 3 * m->elem_node[m->elem_ptr[e]];
  for (int d = 0; d < 3; d++) lo[d] = hi[d] = x0[d];
  for (int64_t k = m->elem_ptr[e] + 1; k < m->elem_ptr[e + 1]; k++)
    for (int d = 0; d < 3; d++) {
      double x = m->xyz[3 * m->elem_node[k] + d];
      lo[d] = x < lo[d] ? x : lo[d];
      hi[d] = x > hi[d] ? x : hi[d];
    }
  double h2 = 0;
  for (int d = 0; d < 3; d++) h2 += (hi[d] - lo[d]) * (hi[d] - lo[d]);
  return h2 * sqrt(h2);
}

/* Where a cell's determinant was found not positive: the value, the reference point and whether
 * it is only not shown positive (a sub-box at the deepest level). */
typedef struct fold {
  double det, xi[3];
  int unresolved;
} fold_t;

/* A hexahedron's trilinear map x = sum of t[b] * xi^b0 eta^b1 zeta^b2 over the bits b of 0..7
 * (b0 = b & 1, ...), from the table's reference vertices: its Jacobian in a few operations. */
typedef struct trilinear {
  double t[8][3];
} trilinear_t;

static void hex_trilinear(const pm_mesh_t *m, int64_t e, const pm_cell_t *c, trilinear_t *h) {
  for (int b = 0; b < 8; b++)
    for (int d = 0; d < 3; d++) h->t[b][d] = 0;
  for (int i = 0; i < 8; i++) {
    const double *x = m->xyz + 3 * m->elem_node[m->elem_ptr[e] + i];
    for (int b = 0; b < 8; b++) {
      double w = 0.125;
      for (int r = 0; r < 3; r++)
        if (b >> r & 1) w *= c->vert[i][r];
      for (int d = 0; d < 3; d++) h->t[b][d] += w * x[d];
    }
  }
}

static double hex_det(const trilinear_t *h, const double p[3]) {
  double J[3][3];
  for (int d = 0; d < 3; d++) {
    const double *t0 = h->t[0] + d; /* t[b][d] = t0[3 b] */
    J[d][0] = t0[3] + t0[9] * p[1] + t0[15] * p[2] + t0[21] * p[1] * p[2];
    J[d][1] = t0[6] + t0[9] * p[0] + t0[18] * p[2] + t0[21] * p[0] * p[2];
    J[d][2] = t0[12] + t0[15] * p[0] + t0[18] * p[1] + t0[21] * p[0] * p[1];
  }
  return J[0][0] * (J[1][1] * J[2][2] - J[1][2] * J[2][1]) - J[0][1] * (J[1][0] * J[2][2] - J[1][2] * J[2][0]) +
         J[0][2] * (J[1][0] * J[2][1] - J[1][1] * J[2][0]);
}

/* The hexahedron's determinant over the box lo..hi of its reference cube: 1 if shown > tol
 * everywhere, 0 with *f set otherwise. */
static int hex_positive(const trilinear_t *h, const double lo[3], const double hi[3], double tol, int depth,
                        fold_t *f) {
  double v[3][3][3];
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++)
      for (int k = 0; k < 3; k++) {
        const double xi[3] = {lo[0] + 0.5 * i * (hi[0] - lo[0]), lo[1] + 0.5 * j * (hi[1] - lo[1]),
                              lo[2] + 0.5 * k * (hi[2] - lo[2])};
        v[i][j][k] = hex_det(h, xi);
        if (v[i][j][k] <= tol) {
          *f = (fold_t){v[i][j][k], {xi[0], xi[1], xi[2]}, 0};
          return 0;
        }
      }
  /* Values at 0, 1/2, 1 of each direction to Bernstein coefficients of degree 2: the ends stay,
   * the middle one is 2 f(1/2) - (f(0) + f(1)) / 2; direction by direction. */
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 3; j++) v[i][j][1] = 2 * v[i][j][1] - 0.5 * (v[i][j][0] + v[i][j][2]);
  for (int i = 0; i < 3; i++)
    for (int k = 0; k < 3; k++) v[i][1][k] = 2 * v[i][1][k] - 0.5 * (v[i][0][k] + v[i][2][k]);
  for (int j = 0; j < 3; j++)
    for (int k = 0; k < 3; k++) v[1][j][k] = 2 * v[1][j][k] - 0.5 * (v[0][j][k] + v[2][j][k]);
  double low = v[0][0][0];
  for (int i = 0; i < 27; i++) low = fmin(low, (&v[0][0][0])[i]);
  if (low > tol) return 1;
  if (depth == HEX_MAX_DEPTH) {
    *f = (fold_t){low, {0.5 * (lo[0] + hi[0]), 0.5 * (lo[1] + hi[1]), 0.5 * (lo[2] + hi[2])}, 1};
    return 0;
  }
  for (int s = 0; s < 8; s++) {
    double a[3], b[3];
    for (int d = 0; d < 3; d++) {
      double mid = 0.5 * (lo[d] + hi[d]);
      a[d] = s >> d & 1 ? mid : lo[d];
      b[d] = s >> d & 1 ? hi[d] : mid;
    }
    if (!hex_positive(h, a, b, tol, depth + 1, f)) return 0;
  }
  return 1;
}

/* The prism's determinant: on each axial edge (vertex v below, v + 3 above) a quadratic in the
 * axial coordinate z, known at z = -1, 0, 1; its least value on [-1, 1]. */
static int prism_positive(const pm_mesh_t *m, int64_t e, const pm_cell_t *c, double tol, fold_t *f) {
  for (int v = 0; v < 3; v++) {
    double xi[3] = {c->vert[v][0], c->vert[v][1], 0};
    double lo = cell_det(m, e, c, c->vert[v]), mid = cell_det(m, e, c, xi), hi = cell_det(m, e, c, c->vert[v + 3]);
    double a = 0.5 * (hi + lo) - mid, b = 0.5 * (hi - lo); /* q(z) = mid + b z + a z^2 */
    if (a <= 0 || fabs(b) >= 2 * a) continue; /* the least value at an end, a corner already checked */
    xi[2] = -b / (2 * a);
    double q = mid + b * xi[2] + a * xi[2] * xi[2];
    if (q <= tol) {
      *f = (fold_t){q, {xi[0], xi[1], xi[2]}, 0};
      return 0;
    }
  }
  return 1;
}

/* The corners of cell e (only the first for a simplex, whose determinant is constant; not a
 * pyramid's apex, where it depends on the direction). */
static int check_corners(const pm_mesh_t *m, int64_t e, const pm_cell_t *c, double tol) {
  int simplex = c->n_verts == c->dim + 1, nv = simplex ? 1 : c->type == PM_CELL_PYRAMID ? 4 : c->n_verts;
  for (int v = 0; v < nv; v++) {
    double det = cell_det(m, e, c, c->vert[v]);
    if (det > tol) continue;
    PM_CHECK(!simplex, PM_ERR_FORMAT,
             "element %lld (a %s) is inverted or degenerate: its volume is %g; Gmsh orients volume cells "
             "positively (a tetrahedron's nodes 1, 2, 3 counter-clockwise seen from node 4), so its files never "
             "hold such a cell",
             (long long)m->elem_gid[e], c->name, det * c->measure);
    /* Gmsh writes its other cells positively oriented, but its pyramids (the joints between
     * recombined quadrangles and tetrahedra) can come out flat or inverted on curved surfaces. */
    const char *why = c->type == PM_CELL_PYRAMID
                          ? "Gmsh writes such pyramids where it joins recombined quadrangles of a curved surface to "
                            "tetrahedra: re-mesh finer there, or without Recombine on that surface"
                          : "Gmsh orients volume cells positively (the determinant > 0 at every corner), so its "
                            "files never hold such a cell";
    PM_CHECK(0, PM_ERR_FORMAT,
             "element %lld (a %s) is inverted or degenerate: its Jacobian determinant is %g at its node %d (tag "
             "%lld); %s",
             (long long)m->elem_gid[e], c->name, det, v + 1, (long long)m->node_gid[m->elem_node[m->elem_ptr[e] + v]],
             why);
  }
  return PM_OK;
}

int pm_mesh_check_cells(const pm_mesh_t *m) {
  if (m->dim != 3) return PM_OK;
  for (int64_t e = 0; e < m->n_elems; e++) {
    const pm_cell_t *c = pm_cell_gmsh(m->elem_type[e]);
    double tol = DET_TOL * cell_scale3(m, e);
    PM_CALL(check_corners(m, e, c, tol));
    fold_t f = {0};
    int ok = 1;
    if (c->type == PM_CELL_HEX) {
      const double lo[3] = {-1, -1, -1}, hi[3] = {1, 1, 1};
      trilinear_t h;
      hex_trilinear(m, e, c, &h);
      ok = hex_positive(&h, lo, hi, tol, 0, &f);
    } else if (c->type == PM_CELL_PRISM) {
      ok = prism_positive(m, e, c, tol, &f);
    }
    PM_CHECK(ok || !f.unresolved, PM_ERR_FORMAT,
             "element %lld (a %s) nearly folds inside: its Jacobian determinant, positive at every corner, "
             "cannot be shown above %g (relative to its size) near reference point (%.3g, %.3g, %.3g); re-mesh, "
             "or split the cell",
             (long long)m->elem_gid[e], c->name, DET_TOL, f.xi[0], f.xi[1], f.xi[2]);
    PM_CHECK(ok, PM_ERR_FORMAT,
             "element %lld (a %s) folds inside: its Jacobian determinant is %g at reference point (%.3g, %.3g, "
             "%.3g), though positive at every corner; the cell's map is not one-to-one there (re-mesh, or split "
             "the cell)",
             (long long)m->elem_gid[e], c->name, f.det, f.xi[0], f.xi[1], f.xi[2]);
  }
  return PM_OK;
}
