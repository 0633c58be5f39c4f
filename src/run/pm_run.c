/* pm_run.c - a run as library calls on a loaded partition (pm_partition.c): the steady and the
 * backward-Euler drivers, initial states, error norms and the result's attributes. */
#define _POSIX_C_SOURCE 200809L
#include "pmesh/pm_run.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/pm_util.h"
#include "pm_partition_int.h"
#include "pm_run_fine.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_exact.h"
#include "pmesh/pm_fine_op.h"
#include "pmesh/pm_h5_read.h"
#include "pmesh/pm_meta.h"
#include "pmesh/pm_mg.h"

/* ---------------------------------------------------------------- options, values, norms */

pm_run_options_t pm_run_options_default(void) {
  pm_run_options_t o;
  memset(&o, 0, sizeof o);
  o.cg.rtol = 1e-8;
  o.cg.maxit = 10000;
  o.cg.out = stdout;
  o.every = 1;
  o.mass = PM_MASS_CONSISTENT;
  o.initial.step = -1;
  return o;
}

int pm_run_set_value(const pm_local_t *l, pm_value_t value, const char *what, double *u) {
  pm_expr_t *ex = NULL;
  PM_CALL(pm_expr_create_value(value, &ex));
  int ierr = PM_OK;
  for (int32_t i = 0; i < l->n_total && !ierr; i++) {
    const double *x = l->xyz + 3 * i;
    u[i] = pm_expr_eval(ex, x[0], x[1], x[2]);
    if (!isfinite(u[i]))
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "%s '%s' is not finite at node %" PRId64 " (%g, %g, %g)",
                          what, pm_value_text(value), l->gid[i], x[0], x[1], x[2]);
  }
  pm_expr_destroy(&ex);
  return ierr;
}

/* The exact solution at time t; reproducible: the L2 sum exact (pm_exact.h), the same for any
 * partition. */
static int error_norms(const pm_partition_t *part, const double *u, pm_value_t exact, double t, int reproducible,
                       double *error_max, double *error_l2) {
  const pm_local_t *l = part->local;
  double err[2] = {0, 0}, *w = NULL;
  pm_exact_t l2;
  pm_exact_zero(&l2);
  pm_expr_t *ex = NULL;
  int ierr = pm_expr_create_value(exact, &ex);
  if (!ierr) pm_expr_set_time(ex, t);
  if (!ierr) ierr = PM_MALLOC(w, l->n_internal, "weights");
  if (!ierr && part->points && !l->has_mesh) /* the finest level without its elements */
    ierr = pm_fine_node_weights(part->below, l, part->points, w);
  else if (!ierr)
    ierr = pm_fem_node_weights(l, w);
  for (int32_t i = 0; !ierr && i < l->n_internal; i++) {
    const double *x = l->xyz + 3 * i;
    double e = fabs(u[i] - pm_expr_eval(ex, x[0], x[1], x[2]));
    if (e > err[0]) err[0] = e;
    if (reproducible)
      pm_exact_add(&l2, w[i] * e * e);
    else
      err[1] += w[i] * e * e;
  }
  pm_expr_destroy(&ex);
  free(w);
  PM_CALL(pm_partition_agree_alike(part->comm, part->rank, ierr));
  PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, &err[0], 1, MPI_DOUBLE, MPI_MAX, part->comm));
  if (reproducible) {
    PM_CALL(pm_exact_allreduce(&l2, 1, part->comm));
    err[1] = pm_exact_value(&l2);
  } else {
    PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, &err[1], 1, MPI_DOUBLE, MPI_SUM, part->comm));
  }
  *error_max = err[0];
  *error_l2 = sqrt(err[1]);
  return PM_OK;
}

int pm_run_error_norms(const pm_partition_t *part, const double *u, pm_value_t exact, const pm_run_norms_options_t *opt,
                       double *error_max, double *error_l2) {
  pm_run_norms_options_t o = opt ? *opt : (pm_run_norms_options_t){0};
  return error_norms(part, u, exact, o.t, o.reproducible, error_max, error_l2);
}

/* ---------------------------------------------------------------- attributes */

enum { MAX_ATTRS = 64 };

/* The problem's values as text, for the result's attributes (pm_problem_describe). */
typedef struct problem_text {
  char text[5][4096]; /* source, conductivity, dirichlet, neumann, robin */
} problem_text_t;

/* The attributes every result carries: the problem and its parameters, the exact solution and
 * its errors (res: NULL before the run).  Returns their number. */
