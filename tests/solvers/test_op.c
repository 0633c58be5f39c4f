/* test_op.c - the solvers on an operator (pmesh/pm_op.h): the assembled matrix of a 1D chain
 * with variable coefficients (tu_chain.h, halo from plain lists) and the same operator applied
 * matrix-free by a shell callback that exchanges its ghosts itself.  Checks:
 *  - the shell's product equals the matrix's bit for bit (the rows sum in the same order);
 *  - with the exact dot products of reproducible mode, where the two take the same CG path,
 *    the same iteration count, residual history and solution bit for bit: no preconditioner
 *    (the fused path) and a user's Jacobi set up from the operator's diagonal (the general
 *    path, a user-defined preconditioner);
 *  - Jacobi on the shell (the general path) and on the matrix (the scaled fused path): the
 *    same iteration count (+-1) and residual history and solution to 1e-12;
 *  - the solution against the chain's exact solution (u = 1 + sin(x), its b computed here);
 *  - refusals, agreed on every rank with PM_ERR_ARG and a message: AMG and geometric
 *    multigrid given a shell operator, Jacobi given a shell without a diagonal (also through
 *    pm_cg_create), pm_op_create_csr given a halo of another size. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_amg.h"
#include "pmesh/pm_cg.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_mg.h"
#include "pmesh/pm_op.h"
#include "pmesh/pm_pc.h"
#include "tu_chain.h"
#include "tu_check.h"



/* The coefficient of the edge between global points g and g + 1, and the shift. */
static double kappa(int64_t g) {
  return 1.0 + 0.5 * sin(0.37 * (double)g);
}
static const double SHIFT = 1e-3;

/* Diagonal, and the row's off-diagonals in global order (left, right; -1 where none). */
static void row(const tu_chain_t *c, int64_t g, double *d, double *l, double *r) {
  *l = g > 0 ? -kappa(g - 1) : 0.0;
  *r = g + 1 < c->N ? -kappa(g) : 0.0;
  *d = SHIFT - *l - *r;
}

static pm_csr_t *chain_csr(const tu_chain_t *c) {
  pm_csr_t *a = calloc(1, sizeof *a);
  int32_t n = c->n;
  a->n = n;
  a->ncol = c->np;
  a->d = malloc(((size_t)n + 1) * sizeof *a->d);
  a->index = malloc(((size_t)n + 1) * sizeof *a->index);
  a->item = malloc((2 * (size_t)n + 1) * sizeof *a->item);
  a->amat = malloc((2 * (size_t)n + 1) * sizeof *a->amat);
  if (!a->d || !a->index || !a->item || !a->amat) MPI_Abort(MPI_COMM_WORLD, 2);
  a->index[0] = 0;
  for (int32_t i = 0, w = 0; i < n; i++) {
    int64_t g = c->r0 + i;
    double l, r;
    row(c, g, &a->d[i], &l, &r);
    if (g > 0) {
      a->item[w] = i > 0 ? i - 1 : c->gl;
      a->amat[w++] = l;
    }
    if (g + 1 < c->N) {
      a->item[w] = i + 1 < n ? i + 1 : c->gr;
      a->amat[w++] = r;
    }
    a->index[i + 1] = w;
  }
  OK(pm_csr_compact(a)); /* the row runs the product needs */
  return a;
}

/* The shell: the chain's rows from the coefficients, after its own ghost exchange. */
typedef struct shell {
  const tu_chain_t *c;
  pm_halo_t *halo;
  long applies;
} shell_t;

static int shell_apply(void *ctx, double *x, double *y) {
  shell_t *s = ctx;
  const tu_chain_t *c = s->c;
  PM_CALL(pm_halo_update(s->halo, x, MPI_DOUBLE, 1));
  for (int32_t i = 0; i < c->n; i++) {
    int64_t g = c->r0 + i;
    double d, l, r;
    row(c, g, &d, &l, &r);
    double v = d * x[i]; /* as pm_csr_spmv: the diagonal term, then the entries in global order */
    if (g > 0) v += l * x[i > 0 ? i - 1 : c->gl];
    if (g + 1 < c->N) v += r * x[i + 1 < c->n ? i + 1 : c->gr];
    y[i] = v;
  }
  s->applies++;
  return PM_OK;
}

