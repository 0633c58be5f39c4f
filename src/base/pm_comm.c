/* pm_comm.c - MPI error conversion, collective agreement on errors, and waits (with the collectives
 * built on them) that give up the CPU where ranks outnumber CPUs. */
#define _GNU_SOURCE /* program_invocation_short_name, nanosleep, sched_getaffinity */
#include "pmesh/pm_comm.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int pm_mpi_error(int mpierr, const char *file, int line, const char *call) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(mpierr, text, &len) != MPI_SUCCESS) len = 0;
  text[len] = '\0';
  return pm_error_set(PM_ERR_MPI, file, line, "%s failed: %s", call, len ? text : "unknown MPI error");
}

static void (*abort_fn)(void *);
static void *abort_arg;

void pm_comm_on_abort(void (*fn)(void *), void *arg) {
  abort_fn = fn;
  abort_arg = fn ? arg : NULL;
}

static const char *program(void) {
#ifdef __GLIBC__
  return program_invocation_short_name;
#else
  return "pmesh";
#endif
}

double pm_comm_env_seconds(const char *name, double fallback) {
  static char warned[4][64];
  const char *env = getenv(name);
  if (!env) return fallback;
  char *end;
  errno = 0;
  double t = strtod(env, &end);
  if (end != env && *end == '\0' && errno == 0 && isfinite(t) && t >= 0) return t;
  for (int i = 0; i < 4; i++) {
    if (strcmp(warned[i], name) == 0) return fallback;
    if (warned[i][0] == '\0') {
      snprintf(warned[i], sizeof warned[i], "%s", name);
      break;
    }
  }
  int rank = 0, init = 0;
  MPI_Initialized(&init);
  if (init) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "%s: warning: [rank %d] %s='%s' is not a number of seconds >= 0; using %g\n", program(), rank, name,
          env, fallback);
  return fallback;
}

int pm_comm_yields(void) {
  static int yields = -1;
  if (yields >= 0) return yields;
  const char *force = getenv("PMESH_YIELD"), *local = getenv("MPI_LOCALNRANKS");
  if (!local) local = getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  cpu_set_t set;
  long ranks = local ? strtol(local, NULL, 10) : 0;
  int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
  if (force && (strcmp(force, "0") == 0 || strcmp(force, "1") == 0)) {
    yields = force[0] == '1';
    return yields;
  }
  yields = cpus > 0 && ranks > cpus;
  if (force) {
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    fprintf(stderr, "%s: warning: [rank %d] PMESH_YIELD='%s' is not 0 or 1; %s (%ld ranks on the node, %d CPUs)\n",
            program(), rank, force, yields ? "yielding" : "not yielding", ranks, cpus);
  }
  return yields;
}

int pm_comm_waitall(int n, MPI_Request *reqs, MPI_Status *statuses) {
  if (!pm_comm_yields()) return MPI_Waitall(n, reqs, statuses);
  for (;;) {
    int done = 0, rc = MPI_Testall(n, reqs, &done, statuses);
    if (rc != MPI_SUCCESS || done) return rc;
    sched_yield();
  }
}

int pm_comm_wait(int rc, MPI_Request *req) {
  return rc == MPI_SUCCESS ? pm_comm_waitall(1, req, MPI_STATUSES_IGNORE) : rc;
}

int pm_comm_allreduce(const void *in, void *out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  MPI_Request req;
  return pm_comm_wait(MPI_Iallreduce(in, out, n, type, op, comm, &req), &req);
}

int pm_comm_dup(MPI_Comm comm, MPI_Comm *dup) {
  MPI_Request req;
  return pm_comm_wait(MPI_Comm_idup(comm, dup, &req), &req);
}

int pm_comm_bcast(void *buf, int n, MPI_Datatype type, int root, MPI_Comm comm) {
  MPI_Request req;
  return pm_comm_wait(MPI_Ibcast(buf, n, type, root, comm, &req), &req);
}

