/* pm_tool.h - what pmesh's command-line tools share: strict number parsing, error reporting,
 * atomic text output. */
#ifndef PMESH_PM_TOOL_H
#define PMESH_PM_TOOL_H

#include <stdint.h>
#include <stdio.h>

/** Parse a whole decimal integer in [lo, hi]; on failure print "TOOL: error: ..." and return -1. */
int pm_tool_int(const char *tool, const char *opt, const char *s, int64_t lo, int64_t hi, int64_t *v);
/** Parse a whole finite number in [lo, hi]. */
int pm_tool_double(const char *tool, const char *opt, const char *s, double lo, double hi, double *v);
/** Print the recorded pmesh error as "TOOL: error: message" (with the trace if PMESH_TRACE is set).
 * Returns -1, so a parser can `return pm_tool_report(...)`. */
int pm_tool_report(const char *tool, int code);
/** Print "TOOL: error: <printf message>".  Returns -1. */
int pm_tool_error(const char *tool, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** Seconds on a monotonic clock, for stage timings. */
double pm_tool_wtime(void);
/** This process's peak resident set size in bytes (0 when unknown). */
int64_t pm_tool_peak_rss(void);

/** Write s as a JSON string: quoted, with '"', '\\' and control characters escaped. */
void pm_tool_json_string(FILE *fp, const char *s);

/** A text file written under a temporary name and renamed into place on pm_tool_close(ok=1). */
typedef struct pm_tool_out {
  FILE *fp;
  char path[4096], tmp[4200];
} pm_tool_out_t;
int pm_tool_open(const char *tool, pm_tool_out_t *o, const char *path);
int pm_tool_close(const char *tool, pm_tool_out_t *o, int ok);

/** One command-line option of a table (ended by a NULL name), so parsing and usage share one
 * list.  FLAG sets *(int *)dst = 1 and takes no value; INT (int *) and DOUBLE (double *) take a
 * number in [lo, hi]; STRING copies into char dst[size] (what: "an expression", ..., which also
 * refuses an empty value; NULL: a path); CHOICE sets *(int *)dst to the index of the value in
 * what, "a|b|c"; CALL calls call(ctx, name, value).  seen counts the times it was given. */
typedef enum { PM_TOOL_FLAG, PM_TOOL_INT, PM_TOOL_DOUBLE, PM_TOOL_STRING, PM_TOOL_CHOICE, PM_TOOL_CALL } pm_tool_kind_t;
typedef struct pm_tool_opt {
  const char *name;
  pm_tool_kind_t kind;
  void *dst;
  double lo, hi; /* INT, DOUBLE: the range; STRING: hi is the size of dst */
  const char *what;
  int (*call)(void *ctx, const char *name, const char *value);
  const char *help; /* its lines of the usage text; one "%s" is replaced by the caller's default */
  int seen;
} pm_tool_opt_t;

/** Apply argv[*i] (and its value, *i advanced past it) if the table has it.  Returns 0 when done,
 * 1 when argv[*i] is not in the table (*i unchanged), -1 after printing why it is wrong. */
int pm_tool_parse_opt(const char *tool, pm_tool_opt_t *t, void *ctx, int argc, char **argv, int *i);
/** How many times option name was given (0 when it is not in the table). */
int pm_tool_seen(const pm_tool_opt_t *t, const char *name);
/** Print the help lines of the table, "%s" in them replaced by def. */
void pm_tool_usage(FILE *fp, const pm_tool_opt_t *t, const char *def);

#endif