static int base_attrs(const pm_problem_t *prob, const pm_pc_t *pc, const pm_run_options_t *o, int transient,
                      const pm_run_result_t *res, problem_text_t *pt, pm_h5_attr_t *at) {
  static const char *names[5] = {"source", "conductivity", "dirichlet", "neumann", "robin"};
  static const char *none[5] = {"0", "1", "", "", ""}; /* pm_problem_create's defaults */
  int n = 0;
  at[n++] = (pm_h5_attr_t){"problem", PM_H5_ATTR_STRING, 0, 0,
                           transient ? "du/dt - div(k grad u) = f" : "-div(k grad u) = f"};
  at[n++] =
      (pm_h5_attr_t){"scheme", PM_H5_ATTR_STRING, 0, 0, pm_scheme_name(pm_problem_scheme(prob))};
  at[n++] = (pm_h5_attr_t){"precond", PM_H5_ATTR_STRING, 0, 0, pc ? pm_pc_name(pc) : "none"};
  for (int w = 0; w < 5; w++) {
    char *t = pt->text[w];
    if (pm_problem_describe(prob, (pm_problem_item_t)(PM_PROBLEM_SOURCE + w), t, sizeof pt->text[w]))
      strcpy(t + sizeof pt->text[w] - 5, "...");
    at[n++] = (pm_h5_attr_t){names[w], PM_H5_ATTR_STRING, 0, 0, t[0] ? t : none[w]};
  }
  at[n++] = (pm_h5_attr_t){"area", PM_H5_ATTR_DOUBLE, pm_problem_area(prob), 0, NULL};
  at[n++] = (pm_h5_attr_t){"rtol", PM_H5_ATTR_DOUBLE, o->cg.rtol, 0, NULL};
  at[n++] = (pm_h5_attr_t){"maxit", PM_H5_ATTR_INT64, 0, o->cg.maxit, NULL};
  if (o->initial.file) {
    at[n++] = (pm_h5_attr_t){"initial_file", PM_H5_ATTR_STRING, 0, 0, o->initial.file};
    at[n++] = (pm_h5_attr_t){"initial_field", PM_H5_ATTR_STRING, 0, 0, o->initial.field ? o->initial.field : "u"};
    at[n++] = (pm_h5_attr_t){"initial_step", PM_H5_ATTR_INT64, 0, o->initial.step, NULL};
  } else {
    at[n++] = (pm_h5_attr_t){"initial_value", PM_H5_ATTR_STRING, 0, 0,
                             pm_value_is_set(o->initial.value) ? pm_value_text(o->initial.value) : "0"};
  }
  if (o->cg.reproducible) at[n++] = (pm_h5_attr_t){"reproducible", PM_H5_ATTR_INT64, 0, 1, NULL};
  if (pm_value_is_set(o->exact)) {
    at[n++] = (pm_h5_attr_t){"exact", PM_H5_ATTR_STRING, 0, 0, pm_value_text(o->exact)};
    if (res && res->has_error) {
      at[n++] = (pm_h5_attr_t){"error_max", PM_H5_ATTR_DOUBLE, res->error_max, 0, NULL};
      at[n++] = (pm_h5_attr_t){"error_l2", PM_H5_ATTR_DOUBLE, res->error_l2, 0, NULL};
    }
  }
  return n;
}

/* The caller's attributes after the run's own. */
static int user_attrs(const pm_run_options_t *o, pm_h5_attr_t *at, int n) {
  PM_CHECK(o->n_attrs >= 0 && o->n_attrs <= MAX_ATTRS - 32 && (o->n_attrs == 0 || o->attrs), PM_ERR_ARG,
           "%d further result attributes: at most %d", o->n_attrs, MAX_ATTRS - 32);
  for (int i = 0; i < o->n_attrs; i++) at[n + i] = o->attrs[i];
  return PM_OK;
}

/* ---------------------------------------------------------------- the drivers */

const char *pm_run_stage_name(pm_run_stage_t stage) {
  static const char *names[PM_RUN_STAGES] = {"mesh_output", "assembly", "setup", "solve", "output"};
  return stage >= 0 && stage < PM_RUN_STAGES ? names[stage] : "?";
}

/* The process's peak so far into res->peak_rss[stage] and, when a stage was skipped, into the
 * stages before it that are still 0 (the peaks stay monotonic).  The pages the stage freed go
 * back to the system here, once, rather than at every free (see tools/solve.c's mallopt). */
static void mark(pm_run_result_t *res, pm_run_stage_t stage) {
  pm_release_free_memory();
  int64_t peak = pm_peak_rss();
  res->peak_rss[stage] = peak;
  for (int s = stage - 1; s >= 0 && res->peak_rss[s] == 0; s--) res->peak_rss[s] = peak;
}

