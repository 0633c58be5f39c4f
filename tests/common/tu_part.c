/* tu_part.c - see tu_part.h. */
#include "tu_part.h"

#include <stdlib.h>

#include "pmesh/pm_error.h"
#include "pmesh/pm_mesh.h"

int tu_part_mesh_local(const pm_mesh_t *mesh, int nparts, int rank, pm_part_method_t method, pm_adjacency_t halo,
                       pm_local_t **local) {
  int ierr = PM_OK;
  pm_graph_t graph = {0};
  pm_part_plan_t *plan = NULL;
  int32_t *part = NULL;
  int64_t cut = 0;
  pm_part_options_t opt = {nparts, method, NULL, 1, 0};
  *local = NULL;
  PM_TRY(PM_MALLOC(part, mesh->n_nodes, "part ids"));
  PM_TRY(pm_graph_build(mesh, halo, &graph));
  PM_TRY(pm_part_compute(mesh, &graph, &opt, part, &cut));
  PM_TRY(pm_part_plan_create(mesh, &graph, halo, part, nparts, &plan));
  PM_TRY(pm_part_local(plan, rank, 1, local));
cleanup:
  pm_part_plan_destroy(&plan);
  pm_graph_free(&graph);
  free(part);
  return ierr;
}

int tu_part_local(const char *path, int nparts, int rank, pm_part_method_t method, pm_adjacency_t halo,
                  pm_local_t **local, int *dim) {
  pm_mesh_t *mesh = NULL;
  *local = NULL;
  int ierr = pm_mesh_read(path, &mesh, NULL);
  if (!ierr) {
    *dim = mesh->dim;
    ierr = tu_part_mesh_local(mesh, nparts, rank, method, halo, local);
  }
  pm_mesh_destroy(&mesh);
  return ierr;
}
