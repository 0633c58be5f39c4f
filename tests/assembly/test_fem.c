/* test_fem.c - self-checking tests of pm_fem: element matrices and load vectors against
 * hand-computed ones.  Serial (pm_fem is not collective); the local meshes are built in memory,
 * every node internal, so pm_fem_assemble's matrix is the assembled element matrices.
 *
 * Worked out by hand (k conductivity, A cross-section, h length, f source):
 *  - a line:  K = k A / h [[1, -1], [-1, 1]], f = 1: b = A h / 2 (1, 1),
 *             M = A h / 6 [[2, 1], [1, 2]], lumped A h / 2 I;
 *  - P1 triangles: K = k / (4 area) [b_i b_j + c_i c_j] (b_i = y_j - y_k, c_i = x_k - x_j), so
 *    for (0,0) (1,0) (0,1) K = 1/2 [[2, -1, -1], [-1, 1, 0], [-1, 0, 1]] in either orientation;
 *    f = 1: b = area / 3; f = x: b_i = area / 12 (x_i + x_1 + x_2 + x_3);
 *    M = area / 12 [[2, 1, 1], [1, 2, 1], [1, 1, 2]], lumped area / 3 I;
 *  - Q1 on an a x b rectangle: K = b / (6a) Kx + a / (6b) Ky with Kx = [[2,-2,-1,1], ...] and
 *    Ky = [[2,1,-1,-2], ...] (products of the 1D matrices), f = 1: b = ab / 4,
 *    M = ab / 36 [[4,2,1,2], ...], lumped ab / 4 I;
 *  - patch tests (K 1 = 0, K x and K y the boundary fluxes (y_{a+1} - y_{a-1})/2 and
 *    -(x_{a+1} - x_{a-1})/2) of a general quadrangle and triangle, a parallelogram's mass, the
 *    unit square turned by 30 degrees;
 *  - two triangles assembled into the unit square; conductivity and source set per group;
 *  - the 5-point scheme on a 4 x 4 grid with spacings 0.5 and 0.25: d = 2/hx^2 + 2/hy^2 = 40,
 *    a = -4 along x and -16 along y, b = f(x_i) plus the eliminated Dirichlet columns;
 *  - Neumann fluxes: g L / 2 per end of a boundary line (g = x: 2/3 and 4/3 on [0, 2]); g A on
 *    the end point of a bar;
 *  - the symmetric elimination of a Dirichlet node, and the backward-Euler system
 *    M/dt + K with its right-hand side, consistent and lumped, on a 3-node bar;
 *  - the nodes' lumped weights, and the refusals (degenerate element, non-finite values, unknown
 *    groups, a non-positive diagonal, fdm5 without its grid, Neumann faces of 3 nodes).
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
#include "pmesh/pm_msh.h"
#include "pmesh/pm_problem.h"
#include "tu_check.h"

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) {
    fprintf(stderr, "test_fem: out of memory\n");
    exit(2);
  }
  return p;
}

/* ---------------------------------------------------------------- meshes in memory */

/* One rank's mesh with every node internal (gids 1..nn) and the given elements. */
static pm_local_t *make_mesh(int32_t nn, const double (*xy)[2], int32_t ne, const int8_t *type, const int32_t *ptr,
                             const int32_t *node) {
  pm_local_t *l = NULL;
  OK(pm_local_create(&l));
  l->rank = 0;
  l->nparts = 1;
  l->n_internal = l->n_total = nn;
  l->import_index = xcalloc(1, sizeof *l->import_index);
  l->export_index = xcalloc(1, sizeof *l->export_index);
  l->has_mesh = 1;
  l->gid = xcalloc((size_t)nn, sizeof *l->gid);
  l->node_index = xcalloc((size_t)nn, sizeof *l->node_index);
  l->xyz = xcalloc(3 * (size_t)nn, sizeof *l->xyz);
  for (int32_t i = 0; i < nn; i++) {
    l->gid[i] = i + 1;
    l->node_index[i] = i;
    l->xyz[3 * i] = xy[i][0];
    l->xyz[3 * i + 1] = xy[i][1];
  }
  l->n_elems = ne;
  l->elem_type = xcalloc((size_t)ne, sizeof *l->elem_type);
  l->elem_gid = xcalloc((size_t)ne, sizeof *l->elem_gid);
  l->elem_index = xcalloc((size_t)ne, sizeof *l->elem_index);
  l->elem_owner = xcalloc((size_t)ne, sizeof *l->elem_owner);
  l->elem_ptr = xcalloc((size_t)ne + 1, sizeof *l->elem_ptr);
  l->elem_node = xcalloc((size_t)ptr[ne], sizeof *l->elem_node);
  for (int32_t e = 0; e < ne; e++) {
    l->elem_type[e] = type[e];
    l->elem_gid[e] = e + 1;
    l->elem_index[e] = e;
  }
  for (int32_t e = 0; e <= ne; e++) l->elem_ptr[e] = ptr[e];
  for (int32_t k = 0; k < ptr[ne]; k++) l->elem_node[k] = node[k];
  return l;
}

/* A single element of nv nodes (the mesh's nodes in order). */
static pm_local_t *make_element(int8_t type, int32_t nv, const double (*xy)[2]) {
  int32_t ptr[2] = {0, nv}, node[4] = {0, 1, 2, 3};
  return make_mesh(nv, xy, 1, &type, ptr, node);
}

