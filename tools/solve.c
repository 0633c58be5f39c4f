/* solve - load the local meshes of a partition on every rank, assemble heat conduction
 * (Poisson) and solve it with parallel preconditioned CG: steady, or transient with backward
 * Euler, (M/dt + K) u^{n+1} = (M/dt) u^n + f, one CG solve per step, written as a time series.
 *
 *   mpiexec -n P solve [-p DIR] [-o FILE.h5] [--source F] [--conductivity K] [--area A]
 *       [--dirichlet GROUP=VALUE]... [--neumann GROUP=FLUX]... [--scheme fem|fdm5|fdm7]
 *       [--refine K [--dump-local DIR]] [--precond none|jacobi|amg|mg] [--mg-coarse rediscretize|galerkin]
 *       [--rtol EPS] [--maxit N] [--exchange NAME] [--monitor K]
 *       [--exact EXPR] [--summary FILE.json] [--dump-matrix PREFIX]
 *       [--dt DT --steps N [--every K] [--mass consistent|lumped]]
 *       [--initial-value EXPR | --initial FILE.h5 [--initial-field NAME] [--initial-step K]]
 *       [CONTROL_FILE]
 *   mpiexec -n P solve [-p DIR] --exchange-test [--exchange NAME]
 *
 * The run itself is the library's (pm_run.h): options -> pm_partition_load -> a pm_problem_t ->
 * pm_run_steady / pm_run_transient -> report.  Rank 0 reads the options (solve_args.c: the
 * command line and the lecture's control file), checks the problem against the partition's metadata and sends
 * everything to every rank in one MPI_Bcast of a struct datatype, so a bad option is reported once, before any rank
 * loads anything.  Library errors are agreed across ranks; the failing rank prints its message. */
#define _POSIX_C_SOURCE 200809L
#include "solve.h"

#include <inttypes.h>
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "pm_tool.h"
#include "pmesh/pm_amg.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_expr.h"
#include "pmesh/pm_mg.h"
#include "pmesh/pm_run.h"
#include "pmesh/pm_version.h"

/* The one place a preconditioner of --precond is created (mg: it takes the partition's kept
 * levels, and frees them once set up). */
static int precond_create(const params_t *p, pm_partition_t *part, pm_pc_t **pc) {
  if (p->precond == PRECOND_MG) {
    pm_amg_options_t o;
    solve_amg_options(p, &o);
    PM_CALL(pm_partition_take_mg(part, &o, pc));
    return pm_mg_set_coarse(*pc, (pm_mg_coarse_t)p->mg_coarse);
  }
  if (p->precond == PRECOND_AMG) {
    pm_amg_options_t o;
    solve_amg_options(p, &o);
    return pm_pc_create_amg(&o, pc);
  }
  return p->precond == PRECOND_JACOBI ? pm_pc_create_jacobi(pc) : pm_pc_create_none(pc);
}

static int params_type(MPI_Datatype *type) {
  int blocklen[4] = {(int)(offsetof(params_t, rtol) / sizeof(int)),
                     (int)((offsetof(params_t, fingerprint) - offsetof(params_t, rtol)) / sizeof(double)), 1,
                     (int)(sizeof(params_t) - offsetof(params_t, dir))};
  MPI_Aint disp[4] = {offsetof(params_t, status), offsetof(params_t, rtol), offsetof(params_t, fingerprint),
                      offsetof(params_t, dir)};
  MPI_Datatype types[4] = {MPI_INT, MPI_DOUBLE, MPI_UINT64_T, MPI_CHAR};
  MPI_Datatype t;
  PM_CALL_MPI(MPI_Type_create_struct(4, blocklen, disp, types, &t));
  PM_CALL_MPI(MPI_Type_create_resized(t, 0, sizeof(params_t), type));
  MPI_Type_free(&t);
  PM_CALL_MPI(MPI_Type_commit(type));
  return PM_OK;
}

/* Print a library error on the rank that failed, with its rank (the other ranks return
 * PM_ERR_REMOTE: that rank printed why).  Returns nonzero for any error. */
static int report(int rank, int ierr) {
  if (ierr && ierr != PM_ERR_REMOTE) {
    const char *msg = pm_error_message();
    char own[32];
    snprintf(own, sizeof own, "rank %d", rank);
    if (!strncmp(msg, own, strlen(own))) /* the message names its rank already */
      fprintf(stderr, "%s: error: %s\n", tool, msg);
    else
      fprintf(stderr, "%s: error: [rank %d] %s\n", tool, rank, msg[0] ? msg : pm_error_name(ierr));
    if (getenv("PMESH_TRACE")) fprintf(stderr, "%s: trace: %s\n", tool, pm_error_where());
  }
  return ierr;
}

