/* test_run.c - a run through the library (pm_partdir, pm_partition_load, pm_problem, pm_run),
 * with the problem defined in C, under mpiexec.
 *
 *   test_run MESH      (the unit square of triangles, groups left/right/top/bottom/boundary)
 *
 * Rank 0 partitions MESH into one part per rank with pm_partdir; every rank loads its part with
 * pm_partition_load.  Then:
 *  - a linear solution u = 1 + 2x - y with k = 2 + x (so f = -2) and the flux k du/dn = 6 on
 *    `right`: P1 FEM reproduces a linear u exactly at the nodes (its quadrature integrates the
 *    linear k and the constant f exactly), so with callbacks for k, f, the Dirichlet values, the
 *    flux and the exact solution the error is at the level of the CG tolerance;
 *  - a quadratic u = 1 + x^2 + 2y^2 with k = 1 + x + y (f = -(6 + 8x + 10y)): the max-norm and
 *    L2 errors are O(h^2) (h = 0.05: below 1e-3), and the same problem given as expression
 *    strings gives the bit-identical solution and error norms;
 *  - pm_run_error_norms on its own gives the run's error norms;
 *  - a transient run with a huge time step reaches the steady solution in two steps;
 *  - a restart from the steady result file starts at the solution (CG needs at most 1 iteration);
 *  - a missing group, a Neumann flux on an element group and a singular problem fail cleanly on
 *    every rank (pm_problem_check names the part of the problem; the singular problem is
 *    reported by rank 0 alone);
 *  - data that depend on t: u = sin(2t)(1 + x + 2y) + x - y, linear in space at every t, so the
 *    P1 semi-discrete solution is exact and the error at t = 0.4 is backward Euler's alone; with
 *    the source and the Dirichlet values as time-aware callbacks (pm_value_time_fn) the run
 *    matches the same data as strings in t, the callbacks see t up to 0.4, and the error is
 *    that of backward Euler (nonzero; its first order in dt is checked by tests/assembly/bc.sh);
 *  - a steady problem with Robin conditions on the whole boundary and no Dirichlet value is
 *    accepted (K + R is definite for h > 0) and reproduces the linear u = 1 + 2x - y with
 *    h = 2 + x and u_inf = u + (du/dn)/h on each side; a negative h, a Robin condition with fdm5,
 *    a conductivity or h in t, and a steady problem in t are refused. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fingerprint.h"
#include "pmesh/pm_h5.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_part.h"
#include "pmesh/pm_partdir.h"
#include "pmesh/pm_run.h"
#include "tu_check.h"

/* Rank 0 writes the partition of `mesh_path` into `dir` with pm_partdir, as partition does. */
static int write_partition(const char *mesh_path, int nparts, const char *dir) {
  int ierr = PM_OK;
  pm_mesh_t *mesh = NULL;
  pm_graph_t graph = {0};
  int32_t *part = NULL;
  pm_part_plan_t *plan = NULL;
  pm_local_t *local = NULL;
  pm_partdir_t *pd = NULL;
  pm_meta_t meta = {0};
  int64_t cut = 0;
  uint64_t checksum = 0;
  pm_part_options_t popt = {nparts, PM_PART_METIS_KWAY, NULL, 1, 0};
  PM_TRY(pm_mesh_read(mesh_path, &mesh, &checksum));
  PM_TRY(pm_graph_build(mesh, PM_ADJACENCY_ELEMENT, &graph));
  PM_TRY(PM_MALLOC(part, mesh->n_nodes, "parts"));
  PM_TRY(pm_part_compute(mesh, &graph, &popt, part, &cut));
  PM_TRY(pm_part_plan_create(mesh, &graph, PM_ADJACENCY_ELEMENT, part, nparts, &plan));
  uint64_t fp = 0x1234567ull + (uint64_t)nparts;
  PM_TRY(pm_partdir_create(dir, &pd));
  for (int r = 0; r < nparts; r++) {
    PM_TRY(pm_part_local(plan, r, fp, &local));
    PM_TRY(pm_partdir_write_local(pd, r, &local));
  }
  static char source[] = "test", method[] = "metis", halo[] = "element";
  meta = (pm_meta_t){PM_META_VERSION,
                     nparts,
                     mesh->dim,
                     mesh->n_nodes,
                     mesh->n_elems,
                     source,
                     checksum,
                     method,
                     halo,
                     1,
                     0,
                     fp,
                     mesh->n_groups,
                     NULL,
                     NULL,
                     1,
                     pm_fingerprint_mesh(mesh),
                     0 /* not refined */,
                     0,
                     0,
                     0,
                     0};
  PM_TRY(PM_MALLOC(meta.group_name, mesh->n_groups, "group names"));
  PM_TRY(PM_MALLOC(meta.group_dim, mesh->n_groups, "group dims"));
  for (int g = 0; g < mesh->n_groups; g++) {
    meta.group_name[g] = mesh->groups[g].name;
    meta.group_dim[g] = mesh->groups[g].dim;
  }
  PM_TRY(pm_partdir_write_meta(pd, &meta));
  PM_TRY(pm_partdir_commit(pd));
cleanup:
  pm_partdir_destroy(&pd);
  free(meta.group_name);
  free(meta.group_dim);
  pm_local_destroy(&local);
  pm_part_plan_destroy(&plan);
  free(part);
  pm_graph_free(&graph);
  pm_mesh_destroy(&mesh);
  return ierr;
}

