/* test_quality.c - pm_cell_quality against values worked out by hand: the regular tetrahedron's
 * radius ratio 3, the right-angled corner tetrahedron's (3 + 3 sqrt 3) / 2, a sliver's
 * 2 sqrt((1 + h^2/4)(1 + h^2)) / h, flat cells infinite; triangles 2 (equilateral), 1 + sqrt 2
 * (right isosceles), 5/2 (3-4-5); the square, any rectangle, the cube and any box 1, a
 * parallelogram 1 / sin(angle), a cube sheared by x += s z sqrt(1 + s^2), the right equilateral
 * prism 1 and the right-isosceles one sqrt(3/2), pyramids on a unit square 1 (equal edges),
 * 1.5^1.5 / sqrt 2 (height 1) and sqrt(3/2) (height 1/2).  Each value must not change under a rigid
 * motion, a scaling or a mirror image, and the statistics must count, average and keep the
 * worst. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "pmesh/pm_cell.h"
#include "pmesh/pm_quality.h"
#include "tu_check.h"

static void near(double got, double want, const char *what) {
  if (isinf(want))
    EXPECT(isinf(got) && got > 0, "%s: %.17g, expected infinity", what, got);
  else
    EXPECT(fabs(got - want) <= 1e-12 * fabs(want), "%s: %.17g, expected %.17g", what, got, want);
}

/* The measure of x, then of x moved (rotated about an oblique axis, scaled by 7, shifted) and of
 * its mirror image (y -> -y): all three must agree. */
static void measure(pm_cell_type_t t, double x[][3], double want, const char *what) {
  const pm_cell_t *c = pm_cell_get(t);
  near(pm_cell_quality(c, (const double(*)[3])x), want, what);
  double y[PM_CELL_MAX_VERTS][3], m[PM_CELL_MAX_VERTS][3];
  const double ca = cos(0.7), sa = sin(0.7), cb = cos(-1.1), sb = sin(-1.1);
  for (int i = 0; i < c->n_verts; i++) {
    double p[3] = {ca * x[i][0] - sa * x[i][1], sa * x[i][0] + ca * x[i][1], x[i][2]}; /* about z */
    double q[3] = {p[0], cb * p[1] - sb * p[2], sb * p[1] + cb * p[2]};                /* about x */
    for (int k = 0; k < 3; k++) y[i][k] = 7 * q[k] + (k + 1) * 3.25;
    m[i][0] = x[i][0], m[i][1] = -x[i][1], m[i][2] = x[i][2];
  }
  char buf[160];
  if (c->dim == 3 || t == PM_CELL_TRI) { /* 2D corner measures are taken in the cell's plane too */
    snprintf(buf, sizeof buf, "%s, moved", what);
    near(pm_cell_quality(c, (const double(*)[3])y), want, buf);
  }
  snprintf(buf, sizeof buf, "%s, mirrored", what);
  near(pm_cell_quality(c, (const double(*)[3])m), want, buf);
}