/* What a run holds between its stages. */
typedef struct run {
  const pm_partition_t *part;
  const pm_problem_t *prob;
  const pm_run_options_t *o;
  pm_pc_t *pc;
  int transient;
  const char *xmf; /* the XDMF path */
  char xmf_buf[4400];
  pm_csr_t *a, *m; /* m: the mass matrix of a transient run */
  double *b;
  pm_op_t *op; /* over a, or the matrix-free fine operator: what CG and the preconditioner are given */
  pm_fine_t *fine; /* the matrix-free fine operator's state (opt->matrix_free) */
} run_t;

static void run_free(run_t *r) {
  pm_op_destroy(&r->op);
  pm_fine_destroy(&r->fine);
  pm_csr_destroy(&r->a);
  pm_csr_destroy(&r->m);
  free(r->b);
}

/* Checks of the options every rank makes alike. */
static int check_options(run_t *r) {
  const pm_run_options_t *o = r->o;
  int rank = r->part->rank;
  if (o->output && !o->output_xmf) {
    size_t len = strlen(o->output);
    if (len < 3 || strcmp(o->output + len - 3, ".h5") != 0 || len + 2 > sizeof r->xmf_buf)
      return pm_partition_error_alike(rank, PM_ERR_ARG, __FILE__, __LINE__,
                                      "the result file %s: its name must end in .h5", o->output);
    snprintf(r->xmf_buf, sizeof r->xmf_buf, "%.*s.xmf", (int)(len - 3), o->output);
    r->xmf = r->xmf_buf;
  } else {
    r->xmf = o->output_xmf;
  }
  if (r->transient && !(o->dt > 0 && isfinite(o->dt) && o->steps >= 1 && o->every >= 1))
    return pm_partition_error_alike(
        rank, PM_ERR_ARG, __FILE__, __LINE__,
        "a transient run needs a positive finite time step (%g), at least one step (%d) and a "
        "positive output interval (%d)",
        o->dt, o->steps, o->every);
  pm_problem_item_t which = PM_PROBLEM_NONE;
  if (!r->transient && (pm_problem_depends_on_time(r->prob, &which) || pm_value_depends_on_time(o->exact))) {
    static const char *what[] = {"exact solution",      "source",       "conductivity",
                                 "Dirichlet condition", "Neumann flux", "Robin condition"};
    return pm_partition_error_alike(
        rank, PM_ERR_ARG, __FILE__, __LINE__,
        "the %s depends on the time t, which only a transient run defines (a steady run has no "
        "time)",
        what[which]);
  }
  return PM_OK;
}

/* The operator of the run's problem on a coarser mesh of a geometric multigrid, as assemble()
 * makes the finest one (pm_mg_assemble_t).  Not collective. */
static int assemble_level(void *ctx, const pm_local_t *l, pm_csr_t **a) {
  const run_t *r = ctx;
  int fdm = pm_problem_scheme(r->prob) != PM_SCHEME_FEM; /* the edge pattern */
  int32_t n = l->n_internal > 0 ? l->n_internal : 1, nt = l->n_total + l->n_aux > 0 ? l->n_total + l->n_aux : 1;
  int64_t nfixed = 0;
  pm_csr_t *m = NULL;
  double *b = NULL, *u = NULL;
  int ierr = pm_csr_create(l, fdm, a);
  if (!ierr && r->transient) ierr = pm_csr_create(l, fdm, &m);
  if (!ierr) ierr = PM_MALLOC(b, n, "coarse right-hand side");
  if (!ierr) ierr = PM_CALLOC(u, nt, "coarse Dirichlet values");
  if (!ierr)
    ierr = r->transient ? pm_fem_assemble_transient(l, r->prob, r->o->mass, r->o->dt, *a, m, b, u, &nfixed)
                        : pm_fem_assemble(l, r->prob, *a, b, u, &nfixed);
  if (!ierr) ierr = pm_csr_compact(*a);
  if (ierr) pm_csr_destroy(a);
  pm_csr_destroy(&m);
  free(b);
  free(u);
  return ierr;
}

/* The matrix-free fine operator (opt->matrix_free), b and the Dirichlet values into u; what it
 * does not support refused alike on every rank.  Errors agreed. */
