/* pm_op.c - the operator object: an assembled matrix with its halo, or the caller's product
 * (a shell).  The solvers ask it for products, its diagonal and, where they need entries, the
 * matrix behind it. */
#include "pmesh/pm_op.h"

#include <stdlib.h>

#include "assembly/pm_csr_int.h"
#include "pm_op_int.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"

struct pm_op {
  const pm_csr_t *a; /* csr: the matrix (borrowed); NULL for a shell */
  pm_halo_t *halo;   /* csr: its halo (borrowed) */
  const pm_op_shell_t *shell;
  void *ctx;
  MPI_Comm comm; /* the halo's, or the shell's duplicate (owned) */
  int32_t n, n_total;
};

int pm_op_create_csr(const pm_csr_t *a, pm_halo_t *halo, pm_op_t **op) {
  PM_CHECK(op, PM_ERR_ARG, "pm_op_create_csr: op is NULL");
  *op = NULL;
  PM_CHECK(a && halo, PM_ERR_ARG, "pm_op_create_csr: the matrix or its halo is NULL");
  PM_CHECK(a->n == pm_halo_n_internal(halo) && a->ncol == pm_halo_n_total(halo), PM_ERR_ARG,
           "pm_op_create_csr: the matrix has %d rows and %d columns but its halo %d internal and %d internal + "
           "external entries: build both over the same local numbering",
           (int)a->n, (int)a->ncol, (int)pm_halo_n_internal(halo), (int)pm_halo_n_total(halo));
  PM_CALL(PM_CALLOC(*op, 1, "operator"));
  (*op)->a = a;
  (*op)->halo = halo;
  (*op)->comm = pm_halo_comm(halo);
  (*op)->n = a->n;
  (*op)->n_total = a->ncol;
  return PM_OK;
}

int pm_op_create_shell(MPI_Comm comm, int32_t n, int32_t n_total, const pm_op_shell_t *shell, void *ctx, pm_op_t **op) {
  int ierr = PM_OK, rank = 0;
  pm_op_t *o = NULL;
  if (op) *op = NULL;
  MPI_Comm_rank(comm, &rank);
  if (!op || !shell || !shell->apply)
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "pm_op_create_shell: rank %d: %s (a shell operator needs at least an apply function)", rank,
                        !op ? "op is NULL" : "no apply function");
  else if (n < 0 || n_total < n)
    ierr = pm_error_set(PM_ERR_ARG, __FILE__, __LINE__,
                        "pm_op_create_shell: rank %d: invalid sizes N = %d, NP = %d (expected 0 <= N <= NP)", rank,
                        (int)n, (int)n_total);
  if (!ierr) ierr = PM_CALLOC(o, 1, "shell operator");
  if (o) o->comm = MPI_COMM_NULL;
  ierr = pm_comm_agree(comm, ierr);
  if (!ierr) {
    int rc = pm_comm_dup(comm, &o->comm);
    if (rc == MPI_SUCCESS) rc = MPI_Comm_set_errhandler(o->comm, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) ierr = pm_mpi_error(rc, __FILE__, __LINE__, "MPI_Comm_dup (shell operator)");
  }
  if (ierr) {
    if (o && o->comm != MPI_COMM_NULL) MPI_Comm_free(&o->comm);
    free(o);
    if (shell && shell->destroy) shell->destroy(ctx);
    return ierr;
  }
  o->shell = shell;
  o->ctx = ctx;
  o->n = n;
  o->n_total = n_total;
  *op = o;
  return PM_OK;
}

void pm_op_destroy(pm_op_t **op) {
  if (!op || !*op) return;
  pm_op_t *o = *op;
  if (o->shell) {
    if (o->shell->destroy) o->shell->destroy(o->ctx);
    if (o->comm != MPI_COMM_NULL) MPI_Comm_free(&o->comm);
  }
  free(o);
  *op = NULL;
}

int pm_op_apply(pm_op_t *op, double *x, double *y) {
  if (op->a) return pm_csr_spmv(op->a, op->halo, x, y, NULL, NULL);
  PM_CALL(op->shell->apply(op->ctx, x, y));
  return PM_OK;
}

int pm_op_apply_dot(pm_op_t *op, double *x, double *y, double *xy, pm_exact_acc_t *const *acc, double *t_exchange) {
  if (op->a) {
    if (acc) return pm_csr_spmv_exact(op->a, op->halo, x, y, acc, t_exchange);
    return pm_csr_spmv(op->a, op->halo, x, y, xy, t_exchange);
  }
  PM_CALL(op->shell->apply(op->ctx, x, y));
  int32_t n = op->n;
  if (acc) {
    for (int32_t i = 0; i < n; i++) pm_exact_acc_add(acc[i & 1], x[i] * y[i]);
  } else if (xy) {
    /* The two lanes of pm_csr_spmv (even and odd rows), in row order. */
    double d[2] = {0, 0};
    for (int32_t i = 0; i < n; i++) d[i & 1] += x[i] * y[i];
    *xy = d[0] + d[1];
  }
  return PM_OK;
}

int pm_op_diagonal(pm_op_t *op, double *d) {
  if (op->a) {
    for (int32_t i = 0; i < op->n; i++) d[i] = op->a->d ? op->a->d[i] : 1.0;
    return PM_OK;
  }
  PM_CHECK(op->shell->diagonal, PM_ERR_ARG,
           "the shell operator '%s' has no diagonal: give pm_op_create_shell a diagonal function (pm_op_shell_t), "
           "or use a preconditioner that needs none",
           pm_op_name(op));
  PM_CALL(op->shell->diagonal(op->ctx, d));
  return PM_OK;
}

int pm_op_has_diagonal(const pm_op_t *op) {
  return op->a || op->shell->diagonal;
}

const pm_csr_t *pm_op_csr(const pm_op_t *op) {
  return op ? op->a : NULL;
}
pm_halo_t *pm_op_halo(const pm_op_t *op) {
  return op ? op->halo : NULL;
}
MPI_Comm pm_op_comm(const pm_op_t *op) {
  return op ? op->comm : MPI_COMM_NULL;
}
int32_t pm_op_n(const pm_op_t *op) {
  return op ? op->n : 0;
}
int32_t pm_op_n_total(const pm_op_t *op) {
  return op ? op->n_total : 0;
}
const char *pm_op_name(const pm_op_t *op) {
  if (!op) return "(null)";
  if (op->a) return "csr";
  return op->shell->name ? op->shell->name : "shell";
}
