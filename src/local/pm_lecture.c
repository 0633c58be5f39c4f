/* pm_lecture.c - the lecture's control file (pm_lecture.h). */
#include "pmesh/pm_lecture.h"

#include "base/pm_scan.h"
#include "pmesh/pm_error.h"

int pm_lecture_control_read(const char *path, pm_lecture_control_t *c) {
  pm_scan_t s;
  PM_CALL(pm_scan_open(&s, path));
  int ierr = pm_scan_int64(&s, 1, INT64_MAX, "NEg (number of elements, line 1)", &c->neg);
  if (!ierr) ierr = pm_scan_double(&s, "dX (line 2)", &c->dx);
  if (!ierr) ierr = pm_scan_double(&s, "Q (line 2)", &c->q);
  if (!ierr) ierr = pm_scan_double(&s, "A (line 2)", &c->a);
  if (!ierr) ierr = pm_scan_double(&s, "COND (line 2)", &c->cond);
  if (!ierr) ierr = pm_scan_int64(&s, 0, INT32_MAX, "ITERmax (line 3)", &c->itermax);
  if (!ierr) ierr = pm_scan_double(&s, "EPS (line 4)", &c->eps);
  if (!ierr && !(c->dx > 0 && c->a > 0 && c->cond > 0 && c->eps >= 0))
    ierr = pm_error_set(PM_ERR_FORMAT, __FILE__, __LINE__, "%s: dX, A and COND must be positive and EPS >= 0", path);
  if (!ierr) {
    const char *t;
    size_t n;
    ierr = pm_scan_token(&s, &t, &n);
    if (!ierr && t)
      ierr = PM_SCAN_FAIL(&s, PM_ERR_FORMAT, "unexpected '%s' after EPS: the control file has 4 lines", s.tok);
  }
  pm_scan_close(&s);
  return ierr;
}
