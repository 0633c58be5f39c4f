/* pm_local_int.h - the private part of pm_local.c, shared with the partition metadata
 * (pm_meta.c): writing a file through a temporary name, and the 16-digit hexadecimal
 * fingerprints both formats hold. */
#ifndef PMESH_PM_LOCAL_INT_H
#define PMESH_PM_LOCAL_INT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Internal to libpmesh: hidden, not exported (they were static functions of one file). */
#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* A file written under "path.tmp.PID" and renamed over path when complete. */
typedef struct out_file {
  FILE *fp;
  char path[4096], tmp[4200];
} pm_out_file_t;

/** Create "path.tmp.PID" for writing.  Not collective. */
int pm_local_out_open(pm_out_file_t *o, const char *path);
/** Close the temporary and, when ok and every write succeeded, rename it over path; otherwise
 *  remove it (PM_ERR_IO naming the path unless !ok, when the caller has reported already).
 *  Not collective. */
int pm_local_out_close(pm_out_file_t *o, int ok);
/** Parse n (1..16) hexadecimal digits: 1 when valid, 0 otherwise.  Not collective. */
int pm_local_hex64(const char *t, size_t n, uint64_t *v);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
