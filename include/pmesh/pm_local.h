/* pm_local.h - one rank's local mesh, in memory and in the lecture's file format.
 *
 * A local mesh is the lecture's "local data structure": internal nodes 1..N (ascending global
 * id), external nodes N+1..NP grouped by neighbour (in #NEIBPE order, ascending global id within
 * a neighbour), and the import/export tables.  pmesh adds what a solver needs: global ids,
 * coordinates, elements, groups.  In memory every index is 0-based; in files items are 1-based.
 *
 * File layout (text; the first seven sections are exactly the lecture's):
 *   #NEIBPEtot / n_neib          #NEIBPE / neighbour ranks
 *   #NODE / NP N                 #IMPORTindex / cumulative counts (no leading 0)
 *   #IMPORTitems / one per line  #EXPORTindex / ...   #EXPORTitems / ...
 *   #AUXNODE / NA      nodes NP+1..NP+NA: used by kept elements but not exchanged (--halo edge)
 *   #GLOBALID / NT (= NP + NA), then per node "tag index": its global id (the Gmsh node tag)
 *          and its 0-based position in the global node order (ascending tags)
 *   #COORD / NT, then "x y z" per line
 *   #ELEMENT / NE, then "type gid index owner n1 n2 [n3 [n4]]" per line (gid: Gmsh element tag;
 *          index: 0-based position in the global element order; nodes local, 1-based)
 *   #GROUP / G, then per group: "name dim n_nodes n_faces n_elems", node items (1-based),
 *          faces "type gid n1 [n2]" one per line, element items (1-based)
 *   #PARTITION / "fingerprint nparts rank"
 *   #END
 * The reader also accepts the lecture's own files (the first seven sections only) and the
 * spellings #IMPORT_index, #EXPORT_items, ... (case and underscores are ignored). */
#ifndef PMESH_PM_LOCAL_H
#define PMESH_PM_LOCAL_H

#include <stddef.h>
#include <stdint.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_meta.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_local_group {
  char *name;
  int dim;
  int32_t n_nodes, *nodes; /* local node indices, ascending */
  int32_t n_faces;
  int8_t *face_type;
  int64_t *face_gid;
  int32_t *face_ptr, *face_node; /* local node indices */
  int32_t n_elems, *elems;       /* local element indices, ascending */
} pm_local_group_t;

typedef struct pm_local {
  int rank, nparts;
  int n_neib, *neib;     /* neighbour ranks, ascending */
  int32_t n_internal;    /* N */
  int32_t n_total;       /* NP = N + external */
  int32_t n_aux;         /* NA: element-only nodes after NP (0 for --halo element) */
  int32_t *import_index; /* [n_neib+1], import_index[0] = 0 */
  int32_t *import_item;  /* local node indices (N..NP-1) */
  int32_t *export_index; /* [n_neib+1] */
  int32_t *export_item;  /* local node indices (0..N-1) */

  int has_mesh;        /* 0 for a lecture file with the tables only */
  int64_t *gid;        /* [NP+NA] global ids (Gmsh node tags) */
  int64_t *node_index; /* [NP+NA] position in the global node order, 0-based */
  double *xyz;         /* [3*(NP+NA)] */
  int32_t n_elems;
  int8_t *elem_type;   /* enum pm_msh_type */
  int64_t *elem_gid;   /* Gmsh element tag */
  int64_t *elem_index; /* position in the global element order, 0-based */
  int32_t *elem_owner; /* rank owning the element */
  int32_t *elem_ptr;   /* [n_elems+1] */
  int32_t *elem_node;  /* local node indices */
  int n_groups;
  pm_local_group_t *groups;

  uint64_t fingerprint; /* of the whole partition (0 if the file has none) */
} pm_local_t;

/** Allocate an empty local mesh.  Not collective. */
PM_EXTERN int pm_local_create(pm_local_t **local);
/** Free; NULL-safe, sets *local to NULL.  Not collective. */
PM_EXTERN void pm_local_destroy(pm_local_t **local);

/** What pm_local_release frees.  PM_LOCAL_ELEM_PLACE: the elements' place in the global mesh
 *  (elem_index, elem_owner), which only writing or checking the mesh and sums over the elements
 *  need.  PM_LOCAL_ELEMENTS: all of the elements, and the groups' element lists.
 *  PM_LOCAL_COORDS: the nodes' coordinates (xyz NULL after), which a matrix-free finest level
 *  needs only until its right-hand side is made. */
enum { PM_LOCAL_ELEM_PLACE = 1, PM_LOCAL_ELEMENTS = 2, PM_LOCAL_COORDS = 4 };

/** Free parts of a mesh that no longer needs them: a steady run once its result's mesh is
 *  written (the place) and once its operator is assembled (the elements), where the elements are
 *  about 40% of a refined run's memory.  Nodes, coordinates, the groups' nodes and faces and the
 *  tables stay.  Without its elements the mesh has n_elems 0 and has_mesh 0, and what needs them
 *  (assembly, pm_h5_series_create) refuses it.  Not collective. */
PM_EXTERN void pm_local_release(pm_local_t *local, int what);

/** Each local element's volume group, as a result's /fields/cell_group gives it a viewer: the
 *  index in meta's group list of the last of the mesh's groups that holds the element, -1 for
 *  none.  *groups gets n_elems entries (at least one); free() it.  Not collective. */
PM_EXTERN int pm_local_element_groups(const pm_local_t *local, const pm_meta_t *meta, int32_t **groups);

/** Write a local mesh to `path` (through a temporary name renamed on success).  Not collective. */
PM_EXTERN int pm_local_write(const pm_local_t *local, const char *path);

/** Read a local mesh file; every count, index and item is checked (messages name the file, line
 *  and section).  `expect_rank` >= 0 checks the file's #PARTITION rank.  Not collective. */
PM_EXTERN int pm_local_read(const char *path, int expect_rank, pm_local_t **local);

/** The path of rank `rank`'s local mesh in a partition directory, DIR/local.RANK (a buffer of at
 *  least `size` bytes; pm_meta_path, pm_meta.h, gives the metadata's).  Not collective. */
PM_EXTERN int pm_local_path(const char *dir, int rank, char *buf, size_t size);

/** The index of the group called `name` in local->groups, or -1 when there is none.  Not
 *  collective. */
PM_EXTERN int pm_local_find_group(const pm_local_t *local, const char *name);

/** Default partition directory (written by partition, read by solve): "pmesh.part". */
#define PM_DEFAULT_PART_DIR "pmesh.part"

#ifdef __cplusplus
}
#endif
#endif