/* --dump-matrix: each rank's rows once assembled (pm_run_options_t.on_assembled). */
static int dump_matrix(void *ctx, const pm_partition_t *part, const pm_csr_t *a, const double *b) {
  const params_t *p = ctx;
  const pm_local_t *l = part->local;
  char path[PATH_LEN + 32];
  snprintf(path, sizeof path, "%s.%d", p->dump, part->rank);
  pm_tool_out_t o;
  if (pm_tool_open(tool, &o, path)) return PM_ERR_IO;
  fprintf(o.fp, "# row: global id, DIAG, RHS, then global column id:AMAT in row order\n");
  for (int32_t i = 0; i < a->n; i++) {
    fprintf(o.fp, "%" PRId64 " %.17g %.17g", l->gid[i], a->d[i], b[i]);
    for (int32_t k = a->index[i]; k < a->index[i + 1]; k++)
      fprintf(o.fp, " %" PRId64 ":%.17g", l->gid[a->item[k]], a->amat[k]);
    fputc('\n', o.fp);
  }
  return pm_tool_close(tool, &o, 1) ? PM_ERR_IO : PM_OK;
}

/* --history: rank 0's line per CG iteration, every digit. */
static void write_history(void *ctx, int it, double rel) {
  fprintf((FILE *)ctx, "%d %.17g\n", it, rel);
}

/* --dump-solution: each rank's internal 'global_id x y u' lines ('global_id x y z u' in 3D). */
static int dump_solution(const params_t *p, const pm_local_t *l, const double *u, int rank) {
  char path[PATH_LEN + 32];
  snprintf(path, sizeof path, "%s.%d", p->dump_u, rank);
  pm_tool_out_t o;
  if (pm_tool_open(tool, &o, path)) return PM_ERR_IO;
  for (int32_t i = 0; i < l->n_internal; i++)
    if (p->dim == 3)
      fprintf(o.fp, "%" PRId64 " %.17g %.17g %.17g %.17g\n", l->gid[i], l->xyz[3 * i], l->xyz[3 * i + 1],
              l->xyz[3 * i + 2], u[i]);
    else
      fprintf(o.fp, "%" PRId64 " %.17g %.17g %.17g\n", l->gid[i], l->xyz[3 * i], l->xyz[3 * i + 1], u[i]);
  return pm_tool_close(tool, &o, 1) ? PM_ERR_IO : PM_OK;
}

/* solve's own attributes of the result: the options that run it again and the preconditioner's
 * options (and the refinements).  Returns their number. */
static int result_attrs(const params_t *p, char *text, size_t size, char *pc_text, size_t pc_size, pm_h5_attr_t at[4]) {
  int n = 0;
  solve_options_text(p, text, size);
  pc_text[0] = '\0';
  if (p->precond == PRECOND_AMG || p->precond == PRECOND_MG) {
    pm_amg_options_t o;
    solve_amg_options(p, &o);
    snprintf(pc_text, pc_size,
             "threshold=%.17g smoother=%s sweeps=%d levels=%d coarse=%" PRId64 " rows_per_rank=%" PRId64
             " precision=%s%s",
             o.threshold, pm_amg_smoother_name(o.smoother), (int)o.sweeps, (int)o.max_levels, (int64_t)o.coarse_size,
             (int64_t)o.rows_per_rank, pm_amg_precision_name(o.precision),
             p->precond == PRECOND_MG ? (p->mg_coarse ? " mg_coarse=galerkin" : " mg_coarse=rediscretize") : "");
  }
  at[n++] = (pm_h5_attr_t){"solve_options", PM_H5_ATTR_STRING, 0, 0, text};
  at[n++] = (pm_h5_attr_t){"precond_options", PM_H5_ATTR_STRING, 0, 0, pc_text};
  at[n++] = (pm_h5_attr_t){"precond_auto", PM_H5_ATTR_INT64, 0, p->precond_auto, NULL};
  if (p->refine > 0) at[n++] = (pm_h5_attr_t){"refine", PM_H5_ATTR_INT64, 0, p->refine, NULL};
  return n;
}

/* A conductivity that is not constant must be positive at the centre of every element it applies
 * to (a constant one was checked with the options); the lowest rank that finds one says where,
 * once.  Returns nonzero on every rank when any found one.  Collective. */