/* Add a group: nodes, faces (each of fnv nodes: a point or a line), elements. */
static void add_group(pm_local_t *l, const char *name, int dim, int32_t nn, const int32_t *nodes, int32_t nf, int fnv,
                      const int32_t *fnode, int32_t ne, const int32_t *elems) {
  pm_local_group_t *gs = realloc(l->groups, (size_t)(l->n_groups + 1) * sizeof *gs);
  if (!gs) exit(2);
  l->groups = gs;
  pm_local_group_t *g = &gs[l->n_groups++];
  memset(g, 0, sizeof *g);
  g->name = xcalloc(strlen(name) + 1, 1);
  memcpy(g->name, name, strlen(name));
  g->dim = dim;
  g->n_nodes = nn;
  g->nodes = xcalloc((size_t)nn, sizeof *g->nodes);
  for (int32_t k = 0; k < nn; k++) g->nodes[k] = nodes[k];
  g->n_faces = nf;
  g->face_type = xcalloc((size_t)nf, sizeof *g->face_type);
  g->face_gid = xcalloc((size_t)nf, sizeof *g->face_gid);
  g->face_ptr = xcalloc((size_t)nf + 1, sizeof *g->face_ptr);
  g->face_node = xcalloc((size_t)nf * fnv, sizeof *g->face_node);
  for (int32_t f = 0; f < nf; f++) {
    g->face_type[f] = fnv == 1 ? PM_MSH_POINT : fnv == 2 ? PM_MSH_LINE : PM_MSH_TRI;
    g->face_gid[f] = 100 + f;
    g->face_ptr[f + 1] = (f + 1) * fnv;
  }
  for (int32_t k = 0; k < nf * fnv; k++) g->face_node[k] = fnode[k];
  g->n_elems = ne;
  g->elems = xcalloc((size_t)ne, sizeof *g->elems);
  for (int32_t k = 0; k < ne; k++) g->elems[k] = elems[k];
}

/* ---------------------------------------------------------------- comparisons */

/* The n x n matrix of a (every column internal) as a dense array. */
static void dense(const pm_csr_t *a, double *m) {
  int32_t n = a->n;
  memset(m, 0, (size_t)n * n * sizeof *m);
  for (int32_t i = 0; i < n; i++) {
    m[i * n + i] = a->d ? a->d[i] : 1.0;
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) m[i * n + a->item[k]] = a->amat[k];
  }
}

static int close_to(double got, double want) {
  return fabs(got - want) <= 1e-13 * (1.0 + fabs(want));
}

/* a must be `scale` times want (n x n, row by row). */
static void expect_matrix(const char *what, const pm_csr_t *a, int32_t n, const double *want, double scale) {
  EXPECT(a->n == n, "%s: %d rows, expected %d", what, a->n, n);
  if (a->n != n) return;
  double *m = xcalloc((size_t)n * n, sizeof *m);
  dense(a, m);
  for (int32_t i = 0; i < n; i++)
    for (int32_t j = 0; j < n; j++)
      EXPECT(close_to(m[i * n + j], scale * want[i * n + j]), "%s: entry (%d, %d) = %.17g, expected %.17g", what, i, j,
             m[i * n + j], scale * want[i * n + j]);
  free(m);
}

static void expect_vector(const char *what, const double *got, int32_t n, const double *want, double scale) {
  for (int32_t i = 0; i < n; i++)
    EXPECT(close_to(got[i], scale * want[i]), "%s: entry %d = %.17g, expected %.17g", what, i, got[i], scale * want[i]);
}

/* A call that must fail with `code` and a message containing `frag`. */
static void expect_error(const char *what, int ierr, int code, const char *frag) {
  EXPECT(ierr == code, "%s: code %d, expected %d (%s)", what, ierr, code, pm_error_message());
  EXPECT(strstr(pm_error_message(), frag) != NULL, "%s: message '%s' lacks '%s'", what, pm_error_message(), frag);
  pm_error_clear();
}

/* ---------------------------------------------------------------- assembly helpers */

typedef struct run {
  pm_csr_t *a, *m;
  double *b, *u;
  int64_t n_fixed;
} run_t;

static void run_free(run_t *r) {
  pm_csr_destroy(&r->a);
  pm_csr_destroy(&r->m);
  free(r->b);
  free(r->u);
  memset(r, 0, sizeof *r);
}

/* Steady assembly (m == NULL) or backward Euler (kind, dt); returns pm_fem's code. */
static int assemble(const pm_local_t *l, const pm_problem_t *pr, int transient, pm_mass_t kind, double dt, run_t *r) {
  memset(r, 0, sizeof *r);
  int fdm = pm_problem_scheme(pr) == PM_SCHEME_FDM5;
  OK(pm_csr_create(l, fdm, &r->a));
  r->b = xcalloc((size_t)l->n_internal, sizeof *r->b);
  r->u = xcalloc((size_t)l->n_total, sizeof *r->u);
  if (!transient) return pm_fem_assemble(l, pr, r->a, r->b, r->u, &r->n_fixed);
  OK(pm_csr_create(l, fdm, &r->m));
  return pm_fem_assemble_transient(l, pr, kind, dt, r->a, r->m, r->b, r->u, &r->n_fixed);
}

/* A fresh FEM problem with one source and one conductivity for the whole mesh, in place of *q
 * (destroyed first; NULL the first time): each case builds its own. */
static void prob_init(pm_problem_t **q, const char *f, const char *k, double area) {
  pm_problem_destroy(q);
  OK(pm_problem_create(q));
  OK(pm_problem_set_area(*q, area));
  OK(pm_problem_set_source(*q, NULL, pm_value_expr(f)));
  OK(pm_problem_set_conductivity(*q, NULL, pm_value_expr(k)));
}

