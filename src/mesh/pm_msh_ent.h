/* pm_msh_ent.h - the Gmsh reader's entities and the references to them, private to the reader:
 * MSH 4.1 $Entities and $PartitionedEntities, the entity each node and element block names, the
 * physical groups elements get from their entity, and the $PhysicalNames that name those groups
 * (in MSH 2.2 too, whose elements carry their physical tag themselves; 2.2 has no entities).
 * A reference to something the file does not define is refused with the file, the line (or byte
 * offset) and the dimension and tag involved: read silently, it would lose physical groups. */
#ifndef PMESH_PM_MSH_ENT_H
#define PMESH_PM_MSH_ENT_H

#include "pm_msh_rd.h"

/* Why a file partitioned by Gmsh is refused. */
#define MSH_PARTITIONED                                                                        \
  "this mesh was partitioned by Gmsh ($PartitionedEntities); pmesh partitions meshes itself: " \
  "re-save the unpartitioned mesh (mesh again without -part, or unpartition it in Gmsh before saving)"

#if defined(__GNUC__)
#pragma GCC visibility push(hidden)
#endif

/** Read a 4.1 $Entities section (its name read; a binary file's header line consumed): each
 *  entity's physical tags into r->ent (sorted by dimension and tag) and r->ent_phys.  An entity
 *  listed twice, or bounded by an entity of the dimension below that $Entities does not list, is
 *  an error.  Not collective. */
int pm_msh_ent_read(msh_rd_t *r);

/** Read a 4.1 $PartitionedEntities section: a partitioned entity whose parent entity is not in
 *  $Entities, or a partition number outside [1, number of partitions], is a format error.  A
 *  consistent section is refused too (PM_ERR_UNSUPPORTED): pmesh partitions meshes itself.
 *  Not collective. */
int pm_msh_ent_read_partitioned(msh_rd_t *r);

/** After the last section of a 4.1 file that has $Entities: every node block and element block
 *  names an entity that $Entities lists.  Without $Entities (as meshio writes 4.1) no entity is
 *  defined, so there is nothing to refer to and nothing is checked.  Not collective. */
int pm_msh_ent_check_blocks(msh_rd_t *r);

/** After the last section of a 4.1 file: each element belongs to the physical groups of its
 *  block's entity (m->member_elem, m->member_phys).  Not collective. */
int pm_msh_ent_members(msh_rd_t *r);

#if defined(__GNUC__)
#pragma GCC visibility pop
#endif

#endif
