/* pm_run_fine.h - private: the matrix-free finest level's elements for its result's mesh, made
 * from the level below's elements and refinement points while the mesh is written (pm_h5's
 * element source), never all at once. */
#ifndef PMESH_PM_RUN_FINE_H
#define PMESH_PM_RUN_FINE_H

#include <stdint.h>

#include "pmesh/pm_h5.h"
#include "pmesh/pm_partition.h"

/* What the source reads besides the partition: a few bytes per coarse element. */
typedef struct pm_run_fine {
  const pm_local_t *c, *f; /* the level below (with its elements), the finest level (without) */
  const pm_refine_points_t *pt;
  int rank;
  int32_t *sel;       /* [owned coarse elements]: the items, each the children of one */
  int32_t *group;     /* [coarse local elements]: cell_group of its children; NULL: every -1 */
  int32_t *ext_owner; /* [f's external nodes]: their owner ranks */
  pm_h5_elements_t src;
} pm_run_fine_t;

/* The source over part's finest level (part->points and part->below set, the level below with its
 * elements and their place): every rank gives the children of the coarse elements it owns, which
 * hold all their points (each child has a point the coarse element's owner owns, so the owner keeps
 * it); a child's owner is its lowest-tag node's (pm_refine.h).  Errors agreed.  Collective. */
int pm_run_fine_create(const pm_partition_t *part, pm_run_fine_t *rf);
/* Free; not collective. */
void pm_run_fine_free(pm_run_fine_t *rf);

#endif
