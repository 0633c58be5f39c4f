/* pm_h5_src.h - private: the rows of a result's mesh whose elements the caller gives (a
 * pm_h5_elements_t, pmesh/pm_h5.h) instead of the local mesh's arrays.  A root of pm_h5's element
 * plan is then an item of `per` elements, and its row is their rows one after the other, each
 * as the local path's would be: the connectivity (type and node positions, or the positions
 * alone in the one-type order), the owner or the group. */
#ifndef PMESH_PM_H5_SRC_H
#define PMESH_PM_H5_SRC_H

#include <stdint.h>

#include "halo/pm_redist.h"
#include "pm_h5io.h"
#include "pmesh/pm_h5.h"

typedef struct pm_h5_src {
  const pm_h5_elements_t *e;       /* the caller's (NULL: no source), during pm_h5_series_create only */
  const pm_local_t *l;             /* its nodes: local node -> global position (node_index) */
  const int8_t *perm;              /* a one-type mesh's vertex order (set before its rows are asked for) */
  int8_t nverts[PM_H5_GMSH_CODES]; /* vertices by Gmsh code; 0: no cell of the mesh's dimension */
  int64_t own[PM_H5_NT];           /* this rank's elements by cell type */
} pm_h5_src_t;

/* The elements checked (what pm_h5io_check_local checks of a local mesh's, and the local nodes
 * the rows read), counted by type into s->own, and their fingerprint terms
 * (pm_fingerprint_element) summed into *esum when meta has no mesh fingerprint.  s->e and s->l
 * set.  Not collective. */
int pm_h5_src_survey(pm_h5_src_t *s, int rank, int nranks, const pm_meta_t *meta, int node_fields, uint64_t *esum);

/* cnt[t] += the elements of type t (pm_cell_type_t, by map) of the plan's roots a..b-1. */
void pm_h5_src_count_types(const pm_h5_src_t *s, const pm_redist_t *rd, int32_t a, int32_t b, const int8_t *map,
                           int64_t *cnt);

/* pm_redist_get_t's (ctx: the pm_h5_src_t): rows of type and PM_CELL_MAX_VERTS node positions
 * (-1 pads) as int64; node positions only in s->perm's order as int64 or int32; owners; groups
 * (int32). */
void pm_h5_src_elem_get(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                        const pm_redist_row_t *to, int w);
void pm_h5_src_nodes_get(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                         const pm_redist_row_t *to, int w);
void pm_h5_src_nodes_get32(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                           const pm_redist_row_t *to, int w);
void pm_h5_src_owner_get(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                         const pm_redist_row_t *to, int w);
void pm_h5_src_group_get(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                         const pm_redist_row_t *to, int w);

#endif