static int matrix_free(run_t *r, double *u, int64_t *nfixed) {
  const pm_partition_t *p = r->part;
  if (r->transient || !p->points || !p->below)
    return pm_partition_error_alike(
        p->rank, PM_ERR_UNSUPPORTED, __FILE__, __LINE__,
        "--fine-operator matrix-free: %s", r->transient ? "only steady runs are supported, not transient ones"
                                                        : "needs a partition refined at least once keeping its "
                                                          "refinement points (solve: --refine K with K >= 1)");
  int ierr = pm_fine_create(p->below, p->local, p->points, p->halo, r->prob, &r->fine);
  if (!ierr) ierr = PM_MALLOC(r->b, p->local->n_internal > 0 ? p->local->n_internal : 1, "right-hand side");
  PM_CALL(pm_partition_agree_alike(p->comm, p->rank, ierr));
  ierr = pm_fine_system(r->fine, r->b, u, nfixed);
  if (!ierr) ierr = pm_fine_op(r->fine, &r->op);
  if (!ierr && r->pc && !pm_pc_is_setup(r->pc)) ierr = pm_mg_set_fixed_rows(r->pc, pm_fine_fixed(r->fine));
  return pm_comm_agree(p->comm, ierr);
}

/* Assemble a (and m), b and the Dirichlet values into u, then count the unknowns; a loses its
 * explicit zeros once inspected (CG and the preconditioners then share it).  Errors agreed. */
static int assemble(run_t *r, double *u, pm_run_result_t *res) {
  const pm_local_t *l = r->part->local;
  MPI_Comm comm = r->part->comm;
  int fdm = pm_problem_scheme(r->prob) != PM_SCHEME_FEM; /* the edge pattern */
  int32_t nt = l->n_total + l->n_aux;
  int64_t nfixed = 0;
  double t1 = MPI_Wtime();
  memset(u, 0, (size_t)(nt > 0 ? nt : 0) * sizeof *u);
  int ierr = PM_OK;
  if (r->o->matrix_free) {
    PM_CALL(matrix_free(r, u, &nfixed));
  } else {
    ierr = pm_csr_create(l, fdm, &r->a);
    if (!ierr && r->transient) ierr = pm_csr_create(l, fdm, &r->m);
    if (!ierr) ierr = PM_MALLOC(r->b, l->n_internal > 0 ? l->n_internal : 1, "right-hand side");
  }
  if (!ierr && !r->o->matrix_free)
    ierr = r->transient ? pm_fem_assemble_transient(l, r->prob, r->o->mass, r->o->dt, r->a, r->m, r->b, u, &nfixed)
                        : pm_fem_assemble(l, r->prob, r->a, r->b, u, &nfixed);
  if (!ierr && r->a && r->o->on_assembled) ierr = r->o->on_assembled(r->o->on_assembled_ctx, r->part, r->a, r->b);
  if (!ierr && r->a) ierr = pm_csr_compact(r->a);
  if (!ierr && r->a) ierr = pm_op_create_csr(r->a, r->part->halo, &r->op);
  if (!ierr && r->pc && !pm_pc_is_setup(r->pc)) ierr = pm_mg_set_assembler(r->pc, assemble_level, r);
  PM_CALL(pm_comm_agree(comm, ierr));
  int64_t nint = l->n_internal;
  PM_CALL_MPI(pm_comm_allreduce(&nfixed, &res->fixed, 1, MPI_INT64_T, MPI_SUM, comm));
  PM_CALL_MPI(pm_comm_allreduce(&nint, &res->unknowns, 1, MPI_INT64_T, MPI_SUM, comm));
  if (res->fixed == 0 && !r->transient) { /* M/dt + K is definite without them; K + R is with h > 0 */
    double h_int = 0.0;
    PM_CALL(pm_comm_agree(comm, pm_fem_robin_integral(l, r->prob, &h_int)));
    PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, &h_int, 1, MPI_DOUBLE, MPI_MAX, comm));
    if (!(h_int > 0))
      return pm_partition_error_alike(
          r->part->rank, PM_ERR_ARG, __FILE__, __LINE__,
          "no node has a Dirichlet value and no Robin condition has h > 0: the problem is singular "
          "(pure Neumann); add a Dirichlet or a Robin condition");
  }
  res->t_assembly = MPI_Wtime() - t1;
  return PM_OK;
}

static int check_finite(const pm_local_t *l, const double *u, const char *file, const char *field) {
  for (int32_t i = 0; i < l->n_internal; i++)
    PM_CHECK(isfinite(u[i]), PM_ERR_FORMAT, "%s: field '%s' is %g at node %" PRId64 ": cannot start from it", file,
             field, u[i], l->gid[i]);
  return PM_OK;
}

/* The initial state into u (which holds the Dirichlet values), then the halo update; the
 * Dirichlet nodes keep their values.  Nothing to do for a start from 0.  Errors agreed. */
