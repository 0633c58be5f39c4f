/* solve_args.c - the command line of solve: the option table (which also prints the usage
 * text), the lecture's control file and the checks of the options against each other and against
 * the partition's metadata, all on rank 0, into the params_t that solve.c broadcasts. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pm_tool.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_lecture.h"
#include "pmesh/pm_run.h"
#include "pmesh/pm_version.h"
#include "solve.h"

/* --source, --conductivity ([GROUP=]EXPR), --dirichlet, --neumann (GROUP=EXPR). */
static int opt_bc(void *ctx, const char *opt, const char *v) {
  params_t *p = ctx;
  int which = !strcmp(opt, "--source") ? 0 : !strcmp(opt, "--conductivity") ? 1 : !strcmp(opt, "--dirichlet") ? 2 : 3;
  int *cnt[4] = {&p->n_source, &p->n_cond, &p->n_dir, &p->n_neu}, need_group = which >= 2;
  char(*grp[4])[NAME_LEN] = {p->src_group, p->cond_group, p->dir_group, p->neu_group};
  char(*ex[4])[EXPR_LEN] = {p->src_expr, p->cond_expr, p->dir_expr, p->neu_expr};
  if (*cnt[which] == MAXBC) return pm_tool_error(tool, "%s: at most %d of them", opt, MAXBC);
  const char *eq = strchr(v, '=');
  if (!eq && need_group) return pm_tool_error(tool, "%s %s: expected GROUP=VALUE", opt, v);
  size_t gl = eq ? (size_t)(eq - v) : 0;
  const char *e = eq ? eq + 1 : v;
  if ((eq && gl == 0) || gl >= NAME_LEN || strlen(e) >= EXPR_LEN || e[0] == '\0')
    return pm_tool_error(tool, "%s %s: expected %sVALUE with a group name below %d and a value below %d characters",
                         opt, v, need_group ? "GROUP=" : "[GROUP=]", NAME_LEN, EXPR_LEN);
  memcpy(grp[which][*cnt[which]], v, gl);
  grp[which][*cnt[which]][gl] = '\0';
  strcpy(ex[which][(*cnt[which])++], e);
  return 0;
}

/* --robin GROUP=H,U_INF: the comma outside parentheses splits the two expressions. */
static int opt_robin(void *ctx, const char *opt, const char *v) {
  params_t *p = ctx;
  if (p->n_rob == MAXBC) return pm_tool_error(tool, "%s: at most %d of them", opt, MAXBC);
  const char *eq = strchr(v, '='), *comma = NULL;
  int depth = 0, commas = 0;
  for (const char *c = eq ? eq + 1 : v; *c; c++) {
    depth += (*c == '(') - (*c == ')');
    if (*c == ',' && depth == 0) {
      commas++;
      comma = c;
    }
  }
  size_t gl = eq ? (size_t)(eq - v) : 0, hl = comma && eq ? (size_t)(comma - eq - 1) : 0;
  if (!eq || gl == 0 || commas != 1 || hl == 0 || !comma[1])
    return pm_tool_error(tool, "%s %s: expected GROUP=H,U_INF (the flux k du/dn = H (U_INF - u))", opt, v);
  if (gl >= NAME_LEN || hl >= EXPR_LEN || strlen(comma + 1) >= EXPR_LEN)
    return pm_tool_error(tool, "%s %s: a group name below %d and values below %d characters", opt, v, NAME_LEN,
                         EXPR_LEN);
  memcpy(p->rob_group[p->n_rob], v, gl);
  p->rob_group[p->n_rob][gl] = '\0';
  memcpy(p->rob_h[p->n_rob], eq + 1, hl);
  p->rob_h[p->n_rob][hl] = '\0';
  strcpy(p->rob_uinf[p->n_rob++], comma + 1);
  return 0;
}

static int opt_dt(void *ctx, const char *opt, const char *v) {
  params_t *p = ctx;
  char *end;
  p->dt = strtod(v, &end);
  if (!v[0] || *end || !isfinite(p->dt) || !(p->dt > 0))
    return pm_tool_error(tool, "%s %s: the time step must be a positive finite number", opt, v);
  return 0;
}

