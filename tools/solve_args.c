/* solve_args.c - the command line of solve: its parse and the checks of the options against each
 * other and against the partition's metadata, all on rank 0, into the params_t that solve.c
 * broadcasts.  The option table (which also prints the usage text) is solve_opts_table.c's, the
 * problem's options (groups, boundary conditions, the control file) solve_opts_problem.c's, the
 * options as text solve_opts_text.c's. */
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
#include "pmesh/pm_expr.h"
#include "pmesh/pm_mg.h"
#include "pmesh/pm_run.h"
#include "pmesh/pm_version.h"
#include "solve.h"

/* The command line into the table and p.  Returns 0, 1 after --help or --version, or -1 after
 * printing why. */
static int parse_argv(int argc, char **argv, pm_tool_opt_t *t, params_t *p, const char **control) {
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      solve_print_help(t);
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
/* Every --conductivity a constant (what the matrix-free operator takes). */
static int constant_conductivities(const params_t *p) {
  int all = 1;
  for (int i = 0; i < p->n_cond && all; i++) {
    pm_expr_t *ex = NULL;
    all = pm_expr_create(p->cond_expr[i], &ex) == PM_OK && pm_expr_is_const(ex);
    pm_expr_destroy(&ex);
  }
  return all;
}

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
  if (p->fine_operator != FINE_ASSEMBLED) {
    const char *why =
        p->refine < 1                ? "needs --refine K with K >= 1 (it applies the finest level from the one below)"
        : set_dt                     ? "supports steady runs only, not --dt/--steps"
        : p->scheme != PM_SCHEME_FEM ? "supports --scheme fem only"
        : p->precond == PRECOND_AMG  ? "has no matrix entries for --precond amg: use --precond mg or jacobi"
        : p->dump[0]                 ? "has no assembled matrix for --dump"
        : p->precond == PRECOND_MG && p->mg_coarse
            ? "needs --mg-coarse rediscretize (Galerkin products need the fine matrix)"
        : p->n_neu > 0 || p->n_rob > 0 ? "supports Dirichlet conditions only, not --neumann or --robin"
        : p->initial[0]
            ? "does not start from --initial FILE (its finest level has no elements to check the file's mesh against)"
            : NULL;
    if (p->fine_operator == FINE_AUTO) { /* the size (check_meta) and the cells (solve.c) decide the rest */
      if (why || p->precond != PRECOND_MG || p->reproducible || p->dump_local[0] || !constant_conductivities(p))
        p->fine_operator = FINE_ASSEMBLED;
    } else {
      if (why) return pm_tool_error(tool, "--fine-operator matrix-free %s; or use --fine-operator assembled", why);
      if (p->precond == PRECOND_AUTO) p->precond = PRECOND_MG;
    }
  }
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

/* What the mesh's dimension allows: the scheme of that dimension, --area on bars. */
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
  /* --fine-operator auto: 3D, and large enough for the assembled level's bytes to matter (each
   * refinement multiplies the unknowns by about 8). */
  if (p->fine_operator == FINE_AUTO &&
      (meta->dim != 3 || (double)meta->global_nodes * pow(8.0, p->refine) < AUTO_MATRIX_FREE_UNKNOWNS))
    p->fine_operator = FINE_ASSEMBLED;
  /* The defaults depend on the dimension, and multigrid's on the dimension too. */
  pm_amg_options_t ao;
  if (p->precond == PRECOND_MG)
    pm_mg_options_default_dim(&ao, meta->dim);
  else
    pm_amg_options_default_dim(&ao, meta->dim);
  if (!pm_tool_seen(t, "--amg-threshold")) p->amg_threshold = ao.threshold;
  if (!pm_tool_seen(t, "--amg-sweeps")) p->amg_sweeps = ao.sweeps;
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
  pm_tool_opt_t t[SOLVE_N_OPTIONS];
  const char *control = NULL;
  pm_meta_t *meta = NULL;
  solve_set_defaults(p);
  solve_options_table(p, t);
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