static int initial_state(run_t *r, double *u) {
  const pm_run_initial_t *in = &r->o->initial;
  const pm_partition_t *p = r->part;
  if (!in->file && !pm_value_is_set(in->value)) return PM_OK;
  char *fixed = NULL;
  int ierr = PM_MALLOC(fixed, p->local->n_total > 0 ? p->local->n_total : 1, "Dirichlet marks");
  if (!ierr && !in->file) ierr = pm_run_set_value(p->local, in->value, "the initial value", u);
  if (!ierr && in->file) {
    const char *field = in->field ? in->field : "u";
    ierr = pm_h5_read_field(p->comm, p->local, p->meta, in->file, field, in->step, u);
    if (!ierr) ierr = check_finite(p->local, u, in->file, field);
  }
  ierr = pm_partition_agree_alike(p->comm, p->rank, ierr); /* a file of another mesh: every rank meets it */
  if (!ierr) ierr = pm_halo_update(p->halo, u, MPI_DOUBLE, 1);
  if (!ierr) ierr = pm_fem_dirichlet(p->local, r->prob, 0.0, fixed, u);
  free(fixed);
  return pm_comm_agree(p->comm, ierr);
}

/* min/max of u over the internal nodes, the error norms, the file's size. */
static int finish(run_t *r, const double *u, pm_run_result_t *res) {
  const pm_partition_t *p = r->part;
  double mm[2] = {INFINITY, INFINITY};
  for (int32_t i = 0; i < p->local->n_internal; i++) {
    if (u[i] < mm[0]) mm[0] = u[i];
    if (-u[i] < mm[1]) mm[1] = -u[i];
  }
  PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, mm, 2, MPI_DOUBLE, MPI_MIN, p->comm));
  res->u_min = mm[0];
  res->u_max = -mm[1];
  if (pm_value_is_set(r->o->exact)) {
    double t = r->transient ? res->steps_done * r->o->dt : 0.0; /* the last step's time */
    PM_CALL(error_norms(p, u, r->o->exact, t, r->o->cg.reproducible, &res->error_max, &res->error_l2));
    res->has_error = 1;
  }
  return PM_OK;
}

/* A reproducible run's result leaves out the owner ranks: the file is then the same for any
 * partition.  A run writes node fields only. */
static pm_h5_options_t h5_options(const pm_run_options_t *o) {
  return (pm_h5_options_t){.no_partition = o->cg.reproducible, .node_fields = 1};
}

static void output_size(const run_t *r, pm_run_result_t *res) {
  struct stat sb;
  if (r->o->output && r->part->rank == 0 && stat(r->o->output, &sb) == 0) res->output_bytes = (int64_t)sb.st_size;
}

/* The result file with the mesh (before the fields).  The matrix-free finest level has no
 * elements: they are made from the level below's as the mesh is written (pm_run_fine.h), a
 * round of rows at a time.  Errors agreed. */
static int result_create(run_t *r, int late_mesh, pm_h5_series_t **result, pm_run_result_t *res) {
  const pm_partition_t *part = r->part;
  double t = MPI_Wtime();
  pm_h5_options_t h5opt = h5_options(r->o);
  pm_run_fine_t rf;
  int ierr = PM_OK;
  if (late_mesh) {
    PM_CALL(pm_run_fine_create(part, &rf));
    h5opt.elements = &rf.src;
  }
  ierr = pm_h5_result_create(part->comm, part->local, part->meta, r->o->output, r->xmf, &h5opt, result);
  if (late_mesh) pm_run_fine_free(&rf);
  res->t_output += MPI_Wtime() - t;
  return pm_comm_agree(part->comm, ierr);
}

