/* petsc_cg.c - the comparison for pmesh's CG and AMG benchmarks: PETSc KSPCG on the same
 * problem as `solve --scheme fdm5` on `meshgen grid NX NX 1 1` (or, with -dim 3, `--scheme fdm7`
 * on `meshgen box NX NX NX 1 1 1`): the 5-point (7-point) Laplacian with Dirichlet boundary rows
 * as identity rows and their columns eliminated, f = 1.
 * Benchmark-only: built with PETSc's own MPI (Debian's petsc-dev uses OpenMPI), never linked
 * into pmesh.  Prints the seconds per CG iteration of KSPSolve.
 *   mpiexec.openmpi --allow-run-as-root -n P petsc_cg -n NX [-dim 3] -its 200
 * With -gamg: CG + PCGAMG (default options) to ||r||/||b|| <= -rtol (default 1e-8, the true
 * residual: -ksp_norm_type unpreconditioned), printing the set-up (KSPSetUp: the hierarchy) and
 * solve seconds apart and the iterations.  With -hypre: the same with hypre's BoomerAMG
 * (-pc_type hypre, its default options).
 *   mpiexec.openmpi --allow-run-as-root -n P petsc_cg -n NX [-dim 3] -gamg|-hypre
 * With -matrix PREFIX: instead of the grid, the matrix and right-hand side pmesh assembled and
 * wrote with `solve --dump-matrix PREFIX` (rank r's rows in PREFIX.r, run at the same P), rank r
 * owning the rows pmesh's rank r owned: the same matrix, right-hand side and partition.
 *   mpiexec.openmpi --allow-run-as-root -n P petsc_cg -matrix PREFIX -gamg|-hypre */
#include <petscksp.h>
#include <stdlib.h>

typedef struct gidpos {
  long long gid, pos;
} gidpos_t;

static int cmp_gid(const void *a, const void *b) {
  long long x = ((const gidpos_t *)a)->gid, y = ((const gidpos_t *)b)->gid;
  return (x > y) - (x < y);
}

/* The rows of `solve --dump-matrix PREFIX` (per line: global id, diagonal, right-hand side, then
 * global column id:value) of this rank, renumbered contiguously by rank. */
