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
/** Print the recorded pmesh error as "TOOL: error: message" (with the trace if PMESH_TRACE is set). */
void pm_tool_report(const char *tool, int code);
/** Print "TOOL: error: <printf message>". */
void pm_tool_error(const char *tool, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/** A text file written under a temporary name and renamed into place on pm_tool_close(ok=1). */
typedef struct pm_tool_out {
  FILE *fp;
  char path[4096], tmp[4200];
} pm_tool_out_t;
int pm_tool_open(const char *tool, pm_tool_out_t *o, const char *path);
int pm_tool_close(const char *tool, pm_tool_out_t *o, int ok);

#endif
