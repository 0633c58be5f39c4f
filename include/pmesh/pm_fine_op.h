/* pm_fine_op.h - the finest level of a refined run without its elements and without its matrix
 * (docs/architecture.md, "Memory of the finest level in 3D"): the P1 Poisson operator of the
 * fine mesh applied matrix-free from the level below.
 *
 * The fine elements are the children of the coarse (level K-1) elements by the cell-type
 * table's templates (pm_cell.h: child[], and the tetrahedron's variant_child[] of the diagonal
 * the refinement chose, pm_refine_points_t.variant); pm_refine_points_t names each coarse
 * element's refinement points as fine local nodes.  Every pass below walks the coarse elements
 * and forms what it needs of the children in registers.  The product y = A x and its diagonal
 * take a tetrahedron's matrix from the assembly's own element kernel (pm_element.c) and the 25
 * fine edges' weights as fixed linear maps of the parent's six (made once from the template); a
 * hexahedron's or prism's children's matrices are made once with the same kernel and kept as
 * weights of the pairs of points that share a child (pm_fine_cells.h); the load with the
 * Dirichlet columns moved right and the node weights of the error norms take the children's own
 * coordinates.  The Dirichlet rows are identity rows and their columns are eliminated, as
 * pm_fem_assemble does, so the operator is pm_fem_assemble's matrix on the fine mesh; only the
 * order of the sums differs (products agree to rounding, not bit for bit).
 *
 * Supported: the steady problem with the FEM scheme on tetrahedra, hexahedra and prisms (mixed
 * or not), conductivities constant per volume group (no x, y, z), any source, Dirichlet
 * conditions.  Refused with PM_ERR_UNSUPPORTED, naming what: other cells, FDM, conductivities
 * depending on x, y or z, Neumann and Robin conditions. */
#ifndef PMESH_PM_FINE_OP_H
#define PMESH_PM_FINE_OP_H

#include <stdint.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_op.h"
#include "pmesh/pm_problem.h"
#include "pmesh/pm_refine.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_fine pm_fine_t;

/** The matrix-free fine level of `prob`: checks what is supported, the conductivity of each
 *  coarse element, the Dirichlet marks and values, a positive diagonal.  coarse, fine (its nodes,
 *  groups and tables; its elements are not read), points (pm_refine_local_points from coarse to
 *  fine) and halo (fine's) are borrowed and must outlive the object.  Not collective (errors are
 *  local; callers agree them).
 *  @param[out] f  free with pm_fine_destroy */
PM_EXTERN int pm_fine_create(const pm_local_t *coarse, const pm_local_t *fine, const pm_refine_points_t *points,
                             pm_halo_t *halo, const pm_problem_t *prob, pm_fine_t **f);

/** Free; NULL-safe, sets *f to NULL.  Not collective. */
PM_EXTERN void pm_fine_destroy(pm_fine_t **f);

/** The right-hand side b [N] (loads, minus the eliminated Dirichlet columns; the value on
 *  Dirichlet rows) and the Dirichlet values into u [NP] (0 elsewhere), as pm_fem_assemble gives
 *  them; n_fixed: internal Dirichlet nodes.  Once per object (it then frees the values it held).
 *  Not collective. */
PM_EXTERN int pm_fine_system(pm_fine_t *f, double *b, double *u, int64_t *n_fixed);

/** The operator (pm_op_create_shell, named "matrix-free") with its diagonal (computed when asked:
 *  one pass like a product); f must outlive it.
 *  Collective on the halo's communicator. */
PM_EXTERN int pm_fine_op(pm_fine_t *f, pm_op_t **op);

/** The Dirichlet marks of the fine nodes ([NP], nonzero: an eliminated row and column), for
 *  pm_mg_set_fixed_rows.  Not collective. */
PM_EXTERN const char *pm_fine_fixed(const pm_fine_t *f);

/** The lumped-mass weights of the N internal nodes of `fine` (pm_fem_node_weights on the fine
 *  mesh) from the children of coarse's tetrahedra (points: pm_refine_local_points from coarse to
 *  fine); PM_ERR_UNSUPPORTED for other cells.  Not collective. */
PM_EXTERN int pm_fine_node_weights(const pm_local_t *coarse, const pm_local_t *fine, const pm_refine_points_t *points,
                                   double *w);

#ifdef __cplusplus
}
#endif
#endif
