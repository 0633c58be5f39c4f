/* test_run_refine.c - pm_partition_refine, pm_partition_create_mg and pm_partition_dump (pm_run.h)
 * on a partition directory written by `partition` (one part per rank), under mpiexec.
 *
 *   test_run_refine PARTDIR OUTDIR
 *
 * Checks:
 *  - an unrefined partition has no multigrid levels (PM_ERR_ARG); a negative count, too little
 *    memory (PMESH_REFINE_MEMORY) and keeping levels after a refinement that did not keep them
 *    are refused on every rank and leave the partition as it was;
 *  - refining once without keeping the levels gives the local mesh pm_refine gives (sizes and
 *    global ids), the metadata of pm_refine_meta (counts summed over the ranks, partition
 *    fingerprint pm_refine_fingerprint of the loaded one, the mesh fingerprint);
 *  - 1 + 1 refinements keeping the levels equal 2 at once: the same meshes, levels, parents;
 *    level_mesh[levels] is local and level_mesh[0] the partition as loaded;
 *  - CG + the partition's MG and CG + AMG solve the same problem on it to the same solution,
 *    MG in at most 15 iterations; MG with Galerkin coarse operators and MG that took the
 *    levels over (pm_partition_take_mg: the partition keeps none, a second take is refused)
 *    give that solution in as many iterations, and their views say which coarse operators;
 *  - a dump loads back as a partition with the refined mesh and the refined metadata;
 *  - a run that releases the elements keeps them when it has an exact solution to compare
 *    with, else gives the same solution and result file and leaves the mesh its nodes and
 *    tables only, on which a further run and every sum over the elements are refused. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"
#include "pmesh/pm_h5.h"
#include "pmesh/pm_h5_read.h"
#include "pmesh/pm_mg.h"
#include "pmesh/pm_run.h"
#include "tu_check.h"

static pm_partition_t *load(MPI_Comm comm, const char *dir) {
  pm_partition_t *p = NULL;
  OK(pm_partition_load(comm, dir, pm_exchange_default(), &p));
  return p;
}

/* The same mesh: sizes and global ids of every node. */
static int same_local(const pm_local_t *a, const pm_local_t *b) {
  return a->n_internal == b->n_internal && a->n_total == b->n_total && a->n_elems == b->n_elems &&
         memcmp(a->gid, b->gid, (size_t)a->n_total * sizeof *a->gid) == 0 &&
         memcmp(a->xyz, b->xyz, 3 * (size_t)a->n_total * sizeof *a->xyz) == 0;
}

/* A refusal: every rank fails, and the partition keeps its mesh, metadata and levels. */
static void refused(pm_partition_t *p, int levels, int keep, const char *what) {
  const pm_local_t *local = p->local;
  const pm_meta_t *meta = p->meta;
  int before = p->levels;
  pm_error_clear();
  int ierr = pm_partition_refine(p, levels, keep);
  EXPECT(ierr != PM_OK, "%s: accepted", what);
  EXPECT(p->local == local && p->meta == meta && p->levels == before, "%s: the partition changed", what);
  if (g_rank == 0 && ierr != PM_ERR_REMOTE) printf("refused as it should be (%s): %s\n", what, pm_error_message());
}

/* -lap u = 1 with u = 0 on the boundary: solution and iterations with pc, from opt's options. */
static int solve_with(const pm_partition_t *p, pm_pc_t *pc, double *u, pm_run_options_t opt) {
  pm_problem_t *prob = NULL;
  pm_run_result_t res;
  opt.cg.rtol = 1e-12;
  OK(pm_problem_create(&prob));
  OK(pm_problem_set_source(prob, NULL, pm_value_expr("1")));
  OK(pm_problem_add_dirichlet(prob, "boundary", pm_value_expr("0")));
  OK(pm_run_steady(p, prob, pc, &opt, u, &res));
  pm_problem_destroy(&prob);
  EXPECT(res.converged, "CG + %s did not converge", pm_pc_name(pc));
  return res.cg.iterations;
}

static int solve(const pm_partition_t *p, pm_pc_t *pc, double *u) {
  return solve_with(p, pc, u, pm_run_options_default());
}

