/* refine_dump - load a partition directory, refine every local mesh K times in parallel and
 * write the refined partition (local files + partition.meta) for `partition --check`.
 *
 *   mpiexec -n P refine_dump PARTDIR K OUTDIR */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_meta.h"
#include "pmesh/pm_refine_run.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm comm = MPI_COMM_WORLD;
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
  int rank, P, ierr = PM_OK;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  pm_meta_t *meta = NULL;
  pm_local_t *local = NULL;
  char path[4400], *end = NULL;
  if (argc != 4) {
    if (rank == 0) fprintf(stderr, "usage: refine_dump PARTDIR K OUTDIR\n");
    MPI_Finalize();
    return EXIT_FAILURE;
  }
  long k = strtol(argv[2], &end, 10);
  if (*end || end == argv[2]) ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "K '%s': not an integer", argv[2]);
  if (!ierr) ierr = pm_meta_path(argv[1], path, sizeof path);
  if (!ierr) ierr = pm_meta_read(path, &meta);
  if (!ierr && meta->nparts != P)
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "%s has %d parts, run with mpiexec -n %d", argv[1],
                        meta->nparts, meta->nparts);
  if (!ierr) ierr = pm_local_path(argv[1], rank, path, sizeof path);
  if (!ierr) ierr = pm_local_read(path, rank, &local);
  ierr = pm_comm_agree(comm, ierr);
  if (!ierr) ierr = pm_refine(comm, (int)k, &local);
  if (!ierr) ierr = pm_refine_dump(comm, local, meta, argv[3]);
  if (ierr && ierr != PM_ERR_REMOTE)
    fprintf(stderr, "refine_dump: rank %d: %s: %s\n", rank, pm_error_name(ierr), pm_error_message());
  pm_local_destroy(&local);
  pm_meta_destroy(&meta);
  MPI_Finalize();
  return ierr ? EXIT_FAILURE : EXIT_SUCCESS;
}
