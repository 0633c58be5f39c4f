/* pm_halo.h - the generic multi-neighbour halo exchange, built from a local mesh's tables or
 * from plain neighbour/import/export lists over any local numbering (a user's own data).
 *
 * update:     owner -> external copies (each external node receives its owner's value);
 * accumulate: external copies -> owner, summed into the owner's value (externals unchanged).
 * Both have begin/end halves so that interior work can overlap communication.  Values are
 * interleaved blocks of `bs` items per local node (bs = 1 scalars, 2 vectors, 3 coordinates);
 * an item is any committed MPI datatype, so a node may also carry a user's struct (see
 * pm_halo_update_begin).  Six interchangeable back-ends give bitwise-identical results.  Each
 * halo owns a duplicate of the communicator, so its tags never collide with anyone else's. */
#ifndef PMESH_PM_HALO_H
#define PMESH_PM_HALO_H

#include <mpi.h>
#include <stdint.h>
#include <stdio.h>

#include "pmesh/pm_export.h"
#include "pmesh/pm_local.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum pm_exchange {
  PM_EXCHANGE_ISEND,      /* pack, MPI_Isend/MPI_Irecv/MPI_Waitall (the lecture's scheme) */
  PM_EXCHANGE_SENDRECV,   /* MPI_Sendrecv per neighbour, deadlock-free ordering */
  PM_EXCHANGE_DATATYPE,   /* no pack buffer: an indexed datatype per export list */
  PM_EXCHANGE_PERSISTENT, /* MPI_Send_init/MPI_Recv_init once, MPI_Startall per exchange */
  PM_EXCHANGE_NEIGHBOR,   /* distributed-graph communicator + MPI_Neighbor_alltoallv */
  PM_EXCHANGE_PACK,       /* MPI_Pack per neighbour into one MPI_PACKED buffer, MPI_Unpack */
  PM_EXCHANGE_COUNT
} pm_exchange_t;

/** Name of a back-end ("isend", ...), and the back-end of a name (PM_ERR_ARG listing the names).
 *  Not collective. */
PM_EXTERN const char *pm_exchange_name(pm_exchange_t kind);
PM_EXTERN int pm_exchange_parse(const char *name, pm_exchange_t *kind);
/** The default back-end (the fastest in pmesh's benchmark). */
PM_EXTERN pm_exchange_t pm_exchange_default(void);

typedef struct pm_halo pm_halo_t;

/** Build a halo from a local mesh: pm_halo_create_lists over its #NEIBPE / #IMPORT / #EXPORT
 *  tables, with the local mesh's own rules.  Collective on comm.
 *  Checks, agreed on all ranks: the communicator's size equals local->nparts and its rank equals
 *  local->rank; every neighbour lists this rank back; the counts each pair exchanges agree.
 *  The halo copies what it needs from `local` (which may be destroyed afterwards).
 *  @param[in]  comm   communicator (duplicated; MPI_ERRORS_RETURN set on the duplicate)
 *  @param[in]  local  this rank's local mesh
 *  @param[in]  kind   back-end
 *  @param[out] halo   new halo; pm_halo_destroy() frees it */
PM_EXTERN int pm_halo_create(MPI_Comm comm, const pm_local_t *local, pm_exchange_t kind, pm_halo_t **halo);

/** The exchange pattern of one rank as plain lists, in the caller's local numbering of a vector
 *  of n_total entries (the #NEIBPE / #IMPORT / #EXPORT tables of pm_local.h are one such
 *  pattern).  The halo copies them: the arrays are the caller's.  For each neighbour k,
 *  import_item[import_index[k] .. import_index[k+1]) are the positions that receive neighbour
 *  k's values, in the order in which neighbour k lists this rank's export items: the j-th
 *  value one rank exports to another lands in the j-th position the other imports from it. */
typedef struct pm_halo_lists {
  int32_t n_total;             /* entries of an exchanged vector (NP) */
  int n_neib;                  /* neighbour ranks (0: nothing is exchanged) */
  const int *neib;             /* [n_neib] distinct ranks of the communicator, not this one */
  const int32_t *import_index; /* [n_neib+1] offsets into import_item, import_index[0] = 0 */
  const int32_t *import_item;  /* positions 0..n_total-1 filled from the neighbours: each at
                                * most once, and none of them exported */
  const int32_t *export_index; /* [n_neib+1] offsets into export_item, export_index[0] = 0 */
  const int32_t *export_item;  /* positions 0..n_total-1 sent to the neighbours (a position may
                                * go to several) */
} pm_halo_lists_t;