/* Stiffness, load and both mass matrices of a mesh. */
static void check_element(const char *what, const pm_local_t *l, const pm_problem_t *q, const double *K, double kscale,
                          const double *F, double fscale, const double *M, double mscale, const double *ML) {
  char w[200];
  int32_t n = l->n_internal;
  run_t r;
  OK(assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r));
  snprintf(w, sizeof w, "%s: stiffness", what);
  expect_matrix(w, r.a, n, K, kscale);
  snprintf(w, sizeof w, "%s: load", what);
  expect_vector(w, r.b, n, F, fscale);
  EXPECT(r.n_fixed == 0, "%s: %lld fixed nodes, expected none", what, (long long)r.n_fixed);
  for (int32_t i = 0; i < n; i++) EXPECT(r.u[i] == 0, "%s: u[%d] = %g without Dirichlet nodes", what, i, r.u[i]);
  if (M) {
    pm_csr_t *m = NULL;
    OK(pm_csr_create(l, 0, &m));
    OK(pm_fem_mass(l, q, PM_MASS_CONSISTENT, m));
    snprintf(w, sizeof w, "%s: consistent mass", what);
    expect_matrix(w, m, n, M, mscale);
    OK(pm_fem_mass(l, q, PM_MASS_LUMPED, m)); /* overwrites the values */
    snprintf(w, sizeof w, "%s: lumped mass", what);
    double *diag = xcalloc((size_t)n * n, sizeof *diag);
    for (int32_t i = 0; i < n; i++) diag[i * n + i] = ML[i];
    expect_matrix(w, m, n, diag, 1.0);
    free(diag);
    pm_csr_destroy(&m);
  }
  run_free(&r);
}

/* ---------------------------------------------------------------- the cases */

