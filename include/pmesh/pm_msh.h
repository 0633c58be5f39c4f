/* pm_msh.h - reader for Gmsh MSH files (2.2 and 4.1, ASCII and binary).
 *
 * The reader returns the file's content as it is ("raw"): nodes in file order with their tags,
 * elements of the supported types with their node *tags*, and physical-group memberships.
 * Turning that into a solver's global mesh (dimension, orphan nodes, groups) is pm_mesh_'s job. */
#ifndef PMESH_PM_MSH_H
#define PMESH_PM_MSH_H

#include <stdint.h>

#include "pmesh/pm_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Gmsh element types pmesh reads. */
enum pm_msh_type {
  PM_MSH_LINE = 1,  /* 2-node line */
  PM_MSH_TRI = 2,   /* 3-node triangle */
  PM_MSH_QUAD = 3,  /* 4-node quadrangle */
  PM_MSH_POINT = 15 /* 1-node point */
};

/** Number of nodes of a supported type, its dimension; -1 for other types.  Not collective. */
PM_EXTERN int pm_msh_type_nodes(int type);
PM_EXTERN int pm_msh_type_dim(int type);

typedef struct pm_msh_phys_name {
  int dim;    /* 0..3 */
  int tag;    /* physical tag */
  char *name; /* owned, NUL-terminated */
} pm_msh_phys_name_t;

/** Raw content of an MSH file.  Open struct, read-only to callers; owned by the handle. */
typedef struct pm_msh {
  int version_major, version_minor; /* 2.2 -> 2,2; 4.1 -> 4,1 */
  int binary;                       /* 1 for binary files */

  int64_t n_nodes;
  int64_t *node_tag; /* [n_nodes], in file order, unique (duplicates are an error) */
  double *xyz;       /* [3*n_nodes], finite */

  int64_t n_elems;
  int8_t *elem_type;    /* [n_elems], one of enum pm_msh_type */
  int64_t *elem_tag;    /* [n_elems] */
  int32_t *elem_entity; /* [n_elems] elementary entity tag (2.2: 2nd tag, 0 if absent) */
  int64_t *elem_ptr;    /* [n_elems+1] offsets into elem_node */
  int64_t *elem_node;   /* node tags; every tag exists in node_tag */

  /* Physical-group memberships: element member_elem[i] belongs to physical group
   * (dim of that element's type, member_phys[i]).  An element may belong to several groups
   * (MSH 4.1 entities with several physical tags; MSH 2.2 gives the first tag only). */
  int64_t n_member;
  int64_t *member_elem;
  int32_t *member_phys;

  int n_phys_names;
  pm_msh_phys_name_t *phys_names; /* from $PhysicalNames, may be empty */

  uint64_t checksum; /* FNV-1a 64 of the file's bytes */
  int64_t file_bytes;
} pm_msh_t;

/** Read an MSH 2.2 or 4.1 file, ASCII or binary, in one streaming pass (linear time).
 *  @param[in]  path  file to read
 *  @param[out] msh   new handle, destroy with pm_msh_destroy(); NULL on failure
 *  @return PM_OK, or PM_ERR_IO / PM_ERR_FORMAT / PM_ERR_UNSUPPORTED / PM_ERR_MEMORY with a message
 *          naming the file, the line (ASCII) or byte offset (binary), what was expected and found.
 *  Not collective. */
PM_EXTERN int pm_msh_read(const char *path, pm_msh_t **msh);

/** Free a handle; accepts NULL and a pointer to NULL, sets *msh to NULL.  Not collective. */
PM_EXTERN void pm_msh_destroy(pm_msh_t **msh);

#ifdef __cplusplus
}
#endif
#endif
