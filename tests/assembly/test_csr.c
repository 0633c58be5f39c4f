/* test_csr.c - self-checking tests of pm_csr: structure, pm_csr_find, the parallel product and
 * the compact copy.  Run under mpiexec at any number of ranks.
 *
 *   test_csr [MESH...]   MESH: bundled meshes by name (default bar square mixed lshape disk_hole
 *                        cube_hole, then meshgen boxes of tetrahedra, hexahedra and prisms),
 *                        read from $PMESH_MESHES
 *
 * 1. Hand-built local meshes (every rank, alone): the rows of a small mixed mesh whose external
 *    nodes have global ids between the internal ones, written out by hand in global-id order,
 *    with every element's couplings and with the edges only; pm_csr_find for every column; a
 *    1D product and compact copies with results worked out by hand; the refusals (no elements,
 *    a coupling to an auxiliary node).
 * 2. Partitioned meshes (collective): every rank reads the mesh, partitions it into as many
 *    parts as the job has ranks (RCB, the same on every rank) and builds its own local mesh.
 *    The matrix holds a_ij = A(gid_i, gid_j), d_i = D(gid_i), the vector x_j = X(gid_j) (small
 *    integers, so every sum is exact); y = A x is compared with a product over the global mesh
 *    computed by this program's own loops (node pairs sharing an element, or an element edge),
 *    x.y with its global sum.  Then compact copies, unscaled and scaled, the same way.
 * Exit status 0 when every check passed on every rank. */
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_csr.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_gen.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_msh.h"
#include "pmesh/pm_part.h"
#include "tu_check.h"

static int g_size;

