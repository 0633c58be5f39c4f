/* test_halo_lists.c - a halo built from plain lists (pm_halo_create_lists), without a local
 * mesh: a 1D chain split over the ranks (tu_chain.h), in pmesh's layout and with a ghost on
 * each end of the rank's array, through every back-end.  Checks, against the chain's global ids
 * computed here:
 *  - update: every ghost holds its owner's value; a slot with no neighbour keeps its own;
 *  - accumulate: each owned end point gains the ghost values of the ranks that import it (its
 *    neighbours' rank numbers plus 1000), ghosts are unchanged;
 *  - update of two doubles per point (bs = 2);
 *  - the counts (pm_halo_n_internal: NP minus the imports);
 *  - refusals, agreed on every rank: a position both imported and exported, one out of range,
 *    imported twice (PM_ERR_ARG); two ranks whose counts disagree (PM_ERR_INCONSISTENT). */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pmesh/pm_comm.h"
#include "pmesh/pm_error.h"
#include "pmesh/pm_halo.h"
#include "tu_chain.h"
#include "tu_check.h"



static void check_exchanges(const tu_chain_t *c, pm_exchange_t kind) {
  MPI_Comm comm = MPI_COMM_WORLD;
  const char *name = pm_exchange_name(kind);
  const char *lay = c->layout == TU_OWNED_FIRST ? "owned first" : "ghosts around";
  pm_halo_lists_t g = tu_chain_lists(c);
  pm_halo_t *h = NULL;
  OK(pm_halo_create_lists(comm, &g, kind, &h));
  int n_imp = (c->left >= 0) + (c->right >= 0);
  EXPECT(pm_halo_n_total(h) == c->np && pm_halo_n_internal(h) == c->np - n_imp && pm_halo_n_neib(h) == c->n_neib,
         "%s, %s: counts NP %d, N %d, %d neighbours", name, lay, (int)pm_halo_n_total(h), (int)pm_halo_n_internal(h),
         pm_halo_n_neib(h));

  /* Update: owned points hold their ids, every other slot -7. */
  int64_t *v = malloc(((size_t)c->np + 1) * sizeof *v);
  for (int32_t i = 0; i < c->np; i++) v[i] = i >= c->own0 && i < c->own0 + c->n ? tu_chain_gid(c, i) : -7;
  OK(pm_halo_update(h, v, MPI_INT64_T, 1));
  for (int32_t i = 0; i < c->np; i++) {
    int64_t want = tu_chain_gid(c, i);
    EXPECT(v[i] == (want >= 0 ? want : -7), "%s, %s: update: position %d holds %lld, expected %lld", name, lay, (int)i,
           (long long)v[i], (long long)(want >= 0 ? want : -7));
  }

  /* Two doubles per point: (id, -id). */
  double *w = malloc(2 * ((size_t)c->np + 1) * sizeof *w);
  for (int32_t i = 0; i < c->np; i++) {
    int own = i >= c->own0 && i < c->own0 + c->n;
    w[2 * i] = own ? (double)tu_chain_gid(c, i) : 0.5;
    w[2 * i + 1] = own ? -(double)tu_chain_gid(c, i) : 0.5;
  }
  OK(pm_halo_update(h, w, MPI_DOUBLE, 2));
  for (int32_t i = 0; i < c->np; i++) {
    int64_t id = tu_chain_gid(c, i);
    double a = id >= 0 ? (double)id : 0.5, b = id >= 0 ? -(double)id : 0.5;
    EXPECT(w[2 * i] == a && w[2 * i + 1] == b, "%s, %s: bs 2: position %d holds (%g, %g)", name, lay, (int)i, w[2 * i],
           w[2 * i + 1]);
  }

  /* Accumulate: owned 10, ghosts 1000 + this rank, spare slots 3. */
  for (int32_t i = 0; i < c->np; i++)
    w[i] = i >= c->own0 && i < c->own0 + c->n ? 10.0 : (i == c->gl || i == c->gr) ? 1000.0 + g_rank : 3.0;
  OK(pm_halo_accumulate(h, w, MPI_DOUBLE, 1));
  for (int32_t i = 0; i < c->np; i++) {
    double want;
    if (i >= c->own0 && i < c->own0 + c->n) {
      want = 10.0;
      if (i == c->own0 && c->left >= 0) want += 1000.0 + c->left;
      if (i == c->own0 + c->n - 1 && c->right >= 0) want += 1000.0 + c->right;
    } else {
      want = (i == c->gl || i == c->gr) ? 1000.0 + g_rank : 3.0;
    }
    EXPECT(w[i] == want, "%s, %s: accumulate: position %d holds %g, expected %g", name, lay, (int)i, w[i], want);
  }
  free(v);
  free(w);
  pm_halo_destroy(&h);
  EXPECT(h == NULL, "pm_halo_destroy leaves the handle set");
}

