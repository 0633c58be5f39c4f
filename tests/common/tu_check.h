/* tu_check.h - the checks of the unit programs, defined once for all of them.
 *   EXPECT(cond, fmt, ...)  one check: on failure, counts it, prints where (rank, file, line) and
 *                           the message (the first TU_MAX_REPORTS failures of a rank), goes on;
 *   CHECK(cond)             the same, with the condition's text as the message;
 *   FAIL(fmt, ...)          a failure found without a condition (counted and printed alike);
 *   OK(expr)                a call that must return PM_OK: otherwise prints pm_error_message()
 *                           and ends the job (MPI_Abort, since the other ranks may be waiting in
 *                           a collective call; exit(2) where MPI is not running).
 * The counts are g_fail (failed checks) and g_checks (all checks) of this rank; messages name
 * g_rank, which a program sets after MPI_Init, and g_what, the case being checked, when set.  Each program sums g_fail
 * over its ranks and exits non-zero when the sum is not 0. */
#ifndef PMESH_TU_CHECK_H
#define PMESH_TU_CHECK_H

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_error.h"

#define TU_MAX_REPORTS 40

static int g_rank;
static long g_fail, g_checks;
static char g_what[256];

#if defined(__GNUC__)
#define TU_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define TU_PRINTF(f, a)
#endif

static inline const char *tu_base(const char *file) {
  const char *slash = strrchr(file, '/');
  return slash ? slash + 1 : file;
}

static inline void tu_fail(const char *file, int line, const char *fmt, ...) TU_PRINTF(3, 4);
static inline void tu_fail(const char *file, int line, const char *fmt, ...) {
  if (++g_fail > TU_MAX_REPORTS) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "rank %d: FAIL (%s:%d): %s%s", g_rank, tu_base(file), line, g_what, *g_what ? ": " : "");
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static inline void tu_die(const char *file, int line, const char *expr, int code) {
  int running = 0, done = 0;
  fprintf(stderr, "rank %d: %s%s%s failed (%s:%d): %s: %s [%s]\n", g_rank, g_what, *g_what ? ": " : "", expr,
          tu_base(file), line, pm_error_name(code), pm_error_message(), pm_error_where());
  fflush(stderr);
  MPI_Initialized(&running);
  if (running) MPI_Finalized(&done);
  if (running && !done) MPI_Abort(MPI_COMM_WORLD, 2);
  exit(2);
}

#define FAIL(...) tu_fail(__FILE__, __LINE__, __VA_ARGS__)

#define EXPECT(cond, ...)                                  \
  do {                                                     \
    g_checks++;                                            \
    if (!(cond)) tu_fail(__FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

#define CHECK(cond) EXPECT(cond, "%s", #cond)

#define OK(expr)                                                        \
  do {                                                                  \
    int tu_ierr_ = (expr);                                              \
    if (tu_ierr_ != PM_OK) tu_die(__FILE__, __LINE__, #expr, tu_ierr_); \
  } while (0)

#endif