static void test_line(void) {
  /* h = 0.5 along (0.3, 0.4): a bar not on an axis; k = 3, A = 2, f = 1. */
  const double xy[2][2] = {{0, 0}, {0.3, 0.4}};
  const double K[] = {1, -1, -1, 1}, F[] = {1, 1}, M[] = {2, 1, 1, 2}, ML[] = {0.5, 0.5};
  pm_local_t *l = make_element(PM_MSH_LINE, 2, xy);
  pm_problem_t *q = NULL;
  prob_init(&q, "1", "3", 2.0);
  check_element("line", l, q, K, 3 * 2 / 0.5, F, 2 * 0.5 / 2, M, 2 * 0.5 / 6, ML);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

static void test_triangles(void) {
  const double xy[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  const double K[] = {2, -1, -1, -1, 1, 0, -1, 0, 1}, F[] = {1, 1, 1}, M[] = {2, 1, 1, 1, 2, 1, 1, 1, 2};
  const double ML[] = {1.0 / 6, 1.0 / 6, 1.0 / 6};
  pm_local_t *l = make_element(PM_MSH_TRI, 3, xy);
  pm_problem_t *q = NULL;
  prob_init(&q, "1", "1", 1.0);
  check_element("P1 (0,0) (1,0) (0,1)", l, q, K, 0.5, F, 1.0 / 6, M, 1.0 / 24, ML);
  /* f = x: b_i = area/12 (x_i + sum x) = (1/24) (1, 2, 1) */
  prob_init(&q, "x", "1", 1.0);
  const double Fx[] = {1, 2, 1};
  check_element("P1, f = x", l, q, K, 0.5, Fx, 1.0 / 24, NULL, 0, NULL);
  pm_local_destroy(&l);

  /* Clockwise: (0,0) (0,1) (1,0); the right angle still at the first node. */
  const double cw[3][2] = {{0, 0}, {0, 1}, {1, 0}};
  l = make_element(PM_MSH_TRI, 3, cw);
  prob_init(&q, "1", "1", 1.0);
  check_element("P1 clockwise", l, q, K, 0.5, F, 1.0 / 6, M, 1.0 / 24, ML);
  pm_local_destroy(&l);

  /* (0,0) (2,0) (0,1), area 1, k = 2: b = (-1, 1, 0), c = (-2, 0, 2),
   * K = 2/4 [[5, -1, -4], [-1, 1, 0], [-4, 0, 4]]. */
  const double xy2[3][2] = {{0, 0}, {2, 0}, {0, 1}};
  const double K2[] = {5, -1, -4, -1, 1, 0, -4, 0, 4}, ML2[] = {1.0 / 3, 1.0 / 3, 1.0 / 3};
  l = make_element(PM_MSH_TRI, 3, xy2);
  prob_init(&q, "1", "2", 1.0);
  check_element("P1 (0,0) (2,0) (0,1), k = 2", l, q, K2, 0.5, F, 1.0 / 3, M, 1.0 / 12, ML2);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

static void test_quads(void) {
  const double Kx[] = {2, -2, -1, 1, -2, 2, 1, -1, -1, 1, 2, -2, 1, -1, -2, 2};
  const double Ky[] = {2, 1, -1, -2, 1, 2, -2, -1, -1, -2, 2, 1, -2, -1, 1, 2};
  const double M[] = {4, 2, 1, 2, 2, 4, 2, 1, 1, 2, 4, 2, 2, 1, 2, 4}, F[] = {1, 1, 1, 1};
  /* The unit square: K = 1/6 [[4, -1, -2, -1], ...] = (Kx + Ky) / 6. */
  const double K1[] = {4, -1, -2, -1, -1, 4, -1, -2, -2, -1, 4, -1, -1, -2, -1, 4};
  const double sq[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}}, ML1[] = {0.25, 0.25, 0.25, 0.25};
  pm_local_t *l = make_element(PM_MSH_QUAD, 4, sq);
  pm_problem_t *q = NULL;
  prob_init(&q, "1", "1", 1.0);
  check_element("Q1 unit square", l, q, K1, 1.0 / 6, F, 0.25, M, 1.0 / 36, ML1);
  pm_local_destroy(&l);
  /* A 2 x 1 rectangle, k = 3: K = 3 (1/12 Kx + 2/6 Ky). */
  const double rect[4][2] = {{0, 0}, {2, 0}, {2, 1}, {0, 1}}, ML2[] = {0.5, 0.5, 0.5, 0.5};
  double K2[16];
  for (int i = 0; i < 16; i++) K2[i] = 3 * (Kx[i] / 12 + Ky[i] / 3);
  l = make_element(PM_MSH_QUAD, 4, rect);
  prob_init(&q, "1", "3", 1.0);
  check_element("Q1 2 x 1 rectangle, k = 3", l, q, K2, 1.0, F, 0.5, M, 2.0 / 36, ML2);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

/* Patch test of one element whose corners are xy (counterclockwise): for a linear u, K u is the
 * boundary flux of grad u against each shape function, and phi_a is linear on the edges, so with
 * the outward normal n and length L of each edge (y_{a+1} - y_{a-1})/2 for u = x and
 * -(x_{a+1} - x_{a-1})/2 for u = y; K 1 = 0; K is symmetric.  Exact for the quadrature pmesh uses
 * (2x2 Gauss integrates a bilinear map's integrands exactly). */
static void check_patch(const char *what, int8_t type, int32_t nv, const double (*xy)[2]) {
  pm_local_t *l = make_element(type, nv, xy);
  pm_problem_t *q = NULL;
  prob_init(&q, "1", "1", 1.0);
  run_t r;
  OK(assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r));
  double m[16];
  dense(r.a, m);
  for (int32_t a = 0; a < nv; a++) {
    double k1 = 0, kx = 0, ky = 0;
    for (int32_t b = 0; b < nv; b++) {
      EXPECT(close_to(m[a * nv + b], m[b * nv + a]), "%s: K is not symmetric at (%d, %d)", what, a, b);
      k1 += m[a * nv + b];
      kx += m[a * nv + b] * xy[b][0];
      ky += m[a * nv + b] * xy[b][1];
    }
    const double *next = xy[(a + 1) % nv], *prev = xy[(a + nv - 1) % nv];
    EXPECT(fabs(k1) <= 1e-14, "%s: row %d of K sums to %g, expected 0", what, a, k1);
    EXPECT(close_to(kx, (next[1] - prev[1]) / 2), "%s: (K x)_%d = %.17g, expected %.17g", what, a, kx,
           (next[1] - prev[1]) / 2);
    EXPECT(close_to(ky, -(next[0] - prev[0]) / 2), "%s: (K y)_%d = %.17g, expected %.17g", what, a, ky,
           -(next[0] - prev[0]) / 2);
  }
  run_free(&r);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

static void test_patches(void) {
  const double quad[4][2] = {{0, 0}, {2, 0}, {1.5, 1.2}, {0.2, 1}}, tri[3][2] = {{0.1, 0.2}, {1.3, 0.4}, {0.5, 1.7}};
  check_patch("Q1 general quadrangle", PM_MSH_QUAD, 4, quad);
  check_patch("P1 general triangle", PM_MSH_TRI, 3, tri);
  /* A parallelogram (0,0) (1,0) (1.5,1) (0.5,1), area 1: the square's mass and load (an affine map). */
  const double para[4][2] = {{0, 0}, {1, 0}, {1.5, 1}, {0.5, 1}};
  check_patch("Q1 parallelogram", PM_MSH_QUAD, 4, para);
  const double M[] = {4, 2, 1, 2, 2, 4, 2, 1, 1, 2, 4, 2, 2, 1, 2, 4}, F[] = {1, 1, 1, 1};
  const double ML[] = {0.25, 0.25, 0.25, 0.25};
  pm_local_t *l = make_element(PM_MSH_QUAD, 4, para);
  pm_csr_t *m = NULL;
  pm_problem_t *q = NULL;
  prob_init(&q, "1", "1", 1.0);
  OK(pm_csr_create(l, 0, &m));
  OK(pm_fem_mass(l, q, PM_MASS_CONSISTENT, m));
  expect_matrix("Q1 parallelogram: consistent mass", m, 4, M, 1.0 / 36);
  OK(pm_fem_mass(l, q, PM_MASS_LUMPED, m));
  double diag[16] = {0};
  for (int i = 0; i < 4; i++) diag[5 * i] = ML[i];
  expect_matrix("Q1 parallelogram: lumped mass", m, 4, diag, 1.0);
  pm_csr_destroy(&m);
  run_t r;
  OK(assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r));
  expect_vector("Q1 parallelogram: load", r.b, 4, F, 0.25);
  run_free(&r);
  pm_local_destroy(&l);
  /* The unit square turned by 30 degrees has the unit square's stiffness. */
  const double K1[] = {4, -1, -2, -1, -1, 4, -1, -2, -2, -1, 4, -1, -1, -2, -1, 4};
  const double c = 0.86602540378443864676, s = 0.5;
  const double rot[4][2] = {{0, 0}, {c, s}, {c - s, s + c}, {-s, c}};
  l = make_element(PM_MSH_QUAD, 4, rot);
  OK(assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r));
  expect_matrix("Q1 unit square turned by 30 degrees", r.a, 4, K1, 1.0 / 6);
  run_free(&r);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

/* Two triangles on the unit square, sharing the diagonal (0,0)-(1,1): the right angles at (1,0)
 * and (0,1), so each element matrix is the first triangle's with its nodes renamed. */
static void test_two_triangles(void) {
  const double xy[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  const int8_t type[] = {PM_MSH_TRI, PM_MSH_TRI};
  const int32_t ptr[] = {0, 3, 6}, node[] = {0, 1, 2, 0, 2, 3};
  pm_local_t *l = make_mesh(4, xy, 2, type, ptr, node);
  const double K[] = {2, -1, 0, -1, -1, 2, -1, 0, 0, -1, 2, -1, -1, 0, -1, 2};
  const double F[] = {2, 1, 2, 1}; /* times 1/6: each triangle gives area/3 = 1/6 to its nodes */
  pm_problem_t *q = NULL;
  prob_init(&q, "1", "1", 1.0);
  check_element("two triangles", l, q, K, 0.5, F, 1.0 / 6, NULL, 0, NULL);
  pm_problem_destroy(&q);
  /* The shared diagonal's entries exist (they are 0 here) and the other diagonal's do not. */
  pm_csr_t *a = NULL;
  OK(pm_csr_create(l, 0, &a));
  EXPECT(pm_csr_find(a, l->gid, 0, 2) >= 0 && pm_csr_find(a, l->gid, 1, 3) < 0,
         "two triangles: the structure does not follow the elements");
  pm_csr_destroy(&a);
  double w[4], wwant[] = {1.0 / 3, 1.0 / 6, 1.0 / 3, 1.0 / 6};
  OK(pm_fem_node_weights(l, w));
  expect_vector("two triangles: node weights", w, 4, wwant, 1.0);
  pm_local_destroy(&l);
}

/* A bar of 3 nodes (h = 1, A = 1): groups, Dirichlet elimination, transient systems, Neumann. */
static pm_local_t *bar3(void) {
  const double xy[3][2] = {{0, 0}, {1, 0}, {2, 0}};
  const int8_t type[] = {PM_MSH_LINE, PM_MSH_LINE};
  const int32_t ptr[] = {0, 2, 4}, node[] = {0, 1, 1, 2};
  pm_local_t *l = make_mesh(3, xy, 2, type, ptr, node);
  const int32_t left[] = {0}, ends[] = {0, 2}, right[] = {1, 2}, right_elem[] = {1}, pt[] = {2};
  add_group(l, "left", 0, 1, left, 1, 1, left, 0, NULL);
  add_group(l, "ends", 0, 2, ends, 0, 1, NULL, 0, NULL);
  add_group(l, "xmax", 0, 1, pt, 1, 1, pt, 0, NULL);
  add_group(l, "right", 1, 2, right, 0, 1, NULL, 1, right_elem);
  return l;
}

static void test_groups_and_dirichlet(void) {
  pm_local_t *l = bar3();
  /* Conductivity 1, then 4 on element 1 ("right"); source 1, then 0 on "right". */
  pm_problem_t *p = NULL;
  OK(pm_problem_create(&p));
  OK(pm_problem_set_conductivity(p, NULL, pm_value_expr("1")));
  OK(pm_problem_set_conductivity(p, "right", pm_value_expr("4")));
  OK(pm_problem_set_source(p, NULL, pm_value_expr("1")));
  OK(pm_problem_set_source(p, "right", pm_value_expr("0")));
  run_t r;
  OK(assemble(l, p, 0, PM_MASS_CONSISTENT, 0, &r));
  const double K[] = {1, -1, 0, -1, 5, -4, 0, -4, 4}, F[] = {0.5, 0.5, 0};
  expect_matrix("bar with group values: stiffness", r.a, 3, K, 1.0);
  expect_vector("bar with group values: load", r.b, 3, F, 1.0);
  run_free(&r);
  /* A later group value that names no group is refused. */
  pm_problem_destroy(&p);
  OK(pm_problem_create(&p));
  OK(pm_problem_set_conductivity(p, NULL, pm_value_expr("1")));
  OK(pm_problem_set_conductivity(p, "nosuch", pm_value_expr("2")));
  OK(pm_problem_set_source(p, NULL, pm_value_expr("1")));
  OK(pm_problem_set_source(p, "right", pm_value_expr("0")));
  expect_error("conductivity on a missing group", assemble(l, p, 0, PM_MASS_CONSISTENT, 0, &r), PM_ERR_ARG,
               "the conductivity on 'nosuch': no group of that name");
  run_free(&r);
  pm_problem_destroy(&p);

  /* Dirichlet u = 2 on node 0: row 0 becomes (1 | 2); column 0 moves right: b_1 = 1 - (-1)(2). */
  pm_problem_t *q = NULL;
  prob_init(&q, "1", "1", 1.0);
  OK(pm_problem_add_dirichlet(q, "left", pm_value_expr("2")));
  OK(assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r));
  const double Kd[] = {1, 0, 0, 0, 2, -1, 0, -1, 1}, Fd[] = {2, 3, 0.5}, ud[] = {2, 0, 0};
  expect_matrix("bar, Dirichlet node 0: matrix", r.a, 3, Kd, 1.0);
  expect_vector("bar, Dirichlet node 0: right-hand side", r.b, 3, Fd, 1.0);
  expect_vector("bar, Dirichlet node 0: u", r.u, 3, ud, 1.0);
  EXPECT(r.n_fixed == 1, "bar, Dirichlet node 0: %lld fixed nodes", (long long)r.n_fixed);
  run_free(&r);

  /* Backward Euler, dt = 0.5: a = 2M + K, M = 1/6 [[2,1,0],[1,4,1],[0,1,2]]; b_1 = 1 - (1/3 - 1) 2. */
  OK(assemble(l, q, 1, PM_MASS_CONSISTENT, 0.5, &r));
  const double Ac[] = {1, 0, 0, 0, 10.0 / 3, -2.0 / 3, 0, -2.0 / 3, 5.0 / 3}, bc[] = {2, 7.0 / 3, 0.5};
  expect_matrix("bar, backward Euler (consistent): M/dt + K", r.a, 3, Ac, 1.0);
  expect_vector("bar, backward Euler (consistent): b", r.b, 3, bc, 1.0);
  EXPECT(r.m->d[0] == 0, "bar, backward Euler: the fixed row of M is not zero");
  r.m->d[0] = 1; /* dense() reads d[0]: compare the rest */
  const double Mc1[] = {1, 0, 0, 0, 2.0 / 3, 1.0 / 6, 0, 1.0 / 6, 1.0 / 3};
  expect_matrix("bar, backward Euler (consistent): M without the fixed row and column", r.m, 3, Mc1, 1.0);
  expect_vector("bar, backward Euler (consistent): u", r.u, 3, ud, 1.0);
  run_free(&r);
  /* Lumped: M = diag(1/2, 1, 1/2). */
  OK(assemble(l, q, 1, PM_MASS_LUMPED, 0.5, &r));
  const double Al[] = {1, 0, 0, 0, 4, -1, 0, -1, 2}, bl[] = {2, 3, 0.5}, Ml[] = {1, 0, 0, 0, 1, 0, 0, 0, 0.5};
  expect_matrix("bar, backward Euler (lumped): M/dt + K", r.a, 3, Al, 1.0);
  expect_vector("bar, backward Euler (lumped): b", r.b, 3, bl, 1.0);
  EXPECT(r.m->d[0] == 0, "bar, backward Euler (lumped): the fixed row of M is not zero");
  r.m->d[0] = 1;
  expect_matrix("bar, backward Euler (lumped): M", r.m, 3, Ml, 1.0);
  run_free(&r);
  EXPECT(assemble(l, q, 1, PM_MASS_LUMPED, 0.0, &r) == PM_ERR_ARG, "a time step 0 is accepted");
  pm_error_clear();
  run_free(&r);

  /* pm_fem_dirichlet: later groups win ("ends" = 5 after "left" = 2). */
  prob_init(&q, "1", "1", 1.0);
  OK(pm_problem_add_dirichlet(q, "left", pm_value_expr("2")));
  OK(pm_problem_add_dirichlet(q, "ends", pm_value_expr("5")));
  char fixed[3] = {9, 9, 9};
  double u[3] = {-1, -1, -1};
  OK(pm_fem_dirichlet(l, q, 0.0, fixed, u));
  EXPECT(fixed[0] == 1 && fixed[1] == 0 && fixed[2] == 1, "pm_fem_dirichlet: marks %d %d %d", fixed[0], fixed[1],
         fixed[2]);
  EXPECT(u[0] == 5 && u[1] == -1 && u[2] == 5, "pm_fem_dirichlet: u = %g %g %g, expected 5 -1 5", u[0], u[1], u[2]);
  /* ... at a given time: values that depend on t are evaluated there. */
  prob_init(&q, "1", "1", 1.0);
  OK(pm_problem_add_dirichlet(q, "ends", pm_value_expr("1 + 2 * t")));
  OK(pm_fem_dirichlet(l, q, 0.5, fixed, u));
  EXPECT(u[0] == 2 && u[2] == 2, "pm_fem_dirichlet at t = 0.5: u = %g %g, expected 2 2", u[0], u[2]);
  prob_init(&q, "1", "1", 1.0);
  OK(pm_problem_add_dirichlet(q, "nosuch", pm_value_expr("1")));
  expect_error("Dirichlet on a missing group", pm_fem_dirichlet(l, q, 0.0, fixed, u), PM_ERR_ARG,
               "the Dirichlet condition on 'nosuch': no group of that name");

  double w[3], ww[] = {0.5, 1, 0.5};
  OK(pm_fem_node_weights(l, w));
  expect_vector("bar: node weights", w, 3, ww, 1.0);
  EXPECT(pm_local_find_group(l, "xmax") == 2 && pm_local_find_group(l, "nosuch") == -1, "pm_local_find_group");
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

static void test_neumann(void) {
  /* 2D: the bottom edge (0,0)-(2,0) of the triangle (0,0) (2,0) (0,1); no source. */
  const double xy[3][2] = {{0, 0}, {2, 0}, {0, 1}};
  pm_local_t *l = make_element(PM_MSH_TRI, 3, xy);
  const int32_t edge[] = {0, 1}, tri[] = {0, 1, 2};
  add_group(l, "bottom", 1, 2, edge, 1, 2, edge, 0, NULL);
  add_group(l, "bad", 1, 3, tri, 1, 3, tri, 0, NULL);
  pm_problem_t *q = NULL;
  prob_init(&q, "0", "1", 1.0);
  OK(pm_problem_add_neumann(q, "bottom", pm_value_expr("3")));
  run_t r;
  OK(assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r));
  const double b3[] = {3, 3, 0}; /* g L / 2 at each end, L = 2 */
  expect_vector("Neumann g = 3 on an edge", r.b, 3, b3, 1.0);
  run_free(&r);
  prob_init(&q, "0", "1", 1.0); /* g = x: integral of x (1 - x/2) and x (x/2) over [0, 2] */
  OK(pm_problem_add_neumann(q, "bottom", pm_value_expr("x")));
  OK(assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r));
  const double bx[] = {2.0 / 3, 4.0 / 3, 0};
  expect_vector("Neumann g = x on an edge", r.b, 3, bx, 1.0);
  run_free(&r);
  prob_init(&q, "0", "1", 1.0);
  OK(pm_problem_add_neumann(q, "bad", pm_value_expr("x")));
  expect_error("Neumann on 3-node faces", assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r), PM_ERR_ARG,
               "triangle faces (type 2, 3 nodes) in a 2D mesh");
  run_free(&r);
  prob_init(&q, "0", "1", 1.0);
  OK(pm_problem_add_neumann(q, "nosuch", pm_value_expr("x")));
  expect_error("Neumann on a missing group", assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r), PM_ERR_ARG,
               "the Neumann flux on 'nosuch': no group of that name");
  run_free(&r);
  pm_local_destroy(&l);

  /* 1D: the flux times the cross-section at the end point; with f = 1 the load adds A h / 2. */
  l = bar3();
  prob_init(&q, "1", "1", 2.0);
  OK(pm_problem_add_neumann(q, "xmax", pm_value_expr("5")));
  OK(assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r));
  const double b1[] = {1, 2, 1 + 10};
  expect_vector("Neumann on the end of a bar, A = 2", r.b, 3, b1, 1.0);
  run_free(&r);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

