/* pm_error.c - the recorded error message and its trace (allocation: pm_alloc.c). */
#include "pmesh/pm_error.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char pm_msg[2048];
static char pm_where[1024];
static int pm_have_msg;
/* The record is shared by threads (partition writes local files on a second thread): the first
 * error recorded wins, and the updates are serialised. */
static pthread_mutex_t pm_msg_lock = PTHREAD_MUTEX_INITIALIZER;

const char *pm_error_name(int code) {
  switch (code) {
#define PM_ERROR_CASE_(name, value, text) \
  case value:                             \
    return text;
    PM_ERROR_LIST(PM_ERROR_CASE_)
#undef PM_ERROR_CASE_
  }
  return "unknown error";
}

static const char *pm_basename(const char *file) {
  /* Keep "src/x.c" rather than the absolute build path. */
  const char *s = strstr(file, "/src/");
  if (!s) s = strstr(file, "/tools/");
  if (!s) s = strstr(file, "/tests/");
  return s ? s + 1 : file;
}

int pm_error_set(int code, const char *file, int line, const char *fmt, ...) {
  pthread_mutex_lock(&pm_msg_lock);
  if (!pm_have_msg) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pm_msg, sizeof pm_msg, fmt, ap);
    va_end(ap);
    snprintf(pm_where, sizeof pm_where, "%s:%d", pm_basename(file), line);
    pm_have_msg = 1;
  }
  pthread_mutex_unlock(&pm_msg_lock);
  return code;
}

void pm_error_trace(const char *file, int line) {
  pthread_mutex_lock(&pm_msg_lock);
  size_t len = strlen(pm_where);
  if (len + 64 < sizeof pm_where) snprintf(pm_where + len, sizeof pm_where - len, " <- %s:%d", pm_basename(file), line);
  pthread_mutex_unlock(&pm_msg_lock);
}

const char *pm_error_message(void) {
  return pm_msg;
}
const char *pm_error_where(void) {
  return pm_where;
}

void pm_error_prefix(const char *prefix) {
  char tmp[sizeof pm_msg];
  pthread_mutex_lock(&pm_msg_lock);
  snprintf(tmp, sizeof tmp, "%s%s", prefix, pm_msg);
  memcpy(pm_msg, tmp, sizeof pm_msg);
  pthread_mutex_unlock(&pm_msg_lock);
}

void pm_error_clear(void) {
  pthread_mutex_lock(&pm_msg_lock);
  pm_msg[0] = '\0';
  pm_where[0] = '\0';
  pm_have_msg = 0;
  pthread_mutex_unlock(&pm_msg_lock);
}
