/* pm_part.h - node-based partitioning of a global mesh and the build of each rank's local mesh.
 *
 * Every node is internal on exactly one rank.  External nodes of rank r are the neighbours of
 * r's internal nodes (per the halo kind) owned elsewhere.  Rank r keeps every element that
 * touches one of its internal nodes; an element's owner is the rank owning its node with the
 * smallest global id (likewise for faces). */
#ifndef PMESH_PM_PART_H
#define PMESH_PM_PART_H

#include <stdint.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_local.h"
#include "pmesh/pm_mesh.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pm_part_method {
  PM_PART_METIS_KWAY, /* METIS_PartGraphKway (default) */
  PM_PART_METIS_RB,   /* METIS_PartGraphRecursive */
  PM_PART_RCB,        /* recursive coordinate bisection; parts in coordinate order */
  PM_PART_FILE        /* one 0-based part id per line, for the nodes in ascending tag order */
} pm_part_method_t;

/** Which nodes are neighbours in the partitioner's node graph, and so which externals a local
 *  mesh gets (`partition --halo element|edge`; the file formats keep the words "element" and
 *  "edge").  Not to be confused with the halo exchange (pm_halo.h) built over those externals. */
typedef enum pm_adjacency {
  PM_ADJACENCY_ELEMENT, /* neighbours: nodes sharing an element (FEM) */
  PM_ADJACENCY_EDGE     /* neighbours: nodes joined by an element edge (5-point FDM) */
} pm_adjacency_t;

/** Node adjacency graph (CSR, no self loops, neighbours ascending). */
typedef struct pm_graph {
  int64_t n;
  int64_t *xadj; /* [n+1] */
  int32_t *adj;  /* [xadj[n]] */
} pm_graph_t;

/** Build the node graph of a mesh for an adjacency rule.  Not collective. */
PM_EXTERN int pm_graph_build(const pm_mesh_t *mesh, pm_adjacency_t adjacency, pm_graph_t *graph);
PM_EXTERN void pm_graph_free(pm_graph_t *graph);

typedef struct pm_part_options {
  int nparts;
  pm_part_method_t method;
  const char *file; /* for PM_PART_FILE */
  int64_t seed;     /* METIS seed */
  int ufactor;      /* METIS load imbalance, 1/1000 (30 = 3%); <= 0 for METIS's default */
} pm_part_options_t;

/** Assign a part to every node.
 *  @param[out] part  [mesh->n_nodes] part ids in 0..nparts-1, allocated by the caller
 *  @param[out] edgecut  graph edges whose ends are in different parts
 *  Fails with a message when a part would be empty.  Not collective. */
PM_EXTERN int pm_part_compute(const pm_mesh_t *mesh, const pm_graph_t *graph, const pm_part_options_t *opt,
                              int32_t *part, int64_t *edgecut);

/** The partition's fingerprint, written into its metadata and every local file so that files of
 *  two partitions are never mixed: FNV-1a 64 over the source mesh's checksum, the method and halo
 *  names, the order name (unless NULL or "none"), nparts, the node ids and `part`.  Not
 *  collective. */
PM_EXTERN uint64_t pm_part_fingerprint(const pm_mesh_t *mesh, const int32_t *part, int nparts, uint64_t source_checksum,
                                       const char *method, const char *halo, const char *order);

/** Per-rank lists built once for all ranks (linear time), then one local mesh at a time. */
typedef struct pm_part_plan pm_part_plan_t;

/** Build the plan for `part` (node part ids); free with pm_part_plan_destroy (NULL-safe).  Not
 *  collective. */
PM_EXTERN int pm_part_plan_create(const pm_mesh_t *mesh, const pm_graph_t *graph, pm_adjacency_t adjacency,
                                  const int32_t *part, int nparts, pm_part_plan_t **plan);
PM_EXTERN void pm_part_plan_destroy(pm_part_plan_t **plan);

/** Build rank r's local mesh (fingerprint and nparts set from the arguments).  Not collective. */
PM_EXTERN int pm_part_local(pm_part_plan_t *plan, int rank, uint64_t fingerprint, pm_local_t **local);

#ifdef __cplusplus
}
#endif
#endif
