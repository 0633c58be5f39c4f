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
 * Rank 0 reads the options (and the lecture's control file) and sends them to every rank in one
 * MPI_Bcast of a struct datatype.  Every rank reads only its own local file.  Errors are agreed
 * collectively where all ranks are at the same point; the failing rank prints its message. */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <math.h>
#include <mpi.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "pm_scan.h"
#include "pm_tool.h"
#include "pmesh/pm_amg.h"
#include "pmesh/pm_cg.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_csr.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_fem.h"
#include "pmesh/pm_h5.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_version.h"

static const char *tool = "solve";

enum { PRECOND_NONE, PRECOND_JACOBI, PRECOND_AMG };
static const char *const precond_names[] = {"none", "jacobi", "amg"};
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

static void usage(FILE *fp) {
  fprintf(fp,
          "usage: mpiexec -n P solve [options] [CONTROL_FILE]\n"
          "       mpiexec -n P solve [-p DIR] --exchange-test [--exchange NAME]\n"
          "\n"
          "Solve -div(k grad u) = f on a partitioned mesh with parallel preconditioned CG, or with\n"
          "--dt and --steps the transient du/dt - div(k grad u) = f (backward Euler, one CG solve per\n"
          "step, the result a time series).  P must equal the number of parts of the partition.\n"
          "\n"
          "options:\n"
          "  -p DIR                 partition directory (default: %s)\n"
          "  -o FILE.h5             result file (default: result.h5, with result.xmf beside it)\n"
          "  --no-output            write no result file (benchmarks)\n"
          "  --source [GROUP=]F     source f, constant or expression in x, y (default 1);\n"
          "                         GROUP= applies it to the elements of a physical group\n"
          "  --conductivity [GROUP=]K   conductivity k (default 1)\n"
          "  --area A               cross-section of a 1D bar (default 1)\n"
          "  --dirichlet GROUP=VALUE    u = VALUE on the nodes of GROUP (repeatable; default:\n"
          "                         boundary=0 when neither --dirichlet nor --neumann is given,\n"
          "                         xmin=0 with the lecture's control file)\n"
          "  --neumann GROUP=FLUX   k du/dn = FLUX on the boundary faces of GROUP (repeatable)\n"
          "  --scheme fem|fdm5      Galerkin FEM (default) or the 5-point finite differences\n"
          "                         (structured grids partitioned with --halo edge)\n"
          "  --precond none|jacobi|amg  preconditioner (default jacobi; amg: smoothed aggregation)\n"
          "  --amg-threshold X      AMG strength of connection, 0 <= X < 1 (default 0.08)\n"
          "  --amg-smoother NAME    chebyshev|jacobi|l1-jacobi (default chebyshev)\n"
          "  --amg-sweeps K         smoothing steps before and after the coarse correction (default 2)\n"
          "  --amg-levels L         at most L levels (default 10)\n"
          "  --amg-coarse N         a level of at most N rows is the coarsest, factored (default 500)\n"
          "  --rtol EPS             stop when ||r||/||b|| <= EPS (default 1e-8; 0: run --maxit)\n"
          "  --maxit N              iteration limit (default 10000)\n"
          "  --exchange NAME        isend|sendrecv|datatype|persistent|neighbor|pack (default %s)\n"
          "  --monitor K            print the residual every K iterations\n"
          "  --exact EXPR           report max-norm and L2 errors against this solution\n"
          "  --summary FILE.json    write the run's figures as JSON\n"
          "  --dump-matrix PREFIX   write each rank's matrix rows to PREFIX.RANK\n"
          "  --dump-solution PREFIX write each rank's internal 'global_id x y u' lines to PREFIX.RANK\n"
          "                         (transient: the last step)\n"
          "  --dt DT --steps N      transient: N backward-Euler steps of DT from u^0 (Dirichlet values\n"
          "                         constant in time); the result is a series of steps 0, K, 2K, ..., N\n"
          "  --every K              write every K-th step (default 1; step 0 and the last always)\n"
          "  --mass consistent|lumped  mass matrix (default consistent; fdm5: lumped, the nodal value)\n"
          "  --initial-value EXPR   u^0 (transient) or CG initial guess (steady) (default 0)\n"
          "  --initial FILE.h5      u^0 or initial guess from an earlier result of the same mesh\n"
          "                         (any number of ranks); Dirichlet nodes keep their values\n"
          "  --initial-field NAME   field to read (default u)\n"
          "  --initial-step K       stored step K of a series (/steps/K; default the last)\n"
          "  --exchange-test        fill internal nodes with their global ids, exchange, check,\n"
          "                         print the lecture's RECVbuf lines\n"
          "  CONTROL_FILE           the lecture's input.dat: NEg / dX Q A COND / ITERmax / EPS\n"
          "  --help, --version\n",
          PM_DEFAULT_PART_DIR, pm_exchange_name(pm_exchange_default()));
}

/* "GROUP=EXPR" or, where allowed, "EXPR". */
static int split_bc(const char *opt, const char *v, int need_group, char *group, char *expr) {
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
  memcpy(group, v, gl);
  group[gl] = '\0';
  strcpy(expr, e);
  return 0;
}

static int set_path(char *dst, const char *opt, const char *v) {
  if (strlen(v) >= PATH_LEN) {
    pm_tool_error(tool, "%s: path longer than %d characters", opt, PATH_LEN - 1);
    return -1;
  }
  strcpy(dst, v);
  return 0;
}

/* The lecture's control file: NEg / dX Q A COND / ITERmax / EPS. */
typedef struct control {
  int64_t neg, itermax;
  double dx, q, a, cond, eps;
} control_t;

static int read_control(const char *path, control_t *c) {
  pm_scan_t s;
  PM_CALL(pm_scan_open(&s, path));
  int ierr = pm_scan_int64(&s, 1, INT64_MAX, "NEg (number of elements, line 1)", &c->neg);
  if (!ierr) ierr = pm_scan_double(&s, "dX (line 2)", &c->dx);
  if (!ierr) ierr = pm_scan_double(&s, "Q (line 2)", &c->q);
  if (!ierr) ierr = pm_scan_double(&s, "A (line 2)", &c->a);
  if (!ierr) ierr = pm_scan_double(&s, "COND (line 2)", &c->cond);
  if (!ierr) ierr = pm_scan_int64(&s, 0, INT32_MAX, "ITERmax (line 3)", &c->itermax);
  if (!ierr) ierr = pm_scan_double(&s, "EPS (line 4)", &c->eps);
  if (!ierr && !(c->dx > 0 && c->a > 0 && c->cond > 0 && c->eps >= 0))
    ierr = pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__, "%s: dX, A and COND must be positive and EPS >= 0", path);
  if (!ierr) {
    const char *t;
    size_t n;
    ierr = pm_scan_token(&s, &t, &n);
    if (!ierr && t)
      ierr = PM_SCAN_FAIL(&s, PM_ERR_FORMAT, "unexpected '%s' after EPS: the control file has 4 lines", s.tok);
  }
  pm_scan_close(&s);
  return ierr;
}

