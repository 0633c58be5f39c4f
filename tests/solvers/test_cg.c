/* test_cg.c - CG with each preconditioner, run under mpiexec.
 *
 *   test_cg MESH [--halo edge]
 *
 * Every rank reads MESH, partitions it (METIS k-way, one part per rank) and builds its own local
 * mesh in memory; then FEM (or, with --halo edge, the 5-point scheme) for -lap u = f with
 * u = x^2 + y^2 (f = -4; 1D: u = x^2, f = -2) and Dirichlet values from u on `boundary`.  P1, Q1
 * and the 5-point scheme reproduce that quadratic at the nodes only up to discretisation error,
 * so the check against it is loose; the tight checks compare the preconditioners with each
 * other:
 *  - none and Jacobi (the fused diagonal path) reach rtol 1e-10 and the true residual agrees;
 *  - a user-written Jacobi through pm_pc_create (no diagonal_scaling: the general PCG path) gives
 *    the same iteration count (+-1) and the same solution (1e-8) as the built-in one: in exact
 *    arithmetic the two produce the same iterates;
 *  - its apply is called once per iteration plus once;
 *  - a preconditioner whose setup fails on one rank fails on every rank (no hang);
 *  - an indefinite preconditioner (M^-1 = -I) is reported as a breakdown, not a wrong answer. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_cg.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_op.h"
#include "pmesh/pm_part.h"
#include "pmesh/pm_pc.h"
#include "tu_check.h"
#include "tu_part.h"

/* A user-written Jacobi: no diagonal_scaling, so CG takes its general path.  It counts its
 * applies; `fail_rank` >= 0 makes setup fail there; `negate` makes M^-1 = -I (indefinite). */
typedef struct user_pc {
  int32_t n;
  double *inv;
  long applies;
  int fail_rank, negate;
} user_pc_t;

static int user_setup(void *ctx, pm_op_t *a) {
  user_pc_t *u = ctx;
  int ierr = PM_OK;
  u->n = pm_op_n(a);
  if (g_rank == u->fail_rank) ierr = pm_error_set(PM_ERR_SOLVER, __FILE__, __LINE__, "user setup fails here");
  if (!ierr) ierr = PM_MALLOC(u->inv, u->n > 0 ? u->n : 1, "user inverse diagonal");
  if (!ierr) ierr = pm_op_diagonal(a, u->inv);
  for (int32_t i = 0; !ierr && i < u->n; i++) u->inv[i] = 1.0 / u->inv[i];
  return pm_comm_agree(pm_op_comm(a), ierr);
}

static int user_apply(void *ctx, const double *r, double *z) {
  user_pc_t *u = ctx;
  for (int32_t i = 0; i < u->n; i++) z[i] = u->negate ? -r[i] : u->inv[i] * r[i];
  u->applies++;
  return PM_OK;
}

static void user_destroy(void *ctx) {
  user_pc_t *u = ctx;
  free(u->inv);
  free(u);
}

static const pm_pc_ops_t user_ops = {"user-jacobi", user_setup, user_apply, NULL, NULL, user_destroy};

