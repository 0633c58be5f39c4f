/* pm_redist.h - private: a redistribution plan: items from the ranks that own them to the block layout of
 * their global order, and back.
 *
 * A star forest in the spirit of PETSc's PetscSF, for one common shape: on each rank, roots are
 * the items it owns (nodes, elements, ...), each naming a position in a global order
 * 0..n_global-1; leaves are the positions themselves, laid out in blocks: rank r holds
 * [pm_redist_block_lo(n, p, r), pm_redist_block_lo(n, p, r + 1)), about n/p of them.  The plan
 * is made once (one exchange of counts and row numbers), then moves data of any width:
 *   - forward (roots -> leaves): each leaf gets its root's row.  It goes in rounds of at most
 *     rows_per_round leaves per rank, so that a writer can move and store one round while its
 *     buffers stay in cache; one call may move several rounds.
 *   - backward (leaves -> roots): each root gets its leaf's row (a restart reads the block of a
 *     file that rank r reads and hands every owner its items).
 * A plan where every rank's roots are already its block, in order, moves nothing between ranks
 * (it is an "identity"; then a move is a copy).
 *
 * Ownership: the plan borrows the communicator and `sel` (see pm_redist_create); it copies
 * nothing the caller keeps.  Data arrays are the caller's and only read (or, for the destination,
 * written) during a call.  Buffers that grow (pm_scratch_t, base/pm_alloc_int.h) are the caller's too, so
 * that several plans and many moves share the same warm memory.
 *
 * Errors: pm_redist_create returns an error agreed across ranks.  The moves agree on their own
 * allocations before they exchange, but return a failure of the exchange itself only where it
 * happens: call pm_comm_agree before the next collective call (as pm_h5 does after each round). */
#ifndef PMESH_PM_REDIST_H
#define PMESH_PM_REDIST_H

#include <mpi.h>
#include <stdint.h>

#include "base/pm_alloc_int.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct pm_redist pm_redist_t;

/** A leaf's row within its round (what travels in the plan's exchange: two bytes a row). */
typedef uint16_t pm_redist_row_t;

/** The most leaves per round and rank (rows are pm_redist_row_t). */
#define PM_REDIST_ROWS_MAX 65536

/** How pm_redist_create builds a plan (NULL: the defaults, all zero). */
typedef struct pm_redist_opts {
  int64_t rows_per_round; /* leaves per round and rank, clamped to [1, PM_REDIST_ROWS_MAX]; 0: the most */
  int exact;              /* 1: every leaf must be named by exactly one root, else PM_ERR_INCONSISTENT.
                             0: leaves named by no root are left alone by pm_redist_forward; a leaf
                             named twice gets one of its roots' rows */
  const char *what;       /* the items' name in messages ("node"); NULL: "item" */
  const char *hint;       /* a likely cause, appended to the messages about inconsistent positions */
  pm_scratch_t *work;     /* scratch for the set-up (NULL: a temporary one); pass the one the moves
                             use, and its memory is warm when they start */
} pm_redist_opts_t;

/** First position of rank r's block when n positions are spread over p ranks:
 *  floor(r n / p), without overflow.  Not collective. */
int64_t pm_redist_block_lo(int64_t n, int p, int r);

/** Make a plan for this rank's n_roots roots: root k names position pos[sel ? sel[k] : k] and
 *  its data is row sel ? sel[k] : k of the caller's arrays (sel: e.g. the owned elements among
 *  the local ones).  Roots may come in any order; they are sorted when their positions are not
 *  ascending.  Collective on comm; the error is agreed.
 *  @param[in]  comm      borrowed: must outlive the plan; every move is collective on it
 *  @param[in]  n_global  positions in all (the leaves)
 *  @param[in]  pos       read during this call only
 *  @param[in]  sel       may be NULL; borrowed: must stay valid and unchanged until the plan is
 *                        destroyed
 *  @param[out] rd        the plan; free with pm_redist_destroy
 *  @return PM_OK; PM_ERR_INCONSISTENT for a position outside [0, n_global) or (exact) a leaf
 *          named twice or never; PM_ERR_UNSUPPORTED beyond the plan's limits (more than
 *          INT32_MAX leaves on one rank, or too many rounds); PM_ERR_MEMORY; PM_ERR_MPI. */
