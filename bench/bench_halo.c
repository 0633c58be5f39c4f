/* bench_halo.c - times the halo exchange's back-ends on a partition.
 *
 *   mpiexec -n P bench_halo DIR [--iters N] [--repeats R] [--bs BS] [--accumulate]
 *
 * Every rank reads DIR/local.<rank> and builds one halo per back-end; 20 warm-up updates each,
 * then R rounds in which each back-end in turn does (MPI_Barrier; N updates of bs doubles per
 * node), timed as the slowest rank's MPI_Wtime difference.  Prints the median of the repeats in microseconds per update
 * (and the fastest and slowest repeat).  bench/bench_halo.sh runs the benchmark behind pm_exchange_default(). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_local.h"

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int fail(int rank, const char *what) {
  fprintf(stderr, "bench_halo: rank %d: error: %s%s%s\n", rank, what, *pm_error_message() ? ": " : "",
          pm_error_message());
  MPI_Abort(MPI_COMM_WORLD, 1);
  return EXIT_FAILURE;
}

static int arg_int(const char *s, int lo, int *v) {
  char *end;
  long x = strtol(s, &end, 10);
  if (*s == '\0' || *end != '\0' || x < lo || x > 100000000) return -1;
  *v = (int)x;
  return 0;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char *dir = NULL;
  int iters = 200, repeats = 5, bs = 1, acc = 0, bad = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--iters") && i + 1 < argc)
      bad |= arg_int(argv[++i], 1, &iters);
    else if (!strcmp(argv[i], "--repeats") && i + 1 < argc)
      bad |= arg_int(argv[++i], 1, &repeats);
    else if (!strcmp(argv[i], "--bs") && i + 1 < argc)
      bad |= arg_int(argv[++i], 1, &bs);
    else if (!strcmp(argv[i], "--accumulate"))
      acc = 1;
    else if (argv[i][0] != '-' && !dir)
      dir = argv[i];
    else
      bad = 1;
  }
  if (bad || !dir) {
    if (rank == 0)
      fprintf(stderr, "usage: mpiexec -n P bench_halo DIR [--iters N] [--repeats R] [--bs BS] [--accumulate]\n");
    MPI_Finalize();
    return EXIT_FAILURE;
  }
  char path[4096];
  pm_local_t *l = NULL;
  int ierr = pm_local_path(dir, rank, path, sizeof path);
  if (!ierr) ierr = pm_local_read(path, rank, &l);
  if (pm_comm_agree(MPI_COMM_WORLD, ierr)) return fail(rank, "reading the partition");

  long long mine[3] = {l->n_total, l->n_total - l->n_internal, l->n_neib}, sum[3], max[3];
  MPI_Reduce(mine, sum, 3, MPI_LONG_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
  MPI_Reduce(mine, max, 3, MPI_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
  if (rank == 0) {
    printf(
        "bench_halo: %s on %d ranks: %lld nodes with externals (max %lld per rank), %lld externals "
        "(max %lld), max %lld neighbours\n",
        dir, size, sum[0], max[0], sum[1], max[1], max[2]);
    printf("%s of bs = %d doubles: median of %d repeats of %d, microseconds per exchange\n",
           acc ? "accumulate" : "update", bs, repeats, iters);
    printf("%-12s %10s %10s %10s\n", "back-end", "median", "min", "max");
  }
  double *x = malloc((size_t)l->n_total * bs * sizeof *x + 1);
  double *t = malloc((size_t)PM_EXCHANGE_COUNT * repeats * sizeof *t);
  if (!x || !t) return fail(rank, "out of memory");
  for (int64_t i = 0; i < (int64_t)l->n_total * bs; i++) x[i] = (double)i;
  /* Repeats interleave the back-ends (repeat r times each back-end in turn), so that a load
   * change on a shared machine hits every back-end alike. */
  pm_halo_t *h[PM_EXCHANGE_COUNT] = {0};
  for (int k = 0; k < PM_EXCHANGE_COUNT; k++)
    if (pm_halo_create(MPI_COMM_WORLD, l, (pm_exchange_t)k, &h[k])) return fail(rank, "pm_halo_create");
  for (int r = -1; r < repeats; r++)
    for (int k = 0; k < PM_EXCHANGE_COUNT; k++) {
      int n = r < 0 ? 20 : iters;
      MPI_Barrier(MPI_COMM_WORLD);
      double t0 = MPI_Wtime();
      for (int it = 0; it < n; it++) {
        ierr = acc ? pm_halo_accumulate(h[k], x, MPI_DOUBLE, bs) : pm_halo_update(h[k], x, MPI_DOUBLE, bs);
        if (ierr) return fail(rank, "exchange");
      }
      double dt = MPI_Wtime() - t0, slowest;
      MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      if (r >= 0) t[(size_t)k * repeats + r] = slowest / iters * 1e6;
    }
  for (int k = 0; k < PM_EXCHANGE_COUNT; k++) {
    double *tk = t + (size_t)k * repeats;
    qsort(tk, (size_t)repeats, sizeof *tk, cmp_double);
    if (rank == 0)
      printf("%-12s %10.1f %10.1f %10.1f\n", pm_exchange_name((pm_exchange_t)k), tk[repeats / 2], tk[0],
             tk[repeats - 1]);
    pm_halo_destroy(&h[k]);
  }
  free(x);
  free(t);
  pm_local_destroy(&l);
  MPI_Finalize();
  return EXIT_SUCCESS;
}