static int group_index(const pm_meta_t *m, const char *name) {
  for (int g = 0; g < m->n_groups; g++)
    if (strcmp(m->group_name[g], name) == 0) return g;
  return -1;
}

static void list_groups(const pm_meta_t *m, char *buf, size_t size) {
  size_t len = 0;
  buf[0] = '\0';
  for (int g = 0; g < m->n_groups && len + 2 < size; g++)
    len += (size_t)snprintf(buf + len, size - len, "%s%s (dim %d)", g ? ", " : "", m->group_name[g], m->group_dim[g]);
}

static void amg_options(const params_t *p, pm_amg_options_t *o) {
  pm_amg_options_default(o);
  o->threshold = p->amg_threshold;
  o->smoother = (pm_amg_smoother_t)p->amg_smoother;
  o->sweeps = p->amg_sweeps;
  o->max_levels = p->amg_levels;
  o->coarse_size = p->amg_coarse;
}

static int create_pc(const params_t *p, pm_pc_t **pc) {
  if (p->precond == PRECOND_AMG) {
    pm_amg_options_t o;
    amg_options(p, &o);
    return pm_pc_create_amg(&o, pc);
  }
  return p->precond == PRECOND_JACOBI ? pm_pc_create_jacobi(pc) : pm_pc_create_none(pc);
}

