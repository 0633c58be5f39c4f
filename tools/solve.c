/* solve - load the local meshes of a partition on every rank, assemble heat conduction
 * (Poisson) and solve it with parallel preconditioned CG: steady, or transient with backward
 * Euler, (M/dt + K) u^{n+1} = (M/dt) u^n + f, one CG solve per step, written as a time series.
 *
 *   mpiexec -n P solve [-p DIR] [-o FILE.h5] [--source F] [--conductivity K] [--area A]
 *       [--dirichlet GROUP=VALUE]... [--neumann GROUP=FLUX]... [--scheme fem|fdm5]
 *       [--precond none|jacobi] [--rtol EPS] [--maxit N] [--exchange NAME] [--monitor K]
 *       [--exact EXPR] [--summary FILE.json] [--dump-matrix PREFIX]
 *       [--dt DT --steps N [--every K] [--mass consistent|lumped]]
 *       [--initial-value EXPR | --initial FILE.h5 [--initial-field NAME] [--initial-step K]]
 *       [CONTROL_FILE]
 *   mpiexec -n P solve [-p DIR] --exchange-test [--exchange NAME]
 *
 * The run itself is the library's (pm_run.h): options -> pm_partition_load -> a pm_problem_t ->
 * pm_run_steady / pm_run_transient -> report.  Rank 0 reads the options (and the lecture's control
 * file), checks the problem against the partition's metadata and sends everything to every rank
 * in one MPI_Bcast of a struct datatype, so a bad option is reported once, before any rank
 * loads anything.  Library errors are agreed across ranks; the failing rank prints its message. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_tool.h"
#include "pmesh/pm_amg.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_lecture.h"
#include "pmesh/pm_run.h"
#include "pmesh/pm_version.h"

static const char *tool = "solve";

/* The preconditioners of --precond: their names (the create is precond_create, below params). */
enum { PRECOND_NONE, PRECOND_JACOBI, PRECOND_AMG, PRECOND_COUNT };
static const char *precond_names[PRECOND_COUNT] = {"none", "jacobi", "amg"};

enum { MAXBC = 16, NAME_LEN = 128, EXPR_LEN = 512, PATH_LEN = 1024 };

/* Everything rank 0 decides, sent in one broadcast.  Integers, then doubles, then the 64-bit
 * fingerprint, then characters only: the datatype below is built from that layout. */
typedef struct params {
  int status; /* 0 run, 1 error (rank 0 printed it), 2 done (--help, --version) */
  int scheme, precond, exchange, maxit, monitor, exchange_test, nparts, dim, no_output;
  int n_source, n_cond, n_dir, n_neu;
  int steps, every, mass, initial_step; /* steps 0: steady; mass: pm_mass_t; initial_step -1: last */
  int amg_smoother, amg_sweeps, amg_levels, amg_coarse;
  double rtol, area, dt, amg_threshold;
  uint64_t fingerprint;
  char dir[PATH_LEN], out_h5[PATH_LEN], out_xmf[PATH_LEN], summary[PATH_LEN], dump[PATH_LEN], dump_u[PATH_LEN];
  char initial[PATH_LEN], initial_field[NAME_LEN], initial_value[EXPR_LEN];
  char exact[EXPR_LEN];
  char src_group[MAXBC][NAME_LEN], cond_group[MAXBC][NAME_LEN], dir_group[MAXBC][NAME_LEN], neu_group[MAXBC][NAME_LEN];
  char src_expr[MAXBC][EXPR_LEN], cond_expr[MAXBC][EXPR_LEN], dir_expr[MAXBC][EXPR_LEN], neu_expr[MAXBC][EXPR_LEN];
} params_t;

static void amg_options(const params_t *p, pm_amg_options_t *o) {
  pm_amg_options_default(o);
  o->threshold = p->amg_threshold;
  o->smoother = (pm_amg_smoother_t)p->amg_smoother;
  o->sweeps = p->amg_sweeps;
  o->max_levels = p->amg_levels;
  o->coarse_size = p->amg_coarse;
}

