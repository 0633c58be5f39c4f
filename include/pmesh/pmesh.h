/* pmesh.h - the whole public API in one include (docs/architecture.md gives the order
 * in which the modules depend on each other).  Each header documents its module; pm_pc.h
 * documents the vector-length conventions (N, NP, NP + NA) used everywhere. */
#ifndef PMESH_PMESH_H
#define PMESH_PMESH_H

#include "pmesh/pm_alloc.h"
#include "pmesh/pm_amg.h"
#include "pmesh/pm_cg.h"
#include "pmesh/pm_check.h"
#include "pmesh/pm_comm.h"
#include "pmesh/pm_csr.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_exact.h"
#include "pmesh/pm_expr.h"
#include "pmesh/pm_fem.h"
#include "pmesh/pm_fine_op.h"
#include "pmesh/pm_fingerprint.h"
#include "pmesh/pm_gen.h"
#include "pmesh/pm_h5.h"
#include "pmesh/pm_h5_read.h"
#include "pmesh/pm_h5_view.h"
#include "pmesh/pm_halo.h"
#include "pmesh/pm_lecture.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_mesh.h"
#include "pmesh/pm_meta.h"
#include "pmesh/pm_mg.h"
#include "pmesh/pm_cell.h"
#include "pmesh/pm_msh.h"
#include "pmesh/pm_op.h"
#include "pmesh/pm_order.h"
#include "pmesh/pm_part.h"
#include "pmesh/pm_partdir.h"
#include "pmesh/pm_partition.h"
#include "pmesh/pm_pc.h"
#include "pmesh/pm_problem.h"
#include "pmesh/pm_quality.h"
#include "pmesh/pm_refine.h"
#include "pmesh/pm_refine_run.h"
#include "pmesh/pm_run.h"
#include "pmesh/pm_version.h"

#endif
