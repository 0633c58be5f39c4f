/* pm_error.h - pmesh's one list of error codes and the macros that propagate them.
 *
 * Every pmesh function that can fail returns an int code from the list below (PM_OK == 0).
 * The first failure records a message (what, where, what to do); callers up the stack add
 * their file:line to a short trace.  The library does not abort: a tool's main() decides how
 * to end the job (the one exception is in pm_comm.h: ranks left blocked in a collective call).
 * None of these functions is collective: each records or reads this process's message only.
 *
 * Threads: there is one message per process, not one per thread.  Recording (pm_error_set,
 * pm_error_trace, pm_error_prefix, pm_error_clear) is serialised by a lock, so threads may fail
 * at the same time: the first message recorded by any thread is kept.  pm_error_message and
 * pm_error_where return the process's buffers without the lock: read them (and call
 * pm_error_clear) only when no other thread can be recording, e.g. after joining the threads
 * that may fail. */
#ifndef PMESH_PM_ERROR_H
#define PMESH_PM_ERROR_H

#include <stddef.h>

#include "pmesh/pm_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X-macro list: code name, value, one-line description. */
#define PM_ERROR_LIST(X)                         \
  X(PM_OK, 0, "success")                         \
  X(PM_ERR_ARG, 1, "invalid argument")           \
  X(PM_ERR_MEMORY, 2, "out of memory")           \
  X(PM_ERR_IO, 3, "input/output error")          \
  X(PM_ERR_FORMAT, 4, "malformed input")         \
  X(PM_ERR_UNSUPPORTED, 5, "unsupported input")  \
  X(PM_ERR_MPI, 6, "MPI error")                  \
  X(PM_ERR_METIS, 7, "METIS error")              \
  X(PM_ERR_INCONSISTENT, 8, "inconsistent data") \
  X(PM_ERR_SOLVER, 9, "solver failure")          \
  X(PM_ERR_REMOTE, 10, "error on another rank")

enum pm_error_code {
#define PM_ERROR_ENUM_(name, value, text) name = value,
  PM_ERROR_LIST(PM_ERROR_ENUM_)
#undef PM_ERROR_ENUM_
};

/** Short description of a code ("malformed input").  Not collective. */
PM_EXTERN const char *pm_error_name(int code);

/** Record a failure: code, where in the source, and a printf-style message.
 *  Returns code so that it can be written `return pm_error_set(...)`.  A message already
 *  recorded and not yet cleared is kept (the first failure is the interesting one). */
PM_EXTERN int pm_error_set(int code, const char *file, int line, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/** Append file:line of a caller that propagates a failure.  Returns nothing. */
PM_EXTERN void pm_error_trace(const char *file, int line);

/** The recorded message ("" when none) and the trace ("src/a.c:10 <- tools/b.c:5"). */
PM_EXTERN const char *pm_error_message(void);
PM_EXTERN const char *pm_error_where(void);

/** Put `prefix` in front of the recorded message (e.g. the file it concerns). */
PM_EXTERN void pm_error_prefix(const char *prefix);

/** Forget the recorded message. */
PM_EXTERN void pm_error_clear(void);

/* Propagate a failure of `expr` to the caller (returns its code). */
#define PM_CALL(expr)                     \
  do {                                    \
    int pm_call_ierr_ = (expr);           \
    if (pm_call_ierr_) {                  \
      pm_error_trace(__FILE__, __LINE__); \
      return pm_call_ierr_;               \
    }                                     \
  } while (0)

/* Report a failure when `cond` is false (returns code). */
#define PM_CHECK(cond, code, ...)                                              \
  do {                                                                         \
    if (!(cond)) return pm_error_set((code), __FILE__, __LINE__, __VA_ARGS__); \
  } while (0)

/* Variants for functions with one `cleanup:` label and an `int ierr` variable. */
#define PM_TRY(expr)                      \
  do {                                    \
    ierr = (expr);                        \
    if (ierr) {                           \
      pm_error_trace(__FILE__, __LINE__); \
      goto cleanup;                       \
    }                                     \
  } while (0)

#define PM_TRY_CHECK(cond, code, ...)                               \
  do {                                                              \
    if (!(cond)) {                                                  \
      ierr = pm_error_set((code), __FILE__, __LINE__, __VA_ARGS__); \
      goto cleanup;                                                 \
    }                                                               \
  } while (0)

#ifdef __cplusplus
}
#endif

/* The checked allocators (PM_MALLOC, ...) that go with these codes. */
#include "pmesh/pm_alloc.h"

#endif
