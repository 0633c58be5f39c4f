/* pm_pc.c - the preconditioner object, and the two diagonal ones: none and Jacobi. */
#include "pmesh/pm_pc.h"

#include <math.h>
#include <stdlib.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

struct pm_pc {
  const pm_pc_ops_t *ops;
  void *ctx;
  int is_setup;
  double t_setup, t_apply;
  long n_apply;
};

int pm_pc_create(const pm_pc_ops_t *ops, void *ctx, pm_pc_t **pc) {
  *pc = NULL;
  int ierr = ops && ops->setup && ops->apply
                 ? PM_OK
                 : pm_error_set(PM_ERR_ARG, __FILE__, __LINE__, "a preconditioner needs a setup and an apply function");
  if (!ierr) ierr = PM_CALLOC(*pc, 1, "preconditioner");
  if (ierr) {
    if (ops && ops->destroy) ops->destroy(ctx);
    return ierr;
  }
  (*pc)->ops = ops;
  (*pc)->ctx = ctx;
  return PM_OK;
}

void pm_pc_destroy(pm_pc_t **pc) {
  if (!pc || !*pc) return;
  if ((*pc)->ops->destroy) (*pc)->ops->destroy((*pc)->ctx);
  free(*pc);
  *pc = NULL;
}

int pm_pc_setup(pm_pc_t *pc, pm_op_t *a) {
  PM_CHECK(a, PM_ERR_ARG, "preconditioner %s: set up without an operator", pc->ops->name);
  PM_CHECK(!pc->is_setup, PM_ERR_ARG, "preconditioner %s: set up twice (create a new one for a new operator)",
           pc->ops->name);
  double t = MPI_Wtime();
  PM_CALL(pc->ops->setup(pc->ctx, a));
  pc->is_setup = 1;
  pc->t_setup = MPI_Wtime() - t;
  return PM_OK;
}

int pm_pc_apply(pm_pc_t *pc, const double *r, double *z) {
  PM_CHECK(pc->is_setup, PM_ERR_ARG, "preconditioner %s: applied before its setup", pc->ops->name);
  double t = MPI_Wtime();
  PM_CALL(pc->ops->apply(pc->ctx, r, z));
  pc->t_apply += MPI_Wtime() - t;
  pc->n_apply++;
  return PM_OK;
}

int pm_pc_is_setup(const pm_pc_t *pc) {
  return pc->is_setup;
}

int pm_pc_diagonal_scaling(const pm_pc_t *pc, const double **s) {
  *s = NULL;
  if (!pc->ops->diagonal_scaling) return 0;
  *s = pc->ops->diagonal_scaling(pc->ctx);
  return 1;
}

const char *pm_pc_name(const pm_pc_t *pc) {
  return pc->ops->name;
}
double pm_pc_setup_seconds(const pm_pc_t *pc) {
  return pc->t_setup;
}
double pm_pc_apply_seconds(const pm_pc_t *pc) {
  return pc->t_apply;
}
long pm_pc_apply_count(const pm_pc_t *pc) {
  return pc->n_apply;
}

void *pm_pc_context(const pm_pc_t *pc) {
  return pc->ctx;
}

int pm_pc_view(const pm_pc_t *pc, FILE *out, int json) {
  if (!pc->ops->view) return 0;
  pc->ops->view(pc->ctx, out, json);
  return 1;
}

/* Diagonal scalings.  none: S = I.  jacobi: S = D^-1/2 over NP entries (the externals from
 * their owners when the operator has a halo), so that CG can form S A S once. */
typedef struct diag {
  int jacobi;
  int32_t n;
  double *s;
} diag_t;

static int diag_setup(void *ctx, pm_op_t *a) {
  diag_t *g = ctx;
  int32_t n = pm_op_n(a), np = pm_op_n_total(a);
  MPI_Comm comm = pm_op_comm(a);
  pm_halo_t *halo = pm_op_halo(a);
  int ierr = PM_OK;
  g->n = n;
  if (!g->jacobi) return PM_OK;
  if (!pm_op_has_diagonal(a))
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "Jacobi preconditioner: the operator '%s' has no diagonal (a shell operator made without a "
                        "diagonal function): give its pm_op_shell_t a diagonal, or use the preconditioner none",
                        pm_op_name(a));
  if (!ierr) ierr = PM_MALLOC(g->s, np > 0 ? np : 1, "Jacobi scaling");
  if (!ierr) ierr = pm_op_diagonal(a, g->s);
  PM_CALL(pm_comm_agree(comm, ierr));
  double bad = 0;
  for (int32_t i = 0; i < n; i++) {
    double d = g->s[i];
    bad += !(d > 0 && isfinite(d));
    g->s[i] = d > 0 ? 1.0 / sqrt(d) : 1.0;
  }
  for (int32_t i = n; i < np; i++) g->s[i] = 1.0;
  if (halo) PM_CALL(pm_halo_update(halo, g->s, MPI_DOUBLE, 1));
  PM_CALL_MPI(pm_comm_allreduce(MPI_IN_PLACE, &bad, 1, MPI_DOUBLE, MPI_SUM, comm));
  PM_CHECK(bad == 0, PM_ERR_SOLVER,
           "Jacobi preconditioner: %.0f diagonal entries are not positive (the matrix is not positive definite: "
           "check the conductivity's sign)",
           bad);
  return PM_OK;
}

static int diag_apply(void *ctx, const double *r, double *z) {
  const diag_t *g = ctx;
  if (g->jacobi)
    for (int32_t i = 0; i < g->n; i++) z[i] = g->s[i] * g->s[i] * r[i];
  else
    for (int32_t i = 0; i < g->n; i++) z[i] = r[i];
  return PM_OK;
}

static const double *diag_scaling(void *ctx) {
  return ((const diag_t *)ctx)->s;
}

static void diag_destroy(void *ctx) {
  diag_t *g = ctx;
  if (g) free(g->s);
  free(g);
}

static const pm_pc_ops_t none_ops = {"none", diag_setup, diag_apply, diag_scaling, NULL, diag_destroy};
static const pm_pc_ops_t jacobi_ops = {"jacobi", diag_setup, diag_apply, diag_scaling, NULL, diag_destroy};

static int diag_create(int jacobi, pm_pc_t **pc) {
  diag_t *g = NULL;
  *pc = NULL;
  PM_CALL(PM_CALLOC(g, 1, "diagonal preconditioner"));
  g->jacobi = jacobi;
  return pm_pc_create(jacobi ? &jacobi_ops : &none_ops, g, pc);
}

int pm_pc_create_none(pm_pc_t **pc) {
  return diag_create(0, pc);
}
int pm_pc_create_jacobi(pm_pc_t **pc) {
  return diag_create(1, pc);
}
