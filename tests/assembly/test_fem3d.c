/* test_fem3d.c - self-checking tests of pm_fem on single 3D cells built in memory (serial:
 * pm_fem is not collective), every node internal, so the assembled matrices are the element's.
 *
 * Worked out by hand (1D: K = 1/h [[1, -1], [-1, 1]], M = h/6 [[2, 1], [1, 2]]):
 *  - a hexahedron a x b x c (Gmsh order: vertex v at corner (i, j, k) = bits of 0 1 3 2 4 5 7 6):
 *    K and M the tensor products Kx My Mz + Mx Ky Mz + Mx My Kz and Mx My Mz, so M_uv =
 *    V/216 prod_d (1 + [i_d = j_d]), lumped V/8; f = 1: F = V/8;
 *  - the unit tetrahedron (0,0,0) (1,0,0) (0,1,0) (0,0,1): gradients -(1,1,1), e1, e2, e3, so
 *    K = 1/6 [[3,-1,-1,-1], [-1,1,0,0], [-1,0,1,0], [-1,0,0,1]], M = V/20 (1 + delta), F = V/4;
 *  - a right prism over the unit triangle, z in [0, H]: K = Ktri Mz + Mtri Kz, M = Mtri Mz with
 *    Ktri = 1/2 [[2,-1,-1], [-1,1,0], [-1,0,1]], Mtri = 1/24 (1 + delta);
 *  - the pyramid on [-1,1]^2 at z = 0 with apex (0,0,1) (volume 4/3; Bedrosian's rational basis,
 *    in the collapsed coordinates a = x/(1-z), b = y/(1-z) the base functions
 *    (1-z)(1 +- a)(1 +- b)/4 and the apex's z): F = (1/4, 1/4, 1/4, 1/4, 1/3); M = 4/45, 2/45,
 *    1/45 between a base vertex and itself, its neighbours and the opposite one, 1/20 base-apex,
 *    2/15 apex-apex; K = 17/54, 1/54, -1/54 likewise, -1/3 base-apex, 4/3 apex-apex;
 *  - a frustum hexahedron (bottom [0,2]^2 at z = 0, top [0.5,1.5]^2 at z = 1; not affine):
 *    the mass sums to its volume h/3 (A1 + A2 + sqrt(A1 A2)) = 7/3, consistent and lumped, lumped
 *    entries positive, K symmetric with rows summing to 0;
 *  - face integrals: Neumann g = 1 and g = x on the top quadrangle of the unit cube (1/4 each;
 *    1/12 and 1/6 for g = x), g = 1 on the slanted triangle of the unit tetrahedron (area
 *    sqrt(3)/2: sqrt(3)/6 each), Robin h = 2, u_inf = 3 there (R = h A/12 (1 + delta), b = 2A);
 *  - the matrix structure: all pairs (7 per row on a hexahedron, 5 on a prism, 3 on a tet), the
 *    edges only for the 7-point pattern (3 per row on each);
 *  - an inverted hexahedron (top and bottom swapped) refused, naming the element.
 * Exit status 0 when every check passed. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_csr.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_problem.h"
#include "tu_check.h"

enum { TET = 4, HEX = 5, PRISM = 6, PYRAMID = 7, TRI = 2, QUAD = 3 };

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) {
    fprintf(stderr, "test_fem3d: out of memory\n");
    exit(2);
  }
  return p;
}

/* One element of type `type` with nodes 0..nv-1 at X (x y z per node), all internal (gids 1..nv). */
static pm_local_t *make_cell(int8_t type, int32_t nv, const double *X) {
  pm_local_t *l = NULL;
  OK(pm_local_create(&l));
  l->nparts = 1;
  l->n_internal = l->n_total = nv;
  l->import_index = xcalloc(1, sizeof *l->import_index);
  l->export_index = xcalloc(1, sizeof *l->export_index);
  l->has_mesh = 1;
  l->gid = xcalloc((size_t)nv, sizeof *l->gid);
  l->node_index = xcalloc((size_t)nv, sizeof *l->node_index);
  l->xyz = xcalloc(3 * (size_t)nv, sizeof *l->xyz);
  for (int32_t i = 0; i < nv; i++) {
    l->gid[i] = i + 1;
    l->node_index[i] = i;
    for (int d = 0; d < 3; d++) l->xyz[3 * i + d] = X[3 * i + d];
  }
  l->n_elems = 1;
  l->elem_type = xcalloc(1, sizeof *l->elem_type);
  l->elem_gid = xcalloc(1, sizeof *l->elem_gid);
  l->elem_index = xcalloc(1, sizeof *l->elem_index);
  l->elem_owner = xcalloc(1, sizeof *l->elem_owner);
  l->elem_ptr = xcalloc(2, sizeof *l->elem_ptr);
  l->elem_node = xcalloc((size_t)nv, sizeof *l->elem_node);
  l->elem_type[0] = type;
  l->elem_gid[0] = 1;
  l->elem_ptr[1] = nv;
  for (int32_t a = 0; a < nv; a++) l->elem_node[a] = a;
  return l;
}

