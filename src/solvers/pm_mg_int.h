/* pm_mg_int.h - the private part of pm_mg.c: a geometric multigrid preconditioner that owns its
 * coarser levels (a refined partition hands them over, pm_partition_take_mg). */
#ifndef PMESH_PM_MG_INT_H
#define PMESH_PM_MG_INT_H

#include "pmesh/pm_mg.h"

/** pm_pc_create_mg, but meshes[0 .. nlevels-2] and parents[0 .. nlevels-2] become the
 *  preconditioner's (on success only): its set-up frees each as soon as the level below it is
 *  built, and pm_pc_destroy frees what is left.  meshes[nlevels-1] stays borrowed.  Not
 *  collective. */
int pm_mg_create_owning(int nlevels, pm_local_t **meshes, pm_refine_parents_t **parents,
                        const pm_amg_options_t *coarse_opt, pm_pc_t **pc);

/** After pm_mg_create_owning: mesh l goes back to the caller (borrowed again: the set-up reads
 *  it, never frees it; the caller keeps it valid until the set-up returns and frees it).  The
 *  matrix-free finest level keeps the mesh below it.  Not collective. */
void pm_mg_lend_mesh(pm_pc_t *pc, int l);

#endif
