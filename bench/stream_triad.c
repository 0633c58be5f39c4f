/* stream_triad.c - STREAM-style triad a = b + s*c on every rank at once; reports the aggregate
 * bandwidth (24 bytes per element counted, write-allocate not counted, as STREAM does).
 *   mpiexec -n P stream_triad [N_PER_RANK] [REPEATS]        (benchmark only) */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long n = argc > 1 ? atol(argv[1]) : 20000000L;
  int reps = argc > 2 ? atoi(argv[2]) : 20;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *c = malloc(n * sizeof *c);
  if (!a || !b || !c) MPI_Abort(MPI_COMM_WORLD, 1);
  for (long i = 0; i < n; i++) a[i] = 0, b[i] = 1, c[i] = 2;
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime();
    for (long i = 0; i < n; i++) a[i] = b[i] + 3.0 * c[i];
    double dt = MPI_Wtime() - t, mx;
    MPI_Allreduce(&dt, &mx, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (mx < best) best = mx;
  }
  double check = a[n / 2], sum;
  MPI_Allreduce(&check, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("stream triad: %d ranks, %.1f GB/s (best of %d, %ld doubles per rank, check %g)\n", size,
           24.0 * n * size / best / 1e9, reps, n, sum / size);
  free(a);
  free(b);
  free(c);
  MPI_Finalize();
  return 0;
}