/* Rank 0: options, control file and metadata into p.  Returns 0, or -1 after printing why. */
static int parse(int argc, char **argv, int nranks, params_t *p) {
  const char *control = NULL;
  int set_src = 0, set_cond = 0, set_area = 0, set_maxit = 0, set_rtol = 0;
  int set_dt = 0, set_every = 0, set_mass = 0, set_field = 0, set_step = 0;
  p->every = 1;
  p->mass = PM_MASS_CONSISTENT;
  p->initial_step = -1;
  strcpy(p->initial_field, "u");
  p->scheme = PM_SCHEME_FEM;
  p->precond = PRECOND_JACOBI;
  {
    pm_amg_options_t ao;
    pm_amg_options_default(&ao);
    p->amg_threshold = ao.threshold;
    p->amg_smoother = (int)ao.smoother;
    p->amg_sweeps = ao.sweeps;
    p->amg_levels = ao.max_levels;
    p->amg_coarse = (int)ao.coarse_size;
  }
  p->exchange = pm_exchange_default();
  p->maxit = 10000;
  p->rtol = 1e-8;
  p->area = 1.0;
  strcpy(p->dir, PM_DEFAULT_PART_DIR);
  strcpy(p->out_h5, "result.h5");
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
      usage(stdout);
      p->status = 2;
      return 0;
    }
    if (!strcmp(a, "--version")) {
      printf("solve (pmesh) %s\n", PMESH_VERSION);
      p->status = 2;
      return 0;
    }
    if (!strcmp(a, "--exchange-test")) {
      p->exchange_test = 1;
      continue;
    }
    if (!strcmp(a, "--no-output")) {
      p->no_output = 1;
      continue;
    }
    static const char *valued[] = {"-p",
                                   "-o",
                                   "--source",
                                   "--conductivity",
                                   "--area",
                                   "--dirichlet",
                                   "--neumann",
                                   "--scheme",
                                   "--precond",
                                   "--amg-threshold",
                                   "--amg-smoother",
                                   "--amg-sweeps",
                                   "--amg-levels",
                                   "--amg-coarse",
                                   "--rtol",
                                   "--maxit",
                                   "--exchange",
                                   "--monitor",
                                   "--exact",
                                   "--summary",
                                   "--dump-matrix",
                                   "--dump-solution",
                                   "--dt",
                                   "--steps",
                                   "--every",
                                   "--mass",
                                   "--initial",
                                   "--initial-field",
                                   "--initial-step",
                                   "--initial-value",
                                   NULL};
    int is_valued = 0;
    for (int k = 0; valued[k]; k++) is_valued |= !strcmp(a, valued[k]);
    if (!is_valued) {
      if (a[0] == '-' && a[1]) {
        pm_tool_error(tool, "unknown option '%s' (see solve --help)", a);
        return -1;
      }
      if (control) {
        pm_tool_error(tool, "unexpected argument '%s': one control file at most", a);
        return -1;
      }
      control = a;
      continue;
    }
    if (i + 1 >= argc) {
      pm_tool_error(tool, "option %s needs a value (see solve --help)", a);
      return -1;
    }
    const char *v = argv[++i];
    int64_t iv;
    if (!strcmp(a, "-p")) {
      if (set_path(p->dir, a, v)) return -1;
    } else if (!strcmp(a, "-o")) {
      if (set_path(p->out_h5, a, v)) return -1;
    } else if (!strcmp(a, "--summary")) {
      if (set_path(p->summary, a, v)) return -1;
    } else if (!strcmp(a, "--dump-matrix")) {
      if (set_path(p->dump, a, v)) return -1;
    } else if (!strcmp(a, "--dump-solution")) {
      if (set_path(p->dump_u, a, v)) return -1;
    } else if (!strcmp(a, "--exact")) {
      if (strlen(v) >= EXPR_LEN || !v[0]) {
        pm_tool_error(tool, "--exact: expected an expression below %d characters", EXPR_LEN);
        return -1;
      }
      strcpy(p->exact, v);
    } else if (!strcmp(a, "--source") || !strcmp(a, "--conductivity") || !strcmp(a, "--dirichlet") ||
               !strcmp(a, "--neumann")) {
      int which = !strcmp(a, "--source") ? 0 : !strcmp(a, "--conductivity") ? 1 : !strcmp(a, "--dirichlet") ? 2 : 3;
      int *cnt[4] = {&p->n_source, &p->n_cond, &p->n_dir, &p->n_neu};
      char(*grp[4])[NAME_LEN] = {p->src_group, p->cond_group, p->dir_group, p->neu_group};
      char(*ex[4])[EXPR_LEN] = {p->src_expr, p->cond_expr, p->dir_expr, p->neu_expr};
      if (*cnt[which] == MAXBC) {
        pm_tool_error(tool, "%s: at most %d of them", a, MAXBC);
        return -1;
      }
      if (split_bc(a, v, which >= 2, grp[which][*cnt[which]], ex[which][*cnt[which]])) return -1;
      (*cnt[which])++;
      if (which == 0) set_src = 1;
      if (which == 1) set_cond = 1;
    } else if (!strcmp(a, "--area")) {
      if (pm_tool_double(tool, a, v, 1e-300, 1e300, &p->area)) return -1;
      set_area = 1;
    } else if (!strcmp(a, "--scheme")) {
      if (!strcmp(v, "fem")) {
        p->scheme = PM_SCHEME_FEM;
      } else if (!strcmp(v, "fdm5")) {
        p->scheme = PM_SCHEME_FDM5;
      } else {
        pm_tool_error(tool, "--scheme %s: expected fem or fdm5", v);
        return -1;
      }
    } else if (!strcmp(a, "--precond")) {
      if (!strcmp(v, "none")) {
        p->precond = PRECOND_NONE;
      } else if (!strcmp(v, "jacobi")) {
        p->precond = PRECOND_JACOBI;
      } else if (!strcmp(v, "amg")) {
        p->precond = PRECOND_AMG;
      } else {
        pm_tool_error(tool, "--precond %s: expected none, jacobi or amg", v);
        return -1;
      }
    } else if (!strcmp(a, "--amg-threshold")) {
      if (pm_tool_double(tool, a, v, -1e300, 1e300, &p->amg_threshold)) return -1;
    } else if (!strcmp(a, "--amg-smoother")) {
      pm_amg_smoother_t sm;
      if (pm_amg_smoother_parse(v, &sm)) {
        pm_tool_error(tool, "--amg-smoother: %s", pm_error_message());
        return -1;
      }
      p->amg_smoother = (int)sm;
    } else if (!strcmp(a, "--amg-sweeps") || !strcmp(a, "--amg-levels") || !strcmp(a, "--amg-coarse")) {
      if (pm_tool_int(tool, a, v, INT32_MIN, INT32_MAX, &iv)) return -1;
      *(!strcmp(a, "--amg-sweeps") ? &p->amg_sweeps : !strcmp(a, "--amg-levels") ? &p->amg_levels : &p->amg_coarse) =
          (int)iv;
    } else if (!strcmp(a, "--rtol")) {
      if (pm_tool_double(tool, a, v, 0, 1, &p->rtol)) return -1;
      set_rtol = 1;
    } else if (!strcmp(a, "--maxit")) {
      if (pm_tool_int(tool, a, v, 0, INT32_MAX, &iv)) return -1;
      p->maxit = (int)iv;
      set_maxit = 1;
    } else if (!strcmp(a, "--monitor")) {
      if (pm_tool_int(tool, a, v, 1, INT32_MAX, &iv)) return -1;
      p->monitor = (int)iv;
    } else if (!strcmp(a, "--dt")) {
      char *end;
      p->dt = strtod(v, &end);
      if (!v[0] || *end || !isfinite(p->dt) || !(p->dt > 0)) {
        pm_tool_error(tool, "--dt %s: the time step must be a positive finite number", v);
        return -1;
      }
      set_dt = 1;
    } else if (!strcmp(a, "--steps") || !strcmp(a, "--every") || !strcmp(a, "--initial-step")) {
      int64_t lo = !strcmp(a, "--initial-step") ? 0 : 1;
      if (pm_tool_int(tool, a, v, INT64_MIN, INT64_MAX, &iv)) return -1;
      if (iv < lo || iv > INT32_MAX) {
        pm_tool_error(tool, "%s %s: expected %s", a, v,
                      lo ? "at least 1" : "a step number >= 0 (omit it for the last step)");
        return -1;
      }
      if (!strcmp(a, "--steps")) {
        p->steps = (int)iv;
      } else if (!strcmp(a, "--every")) {
        p->every = (int)iv;
        set_every = 1;
      } else {
        p->initial_step = (int)iv;
        set_step = 1;
      }
    } else if (!strcmp(a, "--mass")) {
      if (!strcmp(v, "consistent")) {
        p->mass = PM_MASS_CONSISTENT;
      } else if (!strcmp(v, "lumped")) {
        p->mass = PM_MASS_LUMPED;
      } else {
        pm_tool_error(tool, "--mass %s: expected consistent or lumped", v);
        return -1;
      }
      set_mass = 1;
    } else if (!strcmp(a, "--initial")) {
      if (set_path(p->initial, a, v)) return -1;
    } else if (!strcmp(a, "--initial-field")) {
      if (strlen(v) >= NAME_LEN || !v[0]) {
        pm_tool_error(tool, "--initial-field: expected a field name below %d characters", NAME_LEN);
        return -1;
      }
      strcpy(p->initial_field, v);
      set_field = 1;
    } else if (!strcmp(a, "--initial-value")) {
      if (strlen(v) >= EXPR_LEN || !v[0]) {
        pm_tool_error(tool, "--initial-value: expected an expression below %d characters", EXPR_LEN);
        return -1;
      }
      strcpy(p->initial_value, v);
    } else if (!strcmp(a, "--exchange")) {
      pm_exchange_t k;
      if (pm_exchange_parse(v, &k)) {
        pm_tool_report(tool, PM_ERR_ARG);
        return -1;
      }
      p->exchange = (int)k;
    }
  }
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
    control_t c;
    ierr = read_control(control, &c);
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
    if (!set_src) snprintf(p->src_expr[p->n_source++], EXPR_LEN, "%.17g", c.q);
    if (!set_cond) snprintf(p->cond_expr[p->n_cond++], EXPR_LEN, "%.17g", c.cond);
    if (!set_area) p->area = c.a;
    if (!set_maxit) p->maxit = (int)c.itermax;
    if (!set_rtol) p->rtol = c.eps;
    if (p->n_dir == 0 && group_index(meta, "xmin") >= 0) {
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
  /* Every group named must exist (list those that do). */
  char groups[2048];
  list_groups(meta, groups, sizeof groups);
  for (int w = 0; w < 4; w++) {
    int n = w == 0 ? p->n_source : w == 1 ? p->n_cond : w == 2 ? p->n_dir : p->n_neu;
    for (int i = 0; i < n; i++) {
      const char *g = w == 0 ? p->src_group[i] : w == 1 ? p->cond_group[i] : w == 2 ? p->dir_group[i] : p->neu_group[i];
      static const char *opt[4] = {"--source", "--conductivity", "--dirichlet", "--neumann"};
      if (!g[0]) continue;
      int gi = group_index(meta, g);
      if (gi < 0) {
        pm_tool_error(tool, "%s %s=...: the mesh has no group '%s'; its groups are: %s", opt[w], g, g, groups);
        goto done;
      }
      if (w <= 1 && meta->group_dim[gi] != meta->dim) {
        pm_tool_error(tool, "%s %s=...: '%s' is a %dD group; sources and conductivities go on %dD element groups",
                      opt[w], g, g, meta->group_dim[gi], meta->dim);
        goto done;
      }
      if (w == 3 && meta->group_dim[gi] != meta->dim - 1) {
        pm_tool_error(tool, "--neumann %s=...: '%s' is a %dD group; fluxes go on %dD boundary groups", g, g,
                      meta->group_dim[gi], meta->dim - 1);
        goto done;
      }
    }
  }
  /* Expressions parse (the ranks would all fail alike; say it once, here). */
  const char *single[2] = {p->exact, p->initial_value};
  for (int w = 0; w < 6; w++) {
    int n = w == 0 ? p->n_source : w == 1 ? p->n_cond : w == 2 ? p->n_dir : w == 3 ? p->n_neu : single[w - 4][0] != 0;
    for (int i = 0; i < n; i++) {
      const char *e = w == 0   ? p->src_expr[i]
                      : w == 1 ? p->cond_expr[i]
                      : w == 2 ? p->dir_expr[i]
                      : w == 3 ? p->neu_expr[i]
                               : single[w - 4];
      pm_expr_t *ex = NULL;
      ierr = pm_expr_create(e, &ex);
      pm_expr_destroy(&ex);
      if (ierr) {
        pm_tool_report(tool, ierr);
        goto done;
      }
    }
  }
  if (p->precond == PRECOND_AMG) {
    pm_amg_options_t ao;
    amg_options(p, &ao);
    if (pm_amg_options_check(&ao)) {
      pm_tool_error(tool, "--precond amg: %s (--amg-threshold, --amg-sweeps, --amg-levels, --amg-coarse)",
                    pm_error_message());
      goto done;
    }
  }
  rc = 0;
done:
  pm_meta_destroy(&meta);
  return rc;
}

