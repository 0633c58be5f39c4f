/* test_fine_op MESH...: the matrix-free fine operator (pm_fine_op.h) against the operator
 * pm_fem_assemble assembles on the same refined mesh (whose fine elements the refinement builds
 * here, and the matrix-free object never reads).  Each MESH (a path, optionally @G1,G2,VOL: its
 * two Dirichlet face groups and a volume group, else xmin, hole, solid; or box:N, hexbox:N,
 * prismbox:N for meshgen's N x N x N box of tetrahedra, hexahedra or prisms written here) is
 * partitioned in process into np parts and refined K = 1 and 2 times; on the finest level, with
 * a Dirichlet value varying in space on two face groups, a source varying in space and two
 * conductivities (a default and a volume group's):
 *   - the diagonals, the products with vectors varying in space and with random vectors and the
 *     right-hand sides (loads minus the Dirichlet columns) agree to 1e-7 relative: the
 *     matrix-free operator keeps its coarse elements' edge weights in single precision (2^-24,
 *     6e-8, relative each); a wrong weight or patch is off by far more,
 *   - the Dirichlet values agree exactly, and so do the counts of fixed nodes,
 *   - the node weights agree with pm_fem_node_weights;
 *   - the matrix-free side runs on the level refined without elements (pm_refine_local_points
 *     with elements 0): it never reads fine elements; the elements pm_refine_points_elements
 *     makes afterwards are the refinement's, entry for entry (groups included);
 * and a conductivity depending on x, Neumann conditions and FDM are refused. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_csr.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"
#include "pmesh/pm_fine_op.h"
#include "pmesh/pm_gen.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_op.h"
#include "pmesh/pm_refine.h"
#include "tu_check.h"
#include "tu_part.h"

/* The matrix-free operator's agreement with the assembled one: its single-precision weights. */
#define SINGLE_TOL 1e-7