/* The problems' values as callbacks; ctx counts the calls (so we know the callbacks ran). */
static double lin_u(const double x[3], void *ctx) {
  ++*(long *)ctx;
  return 1.0 + 2.0 * x[0] - x[1];
}
static double lin_k(const double x[3], void *ctx) {
  ++*(long *)ctx;
  return 2.0 + x[0];
}
static double lin_f(const double x[3], void *ctx) {
  (void)x;
  ++*(long *)ctx;
  return -2.0;
}
static double lin_flux(const double x[3], void *ctx) { /* k du/dn on x = 1: (2 + x) 2 */
  ++*(long *)ctx;
  return (2.0 + x[0]) * 2.0;
}
/* The quadratic, written with the operations libmatheval performs for the strings below. */
static double quad_u(const double x[3], void *ctx) {
  (void)ctx;
  return 1 + pow(x[0], 2) + 2 * pow(x[1], 2);
}
static double quad_k(const double x[3], void *ctx) {
  (void)ctx;
  return 1 + x[0] + x[1];
}
static double quad_f(const double x[3], void *ctx) {
  (void)ctx;
  return -(6 + 8 * x[0] + 10 * x[1]);
}

/* u = sin(2t)(1 + x + 2y) + x - y and its source, as time-aware callbacks in the operation order
 * libmatheval uses for the strings of section 6; ctx holds the largest t seen. */
static double tdep_u(const double x[3], double t, void *ctx) {
  double *tmax = ctx;
  if (t > *tmax) *tmax = t;
  return sin(2 * t) * (1 + x[0] + 2 * x[1]) + x[0] - x[1];
}
static double tdep_f(const double x[3], double t, void *ctx) {
  double *tmax = ctx;
  if (t > *tmax) *tmax = t;
  return 2 * cos(2 * t) * (1 + x[0] + 2 * x[1]);
}

/* Section 6: a transient run of u = sin(2t)(1 + x + 2y) + x - y to t = 0.4 in `steps` steps. */
static void run_tdep(const pm_partition_t *part, pm_value_t f, pm_value_t g, int steps, double *u,
                     pm_run_result_t *res) {
  pm_problem_t *prob = NULL;
  pm_pc_t *pc = NULL;
  OK(pm_problem_create(&prob));
  OK(pm_problem_set_source(prob, NULL, f));
  OK(pm_problem_add_dirichlet(prob, "boundary", g));
  pm_run_options_t o = pm_run_options_default();
  o.cg.rtol = 1e-13;
  o.dt = 0.4 / steps;
  o.steps = steps;
  o.initial.value = g;
  o.exact = pm_value_expr("sin(2*t)*(1+x+2*y)+x-y");
  OK(pm_pc_create_jacobi(&pc));
  OK(pm_run_transient(part, prob, pc, &o, u, res));
  pm_pc_destroy(&pc);
  pm_problem_destroy(&prob);
}

