/* pm_expr.c - values at points and times: libmatheval expressions and C callbacks behind one
 * evaluator. */
#include "pmesh/pm_expr.h"

#include <math.h>
#include <matheval.h>
#include <stdlib.h>
#include <string.h>

#include "base/pm_util.h"
#include "pmesh/pm_error.h"

struct pm_expr {
  void *ev;                   /* libmatheval evaluator; NULL for a constant or a callback */
  double value;               /* the constant */
  pm_value_fn_t fn;           /* the callback, or NULL */
  pm_value_time_fn_t time_fn; /* or the time-aware callback */
  void *ctx;
  int uses_t; /* ev has the variable t */
  double t;   /* the time of evaluations */
};

pm_value_t pm_value_expr(const char *expr) {
  return (pm_value_t){expr, NULL, NULL};
}

pm_value_t pm_value_fn(pm_value_fn_t fn, void *ctx) {
  return (pm_value_t){NULL, fn, ctx};
}

pm_value_t pm_value_time_fn(pm_value_time_t *tf) {
  return (pm_value_t){NULL, tf && tf->fn ? pm_value_time_eval : NULL, tf};
}

double pm_value_time_eval(const double x[3], void *tf) {
  const pm_value_time_t *v = tf;
  return v->fn(x, 0.0, v->ctx);
}

int pm_value_is_set(pm_value_t v) {
  return v.expr != NULL || v.fn != NULL;
}

/* A value from pm_value_time_fn. */
static int is_time_fn(pm_value_t v) {
  return !v.expr && v.fn == pm_value_time_eval && v.ctx;
}

int pm_value_depends_on_time(pm_value_t v) {
  if (v.expr) {
    pm_expr_t *e = NULL;
    if (pm_expr_create(v.expr, &e)) return 0;
    int dep = e->uses_t;
    pm_expr_destroy(&e);
    return dep;
  }
  return is_time_fn(v);
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
                        "cannot parse the expression '%s' (use x, y, z, t, numbers, + - * / ^, sin cos exp log "
                        "sqrt ..., pi, e)",
                        text);
  }
  char **names;
  int n;
  evaluator_get_variables(e->ev, &names, &n);
  for (int i = 0; i < n; i++) {
    if (strcmp(names[i], "t") == 0) {
      e->uses_t = 1;
    } else if (strcmp(names[i], "x") && strcmp(names[i], "y") && strcmp(names[i], "z")) {
      int ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                              "the expression '%s' uses the variable '%s'; only x, y, z and the time t are defined",
                              text, names[i]);
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
  if (is_time_fn(v)) { /* call the user's function with the time directly */
    const pm_value_time_t *tf = v.ctx;
    e->time_fn = tf->fn;
    e->ctx = tf->ctx;
  } else {
    e->fn = v.fn;
    e->ctx = v.ctx;
  }
  *expr = e;
  return PM_OK;
}

double pm_expr_eval(const pm_expr_t *e, double x, double y, double z) {
  if (e->fn || e->time_fn) {
    const double p[3] = {x, y, z};
    return e->fn ? e->fn(p, e->ctx) : e->time_fn(p, e->t, e->ctx);
  }
  if (!e->ev) return e->value;
  static char vx[] = "x", vy[] = "y", vz[] = "z", vt[] = "t";
  static char *names[] = {vx, vy, vz, vt};
  double v[4] = {x, y, z, e->t};
  return evaluator_evaluate(e->ev, e->uses_t ? 4 : 3, names, v);
}

void pm_expr_set_time(pm_expr_t *e, double t) {
  e->t = t;
}

int pm_expr_depends_on_time(const pm_expr_t *e) {
  return e->uses_t || e->time_fn != NULL;
}

int pm_expr_is_const(const pm_expr_t *e) {
  return e->ev == NULL && e->fn == NULL && e->time_fn == NULL;
}

void pm_expr_destroy(pm_expr_t **expr) {
  if (!expr || !*expr) return;
  if ((*expr)->ev) evaluator_destroy((*expr)->ev);
  free(*expr);
  *expr = NULL;
}