static int check_conductivity(const params_t *p, const pm_partition_t *part) {
  const pm_local_t *l = part->local;
  char msg[EXPR_LEN + NAME_LEN + 200] = "";
  int32_t *which = calloc((size_t)(l->n_elems > 0 ? l->n_elems : 1), sizeof *which);
  pm_expr_t *ex[MAXBC] = {NULL};
  if (!which) snprintf(msg, sizeof msg, "rank %d: out of memory checking the conductivity", part->rank);
  for (int i = 0; i < p->n_cond && which; i++) { /* the last entry that covers an element is its */
    if (pm_expr_create(p->cond_expr[i], &ex[i]) || pm_expr_is_const(ex[i])) continue;
    for (int g = 0; g < l->n_groups; g++)
      if (p->cond_group[i][0] && !strcmp(l->groups[g].name, p->cond_group[i]) && l->groups[g].elems)
        for (int32_t k = 0; k < l->groups[g].n_elems; k++) which[l->groups[g].elems[k]] = i + 1;
    for (int32_t e = 0; e < l->n_elems && !p->cond_group[i][0]; e++) which[e] = i + 1;
  }
  for (int32_t e = 0; e < l->n_elems && which && !msg[0]; e++) {
    int i = which[e] - 1;
    if (i < 0 || !ex[i] || pm_expr_is_const(ex[i])) continue;
    double c[3] = {0, 0, 0};
    int nv = l->elem_ptr[e + 1] - l->elem_ptr[e];
    for (int32_t k = l->elem_ptr[e]; k < l->elem_ptr[e + 1]; k++)
      for (int d = 0; d < 3; d++) c[d] += l->xyz[3 * l->elem_node[k] + d] / nv;
    double v = pm_expr_eval(ex[i], c[0], c[1], c[2]);
    if (!(v > 0) || !isfinite(v))
      snprintf(msg, sizeof msg,
               "--conductivity %s%s%s: the conductivity is %g at the centre (%g, %g, %g) of element %" PRId64
               ": it must be positive",
               p->cond_group[i], p->cond_group[i][0] ? "=" : "", p->cond_expr[i], v, c[0], c[1], c[2], l->elem_gid[e]);
  }
  for (int i = 0; i < MAXBC; i++) pm_expr_destroy(&ex[i]);
  free(which);
  int mine = msg[0] ? part->rank : part->size, first = part->size;
  MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, part->comm);
  if (first < part->size && first == part->rank) fprintf(stderr, "%s: error: %s\n", tool, msg);
  return first < part->size;
}

/* The mesh's cells per type (each by its owner rank) and what the options need of them, known
 * only once it is loaded: the cells of the finite differences' grid, Dirichlet groups with nodes.
 * Every rank decides alike from the sums; rank 0 says why.  Returns nonzero on every rank when the
 * options do not fit.  Collective. */
static int check_mesh(const params_t *p, const pm_partition_t *part, mesh_info_t *mi) {
  const pm_local_t *l = part->local;
  int64_t mine[PM_CELL_NTYPES + MAXBC] = {0}, all[PM_CELL_NTYPES + MAXBC];
  for (int32_t e = 0; e < l->n_elems; e++) {
    int c = pm_cell_from_gmsh(l->elem_type[e]);
    if (c >= 0 && (!l->elem_owner || l->elem_owner[e] == part->rank)) mine[c]++;
  }
  const pm_local_t *b = part->below; /* a matrix-free finest level: its cells are the children of these */
  for (int32_t e = 0; !l->has_mesh && b && e < b->n_elems; e++) {
    int c = pm_cell_from_gmsh(b->elem_type[e]);
    if (c >= 0 && (!b->elem_owner || b->elem_owner[e] == part->rank))
      mine[c] += pm_cell_gmsh(b->elem_type[e])->n_children;
  }
  for (int i = 0; i < p->n_dir; i++) { /* the internal nodes of each Dirichlet group */
    int g = pm_local_find_group(l, p->dir_group[i]);
    for (int32_t k = 0; g >= 0 && k < l->groups[g].n_nodes; k++)
      mine[PM_CELL_NTYPES + i] += l->groups[g].nodes[k] < l->n_internal;
  }
  if (MPI_Allreduce(mine, all, PM_CELL_NTYPES + MAXBC, MPI_INT64_T, MPI_SUM, part->comm) != MPI_SUCCESS) {
    if (part->rank == 0) fprintf(stderr, "%s: error: the mesh's cell counts could not be summed\n", tool);
    return 1;
  }
  mi->dim = part->meta->dim;
  memcpy(mi->cells, all, sizeof mi->cells);
  char msg[EXPR_LEN + NAME_LEN + 400] = "";
  pm_cell_type_t grid = p->scheme == PM_SCHEME_FDM7 ? PM_CELL_HEX : PM_CELL_QUAD;
  for (int c = 0; c < PM_CELL_NTYPES && p->scheme != PM_SCHEME_FEM && !msg[0]; c++)
    if (all[c] > 0 && c != (int)grid)
      snprintf(msg, sizeof msg,
               "--scheme %s: the mesh has %" PRId64
               " %s cells: the finite differences need an axis-aligned %s "
               "only (%s); use --scheme fem for this mesh",
               pm_scheme_name((pm_scheme_t)p->scheme), all[c], pm_cell_get((pm_cell_type_t)c)->name,
               grid == PM_CELL_HEX ? "box of hexahedra" : "grid of quadrangles",
               grid == PM_CELL_HEX ? "meshgen box, without --tet, --prism or --pyramid"
                                   : "meshgen grid, without --tri");
  for (int i = 0; i < p->n_dir && !msg[0]; i++)
    if (all[PM_CELL_NTYPES + i] == 0)
      snprintf(msg, sizeof msg,
               "--dirichlet %s=%s: the group '%s' has no nodes in the mesh (none of its nodes is a node of a "
               "cell): name a group on the mesh, such as a boundary group",
               p->dir_group[i], p->dir_expr[i], p->dir_group[i]);
  if (msg[0] && part->rank == 0) fprintf(stderr, "%s: error: %s\n", tool, msg);
  return msg[0] != '\0';
}