/* A boundary group of one face of type ftype with nodes fn[0..fnv-1]. */
static void add_face_group(pm_local_t *l, const char *name, int8_t ftype, int fnv, const int32_t *fn) {
  pm_local_group_t *gs = realloc(l->groups, (size_t)(l->n_groups + 1) * sizeof *gs);
  if (!gs) exit(2);
  l->groups = gs;
  pm_local_group_t *g = &gs[l->n_groups++];
  memset(g, 0, sizeof *g);
  g->name = xcalloc(strlen(name) + 1, 1);
  memcpy(g->name, name, strlen(name));
  g->dim = 2;
  g->n_nodes = fnv;
  g->nodes = xcalloc((size_t)fnv, sizeof *g->nodes);
  g->n_faces = 1;
  g->face_type = xcalloc(1, sizeof *g->face_type);
  g->face_gid = xcalloc(1, sizeof *g->face_gid);
  g->face_ptr = xcalloc(2, sizeof *g->face_ptr);
  g->face_node = xcalloc((size_t)fnv, sizeof *g->face_node);
  g->face_type[0] = ftype;
  g->face_gid[0] = 100;
  g->face_ptr[1] = fnv;
  for (int k = 0; k < fnv; k++) g->nodes[k] = g->face_node[k] = fn[k];
  /* nodes ascending */
  for (int i = 1; i < fnv; i++)
    for (int j = i; j > 0 && g->nodes[j - 1] > g->nodes[j]; j--) {
      int32_t t = g->nodes[j];
      g->nodes[j] = g->nodes[j - 1];
      g->nodes[j - 1] = t;
    }
}

static int close_to(double got, double want) {
  return fabs(got - want) <= 1e-13 * (1.0 + fabs(want));
}

/* The n x n matrix of a (all columns internal) as a dense array. */
static void dense(const pm_csr_t *a, int32_t n, double *m) {
  memset(m, 0, (size_t)n * n * sizeof *m);
  for (int32_t i = 0; i < n; i++) {
    m[i * n + i] = a->d[i];
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) m[i * n + a->item[k]] = a->amat[k];
  }
}

static pm_problem_t *problem(const char *f) {
  pm_problem_t *q = NULL;
  OK(pm_problem_create(&q));
  OK(pm_problem_set_source(q, NULL, pm_value_expr(f)));
  OK(pm_problem_set_conductivity(q, NULL, pm_value_expr("1")));
  return q;
}

/* Stiffness K and load F (steady, no Dirichlet node), consistent mass M and lumped diagonal ML. */
static void matrices(const pm_local_t *l, const pm_problem_t *q, double *K, double *F, double *M, double *ML) {
  int32_t n = l->n_internal;
  pm_csr_t *a = NULL, *m = NULL;
  double *u = xcalloc((size_t)n, sizeof *u);
  int64_t nf = 0;
  OK(pm_csr_create(l, 0, &a));
  OK(pm_fem_assemble(l, q, a, F, u, &nf));
  dense(a, n, K);
  OK(pm_csr_create(l, 0, &m));
  if (M) {
    OK(pm_fem_mass(l, q, PM_MASS_CONSISTENT, m));
    dense(m, n, M);
    OK(pm_fem_mass(l, q, PM_MASS_LUMPED, m));
    for (int32_t i = 0; i < n; i++) {
      ML[i] = m->d[i];
      for (int32_t k = m->index[i]; k < m->index[i + 1]; k++)
        EXPECT(m->amat[k] == 0, "lumped mass: off-diagonal entry %g in row %d", m->amat[k], i);
    }
  }
  pm_csr_destroy(&a);
  pm_csr_destroy(&m);
  free(u);
}

static void expect_dense(const char *what, const double *got, const double *want, int32_t n) {
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = 0; j < n; j++)
      EXPECT(close_to(got[i * n + j], want[i * n + j]), "%s (%d, %d) = %.17g, expected %.17g", what, i, j,
             got[i * n + j], want[i * n + j]);
}