static void check_tets(void) {
  double reg[4][3] = {{1, 1, 1}, {1, -1, -1}, {-1, 1, -1}, {-1, -1, 1}};
  measure(PM_CELL_TET, reg, 3, "regular tetrahedron");
  double corner[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  measure(PM_CELL_TET, corner, (3 + 3 * sqrt(3.0)) / 2, "right-angled corner tetrahedron");
  /* A Kuhn tetrahedron (a path along the cube's edges): R = sqrt 3 / 2, faces 1/2, 1/2, sqrt 2 / 2
   * twice, V = 1/6. */
  double kuhn[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {1, 1, 1}};
  measure(PM_CELL_TET, kuhn, sqrt(3.0) * (1 + sqrt(2.0)), "Kuhn tetrahedron");
  const double hs[] = {0.5, 0.01, 1e-4};
  for (int i = 0; i < 3; i++) {
    double h = hs[i], s[4][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, h}, {0, -1, h}};
    char what[64];
    snprintf(what, sizeof what, "sliver of height %g", h);
    measure(PM_CELL_TET, s, 2 * sqrt((1 + h * h / 4) * (1 + h * h)) / h, what);
  }
  double flat[4][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}};
  measure(PM_CELL_TET, flat, INFINITY, "flat tetrahedron");
  double same[4][3] = {{0, 0, 0}, {0, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  measure(PM_CELL_TET, same, INFINITY, "tetrahedron with two equal vertices");
}

static void check_triangles(void) {
  double eq[3][3] = {{0, 0, 0}, {1, 0, 0}, {0.5, sqrt(3.0) / 2, 0}};
  measure(PM_CELL_TRI, eq, 2, "equilateral triangle");
  double right[3][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  measure(PM_CELL_TRI, right, 1 + sqrt(2.0), "right isosceles triangle");
  double t345[3][3] = {{0, 0, 0}, {4, 0, 0}, {0, 3, 0}}; /* R = 5/2, r = (3 + 4 - 5)/2 = 1 */
  measure(PM_CELL_TRI, t345, 2.5, "3-4-5 triangle");
  double line[3][3] = {{0, 0, 0}, {1, 0, 0}, {3, 0, 0}};
  measure(PM_CELL_TRI, line, INFINITY, "collinear triangle");
}

static void check_quads(void) {
  double sq[4][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}};
  measure(PM_CELL_QUAD, sq, 1, "unit square");
  double rect[4][3] = {{0, 0, 0}, {5, 0, 0}, {5, 0.5, 0}, {0, 0.5, 0}};
  measure(PM_CELL_QUAD, rect, 1, "10:1 rectangle");
  double a = atan(1.0) * 4 / 6, par[4][3] = {{0, 0, 0}, {2, 0, 0}, {2 + cos(a), sin(a), 0}, {cos(a), sin(a), 0}};
  measure(PM_CELL_QUAD, par, 1 / sin(a), "30-degree parallelogram");
  double dart[4][3] = {{0, 0, 0}, {2, 0, 0}, {0.5, 0.5, 0}, {0, 2, 0}}; /* reflex corner at vertex 2 */
  measure(PM_CELL_QUAD, dart, INFINITY, "non-convex quadrangle");
}

/* The cube [0,1]^3 in Gmsh's vertex order (the table's reference hexahedron, halved and shifted),
 * each vertex then mapped by x += s z, y *= sy. */
static void hex_of(double s, double sy, double x[8][3]) {
  const pm_cell_t *c = pm_cell_get(PM_CELL_HEX);
  for (int i = 0; i < 8; i++) {
    double p[3];
    for (int k = 0; k < 3; k++) p[k] = (c->vert[i][k] + 1) / 2;
    x[i][0] = p[0] + s * p[2], x[i][1] = sy * p[1], x[i][2] = p[2];
  }
}

static void check_hexes_prisms(void) {
  double x[8][3];
  hex_of(0, 1, x);
  measure(PM_CELL_HEX, x, 1, "unit cube");
  hex_of(0, 4, x);
  measure(PM_CELL_HEX, x, 1, "1x4x1 box");
  hex_of(0.5, 1, x);
  measure(PM_CELL_HEX, x, sqrt(1.25), "cube sheared by x += z/2");
  hex_of(3, 1, x);
  measure(PM_CELL_HEX, x, sqrt(10.0), "cube sheared by x += 3z");
  hex_of(0, 1, x);
  for (int i = 4; i < 8; i++) x[i][2] = 0; /* the top face on the bottom one */
  measure(PM_CELL_HEX, x, INFINITY, "flattened cube");
  hex_of(0, 1, x);
  x[6][0] = x[6][1] = x[6][2] = 0.2; /* vertex (1,1,1) pushed inside past the centre: tangled */
  measure(PM_CELL_HEX, x, INFINITY, "tangled hexahedron");

  double h = sqrt(3.0) / 2, eq[6][3] = {{0, 0, 0}, {1, 0, 0}, {0.5, h, 0}, {0, 0, 1}, {1, 0, 1}, {0.5, h, 1}};
  measure(PM_CELL_PRISM, eq, 1, "right equilateral prism");
  double ri[6][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 3}, {1, 0, 3}, {0, 1, 3}};
  measure(PM_CELL_PRISM, ri, sqrt(1.5), "right isosceles prism"); /* sin 60 / sin 45 */

  /* Pyramids on the unit square, apex (1/2, 1/2, a): a base corner's scaled Jacobian is
   * a / sqrt(1/2 + a^2), the apex's a / (1/2 + a^2)^(3/2); over 1/sqrt 2. */
  double py[5][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0}, {0.5, 0.5, sqrt(0.5)}};
  measure(PM_CELL_PYRAMID, py, 1, "pyramid with equal edges");
  py[4][2] = 1;
  measure(PM_CELL_PYRAMID, py, pow(1.5, 1.5) / sqrt(2.0), "pyramid of height 1 (its apex the worst)");
  py[4][2] = 0.5;
  measure(PM_CELL_PYRAMID, py, sqrt(1.5), "pyramid of height 1/2 (its base corners the worst)");
  py[4][2] = 0;
  measure(PM_CELL_PYRAMID, py, INFINITY, "flat pyramid");
}

static void check_stats(void) {
  pm_quality_t q, r;
  pm_quality_init(&q);
  pm_quality_add(&q, PM_CELL_TET, 3);
  pm_quality_add(&q, PM_CELL_TET, 5);
  pm_quality_add(&q, PM_CELL_HEX, 1);
  CHECK(q.count[PM_CELL_TET] == 2 && q.count[PM_CELL_HEX] == 1 && q.count[PM_CELL_TRI] == 0);
  near(q.worst[PM_CELL_TET], 5, "worst of 3 and 5");
  near(pm_quality_mean(&q, PM_CELL_TET), 4, "mean of 3 and 5");
  CHECK(pm_quality_mean(&q, PM_CELL_PRISM) == 0);
  pm_quality_init(&r);
  pm_quality_add(&r, PM_CELL_TET, INFINITY);
  pm_quality_merge(&q, &r);
  CHECK(q.count[PM_CELL_TET] == 3 && q.degenerate[PM_CELL_TET] == 1);
  near(q.worst[PM_CELL_TET], INFINITY, "worst with a flat cell");
  near(pm_quality_mean(&q, PM_CELL_TET), INFINITY, "mean with a flat cell");
  CHECK(!strcmp(pm_quality_name(PM_CELL_TET), "radius ratio"));
  CHECK(pm_cell_quality(pm_cell_get(PM_CELL_LINE), NULL) == 1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  check_tets();
  check_triangles();
  check_quads();
  check_hexes_prisms();
  check_stats();
  if (g_fail)
    fprintf(stderr, "test_quality: %ld checks failed\n", g_fail);
  else
    printf("test_quality: %ld checks passed\n", g_checks);
  MPI_Finalize();
  return g_fail ? 1 : 0;
}