/* The 5-point scheme on a 4 x 4 grid of quadrangles, hx = 0.5, hy = 0.25, Dirichlet on the
 * boundary: the four inner nodes are the unknowns. */
static pm_local_t *grid4(void) {
  double xy[16][2];
  for (int j = 0; j < 4; j++)
    for (int i = 0; i < 4; i++) {
      xy[4 * j + i][0] = 0.5 * i;
      xy[4 * j + i][1] = 0.25 * j;
    }
  int8_t type[9];
  int32_t ptr[10], node[36], bnd[12], nb = 0, all[9];
  for (int j = 0; j < 3; j++)
    for (int i = 0; i < 3; i++) {
      int e = 3 * j + i, v = 4 * j + i;
      type[e] = PM_MSH_QUAD;
      ptr[e] = 4 * e;
      node[4 * e] = v;
      node[4 * e + 1] = v + 1;
      node[4 * e + 2] = v + 5;
      node[4 * e + 3] = v + 4;
      all[e] = e;
    }
  ptr[9] = 36;
  pm_local_t *l = make_mesh(16, (const double(*)[2])xy, 9, type, ptr, node);
  for (int v = 0; v < 16; v++)
    if (v % 4 == 0 || v % 4 == 3 || v / 4 == 0 || v / 4 == 3) bnd[nb++] = v;
  add_group(l, "boundary", 1, nb, bnd, 0, 2, NULL, 0, NULL);
  add_group(l, "domain", 2, 0, NULL, 0, 2, NULL, 9, all);
  return l;
}