/* Report a local failure with the rank, after agreement; returns nonzero when any rank failed. */
static int agree(MPI_Comm comm, int rank, int ierr) {
  int all = pm_comm_agree(comm, ierr);
  if (ierr && ierr != PM_ERR_REMOTE) { /* a remote failure: that rank printed why */
    const char *msg = pm_error_message();
    fprintf(stderr, "%s: error: [rank %d] %s\n", tool, rank, msg[0] ? msg : pm_error_name(ierr));
    if (getenv("PMESH_TRACE")) fprintf(stderr, "%s: trace: %s\n", tool, pm_error_where());
  }
  return all;
}

static int dump_matrix(const params_t *p, const pm_local_t *l, const pm_csr_t *a, const double *b, int rank) {
  char path[PATH_LEN + 32];
  snprintf(path, sizeof path, "%s.%d", p->dump, rank);
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

/* u = EXPR at every local node (internal and external).  Not collective. */
static int set_expr(const pm_local_t *l, const char *text, const char *what, double *u) {
  pm_expr_t *ex = NULL;
  PM_CALL(pm_expr_create(text, &ex));
  int ierr = PM_OK;
  for (int32_t i = 0; i < l->n_total && !ierr; i++) {
    const double *x = l->xyz + 3 * i;
    u[i] = pm_expr_eval(ex, x[0], x[1], x[2]);
    if (!isfinite(u[i]))
      ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "%s '%s' is not finite at node %" PRId64 " (%g, %g)", what,
                          text, l->gid[i], x[0], x[1]);
  }
  pm_expr_destroy(&ex);
  return ierr;
}

static int check_finite(const pm_local_t *l, const double *u, const char *file, const char *field) {
  for (int32_t i = 0; i < l->n_internal; i++)
    PM_CHECK(isfinite(u[i]), PM_ERR_FORMAT, "%s: field '%s' is %g at node %" PRId64 ": cannot start from it", file,
             field, u[i], l->gid[i]);
  return PM_OK;
}

enum { MAX_ATTRS = 32 };

