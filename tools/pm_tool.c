/* pm_tool.c - helpers shared by pmesh's command-line tools. */
#define _POSIX_C_SOURCE 200809L
#include "pm_tool.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "pmesh/pm_error.h"

double pm_tool_wtime(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int64_t pm_tool_peak_rss(void) {
  struct rusage ru;
  if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
  return (int64_t)ru.ru_maxrss * 1024; /* Linux: kilobytes */
}

int pm_tool_error(const char *tool, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "%s: error: ", tool);
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  return -1;
}

int pm_tool_report(const char *tool, int code) {
  const char *msg = pm_error_message();
  fprintf(stderr, "%s: error: %s\n", tool, msg[0] ? msg : pm_error_name(code));
  if (getenv("PMESH_TRACE")) fprintf(stderr, "%s: trace: %s\n", tool, pm_error_where());
  return -1;
}

int pm_tool_int(const char *tool, const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *v) {
  char *end;
  errno = 0;
  long long x = strtoll(s, &end, 10);
  if (s[0] == '\0' || *end != '\0' || end == s) return pm_tool_error(tool, "%s: expected an integer, got '%s'", opt, s);
  if (errno == ERANGE || x < lo || x > hi)
    return pm_tool_error(tool, "%s: %s is out of range [%lld, %lld]", opt, s, (long long)lo, (long long)hi);
  *v = x;
  return 0;
}

int pm_tool_double(const char *tool, const char *opt, const char *s, double lo, double hi, double *v) {
  char *end;
  errno = 0;
  double x = strtod(s, &end);
  if (s[0] == '\0' || *end != '\0' || end == s) return pm_tool_error(tool, "%s: expected a number, got '%s'", opt, s);
  if (errno == ERANGE || !isfinite(x) || x < lo || x > hi)
    return pm_tool_error(tool, "%s: %s is out of range [%g, %g]", opt, s, lo, hi);
  *v = x;
  return 0;
}

int pm_tool_open(const char *tool, pm_tool_out_t *o, const char *path) {
  if (strlen(path) >= sizeof o->path) return pm_tool_error(tool, "path too long: %s", path);
  strcpy(o->path, path);
  snprintf(o->tmp, sizeof o->tmp, "%s.tmp.%ld", path, (long)getpid());
  o->fp = fopen(o->tmp, "w");
  if (!o->fp) return pm_tool_error(tool, "%s: cannot create: %s", o->tmp, strerror(errno));
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

int pm_tool_seen(const pm_tool_opt_t *t, const char *name) {
  for (; t->name; t++)
    if (!strcmp(t->name, name)) return t->seen;
  return 0;
}

void pm_tool_usage(FILE *fp, const pm_tool_opt_t *t, const char *def) {
  for (; t->name; t++) {
    const char *s = t->help ? strstr(t->help, "%s") : NULL;
    if (s)
      fprintf(fp, "%.*s%s%s", (int)(s - t->help), t->help, def, s + 2);
    else if (t->help)
      fputs(t->help, fp);
  }
}

/* CHOICE: the index of v in "a|b|c", or -1. */
static int choice(const char *list, const char *v) {
  size_t n = strlen(v);
  for (int k = 0; *list; k++) {
    size_t len = strcspn(list, "|");
    if (len == n && !strncmp(list, v, n)) return k;
    list += len + (list[len] == '|');
  }
  return -1;
}

int pm_tool_parse_opt(const char *tool, pm_tool_opt_t *t, void *ctx, int argc, char **argv, int *i) {
  const char *a = argv[*i];
  while (t->name && strcmp(t->name, a)) t++;
  if (!t->name) return 1;
  t->seen++;
  if (t->kind == PM_TOOL_FLAG) {
    *(int *)t->dst = 1;
    return 0;
  }
  if (*i + 1 >= argc) return pm_tool_error(tool, "option %s needs a value (see %s --help)", a, tool);
  const char *v = argv[++*i];
  int64_t iv;
  switch (t->kind) {
    case PM_TOOL_INT:
      if (pm_tool_int(tool, a, v, (int64_t)t->lo, (int64_t)t->hi, &iv)) return -1;
      *(int *)t->dst = (int)iv;
      return 0;
    case PM_TOOL_DOUBLE:
      return pm_tool_double(tool, a, v, t->lo, t->hi, t->dst);
    case PM_TOOL_STRING:
      if (!t->what && strlen(v) >= (size_t)t->hi)
        return pm_tool_error(tool, "%s: path longer than %d characters", a, (int)t->hi - 1);
      if (t->what && (strlen(v) >= (size_t)t->hi || !v[0]))
        return pm_tool_error(tool, "%s: expected %s below %d characters", a, t->what, (int)t->hi);
      strcpy(t->dst, v);
      return 0;
    case PM_TOOL_CHOICE: {
      int k = choice(t->what, v);
      if (k < 0) {
        /* "a|b|c" as "a, b or c" */
        const char *last = strrchr(t->what, '|');
        char list[256];
        size_t n = 0;
        for (const char *s = t->what; s < last && n + 3 < sizeof list; s++) {
          if (*s == '|') list[n++] = ',';
          list[n++] = *s == '|' ? ' ' : *s;
        }
        list[n] = '\0';
        pm_tool_error(tool, "%s %s: expected %s or %s", a, v, list, last + 1);
        return -1;
      }
      *(int *)t->dst = k;
      return 0;
    }
    default:
      return t->call(ctx, a, v);
  }
}

void pm_tool_json_string(FILE *fp, const char *s) {
  fputc('"', fp);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c == '"' || c == '\\')
      fprintf(fp, "\\%c", c);
    else if (c < 0x20)
      fprintf(fp, "\\u%04x", c);
    else
      fputc(c, fp);
  }
  fputc('"', fp);
}