/* The one place a preconditioner of --precond is created. */
static int precond_create(const params_t *p, pm_pc_t **pc) {
  if (p->precond == PRECOND_AMG) {
    pm_amg_options_t o;
    amg_options(p, &o);
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

/* The problem of the options (every rank builds the same one). */
static int build_problem(const params_t *p, pm_problem_t **prob) {
  PM_CALL(pm_problem_create(prob));
  pm_problem_t *q = *prob;
  PM_CALL(pm_problem_set_scheme(q, (pm_scheme_t)p->scheme));
  PM_CALL(pm_problem_set_area(q, p->area));
  for (int i = 0; i < p->n_source; i++)
    PM_CALL(pm_problem_set_source(q, p->src_group[i][0] ? p->src_group[i] : NULL, pm_value_expr(p->src_expr[i])));
  for (int i = 0; i < p->n_cond; i++)
    PM_CALL(
        pm_problem_set_conductivity(q, p->cond_group[i][0] ? p->cond_group[i] : NULL, pm_value_expr(p->cond_expr[i])));
  for (int i = 0; i < p->n_dir; i++)
    PM_CALL(pm_problem_add_dirichlet(q, p->dir_group[i], pm_value_expr(p->dir_expr[i])));
  for (int i = 0; i < p->n_neu; i++) PM_CALL(pm_problem_add_neumann(q, p->neu_group[i], pm_value_expr(p->neu_expr[i])));
  return PM_OK;
}

/* --source, --conductivity ([GROUP=]EXPR), --dirichlet, --neumann (GROUP=EXPR). */
static int opt_bc(void *ctx, const char *opt, const char *v) {
  params_t *p = ctx;
  int which = !strcmp(opt, "--source") ? 0 : !strcmp(opt, "--conductivity") ? 1 : !strcmp(opt, "--dirichlet") ? 2 : 3;
  int *cnt[4] = {&p->n_source, &p->n_cond, &p->n_dir, &p->n_neu}, need_group = which >= 2;
  char(*grp[4])[NAME_LEN] = {p->src_group, p->cond_group, p->dir_group, p->neu_group};
  char(*ex[4])[EXPR_LEN] = {p->src_expr, p->cond_expr, p->dir_expr, p->neu_expr};
  if (*cnt[which] == MAXBC) {
    pm_tool_error(tool, "%s: at most %d of them", opt, MAXBC);
    return -1;
  }
  const char *eq = strchr(v, '=');
  if (!eq && need_group) {
    pm_tool_error(tool, "%s %s: expected GROUP=VALUE", opt, v);
    return -1;
  }
  size_t gl = eq ? (size_t)(eq - v) : 0;
  const char *e = eq ? eq + 1 : v;
  if ((eq && gl == 0) || gl >= NAME_LEN || strlen(e) >= EXPR_LEN || e[0] == '\0') {
    pm_tool_error(tool, "%s %s: expected %sVALUE with a group name below %d and a value below %d characters", opt, v,
                  need_group ? "GROUP=" : "[GROUP=]", NAME_LEN, EXPR_LEN);
    return -1;
  }
  memcpy(grp[which][*cnt[which]], v, gl);
  grp[which][*cnt[which]][gl] = '\0';
  strcpy(ex[which][(*cnt[which])++], e);
  return 0;
}

static int opt_dt(void *ctx, const char *opt, const char *v) {
  params_t *p = ctx;
  char *end;
  p->dt = strtod(v, &end);
  if (!v[0] || *end || !isfinite(p->dt) || !(p->dt > 0)) {
    pm_tool_error(tool, "%s %s: the time step must be a positive finite number", opt, v);
    return -1;
  }
  return 0;
}

/* --steps, --every, --initial-step. */
static int opt_step(void *ctx, const char *opt, const char *v) {
  params_t *p = ctx;
  int64_t iv, lo = !strcmp(opt, "--initial-step") ? 0 : 1;
  if (pm_tool_int(tool, opt, v, INT64_MIN, INT64_MAX, &iv)) return -1;
  if (iv < lo || iv > INT32_MAX) {
    pm_tool_error(tool, "%s %s: expected %s", opt, v,
                  lo ? "at least 1" : "a step number >= 0 (omit it for the last step)");
    return -1;
  }
  *(!strcmp(opt, "--steps") ? &p->steps : lo ? &p->every : &p->initial_step) = (int)iv;
  return 0;
}

static int opt_smoother(void *ctx, const char *opt, const char *v) {
  pm_amg_smoother_t sm;
  if (pm_amg_smoother_parse(v, &sm)) {
    pm_tool_error(tool, "%s: %s", opt, pm_error_message());
    return -1;
  }
  ((params_t *)ctx)->amg_smoother = (int)sm;
  return 0;
}

static int opt_exchange(void *ctx, const char *opt, const char *v) {
  pm_exchange_t k;
  (void)opt;
  if (pm_exchange_parse(v, &k)) {
    pm_tool_report(tool, PM_ERR_ARG);
    return -1;
  }
  ((params_t *)ctx)->exchange = (int)k;
  return 0;
}

/* Rank 0: options, control file and metadata into p.  Returns 0, or -1 after printing why. */
static int parse(int argc, char **argv, int nranks, params_t *p) {
  const pm_tool_kind_t F = PM_TOOL_FLAG, I = PM_TOOL_INT, D = PM_TOOL_DOUBLE, S = PM_TOOL_STRING, C = PM_TOOL_CHOICE,
                       X = PM_TOOL_CALL;
  /* The options in the order of the usage text, each with its lines of it. */
  pm_tool_opt_t t[] = {
      {"-p", S, p->dir, 0, PATH_LEN, NULL, NULL,
       "  -p DIR                 partition directory (default: " PM_DEFAULT_PART_DIR ")\n", 0},
      {"-o", S, p->out_h5, 0, PATH_LEN, NULL, NULL,
       "  -o FILE.h5             result file (default: result.h5, with result.xmf beside it)\n", 0},
      {"--no-output", F, &p->no_output, 0, 0, NULL, NULL,
       "  --no-output            write no result file (benchmarks)\n", 0},
      {"--source", X, NULL, 0, 0, NULL, opt_bc,
       "  --source [GROUP=]F     source f, constant or expression in x, y (default 1);\n"
       "                         GROUP= applies it to the elements of a physical group\n",
       0},
      {"--conductivity", X, NULL, 0, 0, NULL, opt_bc, "  --conductivity [GROUP=]K   conductivity k (default 1)\n", 0},
      {"--area", D, &p->area, 1e-300, 1e300, NULL, NULL,
       "  --area A               cross-section of a 1D bar (default 1)\n", 0},
      {"--dirichlet", X, NULL, 0, 0, NULL, opt_bc,
       "  --dirichlet GROUP=VALUE    u = VALUE on the nodes of GROUP (repeatable; default:\n"
       "                         boundary=0 when neither --dirichlet nor --neumann is given,\n"
       "                         xmin=0 with the lecture's control file)\n",
       0},
      {"--neumann", X, NULL, 0, 0, NULL, opt_bc,
       "  --neumann GROUP=FLUX   k du/dn = FLUX on the boundary faces of GROUP (repeatable)\n", 0},
      {"--scheme", C, &p->scheme, 0, 0, "fem|fdm5", NULL,
       "  --scheme fem|fdm5      Galerkin FEM (default) or the 5-point finite differences\n"
       "                         (structured grids partitioned with --halo edge)\n",
       0},
      {"--precond", C, &p->precond, 0, 0, "none|jacobi|amg", NULL,
       "  --precond none|jacobi|amg  preconditioner (default jacobi; amg: smoothed aggregation)\n", 0},
      {"--amg-threshold", D, &p->amg_threshold, -1e300, 1e300, NULL, NULL,
       "  --amg-threshold X      AMG strength of connection, 0 <= X < 1 (default 0.08)\n", 0},
      {"--amg-smoother", X, NULL, 0, 0, NULL, opt_smoother,
       "  --amg-smoother NAME    chebyshev|jacobi|l1-jacobi (default chebyshev)\n", 0},
      {"--amg-sweeps", I, &p->amg_sweeps, INT32_MIN, INT32_MAX, NULL, NULL,
       "  --amg-sweeps K         smoothing steps before and after the coarse correction (default 2)\n", 0},
      {"--amg-levels", I, &p->amg_levels, INT32_MIN, INT32_MAX, NULL, NULL,
       "  --amg-levels L         at most L levels (default 10)\n", 0},
      {"--amg-coarse", I, &p->amg_coarse, INT32_MIN, INT32_MAX, NULL, NULL,
       "  --amg-coarse N         a level of at most N rows is the coarsest, factored (default 500)\n", 0},
      {"--rtol", D, &p->rtol, 0, 1, NULL, NULL,
       "  --rtol EPS             stop when ||r||/||b|| <= EPS (default 1e-8; 0: run --maxit)\n", 0},
      {"--maxit", I, &p->maxit, 0, INT32_MAX, NULL, NULL, "  --maxit N              iteration limit (default 10000)\n",
       0},
      {"--exchange", X, NULL, 0, 0, NULL, opt_exchange,
       "  --exchange NAME        isend|sendrecv|datatype|persistent|neighbor|pack (default %s)\n", 0},
      {"--monitor", I, &p->monitor, 1, INT32_MAX, NULL, NULL,
       "  --monitor K            print the residual every K iterations\n", 0},
      {"--exact", S, p->exact, 0, EXPR_LEN, "an expression", NULL,
       "  --exact EXPR           report max-norm and L2 errors against this solution\n", 0},
      {"--summary", S, p->summary, 0, PATH_LEN, NULL, NULL,
       "  --summary FILE.json    write the run's figures as JSON\n", 0},
      {"--dump-matrix", S, p->dump, 0, PATH_LEN, NULL, NULL,
       "  --dump-matrix PREFIX   write each rank's matrix rows to PREFIX.RANK\n", 0},
      {"--dump-solution", S, p->dump_u, 0, PATH_LEN, NULL, NULL,
       "  --dump-solution PREFIX write each rank's internal 'global_id x y u' lines to PREFIX.RANK\n"
       "                         (transient: the last step)\n",
       0},
      {"--dt", X, NULL, 0, 0, NULL, opt_dt,
       "  --dt DT --steps N      transient: N backward-Euler steps of DT from u^0 (Dirichlet values\n"
       "                         constant in time); the result is a series of steps 0, K, 2K, ..., N\n",
       0},
      {"--steps", X, NULL, 0, 0, NULL, opt_step, NULL, 0},
      {"--every", X, NULL, 0, 0, NULL, opt_step,
       "  --every K              write every K-th step (default 1; step 0 and the last always)\n", 0},
      {"--mass", C, &p->mass, 0, 0, "consistent|lumped", NULL,
       "  --mass consistent|lumped  mass matrix (default consistent; fdm5: lumped, the nodal value)\n", 0},
      {"--initial-value", S, p->initial_value, 0, EXPR_LEN, "an expression", NULL,
       "  --initial-value EXPR   u^0 (transient) or CG initial guess (steady) (default 0)\n", 0},
      {"--initial", S, p->initial, 0, PATH_LEN, NULL, NULL,
       "  --initial FILE.h5      u^0 or initial guess from an earlier result of the same mesh\n"
       "                         (any number of ranks); Dirichlet nodes keep their values\n",
       0},
      {"--initial-field", S, p->initial_field, 0, NAME_LEN, "a field name", NULL,
       "  --initial-field NAME   field to read (default u)\n", 0},
      {"--initial-step", X, NULL, 0, 0, NULL, opt_step,
       "  --initial-step K       stored step K of a series (/steps/K; default the last)\n", 0},
      {"--exchange-test", F, &p->exchange_test, 0, 0, NULL, NULL,
       "  --exchange-test        fill internal nodes with their global ids, exchange, check,\n"
       "                         print the lecture's RECVbuf lines\n",
       0},
      {NULL, F, NULL, 0, 0, NULL, NULL, NULL, 0}};
  const char *control = NULL;
  p->every = 1;
  p->mass = PM_MASS_CONSISTENT;
  p->initial_step = -1;
  strcpy(p->initial_field, "u");
  p->scheme = PM_SCHEME_FEM;
  p->precond = PRECOND_JACOBI;
  pm_amg_options_t ao;
  pm_amg_options_default(&ao);
  p->amg_threshold = ao.threshold;
  p->amg_smoother = (int)ao.smoother;
  p->amg_sweeps = ao.sweeps;
  p->amg_levels = ao.max_levels;
  p->amg_coarse = (int)ao.coarse_size;
  p->exchange = pm_exchange_default();
  p->maxit = 10000;
  p->rtol = 1e-8;
  p->area = 1.0;
  strcpy(p->dir, PM_DEFAULT_PART_DIR);
  strcpy(p->out_h5, "result.h5");
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      printf(
          "usage: mpiexec -n P solve [options] [CONTROL_FILE]\n"
          "       mpiexec -n P solve [-p DIR] --exchange-test [--exchange NAME]\n\n"
          "Solve -div(k grad u) = f on a partitioned mesh with parallel preconditioned CG, or with\n"
          "--dt and --steps the transient du/dt - div(k grad u) = f (backward Euler, one CG solve per\n"
          "step, the result a time series).  P must equal the number of parts of the partition.\n\n"
          "options:\n");
      pm_tool_usage(stdout, t, pm_exchange_name(pm_exchange_default()));
      printf(
          "  CONTROL_FILE           the lecture's input.dat: NEg / dX Q A COND / ITERmax / EPS\n"
          "  --help, --version\n");
      p->status = 2;
      return 0;
    }
    if (!strcmp(a, "--version")) {
      printf("solve (pmesh) %s\n", PMESH_VERSION);
      p->status = 2;
      return 0;
    }
    int rc = pm_tool_parse_opt(tool, t, p, argc, argv, &i);
    if (rc < 0) return -1;
    if (rc == 0) continue;
    if (a[0] == '-' && a[1]) {
      pm_tool_error(tool, "unknown option '%s' (see solve --help)", a);
      return -1;
    }
    if (control) {
      pm_tool_error(tool, "unexpected argument '%s': one control file at most", a);
      return -1;
    }
    control = a;
  }
  int set_dt = pm_tool_seen(t, "--dt"), set_every = pm_tool_seen(t, "--every"), set_mass = pm_tool_seen(t, "--mass");
  int set_field = pm_tool_seen(t, "--initial-field"), set_step = pm_tool_seen(t, "--initial-step");
  /* Transient options go together. */
  if (set_dt != (p->steps > 0)) {
    pm_tool_error(tool, "%s: a transient run needs both --dt DT and --steps N",
                  set_dt ? "--dt without --steps" : "--steps without --dt");
    return -1;
  }
  if (!set_dt && (set_every || set_mass)) {
    pm_tool_error(tool, "%s applies to transient runs: give --dt DT and --steps N too",
                  set_every ? "--every" : "--mass");
    return -1;
  }
  if (p->scheme == PM_SCHEME_FDM5 && set_dt) {
    if (set_mass && p->mass == PM_MASS_CONSISTENT) {
      pm_tool_error(tool,
                    "--mass consistent: --scheme fdm5 has no consistent mass matrix (its mass is the nodal "
                    "value, the identity): use --mass lumped, the default for fdm5");
      return -1;
    }
    p->mass = PM_MASS_LUMPED;
  }
  if (p->initial[0] && p->initial_value[0]) {
    pm_tool_error(tool, "--initial and --initial-value exclude each other: give one");
    return -1;
  }
  if (!p->initial[0] && (set_field || set_step)) {
    pm_tool_error(tool, "%s needs --initial FILE.h5", set_field ? "--initial-field" : "--initial-step");
    return -1;
  }
  /* XDMF beside the HDF5 file. */
  size_t len = strlen(p->out_h5);
  if (len < 3 || strcmp(p->out_h5 + len - 3, ".h5") != 0) {
    pm_tool_error(tool, "-o %s: the result file's name must end in .h5", p->out_h5);
    return -1;
  }
  snprintf(p->out_xmf, PATH_LEN, "%.*s.xmf", (int)(len - 3), p->out_h5);

  /* The partition's metadata: rank count, groups, fingerprint. */
  char path[PATH_LEN + 64];
  pm_meta_t *meta = NULL;
  pm_problem_t *prob = NULL;
  int ierr = pm_meta_path(p->dir, path, sizeof path);
  if (!ierr) ierr = pm_meta_read(path, &meta);
  if (ierr) {
    pm_tool_report(tool, ierr);
    fprintf(stderr, "%s: hint: make a partition first: partition MESH %d -o %s\n", tool, nranks, p->dir);
    return -1;
  }
  int rc = -1;
  p->nparts = meta->nparts;
  p->dim = meta->dim;
  p->fingerprint = meta->fingerprint;
  if (meta->nparts != nranks) {
    pm_tool_error(tool, "%s has %d parts but the job has %d ranks: run with mpiexec -n %d", p->dir, meta->nparts,
                  nranks, meta->nparts);
    goto done;
  }
  if (control) {
    pm_lecture_control_t c;
    ierr = pm_lecture_control_read(control, &c);
    if (ierr) {
      pm_tool_report(tool, ierr);
      goto done;
    }
    if (c.neg != meta->global_elems) {
      pm_tool_error(tool,
                    "%s: NEg = %" PRId64 ", but the partition in %s has %" PRId64
                    " elements (make it with: meshgen line %" PRId64 " %g)",
                    control, c.neg, p->dir, meta->global_elems, c.neg, c.dx);
      goto done;
    }
    if (!pm_tool_seen(t, "--source")) snprintf(p->src_expr[p->n_source++], EXPR_LEN, "%.17g", c.q);
    if (!pm_tool_seen(t, "--conductivity")) snprintf(p->cond_expr[p->n_cond++], EXPR_LEN, "%.17g", c.cond);
    if (!pm_tool_seen(t, "--area")) p->area = c.a;
    if (!pm_tool_seen(t, "--maxit")) p->maxit = (int)c.itermax;
    if (!pm_tool_seen(t, "--rtol")) p->rtol = c.eps;
    for (int g = 0; p->n_dir == 0 && g < meta->n_groups; g++)
      if (strcmp(meta->group_name[g], "xmin") == 0) {
        strcpy(p->dir_group[0], "xmin");
        strcpy(p->dir_expr[0], "0");
        p->n_dir = 1;
      }
  }
  if (p->n_source == 0) strcpy(p->src_expr[p->n_source++], "1");
  if (p->n_cond == 0) strcpy(p->cond_expr[p->n_cond++], "1");
  if (p->n_dir == 0 && p->n_neu == 0 && !p->exchange_test) {
    strcpy(p->dir_group[0], "boundary");
    strcpy(p->dir_expr[0], "0");
    p->n_dir = 1;
  }
  /* The problem against the mesh's groups, and every expression (the ranks would all fail alike
   * later; say it once, here, with the option concerned). */
  pm_problem_item_t bad = PM_PROBLEM_NONE;
  ierr = build_problem(p, &prob);
  if (!ierr) ierr = pm_problem_check(prob, meta, &bad);
  const char *single[2] = {p->exact, p->initial_value};
  for (int w = 0; w < 2 && !ierr; w++) {
    pm_expr_t *ex = NULL;
    if (single[w][0]) ierr = pm_expr_create(single[w], &ex);
    pm_expr_destroy(&ex);
  }
  if (ierr) {
    static const char *opt[] = {"", "--source: ", "--conductivity: ", "--dirichlet: ", "--neumann: "};
    pm_error_prefix(opt[bad]);
    pm_tool_report(tool, ierr);
    goto done;
  }
  if (p->precond == PRECOND_AMG) {
    amg_options(p, &ao);
    if (pm_amg_options_check(&ao)) {
      pm_tool_error(tool, "--precond amg: %s (--amg-threshold, --amg-sweeps, --amg-levels, --amg-coarse)",
                    pm_error_message());
      goto done;
    }
  }
  rc = 0;
done:
  pm_problem_destroy(&prob);
  pm_meta_destroy(&meta);
  return rc;
}

