/* test_mg.c - geometric multigrid (pm_mg.h) against AMG on refined partitions, under mpiexec.
 *
 *   test_mg MESH metis|rcb [KMAX]
 *
 * Every rank partitions MESH (one part per rank), refines it KMAX times (default 3) with
 * pm_refine_local keeping the parents, and for K = 1 .. KMAX assembles the P1/Q1 FEM problem
 * -lap u = f on the K-times refined mesh with a manufactured solution (2D u = sin(3x) cos(2y),
 * 3D u = sin(3x) cos(2y) cos(z), 1D u = sin(x/3)) and Dirichlet values from u on `boundary`.
 * Checks:
 *  - CG + MG converges to 1e-8 in at most 20 iterations for every K, and its count grows by
 *    at most 3 from K = 1 to KMAX.  A wrong prolongation breaks this: with the midpoints' and
 *    centres' weights halved, square.msh takes 29, 56, ... iterations.  (Scaling every weight
 *    alike is no test: a Galerkin cycle does not change when P is scaled.);
 *  - the MG hierarchy has K geometric levels and at least K+1 levels;
 *  - CG + MG and CG + AMG (to 1e-12) give the same solution to 1e-8 relative; MG's cycle in
 *    single precision takes within one iteration of its cycle in double;
 *  - 2D, 3D: the nodal RMS error against u falls by ~4 per refinement (order 2 +- 0.2) from
 *    K = 2 (3D: +- 0.3, as KMAX = 2 leaves one step from a coarse mesh);
 *    1D: at least that fast (P1 nodal values superconverge: the measured order is 4);
 *  - bad arguments are refused with PM_ERR_ARG, an operator of another mesh by the set-up;
 *  - the JSON view names the geometric levels.
 * Prints the iterations per K. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_amg.h"
#include "pmesh/pm_cg.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_mg.h"
#include "pmesh/pm_op.h"
#include "pmesh/pm_part.h"
#include "pmesh/pm_pc.h"
#include "pmesh/pm_refine.h"
#include "tu_check.h"
#include "tu_part.h"

enum { KMAX_LIMIT = 4 };

static double exact(int dim, const double *p) {
  return dim == 1 ? sin(p[0] / 3) : sin(3 * p[0]) * cos(2 * p[1]) * (dim == 3 ? cos(p[2]) : 1.0);
}

/* One CG solve from the Dirichlet values u0 into x. */
static pm_cg_result_t solve(pm_op_t *a, pm_pc_t *pc, const double *b, const double *u0, double *x, size_t np,
                            double rtol) {
  pm_cg_options_t opt = {.rtol = rtol, .maxit = 1000};
  pm_cg_result_t res;
  memcpy(x, u0, np * sizeof *x);
  OK(pm_cg_solve(a, pc, b, x, &opt, &res));
  return res;
}

typedef struct result {
  int it_mg, it_amg, levels;
  double rms, diff;
} result_t;