int pm_comm_barrier(MPI_Comm comm) {
  MPI_Request req;
  return pm_comm_wait(MPI_Ibarrier(comm, &req), &req);
}

int pm_comm_exscan(const void *in, void *out, int n, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
  MPI_Request req;
  return pm_comm_wait(MPI_Iexscan(in, out, n, type, op, comm, &req), &req);
}

int pm_comm_alltoall(const void *in, void *out, int n, MPI_Datatype type, MPI_Comm comm) {
  MPI_Request req;
  return pm_comm_wait(MPI_Ialltoall(in, n, type, out, n, type, comm, &req), &req);
}

int pm_comm_alltoallv(const void *in, const int *scounts, const int *sdispls, void *out, const int *rcounts,
                      const int *rdispls, MPI_Datatype type, MPI_Comm comm) {
  MPI_Request req;
  if (!pm_comm_yields()) return MPI_Alltoallv(in, scounts, sdispls, type, out, rcounts, rdispls, type, comm);
  return pm_comm_wait(MPI_Ialltoallv(in, scounts, sdispls, type, out, rcounts, rdispls, type, comm, &req), &req);
}

/* Registered just before MPI_Abort, so it runs before the exit handlers that libraries registered
 * earlier: nothing collective may run on the way out. */
static _Noreturn void exit_now(void) {
  fflush(NULL);
  _exit(1);
}

/* The rest of the job cannot be reached: remove the temporaries and end it.  From the main
 * thread through MPI_Abort; from the watchdog (the main thread is inside MPI, and pmesh asks
 * only for MPI_THREAD_FUNNELED: no MPI call off the main thread) by exiting, which makes the
 * process manager end the other ranks. */
static _Noreturn void end_job(MPI_Comm comm, int main_thread) {
  fflush(stderr);
  if (abort_fn) abort_fn(abort_arg);
  if (!main_thread) exit_now();
  atexit(exit_now);
  MPI_Abort(comm, 1);
  exit_now(); /* not reached */
}

/* This rank failed.  The others either arrive at the agreement, or are blocked for good in a
 * collective call that this rank left on its error path inside a library (HDF5 returns from
 * H5Dwrite on the rank whose write failed, while the others wait in the MPI_File_set_view that
 * follows it).  Polls until the deadline; past it, nothing can bring those ranks back, so the
 * job ends here. */
static int wait_or_abort(MPI_Comm comm, MPI_Request *req) {
  const double limit = pm_comm_env_seconds("PMESH_AGREE_TIMEOUT", PM_COMM_AGREE_TIMEOUT), t0 = MPI_Wtime();
  if (limit == 0) return MPI_Wait(req, MPI_STATUS_IGNORE);
  const struct timespec pause = {0, 1000000};
  for (;;) {
    int done = 0, rc = MPI_Test(req, &done, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS || done) return rc;
    if (MPI_Wtime() - t0 > limit) break;
    nanosleep(&pause, NULL);
  }
  pm_comm_abort(comm,
                "the other ranks have not reached the error agreement after %g s (blocked in a collective call this "
                "rank left when it failed, or still busy): ending the job (PMESH_AGREE_TIMEOUT sets the wait, 0 waits "
                "forever)",
                limit);
}

void pm_comm_abort(MPI_Comm comm, const char *fmt, ...) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const char *msg = pm_error_message();
  if (msg[0]) fprintf(stderr, "%s: error: [rank %d] %s\n", program(), rank, msg);
  if (msg[0] && getenv("PMESH_TRACE")) fprintf(stderr, "%s: trace: %s\n", program(), pm_error_where());
  char why[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(why, sizeof why, fmt, ap);
  va_end(ap);
  fprintf(stderr, "%s: error: [rank %d] %s\n", program(), rank, why);
  end_job(comm, 1);
}

/* The watchdog: one thread, started by the first pm_comm_watch_begin, asleep unless a watch is
 * armed. */
static struct {
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int started, armed, rank;
  struct timespec deadline; /* CLOCK_MONOTONIC */
  double seconds;
  char what[512], setting[64];
} watch = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, {0, 0}, 0, "", ""};