static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size);
  if (!p) {
    fprintf(stderr, "test_csr: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  return p;
}

/* ---------------------------------------------------------------- hand-built local meshes */

/* A local mesh of one rank with the given nodes (gids; the first n_int internal, then n_ext
 * external, then n_aux auxiliary) and elements (types, offsets, local nodes); no neighbours. */
static pm_local_t *hand_local(int32_t n_int, int32_t n_ext, int32_t n_aux, const int64_t *gid, int32_t ne,
                              const int8_t *type, const int32_t *ptr, const int32_t *node) {
  pm_local_t *l = NULL;
  OK(pm_local_create(&l));
  int32_t nt = n_int + n_ext + n_aux;
  l->rank = 0;
  l->nparts = 1;
  l->n_internal = n_int;
  l->n_total = n_int + n_ext;
  l->n_aux = n_aux;
  l->import_index = xcalloc(1, sizeof *l->import_index);
  l->export_index = xcalloc(1, sizeof *l->export_index);
  l->has_mesh = 1;
  l->gid = xcalloc((size_t)nt, sizeof *l->gid);
  l->node_index = xcalloc((size_t)nt, sizeof *l->node_index);
  l->xyz = xcalloc(3 * (size_t)nt, sizeof *l->xyz);
  for (int32_t i = 0; i < nt; i++) {
    l->gid[i] = gid[i];
    l->node_index[i] = gid[i] - 1;
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

/* The rows of a must be exactly rows[i] = {columns...} (terminated by -1). */
static void expect_rows(const char *what, const pm_csr_t *a, int32_t n, int32_t ncol, const int32_t rows[][8]) {
  EXPECT(a->n == n && a->ncol == ncol, "%s: %d rows, %d columns, expected %d and %d", what, a->n, a->ncol, n, ncol);
  if (a->n != n) return;
  EXPECT(a->index[0] == 0, "%s: index[0] = %d", what, a->index[0]);
  for (int32_t i = 0; i < n; i++) {
    int32_t len = 0;
    while (rows[i][len] >= 0) len++;
    int32_t got = a->index[i + 1] - a->index[i];
    EXPECT(got == len, "%s: row %d has %d entries, expected %d", what, i, got, len);
    for (int32_t k = 0; k < len && k < got; k++)
      EXPECT(a->item[a->index[i] + k] == rows[i][k], "%s: row %d entry %d is column %d, expected %d", what, i, k,
             a->item[a->index[i] + k], rows[i][k]);
  }
}

/* Runs: every row in exactly one run; interior runs (every column internal) first, then runs of
 * rows with an external column; runs are maximal, so no two neighbouring runs of one class. */
static void check_runs(const char *what, const pm_csr_t *a) {
  int32_t n = a->n;
  char *seen = xcalloc((size_t)n + 1, 1);
  int32_t n_int = 0;
  int ok = a->n_runs_interior >= 0 && a->n_runs_interior <= a->n_runs;
  EXPECT(ok, "%s: %d interior runs of %d", what, a->n_runs_interior, a->n_runs);
  for (int32_t r = 0; ok && r < a->n_runs; r++) {
    int32_t b = a->runs[2 * r], e = a->runs[2 * r + 1];
    int interior = r < a->n_runs_interior;
    EXPECT(0 <= b && b < e && e <= n, "%s: run %d is [%d, %d) of %d rows", what, r, b, e, n);
    if (!(0 <= b && b < e && e <= n)) break;
    for (int32_t i = b; i < e; i++) {
      EXPECT(!seen[i], "%s: row %d is in two runs", what, i);
      seen[i] = 1;
      int all_internal = 1;
      for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) all_internal &= a->item[k] < n;
      EXPECT(all_internal == interior, "%s: row %d (columns %s internal) is in an %s run", what, i,
             all_internal ? "all" : "not all", interior ? "interior" : "exterior");
    }
    if (interior) n_int += e - b;
  }
  for (int32_t i = 0; ok && i < n; i++) EXPECT(seen[i], "%s: row %d is in no run", what, i);
  EXPECT(n_int == a->n_interior, "%s: n_interior %d, the interior runs hold %d rows", what, a->n_interior, n_int);
  /* maximal: the number of runs is the number of class changes along the rows, plus one */
  int32_t changes = 0;
  for (int32_t i = 0; i < n; i++) {
    int c = 1, p = 1;
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) c &= a->item[k] < n;
    if (i > 0)
      for (int32_t k = a->index[i - 1]; k < a->index[i]; k++) p &= a->item[k] < n;
    changes += i == 0 || c != p;
  }
  EXPECT(a->n_runs == changes, "%s: %d runs, expected %d (maximal runs)", what, a->n_runs, changes);
  free(seen);
}

/* pm_csr_find: for every row and every local column, the entry holding it, or -1. */
static void check_find(const char *what, const pm_csr_t *a, const pm_local_t *l) {
  for (int32_t i = 0; i < a->n; i++)
    for (int32_t c = 0; c < l->n_total; c++) {
      int32_t want = -1;
      for (int32_t k = a->index[i]; k < a->index[i + 1]; k++)
        if (a->item[k] == c) want = k;
      int32_t got = pm_csr_find(a, l->gid, i, c);
      EXPECT(got == want, "%s: pm_csr_find(row %d, column %d) = %d, expected %d", what, i, c, got, want);
    }
}

static void test_hand_structure(void) {
  /* Local nodes 0, 1, 2 internal (gids 20, 30, 40), 3, 4, 5 external (gids 10, 25, 50), 6
   * auxiliary (gid 60).  Elements: triangle (0 3 1), quadrangle (0 1 2 4), triangle (2 5 1). */
  const int64_t gid[] = {20, 30, 40, 10, 25, 50, 60};
  const int8_t type[] = {PM_MSH_TRI, PM_MSH_QUAD, PM_MSH_TRI, PM_MSH_TRI};
  const int32_t ptr[] = {0, 3, 7, 10, 13};
  const int32_t node[] = {0, 3, 1, 0, 1, 2, 4, 2, 5, 1, 2, 6, 5};
  /* Columns of each row in ascending global id (not local index), no diagonal, worked out by hand:
   * row 0 (gid 20) meets 3 and 1 in the triangle, 1 2 4 in the quadrangle: 3(10) 4(25) 1(30) 2(40). */
  const int32_t full[3][8] = {{3, 4, 1, 2, -1}, {3, 0, 4, 2, 5, -1}, {0, 4, 1, 5, -1}};
  /* Edges only: the quadrangle's diagonals (0-2, 1-4) are left out; a triangle's pairs are all edges. */
  const int32_t edges[3][8] = {{3, 4, 1, -1}, {3, 0, 2, 5, -1}, {4, 1, 5, -1}};
  pm_local_t *l = hand_local(3, 3, 0, gid, 3, type, ptr, node);
  pm_csr_t *a = NULL;
  OK(pm_csr_create(l, 0, &a));
  expect_rows("hand mesh, element couplings", a, 3, 6, full);
  for (int32_t k = 0; k < a->index[3]; k++) EXPECT(a->amat[k] == 0.0, "hand mesh: value %d is not zero", k);
  for (int32_t i = 0; i < 3; i++) EXPECT(a->d[i] == 0.0, "hand mesh: diagonal %d is not zero", i);
  check_runs("hand mesh", a);
  EXPECT(a->n_interior == 0 && a->n_runs == 1, "hand mesh: every row has an external column: %d interior, %d runs",
         a->n_interior, a->n_runs);
  check_find("hand mesh", a, l);
  pm_csr_destroy(&a);
  EXPECT(a == NULL, "pm_csr_destroy does not set the handle to NULL");
  pm_csr_destroy(&a); /* NULL-safe */
  OK(pm_csr_create(l, 1, &a));
  expect_rows("hand mesh, edges only", a, 3, 6, edges);
  check_runs("hand mesh, edges only", a);
  check_find("hand mesh, edges only", a, l);
  pm_csr_destroy(&a);
  pm_local_destroy(&l);

  /* The fourth element (2 6 5) couples internal node 2 to the auxiliary node 6: refused. */
  l = hand_local(3, 3, 1, gid, 4, type, ptr, node);
  int ierr = pm_csr_create(l, 0, &a);
  EXPECT(ierr == PM_ERR_INCONSISTENT && a == NULL, "a coupling to an auxiliary node: code %d, expected %d", ierr,
         PM_ERR_INCONSISTENT);
  EXPECT(strstr(pm_error_message(), "node 40 couples to node 60, which is neither internal nor external"),
         "message: %s", pm_error_message());
  pm_error_clear();
  /* ... with the edges only too: 2-6 is an edge of the triangle (2 6 5). */
  ierr = pm_csr_create(l, 1, &a);
  EXPECT(ierr == PM_ERR_INCONSISTENT, "a coupling to an auxiliary node (edges only): code %d", ierr);
  pm_error_clear();
  /* A lecture file (tables only) has no elements. */
  l->has_mesh = 0;
  ierr = pm_csr_create(l, 0, &a);
  EXPECT(ierr == PM_ERR_ARG && a == NULL, "a local mesh without elements: code %d, expected %d", ierr, PM_ERR_ARG);
  pm_error_clear();
  pm_local_destroy(&l);
}

/* The lecture's 1D bar of 4 nodes (3 lines), one rank: structure, product and compact copies by hand. */
static void test_hand_bar(void) {
  const int64_t gid[] = {1, 2, 3, 4};
  const int8_t type[] = {PM_MSH_LINE, PM_MSH_LINE, PM_MSH_LINE};
  const int32_t ptr[] = {0, 2, 4, 6};
  const int32_t node[] = {0, 1, 1, 2, 2, 3};
  const int32_t rows[4][8] = {{1, -1}, {0, 2, -1}, {1, 3, -1}, {2, -1}};
  pm_local_t *l = hand_local(4, 0, 0, gid, 3, type, ptr, node);
  pm_csr_t *a = NULL, *c = NULL;
  pm_halo_t *h = NULL;
  OK(pm_csr_create(l, 0, &a));
  expect_rows("bar", a, 4, 4, rows);
  check_runs("bar", a);
  EXPECT(a->n_interior == 4 && a->n_runs == 1 && a->n_runs_interior == 1, "bar: %d interior rows, %d runs",
         a->n_interior, a->n_runs);
  check_find("bar", a, l);
  OK(pm_halo_create(MPI_COMM_SELF, l, PM_EXCHANGE_ISEND, &h));
  /* A = tridiag(-1, 2, -1), x = (1 2 3 4): y = (0 0 0 5), x.y = 20. */
  for (int32_t i = 0; i < 4; i++) a->d[i] = 2;
  for (int32_t k = 0; k < a->index[4]; k++) a->amat[k] = -1;
  double x[4] = {1, 2, 3, 4}, y[4], xy = -1, t = 0;
  OK(pm_csr_spmv(a, h, x, y, &xy, &t));
  const double want[4] = {0, 0, 0, 5};
  for (int32_t i = 0; i < 4; i++) EXPECT(y[i] == want[i], "bar: y[%d] = %g, expected %g", i, y[i], want[i]);
  EXPECT(xy == 20, "bar: x.y = %g, expected 20", xy);
  OK(pm_csr_spmv(a, h, x, y, NULL, NULL)); /* both outputs optional */
  /* A Dirichlet row 0 eliminated: its entry and the column entry (1, 0) are 0.  The copy drops them. */
  a->d[0] = 1;
  a->amat[0] = 0; /* (0, 1) */
  a->amat[1] = 0; /* (1, 0) */
  OK(pm_csr_compact_copy(a, NULL, &c));
  const int32_t crows[4][8] = {{-1}, {2, -1}, {1, 3, -1}, {2, -1}};
  expect_rows("bar, compact copy", c, 4, 4, crows);
  const double cval[] = {-1, -1, -1, -1};
  for (int32_t k = 0; k < c->index[4]; k++) EXPECT(c->amat[k] == cval[k], "bar copy: value %d = %g", k, c->amat[k]);
  EXPECT(c->d && c->d[0] == 1 && c->d[1] == 2 && c->d[3] == 2, "bar copy: the diagonal is not copied");
  check_runs("bar, compact copy", c);
  /* y = (1, 4 - 3, -2 + 6 - 4, -3 + 8) */
  OK(pm_csr_spmv(c, h, x, y, &xy, NULL));
  const double cwant[4] = {1, 1, 0, 5};
  for (int32_t i = 0; i < 4; i++) EXPECT(y[i] == cwant[i], "bar copy: y[%d] = %g, expected %g", i, y[i], cwant[i]);
  EXPECT(xy == 1 + 2 + 0 + 20, "bar copy: x.y = %g", xy);
  pm_csr_destroy(&c);
  /* Scaled: s = (1 2 3 4): entries s_i a_ij s_j, unit diagonal (d == NULL). */
  const double s[4] = {1, 2, 3, 4};
  OK(pm_csr_compact_copy(a, s, &c));
  expect_rows("bar, scaled copy", c, 4, 4, crows);
  const double sval[] = {-6, -6, -12, -12}; /* (1,2) (2,1) (2,3) (3,2) */
  for (int32_t k = 0; k < c->index[4]; k++)
    EXPECT(c->amat[k] == sval[k], "bar scaled copy: value %d = %g, expected %g", k, c->amat[k], sval[k]);
  EXPECT(c->d == NULL, "bar scaled copy: a diagonal array, expected NULL (unit diagonal)");
  OK(pm_csr_spmv(c, h, x, y, NULL, NULL));
  const double swant[4] = {1, 2 - 18, 3 - 12 - 48, 4 - 36}; /* x_i + sum s_i a_ij s_j x_j */
  for (int32_t i = 0; i < 4; i++)
    EXPECT(y[i] == swant[i], "bar scaled copy: y[%d] = %g, expected %g", i, y[i], swant[i]);
  pm_csr_destroy(&c);
  pm_halo_destroy(&h);
  pm_csr_destroy(&a);
  pm_local_destroy(&l);
}

/* ---------------------------------------------------------------- partitioned meshes */

/* Values from global ids: small integers, so sums of products are exact in any order. */
static double val_a(int64_t gi, int64_t gj) {
  return (double)((gi * 7 + gj * 3) % 11 - 5);
}
static double val_d(int64_t gi) {
  return (double)(20 + gi % 7);
}
static double val_x(int64_t gi) {
  return (double)(gi % 13 - 6);
}
static double val_s(int64_t gi) {
  return (double)(1 + gi % 3);
}
static int dropped(int64_t gi, int64_t gj) {
  return (gi + gj) % 4 == 0;
} /* zeroed before the copies */

/* The global couplings, by this program's own loops: adj[ptr[i]..ptr[i+1]) are the nodes that
 * share an element with node i (edges_only: that are joined to it by an element edge), ascending. */
typedef struct gadj {
  int64_t *ptr, *adj;
} gadj_t;

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* Whether corners a and b of a cell of Gmsh type `type` with nv corners share an edge, from
 * Gmsh's corner numbering written out here (not the library's cell table): a polygon joins
 * consecutive corners; every two corners of a tetrahedron; a hexahedron's bottom (0-3) and top
 * (4-7) quadrangles and its uprights i, i + 4; a prism's two triangles and its uprights i, i + 3. */
