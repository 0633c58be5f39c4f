/* solve_args.c - the command line of solve: the option table (which also prints the usage
 * text) and the checks of the options against each other and against the partition's metadata,
 * all on rank 0, into the params_t that solve.c broadcasts.  The problem's options (groups,
 * boundary conditions, the control file) are solve_opts_problem.c's, the options as text
 * solve_opts_text.c's. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pm_tool.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_run.h"
#include "pmesh/pm_version.h"
#include "solve.h"

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

/* The option table, in the order of the usage text, each entry with its lines of it. */
enum { N_OPTIONS = 48 };

/* The first part: files, the problem, the scheme and the preconditioner.  Returns its length. */
static size_t options_problem(params_t *p, pm_tool_opt_t *t) {
  const pm_tool_kind_t F = PM_TOOL_FLAG, D = PM_TOOL_DOUBLE, S = PM_TOOL_STRING, C = PM_TOOL_CHOICE, X = PM_TOOL_CALL;
  const pm_tool_opt_t table[] = {
      {"-p", S, p->dir, 0, PATH_LEN, NULL, NULL,
       "  -p DIR                 partition directory (default: " PM_DEFAULT_PART_DIR ")\n", 0},
      {"-o", S, p->out_h5, 0, PATH_LEN, NULL, NULL,
       "  -o FILE.h5             result file (default: result.h5, with result.xmf beside it)\n", 0},
      {"--no-output", F, &p->no_output, 0, 0, NULL, NULL,
       "  --no-output            write no result file (benchmarks)\n", 0},
      {"--source", X, NULL, 0, 0, NULL, solve_opt_bc,
       "  --source [GROUP=]F     source f, constant or expression in x, y (default 1);\n"
       "                         GROUP= applies it to the elements of a physical group (repeatable;\n"
       "                         the elements of no GROUP= given keep the value without GROUP=, 1)\n",
       0},
      {"--conductivity", X, NULL, 0, 0, NULL, solve_opt_bc,
       "  --conductivity [GROUP=]K  conductivity k > 0 (default 1; GROUP= as for --source)\n", 0},
      {"--area", D, &p->area, 1e-300, 1e300, NULL, NULL,
       "  --area A               cross-section of a 1D bar (default 1; 1D meshes only)\n", 0},
      {"--dirichlet", X, NULL, 0, 0, NULL, solve_opt_bc,
       "  --dirichlet GROUP=VALUE    u = VALUE on the nodes of GROUP (repeatable; default:\n"
       "                         boundary=0 without --dirichlet, --neumann and --robin,\n"
       "                         xmin=0 with the lecture's control file)\n",
       0},
      {"--neumann", X, NULL, 0, 0, NULL, solve_opt_bc,
       "  --neumann GROUP=FLUX   k du/dn = FLUX on the boundary faces of GROUP (repeatable)\n", 0},
      {"--robin", X, NULL, 0, 0, NULL, solve_opt_robin,
       "  --robin GROUP=H,U_INF  convection k du/dn = H (U_INF - u) on the boundary faces of GROUP\n"
       "                         (repeatable; fem only; H >= 0, constant in time)\n",
       0},
      {"--scheme", C, &p->scheme, 0, 0, "fem|fdm5|fdm7", NULL,
       "  --scheme fem|fdm5|fdm7  Galerkin FEM (default), the 5-point finite differences on a 2D\n"
       "                         grid (meshgen grid) or the 7-point ones on a 3D box of hexahedra\n"
       "                         (meshgen box), partitioned with --halo edge\n",
       0},
      {"--precond", C, &p->precond, 0, 0, "none|jacobi|amg|mg|auto", NULL,
       "  --precond none|jacobi|amg|mg|auto  preconditioner (amg: smoothed aggregation; mg:\n"
       "                         geometric multigrid over the --refine levels, AMG below them);\n"
       "                         default auto: amg from " AUTO_AMG_TEXT " unknowns up (where its set-up\n"
       "                         pays for itself on the bundled meshes), jacobi below and always\n"
       "                         with --reproducible (which AMG would break) and the control file\n",
       0},
      {"--mg-coarse", C, &p->mg_coarse, 0, 0, "rediscretize|galerkin", NULL,
       "  --mg-coarse rediscretize|galerkin  mg's coarse operators: the problem assembled on\n"
       "                         each coarser mesh (default) or P^T A P (needs --precond mg)\n",
       0},
  };
  memcpy(t, table, sizeof table);
  return sizeof table / sizeof *table;
}

