/* pm_fmt.h - fast number formatting for pmesh's text writers, byte-identical to printf. */
#ifndef PMESH_PM_FMT_H
#define PMESH_PM_FMT_H

#include <stdint.h>

/** Longest text pm_fmt_g17 writes (sign, 17 digits, point, exponent), without a terminator. */
#define PM_FMT_G17_MAX 32

/** Write x as printf("%.17g", x) does (same bytes, in the C locale) at p; no terminator.
 *  Returns the end of the text. Exact: normal doubles from 1e-16 to 1e17 are converted with
 *  128-bit integer arithmetic, all others through snprintf. Not collective. */
char *pm_fmt_g17(char *p, double x);
/** Write v in decimal as printf("%" PRId64) does at p; no terminator; returns the end (at most
 *  20 characters). Not collective. */
char *pm_fmt_i64(char *p, int64_t v);

#endif