/* Print a library error on the rank that failed, with its rank (the other ranks return
 * PM_ERR_REMOTE: that rank printed why).  Returns nonzero for any error. */
static int report(int rank, int ierr) {
  if (ierr && ierr != PM_ERR_REMOTE) {
    const char *msg = pm_error_message();
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

/* --dump-solution: each rank's internal 'global_id x y u' lines. */
static int dump_solution(const params_t *p, const pm_local_t *l, const double *u, int rank) {
  char path[PATH_LEN + 32];
  snprintf(path, sizeof path, "%s.%d", p->dump_u, rank);
  pm_tool_out_t o;
  if (pm_tool_open(tool, &o, path)) return PM_ERR_IO;
  for (int32_t i = 0; i < l->n_internal; i++)
    fprintf(o.fp, "%" PRId64 " %.17g %.17g %.17g\n", l->gid[i], l->xyz[3 * i], l->xyz[3 * i + 1], u[i]);
  return pm_tool_close(tool, &o, 1) ? PM_ERR_IO : PM_OK;
}

/* Rank 0: the figures of the run on stdout and, with --summary, as JSON. */
static void print_report(const params_t *p, int size, const pm_run_result_t *r, const pm_pc_t *pc, double t_load,
                         double t_total) {
  int transient = p->steps > 0, fdm5 = p->scheme == PM_SCHEME_FDM5;
  const pm_cg_result_t *res = &r->cg;
  int it = res->iterations > 0 ? res->iterations : 1;
  const char *scheme = fdm5 ? "fdm5" : "fem", *precond = precond_names[p->precond];
  const char *mass = p->mass == PM_MASS_LUMPED ? "lumped" : "consistent";
  const char *exchange = pm_exchange_name((pm_exchange_t)p->exchange);
  double it_avg = r->steps_done ? (double)r->it_total / r->steps_done : 0.0;
  printf("solve: %d ranks, %" PRId64 " unknowns (%" PRId64 " fixed), scheme %s, precond %s, exchange %s\n", size,
         r->unknowns, r->fixed, scheme, precond, exchange);
  if (transient) {
    const char *init = p->initial[0] ? p->initial : p->initial_value[0] ? p->initial_value : "0";
    printf("transient: %d steps of dt %.6g to t = %.6g, mass %s%s, initial %s\n", r->steps_done, p->dt,
           r->steps_done * p->dt, mass, fdm5 ? " (fdm5: the nodal value)" : "", init);
    printf("cg: %s, %" PRId64
           " iterations in total, per step min %d avg %.2f max %d, worst ||r||/||b|| = %.3e "
           "(rtol %.1e)\n",
           r->converged ? "every step converged" : "NOT converged", r->it_total, r->it_min, it_avg, r->it_max,
           r->residual_max, p->rtol);
  } else {
    printf("cg: %s after %d iterations, ||r||/||b|| = %.3e (rtol %.1e)\n",
           res->converged ? "converged" : "NOT converged", res->iterations, res->residual, p->rtol);
  }
  printf(
      "time per iteration %.3f ms: spmv %.3f, exchange %.3f, reductions %.3f, vector updates %.3f "
      "(solver set-up %.3f s apart)\n",
      1e3 * (res->t_total - res->t_setup) / it, 1e3 * res->t_spmv / it, 1e3 * res->t_exchange / it,
      1e3 * res->t_reduce / it, 1e3 * res->t_update / it, res->t_setup);
  if (p->precond == PRECOND_AMG) pm_pc_view(pc, stdout, 0);
  printf("u: min %.10g max %.10g%s\n", r->u_min, r->u_max, transient ? " (last step)" : "");
  if (p->exact[0]) printf("error against %s: max %.6e, L2 %.6e\n", p->exact, r->error_max, r->error_l2);
  printf("seconds: load %.3f, assembly %.3f, solve %.3f, output %.3f, total %.3f\n", t_load, r->t_assembly,
         res->t_total, r->t_output, t_total);
  if (!p->no_output && (r->converged || !transient))
    printf("result: %s (%s beside it, open it in ParaView)%s\n", p->out_h5, p->out_xmf,
           transient ? ": a time series" : "");
  pm_tool_out_t o;
  if (p->summary[0] && !pm_tool_open(tool, &o, p->summary)) {
    fprintf(o.fp,
            "{\n  \"tool\": \"solve\",\n  \"version\": \"%s\",\n  \"ranks\": %d,\n  \"unknowns\": %" PRId64
            ",\n  \"fixed\": %" PRId64
            ",\n  \"scheme\": \"%s\",\n  \"precond\": \"%s\",\n  \"exchange\": \"%s\",\n"
            "  \"iterations\": %d,\n  \"converged\": %s,\n  \"residual\": %.17g,\n  \"u_min\": %.17g,\n  "
            "\"u_max\": %.17g,\n",
            PMESH_VERSION, size, r->unknowns, r->fixed, scheme, precond, exchange, res->iterations,
            r->converged ? "true" : "false", transient ? r->residual_max : res->residual, r->u_min, r->u_max);
    if (transient)
      fprintf(o.fp,
              "  \"transient\": {\"dt\": %.17g, \"steps\": %d, \"steps_done\": %d, \"time\": %.17g, \"every\": %d,"
              " \"mass\": \"%s\",\n                \"iterations_total\": %" PRId64
              ", \"iterations_min\": %d, \"iterations_avg\": %.6f, \"iterations_max\": %d,\n"
              "                \"steps_written\": %d},\n",
              p->dt, p->steps, r->steps_done, r->steps_done * p->dt, p->every, mass, r->it_total, r->it_min, it_avg,
              r->it_max, r->steps_written);
    if (p->exact[0]) fprintf(o.fp, "  \"error_max\": %.17g,\n  \"error_l2\": %.17g,\n", r->error_max, r->error_l2);
    if (p->precond == PRECOND_AMG) {
      fprintf(o.fp, "  \"amg\": {");
      pm_pc_view(pc, o.fp, 1);
      fprintf(o.fp, "},\n");
    }
    fprintf(o.fp,
            "  \"seconds\": {\"load\": %.6f, \"assembly\": %.6f, \"solve\": %.6f, \"solver_setup\": %.6f, "
            "\"per_iteration\": %.9f,\n"
            "              \"spmv\": %.6f, \"exchange\": %.6f, \"reductions\": %.6f, \"vector_updates\": %.6f,\n"
            "              \"output\": %.6f, \"total\": %.6f},\n  \"output_bytes\": %" PRId64 "\n}\n",
            t_load, r->t_assembly, res->t_total, res->t_setup, (res->t_total - res->t_setup) / it, res->t_spmv,
            res->t_exchange, res->t_reduce, res->t_update, r->t_output, t_total, p->no_output ? 0 : r->output_bytes);
    pm_tool_close(tool, &o, 1);
  }
  if (!r->converged && transient)
    fprintf(stderr,
            "%s: error: CG did not converge at step %d (t = %g) in %d iterations (||r||/||b|| = %.3e > rtol %.1e); "
            "no result was written (a smaller --dt or a larger --maxit may help)\n",
            tool, r->failed_step, r->failed_step * p->dt, r->failed_iterations, r->failed_residual, p->rtol);
  else if (!r->converged)
    fprintf(stderr, "%s: error: CG did not converge in %d iterations (||r||/||b|| = %.3e > rtol %.1e)\n", tool,
            res->iterations, res->residual, p->rtol);
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
  if (rank == 0 && parse(argc, argv, size, p)) p->status = 1;
  MPI_Request q;
  if (pm_comm_wait(MPI_Ibcast(p, 1, ptype, 0, comm, &q), &q) != MPI_SUCCESS) MPI_Abort(comm, 1);
  if (p->status) {
    status = p->status == 2 ? EXIT_SUCCESS : EXIT_FAILURE;
    goto finish;
  }

  /* Load: every rank its own file (and the partition's small metadata file). */
  if (report(rank, pm_partition_load(comm, p->dir, (pm_exchange_t)p->exchange, &part))) goto finish;
  double t_load = MPI_Wtime() - t0;
  if (p->exchange_test) {
    status = exchange_test(p, part);
    goto finish;
  }

  /* The problem, the preconditioner, the run. */
  int32_t nt = part->local->n_total + part->local->n_aux;
  ierr = build_problem(p, &prob);
  if (!ierr) ierr = precond_create(p, &pc);
  if (!ierr) ierr = PM_MALLOC(u, nt > 0 ? nt : 1, "solution");
  if (report(rank, pm_comm_agree(comm, ierr))) goto finish;
  pm_run_options_t o = pm_run_options_default();
  o.cg = (pm_cg_options_t){p->rtol, p->maxit, p->monitor, stdout};
  o.dt = p->dt;
  o.steps = p->steps;
  o.every = p->every;
  o.mass = (pm_mass_t)p->mass;
  if (p->initial_value[0]) o.initial.value = pm_value_expr(p->initial_value);
  if (p->initial[0]) o.initial = (pm_run_initial_t){{NULL, NULL, NULL}, p->initial, p->initial_field, p->initial_step};
  if (p->exact[0]) o.exact = pm_value_expr(p->exact);
  if (!p->no_output) o.output = p->out_h5;
  o.output_xmf = p->out_xmf;
  if (p->dump[0]) o.on_assembled = dump_matrix, o.on_assembled_ctx = p;
  pm_run_result_t r;
  ierr = p->steps > 0 ? pm_run_transient(part, prob, pc, &o, u, &r) : pm_run_steady(part, prob, pc, &o, u, &r);
  if (report(rank, ierr)) {
    if (rank == 0 && p->steps == 0 && r.unknowns > 0 && r.fixed == 0)
      fprintf(stderr, "%s: hint: add --dirichlet GROUP=VALUE\n", tool);
    goto finish;
  }
  if (p->dump_u[0] && report(rank, pm_comm_agree(comm, dump_solution(p, part->local, u, rank)))) goto finish;
  if (rank == 0) print_report(p, size, &r, pc, t_load, MPI_Wtime() - t0);
  status = r.converged ? EXIT_SUCCESS : EXIT_FAILURE;
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