/* The second part: refinement, AMG, CG, output, time steps, initial state; ends the table. */
static void options_solver(params_t *p, pm_tool_opt_t *t) {
  const pm_tool_kind_t F = PM_TOOL_FLAG, I = PM_TOOL_INT, D = PM_TOOL_DOUBLE, S = PM_TOOL_STRING, C = PM_TOOL_CHOICE,
                       X = PM_TOOL_CALL;
  const pm_tool_opt_t table[] = {
      {"--refine", X, NULL, 0, 0, NULL, opt_refine,
       "  --refine K             refine the partition uniformly K times in parallel after loading\n"
       "                         (default 0); the run and its result are the fine mesh's\n",
       0},
      {"--dump-local", S, p->dump_local, 0, PATH_LEN, NULL, NULL,
       "  --dump-local DIR       write the (refined) local meshes and partition.meta to DIR\n"
       "                         (partition --check DIR validates them), then run\n",
       0},
      {"--amg-threshold", D, &p->amg_threshold, -1e300, 1e300, NULL, NULL,
       "  --amg-*                the AMG options below need --precond amg or mg (with auto they\n"
       "                         select amg)\n"
       "  --amg-threshold X      AMG strength of connection, 0 <= X < 1 (default 0.08; 0.02 on 3D\n"
       "                         meshes)\n",
       0},
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
       "                         ('global_id x y z u' on a 3D mesh)\n"
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
  memcpy(t, table, sizeof table);
}

static void options_table(params_t *p, pm_tool_opt_t t[N_OPTIONS]) {
  options_solver(p, t + options_problem(p, t));
}

static void set_defaults(params_t *p) {
  pm_amg_options_t ao;
  pm_amg_options_default(&ao);
  p->every = 1;
  p->mass = PM_MASS_CONSISTENT;
  p->initial_step = -1;
  strcpy(p->initial_field, "u");
  p->scheme = PM_SCHEME_FEM;
  p->precond = PRECOND_AUTO;
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
}

static void print_help(const pm_tool_opt_t *t) {
  printf(
      "usage: mpiexec -n P solve [options] [CONTROL_FILE]\n"
      "       mpiexec -n P solve [-p DIR] --exchange-test [--exchange NAME]\n\n"
      "Solve -div(k grad u) = f on a partitioned mesh with parallel preconditioned CG, or with\n"
      "--dt and --steps the transient du/dt - div(k grad u) = f (backward Euler, one CG solve per\n"
      "step, the result a time series).  P must equal the number of parts of the partition.\n"
      "Without options: the partition in " PM_DEFAULT_PART_DIR
      ", f = 1, k = 1, u = 0 on the group\n"
      "'boundary', the preconditioner chosen by the size (--precond auto), result.h5.\n\n"
      "An option that only applies together with another (--every and --mass with --dt, --amg-*\n"
      "with --precond amg or mg, --mg-coarse with --precond mg, --initial-field and\n"
      "--initial-step with --initial, --area with a 1D mesh) is refused without it, naming what\n"
      "it needs; values are checked before any work.  The result file records the whole\n"
      "problem (attributes source, conductivity, dirichlet, ..., command_line) and each\n"
      "element's physical group (cell field cell_group).\n\n"
      "options:\n");
  pm_tool_usage(stdout, t, pm_exchange_name(pm_exchange_default()));
  printf(
      "  CONTROL_FILE           the lecture's input.dat: NEg / dX Q A COND / ITERmax / EPS\n"
      "  --help, --version\n");
}

/* The command line into the table and p.  Returns 0, 1 after --help or --version, or -1 after
 * printing why. */
static int parse_argv(int argc, char **argv, pm_tool_opt_t *t, params_t *p, const char **control) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      print_help(t);
      return 1;
    }
    if (!strcmp(a, "--version")) {
      printf("solve (pmesh) %s\n", PMESH_VERSION);
      return 1;
    }
    int rc = pm_tool_parse_opt(tool, t, p, argc, argv, &i);
    if (rc < 0) return -1;
    if (rc == 0) continue;
    if (a[0] == '-' && a[1]) return pm_tool_error(tool, "unknown option '%s' (see solve --help)", a);
    if (*control) return pm_tool_error(tool, "unexpected argument '%s': one control file at most", a);
    *control = a;
  }
  return 0;
}

static const char *const amg_opts[] = {"--amg-threshold", "--amg-smoother",      "--amg-sweeps",   "--amg-levels",
                                       "--amg-coarse",    "--amg-rows-per-rank", "--amg-precision"};