/* The largest |a - b| over n entries relative to the largest |b| (summed over ranks). */
static double rel_diff(const double *a, const double *b, int32_t n) {
  double m[2] = {0, 0};
  for (int32_t i = 0; i < n; i++) {
    m[0] = fmax(m[0], fabs(a[i] - b[i]));
    m[1] = fmax(m[1], fabs(b[i]));
  }
  MPI_Allreduce(MPI_IN_PLACE, m, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return m[1] > 0 ? m[0] / m[1] : m[0];
}

static pm_problem_t *problem(const char *g1, const char *g2, const char *vol) {
  pm_problem_t *p = NULL;
  OK(pm_problem_create(&p));
  OK(pm_problem_add_dirichlet(p, g1, pm_value_expr("1 + x + y*z")));
  OK(pm_problem_add_dirichlet(p, g2, pm_value_expr("2 - y")));
  OK(pm_problem_set_source(p, NULL, pm_value_expr("1 + x*y + z*z")));
  OK(pm_problem_set_conductivity(p, NULL, pm_value_expr("1")));
  OK(pm_problem_set_conductivity(p, vol, pm_value_expr("2.5")));
  return p;
}

/* The refused problems: each must fail with PM_ERR_UNSUPPORTED. */
static void check_refusals(const pm_local_t *c, const pm_local_t *f, const pm_refine_points_t *pt, pm_halo_t *h,
                           const char *g1, const char *vol) {
  for (int k = 0; k < 3; k++) {
    pm_problem_t *p = NULL;
    pm_fine_t *F = NULL;
    OK(pm_problem_create(&p));
    OK(pm_problem_add_dirichlet(p, g1, pm_value_expr("0")));
    if (k == 0) OK(pm_problem_set_conductivity(p, vol, pm_value_expr("1 + x")));
    if (k == 1) OK(pm_problem_add_neumann(p, g1, pm_value_expr("1")));
    if (k == 2) OK(pm_problem_set_scheme(p, PM_SCHEME_FDM5));
    int ierr = pm_fine_create(c, f, pt, h, p, &F);
    EXPECT(ierr == PM_ERR_UNSUPPORTED && strstr(pm_error_message(), "--fine-operator"),
           "refusal %d: code %d, message '%s'", k, ierr, pm_error_message());
    pm_fine_destroy(&F);
    pm_problem_destroy(&p);
  }
}

/* The elements pm_refine_points_elements makes for f2 (refined without them) are f's. */
static void check_elements(const pm_local_t *c, const pm_refine_points_t *pt, pm_local_t *f2, const pm_local_t *f) {
  EXPECT(f2->n_elems == 0 && !f2->has_mesh, "refined without elements: %d elements", (int)f2->n_elems);
  OK(pm_refine_points_elements(c, pt, f2));
  EXPECT(f2->n_elems == f->n_elems && f2->has_mesh, "elements from the points: %d, refined: %d", (int)f2->n_elems,
         (int)f->n_elems);
  if (f2->n_elems != f->n_elems) return;
  int32_t bad = -1;
  for (int32_t e = 0; e < f->n_elems && bad < 0; e++) {
    int same = f2->elem_type[e] == f->elem_type[e] && f2->elem_gid[e] == f->elem_gid[e] &&
               f2->elem_index[e] == f->elem_index[e] && f2->elem_owner[e] == f->elem_owner[e] &&
               f2->elem_ptr[e + 1] == f->elem_ptr[e + 1];
    for (int32_t k = f->elem_ptr[e]; same && k < f->elem_ptr[e + 1]; k++) same = f2->elem_node[k] == f->elem_node[k];
    if (!same) bad = e;
  }
  EXPECT(bad < 0, "element %d from the points differs from the refinement's", (int)bad);
  for (int g = 0; g < f->n_groups; g++) {
    int same = f2->groups[g].n_elems == f->groups[g].n_elems;
    for (int32_t k = 0; same && k < f->groups[g].n_elems; k++) same = f2->groups[g].elems[k] == f->groups[g].elems[k];
    EXPECT(same, "group %s: elements from the points differ", f->groups[g].name);
  }
}

/* The finest level of c refined once more: the operator assembled on it (with its elements)
 * against the matrix-free one on the same level refined without elements. */
static void compare(const pm_local_t *c, const char *g1, const char *g2, const char *vol) {
  pm_local_t *f = NULL, *f2 = NULL;
  pm_refine_points_t *pt = NULL, *pt2 = NULL;
  pm_halo_t *h = NULL;
  pm_csr_t *a = NULL;
  pm_op_t *op = NULL;
  pm_fine_t *F = NULL;
  OK(pm_refine_local_points(MPI_COMM_WORLD, c, 1, &f, NULL, &pt));
  OK(pm_refine_local_points(MPI_COMM_WORLD, c, 0, &f2, NULL, &pt2));
  OK(pm_halo_create(MPI_COMM_WORLD, f, pm_exchange_default(), &h));
  pm_problem_t *p = problem(g1, g2, vol);
  int32_t n = f->n_internal, np = f->n_total, m = n > 0 ? n : 1, mp = np > 0 ? np : 1;
  double *b0 = calloc(m, 8), *b1 = calloc(m, 8), *u0 = calloc(mp, 8), *u1 = calloc(mp, 8), *x = calloc(mp, 8),
         *y0 = calloc(m, 8), *y1 = calloc(m, 8), *d = calloc(m, 8), *w0 = calloc(m, 8), *w1 = calloc(m, 8);
  int64_t nf0 = 0, nf1 = 0;
  OK(pm_csr_create(f, 0, &a));
  OK(pm_fem_assemble(f, p, a, b0, u0, &nf0));
  OK(pm_fine_create(c, f2, pt2, h, p, &F)); /* f2: the same nodes, no elements */
  OK(pm_fine_system(F, b1, u1, &nf1));
  OK(pm_fine_op(F, &op));
  EXPECT(nf0 == nf1, "fixed nodes: %lld matrix-free, %lld assembled", (long long)nf1, (long long)nf0);
  EXPECT(rel_diff(b1, b0, n) <= SINGLE_TOL, "right-hand sides differ by %g", rel_diff(b1, b0, n));
  EXPECT(rel_diff(u1, u0, np) == 0, "Dirichlet values differ by %g", rel_diff(u1, u0, np));
  OK(pm_op_diagonal(op, d));
  EXPECT(rel_diff(d, a->d, n) <= SINGLE_TOL, "diagonals differ by %g", rel_diff(d, a->d, n));
  srand(7 + g_rank);
  for (int trial = 0; trial < 3; trial++) {
    for (int32_t i = 0; i < n; i++) {
      const double *q = f->xyz + 3 * i;
      x[i] = trial == 0 ? 1.0 : trial == 1 ? sin(3 * q[0]) + q[1] * q[2] : (double)rand() / RAND_MAX - 0.5;
    }
    OK(pm_csr_spmv(a, h, x, y0, NULL, NULL));
    OK(pm_op_apply(op, x, y1));
    double r = rel_diff(y1, y0, n);
    EXPECT(r <= SINGLE_TOL, "product %d differs by %g", trial, r);
  }
  OK(pm_fem_node_weights(f, w0));
  OK(pm_fine_node_weights(c, f2, pt2, w1));
  EXPECT(rel_diff(w1, w0, n) <= 1e-13, "node weights differ by %g", rel_diff(w1, w0, n));
  check_refusals(c, f2, pt2, h, g1, vol);
  check_elements(c, pt2, f2, f);
  pm_op_destroy(&op);
  pm_fine_destroy(&F);
  pm_csr_destroy(&a);
  pm_problem_destroy(&p);
  pm_halo_destroy(&h);
  pm_refine_points_destroy(&pt);
  pm_refine_points_destroy(&pt2);
  pm_local_destroy(&f);
  pm_local_destroy(&f2);
  free(b0), free(b1), free(u0), free(u1), free(x), free(y0), free(y1), free(d), free(w0), free(w1);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int np;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &np);
  for (int i = 1; i < argc; i++) {
    char path[256], groups[3][64] = {"xmin", "hole", "solid"};
    const char *arg = argv[i], *colon = strchr(arg, ':');
    int dim = 0, cell = !colon                              ? -1
                        : strncmp(arg, "box:", 4) == 0      ? 0
                        : strncmp(arg, "hexbox:", 7) == 0   ? 1
                        : strncmp(arg, "prismbox:", 9) == 0 ? 2
                                                            : -1;
    snprintf(path, sizeof path, "%s", arg);
    char *at = strchr(path, '@');
    if (at) { /* PATH@G1,G2,VOL */
      *at = 0;
      EXPECT(sscanf(at + 1, "%63[^,],%63[^,],%63s", groups[0], groups[1], groups[2]) == 3, "argument %s", arg);
    }
    if (cell >= 0) { /* meshgen box N N N [--tet | --prism] */
      int64_t nn = atoll(colon + 1);
      snprintf(path, sizeof path, "fine_op_box%d_%lld.msh", cell, (long long)nn);
      pm_gen_t g = {.kind = PM_GEN_BOX,
                    .nx = nn,
                    .ny = nn,
                    .nz = nn,
                    .lx = 1,
                    .ly = 1,
                    .lz = 1,
                    .tet = cell == 0,
                    .prism = cell == 2};
      if (g_rank == 0) OK(pm_gen_save(path, &g));
      MPI_Barrier(MPI_COMM_WORLD);
      snprintf(groups[1], sizeof groups[1], "zmax");
      snprintf(groups[2], sizeof groups[2], "domain");
    }
    const char *g1 = groups[0], *g2 = groups[1], *vol = groups[2];
    pm_local_t *l0 = NULL, *l1 = NULL;
    OK(tu_part_local(path, np, g_rank, PM_PART_METIS_KWAY, PM_ADJACENCY_ELEMENT, &l0, &dim));
    snprintf(g_what, sizeof g_what, "%s K=1", argv[i]);
    compare(l0, g1, g2, vol);
    OK(pm_refine_local(MPI_COMM_WORLD, l0, &l1, NULL));
    snprintf(g_what, sizeof g_what, "%s K=2", argv[i]);
    compare(l1, g1, g2, vol);
    pm_local_destroy(&l0);
    pm_local_destroy(&l1);
  }
  long fail = 0;
  MPI_Allreduce(&g_fail, &fail, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("test_fine_op: %ld checks, %ld failed\n", g_checks, fail);
  MPI_Finalize();
  return fail ? 1 : 0;
}