/* --steps, --every, --initial-step. */
static int opt_step(void *ctx, const char *opt, const char *v) {
  params_t *p = ctx;
  int64_t iv, lo = !strcmp(opt, "--initial-step") ? 0 : 1;
  if (pm_tool_int(tool, opt, v, INT64_MIN, INT64_MAX, &iv)) return -1;
  if (iv < lo || iv > INT32_MAX)
    return pm_tool_error(tool, "%s %s: expected %s", opt, v,
                         lo ? "at least 1" : "a step number >= 0 (omit it for the last step)");
  *(!strcmp(opt, "--steps") ? &p->steps : lo ? &p->every : &p->initial_step) = (int)iv;
  return 0;
}

static int opt_refine(void *ctx, const char *opt, const char *v) {
  int64_t k;
  if (pm_tool_int(tool, opt, v, INT64_MIN, INT64_MAX, &k)) return -1;
  if (k < 0) return pm_tool_error(tool, "%s %s: the number of uniform refinements must be 0 (none) or more", opt, v);
  /* The size a K allows is checked on the loaded mesh, with the figures; past 64 even 2^K
   * overflows every index type. */
  if (k > 64)
    return pm_tool_error(tool, "%s %s: each refinement doubles (1D) or quadruples (2D) the mesh: at most 64", opt, v);
  ((params_t *)ctx)->refine = (int)k;
  return 0;
}

static int opt_smoother(void *ctx, const char *opt, const char *v) {
  pm_amg_smoother_t sm;
  if (pm_amg_smoother_parse(v, &sm)) return pm_tool_error(tool, "%s: %s", opt, pm_error_message());
  ((params_t *)ctx)->amg_smoother = (int)sm;
  return 0;
}

static int opt_precision(void *ctx, const char *opt, const char *v) {
  pm_amg_precision_t pr;
  if (pm_amg_precision_parse(v, &pr)) return pm_tool_error(tool, "%s: %s", opt, pm_error_message());
  ((params_t *)ctx)->amg_precision = (int)pr;
  return 0;
}

static int opt_exchange(void *ctx, const char *opt, const char *v) {
  pm_exchange_t k;
  (void)opt;
  if (pm_exchange_parse(v, &k)) return pm_tool_report(tool, PM_ERR_ARG);
  ((params_t *)ctx)->exchange = (int)k;
  return 0;
}

