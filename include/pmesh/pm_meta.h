/* pm_meta.h - a partition's metadata, the file DIR/partition.meta beside the local meshes
 * DIR/local.RANK (pm_local.h): what was partitioned (source, checksum, method, halo, seed), the
 * global counts, the groups, the partition's and the mesh's fingerprints, and for a partition
 * made by refinement (pm_refine_dump, pm_partition_dump) how many times it was refined and the
 * coarse partition it came from.
 *
 * File layout (text, one "key value" per line, in this order):
 *   #PMESH_PARTITION / version V / nparts / dim / global_nodes / global_elements /
 *   source_checksum HEX / method / halo / seed / ufactor / fingerprint HEX /
 *   [V >= 2] mesh_fingerprint HEX /
 *   [V >= 3] refine_levels K / coarse_fingerprint HEX / coarse_mesh_fingerprint HEX /
 *            coarse_global_nodes / coarse_global_elements /
 *   groups G / G lines "group DIM NAME" / source PATH (the rest of the line)
 * Versions 1, 2 and 3 are read; a partition as `partition` writes it is version 2, a refined one
 * version 3. */
#ifndef PMESH_PM_META_H
#define PMESH_PM_META_H

#include <stddef.h>
#include <stdint.h>

#include "pmesh/pm_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Partition metadata (DIR/partition.meta).  Open struct; pm_meta_read's result belongs to the
 *  caller (pm_meta_destroy). */
typedef struct pm_meta {
  int version;
  int nparts, dim;
  int64_t global_nodes, global_elems;
  char *source;
  uint64_t source_checksum;
  char *method, *halo;
  int64_t seed, ufactor;
  uint64_t fingerprint;
  int n_groups;
  char **group_name;
  int *group_dim;
  /* Version 2: the mesh's own fingerprint (partition-independent, pm_fingerprint.h), computed
   * once by partition so that writing a result need not hash the mesh again.  Version 1 files
   * have none (has_mesh_fingerprint = 0): readers compute it from the local meshes. */
  int has_mesh_fingerprint;
  uint64_t mesh_fingerprint;
  /* Version 3: a refined partition (refine_levels > 0, uniform refinements of the partition as
   * `partition` wrote it) and that coarse partition's fingerprints and global counts.  0 for a
   * partition as written by `partition` (and for versions 1 and 2); coarse_mesh_fingerprint is 0
   * when the coarse partition's metadata had none (version 1). */
  int refine_levels;
  uint64_t coarse_fingerprint, coarse_mesh_fingerprint;
  int64_t coarse_global_nodes, coarse_global_elems;
} pm_meta_t;

/* Written by `partition`: version 2 (with mesh_fingerprint); pm_meta_write writes version 3
 * whenever refine_levels > 0.  Read: versions 1, 2 and 3. */
enum { PM_META_VERSION = 2, PM_META_VERSION_REFINED = 3 };

/** Write partition metadata through a temporary name renamed on success: version meta->version,
 *  or PM_META_VERSION_REFINED when meta->refine_levels > 0.  Not collective.
 *  @param[in] meta  the metadata (borrowed)
 *  @param[in] path  the file (usually pm_meta_path's) */
PM_EXTERN int pm_meta_write(const pm_meta_t *meta, const char *path);

/** Read partition metadata; every field is checked (messages name the file and line).  Not
 *  collective.
 *  @param[out] meta  the metadata; pm_meta_destroy frees it */
PM_EXTERN int pm_meta_read(const char *path, pm_meta_t **meta);

/** Free; NULL-safe, sets *meta to NULL.  Not collective. */
PM_EXTERN void pm_meta_destroy(pm_meta_t **meta);

/** The metadata's path in a partition directory, DIR/partition.meta (a buffer of at least `size`
 *  bytes; PM_ERR_ARG when it does not fit).  Not collective. */
PM_EXTERN int pm_meta_path(const char *dir, char *buf, size_t size);

#ifdef __cplusplus
}
#endif
#endif