/* K symmetric, K 1 = 0; sum M = vol, lumped = row sums of M, positive. */
static void expect_sums(const char *what, int32_t n, const double *K, const double *M, const double *ML, double vol) {
  double sm = 0, sl = 0;
  for (int32_t i = 0; i < n; i++) {
    double rk = 0, rm = 0;
    for (int32_t j = 0; j < n; j++) {
      rk += K[i * n + j];
      rm += M[i * n + j];
      EXPECT(close_to(K[i * n + j], K[j * n + i]), "%s: K not symmetric at (%d, %d)", what, i, j);
    }
    EXPECT(fabs(rk) < 1e-13, "%s: stiffness row %d sums to %g", what, i, rk);
    EXPECT(close_to(ML[i], rm) && ML[i] > 0, "%s: lumped %g, row sum %g", what, ML[i], rm);
    sm += rm;
    sl += ML[i];
  }
  EXPECT(close_to(sm, vol), "%s: consistent mass sums to %.17g, volume %.17g", what, sm, vol);
  EXPECT(close_to(sl, vol), "%s: lumped mass sums to %.17g, volume %.17g", what, sl, vol);
}

static const int hex_ijk[8][3] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {0, 1, 0},
                                  {0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}};

static void test_hex(void) {
  const double h[3] = {2, 1, 0.5}, o[3] = {1, -2, 3};
  double X[8][3];
  for (int v = 0; v < 8; v++)
    for (int d = 0; d < 3; d++) X[v][d] = o[d] + h[d] * hex_ijk[v][d];
  pm_local_t *l = make_cell(HEX, 8, X[0]);
  pm_problem_t *q = problem("1");
  double K[64], F[8], M[64], ML[8], Kw[64], Mw[64], V = h[0] * h[1] * h[2];
  matrices(l, q, K, F, M, ML);
  for (int u = 0; u < 8; u++)
    for (int v = 0; v < 8; v++) {
      double k1[3], m1[3];
      for (int d = 0; d < 3; d++) {
        int same = hex_ijk[u][d] == hex_ijk[v][d];
        k1[d] = (same ? 1.0 : -1.0) / h[d];
        m1[d] = h[d] / 6 * (same ? 2.0 : 1.0);
      }
      Kw[u * 8 + v] = k1[0] * m1[1] * m1[2] + m1[0] * k1[1] * m1[2] + m1[0] * m1[1] * k1[2];
      Mw[u * 8 + v] = m1[0] * m1[1] * m1[2];
    }
  expect_dense("hexahedron stiffness", K, Kw, 8);
  expect_dense("hexahedron mass", M, Mw, 8);
  for (int v = 0; v < 8; v++) {
    EXPECT(close_to(F[v], V / 8), "hexahedron load %d = %g, expected %g", v, F[v], V / 8);
    EXPECT(close_to(ML[v], V / 8), "hexahedron lumped %d = %g, expected %g", v, ML[v], V / 8);
  }
  expect_sums("hexahedron", 8, K, M, ML, V);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

static void test_tet(void) {
  const double X[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  pm_local_t *l = make_cell(TET, 4, X[0]);
  pm_problem_t *q = problem("1");
  double K[16], F[4], M[16], ML[4], V = 1.0 / 6;
  const double Kw[16] = {3, -1, -1, -1, -1, 1, 0, 0, -1, 0, 1, 0, -1, 0, 0, 1};
  double Kw6[16], Mw[16];
  for (int i = 0; i < 16; i++) {
    Kw6[i] = Kw[i] / 6;
    Mw[i] = V / 20 * (i % 5 == 0 ? 2 : 1);
  }
  matrices(l, q, K, F, M, ML);
  expect_dense("tetrahedron stiffness", K, Kw6, 4);
  expect_dense("tetrahedron mass", M, Mw, 4);
  for (int v = 0; v < 4; v++) EXPECT(close_to(F[v], V / 4), "tetrahedron load %d = %g", v, F[v]);
  expect_sums("tetrahedron", 4, K, M, ML, V);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

static void test_prism(void) {
  const double H = 2, t[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  double X[6][3];
  for (int v = 0; v < 6; v++) {
    X[v][0] = t[v % 3][0];
    X[v][1] = t[v % 3][1];
    X[v][2] = v < 3 ? 0 : H;
  }
  pm_local_t *l = make_cell(PRISM, 6, X[0]);
  pm_problem_t *q = problem("1");
  const double Kt[9] = {1, -0.5, -0.5, -0.5, 0.5, 0, -0.5, 0, 0.5};
  double K[36], F[6], M[36], ML[6], Kw[36], Mw[36], V = 0.5 * H;
  for (int u = 0; u < 6; u++)
    for (int v = 0; v < 6; v++) {
      int su = u % 3, sv = v % 3, same = u / 3 == v / 3;
      double mt = (su == sv ? 2.0 : 1.0) / 24, kz = (same ? 1.0 : -1.0) / H, mz = H / 6 * (same ? 2.0 : 1.0);
      Kw[u * 6 + v] = Kt[su * 3 + sv] * mz + mt * kz;
      Mw[u * 6 + v] = mt * mz;
    }
  matrices(l, q, K, F, M, ML);
  expect_dense("prism stiffness", K, Kw, 6);
  expect_dense("prism mass", M, Mw, 6);
  for (int v = 0; v < 6; v++) EXPECT(close_to(F[v], V / 6), "prism load %d = %g", v, F[v]);
  expect_sums("prism", 6, K, M, ML, V);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

static void test_pyramid(void) {
  const double X[5][3] = {{-1, -1, 0}, {1, -1, 0}, {1, 1, 0}, {-1, 1, 0}, {0, 0, 1}};
  pm_local_t *l = make_cell(PYRAMID, 5, X[0]);
  pm_problem_t *q = problem("1");
  double K[25], F[5], M[25], ML[5], Kw[25], Mw[25], V = 4.0 / 3;
  for (int u = 0; u < 5; u++)
    for (int v = 0; v < 5; v++) {
      if (u == 4 || v == 4) { /* the apex */
        Kw[u * 5 + v] = u == v ? 4.0 / 3 : -1.0 / 3;
        Mw[u * 5 + v] = u == v ? 2.0 / 15 : 1.0 / 20;
        continue;
      }
      int d = (u - v + 4) % 4; /* 0 itself, 1 or 3 a neighbour, 2 opposite */
      Kw[u * 5 + v] = (d == 0 ? 17.0 : d == 2 ? -1.0 : 1.0) / 54;
      Mw[u * 5 + v] = (d == 0 ? 4.0 : d == 2 ? 1.0 : 2.0) / 45;
    }
  matrices(l, q, K, F, M, ML);
  expect_dense("pyramid stiffness", K, Kw, 5);
  expect_dense("pyramid mass", M, Mw, 5);
  for (int v = 0; v < 5; v++)
    EXPECT(close_to(F[v], v < 4 ? 0.25 : 1.0 / 3), "pyramid load %d = %g", v, F[v]);
  expect_sums("pyramid", 5, K, M, ML, V);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

static void test_frustum(void) {
  double X[8][3];
  for (int v = 0; v < 8; v++) {
    int top = hex_ijk[v][2];
    for (int d = 0; d < 2; d++) X[v][d] = top ? 0.5 + hex_ijk[v][d] : 2.0 * hex_ijk[v][d];
    X[v][2] = top;
  }
  pm_local_t *l = make_cell(HEX, 8, X[0]);
  pm_problem_t *q = problem("1");
  double K[64], F[8], M[64], ML[8], fs = 0;
  matrices(l, q, K, F, M, ML);
  expect_sums("frustum hexahedron", 8, K, M, ML, 7.0 / 3);
  for (int v = 0; v < 8; v++) fs += F[v];
  EXPECT(close_to(fs, 7.0 / 3), "frustum: the load of f = 1 sums to %g, volume 7/3", fs);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

/* The load of a problem with source 0 and one Neumann or Robin group, and its matrix. */
static void face_load(pm_local_t *l, const char *group, const char *g, const char *h, double *F, double *K) {
  pm_problem_t *q = problem("0");
  if (h)
    OK(pm_problem_add_robin(q, group, pm_value_expr(h), pm_value_expr(g)));
  else
    OK(pm_problem_add_neumann(q, group, pm_value_expr(g)));
  matrices(l, q, K, F, NULL, NULL);
  pm_problem_destroy(&q);
}

static void test_faces(void) {
  double X[8][3], F[8], K[64], K0[64], F0[8];
  for (int v = 0; v < 8; v++)
    for (int d = 0; d < 3; d++) X[v][d] = hex_ijk[v][d];
  pm_local_t *l = make_cell(HEX, 8, X[0]);
  const int32_t top[4] = {4, 5, 6, 7};
  add_face_group(l, "top", QUAD, 4, top);
  face_load(l, "top", "1", NULL, F, K);
  for (int v = 0; v < 8; v++) EXPECT(close_to(F[v], v >= 4 ? 0.25 : 0), "quadrangle flux 1: F[%d] = %g", v, F[v]);
  face_load(l, "top", "x", NULL, F, K);
  for (int v = 0; v < 8; v++)
    EXPECT(close_to(F[v], v < 4 ? 0 : hex_ijk[v][0] ? 1.0 / 6 : 1.0 / 12), "quadrangle flux x: F[%d] = %g", v, F[v]);
  pm_local_destroy(&l);

  const double T[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  l = make_cell(TET, 4, T[0]);
  const int32_t slant[3] = {1, 2, 3};
  add_face_group(l, "slant", TRI, 3, slant);
  double A = sqrt(3.0) / 2;
  face_load(l, "slant", "1", NULL, F, K);
  for (int v = 0; v < 4; v++) EXPECT(close_to(F[v], v ? A / 3 : 0), "triangle flux 1: F[%d] = %g", v, F[v]);
  pm_problem_t *q = problem("0");
  matrices(l, q, K0, F0, NULL, NULL);
  pm_problem_destroy(&q);
  face_load(l, "slant", "3", "2", F, K);
  for (int u = 0; u < 4; u++) {
    EXPECT(close_to(F[u], u ? 2 * A : 0), "triangle Robin: F[%d] = %g, expected %g", u, F[u], u ? 2 * A : 0);
    for (int v = 0; v < 4; v++) {
      double want = u && v ? 2 * A / 12 * (u == v ? 2 : 1) : 0;
      EXPECT(close_to(K[u * 4 + v] - K0[u * 4 + v], want), "triangle Robin: R(%d, %d) = %g, expected %g", u, v,
             K[u * 4 + v] - K0[u * 4 + v], want);
    }
  }
  pm_local_destroy(&l);
}

static void test_structure(void) {
  const double T[4][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  double H[8][3], P[6][3];
  for (int v = 0; v < 8; v++)
    for (int d = 0; d < 3; d++) H[v][d] = hex_ijk[v][d];
  for (int v = 0; v < 6; v++) {
    P[v][0] = T[v % 3][0];
    P[v][1] = T[v % 3][1];
    P[v][2] = v / 3;
  }
  struct {
    const char *name;
    pm_local_t *l;
    int all;
  } c[3] = {{"hexahedron", make_cell(HEX, 8, H[0]), 7}, {"prism", make_cell(PRISM, 6, P[0]), 5}, {"tetrahedron", make_cell(TET, 4, T[0]), 3}};
  for (int i = 0; i < 3; i++) {
    for (int edges = 0; edges < 2; edges++) {
      pm_csr_t *a = NULL;
      OK(pm_csr_create(c[i].l, edges, &a));
      for (int32_t r = 0; r < a->n; r++)
        EXPECT(a->index[r + 1] - a->index[r] == (edges ? 3 : c[i].all), "%s%s: row %d has %d entries", c[i].name,
               edges ? " (edges)" : "", r, a->index[r + 1] - a->index[r]);
      if (edges && i == 0) /* node 0 at (0,0,0): its edge neighbours are 1, 3 and 4 */
        EXPECT(a->item[0] == 1 && a->item[1] == 3 && a->item[2] == 4, "hexahedron edges of node 0: %d %d %d",
               a->item[0], a->item[1], a->item[2]);
      pm_csr_destroy(&a);
    }
    pm_local_destroy(&c[i].l);
  }
}

static void test_inverted(void) {
  double X[8][3];
  for (int v = 0; v < 8; v++)
    for (int d = 0; d < 3; d++) X[v][d] = hex_ijk[v][d];
  for (int v = 0; v < 8; v++) X[v][2] = 1 - X[v][2];
  pm_local_t *l = make_cell(HEX, 8, X[0]);
  l->elem_gid[0] = 4711;
  pm_problem_t *q = problem("1");
  pm_csr_t *a = NULL;
  double F[8], u[8];
  int64_t nf;
  OK(pm_csr_create(l, 0, &a));
  int ierr = pm_fem_assemble(l, q, a, F, u, &nf);
  EXPECT(ierr == PM_ERR_FORMAT, "inverted hexahedron: code %d (%s)", ierr, pm_error_message());
  EXPECT(strstr(pm_error_message(), "element 4711") && strstr(pm_error_message(), "inverted"),
         "inverted hexahedron: message '%s' names neither the element nor the fault", pm_error_message());
  pm_error_clear();
  pm_csr_destroy(&a);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

int main(void) {
  test_hex();
  test_tet();
  test_prism();
  test_pyramid();
  test_frustum();
  test_faces();
  test_structure();
  test_inverted();
  printf("test_fem3d: %ld checks, %ld failures\n", g_checks, g_fail);
  return g_fail ? EXIT_FAILURE : EXIT_SUCCESS;
}