/* Lists that one rank (the last) gets wrong: every rank returns an error, that rank `code`. */
static void check_refused(const tu_chain_t *good, int what, int code, const char *label) {
  int size;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  tu_chain_t c = *good;
  int32_t exp2[3] = {0, 0, 0}, expi[3] = {0, 2, 2};
  pm_halo_lists_t g = tu_chain_lists(&c);
  if (g_rank == size - 1) {
    /* The last rank has a left neighbour only: its lists are one import and one export. */
    if (what == 0) c.imp_item[0] = c.exp_item[0]; /* a position both imported and exported */
    if (what == 1) c.imp_item[0] = c.np;          /* out of range */
    if (what == 2) {                              /* two exports to a rank that imports one */
      exp2[0] = c.exp_item[0];
      exp2[1] = c.exp_item[0] + 1;
      g.export_index = expi;
      g.export_item = exp2;
    }
  }
  pm_halo_t *h = NULL;
  int ierr = pm_halo_create_lists(MPI_COMM_WORLD, &g, PM_EXCHANGE_ISEND, &h);
  int mine = ierr == code, any = 0;
  MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
  EXPECT(ierr != PM_OK && h == NULL, "%s: accepted (code %d)", label, ierr);
  EXPECT(any, "%s: no rank reports code %d (this rank: %d, '%s')", label, code, ierr, pm_error_message());
  if (g_rank == size - 1 && code == PM_ERR_ARG)
    EXPECT(ierr == PM_ERR_ARG && strstr(pm_error_message(), "position"), "%s: code %d, message '%s'", label, ierr,
           pm_error_message());
  pm_error_clear();
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int64_t N = 5 * size + 1; /* blocks of 5 and 6 points; a one-point block in a second run */
  for (int layout = 0; layout < 2; layout++) {
    tu_chain_t c;
    tu_chain_init(&c, N, g_rank, size, layout);
    for (int k = 0; k < PM_EXCHANGE_COUNT; k++) check_exchanges(&c, (pm_exchange_t)k);
    tu_chain_init(&c, size, g_rank, size, layout); /* one point per rank: both ends are the same */
    check_exchanges(&c, pm_exchange_default());
  }
  if (size > 1) {
    tu_chain_t c;
    tu_chain_init(&c, N, g_rank, size, TU_OWNED_FIRST);
    check_refused(&c, 0, PM_ERR_ARG, "imported and exported");
    check_refused(&c, 1, PM_ERR_ARG, "import out of range");
    check_refused(&c, 2, PM_ERR_INCONSISTENT, "counts disagree");
    /* The same position imported from both neighbours (a middle rank). */
    if (size > 2) {
      tu_chain_init(&c, N, g_rank, size, TU_OWNED_FIRST);
      pm_halo_lists_t g = tu_chain_lists(&c);
      if (g_rank == 1) c.imp_item[1] = c.imp_item[0];
      pm_halo_t *h = NULL;
      int ierr = pm_halo_create_lists(MPI_COMM_WORLD, &g, PM_EXCHANGE_ISEND, &h);
      EXPECT(g_rank == 1 ? ierr == PM_ERR_ARG && strstr(pm_error_message(), "imported twice") : ierr == PM_ERR_REMOTE,
             "imported twice: code %d, '%s'", ierr, pm_error_message());
      pm_error_clear();
    }
  }
  int fails = g_fail;
  pm_comm_allreduce(MPI_IN_PLACE, &fails, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (g_rank == 0) printf("test_halo_lists: %s (%d ranks)\n", fails ? "FAILED" : "passed", size);
  MPI_Finalize();
  return fails ? 1 : 0;
}
