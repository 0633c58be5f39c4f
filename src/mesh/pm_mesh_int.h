/* pm_mesh_int.h - steps of pm_mesh_from_msh that live in pm_mesh_boundary.c and pm_mesh_cells.c,
 * private to the mesh layer. */
#ifndef PMESH_PM_MESH_INT_H
#define PMESH_PM_MESH_INT_H

#include "pmesh/pm_mesh.h"

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/* Append the derived group "boundary" (the facets of exactly one cell, outward as the cell sees
 * them) unless the file names a group so; refuses a facet of three or more cells in 2D and 3D. */
int pm_mesh_add_boundary(pm_mesh_t *m);

/* Refuse an inverted, degenerate or folded volume cell: a Jacobian determinant <= 0 (relative to
 * the cell's size) at a vertex or anywhere inside (pm_mesh_cells.c).  Only 3D cells are checked:
 * 2D meshes keep either orientation. */
int pm_mesh_check_cells(const pm_mesh_t *m);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif
#endif