/* The attributes every result carries: the problem and its parameters.  Returns their number. */
static int base_attrs(const params_t *p, pm_h5_attr_t *at) {
  int n = 0;
  int tr = p->steps > 0;
  at[n++] = (pm_h5_attr_t){"problem", PM_H5_ATTR_STRING, 0, 0, tr ? "du/dt - div(k grad u) = f" : "-div(k grad u) = f"};
  at[n++] = (pm_h5_attr_t){"scheme", PM_H5_ATTR_STRING, 0, 0, p->scheme == PM_SCHEME_FDM5 ? "fdm5" : "fem"};
  at[n++] = (pm_h5_attr_t){"precond", PM_H5_ATTR_STRING, 0, 0, precond_names[p->precond]};
  at[n++] = (pm_h5_attr_t){"source_f", PM_H5_ATTR_STRING, 0, 0, p->src_expr[p->n_source - 1]};
  at[n++] = (pm_h5_attr_t){"conductivity_k", PM_H5_ATTR_STRING, 0, 0, p->cond_expr[p->n_cond - 1]};
  at[n++] = (pm_h5_attr_t){"area", PM_H5_ATTR_DOUBLE, p->area, 0, NULL};
  at[n++] = (pm_h5_attr_t){"rtol", PM_H5_ATTR_DOUBLE, p->rtol, 0, NULL};
  if (p->initial[0]) {
    at[n++] = (pm_h5_attr_t){"initial_file", PM_H5_ATTR_STRING, 0, 0, p->initial};
    at[n++] = (pm_h5_attr_t){"initial_field", PM_H5_ATTR_STRING, 0, 0, p->initial_field};
    at[n++] = (pm_h5_attr_t){"initial_step", PM_H5_ATTR_INT64, 0, p->initial_step, NULL};
  } else {
    at[n++] = (pm_h5_attr_t){"initial_value", PM_H5_ATTR_STRING, 0, 0, p->initial_value[0] ? p->initial_value : "0"};
  }
  return n;
}

/* Figures of a transient run (the same on every rank). */
typedef struct tstats {
  int steps_done, written, converged, it_min, it_max;
  int failed_step, failed_iterations; /* the step whose CG did not converge */
  double failed_residual, residual_max, t_output;
  int64_t it_total;
  pm_cg_result_t sum; /* iterations and seconds summed over the steps */
} tstats_t;

static int write_step(pm_h5_series_t *s, const double *u, double time, tstats_t *st) {
  double t = MPI_Wtime();
  pm_h5_field_t f[1] = {{"u", 0, 0, u}};
  int ierr = pm_h5_series_write(s, time, f, 1);
  st->written += !ierr;
  st->t_output += MPI_Wtime() - t;
  return ierr;
}

/* Backward Euler: per step rhs = b + (M u^n)/dt (M without the Dirichlet rows and columns, see
 * pm_fem_assemble_transient), then CG on (M/dt + K) u^{n+1} = rhs from u^n.  Writes steps 0,
 * every, 2 every, ... and the last; the series is kept only when every step converged.
 * Collective; errors are agreed. */
