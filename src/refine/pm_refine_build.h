/* pm_refine_build.h - the fine local mesh of one refinement level built from the level's
 * numbering (pm_refine_build.c; the numbering is pm_refine.c's, its state pm_refine_work.h). */
#ifndef PMESH_PM_REFINE_BUILD_H
#define PMESH_PM_REFINE_BUILD_H

#include <stdint.h>

#include "pm_refine_work.h"
#include "pmesh/pm_local.h"

/** Nodes (internal by index, externals by owner then index), tables, coordinates; *fine_cand
 *  receives each fine node's candidate.  Not collective. */
int pm_refine_build_nodes(work_t *w, pm_local_t *f, int32_t **fine_cand);
/** Elements and groups, fc: each fine node's candidate (the parents are pm_refine.c's).  Not
 *  collective. */
int pm_refine_build_cells(work_t *w, pm_local_t *f, const int32_t *fc);

#endif