/* The rule for options that depend on another: refused without it, naming what it needs. */
static int check_combinations(const pm_tool_opt_t *t, params_t *p) {
  int set_dt = pm_tool_seen(t, "--dt"), set_every = pm_tool_seen(t, "--every"), set_mass = pm_tool_seen(t, "--mass");
  int set_field = pm_tool_seen(t, "--initial-field"), set_step = pm_tool_seen(t, "--initial-step");
  if (set_dt != (p->steps > 0))
    return pm_tool_error(tool, "%s: a transient run needs both --dt DT and --steps N",
                         set_dt ? "--dt without --steps" : "--steps without --dt");
  if (!set_dt && (set_every || set_mass))
    return pm_tool_error(tool, "%s applies to transient runs: give --dt DT and --steps N too",
                         set_every ? "--every" : "--mass");
  if (p->scheme != PM_SCHEME_FEM && set_dt) {
    const char *s = pm_scheme_name((pm_scheme_t)p->scheme);
    if (set_mass && p->mass == PM_MASS_CONSISTENT)
      return pm_tool_error(tool,
                           "--mass consistent: --scheme %s has no consistent mass matrix (its mass is the nodal "
                           "value, the identity): use --mass lumped, the default for %s",
                           s, s);
    p->mass = PM_MASS_LUMPED;
  }
  for (size_t k = 0; k < sizeof amg_opts / sizeof *amg_opts; k++) {
    if (!pm_tool_seen(t, amg_opts[k])) continue;
    if (p->precond == PRECOND_AUTO) p->precond = PRECOND_AMG; /* an AMG option asks for AMG */
    if (p->precond != PRECOND_AMG && p->precond != PRECOND_MG)
      return pm_tool_error(tool, "%s applies to --precond amg or mg, not %s: give --precond amg", amg_opts[k],
                           p->precond == PRECOND_JACOBI ? "jacobi" : "none");
  }
  if (pm_tool_seen(t, "--mg-coarse") && p->precond != PRECOND_MG)
    return pm_tool_error(tool, "--mg-coarse applies to --precond mg: give --precond mg --refine K");
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
  return 0;
}

/* The folder a file of option opt goes to must exist and be writable (checked here, so that no
 * rank starts writing and MPI-IO's own error stack never shows). */
static int check_folder(const char *opt, const char *path) {
  char dir[PATH_LEN];
  const char *slash = strrchr(path, '/');
  if (!slash) return 0;
  snprintf(dir, sizeof dir, "%.*s", slash == path ? 1 : (int)(slash - path), path);
  struct stat sb;
  if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return pm_tool_error(tool, "%s %s: cannot create it: the folder %s does not exist (mkdir -p %s first)", opt, path,
                         dir, dir);
  if (access(dir, W_OK | X_OK) != 0)
    return pm_tool_error(tool, "%s %s: cannot create it in the folder %s: %s", opt, path, dir, strerror(errno));
  return 0;
}

/* The files solve writes and reads, checked before any rank starts. */
static int check_files(params_t *p) {
  size_t len = strlen(p->out_h5);
  if (len < 3 || strcmp(p->out_h5 + len - 3, ".h5") != 0)
    return pm_tool_error(tool, "-o %s: the result file's name must end in .h5", p->out_h5);
  snprintf(p->out_xmf, PATH_LEN, "%.*s.xmf", (int)(len - 3), p->out_h5);
  if (!p->no_output && check_folder("-o", p->out_h5)) return -1;
  const char *opt[] = {"--summary", "--history", "--dump-matrix", "--dump-solution"};
  const char *path[] = {p->summary, p->history, p->dump, p->dump_u};
  for (int k = 0; k < 4; k++)
    if (path[k][0] && check_folder(opt[k], path[k])) return -1;
  if (p->initial[0] && access(p->initial, R_OK) != 0)
    return pm_tool_error(tool, "--initial %s: cannot open: %s", p->initial, strerror(errno));
  return 0;
}

/* The partition's metadata, with a hint that fits what -p names. */
static int read_meta(const params_t *p, int nranks, pm_meta_t **meta) {
  char path[PATH_LEN + 64];
  int ierr = pm_meta_path(p->dir, path, sizeof path);
  if (!ierr) ierr = pm_meta_read(path, meta);
  if (!ierr) return 0;
  pm_tool_report(tool, ierr);
  struct stat sb;
  size_t len = strlen(p->dir);
  int is_file = stat(p->dir, &sb) == 0 && S_ISREG(sb.st_mode);
  if (is_file && len > 4 && !strcmp(p->dir + len - 4, ".geo"))
    fprintf(stderr,
            "%s: hint: -p takes a partition directory, %s is a Gmsh geometry: mesh it (gmsh -2 %s, or gmsh -3 for "
            "3D), then partition MESH.msh %d and solve -p " PM_DEFAULT_PART_DIR "\n",
            tool, p->dir, p->dir, nranks);
  else if (is_file)
    fprintf(stderr,
            "%s: hint: -p takes a partition directory, not a mesh: partition %s %d, then solve -p " PM_DEFAULT_PART_DIR
            "\n",
            tool, p->dir, nranks);
  else
    fprintf(stderr, "%s: hint: make a partition first: partition MESH.msh %d -o %s\n", tool, nranks, p->dir);
  return -1;
}

/* What the mesh's dimension allows: the scheme of that dimension, --area on bars, --refine and
 * --precond mg (over the refinement levels) not yet in 3D. */