static int shell_diagonal(void *ctx, double *dg) {
  const shell_t *s = ctx;
  for (int32_t i = 0; i < s->c->n; i++) {
    double l, r;
    row(s->c, s->c->r0 + i, &dg[i], &l, &r);
  }
  return PM_OK;
}

static const pm_op_shell_t shell_ops = {"chain-free", shell_apply, shell_diagonal, NULL};
static const pm_op_shell_t bare_ops = {NULL, shell_apply, NULL, NULL}; /* no diagonal */

/* A user's Jacobi, set up from any operator's diagonal (no diagonal_scaling: the general path). */
typedef struct user_pc {
  int32_t n;
  double *inv;
} user_pc_t;

static int user_setup(void *ctx, pm_op_t *a) {
  user_pc_t *u = ctx;
  u->n = pm_op_n(a);
  int ierr = PM_MALLOC(u->inv, u->n + 1, "user Jacobi");
  if (!ierr) ierr = pm_op_diagonal(a, u->inv);
  for (int32_t i = 0; !ierr && i < u->n; i++) u->inv[i] = 1.0 / u->inv[i];
  return pm_comm_agree(pm_op_comm(a), ierr);
}
static int user_apply(void *ctx, const double *r, double *z) {
  const user_pc_t *u = ctx;
  for (int32_t i = 0; i < u->n; i++) z[i] = u->inv[i] * r[i];
  return PM_OK;
}
static void user_destroy(void *ctx) {
  user_pc_t *u = ctx;
  if (u) free(u->inv);
  free(u);
}
static const pm_pc_ops_t user_ops = {"user-jacobi", user_setup, user_apply, NULL, NULL, user_destroy};

/* A CG run's residual history. */
typedef struct history {
  int n;
  double rel[4096];
} history_t;

static void record(void *ctx, int it, double rel) {
  history_t *h = ctx;
  if (it < 4096) h->rel[it] = rel;
  if (it + 1 > h->n) h->n = it + 1 < 4096 ? it + 1 : 4096;
}

typedef struct run {
  pm_cg_result_t res;
  history_t hist;
  double *x;
} run_t;

/* pc: 0 none, 1 Jacobi, 2 the user's Jacobi. */
static void solve(pm_op_t *op, int pc_kind, int reproducible, const double *b, run_t *out) {
  pm_pc_t *pc = NULL;
  if (pc_kind == 0) OK(pm_pc_create_none(&pc));
  if (pc_kind == 1) OK(pm_pc_create_jacobi(&pc));
  if (pc_kind == 2) {
    user_pc_t *u = calloc(1, sizeof *u);
    OK(pm_pc_create(&user_ops, u, &pc));
  }
  memset(&out->hist, 0, sizeof out->hist);
  pm_cg_options_t opt = {.rtol = 1e-10, .maxit = 4000, .reproducible = reproducible};
  opt.on_iteration = record;
  opt.on_iteration_ctx = &out->hist;
  int32_t np = pm_op_n_total(op);
  out->x = calloc((size_t)np + 1, sizeof *out->x);
  OK(pm_cg_solve(op, pc, b, out->x, &opt, &out->res));
  pm_pc_destroy(&pc);
}

/* max |x - y| over the owned entries, max |y|, over all ranks. */
static double diff(const double *x, const double *y, int32_t n, double *scale) {
  double v[2] = {0, 0};
  for (int32_t i = 0; i < n; i++) {
    v[0] = fmax(v[0], fabs(x[i] - y[i]));
    v[1] = fmax(v[1], fabs(y[i]));
  }
  MPI_Allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  *scale = v[1];
  return v[0];
}

