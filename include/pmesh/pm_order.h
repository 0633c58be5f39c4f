/* pm_order.h - node and element numbering for memory locality.
 *
 * Meshes from Gmsh's 2D mesher number their nodes in insertion order, which is close to random:
 * neighbours of a node sit megabytes apart in every array indexed by node, and every sparse
 * product, smoother and Galerkin product pays a cache miss per entry.  Renumbering along a
 * space-filling curve puts neighbours next to each other.  The set of ids is kept (the k-th node
 * along the curve gets the k-th smallest Gmsh tag), so ids stay ascending and unique and only
 * their meaning changes; the same holds for elements.  The order depends on the mesh alone,
 * never on the number of parts, so results stay the same for any rank count. */
#ifndef PMESH_PM_ORDER_H
#define PMESH_PM_ORDER_H

#include "pmesh/pm_export.h"
#include "pmesh/pm_mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pm_order {
  PM_ORDER_NONE = 0, /* keep the file's numbering */
  PM_ORDER_HILBERT   /* nodes by the Hilbert curve through their coordinates, elements by their centroids' */
} pm_order_t;

/** "none" or "hilbert" -> *order; PM_ERR_ARG (message names the accepted values) otherwise.
 *  Not collective. */
PM_EXTERN int pm_order_parse(const char *name, pm_order_t *order);

/** The name of an order ("none", "hilbert").  Not collective. */
PM_EXTERN const char *pm_order_name(pm_order_t order);

/** Renumber the mesh's nodes and elements in place (faces keep their order; every node and
 *  element reference, group lists included, follows).  PM_ORDER_NONE leaves it untouched.
 *  @param[out] node_perm  NULL, or the new order's old node indices ([n_nodes]: node k is old
 *                         node (*node_perm)[k]; NULL for PM_ORDER_NONE), to carry node data along;
 *                         the caller frees it
 *  @return PM_OK or PM_ERR_MEMORY (the mesh is unchanged then).  Not collective. */
PM_EXTERN int pm_mesh_reorder(pm_mesh_t *mesh, pm_order_t order, int64_t **node_perm);

#ifdef __cplusplus
}
#endif

#endif