static int ts_before(const struct timespec *a, const struct timespec *b) {
  return a->tv_sec < b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void *watch_run(void *unused) {
  (void)unused;
  pthread_mutex_lock(&watch.lock);
  for (;;) {
    while (!watch.armed) pthread_cond_wait(&watch.wake, &watch.lock);
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (ts_before(&now, &watch.deadline)) {
      pthread_cond_timedwait(&watch.wake, &watch.lock, &watch.deadline);
      continue; /* re-read: disarmed, re-armed or due */
    }
    const char *msg = pm_error_message(); /* an error this rank met before (the main thread is blocked) */
    if (msg[0]) fprintf(stderr, "%s: error: [rank %d] %s\n", program(), watch.rank, msg);
    fprintf(stderr,
            "%s: error: [rank %d] %s has not returned after %g s: a rank failed inside a collective call of it, or "
            "the file system stalls; ending the job (%s sets the wait, 0 waits forever)\n",
            program(), watch.rank, watch.what, watch.seconds, watch.setting);
    end_job(MPI_COMM_WORLD, 0);
  }
  return NULL;
}

void pm_comm_watch_begin(double seconds, const char *setting, const char *fmt, ...) {
  if (!(seconds > 0)) return;
  int rank = 0, init = 0;
  MPI_Initialized(&init);
  if (init) MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  pthread_mutex_lock(&watch.lock);
  if (watch.started == 0) { /* tried once: 1 running, -1 unavailable */
    pthread_t th;
    pthread_condattr_t ca;
    const int attr = pthread_condattr_init(&ca) == 0;
    int ok = attr;
    pthread_cond_destroy(&watch.wake); /* statically initialised; again, with the monotonic clock */
    ok = ok && pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0;
    ok = ok && pthread_cond_init(&watch.wake, &ca) == 0;
    ok = ok && pthread_create(&th, NULL, watch_run, NULL) == 0;
    if (ok) pthread_detach(th);
    if (attr) pthread_condattr_destroy(&ca);
    watch.started = ok ? 1 : -1;
  }
  if (watch.started < 0) { /* no watch (resources were short): the call runs unwatched */
    pthread_mutex_unlock(&watch.lock);
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(watch.what, sizeof watch.what, fmt, ap);
  va_end(ap);
  clock_gettime(CLOCK_MONOTONIC, &watch.deadline);
  double whole = floor(seconds);
  watch.deadline.tv_sec += (time_t)whole;
  watch.deadline.tv_nsec += (long)((seconds - whole) * 1e9);
  if (watch.deadline.tv_nsec >= 1000000000L) {
    watch.deadline.tv_sec++;
    watch.deadline.tv_nsec -= 1000000000L;
  }
  snprintf(watch.setting, sizeof watch.setting, "%s", setting);
  watch.seconds = seconds;
  watch.rank = rank;
  watch.armed = 1;
  pthread_cond_signal(&watch.wake);
  pthread_mutex_unlock(&watch.lock);
}

void pm_comm_watch_end(void) {
  pthread_mutex_lock(&watch.lock);
  watch.armed = 0;
  pthread_mutex_unlock(&watch.lock);
}

int pm_comm_agree(MPI_Comm comm, int ierr) {
  int rank, first = INT_MAX;
  MPI_Comm_rank(comm, &rank);
  int mine = ierr ? rank : INT_MAX;
  MPI_Request req;
  int rc = MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &req);
  if (rc == MPI_SUCCESS) rc = ierr ? wait_or_abort(comm, &req) : pm_comm_waitall(1, &req, MPI_STATUSES_IGNORE);
  if (rc != MPI_SUCCESS) return ierr ? ierr : pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Iallreduce (error agreement)");
  if (ierr) return ierr;
  if (first == INT_MAX) return PM_OK;
  return pm_error_set(PM_ERR_REMOTE, __FILE__, __LINE__, "rank %d failed (its message says why)", first);
}