static void compare(const run_t *a, const run_t *b, int32_t n, double tol, const char *what) {
  double scale, d = diff(a->x, b->x, n, &scale);
  int it_ok = tol == 0 ? a->res.iterations == b->res.iterations : abs(a->res.iterations - b->res.iterations) <= 1;
  EXPECT(it_ok, "%s: %d and %d iterations", what, a->res.iterations, b->res.iterations);
  EXPECT(a->res.converged && b->res.converged, "%s: converged %d, %d", what, a->res.converged, b->res.converged);
  EXPECT(d <= tol * scale, "%s: solutions differ by %.3g (scale %g)", what, d, scale);
  int m = a->hist.n < b->hist.n ? a->hist.n : b->hist.n;
  double hd = 0;
  for (int k = 0; k < m; k++) hd = fmax(hd, fabs(a->hist.rel[k] - b->hist.rel[k]) / a->hist.rel[0]);
  EXPECT(hd <= tol, "%s: residual histories differ by %.3g (relative to the first)", what, hd);
  if (g_rank == 0)
    printf("%s: %d / %d iterations, solutions differ by %.3g, histories by %.3g\n", what, a->res.iterations,
           b->res.iterations, scale > 0 ? d / scale : d, hd);
}

/* PM_ERR_ARG on every rank with `needle` in the message. */
static void expect_arg(int ierr, const char *needle, const char *what) {
  EXPECT(ierr == PM_ERR_ARG && strstr(pm_error_message(), needle), "%s: code %d, message '%s'", what, ierr,
         pm_error_message());
  pm_error_clear();
}