/* A run that may release the elements (pm_run_options_t.release_elements): with an exact
 * solution it keeps them; without, the same solution and its result file, with the partition's
 * mesh left its nodes and tables only, on which a further run is refused. */
static void released(MPI_Comm comm, pm_partition_t *c, const pm_partition_t *back, const double *um, const char *dir) {
  size_t nt = (size_t)c->local->n_total + 1;
  double *u = calloc(nt, sizeof *u), *w = calloc(nt, sizeof *w), d[2] = {0, 0};
  char h5[4200];
  snprintf(h5, sizeof h5, "%s/released.h5", dir);
  pm_pc_t *pc = NULL;
  pm_amg_options_t ao;
  pm_amg_options_default(&ao);
  pm_run_options_t opt = pm_run_options_default();
  opt.release_elements = 1;
  opt.exact = pm_value_expr("0");
  int32_t ne = c->local->n_elems;
  OK(pm_pc_create_amg(&ao, &pc));
  solve_with(c, pc, u, opt);
  pm_pc_destroy(&pc);
  EXPECT(c->local->n_elems == ne && c->local->has_mesh && c->local->elem_owner, "elements released with --exact");
  opt.exact = (pm_value_t){0};
  opt.output = h5;
  OK(pm_pc_create_amg(&ao, &pc));
  solve_with(c, pc, u, opt);
  pm_pc_destroy(&pc);
  EXPECT(c->local->n_elems == 0 && !c->local->has_mesh && !c->local->elem_node && !c->local->elem_owner &&
             c->local->gid && c->local->xyz && c->local->import_index,
         "the elements were not released, or more than they");
  OK(pm_h5_read_field(comm, back->local, back->meta, h5, "u", -1, w));
  for (int32_t i = 0; i < c->local->n_internal; i++) {
    d[0] = fmax(d[0], fmax(fabs(u[i] - um[i]), fabs(w[i] - um[i])));
    d[1] = fmax(d[1], fabs(um[i]));
  }
  MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_MAX, comm);
  EXPECT(d[0] <= 1e-9 * d[1], "after releasing the elements the solution or its file differs by %g", d[0]);
  OK(pm_pc_create_amg(&ao, &pc));
  pm_run_result_t res;
  pm_problem_t *prob = NULL;
  OK(pm_problem_create(&prob));
  pm_error_clear();
  EXPECT(pm_run_steady(c, prob, pc, &opt, u, &res) != PM_OK && strstr(pm_error_message(), "pm_local_release"),
         "a run on a mesh without elements was accepted, or its message is: %s", pm_error_message());
  if (g_rank == 0) printf("a mesh without its elements is refused: %s\n", pm_error_message());
  pm_error_clear();
  /* Every sum over the elements refuses it too, rather than sum nothing. */
  EXPECT(pm_fem_load(c->local, prob, 0.0, u) == PM_ERR_ARG && pm_fem_node_weights(c->local, u) == PM_ERR_ARG &&
             strstr(pm_error_message(), "pm_local_release"),
         "a sum over the released elements was accepted: %s", pm_error_message());
  pm_error_clear();
  pm_problem_destroy(&prob);
  pm_pc_destroy(&pc);
  free(u);
  free(w);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  MPI_Comm_rank(comm, &g_rank);
  if (argc != 3) {
    if (g_rank == 0) fprintf(stderr, "usage: test_run_refine PARTDIR OUTDIR\n");
    MPI_Finalize();
    return 2;
  }
  pm_partition_t *a = load(comm, argv[1]), *b = load(comm, argv[1]), *c = load(comm, argv[1]);
  pm_pc_t *pc = NULL;
  uint64_t fp0 = a->meta->fingerprint;

  /* Refusals. */
  EXPECT(pm_partition_create_mg(a, NULL, &pc) == PM_ERR_ARG && !pc, "multigrid on an unrefined partition");
  refused(a, -1, 0, "-1 levels");
  setenv("PMESH_REFINE_MEMORY", "1000", 1);
  refused(a, 2, 1, "2 levels in 1000 bytes");
  unsetenv("PMESH_REFINE_MEMORY");

  /* Once, without the levels: pm_refine's mesh, pm_refine_meta's metadata. */
  char path[4400];
  pm_local_t *ref = NULL;
  OK(pm_local_path(argv[1], g_rank, path, sizeof path));
  OK(pm_local_read(path, g_rank, &ref));
  OK(pm_refine(comm, 1, &ref));
  OK(pm_partition_refine(a, 1, 0));
  EXPECT(a->levels == 1 && !a->level_mesh && !a->level_parents, "1 level not kept: levels %d", a->levels);
  EXPECT(same_local(a->local, ref), "pm_partition_refine's mesh differs from pm_refine's");
  int64_t mine[2] = {a->local->n_internal, 0}, all[2];
  for (int32_t e = 0; e < a->local->n_elems; e++) mine[1] += a->local->elem_owner[e] == g_rank;
  MPI_Allreduce(mine, all, 2, MPI_INT64_T, MPI_SUM, comm);
  EXPECT(a->meta->global_nodes == all[0] && a->meta->global_elems == all[1],
         "metadata: %lld nodes, %lld elements; the ranks own %lld, %lld", (long long)a->meta->global_nodes,
         (long long)a->meta->global_elems, (long long)all[0], (long long)all[1]);
  EXPECT(a->meta->fingerprint == pm_refine_fingerprint(fp0) && a->local->fingerprint == a->meta->fingerprint,
         "partition fingerprint");
  EXPECT(a->meta->has_mesh_fingerprint && a->meta->mesh_fingerprint != b->meta->mesh_fingerprint,
         "the refined mesh's fingerprint");
  EXPECT(pm_halo_n_total(a->halo) == a->local->n_total, "the halo is the refined mesh's");
  refused(a, 1, 1, "keeping levels after a refinement without them");
  EXPECT(pm_partition_create_mg(a, NULL, &pc) == PM_ERR_ARG && !pc, "multigrid without kept levels");

  /* 1 + 1 kept levels equal 2 at once. */
  OK(pm_partition_refine(b, 1, 1));
  OK(pm_partition_refine(b, 1, 1));
  OK(pm_partition_refine(c, 2, 1));
  EXPECT(b->levels == 2 && c->levels == 2 && b->level_mesh[2] == b->local && c->level_mesh[2] == c->local,
         "kept levels: %d and %d", b->levels, c->levels);
  for (int k = 0; k <= 2; k++) EXPECT(same_local(b->level_mesh[k], c->level_mesh[k]), "level %d differs", k);
  EXPECT(same_local(b->level_mesh[1], a->local), "level 1 is not the mesh refined once");
  EXPECT(b->level_mesh[0]->fingerprint == fp0, "level 0 is not the partition as loaded");
  for (int k = 0; k < 2; k++) {
    const pm_refine_parents_t *x = b->level_parents[k], *y = c->level_parents[k];
    EXPECT(x->n == y->n && x->n == b->level_mesh[k + 1]->n_total + b->level_mesh[k + 1]->n_aux &&
               memcmp(x->ptr, y->ptr, ((size_t)x->n + 1) * sizeof *x->ptr) == 0 &&
               memcmp(x->node, y->node, (size_t)x->ptr[x->n] * sizeof *x->node) == 0,
           "parents of level %d", k + 1);
  }
  EXPECT(b->meta->mesh_fingerprint == c->meta->mesh_fingerprint && b->meta->global_nodes == c->meta->global_nodes,
         "metadata of 1 + 1 and 2 levels");

  /* MG over the kept levels against AMG. */
  size_t nt = (size_t)c->local->n_total + 1;
  double *um = calloc(nt, sizeof *um), *ua = calloc(nt, sizeof *ua);
  OK(pm_partition_create_mg(c, NULL, &pc));
  int it_mg = solve(c, pc, um);
  pm_pc_destroy(&pc);
  OK(pm_pc_create_amg(NULL, &pc));
  solve(c, pc, ua);
  pm_pc_destroy(&pc);
  double d[2] = {0, 0};
  for (int32_t i = 0; i < c->local->n_internal; i++) {
    d[0] = fmax(d[0], fabs(um[i] - ua[i]));
    d[1] = fmax(d[1], fabs(ua[i]));
  }
  MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_MAX, comm);
  EXPECT(d[1] > 0 && d[0] <= 1e-9 * d[1], "MG and AMG solutions differ by %g (max |u| %g)", d[0], d[1]);
  EXPECT(it_mg <= 15, "CG + MG took %d iterations", it_mg);
  if (g_rank == 0) printf("2 levels: CG + MG %d iterations, |u_mg - u_amg| %.2e\n", it_mg, d[0]);

  /* Galerkin coarse operators: the same solution in as many iterations (the rediscretised ones
   * are the same matrices here); then the levels handed over, freed by the set-up. */
  double *ug = calloc(nt, sizeof *ug);
  OK(pm_partition_create_mg(c, NULL, &pc));
  OK(pm_mg_set_coarse(pc, PM_MG_COARSE_GALERKIN));
  int it_g = solve(c, pc, ug);
  char view[4096] = "";
  FILE *vf = fmemopen(view, sizeof view - 1, "w");
  if (vf) {
    pm_pc_view(pc, vf, 1);
    fclose(vf);
  }
  EXPECT(strstr(view, "\"coarse_operators\": \"galerkin\""), "the view of a Galerkin MG: %s", view);
  pm_pc_destroy(&pc);
  EXPECT(pm_mg_set_coarse(pc, PM_MG_COARSE_GALERKIN) == PM_ERR_ARG, "pm_mg_set_coarse without a preconditioner");
  OK(pm_partition_take_mg(c, NULL, &pc));
  EXPECT(!c->level_mesh && !c->level_parents && c->levels == 2 && c->local, "the levels were not handed over");
  pm_pc_t *again = NULL;
  EXPECT(pm_partition_take_mg(c, NULL, &again) == PM_ERR_ARG && !again, "the levels handed over twice");
  int it_t = solve(c, pc, ua);
  vf = fmemopen(view, sizeof view - 1, "w");
  if (vf) {
    pm_pc_view(pc, vf, 1);
    fclose(vf);
  }
  EXPECT(strstr(view, "\"coarse_operators\": \"rediscretized\""), "the view of a rediscretised MG: %s", view);
  pm_pc_destroy(&pc);
  d[0] = d[1] = 0;
  for (int32_t i = 0; i < c->local->n_internal; i++) {
    d[0] = fmax(d[0], fmax(fabs(ug[i] - um[i]), fabs(ua[i] - um[i])));
    d[1] = fmax(d[1], fabs(um[i]));
  }
  MPI_Allreduce(MPI_IN_PLACE, d, 2, MPI_DOUBLE, MPI_MAX, comm);
  EXPECT(d[0] <= 1e-9 * d[1] && it_g == it_mg && it_t == it_mg,
         "Galerkin / handed-over MG: %d / %d iterations (rediscretised %d), solutions differ by %g", it_g, it_t, it_mg,
         d[0]);
  free(ug);

  /* A dump loads back as the refined partition. */
  OK(pm_partition_dump(c, argv[2]));
  pm_partition_t *back = load(comm, argv[2]);
  EXPECT(same_local(back->local, c->local) && back->meta->fingerprint == c->meta->fingerprint &&
             back->meta->mesh_fingerprint == c->meta->mesh_fingerprint &&
             back->meta->global_nodes == c->meta->global_nodes,
         "the dump loads back otherwise");
  released(comm, c, back, um, argv[2]);

  pm_partition_destroy(&back);
  free(um);
  free(ua);
  pm_local_destroy(&ref);
  pm_partition_destroy(&a);
  pm_partition_destroy(&b);
  pm_partition_destroy(&c);
  pm_partition_destroy(&c); /* NULL-safe */
  MPI_Allreduce(MPI_IN_PLACE, &g_fail, 1, MPI_LONG, MPI_SUM, comm);
  if (g_rank == 0) printf("test_run_refine: %s\n", g_fail ? "FAILED" : "ok");
  MPI_Finalize();
  return g_fail ? EXIT_FAILURE : EXIT_SUCCESS;
}