int pm_redist_create(MPI_Comm comm, int64_t n_global, int32_t n_roots, const int64_t *pos, const int32_t *sel,
                     const pm_redist_opts_t *opts, pm_redist_t **rd);

/** Free a plan; accepts NULL and sets *rd to NULL.  Not collective. */
void pm_redist_destroy(pm_redist_t **rd);

/** What a plan looks like on this rank.  Read-only. */
typedef struct pm_redist_info {
  int nranks, rank;
  int64_t n_global;       /* leaves in all */
  int64_t lo, cnt;        /* this rank's leaves: positions [lo, lo + cnt) */
  int64_t rows_per_round; /* K: round c holds this rank's leaves lo + [cK, (c+1)K) */
  int nrounds;            /* the same on every rank */
  int32_t n_roots;        /* this rank's */
  int identity;           /* on every rank root k is leaf k and sel(k) == k: nothing moves */
} pm_redist_info_t;

/** Fill *info.  Not collective. */
void pm_redist_get_info(const pm_redist_t *rd, pm_redist_info_t *info);

/** This rank's leaves in rounds [round, round + nrounds) (fewer past the last round).  Not
 *  collective. */
int64_t pm_redist_rows(const pm_redist_t *rd, int round, int nrounds);

/** The plan's order of the roots, by ascending position: i-th is root order[i]; NULL when the
 *  roots came in that order (the i-th is root i).  Valid as long as the plan.  Not collective. */
const int32_t *pm_redist_order(const pm_redist_t *rd);

/** The roots that go to rank r (in all rounds) are the plan's i-th for i in [*first, *end).  Not
 *  collective. */
void pm_redist_roots_to(const pm_redist_t *rd, int r, int32_t *first, int32_t *end);

/** Rows computed on the fly: the roots the plan orders i = a..b-1 (pm_redist_order) to rows of
 *  `width` bytes, row i - a of dst (to == NULL) or row to[i - a] of dst.  Called on the calling
 *  thread, during pm_redist_forward only. */
typedef void (*pm_redist_get_t)(const void *ctx, const pm_redist_t *rd, int32_t a, int32_t b, char *dst,
                                const pm_redist_row_t *to, int width);

/** Where a forward move reads the roots' rows. */
typedef struct pm_redist_src {
  int width;           /* bytes per row */
  const void *data;    /* root k's row at data + width * (sel ? sel[k] : k), when get is NULL */
  pm_redist_get_t get; /* else: rows computed by get(ctx, ...) */
  const void *ctx;
} pm_redist_src_t;

/** Forward, roots -> leaves: this rank's leaves of rounds [round, round + nrounds), in order, in
 *  leaves->p (pm_redist_rows of them, src->width bytes each; a leaf that no root names keeps
 *  what was there).  Collective on the plan's communicator: every rank calls it with the same
 *  rounds (an identity plan only copies).
 *  @param[in]     src     the roots' rows
 *  @param[in,out] leaves  grown as needed; the rows are at leaves->p after the call
 *  @param[in,out] work    exchange buffers, grown as needed (NULL: temporary ones)
 *  @return PM_OK, PM_ERR_MEMORY (agreed), PM_ERR_MPI (not agreed). */
int pm_redist_forward(const pm_redist_t *rd, int round, int nrounds, const pm_redist_src_t *src, pm_scratch_t *leaves,
                      pm_scratch_t *work);

/** The rank each leaf of rounds [round, round + nrounds) comes from, into ranks[pm_redist_rows]
 *  (a leaf that no root names keeps what was there).  Not collective. */
void pm_redist_sources(const pm_redist_t *rd, int round, int nrounds, int32_t *ranks);

/** Backward, leaves -> roots, all rounds at once: row sel(k) of roots gets the row of root k's
 *  position from leaves, rows of `width` bytes.  Collective on the plan's communicator.
 *  @param[in]  leaves  this rank's cnt leaf rows (pm_redist_get_info), in order
 *  @param[out] roots   the caller's array; only the roots' rows are written
 *  @return PM_OK, PM_ERR_MEMORY (agreed), PM_ERR_MPI (not agreed). */
int pm_redist_backward(const pm_redist_t *rd, int width, const void *leaves, void *roots);

#ifdef __cplusplus
}
#endif
#endif
