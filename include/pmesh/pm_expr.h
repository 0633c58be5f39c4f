/* pm_expr.h - values given at points: an expression in x, y, z and the time t (libmatheval) or a
 * C callback, behind one evaluator.  A problem's sources, conductivities, boundary values, initial
 * states and exact solutions are all such values (pm_problem.h, pm_run.h).  A transient run
 * evaluates time-dependent values at each step's time (backward Euler: the new time t_{n+1});
 * anywhere else t is 0. */
#ifndef PMESH_PM_EXPR_H
#define PMESH_PM_EXPR_H

#include "pmesh/pm_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** A user's function of the point x = (x, y, z); ctx is what the caller gave with it. */
typedef double (*pm_value_fn_t)(const double x[3], void *ctx);
/** A value given either as an expression or as a callback.  Exactly one of expr and fn is set
 *  (both NULL: the value is absent, which each user of the value documents).  The strings and
 *  ctx are borrowed: pm_problem copies expr, ctx must outlive every evaluation. */
typedef struct pm_value {
  const char *expr; /* libmatheval syntax in x, y, z and t: + - * / ^, sin, cos, exp, sqrt, pi, ... */
  pm_value_fn_t fn;
  void *ctx;
} pm_value_t;

/** Constructors: an expression, a callback.  Not collective. */
PM_EXTERN pm_value_t pm_value_expr(const char *expr);
PM_EXTERN pm_value_t pm_value_fn(pm_value_fn_t fn, void *ctx);
/** Whether v is given (expr or fn set).  Not collective. */
PM_EXTERN int pm_value_is_set(pm_value_t v);

/** A user's function of the point and the time t (the time of the step a transient run computes;
 *  0 in steady runs and for initial states). */
typedef double (*pm_value_time_fn_t)(const double x[3], double t, void *ctx);
/** A time-aware callback and its ctx.  The caller owns it; it must outlive every evaluation (as
 *  ctx does). */
typedef struct pm_value_time {
  pm_value_time_fn_t fn;
  void *ctx;
} pm_value_time_t;
/** A value from a time-aware callback, without a change to pm_value_t: its fn is
 *  pm_value_time_eval and its ctx is tf; the evaluator recognises that pair and passes each
 *  evaluation's time to tf->fn.  For example
 *    static pm_value_time_t g = {my_g, &params};   (my_g(x, t, ctx))
 *    pm_problem_add_dirichlet(prob, "left", pm_value_time_fn(&g));
 *  Not collective. */
PM_EXTERN pm_value_t pm_value_time_fn(pm_value_time_t *tf);
/** The adapter behind pm_value_time_fn: tf->fn at t = 0 (for a caller that evaluates such a value
 *  itself, as a plain callback).  Not collective. */
PM_EXTERN double pm_value_time_eval(const double x[3], void *tf);
/** Whether v depends on the time: an expression that uses t, or a pm_value_time_fn callback.  An
 *  expression that does not parse counts as independent (pm_expr_create reports it).  Not
 *  collective. */
PM_EXTERN int pm_value_depends_on_time(pm_value_t v);
/** How to name v in messages and result attributes: the expression, or "(C function)".  Not
 *  collective. */
PM_EXTERN const char *pm_value_text(pm_value_t v);

/** A compiled value. */
typedef struct pm_expr pm_expr_t;
/** Parse `text`; PM_ERR_ARG naming the text when it does not parse or uses other variables than
 *  x, y, z and t.  Not collective. */
PM_EXTERN int pm_expr_create(const char *text, pm_expr_t **expr);
/** Compile a value (an expression is parsed as by pm_expr_create; a callback is wrapped);
 *  PM_ERR_ARG when neither is set.  Not collective. */
PM_EXTERN int pm_expr_create_value(pm_value_t value, pm_expr_t **expr);
/** The value at (x, y, z) and the expression's time (pm_expr_set_time; 0 unless set).  Not
 *  collective. */
PM_EXTERN double pm_expr_eval(const pm_expr_t *expr, double x, double y, double z);
/** The time t at which later pm_expr_eval calls evaluate (no effect on values independent of
 *  time).  Not collective. */
PM_EXTERN void pm_expr_set_time(pm_expr_t *expr, double t);
/** Whether the value depends on t (an expression using t, or a time-aware callback).  Not
 *  collective. */
PM_EXTERN int pm_expr_depends_on_time(const pm_expr_t *expr);
/** Whether the value is a constant expression (a callback never is).  Not collective. */
PM_EXTERN int pm_expr_is_const(const pm_expr_t *expr);
/** Free; NULL-safe, sets *expr to NULL.  Not collective. */
PM_EXTERN void pm_expr_destroy(pm_expr_t **expr);

#ifdef __cplusplus
}
#endif
#endif