static PetscErrorCode dumped_matrix(const char *prefix, Mat *A, Vec *b, PetscInt *N) {
  PetscMPIInt rank, size;
  PetscCall(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCall(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  char path[4096];
  snprintf(path, sizeof path, "%s.%d", prefix, (int)rank);
  FILE *fp = fopen(path, "r");
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "cannot open %s", path);
  size_t cap = 1 << 16, ncap = 1 << 20, nrow = 0, nent = 0;
  long long *gid = malloc(cap * sizeof *gid), *col = malloc(ncap * sizeof *col);
  double *diag = malloc(cap * sizeof *diag), *rhs = malloc(cap * sizeof *rhs), *val = malloc(ncap * sizeof *val);
  size_t *ptr = malloc((cap + 1) * sizeof *ptr);
  char *line = NULL;
  size_t len = 0;
  ptr[0] = 0;
  while (getline(&line, &len, fp) > 0) {
    if (line[0] == '#') continue;
    if (nrow + 1 >= cap) {
      cap *= 2;
      gid = realloc(gid, cap * sizeof *gid);
      diag = realloc(diag, cap * sizeof *diag);
      rhs = realloc(rhs, cap * sizeof *rhs);
      ptr = realloc(ptr, (cap + 1) * sizeof *ptr);
    }
    char *at = line, *end;
    gid[nrow] = strtoll(at, &end, 10);
    diag[nrow] = strtod(end, &at);
    rhs[nrow] = strtod(at, &end);
    for (at = end;;) {
      long long c = strtoll(at, &end, 10);
      if (end == at || *end != ':') break;
      if (nent == ncap) {
        ncap *= 2;
        col = realloc(col, ncap * sizeof *col);
        val = realloc(val, ncap * sizeof *val);
      }
      col[nent] = c;
      val[nent++] = strtod(end + 1, &at);
    }
    ptr[++nrow] = nent;
  }
  free(line);
  fclose(fp);
  /* Global numbering: rank r's rows after the rows of ranks below it. */
  PetscInt mine = (PetscInt)nrow, lo = 0;
  PetscCall(MPI_Exscan(&mine, &lo, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  if (rank == 0) lo = 0;
  PetscCall(MPI_Allreduce(&mine, N, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  int *cnt = malloc((size_t)size * sizeof *cnt), *dsp = malloc((size_t)size * sizeof *dsp), n = (int)nrow;
  PetscCall(MPI_Allgather(&n, 1, MPI_INT, cnt, 1, MPI_INT, PETSC_COMM_WORLD));
  dsp[0] = 0;
  for (int q = 1; q < size; q++) dsp[q] = dsp[q - 1] + cnt[q - 1];
  long long *all = malloc((size_t)*N * sizeof *all);
  PetscCall(MPI_Allgatherv(gid, n, MPI_LONG_LONG, all, cnt, dsp, MPI_LONG_LONG, PETSC_COMM_WORLD));
  gidpos_t *map = malloc((size_t)*N * sizeof *map);
  for (PetscInt k = 0; k < *N; k++) map[k] = (gidpos_t){all[k], k};
  qsort(map, (size_t)*N, sizeof *map, cmp_gid);
  PetscInt *dnz = malloc(nrow * sizeof *dnz), *onz = malloc(nrow * sizeof *onz), *cols = malloc((nent + 1) * sizeof *cols);
  for (size_t i = 0; i < nrow; i++) {
    dnz[i] = 1;
    onz[i] = 0;
    for (size_t k = ptr[i]; k < ptr[i + 1]; k++) {
      gidpos_t key = {col[k], 0}, *hit = bsearch(&key, map, (size_t)*N, sizeof *map, cmp_gid);
      PetscCheck(hit, PETSC_COMM_SELF, PETSC_ERR_FILE_UNEXPECTED, "%s: column %lld is nobody's row", path, col[k]);
      cols[k] = (PetscInt)hit->pos;
      if (cols[k] >= lo && cols[k] < lo + mine)
        dnz[i]++;
      else
        onz[i]++;
    }
  }
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, mine, mine, *N, *N, 0, dnz, 0, onz, A));
  PetscCall(MatCreateVecs(*A, NULL, b));
  for (size_t i = 0; i < nrow; i++) {
    PetscInt row = lo + (PetscInt)i;
    PetscCall(MatSetValue(*A, row, row, diag[i], INSERT_VALUES));
    PetscCall(MatSetValues(*A, 1, &row, (PetscInt)(ptr[i + 1] - ptr[i]), cols + ptr[i], val + ptr[i], INSERT_VALUES));
    PetscCall(VecSetValue(*b, row, rhs[i], INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(VecAssemblyBegin(*b));
  PetscCall(VecAssemblyEnd(*b));
  free(gid), free(col), free(diag), free(rhs), free(val), free(ptr), free(cnt), free(dsp), free(all), free(map);
  free(dnz), free(onz), free(cols);
  return 0;
}

/* The grid's matrix (see the top). */
static PetscErrorCode grid_matrix(PetscInt nx, PetscInt dim, Mat *Aout, Vec *bout, PetscInt *Nout) {
  PetscInt N = *Nout = dim == 3 ? nx * nx * nx : nx * nx;
  double h = 1.0 / (double)(nx - 1), c = 1.0 / (h * h);
  Mat A;
  Vec b;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, N, N, 2 * dim + 1, NULL, 2 * dim, NULL, &A));
  PetscInt lo, hi;
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  PetscCall(MatCreateVecs(A, NULL, &b));
  for (PetscInt row = lo; row < hi; row++) {
    PetscInt ijk[3] = {row % nx, (row / nx) % nx, dim == 3 ? row / (nx * nx) : 0}, stride[3] = {1, nx, nx * nx};
    int bnd = 0;
    for (int d = 0; d < dim; d++) bnd |= ijk[d] == 0 || ijk[d] == nx - 1;
    if (bnd) {
      PetscCall(MatSetValue(A, row, row, 1.0, INSERT_VALUES));
      PetscCall(VecSetValue(b, row, 0.0, INSERT_VALUES));
      continue;
    }
    PetscCall(MatSetValue(A, row, row, 2 * dim * c, INSERT_VALUES));
    for (int d = 0; d < dim; d++)
      for (int s = -1; s <= 1; s += 2) {
        PetscInt q = ijk[d] + s;
        int nbnd = q == 0 || q == nx - 1;
        for (int e = 0; e < dim; e++) nbnd |= e != d && (ijk[e] == 0 || ijk[e] == nx - 1);
        if (!nbnd) PetscCall(MatSetValue(A, row, row + s * stride[d], -c, INSERT_VALUES));
      }
    PetscCall(VecSetValue(b, row, 1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(VecAssemblyBegin(b));
  PetscCall(VecAssemblyEnd(b));
  *Aout = A;
  *bout = b;
  return 0;
}

int main(int argc, char **argv) {
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscInt nx = 1000, its = 200;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &nx, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-its", &its, NULL));
  PetscInt dim = 2;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  PetscBool gamg = PETSC_FALSE, hypre = PETSC_FALSE;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-hypre", &hypre, NULL));
  PetscReal rtol = 1e-8;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gamg", &gamg, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rtol", &rtol, NULL));
  char prefix[4096] = "";
  PetscCall(PetscOptionsGetString(NULL, NULL, "-matrix", prefix, sizeof prefix, NULL));
  Mat A;
  Vec x, b;
  PetscInt N;
  if (prefix[0])
    PetscCall(dumped_matrix(prefix, &A, &b, &N));
  else
    PetscCall(grid_matrix(nx, dim, &A, &b, &N));
  PetscCall(VecDuplicate(b, &x));
  KSP ksp;
  PC pc;
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  if (gamg || hypre) {
    PetscCall(PCSetType(pc, hypre ? PCHYPRE : PCGAMG));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(ksp, rtol, 0.0, PETSC_DEFAULT, 10000));
  } else {
    PetscCall(PCSetType(pc, PCJACOBI));
    PetscCall(KSPSetTolerances(ksp, 0.0, 0.0, PETSC_DEFAULT, its));
    PetscCall(KSPSetConvergenceTest(ksp, KSPConvergedSkip, NULL, NULL));
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(VecSet(x, 0.0));
  PetscCall(MPI_Barrier(PETSC_COMM_WORLD));
  double t0 = MPI_Wtime();
  PetscCall(KSPSetUp(ksp));
  double t_setup = MPI_Wtime() - t0;
  PetscCall(MPI_Barrier(PETSC_COMM_WORLD));
  double t = MPI_Wtime();
  PetscCall(KSPSolve(ksp, b, x));
  double dt = MPI_Wtime() - t;
  PetscInt done;
  PetscCall(KSPGetIterationNumber(ksp, &done));
  if (gamg || hypre) {
    KSPConvergedReason why;
    PetscReal rn, bn;
    PetscCall(KSPGetConvergedReason(ksp, &why));
    PetscCall(KSPGetResidualNorm(ksp, &rn));
    PetscCall(VecNorm(b, NORM_2, &bn));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "petsc cg+%s: n %d, %d iterations, ||r||/||b|| %.3e (%s), setup %.4f s, solve %.4f s, "
                          "total %.4f s\n",
                          hypre ? "boomeramg" : "gamg", (int)N, (int)done, (double)(rn / bn), why > 0 ? "converged" : "NOT converged", t_setup, dt,
                          t_setup + dt));
  } else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "petsc cg+jacobi: n %d, %d iterations, %.3f ms per iteration\n", (int)N,
                          (int)done, 1e3 * dt / (double)done));
  }
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}