/* The run's options besides CG's: time steps, initial state, exact solution, output and its
 * attributes (attrs: solve's own, result_attrs). */
static void run_options(const params_t *p, pm_run_options_t *o, pm_h5_attr_t attrs[4]) {
  o->dt = p->dt;
  o->steps = p->steps;
  o->every = p->every;
  o->mass = (pm_mass_t)p->mass;
  if (p->initial_value[0]) o->initial.value = pm_value_expr(p->initial_value);
  if (p->initial[0]) o->initial = (pm_run_initial_t){{NULL, NULL, NULL}, p->initial, p->initial_field, p->initial_step};
  if (p->exact[0]) o->exact = pm_value_expr(p->exact);
  if (!p->no_output) o->output = p->out_h5;
  o->output_xmf = p->out_xmf;
  if (p->dump[0]) o->on_assembled = dump_matrix, o->on_assembled_ctx = (void *)(uintptr_t)p;
  o->release_elements = 1;           /* nothing after the run reads them */
  o->release_coords = !p->dump_u[0]; /* --dump-solution prints them */
  o->matrix_free = p->fine_operator == FINE_MATRIX_FREE;
  static char options_text[16384], pc_text[512];
  o->attrs = attrs;
  o->n_attrs = result_attrs(p, options_text, sizeof options_text, pc_text, sizeof pc_text, attrs);
}

/* --exchange-test: the lecture's check of the halo; the lines are gathered, rank 0 prints. */
static int exchange_test(const params_t *p, const pm_partition_t *part) {
  int64_t wrong = 0;
  if (report(part->rank, pm_halo_selftest(part->halo, part->local, stdout, &wrong))) return EXIT_FAILURE;
  const char *name = pm_exchange_name((pm_exchange_t)p->exchange);
  if (part->rank == 0 && wrong)
    fprintf(stderr, "%s: error: exchange test (%s): %" PRId64 " external values are wrong\n", tool, name, wrong);
  else if (part->rank == 0)
    fprintf(stderr, "%s: exchange test (%s) passed on %d ranks\n", tool, name, part->size);
  return wrong ? EXIT_FAILURE : EXIT_SUCCESS;
}