static double g_fd(double x, double y) {
  return 1 + x + 10 * y;
} /* the Dirichlet values */

/* The 5-point problem in place of *p: f = 2 + y, conductivity k, u = g_fd on "boundary" when
 * `dirichlet`, a flux 1 on "boundary" when `flux`. */
static void fdm5_problem(pm_problem_t **p, const char *k, int dirichlet, int flux) {
  prob_init(p, "2+y", k, 1.0);
  OK(pm_problem_set_scheme(*p, PM_SCHEME_FDM5));
  if (dirichlet) OK(pm_problem_add_dirichlet(*p, "boundary", pm_value_expr("1+x+10*y")));
  if (flux) OK(pm_problem_add_neumann(*p, "boundary", pm_value_expr("1")));
}

static void test_fdm5(void) {
  pm_local_t *l = grid4();
  pm_problem_t *p = NULL;
  const char *kexpr = "1";
  for (int varying = 0; varying < 2; varying++) {
    kexpr = varying ? "1+x" : "1";
    fdm5_problem(&p, kexpr, 1, 0);
    run_t r;
    OK(assemble(l, p, 0, PM_MASS_CONSISTENT, 0, &r));
    EXPECT(r.n_fixed == 12, "fdm5: %lld fixed nodes, expected 12", (long long)r.n_fixed);
    double *m = xcalloc(256, sizeof *m);
    dense(r.a, m);
    for (int v = 0; v < 16; v++) {
      double x = 0.5 * (v % 4), y = 0.25 * (v / 4);
      int inner = (v % 4 == 1 || v % 4 == 2) && (v / 4 == 1 || v / 4 == 2);
      if (!inner) {
        EXPECT(m[17 * v] == 1 && r.b[v] == g_fd(x, y) && r.u[v] == g_fd(x, y),
               "fdm5: boundary node %d: row (%g | %g), u %g, expected (1 | %g)", v, m[17 * v], r.b[v], r.u[v],
               g_fd(x, y));
        for (int c = 0; c < 16; c++)
          if (c != v)
            EXPECT(m[16 * v + c] == 0, "fdm5: boundary row %d has entry %g in column %d", v, m[16 * v + c], c);
        continue;
      }
      /* neighbours: left, right (h = 0.5: 1/h^2 = 4), below, above (h = 0.25: 16) */
      const int nb[4] = {v - 1, v + 1, v - 4, v + 4};
      const double inv_h2[4] = {4, 4, 16, 16};
      double d = 0, b = 2 + y;
      for (int k = 0; k < 4; k++) {
        int c = nb[k];
        double xc = 0.5 * (c % 4), yc = 0.25 * (c / 4), kmid = varying ? 1 + 0.5 * (x + xc) : 1;
        int cinner = (c % 4 == 1 || c % 4 == 2) && (c / 4 == 1 || c / 4 == 2);
        d += kmid * inv_h2[k];
        if (cinner)
          EXPECT(close_to(m[16 * v + c], -kmid * inv_h2[k]), "fdm5 (k %s): entry (%d, %d) = %g, expected %g", kexpr, v,
                 c, m[16 * v + c], -kmid * inv_h2[k]);
        else {
          EXPECT(m[16 * v + c] == 0, "fdm5: the Dirichlet column %d of row %d is not eliminated", c, v);
          b += kmid * inv_h2[k] * g_fd(xc, yc);
        }
      }
      if (!varying) EXPECT(d == 40, "fdm5: d = %g, expected 2/0.25 + 2/0.0625 = 40", d);
      EXPECT(close_to(m[17 * v], d), "fdm5 (k %s): diagonal of node %d = %g, expected %g", kexpr, v, m[17 * v], d);
      EXPECT(close_to(r.b[v], b), "fdm5 (k %s): b at node %d = %.17g, expected %.17g", kexpr, v, r.b[v], b);
      int ncoupled = 0;
      for (int c = 0; c < 16; c++) ncoupled += c != v && m[16 * v + c] != 0;
      EXPECT(ncoupled == 2, "fdm5: inner node %d couples to %d unknowns, expected 2", v, ncoupled);
    }
    free(m);
    run_free(&r);
  }
  /* Its mass is the nodal value: lumped only. */
  pm_csr_t *m = NULL;
  OK(pm_csr_create(l, 1, &m));
  OK(pm_fem_mass(l, p, PM_MASS_LUMPED, m));
  double id[256] = {0};
  for (int v = 0; v < 16; v++) id[17 * v] = 1;
  expect_matrix("fdm5: lumped mass", m, 16, id, 1.0);
  expect_error("fdm5: consistent mass", pm_fem_mass(l, p, PM_MASS_CONSISTENT, m), PM_ERR_ARG,
               "the fdm5 scheme has no consistent mass matrix");
  pm_csr_destroy(&m);
  /* Without Dirichlet nodes the boundary nodes lack neighbours; fluxes are refused. */
  run_t r;
  fdm5_problem(&p, kexpr, 0, 0);
  expect_error("fdm5 without Dirichlet nodes", assemble(l, p, 0, PM_MASS_CONSISTENT, 0, &r), PM_ERR_ARG,
               "grid neighbours along x");
  run_free(&r);
  fdm5_problem(&p, kexpr, 1, 1);
  expect_error("fdm5 with a flux", assemble(l, p, 0, PM_MASS_CONSISTENT, 0, &r), PM_ERR_ARG,
               "the fdm5 scheme takes Dirichlet conditions only");
  run_free(&r);
  pm_local_destroy(&l);
  /* Triangles are not a grid. */
  const double xy[3][2] = {{0, 0}, {1, 0}, {1, 1}};
  l = make_element(PM_MSH_TRI, 3, xy);
  fdm5_problem(&p, kexpr, 0, 0);
  expect_error("fdm5 on a triangle", assemble(l, p, 0, PM_MASS_CONSISTENT, 0, &r), PM_ERR_ARG,
               "is a triangle: the 5-point scheme needs an axis-aligned grid of quadrangles");
  run_free(&r);
  pm_problem_destroy(&p);
  pm_local_destroy(&l);
}