static void refusals(pm_op_t *shell, pm_op_t *bare, pm_halo_t *halo, const tu_chain_t *c) {
  pm_pc_t *pc = NULL;
  OK(pm_pc_create_amg(NULL, &pc));
  expect_arg(pm_pc_setup(pc, shell), "shell operator", "AMG on a shell");
  EXPECT(!pm_pc_is_setup(pc), "AMG: set up from a shell");
  pm_pc_destroy(&pc);
  pm_local_t fake;
  memset(&fake, 0, sizeof fake);
  const pm_local_t *meshes[1] = {&fake};
  OK(pm_pc_create_mg(1, meshes, NULL, NULL, &pc));
  expect_arg(pm_pc_setup(pc, shell), "geometric multigrid", "MG on a shell");
  pm_pc_destroy(&pc);
  OK(pm_pc_create_jacobi(&pc));
  expect_arg(pm_pc_setup(pc, bare), "no diagonal", "Jacobi on a shell without a diagonal");
  pm_pc_destroy(&pc);
  OK(pm_pc_create_jacobi(&pc));
  pm_cg_t *cg = NULL;
  expect_arg(pm_cg_create(bare, pc, &cg), "no diagonal", "CG + Jacobi on a shell without a diagonal");
  EXPECT(cg == NULL, "pm_cg_create failed but returned a solver");
  pm_pc_destroy(&pc);
  EXPECT(pm_op_diagonal(bare, NULL) == PM_ERR_ARG, "pm_op_diagonal of a bare shell");
  pm_error_clear();
  /* A matrix whose columns are not the halo's. */
  pm_csr_t wrong = {0};
  wrong.n = c->n;
  wrong.ncol = c->np + 1;
  pm_op_t *op = NULL;
  expect_arg(pm_op_create_csr(&wrong, halo, &op), "same local numbering", "pm_op_create_csr, another size");
  EXPECT(op == NULL, "pm_op_create_csr failed but returned an operator");
  /* A shell without an apply. */
  static const pm_op_shell_t none = {NULL, NULL, NULL, NULL};
  expect_arg(pm_op_create_shell(MPI_COMM_WORLD, c->n, c->np, &none, NULL, &op), "apply", "a shell without an apply");
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  (void)argc;
  (void)argv;
  tu_chain_t c;
  tu_chain_init(&c, 120, g_rank, size, TU_OWNED_FIRST);
  pm_halo_lists_t g = tu_chain_lists(&c);
  pm_halo_t *halo = NULL;
  OK(pm_halo_create_lists(MPI_COMM_WORLD, &g, pm_exchange_default(), &halo));
  pm_csr_t *a = chain_csr(&c);
  pm_op_t *op = NULL, *shell = NULL, *bare = NULL;
  shell_t ctx = {&c, halo, 0};
  OK(pm_op_create_csr(a, halo, &op));
  OK(pm_op_create_shell(MPI_COMM_WORLD, c.n, c.np, &shell_ops, &ctx, &shell));
  OK(pm_op_create_shell(MPI_COMM_WORLD, c.n, c.np, &bare_ops, &ctx, &bare));
  EXPECT(pm_op_csr(op) == a && pm_op_halo(op) == halo && !pm_op_csr(shell) && !pm_op_halo(shell),
         "the operators' matrix and halo");
  EXPECT(pm_op_n(shell) == c.n && pm_op_n_total(shell) == c.np && pm_op_n(op) == c.n && pm_op_n_total(op) == c.np,
         "the operators' sizes");
  EXPECT(
      !strcmp(pm_op_name(shell), "chain-free") && !strcmp(pm_op_name(bare), "shell") && !strcmp(pm_op_name(op), "csr"),
      "names '%s', '%s', '%s'", pm_op_name(shell), pm_op_name(bare), pm_op_name(op));
  EXPECT(pm_op_has_diagonal(op) && pm_op_has_diagonal(shell) && !pm_op_has_diagonal(bare), "diagonals");

  /* The exact solution and its right-hand side, computed from the rows here. */
  int32_t n = c.n, np = c.np;
  double *ue = malloc(((size_t)np + 1) * sizeof *ue), *b = malloc(((size_t)n + 1) * sizeof *b);
  double *y1 = malloc(((size_t)n + 1) * sizeof *y1), *y2 = malloc(((size_t)n + 1) * sizeof *y2);
  for (int32_t i = 0; i < np; i++) ue[i] = 1.0 + sin(0.05 * (double)tu_chain_gid(&c, i));
  for (int32_t i = 0; i < n; i++) {
    int64_t gi = c.r0 + i;
    double d, l, r;
    row(&c, gi, &d, &l, &r);
    b[i] =
        d * ue[i] + (gi > 0 ? l * ue[i > 0 ? i - 1 : c.gl] : 0) + (gi + 1 < c.N ? r * ue[i + 1 < n ? i + 1 : c.gr] : 0);
  }
  OK(pm_op_apply(op, ue, y1));
  OK(pm_op_apply(shell, ue, y2));
  int same = 1;
  for (int32_t i = 0; i < n; i++) same &= y1[i] == y2[i] && y1[i] == b[i];
  EXPECT(same, "the shell's product is not the matrix's");

  run_t r[6];
  solve(op, 0, 1, b, &r[0]);
  solve(shell, 0, 1, b, &r[1]);
  compare(&r[0], &r[1], n, 0.0, "reproducible, none: matrix / shell");
  solve(op, 2, 1, b, &r[2]);
  solve(shell, 2, 1, b, &r[3]);
  compare(&r[2], &r[3], n, 0.0, "reproducible, user's Jacobi: matrix / shell");
  solve(op, 1, 0, b, &r[4]);
  long before = ctx.applies;
  solve(shell, 1, 0, b, &r[5]);
  compare(&r[4], &r[5], n, 1e-12, "Jacobi: matrix (scaled) / shell (general)");
  EXPECT(ctx.applies - before == r[5].res.iterations + 2, "the shell was applied %ld times in %d iterations",
         ctx.applies - before, r[5].res.iterations);
  double scale, e = diff(r[5].x, ue, n, &scale);
  EXPECT(e <= 1e-6 * scale, "error against the exact solution %g (scale %g)", e, scale);
  for (int k = 0; k < 6; k++) free(r[k].x);

  refusals(shell, bare, halo, &c);

  pm_op_destroy(&bare);
  pm_op_destroy(&shell);
  pm_op_destroy(&op);
  pm_op_destroy(&op); /* NULL-safe */
  EXPECT(op == NULL, "pm_op_destroy leaves the handle set");
  pm_csr_destroy(&a);
  pm_halo_destroy(&halo);
  free(ue);
  free(b);
  free(y1);
  free(y2);
  int fails = g_fail;
  pm_comm_allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("test_op: %s (%d ranks)\n", fails ? "FAILED" : "passed", size);
  MPI_Finalize();
  return fails ? 1 : 0;
}