int pm_run_steady(const pm_partition_t *part, const pm_problem_t *prob, pm_pc_t *pc, const pm_run_options_t *opt,
                  double *u, pm_run_result_t *res) {
  run_t r = {part, prob, opt, pc, 0, NULL, "", NULL, NULL, NULL, NULL, NULL};
  pm_h5_series_t *result = NULL; /* the mesh before the solve, u after */
  pm_cg_t *cg = NULL;
  pm_h5_attr_t attrs[MAX_ATTRS];
  static problem_text_t ptext; /* 20 kB: not on the stack */
  int ierr = PM_OK;
  memset(res, 0, sizeof *res);
  PM_TRY(check_options(&r));
  /* The result's mesh is written now, while the mesh is in the caches (after the solve it is
   * not: the write's preparation took 2-3x longer there); a failure ends the run before it
   * solves. */
  int late_mesh = opt->matrix_free && !part->local->has_mesh;
  if (opt->output) PM_TRY(result_create(&r, late_mesh, &result, res));
  mark(res, PM_RUN_STAGE_MESH_OUTPUT); /* without a result, the peak the run started at (not the assembly's) */
  /* The elements' place was for the result's mesh and is for an initial state's file check. */
  int release = opt->release_elements && !pm_value_is_set(opt->exact);
  if (release && !opt->initial.file) pm_local_release(part->local, PM_LOCAL_ELEM_PLACE);
  /* The matrix-free level's mesh below needed the elements' place only to make the result's. */
  if (release && late_mesh) pm_local_release(part->below, PM_LOCAL_ELEM_PLACE);
  PM_TRY(assemble(&r, u, res));
  PM_TRY(initial_state(&r, u));
  if (release) pm_local_release(part->local, PM_LOCAL_ELEMENTS);
  if (release && late_mesh && opt->release_coords) pm_local_release(part->local, PM_LOCAL_COORDS);
  mark(res, PM_RUN_STAGE_ASSEMBLY);
  PM_TRY(pm_cg_create(r.op, pc, &cg));
  mark(res, PM_RUN_STAGE_SETUP);
  ierr = pm_cg_run(cg, r.b, u, &opt->cg, &res->cg);
  res->cg.t_setup = pm_cg_setup_seconds(cg);
  res->cg.t_total += res->cg.t_setup;
  pm_cg_destroy(&cg);
  PM_TRY(pm_comm_agree(part->comm, ierr));
  mark(res, PM_RUN_STAGE_SOLVE);
  res->converged = res->cg.converged || opt->cg.rtol == 0; /* rtol 0 asks for maxit iterations */
  PM_TRY(finish(&r, u, res));
  /* u: the owners' values, refreshed by the solver's last halo update. */
  if (result) {
    double t = MPI_Wtime();
    pm_h5_field_t fields[1] = {{"u", 0, 0, u}};
    int na = base_attrs(prob, pc, opt, 0, res, &ptext, attrs);
    attrs[na++] = (pm_h5_attr_t){"iterations", PM_H5_ATTR_INT64, 0, res->cg.iterations, NULL};
    attrs[na++] = (pm_h5_attr_t){"residual", PM_H5_ATTR_DOUBLE, res->cg.residual, 0, NULL};
    attrs[na++] = (pm_h5_attr_t){"converged", PM_H5_ATTR_INT64, 0, res->cg.converged, NULL};
    PM_TRY(user_attrs(opt, attrs, na));
    na += opt->n_attrs;
    ierr = pm_h5_series_write(result, 0.0, fields, 1);
    PM_TRY(pm_comm_agree(part->comm, ierr));
    ierr = pm_h5_series_close(&result, attrs, na, 1);
    res->t_output += MPI_Wtime() - t;
    PM_TRY(pm_comm_agree(part->comm, ierr));
  }
  mark(res, PM_RUN_STAGE_OUTPUT);
  output_size(&r, res);
cleanup:
  pm_mg_set_assembler(pc, NULL, NULL); /* its context is this call's */
  pm_mg_set_fixed_rows(pc, NULL);
  pm_cg_destroy(&cg);
  if (result) pm_h5_series_close(&result, NULL, 0, 0); /* every rank (agreed): the earlier result stays */
  run_free(&r);
  return ierr;
}

static int write_step(pm_h5_series_t *s, const double *u, double time, pm_run_result_t *res) {
  double t = MPI_Wtime();
  pm_h5_field_t f[1] = {{"u", 0, 0, u}};
  int ierr = pm_h5_series_write(s, time, f, 1);
  res->steps_written += !ierr;
  res->t_output += MPI_Wtime() - t;
  return ierr;
}

/* Data that depend on t: the operators without the Dirichlet elimination and the work vectors of
 * each step's right-hand side (pm_fem_assemble_operator). */
typedef struct tstep {
  pm_csr_t *a, *m; /* M/dt + K + R and M, nothing eliminated */
  double *f, *w, *s;
  char *fixed;
} tstep_t;

static void tstep_free(tstep_t *ts) {
  pm_csr_destroy(&ts->a);
  pm_csr_destroy(&ts->m);
  free(ts->f);
  free(ts->w);
  free(ts->s);
  free(ts->fixed);
}

