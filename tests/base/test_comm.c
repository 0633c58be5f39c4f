/* test_comm.c - pm_comm's waits: pm_comm_allreduce, pm_comm_waitall and pm_comm_dup give what
 * MPI_Allreduce, MPI_Waitall and MPI_Comm_dup give, whether the process yields or not, and
 * pm_comm_yields says which.
 *
 *   test_comm [ROUNDS]   ROUNDS (default 200) of the checks, then "yields Y" (rank 0); exit
 *                        status 1 on any failure.
 *
 * tests/base/yield.sh runs it where the answer is known: PMESH_YIELD forced, and more ranks
 * than CPUs (taskset) or not. */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmesh/pm_comm.h"
#include "tu_check.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, p;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  g_rank = rank;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rounds = argc > 1 ? atoi(argv[1]) : 200;
  for (int it = 0; it < rounds; it++) {
    int64_t sum = rank + it, all = -1;
    EXPECT(pm_comm_allreduce(&sum, &all, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS, "allreduce");
    EXPECT(all == (int64_t)p * (p - 1) / 2 + (int64_t)p * it, "sum of the ranks");
    double v[2] = {rank + 0.5, -rank};
    EXPECT(pm_comm_allreduce(MPI_IN_PLACE, v, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD) == MPI_SUCCESS,
           "allreduce in place");
    EXPECT(v[0] == p - 0.5 && v[1] == 0, "max in place");
    /* a ring: from the left, to the right */
    int in = -1, out = 1000 * it + rank;
    MPI_Request q[2];
    MPI_Irecv(&in, 1, MPI_INT, (rank + p - 1) % p, 7, MPI_COMM_WORLD, &q[0]);
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % p, 7, MPI_COMM_WORLD, &q[1]);
    MPI_Status st[2];
    EXPECT(pm_comm_waitall(2, q, st) == MPI_SUCCESS, "waitall");
    EXPECT(in == 1000 * it + (rank + p - 1) % p, "ring value");
    EXPECT(st[0].MPI_SOURCE == (rank + p - 1) % p && st[0].MPI_TAG == 7, "ring status");
    EXPECT(pm_comm_waitall(0, NULL, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "waitall of nothing");
  }
  /* A duplicate: the same group in the same order, a context of its own (a message on it is not
   * received on the original). */
  MPI_Comm dup = MPI_COMM_NULL;
  EXPECT(pm_comm_dup(MPI_COMM_WORLD, &dup) == MPI_SUCCESS, "dup");
  int cmp = MPI_UNEQUAL, drank = -1;
  MPI_Comm_compare(MPI_COMM_WORLD, dup, &cmp);
  MPI_Comm_rank(dup, &drank);
  EXPECT(cmp == MPI_CONGRUENT && drank == rank, "dup is congruent");
  {
    int in = -1, out = rank, flag = 1;
    MPI_Request q[2];
    MPI_Irecv(&in, 1, MPI_INT, (rank + p - 1) % p, 9, dup, &q[0]);
    MPI_Isend(&out, 1, MPI_INT, (rank + 1) % p, 9, dup, &q[1]);
    EXPECT(pm_comm_waitall(2, q, MPI_STATUSES_IGNORE) == MPI_SUCCESS && in == (rank + p - 1) % p, "ring on dup");
    MPI_Barrier(MPI_COMM_WORLD);
    MPI_Iprobe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
    EXPECT(!flag, "a message on the duplicate is seen on the original");
  }
  MPI_Comm_free(&dup);
  long any = 0;
  MPI_Allreduce(&g_fail, &any, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
  int y = pm_comm_yields(), ymin = 0, ymax = 0;
  MPI_Allreduce(&y, &ymin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&y, &ymax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) {
    if (ymin != ymax) fprintf(stderr, "test_comm: FAIL ranks disagree on yielding\n");
    printf("yields %d\n", y);
  }
  MPI_Finalize();
  return any || ymin != ymax ? 1 : 0;
}
