/* solve_opts_table.c - solve's option table, in the order of the usage text (each entry with its
 * lines of it), the callbacks of its options that need more than a number or a name, the
 * defaults and the help. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pm_tool.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_run.h"
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
    return pm_tool_error(
        tool, "%s %s: each refinement doubles (1D), quadruples (2D) or octuples (3D) the mesh: at most 64", opt, v);
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
      {"--fine-operator", C, &p->fine_operator, 0, 0, "auto|assembled|matrix-free", NULL,
       "  --fine-operator auto|assembled|matrix-free  the finest level's operator: assembled, or\n"
       "                         applied from the level below without fine elements or matrix, its\n"
       "                         weights in single precision (--refine K >= 1, steady FEM on\n"
       "                         tetrahedra, hexahedra and prisms, constant conductivities,\n"
       "                         Dirichlet conditions; --precond none, jacobi or mg); auto\n"
       "                         (default): matrix-free where it applies\n"
       "                         with --precond mg, from 1M unknowns on and without --reproducible\n",
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
       "                         meshes, 0.05 with mg on 3D meshes)\n",
       0},
      {"--amg-smoother", X, NULL, 0, 0, NULL, opt_smoother,
       "  --amg-smoother NAME    chebyshev|jacobi|l1-jacobi (default chebyshev)\n", 0},
      {"--amg-sweeps", I, &p->amg_sweeps, INT32_MIN, INT32_MAX, NULL, NULL,
       "  --amg-sweeps K         smoothing steps before and after the coarse correction (default 2;\n"
       "                         3 with mg on 3D meshes)\n",
       0},
      {"--amg-levels", I, &p->amg_levels, INT32_MIN, INT32_MAX, NULL, NULL,
       "  --amg-levels L         at most L levels (default 10)\n", 0},
      {"--amg-coarse", I, &p->amg_coarse, INT32_MIN, INT32_MAX, NULL, NULL,
       "  --amg-coarse N         a level of at most N rows is the coarsest, factored (default 500)\n", 0},
      {"--amg-rows-per-rank", I, &p->amg_rows_per_rank, INT32_MIN, INT32_MAX, NULL, NULL,
       "  --amg-rows-per-rank N  a coarse level with fewer than N rows per rank moves onto fewer\n"
       "                         ranks, eventually one (default 2000; 0: never)\n",
       0},
      {"--amg-precision", X, NULL, 0, 0, NULL, opt_precision,
       "  --amg-precision P      single|double|mixed: the V-cycle's values and vectors (amg and mg;\n"
       "                         default single: half the bytes per cycle; mixed: single, but the\n"
       "                         finest level reads the double matrix, no float copy; CG stays double)\n",
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

void solve_options_table(params_t *p, pm_tool_opt_t t[SOLVE_N_OPTIONS]) {
  options_solver(p, t + options_problem(p, t));
}

void solve_set_defaults(params_t *p) {
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

void solve_print_help(const pm_tool_opt_t *t) {
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