/* Errors agreed. */
static int tstep_create(const run_t *r, tstep_t *ts) {
  const pm_local_t *l = r->part->local;
  int32_t n = l->n_internal > 0 ? l->n_internal : 1, nt = l->n_total + l->n_aux > 0 ? l->n_total + l->n_aux : 1;
  int fdm = pm_problem_scheme(r->prob) != PM_SCHEME_FEM; /* the edge pattern */
  int ierr = pm_csr_create(l, fdm, &ts->a);
  if (!ierr) ierr = pm_csr_create(l, fdm, &ts->m);
  if (!ierr) ierr = PM_MALLOC(ts->f, n, "load of a step");
  if (!ierr) ierr = PM_MALLOC(ts->s, n, "Dirichlet columns of a step");
  if (!ierr) ierr = PM_CALLOC(ts->w, nt, "Dirichlet values of a step");
  if (!ierr) ierr = PM_MALLOC(ts->fixed, nt, "Dirichlet marks");
  if (!ierr) ierr = pm_fem_assemble_operator(l, r->prob, r->o->mass, r->o->dt, ts->a, ts->m);
  return pm_comm_agree(r->part->comm, ierr);
}

/* The right-hand side of the step to time t: f(t) + (M u^n)/dt - A w on the free rows, w = g(t)
 * on the Dirichlet nodes and 0 elsewhere, and g(t) on the Dirichlet rows (u^n holds g(t - dt)
 * there).  u gets g(t) on its Dirichlet nodes: CG's initial guess.  Collective among neighbours. */
static int tstep_rhs(const run_t *r, tstep_t *ts, double t, double *u, double *rhs, double *q, double *t_exchange) {
  const pm_local_t *l = r->part->local;
  double te = 0;
  *t_exchange = 0;
  memset(ts->w, 0, (size_t)(l->n_total + l->n_aux) * sizeof *ts->w);
  PM_CALL(pm_csr_spmv(ts->m, r->part->halo, u, q, NULL, &te));
  *t_exchange += te;
  PM_CALL(pm_fem_dirichlet(l, r->prob, t, ts->fixed, ts->w));
  PM_CALL(pm_fem_load(l, r->prob, t, ts->f));
  PM_CALL(pm_csr_spmv(ts->a, r->part->halo, ts->w, ts->s, NULL, &te));
  *t_exchange += te;
  for (int32_t i = 0; i < l->n_internal; i++) rhs[i] = ts->fixed[i] ? ts->w[i] : ts->f[i] + q[i] / r->o->dt - ts->s[i];
  for (int32_t i = 0; i < l->n_total; i++)
    if (ts->fixed[i]) u[i] = ts->w[i];
  return PM_OK;
}

/* Per step rhs = b + (M u^n)/dt (M without the Dirichlet rows and columns, see
 * pm_fem_assemble_transient), then CG on (M/dt + K) u^{n+1} = rhs from u^n. */
