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
 *   mpiexec.openmpi --allow-run-as-root -n P petsc_cg -n NX [-dim 3] -gamg|-hypre */
#include <petscksp.h>

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
  PetscInt N = dim == 3 ? nx * nx * nx : nx * nx;
  double h = 1.0 / (double)(nx - 1), c = 1.0 / (h * h);
  Mat A;
  Vec x, b;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, N, N, 2 * dim + 1, NULL, 2 * dim, NULL, &A));
  PetscInt lo, hi;
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  PetscCall(MatCreateVecs(A, &x, &b));
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