int solve_parse(int argc, char **argv, int nranks, params_t *p) {
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
       "                         boundary=0 without --dirichlet, --neumann and --robin,\n"
       "                         xmin=0 with the lecture's control file)\n",
       0},
      {"--neumann", X, NULL, 0, 0, NULL, opt_bc,
       "  --neumann GROUP=FLUX   k du/dn = FLUX on the boundary faces of GROUP (repeatable)\n", 0},
      {"--robin", X, NULL, 0, 0, NULL, opt_robin,
       "  --robin GROUP=H,U_INF  convection k du/dn = H (U_INF - u) on the boundary faces of GROUP\n"
       "                         (repeatable; fem only; H >= 0, constant in time)\n",
       0},
      {"--scheme", C, &p->scheme, 0, 0, "fem|fdm5", NULL,
       "  --scheme fem|fdm5      Galerkin FEM (default) or the 5-point finite differences\n"
       "                         (structured grids partitioned with --halo edge)\n",
       0},
      {"--precond", C, &p->precond, 0, 0, "none|jacobi|amg|mg", NULL,
       "  --precond none|jacobi|amg|mg  preconditioner (default jacobi; amg: smoothed aggregation;\n"
       "                         mg: geometric multigrid over the --refine levels, AMG below them)\n",
       0},
      {"--mg-coarse", C, &p->mg_coarse, 0, 0, "rediscretize|galerkin", NULL,
       "  --mg-coarse rediscretize|galerkin  mg's coarse operators: the problem assembled on\n"
       "                         each coarser mesh (default) or P^T A P\n",
       0},
      {"--refine", X, NULL, 0, 0, NULL, opt_refine,
       "  --refine K             refine the partition uniformly K times in parallel after loading\n"
       "                         (default 0); the run and its result are the fine mesh's\n",
       0},
      {"--dump-local", S, p->dump_local, 0, PATH_LEN, NULL, NULL,
       "  --dump-local DIR       write the (refined) local meshes and partition.meta to DIR\n"
       "                         (partition --check DIR validates them), then run\n",
       0},
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
      {"--amg-rows-per-rank", I, &p->amg_rows_per_rank, INT32_MIN, INT32_MAX, NULL, NULL,
       "  --amg-rows-per-rank N  a coarse level with fewer than N rows per rank moves onto fewer\n"
       "                         ranks, eventually one (default 2000; 0: never)\n",
       0},
      {"--amg-precision", X, NULL, 0, 0, NULL, opt_precision,
       "  --amg-precision P      single|double: the V-cycle's values and vectors (amg and mg; default\n"
       "                         single: half the bytes per cycle; CG itself stays in double)\n",
       0},
      {"--rtol", D, &p->rtol, 0, 1, NULL, NULL,
       "  --rtol EPS             stop when ||r||/||b|| <= EPS (default 1e-8; 0: run --maxit)\n", 0},
      {"--maxit", I, &p->maxit, 0, INT32_MAX, NULL, NULL, "  --maxit N              iteration limit (default 10000)\n",
       0},
      {"--reproducible", F, &p->reproducible, 0, 0, NULL, NULL,
       "  --reproducible         sum dot products exactly: with --precond none or jacobi the\n"
       "                         solution, residual history and iteration count are bitwise the\n"
       "                         same for any number of ranks and partition (and so is the\n"
       "                         result file, which then leaves out the owner ranks)\n",
       0},
      {"--exchange", X, NULL, 0, 0, NULL, opt_exchange,
       "  --exchange NAME        isend|sendrecv|datatype|persistent|neighbor|pack (default %s)\n", 0},
      {"--monitor", I, &p->monitor, 1, INT32_MAX, NULL, NULL,
       "  --monitor K            print the residual every K iterations\n", 0},
      {"--exact", S, p->exact, 0, EXPR_LEN, "an expression", NULL,
       "  --exact EXPR           report max-norm and L2 errors against this solution\n", 0},
      {"--history", S, p->history, 0, PATH_LEN, NULL, NULL,
       "  --history FILE         write 'iteration ||r||/||b||' lines, every iteration at full\n"
       "                         precision (transient: each step's, one after the other)\n",
       0},
      {"--summary", S, p->summary, 0, PATH_LEN, NULL, NULL,
       "  --summary FILE.json    write the run's figures as JSON\n", 0},
      {"--dump-matrix", S, p->dump, 0, PATH_LEN, NULL, NULL,
       "  --dump-matrix PREFIX   write each rank's matrix rows to PREFIX.RANK\n", 0},
      {"--dump-solution", S, p->dump_u, 0, PATH_LEN, NULL, NULL,
       "  --dump-solution PREFIX write each rank's internal 'global_id x y u' lines to PREFIX.RANK\n"
       "                         (transient: the last step)\n",
       0},
      {"--dt", X, NULL, 0, 0, NULL, opt_dt,
       "  --dt DT --steps N      transient: N backward-Euler steps of DT from u^0; sources and\n"
       "                         boundary values may use the time t (step n at t = n DT);\n"
       "                         the result is a series of steps 0, K, 2K, ..., N\n",
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
  p->amg_rows_per_rank = (int)ao.rows_per_rank;
  p->amg_precision = (int)ao.precision;
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
    if (a[0] == '-' && a[1]) return pm_tool_error(tool, "unknown option '%s' (see solve --help)", a);
    if (control) return pm_tool_error(tool, "unexpected argument '%s': one control file at most", a);
    control = a;
  }
  int set_dt = pm_tool_seen(t, "--dt"), set_every = pm_tool_seen(t, "--every"), set_mass = pm_tool_seen(t, "--mass");
  int set_field = pm_tool_seen(t, "--initial-field"), set_step = pm_tool_seen(t, "--initial-step");
  /* Transient options go together. */
  if (set_dt != (p->steps > 0))
    return pm_tool_error(tool, "%s: a transient run needs both --dt DT and --steps N",
                         set_dt ? "--dt without --steps" : "--steps without --dt");
  if (!set_dt && (set_every || set_mass))
    return pm_tool_error(tool, "%s applies to transient runs: give --dt DT and --steps N too",
                         set_every ? "--every" : "--mass");
  if (p->scheme == PM_SCHEME_FDM5 && set_dt) {
    if (set_mass && p->mass == PM_MASS_CONSISTENT)
      return pm_tool_error(tool,
                           "--mass consistent: --scheme fdm5 has no consistent mass matrix (its mass is the nodal "
                           "value, the identity): use --mass lumped, the default for fdm5");
    p->mass = PM_MASS_LUMPED;
  }
  if (p->precond == PRECOND_MG && p->refine < 1)
    return pm_tool_error(tool,
                         "--precond mg needs --refine K with K >= 1: its levels are the partition as loaded and its "
                         "K uniform refinements (on the partition as loaded use --precond amg)");
  if (p->initial[0] && p->initial_value[0])
    return pm_tool_error(tool, "--initial and --initial-value exclude each other: give one");
  if (!p->initial[0] && (set_field || set_step))
    return pm_tool_error(tool, "%s needs --initial FILE.h5", set_field ? "--initial-field" : "--initial-step");
  /* A refined dump over the partition it was made from would replace the coarse partition. */
  struct stat sd, sp;
  if (p->dump_local[0] && stat(p->dump_local, &sd) == 0 && stat(p->dir, &sp) == 0 && sd.st_dev == sp.st_dev &&
      sd.st_ino == sp.st_ino)
    return pm_tool_error(tool, "--dump-local %s is the partition solve reads (-p %s): give another directory",
                         p->dump_local, p->dir);
  /* XDMF beside the HDF5 file. */
  size_t len = strlen(p->out_h5);
  if (len < 3 || strcmp(p->out_h5 + len - 3, ".h5") != 0)
    return pm_tool_error(tool, "-o %s: the result file's name must end in .h5", p->out_h5);
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
  if (p->n_dir == 0 && p->n_neu == 0 && p->n_rob == 0 && !p->exchange_test) {
    strcpy(p->dir_group[0], "boundary");
    strcpy(p->dir_expr[0], "0");
    p->n_dir = 1;
  }
  /* The problem against the mesh's groups, and every expression (the ranks would all fail alike
   * later; say it once, here, with the option concerned). */
  pm_problem_item_t bad = PM_PROBLEM_NONE;
  ierr = solve_build_problem(p, &prob);
  if (!ierr) ierr = pm_problem_check(prob, meta, &bad);
  const char *single[2] = {p->exact, p->initial_value};
  for (int w = 0; w < 2 && !ierr; w++) {
    pm_expr_t *ex = NULL;
    if (single[w][0]) ierr = pm_expr_create(single[w], &ex);
    pm_expr_destroy(&ex);
  }
  /* A steady run has no time: t in its data or in --exact is refused. */
  if (!ierr && p->steps == 0 && pm_problem_depends_on_time(prob, &bad))
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "uses the time t, which only a transient run (--dt DT --steps N) defines");
  if (!ierr && p->steps == 0 && p->exact[0] && pm_value_depends_on_time(pm_value_expr(p->exact)))
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "--exact: uses the time t, which only a transient run (--dt DT --steps N) defines");
  if (ierr) {
    static const char *opt[] = {"", "--source: ", "--conductivity: ", "--dirichlet: ", "--neumann: ", "--robin: "};
    pm_error_prefix(opt[bad]);
    pm_tool_report(tool, ierr);
    goto done;
  }
  if (p->precond == PRECOND_AMG || p->precond == PRECOND_MG) {
    solve_amg_options(p, &ao);
    if (pm_amg_options_check(&ao)) {
      pm_tool_error(tool,
                    "--precond %s: %s (--amg-threshold, --amg-sweeps, --amg-levels, --amg-coarse, --amg-rows-per-rank)",
                    p->precond == PRECOND_MG ? "mg" : "amg", pm_error_message());
      goto done;
    }
  }
  rc = 0;
done:
  pm_problem_destroy(&prob);
  pm_meta_destroy(&meta);
  return rc;
}