int main(int argc, char **argv) {
  int provided;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int size;
  MPI_Comm_rank(comm, &g_rank);
  MPI_Comm_size(comm, &size);
  if (argc < 2) {
    if (g_rank == 0) fprintf(stderr, "usage: test_run MESH\n");
    MPI_Finalize();
    return 2;
  }
  char dir[256], out[256];
  snprintf(dir, sizeof dir, "test_run.part.%d", size);
  snprintf(out, sizeof out, "test_run.%d.h5", size);
  int ierr = g_rank == 0 ? write_partition(argv[1], size, dir) : PM_OK;
  OK(pm_comm_agree(comm, ierr));

  pm_partition_t *part = NULL;
  OK(pm_partition_load(comm, dir, pm_exchange_default(), &part));
  EXPECT(part->size == size && part->meta->nparts == size && part->local->rank == g_rank, "loaded partition");
  int32_t nt = part->local->n_total + part->local->n_aux, n = part->local->n_internal;
  double *u = calloc((size_t)nt + 1, sizeof *u), *v = calloc((size_t)nt + 1, sizeof *v);
  double *w = calloc((size_t)nt + 1, sizeof *w);
  pm_pc_t *pc = NULL;
  pm_run_result_t res, res2;
  pm_run_options_t opt = pm_run_options_default();
  opt.cg.rtol = 1e-12;

  /* 1. The linear solution, every value a callback. */
  long calls[5] = {0, 0, 0, 0, 0};
  pm_problem_t *prob = NULL;
  OK(pm_problem_create(&prob));
  OK(pm_problem_set_source(prob, NULL, pm_value_fn(lin_f, &calls[0])));
  OK(pm_problem_set_conductivity(prob, NULL, pm_value_fn(lin_k, &calls[1])));
  for (int s = 0; s < 3; s++)
    OK(pm_problem_add_dirichlet(prob, (const char *[]){"left", "bottom", "top"}[s], pm_value_fn(lin_u, &calls[2])));
  OK(pm_problem_add_neumann(prob, "right", pm_value_fn(lin_flux, &calls[3])));
  pm_problem_item_t bad = PM_PROBLEM_SOURCE;
  OK(pm_problem_check(prob, part->meta, &bad));
  EXPECT(bad == PM_PROBLEM_NONE, "check: bad part %d", (int)bad);
  opt.exact = pm_value_fn(lin_u, &calls[4]);
  OK(pm_pc_create_jacobi(&pc));
  OK(pm_run_steady(part, prob, pc, &opt, u, &res));
  EXPECT(res.converged && res.has_error, "linear: converged %d, error computed %d", res.converged, res.has_error);
  EXPECT(res.error_max < 1e-9, "linear: max error %g: P1 reproduces a linear solution", res.error_max);
  EXPECT(res.unknowns == part->meta->global_nodes, "unknowns %lld, mesh nodes %lld", (long long)res.unknowns,
         (long long)part->meta->global_nodes);
  EXPECT(fabs(res.u_min - 0.0) < 1e-9 && fabs(res.u_max - 3.0) < 1e-9, "linear: min %g max %g, expected 0 and 3",
         res.u_min, res.u_max);
  EXPECT(calls[1] > 0 && calls[2] > 0 && calls[4] >= n && (calls[0] > 0 || part->local->n_elems == 0),
         "callbacks ran: f %ld, k %ld, g %ld, flux %ld, exact %ld", calls[0], calls[1], calls[2], calls[3], calls[4]);
  pm_pc_destroy(&pc);
  pm_problem_destroy(&prob);

  /* 2. The quadratic, as callbacks and as strings: identical bits. */
  pm_problem_t *pq[2] = {NULL, NULL};
  OK(pm_problem_create(&pq[0]));
  OK(pm_problem_set_source(pq[0], NULL, pm_value_fn(quad_f, NULL)));
  OK(pm_problem_set_conductivity(pq[0], NULL, pm_value_fn(quad_k, NULL)));
  OK(pm_problem_add_dirichlet(pq[0], "boundary", pm_value_fn(quad_u, NULL)));
  OK(pm_problem_create(&pq[1]));
  OK(pm_problem_set_source(pq[1], NULL, pm_value_expr("-(6 + 8*x + 10*y)")));
  OK(pm_problem_set_conductivity(pq[1], NULL, pm_value_expr("1 + x + y")));
  OK(pm_problem_add_dirichlet(pq[1], "boundary", pm_value_expr("1 + x^2 + 2*y^2")));
  opt.exact = pm_value_fn(quad_u, NULL);
  opt.output = out;
  OK(pm_pc_create_jacobi(&pc));
  OK(pm_run_steady(part, pq[0], pc, &opt, u, &res));
  pm_pc_destroy(&pc);
  opt.exact = pm_value_expr("1 + x^2 + 2*y^2");
  opt.output = NULL;
  OK(pm_pc_create_jacobi(&pc));
  OK(pm_run_steady(part, pq[1], pc, &opt, v, &res2));
  pm_pc_destroy(&pc);
  EXPECT(res.converged && res.error_max > 0 && res.error_max < 1e-3 && res.error_l2 < 1e-3,
         "quadratic: max error %g, L2 %g: O(h^2) with h = 0.05 is below 1e-3", res.error_max, res.error_l2);
  EXPECT(memcmp(u, v, (size_t)n * sizeof *u) == 0, "callbacks and strings give different solutions");
  EXPECT(res.error_max == res2.error_max && res.error_l2 == res2.error_l2 && res.cg.iterations == res2.cg.iterations,
         "callbacks: error %.17g %.17g, %d iterations; strings: %.17g %.17g, %d iterations", res.error_max,
         res.error_l2, res.cg.iterations, res2.error_max, res2.error_l2, res2.cg.iterations);
  EXPECT(g_rank != 0 || res.output_bytes > 0, "no result file written (%lld bytes)", (long long)res.output_bytes);
  double emax = -1, el2 = -1;
  OK(pm_run_error_norms(part, u, pm_value_fn(quad_u, NULL), NULL, &emax, &el2));
  EXPECT(emax == res.error_max && el2 == res.error_l2, "pm_run_error_norms: %g %g, run: %g %g", emax, el2,
         res.error_max, res.error_l2);

  /* 3. Transient with a huge step: (M/dt + K) u = M u^n / dt + f is the steady problem. */
  pm_run_options_t topt = pm_run_options_default();
  topt.cg.rtol = 1e-12;
  topt.dt = 1e12;
  topt.steps = 2;
  topt.initial.value = pm_value_expr("1");
  OK(pm_pc_create_jacobi(&pc));
  OK(pm_run_transient(part, pq[0], pc, &topt, w, &res2));
  pm_pc_destroy(&pc);
  double dmax = 0;
  for (int32_t i = 0; i < n; i++) dmax = fmax(dmax, fabs(w[i] - u[i]));
  EXPECT(res2.converged && res2.steps_done == 2 && dmax < 1e-8, "transient: converged %d, %d steps, |u - steady| %g",
         res2.converged, res2.steps_done, dmax);

  /* 4. A restart from the steady result: CG starts at the solution. */
  pm_run_options_t ropt = opt;
  ropt.initial.file = out;
  OK(pm_pc_create_jacobi(&pc));
  OK(pm_run_steady(part, pq[0], pc, &ropt, w, &res2));
  pm_pc_destroy(&pc);
  EXPECT(res2.converged && res2.cg.iterations <= 1, "restart from the solution: %d iterations", res2.cg.iterations);

  /* 5. Failures: agreed on every rank, named. */
  pm_problem_t *pb = NULL;
  OK(pm_problem_create(&pb));
  OK(pm_problem_add_dirichlet(pb, "nosuch", pm_value_expr("0")));
  ierr = pm_problem_check(pb, part->meta, &bad);
  EXPECT(ierr == PM_ERR_ARG && bad == PM_PROBLEM_DIRICHLET && strstr(pm_error_message(), "no group 'nosuch'"),
         "check of a missing group: %d, part %d, '%s'", ierr, (int)bad, pm_error_message());
  pm_error_clear();
  ierr = pm_run_steady(part, pb, NULL, &opt, w, &res2);
  EXPECT(ierr == PM_ERR_ARG || ierr == PM_ERR_REMOTE, "missing group: %d", ierr);
  pm_error_clear();
  pm_problem_destroy(&pb);
  OK(pm_problem_create(&pb));
  OK(pm_problem_add_neumann(pb, "domain", pm_value_expr("1")));
  ierr = pm_problem_check(pb, part->meta, &bad);
  EXPECT(ierr == PM_ERR_ARG && bad == PM_PROBLEM_NEUMANN && strstr(pm_error_message(), "fluxes go on 1D"),
         "check of a flux on an element group: %d, part %d, '%s'", ierr, (int)bad, pm_error_message());
  pm_error_clear();
  pm_problem_destroy(&pb);
  OK(pm_problem_create(&pb));
  OK(pm_problem_add_neumann(pb, "right", pm_value_expr("1")));
  ierr = pm_run_steady(part, pb, NULL, &opt, w, &res2);
  EXPECT(g_rank == 0 ? ierr == PM_ERR_ARG && strstr(pm_error_message(), "singular") : ierr == PM_ERR_REMOTE,
         "singular problem: %d '%s'", ierr, pm_error_message());
  pm_error_clear();
  pm_problem_destroy(&pb);

  /* 6. Data in t: callbacks and strings, first order in dt. */
  double tmax[2] = {-1, -1};
  pm_value_time_t tf = {tdep_f, &tmax[0]}, tg = {tdep_u, &tmax[1]};
  EXPECT(pm_value_depends_on_time(pm_value_time_fn(&tg)) && !pm_value_depends_on_time(pm_value_fn(quad_u, NULL)) &&
             pm_value_depends_on_time(pm_value_expr("x*t")) && !pm_value_depends_on_time(pm_value_expr("x*y")),
         "pm_value_depends_on_time");
  EXPECT(pm_value_time_eval((const double[3]){1, 2, 0}, &tg) == 1 - 2, "pm_value_time_eval is not u at t = 0");
  tmax[1] = -1;
  pm_run_result_t rt[2];
  run_tdep(part, pm_value_time_fn(&tf), pm_value_time_fn(&tg), 4, u, &rt[0]);
  EXPECT(tmax[0] > 0.4 - 1e-12 && tmax[0] < 0.4 + 1e-12 && tmax[1] > 0.4 - 1e-12 && tmax[1] < 0.4 + 1e-12,
         "time-aware callbacks saw t up to %.17g (source) and %.17g (Dirichlet), expected 0.4", tmax[0], tmax[1]);
  run_tdep(part, pm_value_expr("2*cos(2*t)*(1+x+2*y)"), pm_value_expr("sin(2*t)*(1+x+2*y)+x-y"), 4, v, &rt[1]);
  double dcb = 0;
  for (int32_t i = 0; i < n; i++) dcb = fmax(dcb, fabs(u[i] - v[i]));
  EXPECT(dcb < 1e-12, "time-aware callbacks and strings in t differ by %g", dcb);
  /* Backward Euler's error at dt = 0.1: of order dt max |u_tt| / 2 = 0.2, reduced by the decay of
   * the diffusion; neither 0 (space is exact, so the time stepping is all there is) nor large. */
  EXPECT(rt[0].converged && rt[0].error_max > 1e-3 && rt[0].error_max < 0.1 &&
             fabs(rt[0].error_max - rt[1].error_max) <= 1e-9 * rt[1].error_max,
         "data in t: max errors %g (callbacks) and %g (strings)", rt[0].error_max, rt[1].error_max);

  /* 7. Robin on the whole boundary, no Dirichlet value: accepted, exact for a linear u. */
  OK(pm_problem_create(&pb));
  OK(pm_problem_add_robin(pb, "left", pm_value_expr("2+x"), pm_value_expr("1+2*x-y-2/(2+x)")));
  OK(pm_problem_add_robin(pb, "right", pm_value_expr("2+x"), pm_value_expr("1+2*x-y+2/(2+x)")));
  OK(pm_problem_add_robin(pb, "bottom", pm_value_expr("2+x"), pm_value_expr("1+2*x-y+1/(2+x)")));
  OK(pm_problem_add_robin(pb, "top", pm_value_expr("2+x"), pm_value_expr("1+2*x-y-1/(2+x)")));
  OK(pm_problem_check(pb, part->meta, &bad));
  EXPECT(pm_problem_n_robin(pb) == 4 && pm_problem_n_dirichlet(pb) == 0, "Robin conditions: %d",
         pm_problem_n_robin(pb));
  opt.exact = pm_value_expr("1+2*x-y");
  OK(pm_pc_create_jacobi(&pc));
  OK(pm_run_steady(part, pb, pc, &opt, w, &res2));
  pm_pc_destroy(&pc);
  EXPECT(res2.converged && res2.fixed == 0 && res2.error_max < 1e-9,
         "pure Robin: converged %d, %lld fixed, max error %g (P1 reproduces a linear u)", res2.converged,
         (long long)res2.fixed, res2.error_max);
  pm_problem_destroy(&pb);
  OK(pm_problem_create(&pb));
  ierr = pm_problem_add_robin(pb, "top", pm_value_expr("-1"), pm_value_expr("0"));
  EXPECT(ierr == PM_ERR_ARG && strstr(pm_error_message(), "h must be >= 0"), "constant h < 0: %d '%s'", ierr,
         pm_error_message());
  pm_error_clear();
  OK(pm_problem_add_dirichlet(pb, "left", pm_value_expr("0")));
  OK(pm_problem_add_robin(pb, "top", pm_value_expr("x-0.5"), pm_value_expr("0")));
  ierr = pm_run_steady(part, pb, NULL, &opt, w, &res2);
  EXPECT(ierr == PM_ERR_ARG || ierr == PM_ERR_REMOTE, "h < 0 on part of 'top': %d", ierr);
  pm_error_clear();
  OK(pm_problem_set_scheme(pb, PM_SCHEME_FDM5));
  ierr = pm_problem_check(pb, part->meta, &bad);
  EXPECT(ierr == PM_ERR_ARG && bad == PM_PROBLEM_ROBIN && strstr(pm_error_message(), "no Robin condition"),
         "Robin with fdm5: %d, part %d, '%s'", ierr, (int)bad, pm_error_message());
  pm_error_clear();
  pm_problem_destroy(&pb);
  OK(pm_problem_create(&pb));
  OK(pm_problem_add_robin(pb, "top", pm_value_expr("1+t"), pm_value_expr("0")));
  ierr = pm_problem_check(pb, part->meta, &bad);
  EXPECT(ierr == PM_ERR_ARG && bad == PM_PROBLEM_ROBIN && strstr(pm_error_message(), "depends on the time t"),
         "h in t: %d, part %d, '%s'", ierr, (int)bad, pm_error_message());
  pm_error_clear();
  pm_problem_destroy(&pb);
  OK(pm_problem_create(&pb));
  OK(pm_problem_add_dirichlet(pb, "boundary", pm_value_time_fn(&tg)));
  EXPECT(pm_problem_depends_on_time(pb, &bad) && bad == PM_PROBLEM_DIRICHLET, "Dirichlet in t: part %d", (int)bad);
  ierr = pm_run_steady(part, pb, NULL, &opt, w, &res2);
  EXPECT(g_rank == 0 ? ierr == PM_ERR_ARG && strstr(pm_error_message(), "only a transient run") : ierr == PM_ERR_REMOTE,
         "steady problem in t: %d '%s'", ierr, pm_error_message());
  pm_error_clear();
  pm_problem_destroy(&pb);

  pm_problem_destroy(&pq[0]);
  pm_problem_destroy(&pq[1]);
  pm_partition_destroy(&part);
  EXPECT(part == NULL, "pm_partition_destroy sets NULL");
  free(u);
  free(v);
  free(w);
  int fail = g_fail > 0;
  MPI_Allreduce(MPI_IN_PLACE, &fail, 1, MPI_INT, MPI_MAX, comm);
  if (g_rank == 0) printf("test_run: %s on %d ranks\n", fail ? "FAILED" : "passed", size);
  MPI_Finalize();
  return fail ? EXIT_FAILURE : EXIT_SUCCESS;
}
