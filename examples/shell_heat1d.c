/* shell_heat1d.c - the lecture's 1D heat conduction (S2-ref) on a user's own data, solved by
 * pmesh's CG: no mesh file, no local mesh, no matrix.
 *
 *   mpiexec -n P shell_heat1d [NEg]          (default NEg = 15, the lecture's bar)
 *
 * COND d2T/dx2 + Q = 0 on 0 <= x <= XL (dX = Q = A = COND = 1, XL = NEg), T = 0 at x = 0,
 * insulated at x = XL: T(x) = (-Q x^2 / 2 + Q XL x) / COND, so T(15) = 112.5.
 *
 * Each rank owns a block of the NEg + 1 nodes, in an array of its own: t[0..n-1] its nodes,
 * t[n] a copy of the left neighbour's last node, t[n+1] of the right neighbour's first (a slot
 * at an end of the bar stays unused).  Three steps put pmesh's solver on it:
 *  - pm_halo_create_lists: the halo from the two neighbours and which slots go where;
 *  - pm_op_create_shell: the stiffness matrix applied element by element (matrix-free), with
 *    its diagonal for Jacobi; the apply refreshes the ghosts itself with the halo;
 *  - pm_cg_solve with pm_pc_create_jacobi. */
#include <mpi.h>
#include <pmesh/pm_cg.h>
#include <pmesh/pm_comm.h>
#include <pmesh/pm_error.h>
#include <pmesh/pm_halo.h>
#include <pmesh/pm_op.h>
#include <pmesh/pm_pc.h>
#include <stdio.h>
#include <stdlib.h>

static int rank;

/* A failure on any rank ends every rank (pm_comm_agree: one reduction), with its message. */
static void check(int ierr, const char *what) {
  if (pm_comm_agree(MPI_COMM_WORLD, ierr) == PM_OK) return;
  if (ierr) fprintf(stderr, "shell_heat1d: rank %d: %s: %s\n", rank, what, pm_error_message());
  MPI_Finalize();
  exit(EXIT_FAILURE);
}

/* This rank's slice of the bar. */
typedef struct bar {
  long neg; /* elements; nodes 0..neg */
  long g0;  /* global number of the first owned node */
  int n;    /* owned nodes */
  double k; /* element conductance COND A / dX */
  pm_halo_t *halo;
} bar_t;

/* y = K t over the owned nodes; node 0 (T = 0) is an identity row and its column is dropped. */
static int apply(void *ctx, double *t, double *y) {
  const bar_t *b = ctx;
  PM_CALL(pm_halo_update(b->halo, t, MPI_DOUBLE, 1)); /* fills t[n] and t[n + 1] */
  for (int i = 0; i < b->n; i++) {
    long g = b->g0 + i;
    double left = i > 0 ? t[i - 1] : t[b->n], right = i + 1 < b->n ? t[i + 1] : t[b->n + 1];
    if (g == 0) {
      y[i] = t[i];
      continue;
    }
    double v = b->k * t[i] - (g > 1 ? b->k * left : 0.0); /* the element on the left */
    if (g < b->neg) v += b->k * t[i] - b->k * right;      /* the element on the right */
    y[i] = v;
  }
  return PM_OK;
}

static int diagonal(void *ctx, double *d) {
  const bar_t *b = ctx;
  for (int i = 0; i < b->n; i++) {
    long g = b->g0 + i;
    d[i] = g == 0 ? 1.0 : g < b->neg ? 2 * b->k : b->k;
  }
  return PM_OK;
}

static const pm_op_shell_t bar_ops = {"heat1d", apply, diagonal, NULL};

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long neg = argc > 1 ? strtol(argv[1], NULL, 10) : 15;
  if (argc > 2 || neg < size) {
    if (rank == 0) fprintf(stderr, "usage: mpiexec -n P shell_heat1d [NEg]   (NEg >= P)\n");
    MPI_Finalize();
    return EXIT_FAILURE;
  }
  bar_t b = {neg, (neg + 1) * rank / size, 0, 1.0, NULL};
  b.n = (int)((neg + 1) * (rank + 1) / size - b.g0);

  /* The exchange, one value each way per neighbour: t[0] goes left and t[n-1] right; t[n]
   * comes from the left and t[n+1] from the right. */
  int neib[2], nn = 0;
  int32_t imp_item[2], exp_item[2], index[3] = {0, 1, 2};
  if (rank > 0) {
    neib[nn] = rank - 1;
    imp_item[nn] = b.n;
    exp_item[nn++] = 0;
  }
  if (rank + 1 < size) {
    neib[nn] = rank + 1;
    imp_item[nn] = b.n + 1;
    exp_item[nn++] = b.n - 1;
  }
  pm_halo_lists_t lists = {b.n + 2, nn, neib, index, imp_item, index, exp_item};
  check(pm_halo_create_lists(MPI_COMM_WORLD, &lists, pm_exchange_default(), &b.halo), "halo");

  /* The operator's vectors are t's layout: N = n owned entries first, NP = n + 2 in all. */
  pm_op_t *op = NULL;
  check(pm_op_create_shell(MPI_COMM_WORLD, b.n, b.n + 2, &bar_ops, &b, &op), "operator");
  double *rhs = calloc((size_t)b.n, sizeof *rhs), *t = calloc((size_t)b.n + 2, sizeof *t);
  for (int i = 0; i < b.n; i++) {
    long g = b.g0 + i;
    rhs[i] = g == 0 ? 0.0 : g < neg ? 1.0 : 0.5; /* Q A dX over the node's elements */
  }
  pm_pc_t *pc = NULL;
  check(pm_pc_create_jacobi(&pc), "Jacobi");
  pm_cg_options_t opt = {.rtol = 1e-12, .maxit = 10 * (int)neg};
  pm_cg_result_t res;
  check(pm_cg_solve(op, pc, rhs, t, &opt, &res), "CG");
  /* T at x = XL from the rank that owns it. */
  double tl = b.g0 + b.n - 1 == neg ? t[b.n - 1] : -1e300, xl = (double)neg;
  MPI_Allreduce(MPI_IN_PLACE, &tl, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("%s after %d iterations, ||r||/||b|| = %.3e\n", res.converged ? "converged" : "NOT converged",
           res.iterations, res.residual);
    printf("T(%g) = %.12f  (exact %.12f)\n", xl, tl, xl * xl / 2);
  }
  pm_pc_destroy(&pc);
  pm_op_destroy(&op);
  pm_halo_destroy(&b.halo);
  free(rhs);
  free(t);
  MPI_Finalize();
  return res.converged ? EXIT_SUCCESS : EXIT_FAILURE;
}
