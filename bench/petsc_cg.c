/* petsc_cg.c - the comparison for pmesh's CG benchmark: PETSc KSPCG + PCJACOBI on the same
 * problem as `solve --scheme fdm5` on `meshgen grid NX NX 1 1`: the 5-point Laplacian with
 * Dirichlet boundary rows as identity rows and their columns eliminated, f = 1.
 * Benchmark-only: built with PETSc's own MPI (Debian's petsc-dev uses OpenMPI), never linked
 * into pmesh.  Prints the seconds per CG iteration of KSPSolve.
 *   mpiexec.openmpi --allow-run-as-root -n P petsc_cg -n NX -its 200
 * With -gamg: CG + PCGAMG (default options) to ||r||/||b|| <= -rtol (default 1e-8, the true
 * residual: -ksp_norm_type unpreconditioned), printing the set-up (KSPSetUp: GAMG's hierarchy) and
 * solve seconds apart and the iterations.
 *   mpiexec.openmpi --allow-run-as-root -n P petsc_cg -n NX -gamg */
#include <petscksp.h>

int main(int argc, char **argv) {
  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscInt nx = 1000, its = 200;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &nx, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-its", &its, NULL));
  PetscBool gamg = PETSC_FALSE;
  PetscReal rtol = 1e-8;
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-gamg", &gamg, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-rtol", &rtol, NULL));
  PetscInt N = nx * nx;
  double h = 1.0 / (double)(nx - 1), c = 1.0 / (h * h);
  Mat A;
  Vec x, b;
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, N, N, 5, NULL, 4, NULL, &A));
  PetscInt lo, hi;
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  PetscCall(MatCreateVecs(A, &x, &b));
  for (PetscInt row = lo; row < hi; row++) {
    PetscInt i = row % nx, j = row / nx;
    int bnd = i == 0 || j == 0 || i == nx - 1 || j == nx - 1;
    if (bnd) {
      PetscCall(MatSetValue(A, row, row, 1.0, INSERT_VALUES));
      PetscCall(VecSetValue(b, row, 0.0, INSERT_VALUES));
      continue;
    }
    PetscCall(MatSetValue(A, row, row, 4 * c, INSERT_VALUES));
    PetscInt nb[4] = {row - 1, row + 1, row - nx, row + nx};
    PetscInt ni[4] = {i - 1, i + 1, i, i}, nj[4] = {j, j, j - 1, j + 1};
    for (int k = 0; k < 4; k++) {
      int nbnd = ni[k] == 0 || nj[k] == 0 || ni[k] == nx - 1 || nj[k] == nx - 1;
      if (!nbnd) PetscCall(MatSetValue(A, row, nb[k], -c, INSERT_VALUES));
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
  if (gamg) {
    PetscCall(PCSetType(pc, PCGAMG));
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
  if (gamg) {
    KSPConvergedReason why;
    PetscReal rn, bn;
    PetscCall(KSPGetConvergedReason(ksp, &why));
    PetscCall(KSPGetResidualNorm(ksp, &rn));
    PetscCall(VecNorm(b, NORM_2, &bn));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "petsc cg+gamg: n %d, %d iterations, ||r||/||b|| %.3e (%s), setup %.4f s, solve %.4f s, "
                          "total %.4f s\n",
                          (int)N, (int)done, (double)(rn / bn), why > 0 ? "converged" : "NOT converged", t_setup, dt,
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
