/* pm_amg_agglom.h - moving a small AMG level onto fewer ranks (private to the multigrid modules).
 *
 * On a coarse level with few rows per rank the cycle's time goes to message latency, not to
 * arithmetic, so such a level is agglomerated: its rows are owned by the first k ranks of its
 * parent level's communicator, split evenly in global order, and it and every level below it
 * are built and cycled on a communicator of those k ranks alone (MPI_Comm_split); the other
 * ranks are idle below.
 *
 * The move costs the set-up nothing extra: the parent level computes P^T A P with the reduced
 * ownership (the Galerkin product already sends each coarse row to its owner).  The layout that
 * product returns, the transfer layout (on the parent's communicator: the coarse rows on the k
 * ranks, and every rank's coarse columns of its P as externals), stays with the parent level:
 * in the cycle the restriction's accumulate through its halo delivers the coarse right-hand
 * side to the k ranks and its update brings the correction back.  The transfer is thus still P
 * and P^T, with other owners of the coarse rows, so the V-cycle stays symmetric.  The coarse
 * level itself gets a second layout of the same rows on the k ranks' communicator, whose
 * externals are only its matrix's columns. */
#ifndef PMESH_PM_AMG_AGGLOM_H
#define PMESH_PM_AMG_AGGLOM_H

#include <mpi.h>
#include <stdint.h>

#include "pm_dmat.h"
#include "pmesh/pm_csr.h"

/** The number of ranks a coarse level of `rows` global rows is kept on when its parent level
 *  runs on `size` ranks: size when rows >= rows_per_rank * size or rows_per_rank is 0 (no
 *  agglomeration), else max(1, rows / rows_per_rank).  Not collective. */
int pm_amg_agglom_ranks(int64_t rows, int size, int64_t rows_per_rank);

/** range[size+1]: `rows` rows split evenly in global order over ranks 0..k-1 (the first
 *  rows % k of them one more), none on ranks k..size-1.  Not collective. */
void pm_amg_agglom_range(int64_t rows, int size, int k, int64_t *range);

/** Moves a coarse level, built on comm with the rows on ranks 0..k-1 only (range from
 *  pm_amg_agglom_range), onto a communicator of those ranks.  In: *cdm and *ac, the layout and
 *  matrix pm_amg_rap returned.  Out: *xdm, the transfer layout (*cdm as it came, on comm);
 *  on ranks 0..k-1 *sub, the new communicator (the caller frees it after *cdm), *cdm, the
 *  level's layout on it (with its halo), and *ac with its columns in that layout; on the
 *  other ranks *sub = MPI_COMM_NULL and *cdm = *ac = NULL.  Errors up to the split are agreed
 *  on comm, later ones only among the k ranks (the caller agrees them on comm afterwards); on
 *  an error *sub, *cdm and *ac are freed.  Collective on comm. */
int pm_amg_agglom_level(MPI_Comm comm, int k, pm_dmat_t **cdm, pm_csr_t **ac, MPI_Comm *sub, pm_dmat_t **xdm);

#endif
