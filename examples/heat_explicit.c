/* heat_explicit.c - a kernel of your own over pm_halo: explicit time steps of the heat equation
 * du/dt = div(grad u) on any partitioned Gmsh mesh, the result written with pmesh's HDF5 writer.
 *
 *   partition meshes/disk_hole.msh 4 -o part && mpiexec -n 4 heat_explicit part result.h5
 *
 * pmesh assembles the FEM stiffness K (with u = x + y held on the mesh's boundary) and the
 * lumped mass m; the time loop is ours: forward Euler, u <- u + dt/m (b - K u), one halo update
 * of u per step.  From u = 0 inside, u settles to the steady state, which is x + y itself (FEM
 * reproduces linear fields exactly), so the program reports max |u - (x + y)| at the end.
 * Open result.xmf in ParaView to see u and that error.  (Allocations go unchecked, for brevity.) */
#include <math.h>
#include <mpi.h>
#include <pmesh/pmesh.h> /* the whole API; or one header per module */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank;

/* A failure on any rank ends every rank (pm_comm_agree: one reduction), with its message. */
static void check(int ierr, const char *what) {
  if (pm_comm_agree(MPI_COMM_WORLD, ierr) == PM_OK) return;
  if (ierr) fprintf(stderr, "heat_explicit: rank %d: %s: %s\n", rank, what, pm_error_message());
  MPI_Finalize();
  exit(EXIT_FAILURE);
}

/* unew = u + dt/m (b - K u) for rows [first, last) of `rows` (the kernel). */
static void step(const pm_csr_t *K, const double *m, const double *b, double dt, const double *u, double *unew,
                 const int32_t *rows, int32_t first, int32_t last) {
  for (int32_t r = first; r < last; r++) {
    int32_t i = rows[r];
    double Ku = K->d[i] * u[i];
    for (int32_t k = K->index[i]; k < K->index[i + 1]; k++) Ku += K->amat[k] * u[K->item[k]];
    unew[i] = u[i] + dt / m[i] * (b[i] - Ku);
  }
}