static result_t run(MPI_Comm comm, int dim, int K, pm_local_t **meshes, pm_refine_parents_t **parents) {
  result_t out = {0};
  const pm_local_t *fine = meshes[K];
  pm_halo_t *halo = NULL;
  pm_csr_t *a = NULL;
  OK(pm_halo_create(comm, fine, pm_exchange_default(), &halo));
  const char *ue = dim == 1 ? "sin(x/3)" : dim == 2 ? "sin(3*x)*cos(2*y)" : "sin(3*x)*cos(2*y)*cos(z)";
  const char *fe = dim == 1 ? "sin(x/3)/9" : dim == 2 ? "13*sin(3*x)*cos(2*y)" : "14*sin(3*x)*cos(2*y)*cos(z)";
  pm_problem_t *prob = NULL;
  OK(pm_problem_create(&prob));
  OK(pm_problem_set_source(prob, NULL, pm_value_expr(fe)));
  OK(pm_problem_add_dirichlet(prob, "boundary", pm_value_expr(ue)));
  int32_t n = fine->n_internal;
  size_t np = (size_t)fine->n_total + 1;
  double *b = calloc((size_t)n + 1, sizeof *b), *u0 = calloc(np, sizeof *u0);
  double *xm = malloc(np * sizeof *xm), *xa = malloc(np * sizeof *xa);
  int64_t nfixed = 0;
  OK(pm_csr_create(fine, 0, &a));
  OK(pm_fem_assemble(fine, prob, a, b, u0, &nfixed));
  pm_problem_destroy(&prob);
  pm_op_t *op = NULL;
  OK(pm_op_create_csr(a, halo, &op));

  pm_amg_options_t ao;
  pm_amg_options_default(&ao);
  pm_pc_t *mg = NULL, *amg = NULL;
  OK(pm_pc_create_mg(K + 1, (const pm_local_t *const *)meshes, (const pm_refine_parents_t *const *)parents, &ao, &mg));
  OK(pm_pc_create_amg(&ao, &amg));
  pm_cg_result_t rm = solve(op, mg, b, u0, xm, np, 1e-8);
  pm_cg_result_t ra = solve(op, amg, b, u0, xa, np, 1e-8);
  EXPECT(rm.converged && ra.converged, "K = %d: MG converged %d, AMG %d", K, rm.converged, ra.converged);
  /* The single cycle (the finest level's double values with float vectors, P's weights per
   * row) within an iteration of the double one. */
  pm_amg_options_t dbl = ao;
  dbl.precision = PM_AMG_DOUBLE;
  pm_pc_t *mgd = NULL;
  OK(pm_pc_create_mg(K + 1, (const pm_local_t *const *)meshes, (const pm_refine_parents_t *const *)parents, &dbl,
                     &mgd));
  pm_cg_result_t rd = solve(op, mgd, b, u0, xa, np, 1e-8);
  EXPECT(rd.converged && abs(rd.iterations - rm.iterations) <= 1, "K = %d: MG single %d iterations, double %d", K,
         rm.iterations, rd.iterations);
  pm_pc_destroy(&mgd);
  out.it_mg = rm.iterations;
  out.it_amg = ra.iterations;
  pm_amg_info_t info;
  OK(pm_mg_get_info(mg, &info));
  out.levels = info.levels;
  EXPECT(info.geometric == K && info.levels >= K + 1, "K = %d: %d levels, %d geometric", K, info.levels,
         info.geometric);
  EXPECT(info.cycles == rm.iterations + 1, "K = %d: %ld cycles for %d iterations", K, info.cycles, rm.iterations);
  if (g_rank == 0 && K == 3 && !g_fail) pm_pc_view(mg, stdout, 0);
  if (g_rank == 0 && K == 2) {
    FILE *f = tmpfile();
    char text[4096] = "";
    EXPECT(f && pm_pc_view(mg, f, 1), "no JSON view");
    if (f) {
      rewind(f);
      size_t got = fread(text, 1, sizeof text - 1, f);
      text[got] = 0;
      fclose(f);
    }
    EXPECT(strstr(text, "\"geometric\": 2") && strstr(text, "\"galerkin\""), "JSON view: %s", text);
  }
  if (K == 1) {
    /* An operator of the wrong mesh (K = 1 for a K = 2 hierarchy) is refused on every rank. */
    pm_pc_t *bad = NULL;
    OK(pm_pc_create_mg(3, (const pm_local_t *const *)meshes, (const pm_refine_parents_t *const *)parents, NULL, &bad));
    EXPECT(pm_pc_setup(bad, op) != PM_OK, "MG set up from the operator of another mesh");
    pm_error_clear();
    pm_pc_destroy(&bad);
  }
  /* The same preconditioners (set up) to a tight tolerance: the two solutions must agree. */
  solve(op, mg, b, u0, xm, np, 1e-12);
  solve(op, amg, b, u0, xa, np, 1e-12);
  double v[3] = {0, 0, 0}, e2[2] = {0, (double)n};
  for (int32_t i = 0; i < n; i++) {
    v[0] = fmax(v[0], fabs(xm[i] - xa[i]));
    v[1] = fmax(v[1], fabs(xa[i]));
    double e = xm[i] - exact(dim, fine->xyz + 3 * (size_t)i);
    e2[0] += e * e;
  }
  pm_comm_allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, comm);
  pm_comm_allreduce(MPI_IN_PLACE, e2, 2, MPI_DOUBLE, MPI_SUM, comm);
  out.diff = v[1] > 0 ? v[0] / v[1] : v[0];
  out.rms = sqrt(e2[0] / e2[1]);
  pm_pc_destroy(&mg);
  pm_pc_destroy(&amg);
  pm_op_destroy(&op);
  pm_csr_destroy(&a);
  pm_halo_destroy(&halo);
  free(b);
  free(u0);
  free(xm);
  free(xa);
  return out;
}

