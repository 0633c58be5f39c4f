/* pm_export.h - PM_EXTERN marks the functions of pmesh's public API.  libpmesh is built with
 * hidden visibility, so a function is callable from outside the library exactly when a header in
 * include/pmesh/ declares it with PM_EXTERN (as libCEED's CEED_EXTERN and PETSc's PETSC_EXTERN). */
#ifndef PMESH_PM_EXPORT_H
#define PMESH_PM_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define PM_EXTERN extern __attribute__((visibility("default")))
#else
#define PM_EXTERN extern
#endif

#endif