int main(int argc, char **argv) {
  int provided; /* pm_h5 writes with helper threads that make no MPI call */
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (argc != 3) {
    if (rank == 0) fprintf(stderr, "usage: mpiexec -n P heat_explicit PARTITION_DIR RESULT.h5\n");
    MPI_Finalize();
    return EXIT_FAILURE;
  }
  /* The partition's metadata (global counts, for the writer) and this rank's local mesh. */
  char path[4096];
  pm_meta_t *meta = NULL;
  pm_local_t *l = NULL;
  int ierr = pm_meta_path(argv[1], path, sizeof path);
  if (!ierr) ierr = pm_meta_read(path, &meta);
  if (!ierr) ierr = pm_local_path(argv[1], rank, path, sizeof path);
  if (!ierr) ierr = pm_local_read(path, rank, &l);
  check(ierr, "reading the partition");
  pm_halo_t *halo = NULL;
  check(pm_halo_create(MPI_COMM_WORLD, l, pm_exchange_default(), &halo), "halo");
  int32_t N = l->n_internal, NP = l->n_total, NT = NP + l->n_aux;

  /* K u = b with u = x + y on "boundary" (pmesh's group of the boundary), f = 0, k = 1 (a new
   * problem's defaults); and the lumped mass, whose row sums pm_fem_mass puts on the diagonal. */
  pm_problem_t *prob = NULL;
  ierr = pm_problem_create(&prob);
  if (!ierr) ierr = pm_problem_add_dirichlet(prob, "boundary", pm_value_expr("x + y"));
  pm_csr_t *K = NULL, *M = NULL;
  double *b = malloc(((size_t)N + 1) * sizeof *b), *u = calloc((size_t)NT + 1, sizeof *u);
  double *unew = calloc((size_t)NT + 1, sizeof *unew);
  int64_t nfixed;
  if (!ierr) ierr = pm_csr_create(l, 0, &K);
  if (!ierr) ierr = pm_csr_create(l, 0, &M);
  if (!ierr) ierr = pm_fem_assemble(l, prob, K, b, u, &nfixed); /* u: the boundary values, else 0 */
  if (!ierr) ierr = pm_fem_mass(l, prob, PM_MASS_LUMPED, M);
  check(ierr, "assembly");
  pm_problem_destroy(&prob);

  /* Forward Euler is stable for dt < 2 / (largest eigenvalue of K / m); Gershgorin's bound on
   * it is max over rows of (|K_ii| + sum |K_ij|) / m_i. */
  double lam = 0;
  for (int32_t i = 0; i < N; i++) {
    double s = fabs(K->d[i]);
    for (int32_t k = K->index[i]; k < K->index[i + 1]; k++) s += fabs(K->amat[k]);
    lam = fmax(lam, s / M->d[i]);
  }
  MPI_Allreduce(MPI_IN_PLACE, &lam, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  double dt = 1.8 / lam;

  /* Rows that read no external can be computed while the halo update is in flight. */
  int32_t *rows = malloc(((size_t)N + 1) * sizeof *rows), n_inner = 0, n_rows = N;
  for (int32_t i = 0; i < N; i++) {
    int inner = 1;
    for (int32_t k = K->index[i]; k < K->index[i + 1]; k++) inner &= K->item[k] < N;
    if (inner)
      rows[n_inner++] = i;
    else
      rows[--n_rows] = i;
  }
  int steps = 0;
  double change = HUGE_VAL;
  while (change > 1e-13 && steps < 1000000) {
    for (int s = 0; s < 100; s++, steps++) {
      /* Begin sends u's exported entries and receives its externals; in between, only the
       * internal entries of u are read and unew is written (pm_halo.h's rule). */
      ierr = pm_halo_update_begin(halo, u, MPI_DOUBLE, 1);
      if (!ierr) step(K, M->d, b, dt, u, unew, rows, 0, n_inner);
      if (!ierr) ierr = pm_halo_update_end(halo, u, MPI_DOUBLE, 1);
      if (ierr) {
        fprintf(stderr, "heat_explicit: rank %d: %s\n", rank, pm_error_message());
        MPI_Abort(MPI_COMM_WORLD, 1); /* an MPI failure inside the loop: the other ranks cannot be reached */
      }
      step(K, M->d, b, dt, u, unew, rows, n_inner, N);
      double *t = u;
      u = unew;
      unew = t;
    }
    /* Every 100 steps: the largest change of the last one, over all ranks. */
    change = 0;
    for (int32_t i = 0; i < N; i++) change = fmax(change, fabs(u[i] - unew[i]));
    MPI_Allreduce(MPI_IN_PLACE, &change, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  }
  double err = 0;
  for (int32_t i = 0; i < N; i++) {
    unew[i] = fabs(u[i] - (l->xyz[3 * i] + l->xyz[3 * i + 1]));
    err = fmax(err, unew[i]);
  }
  MPI_Allreduce(MPI_IN_PLACE, &err, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    printf("heat_explicit: %d steps of dt = %.3e (t = %.4g), max |u - (x + y)| = %.3e\n", steps, dt, steps * dt, err);

  /* The result: one HDF5 file (and an XDMF file beside it) with the fields u and err. */
  pm_h5_field_t fields[2] = {{"u", 0, 0, u}, {"err", 0, 0, unew}};
  pm_h5_attr_t attrs[2] = {{"dt", PM_H5_ATTR_DOUBLE, dt, 0, NULL}, {"steps", PM_H5_ATTR_INT64, 0, steps, NULL}};
  char xmf[4096];
  size_t len = strlen(argv[2]);
  if (len > 3 && !strcmp(argv[2] + len - 3, ".h5")) len -= 3;
  snprintf(xmf, sizeof xmf, "%.*s.xmf", (int)len, argv[2]);
  check(pm_h5_write(MPI_COMM_WORLD, l, meta, fields, 2, attrs, 2, argv[2], xmf), "writing the result");

  free(b);
  free(u);
  free(unew);
  free(rows);
  pm_csr_destroy(&K);
  pm_csr_destroy(&M);
  pm_halo_destroy(&halo);
  pm_local_destroy(&l);
  pm_meta_destroy(&meta);
  MPI_Finalize();
  return EXIT_SUCCESS;
}