static void test_bad(pm_local_t **meshes, pm_refine_parents_t **parents) {
  pm_pc_t *pc = NULL;
  const pm_local_t *const *m = (const pm_local_t *const *)meshes;
  const pm_refine_parents_t *const *p = (const pm_refine_parents_t *const *)parents;
  EXPECT(pm_pc_create_mg(0, m, p, NULL, &pc) == PM_ERR_ARG && !pc, "0 meshes accepted");
  EXPECT(pm_pc_create_mg(2, m, NULL, NULL, &pc) == PM_ERR_ARG && !pc, "no parents accepted");
  const pm_refine_parents_t *swapped[2] = {parents[1], parents[0]}; /* parents[1] covers mesh 2, not 1 */
  EXPECT(pm_pc_create_mg(3, m, swapped, NULL, &pc) == PM_ERR_ARG && !pc, "parents of the wrong mesh accepted");
  pm_amg_options_t o;
  pm_amg_options_default(&o);
  o.sweeps = 0;
  EXPECT(pm_pc_create_mg(2, m, p, &o, &pc) == PM_ERR_ARG && !pc, "bad AMG options accepted");
  pm_error_clear();
  OK(pm_pc_create_amg(NULL, &pc));
  pm_amg_info_t info;
  EXPECT(pm_mg_get_info(pc, &info) == PM_ERR_ARG, "MG info of an AMG preconditioner");
  pm_error_clear();
  pm_pc_destroy(&pc);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int size;
  MPI_Comm_rank(comm, &g_rank);
  MPI_Comm_size(comm, &size);
  int kmax = argc > 3 ? atoi(argv[3]) : 3;
  if (argc < 3 || (strcmp(argv[2], "metis") && strcmp(argv[2], "rcb")) || kmax < 2 || kmax > KMAX_LIMIT) {
    if (g_rank == 0) fprintf(stderr, "usage: test_mg MESH metis|rcb [KMAX, 2..%d]\n", (int)KMAX_LIMIT);
    MPI_Finalize();
    return 2;
  }
  pm_local_t *meshes[KMAX_LIMIT + 1] = {NULL};
  pm_refine_parents_t *parents[KMAX_LIMIT] = {NULL};
  int dim = 0;
  OK(tu_part_local(argv[1], size, g_rank, strcmp(argv[2], "rcb") ? PM_PART_METIS_KWAY : PM_PART_RCB, PM_ADJACENCY_ELEMENT,
                   &meshes[0], &dim));
  for (int k = 1; k <= kmax; k++) OK(pm_refine_local(comm, meshes[k - 1], &meshes[k], &parents[k - 1]));

  test_bad(meshes, parents);
  result_t r[KMAX_LIMIT + 1];
  for (int K = 1; K <= kmax; K++) {
    r[K] = run(comm, dim, K, meshes, parents);
    if (g_rank == 0)
      printf(
          "test_mg: K = %d: %d levels, iterations to 1e-8: mg %d, amg %d; |x_mg - x_amg| / |x| = %.2e, rms error "
          "%.3e%s\n",
          K, r[K].levels, r[K].it_mg, r[K].it_amg, r[K].diff, r[K].rms, K > 1 ? "" : " (order from K = 2)");
    EXPECT(r[K].it_mg <= 20, "K = %d: MG took %d iterations (at most 20)", K, r[K].it_mg);
    EXPECT(r[K].diff <= 1e-8, "K = %d: MG and AMG solutions differ by %g relative", K, r[K].diff);
    if (K > 1) {
      double order = log2(r[K - 1].rms / r[K].rms);
      if (g_rank == 0) printf("test_mg: K = %d: order %.3f\n", K, order);
      if (dim == 2) EXPECT(K == 2 || fabs(order - 2) <= 0.2, "K = %d: order %g, not 2 +- 0.2", K, order);
      if (dim == 3) EXPECT(fabs(order - 2) <= 0.3, "K = %d: order %g, not 2 +- 0.3", K, order);
      if (dim == 1) EXPECT(order >= 1.8, "K = %d: order %g, below 2 - 0.2", K, order);
    }
  }
  EXPECT(r[kmax].it_mg <= r[1].it_mg + 3, "MG iterations grow from %d (K = 1) to %d (K = %d)", r[1].it_mg,
         r[kmax].it_mg, kmax);
  for (int k = 0; k <= kmax; k++) pm_local_destroy(&meshes[k]);
  for (int k = 0; k < kmax; k++) pm_refine_parents_destroy(&parents[k]);
  int fails = g_fail > 0;
  pm_comm_allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, comm);
  if (g_rank == 0) printf("test_mg: %s (%d ranks)\n", fails ? "FAILED" : "passed", size);
  MPI_Finalize();
  return fails ? 1 : 0;
}