static int run_transient(MPI_Comm comm, const params_t *p, const pm_local_t *l, const pm_meta_t *meta, pm_halo_t *halo,
                         const pm_csr_t *a, const pm_csr_t *m, const double *b, double *u, pm_pc_t *pc,
                         const pm_cg_options_t *copt,
                         tstats_t *st) {
  int ierr = PM_OK, rank;
  int32_t n = l->n_internal;
  double *rhs = NULL, *q = NULL;
  pm_h5_series_t *series = NULL;
  pm_cg_t *cg = NULL;
  MPI_Comm_rank(comm, &rank);
  memset(st, 0, sizeof *st);
  st->converged = 1;
  st->it_min = INT32_MAX;
  ierr = PM_MALLOC(rhs, n > 0 ? n : 1, "right-hand side of a step");
  if (!ierr) ierr = PM_MALLOC(q, n > 0 ? n : 1, "mass times u");
  PM_TRY(pm_comm_agree(comm, ierr));
  double t_cg = MPI_Wtime();
  PM_TRY(pm_cg_create(a, halo, pc, &cg)); /* set up once for every step */
  st->sum.t_setup = MPI_Wtime() - t_cg;
  st->sum.t_total = st->sum.t_setup;
  if (!p->no_output) {
    double t = MPI_Wtime();
    PM_TRY(pm_h5_series_create(comm, l, meta, p->out_h5, p->out_xmf, &series));
    st->t_output += MPI_Wtime() - t;
    PM_TRY(write_step(series, u, 0.0, st));
  }
  for (int k = 1; k <= p->steps; k++) {
    /* The product refreshes u^n's externals (the halo update) before it reads them. */
    double te = 0, t = MPI_Wtime();
    pm_cg_result_t r;
    memset(&r, 0, sizeof r);
    ierr = pm_csr_spmv(m, halo, u, q, NULL, &te);
    for (int32_t i = 0; i < n && !ierr; i++) rhs[i] = b[i] + q[i] / p->dt;
    st->sum.t_spmv += MPI_Wtime() - t - te;
    st->sum.t_exchange += te;
    if (!ierr) ierr = pm_cg_run(cg, rhs, u, copt, &r);
    PM_TRY(pm_comm_agree(comm, ierr));
    st->steps_done = k;
    st->it_total += r.iterations;
    if (r.iterations < st->it_min) st->it_min = r.iterations;
    if (r.iterations > st->it_max) st->it_max = r.iterations;
    if (r.residual > st->residual_max) st->residual_max = r.residual;
    st->sum.iterations += r.iterations;
    st->sum.residual = r.residual;
    st->sum.t_total += r.t_total;
    st->sum.t_spmv += r.t_spmv;
    st->sum.t_exchange += r.t_exchange;
    st->sum.t_reduce += r.t_reduce;
    st->sum.t_update += r.t_update;
    if (p->monitor > 0 && rank == 0)
      printf("step %6d  t = %-12.6g %5d iterations  ||r||/||b|| = %.3e\n", k, k * p->dt, r.iterations, r.residual);
    if (!r.converged) {
      st->converged = 0;
      st->failed_step = k;
      st->failed_iterations = r.iterations;
      st->failed_residual = r.residual;
      break;
    }
    if (series && (k % p->every == 0 || k == p->steps)) PM_TRY(write_step(series, u, k * p->dt, st));
  }
  if (st->it_min == INT32_MAX) st->it_min = 0;
  st->sum.converged = st->converged;
  if (series && st->converged) {
    double t = MPI_Wtime();
    pm_h5_attr_t at[MAX_ATTRS];
    int na = base_attrs(p, at);
    at[na++] = (pm_h5_attr_t){"dt", PM_H5_ATTR_DOUBLE, p->dt, 0, NULL};
    at[na++] = (pm_h5_attr_t){"steps", PM_H5_ATTR_INT64, 0, p->steps, NULL};
    at[na++] = (pm_h5_attr_t){"every", PM_H5_ATTR_INT64, 0, p->every, NULL};
    at[na++] = (pm_h5_attr_t){"mass", PM_H5_ATTR_STRING, 0, 0, p->mass == PM_MASS_LUMPED ? "lumped" : "consistent"};
    at[na++] = (pm_h5_attr_t){"iterations", PM_H5_ATTR_INT64, 0, st->it_total, NULL};
    at[na++] = (pm_h5_attr_t){"iterations_min", PM_H5_ATTR_INT64, 0, st->it_min, NULL};
    at[na++] = (pm_h5_attr_t){"iterations_max", PM_H5_ATTR_INT64, 0, st->it_max, NULL};
    at[na++] = (pm_h5_attr_t){"residual", PM_H5_ATTR_DOUBLE, st->residual_max, 0, NULL};
    at[na++] = (pm_h5_attr_t){"converged", PM_H5_ATTR_INT64, 0, 1, NULL};
    ierr = pm_h5_series_close(&series, at, na, 1);
    st->t_output += MPI_Wtime() - t;
  }
cleanup:
  if (series) pm_h5_series_close(&series, NULL, 0, 0); /* failure: keep the previous result */
  pm_cg_destroy(&cg);
  free(rhs);
  free(q);
  return ierr;
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
  pm_local_t *local = NULL;
  pm_meta_t *meta = NULL;
  pm_halo_t *halo = NULL;
  pm_csr_t *a = NULL, *m = NULL; /* m: the mass matrix of a transient run */
  double *b = NULL, *u = NULL, *w = NULL;
  char *fixed = NULL;
  pm_pc_t *pc = NULL;
  pm_h5_series_t *result = NULL; /* a steady run's result: the mesh before the solve, u after */
  double t_output = 0;
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
  char path[PATH_LEN + 64];
  ierr = pm_meta_path(p->dir, path, sizeof path);
  if (!ierr) ierr = pm_meta_read(path, &meta);
  if (!ierr && meta->fingerprint != p->fingerprint)
    ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__, "%s changed while the job started", path);
  if (!ierr) ierr = pm_local_path(p->dir, rank, path, sizeof path);
  if (!ierr) ierr = pm_local_read(path, rank, &local);
  if (!ierr && !local->has_mesh)
    ierr = pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__, "%s: has only the lecture's tables (no #GLOBALID, #ELEMENT)",
                        path);
  if (!ierr && (local->fingerprint != p->fingerprint || local->nparts != p->nparts))
    ierr = pm_error_set(PM_ERR_INCONSISTENT, __FILE__, __LINE__,
                        "%s: belongs to another partition than %s/partition.meta (fingerprint %016" PRIx64
                        ", expected %016" PRIx64 "): re-run partition",
                        path, p->dir, local->fingerprint, p->fingerprint);
  if (agree(comm, rank, ierr)) goto finish;
  ierr = pm_halo_create(comm, local, (pm_exchange_t)p->exchange, &halo);
  if (agree(comm, rank, ierr)) goto finish;
  double t_load = MPI_Wtime() - t0;

  if (p->exchange_test) {
    int64_t wrong = 0;
    /* `out` non-NULL on every rank: the lines are gathered collectively, rank 0 prints them. */
    ierr = pm_halo_selftest(halo, local, stdout, &wrong);
    if (agree(comm, rank, ierr)) goto finish;
    if (rank == 0) {
      if (wrong)
        fprintf(stderr, "%s: error: exchange test (%s): %" PRId64 " external values are wrong\n", tool,
                pm_exchange_name((pm_exchange_t)p->exchange), wrong);
      else
        fprintf(stderr, "%s: exchange test (%s) passed on %d ranks\n", tool,
                pm_exchange_name((pm_exchange_t)p->exchange), size);
    }
    status = wrong ? EXIT_FAILURE : EXIT_SUCCESS;
    goto finish;
  }

  /* A steady run writes its result's mesh now, while the mesh is in the caches (after the solve
   * it is not: on the benchmark machine the write's preparation took 2-3x longer there), and
   * u after the solve; the output seconds are both parts.  A failure here ends the run before
   * it solves.  (A transient run starts its series in run_transient.) */
  int transient = p->steps > 0, fdm5 = p->scheme == PM_SCHEME_FDM5;
  if (!p->no_output && !transient) {
    double t = MPI_Wtime();
    ierr = pm_h5_result_create(comm, local, meta, p->out_h5, p->out_xmf, &result);
    t_output += MPI_Wtime() - t;
    if (agree(comm, rank, ierr)) goto finish;
  }

  /* Assemble. */
  double t1 = MPI_Wtime();
  pm_group_value_t src[MAXBC], cond[MAXBC], dir[MAXBC], neu[MAXBC];
  for (int i = 0; i < p->n_source; i++)
    src[i] = (pm_group_value_t){p->src_group[i][0] ? p->src_group[i] : NULL, p->src_expr[i]};
  for (int i = 0; i < p->n_cond; i++)
    cond[i] = (pm_group_value_t){p->cond_group[i][0] ? p->cond_group[i] : NULL, p->cond_expr[i]};
  for (int i = 0; i < p->n_dir; i++) dir[i] = (pm_group_value_t){p->dir_group[i], p->dir_expr[i]};
  for (int i = 0; i < p->n_neu; i++) neu[i] = (pm_group_value_t){p->neu_group[i], p->neu_expr[i]};
  pm_problem_t prob = {
      (pm_scheme_t)p->scheme, p->area, p->n_source, p->n_cond, src, cond, p->n_dir, p->n_neu, dir, neu};
  int64_t nfixed = 0;
  int32_t nt = local->n_total + local->n_aux;
  ierr = pm_csr_create(local, fdm5, &a);
  if (!ierr && transient) ierr = pm_csr_create(local, fdm5, &m);
  if (!ierr) ierr = PM_MALLOC(b, local->n_internal > 0 ? local->n_internal : 1, "right-hand side");
  if (!ierr) ierr = PM_CALLOC(u, nt > 0 ? nt : 1, "solution");
  if (!ierr)
    ierr = transient ? pm_fem_assemble_transient(local, &prob, (pm_mass_t)p->mass, p->dt, a, m, b, u, &nfixed)
                     : pm_fem_assemble(local, &prob, a, b, u, &nfixed);
  if (!ierr && p->dump[0]) ierr = dump_matrix(p, local, a, b, rank);
  if (agree(comm, rank, ierr)) goto finish;
  int64_t nfixed_all = 0, nunknown = 0, nint = local->n_internal;
  pm_comm_allreduce(&nfixed, &nfixed_all, 1, MPI_INT64_T, MPI_SUM, comm);
  pm_comm_allreduce(&nint, &nunknown, 1, MPI_INT64_T, MPI_SUM, comm);
  if (nfixed_all == 0 && !transient) { /* M/dt + K is definite without them */
    if (rank == 0)
      fprintf(stderr,
              "%s: error: no node has a Dirichlet value: the problem is singular (pure Neumann); add --dirichlet "
              "GROUP=VALUE\n",
              tool);
    goto finish;
  }
  double t_assembly = MPI_Wtime() - t1;

  /* Initial state: u^0 (transient) or CG's initial guess (steady), then the halo update; the
   * Dirichlet nodes keep their values (they hold in u^0 too). */
  if (p->initial[0] || p->initial_value[0]) {
    ierr = PM_MALLOC(fixed, local->n_total > 0 ? local->n_total : 1, "Dirichlet marks");
    if (!ierr && p->initial_value[0]) ierr = set_expr(local, p->initial_value, "the initial value", u);
    if (agree(comm, rank, ierr)) goto finish;
    if (p->initial[0]) {
      ierr = pm_h5_read_field(comm, local, meta, p->initial, p->initial_field, p->initial_step, u);
      if (!ierr) ierr = check_finite(local, u, p->initial, p->initial_field);
      if (agree(comm, rank, ierr)) goto finish;
    }
    ierr = pm_halo_update(halo, u, MPI_DOUBLE, 1);
    if (!ierr) ierr = pm_fem_dirichlet(local, &prob, fixed, u);
    if (agree(comm, rank, ierr)) goto finish;
  }

  /* Solve: once, or once per time step. */
  pm_cg_options_t copt = {p->rtol, p->maxit, p->monitor, stdout};
  pm_cg_result_t res;
  tstats_t ts;
  memset(&ts, 0, sizeof ts);
  if (transient) {
    ierr = create_pc(p, &pc);
    if (!ierr) ierr = run_transient(comm, p, local, meta, halo, a, m, b, u, pc, &copt, &ts);
    if (agree(comm, rank, ierr)) goto finish;
    res = ts.sum;
  } else {
    ierr = create_pc(p, &pc);
    if (!ierr) ierr = pm_cg_solve(a, halo, pc, b, u, &copt, &res);
    if (agree(comm, rank, ierr)) goto finish;
  }

  /* Results: min/max, errors against an exact solution. */
  double mm[2] = {INFINITY, INFINITY}, err[2] = {0, 0};
  for (int32_t i = 0; i < local->n_internal; i++) {
    if (u[i] < mm[0]) mm[0] = u[i];
    if (-u[i] < mm[1]) mm[1] = -u[i];
  }
  pm_comm_allreduce(MPI_IN_PLACE, mm, 2, MPI_DOUBLE, MPI_MIN, comm);
  if (p->exact[0]) {
    pm_expr_t *ex = NULL;
    ierr = pm_expr_create(p->exact, &ex);
    if (!ierr) ierr = PM_MALLOC(w, local->n_internal, "weights");
    if (!ierr) ierr = pm_fem_node_weights(local, w);
    for (int32_t i = 0; !ierr && i < local->n_internal; i++) {
      const double *x = local->xyz + 3 * i;
      double e = fabs(u[i] - pm_expr_eval(ex, x[0], x[1], x[2]));
      if (e > err[0]) err[0] = e;
      err[1] += w[i] * e * e;
    }
    pm_expr_destroy(&ex);
    if (agree(comm, rank, ierr)) goto finish;
    pm_comm_allreduce(MPI_IN_PLACE, &err[0], 1, MPI_DOUBLE, MPI_MAX, comm);
    pm_comm_allreduce(MPI_IN_PLACE, &err[1], 1, MPI_DOUBLE, MPI_SUM, comm);
    err[1] = sqrt(err[1]);
  }
  if (p->dump_u[0]) {
    snprintf(path, sizeof path, "%s.%d", p->dump_u, rank);
    pm_tool_out_t o;
    ierr = pm_tool_open(tool, &o, path) ? PM_ERR_IO : PM_OK;
    for (int32_t i = 0; !ierr && i < local->n_internal; i++)
      fprintf(o.fp, "%" PRId64 " %.17g %.17g %.17g\n", local->gid[i], local->xyz[3 * i], local->xyz[3 * i + 1], u[i]);
    if (!ierr && pm_tool_close(tool, &o, 1)) ierr = PM_ERR_IO;
    if (pm_comm_agree(comm, ierr)) goto finish;
  }
  /* Output of a steady run: u (the owners' values, refreshed by the solver's last halo update),
   * with the run's parameters and figures as attributes.  A transient run wrote its series. */
  if (result) {
    double t = MPI_Wtime();
    pm_h5_field_t fields[1] = {{"u", 0, 0, u}};
    pm_h5_attr_t attrs[MAX_ATTRS];
    int na = base_attrs(p, attrs);
    attrs[na++] = (pm_h5_attr_t){"iterations", PM_H5_ATTR_INT64, 0, res.iterations, NULL};
    attrs[na++] = (pm_h5_attr_t){"residual", PM_H5_ATTR_DOUBLE, res.residual, 0, NULL};
    attrs[na++] = (pm_h5_attr_t){"converged", PM_H5_ATTR_INT64, 0, res.converged, NULL};
    ierr = pm_h5_series_write(result, 0.0, fields, 1);
    if (agree(comm, rank, ierr)) goto finish; /* finish abandons the result */
    ierr = pm_h5_series_close(&result, attrs, na, 1);
    t_output += MPI_Wtime() - t;
    if (agree(comm, rank, ierr)) goto finish;
  }
  if (transient) t_output = ts.t_output;
  int64_t out_bytes = 0;
  struct stat sb;
  if (!p->no_output && rank == 0 && stat(p->out_h5, &sb) == 0) out_bytes = (int64_t)sb.st_size;
  double t_total = MPI_Wtime() - t0;
  int converged = transient ? ts.converged : res.converged;
  if (rank == 0) {
    int it = res.iterations > 0 ? res.iterations : 1;
    const char *scheme = fdm5 ? "fdm5" : "fem", *precond = precond_names[p->precond];
    const char *mass = p->mass == PM_MASS_LUMPED ? "lumped" : "consistent";
    printf("solve: %d ranks, %" PRId64 " unknowns (%" PRId64 " fixed), scheme %s, precond %s, exchange %s\n", size,
           nunknown, nfixed_all, scheme, precond, pm_exchange_name((pm_exchange_t)p->exchange));
    if (transient) {
      const char *init = p->initial[0] ? p->initial : p->initial_value[0] ? p->initial_value : "0";
      printf("transient: %d steps of dt %.6g to t = %.6g, mass %s%s, initial %s\n", ts.steps_done, p->dt,
             ts.steps_done * p->dt, mass, fdm5 ? " (fdm5: the nodal value)" : "", init);
      printf("cg: %s, %" PRId64
             " iterations in total, per step min %d avg %.2f max %d, worst ||r||/||b|| = %.3e "
             "(rtol %.1e)\n",
             ts.converged ? "every step converged" : "NOT converged", ts.it_total, ts.it_min,
             ts.steps_done ? (double)ts.it_total / ts.steps_done : 0.0, ts.it_max, ts.residual_max, p->rtol);
    } else {
      printf("cg: %s after %d iterations, ||r||/||b|| = %.3e (rtol %.1e)\n",
             res.converged ? "converged" : "NOT converged", res.iterations, res.residual, p->rtol);
    }
    printf(
        "time per iteration %.3f ms: spmv %.3f, exchange %.3f, reductions %.3f, vector updates %.3f "
        "(solver set-up %.3f s apart)\n",
        1e3 * (res.t_total - res.t_setup) / it, 1e3 * res.t_spmv / it, 1e3 * res.t_exchange / it,
        1e3 * res.t_reduce / it, 1e3 * res.t_update / it, res.t_setup);
    if (p->precond == PRECOND_AMG) pm_pc_view(pc, stdout, 0);
    printf("u: min %.10g max %.10g%s\n", mm[0], -mm[1], transient ? " (last step)" : "");
    if (p->exact[0]) printf("error against %s: max %.6e, L2 %.6e\n", p->exact, err[0], err[1]);
    printf("seconds: load %.3f, assembly %.3f, solve %.3f, output %.3f, total %.3f\n", t_load, t_assembly, res.t_total,
           t_output, t_total);
    if (!p->no_output && (converged || !transient))
      printf("result: %s (%s beside it, open it in ParaView)%s\n", p->out_h5, p->out_xmf,
             transient ? ": a time series" : "");
    if (p->summary[0]) {
      pm_tool_out_t o;
      if (!pm_tool_open(tool, &o, p->summary)) {
        fprintf(o.fp,
                "{\n  \"tool\": \"solve\",\n  \"version\": \"%s\",\n  \"ranks\": %d,\n  \"unknowns\": %" PRId64
                ",\n  \"fixed\": %" PRId64
                ",\n  \"scheme\": \"%s\",\n  \"precond\": \"%s\",\n  \"exchange\": \"%s\",\n"
                "  \"iterations\": %d,\n  \"converged\": %s,\n  \"residual\": %.17g,\n  \"u_min\": %.17g,\n  "
                "\"u_max\": %.17g,\n",
                PMESH_VERSION, size, nunknown, nfixed_all, scheme, precond,
                pm_exchange_name((pm_exchange_t)p->exchange), res.iterations, converged ? "true" : "false",
                transient ? ts.residual_max : res.residual, mm[0], -mm[1]);
        if (transient)
          fprintf(o.fp,
                  "  \"transient\": {\"dt\": %.17g, \"steps\": %d, \"steps_done\": %d, \"time\": %.17g, \"every\": %d,"
                  " \"mass\": \"%s\",\n                \"iterations_total\": %" PRId64
                  ", \"iterations_min\": %d, \"iterations_avg\": %.6f, \"iterations_max\": %d,\n"
                  "                \"steps_written\": %d},\n",
                  p->dt, p->steps, ts.steps_done, ts.steps_done * p->dt, p->every, mass, ts.it_total, ts.it_min,
                  ts.steps_done ? (double)ts.it_total / ts.steps_done : 0.0, ts.it_max, ts.written);
        if (p->exact[0]) fprintf(o.fp, "  \"error_max\": %.17g,\n  \"error_l2\": %.17g,\n", err[0], err[1]);
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
                t_load, t_assembly, res.t_total, res.t_setup, (res.t_total - res.t_setup) / it, res.t_spmv,
                res.t_exchange, res.t_reduce, res.t_update, t_output, t_total, out_bytes);
        pm_tool_close(tool, &o, 1);
      }
    }
    if (!converged && transient)
      fprintf(stderr,
              "%s: error: CG did not converge at step %d (t = %g) in %d iterations (||r||/||b|| = %.3e > rtol %.1e); "
              "no result was written (a smaller --dt or a larger --maxit may help)\n",
              tool, ts.failed_step, ts.failed_step * p->dt, ts.failed_iterations, ts.failed_residual, p->rtol);
    else if (!converged)
      fprintf(stderr, "%s: error: CG did not converge in %d iterations (||r||/||b|| = %.3e > rtol %.1e)\n", tool,
              res.iterations, res.residual, p->rtol);
  }
  status = converged ? EXIT_SUCCESS : EXIT_FAILURE;
finish:
  if (result) pm_h5_series_close(&result, NULL, 0, 0); /* every rank (agreed): the earlier result stays */
  free(b);
  free(u);
  free(w);
  free(fixed);
  pm_pc_destroy(&pc);
  pm_csr_destroy(&a);
  pm_csr_destroy(&m);
  pm_halo_destroy(&halo);
  pm_local_destroy(&local);
  pm_meta_destroy(&meta);
  if (ptype != MPI_DATATYPE_NULL) MPI_Type_free(&ptype);
  free(p);
  MPI_Finalize();
  return status;
}