/** Build a halo from plain lists (the way a PetscSF is built from a graph), for a caller whose
 *  data is not a pmesh local mesh.  "Externals" in this header are then the imported positions
 *  and "internals" all others; pm_halo_n_internal is n_total minus the imports.  The imported
 *  positions need not be the last ones (a ghost layer on both ends of a 1D array is fine), but
 *  when they are (owned entries 0..N-1, externals N..NP-1, pmesh's layout) update receives
 *  straight into them.  Collective on comm.
 *  Checks, agreed on all ranks: the lists as described in pm_halo_lists_t; every neighbour lists
 *  this rank back; the counts each pair exchanges agree.
 *  @param[in]  comm   communicator (duplicated; MPI_ERRORS_RETURN set on the duplicate)
 *  @param[in]  lists  this rank's lists (copied; the caller keeps its arrays)
 *  @param[in]  kind   back-end
 *  @param[out] halo   new halo; pm_halo_destroy() frees it
 *  @return PM_OK; PM_ERR_ARG for lists that break the rules above, PM_ERR_INCONSISTENT when two
 *          ranks' lists disagree (both agreed on every rank); or an MPI or memory error. */
PM_EXTERN int pm_halo_create_lists(MPI_Comm comm, const pm_halo_lists_t *lists, pm_exchange_t kind, pm_halo_t **halo);

/** Free a halo; NULL-safe, sets *halo to NULL.  Collective on the halo's communicator (it frees
 *  the duplicate).  An exchange still in flight is completed first. */
PM_EXTERN void pm_halo_destroy(pm_halo_t **halo);

/** Owner -> externals.  data has bs items of `type` per local node (at least NP nodes): node i's
 *  items start at data + i * bs * extent, as MPI lays out NP * bs items of `type`.  `type` is
 *  any committed datatype: predefined (MPI_DOUBLE, ...) or derived, e.g. a struct per node made
 *  with MPI_Type_create_struct and resized to sizeof the struct (MPI_Type_create_resized), or
 *  MPI_Type_contiguous(k, MPI_DOUBLE).  Each item's data must lie within its extent (PM_ERR_ARG
 *  otherwise; an uncommitted type is PM_ERR_ARG too).  Only the bytes the type describes are
 *  written: an external's padding and the fields the type leaves out keep their values.
 *  Between begin and end the caller may read internal entries and write internal entries that
 *  are not exported, but must not touch externals or write exported internals (some back-ends
 *  send straight from them); begin and end take the same data, type and bs.  One exchange at a
 *  time per halo: a second begin, an end without a begin or with other arguments is PM_ERR_ARG
 *  (nothing is sent; the exchange in progress, if any, stays valid).
 *  Collective among neighbours (every rank of the communicator must call it). */
PM_EXTERN int pm_halo_update_begin(pm_halo_t *halo, void *data, MPI_Datatype type, int bs);
PM_EXTERN int pm_halo_update_end(pm_halo_t *halo, void *data, MPI_Datatype type, int bs);

/** Externals -> owners, summed (MPI_INT, MPI_INT64_T, MPI_LONG_LONG, MPI_FLOAT, MPI_DOUBLE;
 *  integers wrap).  A derived datatype is PM_ERR_ARG: MPI defines no sum over a user's type,
 *  so accumulate its fields as predefined types (k doubles per node: MPI_DOUBLE with bs = k).
 *  Externals are left unchanged.  The contributions are added in end, in neighbour order
 *  (#NEIBPE order, then export-table order), to the values the internals hold then, so the
 *  result does not depend on message arrival nor on the back-end.  Between begin and end
 *  internals may be read and written; externals must not be touched.  Collective. */
PM_EXTERN int pm_halo_accumulate_begin(pm_halo_t *halo, void *data, MPI_Datatype type, int bs);
PM_EXTERN int pm_halo_accumulate_end(pm_halo_t *halo, void *data, MPI_Datatype type, int bs);

/** Convenience: begin + end.  Collective among neighbours, as they are. */
PM_EXTERN int pm_halo_update(pm_halo_t *halo, void *data, MPI_Datatype type, int bs);
PM_EXTERN int pm_halo_accumulate(pm_halo_t *halo, void *data, MPI_Datatype type, int bs);

/** The self-test of the lecture: internal nodes hold their global ids, one update, and every
 *  external node must hold its own global id.  If any rank passes a non-NULL `out`, rank 0 writes every rank's
 *  "RECVbuf <rank> <neighbour> <global id>" lines to it (the lecture's "%8d" columns), in rank
 *  order, and within a rank neighbour by neighbour in import order.  Collective.
 *  @param[in]  local    the local mesh the halo was built from (needs global ids)
 *  @param[out] n_wrong  number of wrong external values over all ranks
 *  @return PM_OK (also when values are wrong: check n_wrong); PM_ERR_ARG (agreed) when a local
 *          mesh has no global ids or is not the halo's; or an MPI error. */
PM_EXTERN int pm_halo_selftest(pm_halo_t *halo, const pm_local_t *local, FILE *out, int64_t *n_wrong);

/** The halo's communicator (the duplicate), number of neighbours, N and NP, back-end.
 *  Not collective. */
PM_EXTERN MPI_Comm pm_halo_comm(const pm_halo_t *halo);
PM_EXTERN int pm_halo_n_neib(const pm_halo_t *halo);
PM_EXTERN int32_t pm_halo_n_internal(const pm_halo_t *halo);
PM_EXTERN int32_t pm_halo_n_total(const pm_halo_t *halo);
PM_EXTERN pm_exchange_t pm_halo_kind(const pm_halo_t *halo);

#ifdef __cplusplus
}
#endif
#endif