static void test_refusals(void) {
  const double flat[3][2] = {{0, 0}, {1, 0}, {2, 0}};
  pm_local_t *l = make_element(PM_MSH_TRI, 3, flat);
  pm_problem_t *q = NULL;
  run_t r;
  prob_init(&q, "1", "1", 1.0);
  expect_error("a degenerate triangle", assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r), PM_ERR_FORMAT,
               "element 1: the triangle is degenerate");
  run_free(&r);
  pm_csr_t *m = NULL;
  OK(pm_csr_create(l, 0, &m));
  expect_error("the mass of a degenerate triangle", pm_fem_mass(l, q, PM_MASS_CONSISTENT, m), PM_ERR_FORMAT,
               "degenerate");
  pm_csr_destroy(&m);
  pm_local_destroy(&l);

  const double xy[3][2] = {{0, 0}, {1, 0}, {0, 1}};
  l = make_element(PM_MSH_TRI, 3, xy);
  prob_init(&q, "1", "log(x-100)", 1.0);
  expect_error("a conductivity that is NaN", assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r), PM_ERR_ARG,
               "the conductivity is not finite");
  run_free(&r);
  prob_init(&q, "sqrt(y-0.5)", "1", 1.0); /* NaN at the quadrature points y = 1/6 */
  expect_error("a source that is not finite", assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r), PM_ERR_ARG,
               "the source is not finite");
  run_free(&r);
  prob_init(&q, "1", "-1", 1.0);
  expect_error("a negative conductivity", assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r), PM_ERR_ARG, "is not positive");
  run_free(&r);
  prob_init(&q, "1+", "1", 1.0);
  expect_error("a source that does not parse", assemble(l, q, 0, PM_MASS_CONSISTENT, 0, &r), PM_ERR_ARG,
               "cannot parse the expression '1+'");
  run_free(&r);
  pm_problem_destroy(&q);
  pm_local_destroy(&l);
}

