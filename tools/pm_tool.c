/* pm_tool.c - helpers shared by pmesh's command-line tools. */
#define _POSIX_C_SOURCE 200809L
#include "pm_tool.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pmesh/pm_error.h"

void pm_tool_error(const char *tool, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: error: ", tool);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
}

void pm_tool_report(const char *tool, int code) {
  const char *msg = pm_error_message();
  fprintf(stderr, "%s: error: %s\n", tool, msg[0] ? msg : pm_error_name(code));
  if (getenv("PMESH_TRACE")) fprintf(stderr, "%s: trace: %s\n", tool, pm_error_where());
}

int pm_tool_int(const char *tool, const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *v) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (s[0] == '\0' || *end != '\0' || end == s) {
    pm_tool_error(tool, "%s: expected an integer, got '%s'", opt, s);
    return -1;
  }
  if (errno == ERANGE || x < lo || x > hi) {
    pm_tool_error(tool, "%s: %s is out of range [%lld, %lld]", opt, s, (long long)lo, (long long)hi);
    return -1;
  }
  *v = x;
  return 0;
}

int pm_tool_double(const char *tool, const char *opt, const char *s, double lo, double hi, double *v) {
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (s[0] == '\0' || *end != '\0' || end == s) {
    pm_tool_error(tool, "%s: expected a number, got '%s'", opt, s);
    return -1;
  }
  if (errno == ERANGE || !isfinite(x) || x < lo || x > hi) {
    pm_tool_error(tool, "%s: %s is out of range [%g, %g]", opt, s, lo, hi);
    return -1;
  }
  *v = x;
  return 0;
}

int pm_tool_open(const char *tool, pm_tool_out_t *o, const char *path) {
  if (strlen(path) >= sizeof o->path) {
    pm_tool_error(tool, "path too long: %s", path);
    return -1;
  }
  strcpy(o->path, path);
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
  o->fp = fopen(o->tmp, "w");
  if (!o->fp) {
    pm_tool_error(tool, "%s: cannot create: %s", o->tmp, strerror(errno));
    return -1;
  }
  return 0;
}

int pm_tool_close(const char *tool, pm_tool_out_t *o, int ok) {
  int bad = ferror(o->fp);
  if (fclose(o->fp) != 0) bad = 1;
  o->fp = NULL;
  if (!ok || bad) {
    remove(o->tmp);
    if (ok) pm_tool_error(tool, "%s: write failed: %s", o->path, strerror(errno));
    return -1;
  }
  if (rename(o->tmp, o->path) != 0) {
    pm_tool_error(tool, "%s: cannot rename into place: %s", o->path, strerror(errno));
    remove(o->tmp);
    return -1;
  }
  return 0;
}
