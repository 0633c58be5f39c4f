/* pm_refine_tet.h - private to pm_refine.c: the inner diagonal a refined tetrahedron is cut
 * along (the cell table's variant_diagonal), the shortest of the three, so that shapes do not
 * degrade level after level. */
#ifndef PMESH_PM_REFINE_TET_H
#define PMESH_PM_REFINE_TET_H

#include <stdint.h>

#include "pmesh/pm_cell.h"
#include "pmesh/pm_local.h"

/* The variant (0 .. t->n_variants - 1) of tetrahedron e of c: its shortest inner diagonal from
 * its own coordinates; equal lengths (to a relative 1e-8) by the inner children's worst shape,
 * then by the vertex tags, so every rank and every encoding of a mesh decides alike.  Not
 * collective. */
int pm_refine_tet_variant(const pm_local_t *c, int32_t e, const pm_cell_t *t);

#endif