int main(int argc, char **argv) {
#ifdef __GLIBC__
  /* glibc raises its mmap threshold to the size of each large block freed, so a run's first large
   * blocks are mapped and returned at free, its later ones not.  A fixed threshold at glibc's
   * ceiling (32 MB) keeps temporaries below it in the heap, whose pages are reused without a page
   * fault each (with 128 kB every AMG set-up temporary was mapped afresh: docs/benchmarks.md, "The
   * allocator's threshold").  The run hands the heap's free pages back between its stages
   * (pm_run), which keeps a refined run's peak where the small threshold had it. */
  mallopt(M_MMAP_THRESHOLD, 32 * 1024 * 1024);
#endif
  int provided = 0; /* pm_h5's helper threads make no MPI call: FUNNELED (see pm_h5.h); with less
                     * it starts none (MPI_Query_thread) */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int rank, size, status = EXIT_FAILURE, ierr = PM_OK;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  double t0 = MPI_Wtime();

  params_t *p = calloc(1, sizeof *p);
  MPI_Datatype ptype = MPI_DATATYPE_NULL;
  pm_partition_t *part = NULL;
  pm_problem_t *prob = NULL;
  pm_pc_t *pc = NULL;
  double *u = NULL;
  if (!p || params_type(&ptype)) {
    fprintf(stderr, "%s: error: [rank %d] cannot set up: %s\n", tool, rank, pm_error_message());
    MPI_Abort(comm, 1);
  }
  if (rank == 0 && solve_parse(argc, argv, size, p)) p->status = 1;
  MPI_Request q;
  if (pm_comm_wait(MPI_Ibcast(p, 1, ptype, 0, comm, &q), &q) != MPI_SUCCESS) MPI_Abort(comm, 1);
  if (p->status) {
    status = p->status == 2 ? EXIT_SUCCESS : EXIT_FAILURE;
    goto finish;
  }

  /* Load: every rank its own file (and the partition's small metadata file). */
  if (report(rank, pm_partition_load(comm, p->dir, (pm_exchange_t)p->exchange, &part))) goto finish;
  int64_t own_rss[2] = {pm_tool_peak_rss(), 0};
  double t_load = MPI_Wtime() - t0, t_refine = MPI_Wtime();
  if (report(rank, solve_choose_fine_operator(p, part)) || report(rank, solve_refine(p, part))) goto finish;
  t_refine = MPI_Wtime() - t_refine;
  own_rss[1] = pm_tool_peak_rss();
  if (p->exchange_test) {
    status = exchange_test(p, part);
    goto finish;
  }

  mesh_info_t mi;
  if (check_mesh(p, part, &mi) || check_conductivity(p, part)) goto finish;

  /* The problem, the preconditioner, the run. */
  int32_t nt = part->local->n_total + part->local->n_aux;
  ierr = solve_build_problem(p, &prob);
  if (!ierr) ierr = precond_create(p, part, &pc);
  if (!ierr) ierr = PM_MALLOC(u, nt > 0 ? nt : 1, "solution");
  if (report(rank, pm_comm_agree(comm, ierr))) goto finish;
  pm_h5_attr_t attrs[4];
  pm_run_options_t o = pm_run_options_default();
  o.cg = (pm_cg_options_t){
      .rtol = p->rtol, .maxit = p->maxit, .monitor = p->monitor, .out = stdout, .reproducible = p->reproducible};
  pm_tool_out_t hist = {NULL, "", ""};
  if (p->history[0]) {
    ierr = rank == 0 && pm_tool_open(tool, &hist, p->history) ? PM_ERR_IO : PM_OK;
    if (pm_comm_agree(comm, ierr)) goto finish; /* rank 0 said why */
    if (rank == 0) o.cg.on_iteration = write_history, o.cg.on_iteration_ctx = hist.fp;
  }
  run_options(p, &o, attrs);
  pm_run_result_t r;
  ierr = p->steps > 0 ? pm_run_transient(part, prob, pc, &o, u, &r) : pm_run_steady(part, prob, pc, &o, u, &r);
  int hist_bad = hist.fp && pm_tool_close(tool, &hist, !ierr) && !ierr; /* rank 0 only; it said why */
  if (report(rank, ierr)) {
    if (rank == 0 && p->steps == 0 && r.unknowns > 0 && r.fixed == 0)
      fprintf(stderr, "%s: hint: add --dirichlet GROUP=VALUE or --robin GROUP=H,U_INF with H > 0\n", tool);
    goto finish;
  }
  if (p->dump_u[0] && report(rank, pm_comm_agree(comm, dump_solution(p, part->local, u, rank)))) goto finish;
  int64_t rss[2][RSS_STAGES];
  if (report(rank, solve_rss_reduce(comm, own_rss, &r, rss))) goto finish;
  if (rank == 0) solve_print_report(p, &mi, size, &r, pc, t_load, t_refine, MPI_Wtime() - t0, rss);
  status = r.converged && !hist_bad ? EXIT_SUCCESS : EXIT_FAILURE;
finish:
  free(u);
  pm_pc_destroy(&pc);
  pm_problem_destroy(&prob);
  pm_partition_destroy(&part);
  if (ptype != MPI_DATATYPE_NULL) MPI_Type_free(&ptype);
  free(p);
  MPI_Finalize();
  return status;
}