static int check_dim(const pm_tool_opt_t *t, const params_t *p, const pm_meta_t *meta) {
  int dim = meta->dim;
  if (p->scheme == PM_SCHEME_FDM5 && dim != 2)
    return pm_tool_error(tool, "--scheme fdm5: the 5-point stencil is for 2D grids (meshgen grid) but %s is %dD%s",
                         p->dir, dim, dim == 3 ? ": use --scheme fdm7, the 7-point stencil of a box" : "");
  if (p->scheme == PM_SCHEME_FDM7 && dim != 3)
    return pm_tool_error(tool,
                         "--scheme fdm7: the 7-point stencil is for 3D boxes of hexahedra (meshgen box) but %s is "
                         "%dD%s",
                         p->dir, dim, dim == 2 ? ": use --scheme fdm5, the 5-point stencil of a grid" : "");
  if (pm_tool_seen(t, "--area") && dim != 1)
    return pm_tool_error(tool, "--area applies to 1D meshes (a bar's cross-section); %s is %dD", p->dir, dim);
  if (dim == 3 && p->refine > 0)
    return pm_tool_error(tool,
                         "--refine %d: %s is 3D, and 3D refinement is not implemented yet (issue 31): refine the "
                         "mesh before partitioning it (meshgen box with more cells, gmsh -3 with a smaller size)%s",
                         p->refine, p->dir, p->precond == PRECOND_MG ? "; use --precond amg instead of mg" : "");
  return 0;
}

/* What the options ask of the partition: its size, its halo, its dimension. */
static int check_meta(const pm_tool_opt_t *t, params_t *p, const pm_meta_t *meta, int nranks) {
  p->nparts = meta->nparts;
  p->dim = meta->dim;
  p->fingerprint = meta->fingerprint;
  if (meta->nparts != nranks)
    return pm_tool_error(tool, "%s has %d parts but the job has %d ranks: run with mpiexec -n %d", p->dir, meta->nparts,
                         nranks, meta->nparts);
  if (check_dim(t, p, meta)) return -1;
  if (!pm_tool_seen(t, "--amg-threshold")) { /* the default depends on the dimension */
    pm_amg_options_t ao;
    pm_amg_options_default_dim(&ao, meta->dim);
    p->amg_threshold = ao.threshold;
  }
  /* One part has no halo; with more, an element's nodes must all be in its rank's halo. */
  if (p->scheme == PM_SCHEME_FEM && meta->halo && !strcmp(meta->halo, "edge") && meta->dim > 1 && meta->nparts > 1 &&
      !p->exchange_test)
    return pm_tool_error(tool,
                         "-p %s was partitioned with --halo edge, which only the finite differences take (--scheme "
                         "%s): FEM needs the element halo (partition MESH %d -o %s, the default --halo element)",
                         p->dir, meta->dim == 3 ? "fdm7" : "fdm5", nranks, p->dir);
  return 0;
}

static int check_amg(const params_t *p) {
  if (p->precond != PRECOND_AMG && p->precond != PRECOND_MG) return 0;
  pm_amg_options_t ao;
  solve_amg_options(p, &ao);
  if (pm_amg_options_check(&ao))
    return pm_tool_error(
        tool, "--precond %s: %s (--amg-threshold, --amg-sweeps, --amg-levels, --amg-coarse, --amg-rows-per-rank)",
        p->precond == PRECOND_MG ? "mg" : "amg", pm_error_message());
  return 0;
}

int solve_parse(int argc, char **argv, int nranks, params_t *p) {
  pm_tool_opt_t t[N_OPTIONS];
  const char *control = NULL;
  pm_meta_t *meta = NULL;
  set_defaults(p);
  options_table(p, t);
  int rc = parse_argv(argc, argv, t, p, &control);
  if (rc) {
    p->status = rc > 0 ? 2 : 1;
    return rc > 0 ? 0 : -1;
  }
  rc = -1;
  if (check_combinations(t, p) || check_files(p) || read_meta(p, nranks, &meta)) goto done;
  if (check_meta(t, p, meta, nranks) || solve_apply_defaults(t, p, control, meta)) goto done;
  if (solve_check_problem(p, meta) || check_amg(p)) goto done;
  rc = 0;
done:
  pm_meta_destroy(&meta);
  return rc;
}

void solve_amg_options(const params_t *p, pm_amg_options_t *o) {
  pm_amg_options_default(o);
  o->threshold = p->amg_threshold;
  o->smoother = (pm_amg_smoother_t)p->amg_smoother;
  o->sweeps = p->amg_sweeps;
  o->max_levels = p->amg_levels;
  o->coarse_size = p->amg_coarse;
  o->rows_per_rank = p->amg_rows_per_rank;
  o->precision = (pm_amg_precision_t)p->amg_precision;
}