static int gmsh_edge(int type, int nv, int a, int b) {
  if (type == 4) return 1;
  if (type == 5) return (a < 4) == (b < 4) ? (a % 4 == (b + 1) % 4 || b % 4 == (a + 1) % 4) : abs(a - b) == 4;
  if (type == 6) return (a < 3) == (b < 3) || abs(a - b) == 3;
  return nv <= 2 || b == (a + 1) % nv || a == (b + 1) % nv;
}

static void global_adjacency(const pm_mesh_t *m, int edges_only, gadj_t *g) {
  int64_t n = m->n_nodes;
  g->ptr = xcalloc((size_t)n + 1, sizeof *g->ptr);
  for (int64_t e = 0; e < m->n_elems; e++) {
    int64_t nv = m->elem_ptr[e + 1] - m->elem_ptr[e];
    for (int64_t a = 0; a < nv; a++) g->ptr[m->elem_node[m->elem_ptr[e] + a] + 1] += nv - 1;
  }
  for (int64_t i = 0; i < n; i++) g->ptr[i + 1] += g->ptr[i];
  int64_t *fill = xcalloc((size_t)n, sizeof *fill);
  g->adj = xcalloc((size_t)g->ptr[n], sizeof *g->adj);
  for (int64_t e = 0; e < m->n_elems; e++) {
    const int64_t *v = m->elem_node + m->elem_ptr[e];
    int64_t nv = m->elem_ptr[e + 1] - m->elem_ptr[e];
    for (int64_t a = 0; a < nv; a++)
      for (int64_t b = 0; b < nv; b++) {
        if (b != a && (!edges_only || gmsh_edge(m->elem_type[e], (int)nv, (int)a, (int)b)))
          g->adj[g->ptr[v[a]] + fill[v[a]]++] = v[b];
      }
  }
  /* sort, unique, compact */
  int64_t w = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t b = g->ptr[i], len = fill[i];
    qsort(g->adj + b, (size_t)len, sizeof *g->adj, cmp_i64);
    g->ptr[i] = w;
    for (int64_t k = 0; k < len; k++)
      if (k == 0 || g->adj[b + k] != g->adj[b + k - 1]) g->adj[w++] = g->adj[b + k];
  }
  g->ptr[n] = w;
  free(fill);
}

