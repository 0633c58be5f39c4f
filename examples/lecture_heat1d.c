/* lecture_heat1d.c - the lecture's 1D heat conduction (S2-ref) on pmesh's local files and halo.
 *
 *   meshgen line 15 1.0 -o bar.msh && partition bar.msh 4 --method rcb -o bar
 *   mpiexec -n 4 lecture_heat1d bar input.dat        (input.dat with NEg = 15 on its first line)
 *
 * COND d2T/dx2 + Q = 0 on 0 <= x <= XL, T = 0 at x = 0, insulated at x = XL:
 * T(x) = (-Q x^2 / 2 + Q XL x) / COND, so T(15) = 112.5 for the lecture's data.
 *
 * What changes from the lecture's program: it builds its own slice of the bar on every rank
 * and exchanges with rank-1 and rank+1; here partition wrote each rank's slice (local.<rank>:
 * internal nodes 0..N-1, external nodes N..NP-1, the elements touching them), and pm_halo does
 * the lecture's SEND_RECV.  The element matrices, the boundary condition and the diagonally
 * scaled CG loop are the lecture's, written out here (allocations go unchecked, for brevity). */
#include <math.h>
#include <mpi.h>
#include <pmesh/pm_comm.h>
#include <pmesh/pm_error.h>
#include <pmesh/pm_halo.h>
#include <pmesh/pm_local.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

/* A failure on any rank ends every rank (pm_comm_agree: one reduction), with its message. */
static void check(int ierr, const char *what) {
  if (pm_comm_agree(MPI_COMM_WORLD, ierr) == PM_OK) return;
  if (ierr) fprintf(stderr, "lecture_heat1d: rank %d: %s: %s\n", rank, what, pm_error_message());
  MPI_Finalize();
  exit(EXIT_FAILURE);
}

