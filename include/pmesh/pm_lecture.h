/* pm_lecture.h - the lecture's file formats that are not meshes: its control file input.dat,
 * four lines NEg / dX Q A COND / ITERmax / EPS, which sets up the 1D bar problem. */
#ifndef PMESH_PM_LECTURE_H
#define PMESH_PM_LECTURE_H

#include <stdint.h>

#include "pmesh/pm_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The lecture's control file: NEg elements of length dX, source Q, cross-section A,
 * conductivity COND; the CG iteration limit ITERmax and tolerance EPS. */
typedef struct pm_lecture_control {
  int64_t neg, itermax;
  double dx, q, a, cond, eps;
} pm_lecture_control_t;

/** Read a control file.  Not collective.
 * @param[in]  path the file (input.dat)
 * @param[out] c    its values: NEg >= 1, 0 <= ITERmax <= INT32_MAX, dX, A, COND > 0, EPS >= 0
 * @return PM_OK, or PM_ERR_IO / PM_ERR_FORMAT with a message naming the file, the line and the
 *         value concerned (a missing or bad value, or anything after EPS). */
PM_EXTERN int pm_lecture_control_read(const char *path, pm_lecture_control_t *c);

#ifdef __cplusplus
}
#endif

#endif