/* y_i of node i (global index) for the matrix of val_a/val_d with the dropped entries zeroed
 * (drop) and scaled by s (scale: unit diagonal), x = val_x. */
static double global_row(const pm_mesh_t *m, const gadj_t *g, int64_t i, int drop, int scale) {
  int64_t gi = m->node_gid[i];
  double y = scale ? val_x(gi) : val_d(gi) * val_x(gi);
  for (int64_t k = g->ptr[i]; k < g->ptr[i + 1]; k++) {
    int64_t gj = m->node_gid[g->adj[k]];
    if (drop && dropped(gi, gj)) continue;
    double a = val_a(gi, gj);
    if (scale) a = val_s(gi) * a * val_s(gj);
    y += a * val_x(gj);
  }
  return y;
}

/* One product: x from the global ids at internal nodes, NaN at the externals (the product must
 * refresh them); y and x.y against the global computation. */
static void check_product(const char *what, const pm_csr_t *a, pm_halo_t *h, const pm_local_t *l, const pm_mesh_t *m,
                          const gadj_t *g, int drop, int scale) {
  int32_t n = l->n_internal, np = l->n_total;
  double *x = xcalloc((size_t)np, sizeof *x), *y = xcalloc((size_t)n + 1, sizeof *y), xy = NAN, t = 0;
  for (int32_t i = 0; i < np; i++) x[i] = i < n ? val_x(l->gid[i]) : NAN;
  OK(pm_csr_spmv(a, h, x, y, &xy, &t));
  for (int32_t i = 0; i < np; i++)
    EXPECT(x[i] == val_x(l->gid[i]), "%s: x at local node %d (gid %lld) is %g after the product, expected %g", what, i,
           (long long)l->gid[i], x[i], val_x(l->gid[i]));
  double local_xy = 0;
  for (int32_t i = 0; i < n; i++) {
    double want = global_row(m, g, l->node_index[i], drop, scale);
    EXPECT(y[i] == want, "%s: y at node %lld = %.17g, expected %.17g", what, (long long)l->gid[i], y[i], want);
    local_xy += x[i] * want;
  }
  EXPECT(xy == local_xy, "%s: the local x.y is %.17g, expected %.17g", what, xy, local_xy);
  double sum = 0, want = 0;
  MPI_Allreduce(&xy, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (int64_t i = 0; i < m->n_nodes; i++) want += val_x(m->node_gid[i]) * global_row(m, g, i, drop, scale);
  EXPECT(sum == want, "%s: x.y summed over the ranks is %.17g, expected %.17g", what, sum, want);
  EXPECT(t >= 0, "%s: negative exchange time %g", what, t);
  free(x);
  free(y);
}

static void test_mesh(const char *dir, const char *name, pm_adjacency_t halo) {
  int edges_only = halo == PM_ADJACENCY_EDGE;
  char path[4096], what[256];
  snprintf(path, sizeof path, "%s/%s.msh", dir, name);
  if (!strncmp(name, "box_", 4)) snprintf(path, sizeof path, "%s", name); /* written by main */
  snprintf(what, sizeof what, "%s, %s, %d ranks", name, edges_only ? "edges only" : "element couplings", g_size);
  pm_mesh_t *m = NULL;
  pm_graph_t graph;
  pm_part_plan_t *plan = NULL;
  pm_local_t *l = NULL;
  pm_halo_t *h = NULL;
  pm_csr_t *a = NULL, *c = NULL;
  uint64_t checksum;
  OK(pm_mesh_read(path, &m, &checksum));
  OK(pm_graph_build(m, halo, &graph));
  int32_t *part = xcalloc((size_t)m->n_nodes, sizeof *part);
  pm_part_options_t opt = {.nparts = g_size, .method = PM_PART_RCB};
  int64_t cut;
  OK(pm_part_compute(m, &graph, &opt, part, &cut));
  OK(pm_part_plan_create(m, &graph, halo, part, g_size, &plan));
  OK(pm_part_local(plan, g_rank, 1, &l));
  OK(pm_halo_create(MPI_COMM_WORLD, l, PM_EXCHANGE_ISEND, &h));
  OK(pm_csr_create(l, edges_only, &a));
  gadj_t g;
  global_adjacency(m, edges_only, &g);

  /* Structure: row i's columns are the global couplings of its node, in ascending global id. */
  int32_t n = l->n_internal;
  EXPECT(a->n == n && a->ncol == l->n_total, "%s: %d x %d matrix, expected %d x %d", what, a->n, a->ncol, n,
         l->n_total);
  for (int32_t i = 0; i < n; i++) {
    int64_t gi = l->node_index[i];
    int64_t len = g.ptr[gi + 1] - g.ptr[gi];
    EXPECT(a->index[i + 1] - a->index[i] == len, "%s: row of node %lld has %d entries, expected %lld", what,
           (long long)l->gid[i], a->index[i + 1] - a->index[i], (long long)len);
    if (a->index[i + 1] - a->index[i] != len) continue;
    for (int64_t k = 0; k < len; k++) {
      int32_t col = a->item[a->index[i] + k];
      EXPECT(col >= 0 && col < l->n_total && l->node_index[col] == g.adj[g.ptr[gi] + k],
             "%s: row of node %lld, entry %lld: column %d, expected node %lld", what, (long long)l->gid[i],
             (long long)k, col, (long long)m->node_gid[g.adj[g.ptr[gi] + k]]);
    }
  }
  check_runs(what, a);
  for (int32_t i = 0; i < n; i++) {
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++)
      EXPECT(pm_csr_find(a, l->gid, i, a->item[k]) == k, "%s: pm_csr_find(row %d, column %d) is not entry %d", what, i,
             a->item[k], k);
    EXPECT(pm_csr_find(a, l->gid, i, i) == -1, "%s: pm_csr_find finds the diagonal of row %d", what, i);
  }

  /* The product, then the same matrix with some entries zero (the product must not change
   * with those left in), then its compact copies. */
  for (int32_t i = 0; i < n; i++) {
    a->d[i] = val_d(l->gid[i]);
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++) a->amat[k] = val_a(l->gid[i], l->gid[a->item[k]]);
  }
  check_product(what, a, h, l, m, &g, 0, 0);
  for (int32_t i = 0; i < n; i++)
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++)
      if (dropped(l->gid[i], l->gid[a->item[k]])) a->amat[k] = 0;
  check_product(what, a, h, l, m, &g, 1, 0);
  OK(pm_csr_compact_copy(a, NULL, &c));
  char cwhat[300];
  snprintf(cwhat, sizeof cwhat, "%s, compact copy", what);
  for (int32_t i = 0; i < n; i++) {
    int32_t k = c->index[i];
    for (int32_t q = a->index[i]; q < a->index[i + 1]; q++) {
      if (a->amat[q] == 0) continue;
      EXPECT(k < c->index[i + 1] && c->item[k] == a->item[q] && c->amat[k] == a->amat[q],
             "%s: row %d: entry %d is not the next nonzero of the original", cwhat, i, k);
      k++;
    }
    EXPECT(k == c->index[i + 1], "%s: row %d has more entries than the original's nonzeros", cwhat, i);
    EXPECT(c->d[i] == a->d[i], "%s: diagonal %d = %g, expected %g", cwhat, i, c->d[i], a->d[i]);
  }
  check_runs(cwhat, c);
  check_product(cwhat, c, h, l, m, &g, 1, 0);
  pm_csr_destroy(&c);
  double *s = xcalloc((size_t)l->n_total, sizeof *s);
  for (int32_t i = 0; i < l->n_total; i++) s[i] = val_s(l->gid[i]);
  OK(pm_csr_compact_copy(a, s, &c));
  snprintf(cwhat, sizeof cwhat, "%s, scaled copy", what);
  EXPECT(c->d == NULL, "%s: a diagonal array, expected none (unit diagonal)", cwhat);
  check_runs(cwhat, c);
  check_product(cwhat, c, h, l, m, &g, 1, 1);
  free(s);

  pm_csr_destroy(&c);
  pm_csr_destroy(&a);
  pm_halo_destroy(&h);
  pm_local_destroy(&l);
  pm_part_plan_destroy(&plan);
  pm_graph_free(&graph);
  pm_mesh_destroy(&m);
  free(part);
  free(g.ptr);
  free(g.adj);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &g_size);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  const char *dir = getenv("PMESH_MESHES");
  if (!dir) dir = "meshes";
  static const char *const defaults[] = {"bar", "square", "mixed", "lshape", "disk_hole", "cube_hole"};
  int nmesh = argc > 1 ? argc - 1 : (int)(sizeof defaults / sizeof *defaults);

  test_hand_structure();
  test_hand_bar();
  for (int k = 0; k < nmesh; k++) {
    const char *name = argc > 1 ? argv[k + 1] : defaults[k];
    test_mesh(dir, name, PM_ADJACENCY_ELEMENT);
    test_mesh(dir, name, PM_ADJACENCY_EDGE);
  }
  /* 3D: meshgen's boxes of tetrahedra, hexahedra and prisms (uneven sizes, so the parts' halos
   * differ), in files named by kind and job size (the jobs of other sizes run beside this one). */
  if (argc == 1)
    for (int kind = 0; kind < 3; kind++) {
      char name[64];
      snprintf(name, sizeof name, "box_%s_np%d.msh", kind == 0 ? "tet" : kind == 1 ? "hex" : "prism", g_size);
      pm_gen_t gen = {.kind = PM_GEN_BOX};
      gen.nx = 5, gen.ny = 4, gen.nz = 6;
      gen.lx = gen.ly = gen.lz = 1;
      gen.tet = kind == 0, gen.prism = kind == 2;
      if (g_rank == 0) OK(pm_gen_save(name, &gen));
      MPI_Barrier(MPI_COMM_WORLD);
      test_mesh(dir, name, PM_ADJACENCY_ELEMENT);
      test_mesh(dir, name, PM_ADJACENCY_EDGE);
      MPI_Barrier(MPI_COMM_WORLD);
      if (g_rank == 0) remove(name);
    }

  long fails = 0, checks = 0;
  MPI_Allreduce(&g_fail, &fails, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(&g_checks, &checks, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("test_csr: %d ranks, %ld checks, %ld failures\n", g_size, checks, fails);
  MPI_Finalize();
  return fails ? EXIT_FAILURE : EXIT_SUCCESS;
}