static void test_expressions(void) {
  pm_expr_t *e = NULL;
  OK(pm_expr_create("2*x + 3*y - z + pi", &e));
  EXPECT(!pm_expr_is_const(e), "2*x + ... is constant");
  EXPECT(close_to(pm_expr_eval(e, 1, 2, 3), 5 + 3.14159265358979323846), "2*x + 3*y - z + pi at (1, 2, 3) = %.17g",
         pm_expr_eval(e, 1, 2, 3));
  pm_expr_destroy(&e);
  EXPECT(e == NULL, "pm_expr_destroy does not set the handle to NULL");
  pm_expr_destroy(&e);
  OK(pm_expr_create("2^3", &e));
  EXPECT(pm_expr_is_const(e) && pm_expr_eval(e, 5, 5, 5) == 8, "2^3 is not the constant 8");
  pm_expr_destroy(&e);
  OK(pm_expr_create("t*2 + x", &e)); /* the time: 0 until set */
  EXPECT(pm_expr_depends_on_time(e) && pm_expr_eval(e, 1, 0, 0) == 1, "t*2 + x at t = 0: %g", pm_expr_eval(e, 1, 0, 0));
  pm_expr_set_time(e, 1.5);
  EXPECT(pm_expr_eval(e, 1, 0, 0) == 4, "t*2 + x at t = 1.5, x = 1: %g", pm_expr_eval(e, 1, 0, 0));
  pm_expr_destroy(&e);
  expect_error("a variable s", pm_expr_create("s*2", &e), PM_ERR_ARG, "uses the variable 's'");
  EXPECT(e == NULL, "a failed pm_expr_create leaves a handle");
}

int main(void) {
  test_line();
  test_triangles();
  test_quads();
  test_patches();
  test_two_triangles();
  test_groups_and_dirichlet();
  test_neumann();
  test_fdm5();
  test_refusals();
  test_expressions();
  printf("test_fem: %ld checks, %ld failures\n", g_checks, g_fail);
  return g_fail ? EXIT_FAILURE : EXIT_SUCCESS;
}