int pm_run_transient(const pm_partition_t *part, const pm_problem_t *prob, pm_pc_t *pc, const pm_run_options_t *opt,
                     double *u, pm_run_result_t *res) {
  run_t r = {part, prob, opt, pc, 1, NULL, "", NULL, NULL, NULL, NULL, NULL};
  MPI_Comm comm = part->comm;
  int32_t n = part->local->n_internal;
  double *rhs = NULL, *q = NULL;
  pm_h5_series_t *series = NULL;
  pm_cg_t *cg = NULL;
  pm_cg_result_t *sum = &res->cg;
  tstep_t ts = {NULL, NULL, NULL, NULL, NULL, NULL};
  FILE *out = opt->cg.out ? opt->cg.out : stdout;
  int ierr = PM_OK;
  memset(res, 0, sizeof *res);
  res->converged = 1;
  res->it_min = INT32_MAX;
  PM_TRY(check_options(&r));
  PM_TRY(assemble(&r, u, res));
  PM_TRY(initial_state(&r, u));
  if (pm_problem_depends_on_time(prob, NULL)) PM_TRY(tstep_create(&r, &ts));
  ierr = PM_MALLOC(rhs, n > 0 ? n : 1, "right-hand side of a step");
  if (!ierr) ierr = PM_MALLOC(q, n > 0 ? n : 1, "mass times u");
  PM_TRY(pm_comm_agree(comm, ierr));
  double t_cg = MPI_Wtime();
  mark(res, PM_RUN_STAGE_ASSEMBLY);
  PM_TRY(pm_cg_create(r.op, pc, &cg)); /* set up once for every step */
  mark(res, PM_RUN_STAGE_SETUP);
  sum->t_setup = MPI_Wtime() - t_cg;
  sum->t_total = sum->t_setup;
  if (opt->output) {
    double t = MPI_Wtime();
    pm_h5_options_t h5opt = h5_options(opt);
    PM_TRY(pm_h5_series_create(comm, part->local, part->meta, opt->output, r.xmf, &h5opt, &series));
    res->t_output += MPI_Wtime() - t;
    PM_TRY(write_step(series, u, 0.0, res));
  }
  for (int k = 1; k <= opt->steps; k++) {
    /* The product refreshes u^n's externals (the halo update) before it reads them. */
    double te = 0, t = MPI_Wtime();
    pm_cg_result_t s;
    memset(&s, 0, sizeof s);
    if (ts.a) {
      ierr = tstep_rhs(&r, &ts, k * opt->dt, u, rhs, q, &te);
    } else {
      ierr = pm_csr_spmv(r.m, part->halo, u, q, NULL, &te);
      for (int32_t i = 0; i < n && !ierr; i++) rhs[i] = r.b[i] + q[i] / opt->dt;
    }
    sum->t_spmv += MPI_Wtime() - t - te;
    sum->t_exchange += te;
    if (!ierr) ierr = pm_cg_run(cg, rhs, u, &opt->cg, &s);
    PM_TRY(pm_comm_agree(comm, ierr));
    res->steps_done = k;
    res->it_total += s.iterations;
    if (s.iterations < res->it_min) res->it_min = s.iterations;
    if (s.iterations > res->it_max) res->it_max = s.iterations;
    if (s.residual > res->residual_max) res->residual_max = s.residual;
    sum->iterations += s.iterations;
    sum->residual = s.residual;
    sum->t_total += s.t_total;
    sum->t_spmv += s.t_spmv;
    sum->t_exchange += s.t_exchange;
    sum->t_reduce += s.t_reduce;
    sum->t_update += s.t_update;
    sum->t_precond += s.t_precond;
    if (opt->cg.monitor > 0 && part->rank == 0)
      fprintf(out, "step %6d  t = %-12.6g %5d iterations  ||r||/||b|| = %.3e\n", k, k * opt->dt, s.iterations,
              s.residual);
    if (!s.converged && opt->cg.rtol > 0) { /* rtol 0 asks for maxit iterations */
      res->converged = 0;
      res->failed_step = k;
      res->failed_iterations = s.iterations;
      res->failed_residual = s.residual;
      break;
    }
    if (series && (k % opt->every == 0 || k == opt->steps)) PM_TRY(write_step(series, u, k * opt->dt, res));
  }
  if (res->it_min == INT32_MAX) res->it_min = 0;
  mark(res, PM_RUN_STAGE_SOLVE); /* the series' mesh included: its own stage stays the assembly's */
  sum->converged = res->converged;
  PM_TRY(finish(&r, u, res));
  if (series && res->converged) {
    double t = MPI_Wtime();
    pm_h5_attr_t at[MAX_ATTRS];
    static problem_text_t ptext;
    int na = base_attrs(prob, pc, opt, 1, res, &ptext, at);
    at[na++] = (pm_h5_attr_t){"dt", PM_H5_ATTR_DOUBLE, opt->dt, 0, NULL};
    at[na++] = (pm_h5_attr_t){"steps", PM_H5_ATTR_INT64, 0, opt->steps, NULL};
    at[na++] = (pm_h5_attr_t){"every", PM_H5_ATTR_INT64, 0, opt->every, NULL};
    at[na++] = (pm_h5_attr_t){"mass", PM_H5_ATTR_STRING, 0, 0, opt->mass == PM_MASS_LUMPED ? "lumped" : "consistent"};
    at[na++] = (pm_h5_attr_t){"iterations", PM_H5_ATTR_INT64, 0, res->it_total, NULL};
    at[na++] = (pm_h5_attr_t){"iterations_min", PM_H5_ATTR_INT64, 0, res->it_min, NULL};
    at[na++] = (pm_h5_attr_t){"iterations_max", PM_H5_ATTR_INT64, 0, res->it_max, NULL};
    at[na++] = (pm_h5_attr_t){"residual", PM_H5_ATTR_DOUBLE, res->residual_max, 0, NULL};
    at[na++] = (pm_h5_attr_t){"converged", PM_H5_ATTR_INT64, 0, 1, NULL};
    PM_TRY(user_attrs(opt, at, na));
    na += opt->n_attrs;
    ierr = pm_h5_series_close(&series, at, na, 1);
    res->t_output += MPI_Wtime() - t;
    PM_TRY(ierr);
  }
  mark(res, PM_RUN_STAGE_OUTPUT);
  output_size(&r, res); /* without a new series: the previous file's */
cleanup:
  pm_mg_set_assembler(pc, NULL, NULL);                 /* its context is this call's */
  if (series) pm_h5_series_close(&series, NULL, 0, 0); /* failure: keep the previous result */
  pm_cg_destroy(&cg);
  tstep_free(&ts);
  free(rhs);
  free(q);
  run_free(&r);
  return ierr;
}
