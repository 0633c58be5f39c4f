/* pm_expr.c - values at points: libmatheval expressions and C callbacks behind one evaluator. */
#include "pmesh/pm_expr.h"

#include <math.h>
#include <matheval.h>
#include <stdlib.h>
#include <string.h>

#include "pm_util.h"
#include "pmesh/pm_error.h"

struct pm_expr {
  void *ev;         /* libmatheval evaluator; NULL for a constant or a callback */
  double value;     /* the constant */
  pm_value_fn_t fn; /* the callback, or NULL */
  void *ctx;
};

pm_value_t pm_value_expr(const char *expr) {
  return (pm_value_t){expr, NULL, NULL};
}

pm_value_t pm_value_fn(pm_value_fn_t fn, void *ctx) {
  return (pm_value_t){NULL, fn, ctx};
}

int pm_value_is_set(pm_value_t v) {
  return v.expr != NULL || v.fn != NULL;
}

const char *pm_value_text(pm_value_t v) {
  return v.expr ? v.expr : v.fn ? "(C function)" : "(none)";
}

int pm_expr_create(const char *text, pm_expr_t **expr) {
  pm_expr_t *e = NULL;
  char *copy = NULL;
  *expr = NULL;
  PM_CALL(PM_CALLOC(e, 1, "expression"));
  if (pm_strdup(text, &copy)) {
    free(e);
    return PM_ERR_MEMORY;
  }
  e->ev = evaluator_create(copy);
  free(copy);
  if (!e->ev) {
    free(e);
    return pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "cannot parse the expression '%s' (use x, y, z, numbers, + - * / ^, sin cos exp log sqrt "
                        "..., pi, e)",
                        text);
  }
  char **names;
  int n;
  evaluator_get_variables(e->ev, &names, &n);
  for (int i = 0; i < n; i++) {
    if (strcmp(names[i], "x") && strcmp(names[i], "y") && strcmp(names[i], "z")) {
      int ierr =
          pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                       "the expression '%s' uses the variable '%s'; only x, y and z are defined", text, names[i]);
      evaluator_destroy(e->ev);
      free(e);
      return ierr;
    }
  }
  if (n == 0) {
    static char vx[] = "x";
    char *vn[] = {vx};
    double vv[] = {0.0};
    e->value = evaluator_evaluate(e->ev, 1, vn, vv);
    evaluator_destroy(e->ev);
    e->ev = NULL;
    if (!isfinite(e->value)) {
      free(e);
      return pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "the expression '%s' is not a finite number", text);
    }
  }
  *expr = e;
  return PM_OK;
}

int pm_expr_create_value(pm_value_t v, pm_expr_t **expr) {
  *expr = NULL;
  PM_CHECK(pm_value_is_set(v), PM_ERR_ARG, "a value needs an expression or a callback");
  if (v.expr) return pm_expr_create(v.expr, expr);
  pm_expr_t *e = NULL;
  PM_CALL(PM_CALLOC(e, 1, "callback value"));
  e->fn = v.fn;
  e->ctx = v.ctx;
  *expr = e;
  return PM_OK;
}

double pm_expr_eval(const pm_expr_t *e, double x, double y, double z) {
  if (e->fn) {
    const double p[3] = {x, y, z};
    return e->fn(p, e->ctx);
  }
  if (!e->ev) return e->value;
  static char vx[] = "x", vy[] = "y", vz[] = "z";
  static char *names[] = {vx, vy, vz};
  double v[3] = {x, y, z};
  return evaluator_evaluate(e->ev, 3, names, v);
}

int pm_expr_is_const(const pm_expr_t *e) {
  return e->ev == NULL && e->fn == NULL;
}

void pm_expr_destroy(pm_expr_t **expr) {
  if (!expr || !*expr) return;
  if ((*expr)->ev) evaluator_destroy((*expr)->ev);
  free(*expr);
  *expr = NULL;
}
