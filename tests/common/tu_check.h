/* tu_check.h - the unit programs' two checks.  The including file defines `static int g_rank,
 * g_fail;`.  EXPECT counts a failed check and goes on; OK aborts the job when a call that must
 * succeed fails (the other ranks may be waiting in a collective call). */
#ifndef PMESH_TU_CHECK_H
#define PMESH_TU_CHECK_H

#include <mpi.h>
#include <stdio.h>

#include "pmesh/pm_error.h"

#define EXPECT(cond, ...)                                                     \
  do {                                                                        \
    if (!(cond)) {                                                            \
      fprintf(stderr, "rank %d: FAIL (%s:%d): ", g_rank, __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);                                           \
      fputc('\n', stderr);                                                    \
      g_fail++;                                                               \
    }                                                                         \
  } while (0)

#define OK(expr)                                                                                                  \
  do {                                                                                                            \
    if ((expr) != PM_OK) {                                                                                        \
      fprintf(stderr, "rank %d: %s failed (%s:%d): %s\n", g_rank, #expr, __FILE__, __LINE__, pm_error_message()); \
      MPI_Abort(MPI_COMM_WORLD, 2);                                                                               \
    }                                                                                                             \
  } while (0)

#endif