static pm_pc_t *user_pc(int fail_rank, int negate, user_pc_t **state) {
  user_pc_t *u = calloc(1, sizeof *u);
  pm_pc_t *pc = NULL;
  if (!u) MPI_Abort(MPI_COMM_WORLD, 2);
  u->fail_rank = fail_rank;
  u->negate = negate;
  OK(pm_pc_create(&user_ops, u, &pc));
  *state = u;
  return pc;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int size;
  MPI_Comm_rank(comm, &g_rank);
  MPI_Comm_size(comm, &size);
  if (argc < 2) {
    if (g_rank == 0) fprintf(stderr, "usage: test_cg MESH [--halo edge]\n");
    MPI_Finalize();
    return 2;
  }
  int fdm = argc > 3 && !strcmp(argv[2], "--halo") && !strcmp(argv[3], "edge");

  /* Every rank partitions the (small) mesh the same way and keeps its own part. */
  pm_local_t *local = NULL;
  pm_adjacency_t hk = fdm ? PM_ADJACENCY_EDGE : PM_ADJACENCY_ELEMENT;
  int dim = 0;
  OK(tu_part_local(argv[1], size, g_rank, PM_PART_METIS_KWAY, hk, &local, &dim));

  pm_halo_t *halo = NULL;
  OK(pm_halo_create(comm, local, pm_exchange_default(), &halo));
  const char *exact = dim == 1 ? "x^2" : "x^2 + y^2";
  pm_problem_t *prob = NULL;
  OK(pm_problem_create(&prob));
  OK(pm_problem_set_scheme(prob, fdm ? PM_SCHEME_FDM5 : PM_SCHEME_FEM));
  OK(pm_problem_set_source(prob, NULL, pm_value_expr(dim == 1 ? "-2" : "-4")));
  OK(pm_problem_add_dirichlet(prob, "boundary", pm_value_expr(exact)));
  pm_csr_t *a = NULL;
  int32_t n = local->n_internal, np = local->n_total + local->n_aux;
  double *b = calloc((size_t)n + 1, sizeof *b), *u0 = calloc((size_t)np + 1, sizeof *u0);
  double *x[3];
  int64_t nfixed = 0;
  OK(pm_csr_create(local, fdm, &a));
  OK(pm_fem_assemble(local, prob, a, b, u0, &nfixed));
  pm_problem_destroy(&prob);
  pm_op_t *op = NULL;
  OK(pm_op_create_csr(a, halo, &op));

  pm_cg_options_t opt = {.rtol = 1e-10, .maxit = 10000};
  pm_cg_result_t res[3];
  pm_pc_t *pc[3] = {NULL, NULL, NULL};
  user_pc_t *us = NULL;
  OK(pm_pc_create_none(&pc[0]));
  OK(pm_pc_create_jacobi(&pc[1]));
  pc[2] = user_pc(-1, 0, &us);
  for (int k = 0; k < 3; k++) {
    x[k] = malloc(((size_t)np + 1) * sizeof *x[k]);
    memcpy(x[k], u0, ((size_t)np + 1) * sizeof *u0);
    OK(pm_cg_solve(op, pc[k], b, x[k], &opt, &res[k]));
    EXPECT(res[k].converged && res[k].residual < 1e-9, "%s: converged %d, true residual %g", pm_pc_name(pc[k]),
           res[k].converged, res[k].residual);
    EXPECT(pm_pc_is_setup(pc[k]), "%s: not set up by pm_cg_solve", pm_pc_name(pc[k]));
  }
  EXPECT(abs(res[1].iterations - res[2].iterations) <= 1, "Jacobi fused %d iterations, general path %d",
         res[1].iterations, res[2].iterations);
  EXPECT(us->applies == res[2].iterations + 1, "user apply called %ld times for %d iterations", us->applies,
         res[2].iterations);
  EXPECT(pm_pc_apply_count(pc[2]) == us->applies, "pm_pc_apply_count %ld, applies %ld", pm_pc_apply_count(pc[2]),
         us->applies);
  EXPECT(res[2].t_precond > 0 && res[1].t_precond == 0, "t_precond: general %g, fused %g", res[2].t_precond,
         res[1].t_precond);
  const double *s = NULL;
  EXPECT(pm_pc_diagonal_scaling(pc[1], &s) && s, "jacobi is a diagonal scaling");
  EXPECT(pm_pc_diagonal_scaling(pc[0], &s) && !s, "none is the identity scaling");
  EXPECT(!pm_pc_diagonal_scaling(pc[2], &s), "the user's preconditioner is not declared diagonal");

  /* The three solutions agree; the quadratic holds up to discretisation error. */
  double dmax = 0, emax = 0, scale = 0;
  for (int32_t i = 0; i < n; i++) {
    const double *p = local->xyz + 3 * i;
    double ex = p[0] * p[0] + (dim == 1 ? 0 : p[1] * p[1]);
    dmax = fmax(dmax, fmax(fabs(x[0][i] - x[1][i]), fabs(x[1][i] - x[2][i])));
    emax = fmax(emax, fabs(x[1][i] - ex));
    scale = fmax(scale, fabs(ex));
  }
  double v[3] = {dmax, emax, scale};
  pm_comm_allreduce(MPI_IN_PLACE, v, 3, MPI_DOUBLE, MPI_MAX, comm);
  EXPECT(v[0] <= 1e-8 * v[2], "solutions differ by %g (scale %g)", v[0], v[2]);
  EXPECT(v[1] <= 0.05 * v[2], "error against the quadratic %g (scale %g)", v[1], v[2]);

  int iters[3] = {res[0].iterations, res[1].iterations, res[2].iterations};
  /* Set-up twice is refused; a failure on one rank fails on every rank. */
  EXPECT(pm_pc_setup(pc[1], op) == PM_ERR_ARG, "a second setup is refused");
  pm_error_clear();
  user_pc_t *uf = NULL;
  pm_pc_t *bad = user_pc(size - 1, 0, &uf);
  pm_cg_t *cg = NULL;
  int ierr = pm_cg_create(op, bad, &cg);
  EXPECT(ierr != PM_OK && cg == NULL, "a failed setup on rank %d: pm_cg_create returned %d", size - 1, ierr);
  EXPECT(g_rank == size - 1 ? ierr == PM_ERR_SOLVER : ierr == PM_ERR_REMOTE, "failed setup code %d", ierr);
  pm_error_clear();
  pm_pc_destroy(&bad);
  /* M^-1 = -I: r.z < 0 at once. */
  pm_pc_t *neg = user_pc(-1, 1, &uf);
  memcpy(x[0], u0, ((size_t)np + 1) * sizeof *u0);
  ierr = pm_cg_solve(op, neg, b, x[0], &opt, &res[0]);
  EXPECT(ierr == PM_ERR_SOLVER && strstr(pm_error_message(), "user-jacobi"),
         "indefinite preconditioner: code %d, message '%s'", ierr, pm_error_message());
  pm_error_clear();
  pm_pc_destroy(&neg);

  for (int k = 0; k < 3; k++) {
    pm_pc_destroy(&pc[k]);
    free(x[k]);
  }
  pm_pc_destroy(&pc[0]); /* NULL-safe */
  pm_op_destroy(&op);
  pm_csr_destroy(&a);
  pm_halo_destroy(&halo);
  pm_local_destroy(&local);
  free(b);
  free(u0);
  int fails = g_fail > 0;
  pm_comm_allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, comm);
  if (g_rank == 0)
    printf("test_cg: %s (%d ranks, iterations none %d, jacobi %d, user %d)\n", fails ? "FAILED" : "passed", size,
           iters[0], iters[1], iters[2]);
  MPI_Finalize();
  return fails ? 1 : 0;
}
