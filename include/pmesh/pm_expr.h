/* pm_expr.h - values given at points: an expression in x, y, z (libmatheval) or a C callback,
 * behind one evaluator.  A problem's sources, conductivities, boundary values, initial states and
 * exact solutions are all such values (pm_problem.h, pm_run.h). */
#ifndef PMESH_PM_EXPR_H
#define PMESH_PM_EXPR_H

#ifdef __cplusplus
extern "C" {
#endif

/** A user's function of the point x = (x, y, z); ctx is what the caller gave with it. */
typedef double (*pm_value_fn_t)(const double x[3], void *ctx);

/** A value given either as an expression or as a callback.  Exactly one of expr and fn is set
 *  (both NULL: the value is absent, which each user of the value documents).  The strings and
 *  ctx are borrowed: pm_problem copies expr, ctx must outlive every evaluation. */
typedef struct pm_value {
  const char *expr; /* libmatheval syntax in x, y, z: + - * / ^, sin, cos, exp, sqrt, pi, e, ... */
  pm_value_fn_t fn;
  void *ctx;
} pm_value_t;

/** Constructors: an expression, a callback.  Not collective. */
pm_value_t pm_value_expr(const char *expr);
pm_value_t pm_value_fn(pm_value_fn_t fn, void *ctx);
/** Whether v is given (expr or fn set).  Not collective. */
int pm_value_is_set(pm_value_t v);
/** How to name v in messages and result attributes: the expression, or "(C function)".  Not
 *  collective. */
const char *pm_value_text(pm_value_t v);

/** A compiled value. */
typedef struct pm_expr pm_expr_t;
/** Parse `text`; PM_ERR_ARG naming the text when it does not parse or uses other variables than
 *  x, y, z.  Not collective. */
int pm_expr_create(const char *text, pm_expr_t **expr);
/** Compile a value (an expression is parsed as by pm_expr_create; a callback is wrapped);
 *  PM_ERR_ARG when neither is set.  Not collective. */
int pm_expr_create_value(pm_value_t value, pm_expr_t **expr);
/** The value at (x, y, z).  Not collective. */
double pm_expr_eval(const pm_expr_t *expr, double x, double y, double z);
/** Whether the value is a constant expression (a callback never is).  Not collective. */
int pm_expr_is_const(const pm_expr_t *expr);
/** Free; NULL-safe, sets *expr to NULL.  Not collective. */
void pm_expr_destroy(pm_expr_t **expr);

#ifdef __cplusplus
}
#endif
#endif