/* The lecture's dot product: the sum over internal nodes, then MPI_Allreduce. */
static double dot(const double *a, const double *b, int32_t n) {
  double s = 0, sum;
  for (int32_t i = 0; i < n; i++) s += a[i] * b[i];
  MPI_Allreduce(&s, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return sum;
}

/* Local node numbers of a group (partition lists internal and external ones), or NULL. */
static const pm_local_group_t *group(const pm_local_t *l, const char *name) {
  for (int g = 0; g < l->n_groups; g++)
    if (!strcmp(l->groups[g].name, name)) return &l->groups[g];
  return NULL;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: mpiexec -n P lecture_heat1d PARTITION_DIR input.dat\n");
    MPI_Finalize();
    return EXIT_FAILURE;
  }
  /* input.dat: NEg / dX Q A COND / ITERmax / EPS (every rank reads the small file). */
  long neg = 0;
  int itermax = 0;
  double dx = 0, q = 0, area = 0, cond = 0, eps = 0;
  FILE *fp = fopen(argv[2], "r");
  int ok = fp && fscanf(fp, "%ld %lf %lf %lf %lf %d %lf", &neg, &dx, &q, &area, &cond, &itermax, &eps) == 7;
  if (fp) fclose(fp);
  check(ok ? PM_OK
           : pm_error_set(PM_ERR_IO, __FILE__, __LINE__, "%s: expected NEg / dX Q A COND / ITERmax / EPS", argv[2]),
        "control file");

  /* This rank's slice of the bar, and the halo built from its import/export tables. */
  char path[4096];
  pm_local_t *l = NULL;
  int ierr = pm_local_path(argv[1], rank, path, sizeof path);
  if (!ierr) ierr = pm_local_read(path, rank, &l);
  if (!ierr && !l->has_mesh) ierr = pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__, "%s has no elements", path);
  check(ierr, "local mesh");
  pm_halo_t *halo = NULL;
  check(pm_halo_create(MPI_COMM_WORLD, l, pm_exchange_default(), &halo), "halo");
  int32_t N = l->n_internal, NP = l->n_total;

  /* The lecture's matrix: diagonal D, off-diagonals in CSR (INDEX, ITEM, AMAT), one row per
   * internal node; columns are local numbers, externals included.  Element e = (i, j) of length
   * L adds COND A / L [1 -1; -1 1] and Q A L / 2 to each of its nodes' right-hand side. */
  double *D = calloc((size_t)N + 1, sizeof *D), *B = calloc((size_t)N + 1, sizeof *B);
  int32_t *INDEX = calloc((size_t)N + 1, sizeof *INDEX), *fill = calloc((size_t)N + 1, sizeof *fill);
  for (int32_t e = 0; e < l->n_elems; e++)
    for (int32_t k = l->elem_ptr[e]; k < l->elem_ptr[e + 1] && l->elem_ptr[e + 1] - l->elem_ptr[e] == 2; k++)
      if (l->elem_node[k] < N) INDEX[l->elem_node[k] + 1]++; /* one neighbour per line element */
  for (int32_t i = 0; i < N; i++) INDEX[i + 1] += INDEX[i];
  int32_t *ITEM = malloc(((size_t)INDEX[N] + 1) * sizeof *ITEM);
  double *AMAT = malloc(((size_t)INDEX[N] + 1) * sizeof *AMAT);
  long long nel = 0, bad = 0; /* elements owned here; elements that are not of length dX */
  for (int32_t e = 0; e < l->n_elems; e++) {
    const int32_t *nd = l->elem_node + l->elem_ptr[e];
    int own = l->elem_owner[e] == rank; /* each element counted once, by its owner */
    nel += own;
    if (l->elem_ptr[e + 1] - l->elem_ptr[e] != 2) { /* not a line: not the lecture's bar */
      bad += own;
      continue;
    }
    double len = fabs(l->xyz[3 * nd[1]] - l->xyz[3 * nd[0]]), k = cond * area / len;
    bad += own && fabs(len - dx) > 1e-9 * dx;
    for (int a = 0; a < 2; a++) {
      int32_t i = nd[a], j = nd[1 - a];
      if (i >= N) continue; /* an external's row is its owner's */
      D[i] += k;
      B[i] += q * area * len / 2;
      ITEM[INDEX[i] + fill[i]] = j;
      AMAT[INDEX[i] + fill[i]++] = -k;
    }
  }

  /* T = 0 at x = 0 (meshgen's group xmin), as the lecture does it: the row becomes T = 0 and the
   * column is removed from the other rows (moving 0 to their right-hand sides). */
  char *fixed = calloc((size_t)NP + 1, 1);
  const pm_local_group_t *xmin = group(l, "xmin");
  for (int32_t k = 0; xmin && k < xmin->n_nodes; k++) fixed[xmin->nodes[k]] = 1;
  long long nfixed = 0;
  for (int32_t i = 0; i < N; i++) {
    for (int32_t k = INDEX[i]; k < INDEX[i + 1]; k++)
      if (fixed[i] || fixed[ITEM[k]]) AMAT[k] = 0;
    if (fixed[i]) {
      D[i] = 1;
      B[i] = 0;
      nfixed++;
    }
  }
  long long mine[3] = {nel, bad, nfixed}, all[3];
  MPI_Allreduce(mine, all, 3, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  check(all[0] != neg || all[1] || !all[2]
            ? pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                           "%s says NEg = %ld and dX = %g, but the mesh has %lld elements (%lld of them not lines "
                           "of length dX) and %lld nodes in group xmin (1 expected)",
                           argv[2], neg, dx, all[0], all[1], all[2])
            : PM_OK,
        "input.dat and the mesh disagree");

  /* CG with diagonal scaling (the lecture's PCG, M = D), X = 0 to start. */
  double *X = calloc((size_t)NP + 1, sizeof *X), *P = calloc((size_t)NP + 1, sizeof *P);
  double *R = malloc(((size_t)N + 1) * sizeof *R), *Z = malloc(((size_t)N + 1) * sizeof *Z);
  double *Q = malloc(((size_t)N + 1) * sizeof *Q);
  memcpy(R, B, (size_t)N * sizeof *R);
  double bnrm2 = dot(B, B, N), rho1 = 1, resid = 1;
  int iter;
  for (iter = 1; iter <= itermax; iter++) {
    for (int32_t i = 0; i < N; i++) Z[i] = R[i] / D[i];
    double rho = dot(R, Z, N);
    for (int32_t i = 0; i < N; i++) P[i] = iter == 1 ? Z[i] : Z[i] + rho / rho1 * P[i];
    /* The lecture's SEND_RECV: each external entry of P gets its owner's value. */
    if (pm_halo_update(halo, P, MPI_DOUBLE, 1) != PM_OK) {
      fprintf(stderr, "lecture_heat1d: rank %d: %s\n", rank, pm_error_message());
      MPI_Abort(MPI_COMM_WORLD, 1); /* an MPI failure inside the loop: the other ranks cannot be reached */
    }
    for (int32_t i = 0; i < N; i++) {
      Q[i] = D[i] * P[i];
      for (int32_t k = INDEX[i]; k < INDEX[i + 1]; k++) Q[i] += AMAT[k] * P[ITEM[k]];
    }
    double alpha = rho / dot(P, Q, N);
    for (int32_t i = 0; i < N; i++) {
      X[i] += alpha * P[i];
      R[i] -= alpha * Q[i];
    }
    resid = sqrt(dot(R, R, N) / bnrm2);
    rho1 = rho;
    if (resid <= eps) break;
  }

  /* T at x = XL (group xmax), from the rank that owns that node, against the exact value. */
  double end[2] = {-HUGE_VAL, -HUGE_VAL}, at[2];
  const pm_local_group_t *xmax = group(l, "xmax");
  for (int32_t k = 0; xmax && k < xmax->n_nodes; k++)
    if (xmax->nodes[k] < N) {
      end[0] = l->xyz[3 * xmax->nodes[k]];
      end[1] = X[xmax->nodes[k]];
    }
  MPI_Reduce(end, at, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("lecture_heat1d: %s after %d iterations, residual %.3e\n", resid <= eps ? "converged" : "NOT converged",
           iter > itermax ? itermax : iter, resid);
    printf("T(%g) = %.12g (exact %.12g)\n", at[0], at[1], q * at[0] * at[0] / (2 * cond));
  }
  void *arrays[] = {D, B, INDEX, fill, ITEM, AMAT, fixed, X, P, R, Z, Q};
  for (size_t k = 0; k < sizeof arrays / sizeof *arrays; k++) free(arrays[k]);
  pm_halo_destroy(&halo);
  pm_local_destroy(&l);
  MPI_Finalize();
  return resid <= eps ? EXIT_SUCCESS : EXIT_FAILURE;
}
